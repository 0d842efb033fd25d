"""Staff login and logout."""

from __future__ import annotations

import secrets
from datetime import timedelta

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user, login_user, logout_user
from flask_wtf import FlaskForm
from itsdangerous import BadSignature, URLSafeSerializer

from webapp.accounts.forms import (
    DeactivateForm,
    InvitationAcceptForm,
    LoginForm,
    PasswordChangeForm,
    PasswordSetForm,
    RenewInvitationForm,
    RevokeTokenForm,
    StaffInviteForm,
)
from webapp.accounts.models import ROLE_LABELS, ApiToken, User, is_demo_email
from webapp.accounts.operations import (
    INVITATION_DAYS,
    LOCKOUT_DURATION,
    LOCKOUT_THRESHOLD,
    AccountError,
    AccountLocked,
    accept_invitation,
    authenticate,
    change_password,
    deactivate,
    end_sessions,
    invite_user,
    renew_invitation,
    reset_password,
    revoke_token,
    sign_out_everywhere,
    user_for_invitation,
)
from webapp.core.access import access
from webapp.core.edge import keep
from webapp.core.fields import errors_line
from webapp.core.redirects import local_path
from webapp.extensions import db, limiter
from webapp.security import login_rate_limit

bp = Blueprint("accounts", __name__)


@bp.app_template_filter("role_label")
def role_label_filter(role: str) -> str:
    """A role code as the pages name it (``"chief_editor"`` → ``"главный редактор"``)."""
    return ROLE_LABELS.get(role, role)


HOME_BY_ROLE = {
    "editor": "moderation.queue",
    "chief_editor": "moderation.queue",
    "producer": "games.index",
    "host": "games.index",
    "accountant": "prizes.index",
    "admin": "moderation.queue",
}


#: The device cookie: a browser that signed in to an account before (OWASP «device
#: cookies»). Signed with the app's secret key: ``{"n": nonce, "u": [user ids]}``.
DEVICE_COOKIE = "sova_device"
DEVICE_SALT = "sova-device"
DEVICE_MAX_AGE = 365 * 24 * 3600


def _device_serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=DEVICE_SALT)


def _device() -> dict:
    """This browser's device cookie, checked (``{"n": nonce, "u": [user ids]}``), or ``{}``
    when it has none or a forged one."""
    raw = request.cookies.get(DEVICE_COOKIE)
    if not raw:
        return {}
    try:
        data = _device_serializer().loads(raw)
    except BadSignature:
        return {}
    ok = (
        isinstance(data, dict)
        and isinstance(data.get("n"), str)
        and isinstance(data.get("u"), list)
    )
    return data if ok else {}


def login_origin() -> tuple[str | None, dict[int, str]]:
    """``(address, devices)`` of this login attempt for
    :func:`webapp.accounts.operations.authenticate`: the client's address (behind a trusted
    proxy, the forwarded one) and ``{user id: device nonce}`` for every account this browser
    signed in to before."""
    device = _device()
    ids = [i for i in device.get("u", []) if isinstance(i, int)]
    return request.remote_addr, {i: device["n"] for i in ids}


def trust_device(response, user: User):
    """Remember on ``response`` that this browser signed in to ``user`` (the device cookie,
    one year, HttpOnly): its later attempts are counted as this device's, apart from any
    address an attacker locks."""
    device = _device()
    nonce = device.get("n") or secrets.token_urlsafe(16)
    users = [i for i in device.get("u", []) if isinstance(i, int) and i != user.id][-9:]
    response.set_cookie(
        DEVICE_COOKIE,
        _device_serializer().dumps({"n": nonce, "u": [*users, user.id]}),
        max_age=DEVICE_MAX_AGE,
        samesite="Lax",
        secure=current_app.config["SESSION_COOKIE_SECURE"],
        httponly=True,
    )
    return response


