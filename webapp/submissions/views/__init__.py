"""Viewer pages: the submission form, the authorship link, the live form, and the editors'
intake of paper letters and packets (the status page and «Мои вопросы» read a question's
public history, so they live in the archive's room: ``webapp.archive.viewer``).

A package by screen (this module re-exports every name, so callers import from
``webapp.submissions.views``; every module adds its routes and handlers to the one
blueprint ``bp``, endpoints ``submissions.<function>``): ``common`` (the blueprint, the
uploads folder, the language of a redirect), ``submit_form`` (the submission form, its rate-limit
keys, its 413/CSRF/429/503 pages), ``viewer`` (the index, the language, the authorship
link), ``staff`` (handout images, paper
letters, packet upload)."""

from __future__ import annotations

from webapp.submissions.links import my_link_token
from webapp.submissions.operations import normalise_email
from webapp.submissions.views.common import (  # noqa: F401
    SUBMIT_MAX_BODY,
    bp,
    lang_arg,
    uploads_folder,
)
from webapp.submissions.views.staff import (  # noqa: F401
    new_letter,
    upload,
    upload_packet,
)
from webapp.submissions.views.submit_form import (  # noqa: F401
    api_email_limit_key,
    counts_toward_limit,
    csrf_expired,
    email_key,
    form_page,
    outage_form,
    submission_from,
    submit,
    too_large,
    too_many,
    viewer_language,
)
from webapp.submissions.views.viewer import (  # noqa: F401
    confirm,
    index,
    set_language,
)

__all__ = ["bp", "my_link_token", "normalise_email"]
