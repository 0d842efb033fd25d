"""Role checks, declared on every view: ``@access("editor+")``.

Access strings: ``"public"``, a role name, ``"editor+"`` (editor, chief_editor, admin),
or several joined by ``|`` (``"producer|host"``). ``admin`` may do everything.
``"gateway"``: no user at all — the caller is a machine that signs each request (the SMS
gateway's HMAC, checked by the view itself before anything else; unsigned → 401).
``"broadcast"``: no user either — the caller presents a game's broadcast token, checked by the
view itself (``webapp.onair``; missing, wrong, revoked or another game's → 401). Each view
carries its declaration as ``view.sova_access`` so the access-matrix test can read it
from the URL map; a view without one fails that test. Deny by default.
"""

from __future__ import annotations

import functools

from flask import abort, g, request
from flask_login import current_user

EDITOR_PLUS = ("editor", "chief_editor", "admin")
GATEWAY = "gateway"
BROADCAST = "broadcast"


def allowed_roles(spec: str) -> set[str] | None:
    """The set of roles an access string admits; None means public (or ``"gateway"``:
    admitted by signature, not by role; ``"broadcast"``: by a game's broadcast token)."""
    if spec in ("public", GATEWAY, BROADCAST):
        return None
    roles: set[str] = {"admin"}
    for part in spec.split("|"):
        if part == "editor+":
            roles.update(EDITOR_PLUS)
        else:
            roles.add(part)
    return roles


def current_staff():
    """The authenticated staff user: the API bearer token's, else the session's, else None."""
    user = getattr(g, "api_user", None)
    if user is not None:
        return user
    if current_user and current_user.is_authenticated:
        return current_user
    return None


def refuse(roles: set[str] | None, api: bool = False):
    """The refusal of the current request by a view admitting ``roles`` (None: everyone),
    or None when it is admitted: anonymous → ``abort(401)`` (API) or a redirect to the
    login page with ``next`` (web); a wrong role → ``abort(403)``."""
    if roles is None:
        return None
    user = current_staff()
    if user is None:
        if api or request.path.startswith("/api/"):
            abort(401)
        from flask import redirect, url_for

        # the path and its query; Werkzeug's ``full_path`` ends in a bare «?» when there is none
        return redirect(url_for("accounts.login", next=request.full_path.removesuffix("?")))
    if user.role not in roles:
        abort(403)
    return None


#: Methods the CSRF check reads a token for (Flask-WTF's ``WTF_CSRF_METHODS`` default).
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def access_before_csrf():
    """``before_request`` hook, installed before Flask-WTF's CSRF check: a POST (PUT,
    PATCH, DELETE) to a staff page is judged by the page's ``@access`` first, so an
    anonymous visitor gets the login page (302) and a wrong role 403, not the CSRF
    error's 400 (which would tell a form's existence and hide where to sign in). Only
    pages: the API is CSRF-exempt and its bearer token is read by a later hook, so its
    views answer 401/403 themselves. Returns the refusal (a redirect) or None."""
    from flask import current_app

    if request.method not in UNSAFE_METHODS or request.path.startswith("/api/"):
        return None
    g.api_user = None  # a page is never authenticated by a bearer token
    view = current_app.view_functions.get(request.endpoint or "")
    spec = getattr(view, "sova_access", None)
    if spec is None:
        return None
    return refuse(allowed_roles(spec))


def access(spec: str, api: bool = False):
    """Decorator: admit only ``spec`` (see module doc). Anonymous → 401 (API) or the login
    page (web); wrong role → 403."""
    roles = allowed_roles(spec)

    def decorator(view):
        @functools.wraps(view)
        def wrapped(*args, **kwargs):
            refused = refuse(roles, api)
            if refused is not None:
                return refused
            return view(*args, **kwargs)

        wrapped.sova_access = spec
        return wrapped

    return decorator
