"""The submissions blueprint and what its pages share: the uploads folder, the language of a
redirect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, request

from webapp.app_lang import LANGUAGES

bp = Blueprint("submissions", __name__)


SUBMIT_MAX_BODY = 64 * 1024 * 1024  # bytes of a submit form's body read


def uploads_folder() -> Path:
    return Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads"


def lang_arg() -> dict[str, Any]:
    """``{"lang": code}`` when this request chose a language (an e-mailed link's
    ``?lang=``), for the ``url_for`` of the page it redirects to; else ``{}``."""
    lang = request.args.get("lang")
    return {"lang": lang} if lang in LANGUAGES else {}