@bp.route("/login", methods=["GET", "POST"])
@access("public")
@limiter.limit(login_rate_limit, methods=["POST"])
def login():
    """Staff login. 302 on success; 422 when the form fails validation (an empty or
    overlong field); 401 wrong e-mail/password; 429 when this source of attempts on the
    account is locked (``SOVA_LOGIN_MAX_FAILURES`` failures in a row, default 5, lock
    ``SOVA_LOGIN_LOCKOUT_MINUTES``, default 15; the source is the client's address, or this
    browser when it signed in to the account before: :func:`login_origin`) or the address
    exceeds the rate limit. A success marks this browser as the account's device
    (:func:`trust_device`)."""
    form = LoginForm()
    code = 200
    if form.validate_on_submit():
        minutes = int(
            current_app.config.get(
                "SOVA_LOGIN_LOCKOUT_MINUTES", LOCKOUT_DURATION.total_seconds() // 60
            )
        )
        address, devices = login_origin()
        try:
            user = authenticate(
                form.email.data,
                form.password.data,
                address=address,
                devices=devices,
                threshold=int(current_app.config.get("SOVA_LOGIN_MAX_FAILURES", LOCKOUT_THRESHOLD)),
                duration=timedelta(minutes=minutes),
            )
        except AccountLocked:
            keep()  # the refused attempt is recorded (the lock-out counts it)
            form.form_errors.append(
                _(
                    "Вход временно заблокирован после нескольких неудачных попыток. "
                    "Попробуйте через %(minutes)s мин.",
                    minutes=minutes,
                )
            )
            return render_template("accounts/login.html", form=form), 429
        keep()  # a failed attempt (401) is recorded too
        if (
            user is not None
            and is_demo_email(user.email)
            and current_app.config.get("SOVA_ENV") == "production"
        ):
            # the demo passwords are printed in the README: never a way into a real instance
            user = None
        if user is not None:
            session.permanent = True  # ends after PERMANENT_SESSION_LIFETIME idle
            login_user(user)
            return trust_device(
                redirect(
                    local_path(request.args.get("next"))
                    or url_for(HOME_BY_ROLE.get(user.role, "submissions.index"))
                ),
                user,
            )
        form.form_errors.append(_("Неверная почта или пароль."))
        code = 401
    elif form.is_submitted():
        code = 422
    return render_template("accounts/login.html", form=form), code


@bp.route("/logout", methods=["POST"])
@access("public")
def logout():
    """End the session on the server side too: every session cookie of this user (also a
    copied one) stops working (``User.session_version``)."""
    if current_user.is_authenticated:
        end_sessions(current_user)  # committed by the request edge
    logout_user()
    flash("Вы вышли из системы.")
    return redirect(url_for("submissions.index"))


@bp.route("/admin/users")
@access("admin")
def users():
    """Staff accounts: «Выйти везде» (every session ends and every API token is revoked),
    «Отключить», and each API token with its creation, last use and revocation (who, when,
    why), «Отозвать» for a working one."""
    shown = session.pop("sova_invitation", None)  # made by the last POST, shown once
    invitation = None
    if isinstance(shown, dict):
        invited = db.session.get(User, shown.get("user_id"))
        if invited is not None:
            invitation = (invited, str(shown.get("link", "")))
    return _users_page(invitation=invitation)


def _show_invitation_once(user: User, token: str):
    """Post/redirect/get: the link goes to the staff page in the session (signed, this
    admin's browser only) and is shown by the next GET alone, so a reload neither posts
    the form again nor shows the link twice."""
    session["sova_invitation"] = {"user_id": user.id, "link": _invitation_link(token)}
    return redirect(url_for("accounts.users") + "#invitation")


def _users_page(
    invite_form: StaffInviteForm | None = None,
    invitation: tuple[User, str] | None = None,
    code: int = 200,
):
    """The «Сотрудники» page; ``invitation`` (the account, its link) is shown once, on the
    answer to the form that made it, and is never stored in the session."""
    staff = db.session.scalars(
        db.select(User).options(db.selectinload(User.tokens)).order_by(User.role, User.email)
    ).all()
    return render_template(
        "accounts/users.html",
        users=staff,
        form=FlaskForm(),
        revoke_form=RevokeTokenForm(),
        deactivate_form=DeactivateForm(),
        invite_form=invite_form or StaffInviteForm(),
        renew_form=RenewInvitationForm(),
        invitation=invitation,
        invitation_days=INVITATION_DAYS,
        password_form=lambda user: PasswordSetForm(prefix=f"password-{user.id}"),
    ), code


