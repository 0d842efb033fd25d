"""A staff form posted by someone not admitted is judged by its role check before its CSRF
check: anonymous → the login page (302, ``next`` back to the form's URL), the API → 401
JSON, a wrong role → 403; never the CSRF error's 400 (``webapp.core.access.access_before_csrf``).
Every staff POST (PUT, PATCH, DELETE) route of the access matrix, with CSRF on."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.security.access import csrf_log_in, matrix
from webapp.accounts.models import ROLES
from webapp.core.access import allowed_roles

UNSAFE = ("POST", "PUT", "PATCH", "DELETE")


def staff_rows(app):
    """``(endpoint, method, url, roles)`` of every staff route taking an unsafe method."""
    rows, _ = matrix(app)
    return [
        (endpoint, method, url, allowed_roles(spec))
        for endpoint, method, url, spec in rows
        if method in UNSAFE and allowed_roles(spec) is not None
    ]


def test_a_staff_post_checks_access_before_csrf(make_app):
    app = make_app()  # CSRF on
    assert app.config.get("WTF_CSRF_ENABLED", True) is True
    rows = staff_rows(app)
    pages = [r for r in rows if not r[2].startswith("/api/")]
    apis = [r for r in rows if r[2].startswith("/api/")]
    assert len(pages) > 30 and len(apis) > 10
    anonymous = app.test_client()
    failures = []
    for endpoint, method, url, _roles in pages:
        resp = anonymous.open(url, method=method, data={"x": "1"})
        location = urlsplit(resp.headers.get("Location", ""))
        if (resp.status_code, location.path) != (302, "/login") or parse_qs(location.query)[
            "next"
        ] != [url]:  # the form's URL as it is, with no bare «?» after it
            failures.append(f"anonymous {method} {url} ({endpoint}): {resp.status_code}")
    for endpoint, method, url, _roles in apis:
        resp = anonymous.open(url, method=method, data={"x": "1"})
        if resp.status_code != 401 or resp.json["error"]["code"] != 401:
            failures.append(f"anonymous {method} {url} ({endpoint}): {resp.status_code}")
    clients = {role: csrf_log_in(app, role) for role in ROLES if role != "admin"}
    refused = 0
    for endpoint, method, url, roles in pages:
        for role, client in clients.items():
            if role not in roles:
                resp = client.open(url, method=method, data={"x": "1"})
                refused += 1
                if resp.status_code != 403:
                    failures.append(f"{role} {method} {url} ({endpoint}): {resp.status_code}")
    assert failures == [], "\n".join(failures)
    assert refused > 100
