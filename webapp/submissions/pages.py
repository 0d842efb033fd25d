"""Static public pages: the privacy notice ``/privacy`` (ru/be/en; what is
kept, why, for how long — the retention settings of this instance — and how to ask for
deletion) and the owl favicon ``/favicon.ico``."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, send_from_directory
from flask_babel import get_locale

from webapp.core.access import access
from webapp.resources import package_dir

bp = Blueprint("pages", __name__)

#: Seconds a browser may cache the favicon (one day).
FAVICON_MAX_AGE = 24 * 3600


def retention() -> dict:
    """The retention figures the privacy notice states, read from the configuration:
    ``{"payee_days", "vote_days", "backup_days", "link_hours", "contact"}`` (``contact``: the
    editorial office's address for deletion requests, ``SOVA_PRIVACY_CONTACT``, or "")."""
    cfg = current_app.config
    return {
        "payee_days": cfg["SOVA_PAYEE_RETENTION_DAYS"],
        "vote_days": cfg["SOVA_VOTE_RETENTION_DAYS"],
        "backup_days": cfg["SOVA_BACKUP_RETENTION_DAYS"],
        "link_hours": cfg["SOVA_DETAILS_LINK_HOURS"],
        "contact": cfg["SOVA_PRIVACY_CONTACT"],
    }


@bp.route("/privacy")
@access("public")
def privacy():
    """The privacy notice in the page's language (one template per language: it is prose)."""
    lang = str(get_locale() or "ru")
    return render_template(f"submissions/privacy_{lang}.html", r=retention())


@bp.route("/favicon.ico")
@access("public")
def favicon():
    """The owl icon (``static/favicon.ico``: 16, 32 and 48 px; ``static/owl.svg`` is the
    same owl for the page header and modern browsers)."""
    return send_from_directory(
        package_dir() / "static",
        "favicon.ico",
        mimetype="image/vnd.microsoft.icon",
        max_age=FAVICON_MAX_AGE,
    )