def _invitation_link(token: str) -> str:
    """The invitation's absolute link, on the public address e-mailed links use."""
    return current_app.config["SOVA_PUBLIC_URL"].rstrip("/") + url_for(
        "accounts.invitation", token=token
    )


@bp.route("/admin/users/new", methods=["POST"], endpoint="invite")
@access("admin")
def invite_view():
    """«Новый сотрудник» (CSRF): an account with the chosen role and no password, and its
    one-time invitation link (:data:`INVITATION_DAYS` days), shown once on the staff page
    the answer redirects to, for the admin to hand over. 422 with the form's errors,
    nothing created, on bad input."""
    form = StaffInviteForm()
    if not form.validate_on_submit():
        flash(f"Сотрудник не добавлен: {errors_line(form)}", "error")
        return _users_page(invite_form=form, code=422)
    try:
        user, token = invite_user(form.email.data, form.role.data, form.name.data, by=current_user)
    except AccountError as exc:
        flash(f"Сотрудник не добавлен: {exc}.", "error")
        return _users_page(invite_form=form, code=422)
    return _show_invitation_once(user, token)


@bp.route("/admin/users/<int:user_id>/invitation", methods=["POST"], endpoint="renew_invitation")
@access("admin")
def renew_invitation_view(user_id: int):
    """A new invitation link for an account without a password (a lost or expired one);
    the older links stop working. CSRF."""
    user = db.get_or_404(User, user_id)
    if not RenewInvitationForm().validate_on_submit():
        abort(400)
    try:
        token = renew_invitation(user)
    except AccountError as exc:
        flash(f"Приглашение не выдано: {exc}.", "error")
        return redirect(url_for("accounts.users") + f"#user-{user.id}")
    return _show_invitation_once(user, token)


@bp.route("/account/invitation/<token>", methods=["GET", "POST"])
@access("public")
@limiter.limit(login_rate_limit, methods=["POST"])
def invitation(token: str):
    """The invitee's page: a first password, twice (12–200 characters, not the e-mail);
    then the link is spent and this browser is signed in. A bad, spent or expired link
    answers 404 with what to do; a form that fails answers 422."""
    user = user_for_invitation(token)
    if user is None:
        return (
            render_template(
                "accounts/invitation.html", form=None, user=None, invitation_days=INVITATION_DAYS
            ),
            404,
        )
    form = InvitationAcceptForm()
    if form.validate_on_submit():
        try:
            accept_invitation(user, form.new.data)
        except AccountError as exc:
            form.form_errors.append(f"Пароль не задан: {exc}.")
            return render_template("accounts/invitation.html", form=form, user=user), 422
        session.permanent = True
        login_user(user)
        flash(f"Добро пожаловать, {user.name}: пароль задан, вы вошли в Сову.", "success")
        return redirect(url_for(HOME_BY_ROLE.get(user.role, "submissions.index")))
    code = 422 if form.is_submitted() else 200
    return render_template("accounts/invitation.html", form=form, user=user), code


def _tokens_said(n: int) -> str:
    return f"токены доступа отозваны: {n}." if n else "токенов доступа не было."


@bp.route("/admin/users/<int:user_id>/sign-out", methods=["POST"], endpoint="sign_out_everywhere")
@access("admin")
def sign_out_everywhere_view(user_id: int):
    """End every session of one staff account and revoke its API tokens (a lost laptop, a
    copied cookie, a leaked token): its session cookies and tokens stop working at their
    next request. CSRF-protected form; the revocations are recorded on each token (who,
    when, ``sign_out``)."""
    user = db.get_or_404(User, user_id)
    if not FlaskForm().validate_on_submit():
        abort(400)
    n = sign_out_everywhere(user, by=current_user)
    flash(f"Все сеансы {user.email} завершены, {_tokens_said(n)}", "success")
    return redirect(url_for("accounts.users"))


@bp.route("/admin/users/<int:user_id>/deactivate", methods=["POST"], endpoint="deactivate")
@access("admin")
def deactivate_view(user_id: int):
    """Switch a staff account off (CSRF, the confirmation box): it cannot log in, its
    sessions end, its API tokens are revoked (``deactivated``). The admin's own account
    is refused."""
    user = db.get_or_404(User, user_id)
    form = DeactivateForm()
    if not form.validate_on_submit():
        flash("Подтвердите отключение: отметьте галочку.", "error")
    elif user.id == current_user.id:
        flash("Свою учётную запись отключить нельзя.", "error")
    else:
        n = deactivate(user, by=current_user)
        flash(f"Учётная запись {user.email} отключена, сеансы завершены, {_tokens_said(n)}")
    return redirect(url_for("accounts.users"))


