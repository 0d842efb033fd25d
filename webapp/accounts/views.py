"""Staff login and logout."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import login_user, logout_user

from webapp.accounts.forms import LoginForm
from webapp.accounts.models import User
from webapp.accounts.operations import check_password
from webapp.core.access import access
from webapp.extensions import db

bp = Blueprint("accounts", __name__)

HOME_BY_ROLE = {
    "editor": "moderation.queue", "chief_editor": "moderation.queue",
    "producer": "games.index", "host": "games.index", "accountant": "prizes.index",
    "admin": "moderation.queue",
}


def _safe_next(target: str | None) -> str | None:
    """Only same-site relative paths (no open redirect)."""
    if not target:
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    return target


@bp.route("/login", methods=["GET", "POST"])
@access("public")
def login():
    form = LoginForm()
    if form.validate_on_submit():
        user = db.session.scalar(db.select(User).filter_by(email=form.email.data.strip().lower()))
        if user and user.active and check_password(user, form.password.data):
            login_user(user)
            return redirect(_safe_next(request.args.get("next"))
                            or url_for(HOME_BY_ROLE.get(user.role, "submissions.index")))
        form.form_errors.append("Неверная почта или пароль.")
    code = 401 if form.is_submitted() and form.form_errors else 200
    return render_template("accounts/login.html", form=form), code


@bp.route("/logout", methods=["POST"])
@access("public")
def logout():
    logout_user()
    flash("Вы вышли из системы.")
    return redirect(url_for("submissions.index"))
