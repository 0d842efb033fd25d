"""Where the installed package keeps its files (templates, static files, translations,
migrations, demo packets), found through the import system, never relative to a checkout or
the current directory: the same code works for the editable install of a checkout and for an
installed wheel.

``templates_dir() -> Path``: the folder of the ``sova_templates`` package (the repository's
top-level ``templates/``: pages, ``emails/``, ``pdf/``).
``package_dir() -> Path``: the folder of the ``webapp`` package (``static/``,
``translations/``, ``migrations/``, ``demo/``, ``Procfile``).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path


@cache
def templates_dir() -> Path:
    """The folder holding Sova's Jinja templates (``sova_templates``)."""
    return Path(str(files("sova_templates")))


@cache
def package_dir() -> Path:
    """The folder of the installed ``webapp`` package."""
    return Path(str(files("webapp")))