@bp.route("/admin/tokens/<int:token_id>/revoke", methods=["POST"], endpoint="revoke_token")
@access("admin")
def revoke_token_view(token_id: int):
    """Revoke one API token (CSRF, the confirmation box); recorded on the token: when, by
    which admin, reason ``admin``."""
    token = db.get_or_404(ApiToken, token_id)
    form = RevokeTokenForm()
    if not form.validate_on_submit():
        flash("Подтвердите отзыв токена: отметьте галочку.", "error")
    elif revoke_token(token, by=current_user):
        flash(f"Токен № {token.id} ({token.user.email}) отозван.", "success")
    else:
        flash(f"Токен № {token.id} уже был отозван.", "error")
    return redirect(url_for("accounts.users"))


def _lockout() -> tuple[int, timedelta]:
    """The lock-out's threshold and duration, as the login page applies them."""
    minutes = int(
        current_app.config.get("SOVA_LOGIN_LOCKOUT_MINUTES", LOCKOUT_DURATION.total_seconds() // 60)
    )
    threshold = int(current_app.config.get("SOVA_LOGIN_MAX_FAILURES", LOCKOUT_THRESHOLD))
    return threshold, timedelta(minutes=minutes)


@bp.route("/account/password", methods=["GET", "POST"])
@access("editor|chief_editor|producer|host|accountant")
@limiter.limit(login_rate_limit, methods=["POST"])
def password():
    """A staff member's own new password (the current one, the new one twice, at least
    12 characters). The current password counts as a login attempt (the lock-out applies:
    429 while locked). On success every session ends and every API token is revoked
    (``set_password``); this browser is signed in again with the new session. 422 for a
    form that fails, 401 for a wrong current password."""
    form = PasswordChangeForm()
    code = 200
    if form.validate_on_submit():
        threshold, duration = _lockout()
        user = current_user._get_current_object()
        address, devices = login_origin()
        try:
            n = change_password(
                user,
                form.current.data,
                form.new.data,
                address=address,
                devices=devices,
                threshold=threshold,
                duration=duration,
            )
        except AccountLocked:
            keep()  # the attempt is counted
            form.form_errors.append(
                "Смена пароля временно заблокирована после нескольких неверных паролей. "
                f"Попробуйте через {int(duration.total_seconds() // 60)} мин."
            )
            return render_template("accounts/password.html", form=form), 429
        except AccountError as exc:
            keep()  # a wrong current password is a counted attempt
            form.form_errors.append(f"Пароль не изменён: {exc}.")
            return render_template("accounts/password.html", form=form), 401
        login_user(user)  # the new session version: this browser stays signed in
        flash(f"Пароль изменён. Другие сеансы завершены, {_tokens_said(n)}", "success")
        return redirect(url_for(HOME_BY_ROLE.get(user.role, "submissions.index")))
    if form.is_submitted():
        code = 422
    return render_template("accounts/password.html", form=form), code


@bp.route("/admin/users/<int:user_id>/password", methods=["POST"], endpoint="set_password")
@access("admin")
def set_password_view(user_id: int):
    """The admin sets a staff member's password (a forgotten one): the new password twice
    and the confirmation box (CSRF). The member's sessions end and API tokens are revoked;
    hand the password over in person and let them choose their own at «Сменить пароль»."""
    user = db.get_or_404(User, user_id)
    form = PasswordSetForm(prefix=f"password-{user.id}")
    if not form.validate_on_submit():
        flash(f"Пароль {user.email} не задан: {errors_line(form)}", "error")
        return redirect(url_for("accounts.users") + f"#user-{user.id}")
    try:
        n = reset_password(user, form.new.data, by=current_user._get_current_object())
    except AccountError as exc:
        flash(f"Пароль {user.email} не задан: {exc}.", "error")
    else:
        flash(f"Пароль {user.email} задан, его сеансы завершены, {_tokens_said(n)}", "success")
    return redirect(url_for("accounts.users") + f"#user-{user.id}")
