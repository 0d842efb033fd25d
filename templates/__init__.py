"""Sova's Jinja templates: pages, e-mails (``emails/``) and PDFs (``pdf/``).

This folder stays top-level in the repository and is installed as the package
``sova_templates`` (``setup.py`` maps it), so an installed wheel carries it. Code finds it
with :func:`webapp.resources.templates_dir`, never by a path relative to a checkout.
"""
