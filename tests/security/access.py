"""The access matrix's walk of the URL map, shared by the security tests: every declared
view × every method it accepts (:func:`matrix`), every GET page with real and with sample
arguments (:func:`page_urls`), and a staff client logged in through ``POST /login``
(:func:`log_in`; with CSRF on, through the rendered login form: :func:`csrf_log_in`).

The users are the ones the tests create: ``<role>@test.local`` with password ``<role>-pw``."""

from __future__ import annotations

import re

#: Endpoints that belong to libraries and are public by construction (no @access possible).
#: Adding one here is a conscious decision reviewed with docs/security.md.
LIBRARY_PUBLIC = {"static", "api-docs.openapi_json"}

#: Sample values for URL arguments by converter: ids that do not exist, tokens that are wrong.
SAMPLE_ARGS = {"int": "999999", "path": "x/y", None: "x"}

#: A Flask route argument, `<converter(options):name>`: the converter in group 1, the name in 2.
ROUTE_ARG = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def sample_url(rule) -> str:
    """The rule's path with each argument replaced by a sample value (see SAMPLE_ARGS)."""
    return ROUTE_ARG.sub(lambda m: SAMPLE_ARGS.get(m.group(1), "x"), rule.rule)


def matrix(app):
    """Rows ``(endpoint, method, url, spec)`` for every declared view; plus the undeclared."""
    rows, undeclared = [], []
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: (r.rule, r.endpoint)):
        if rule.endpoint in LIBRARY_PUBLIC:
            continue
        spec = getattr(app.view_functions[rule.endpoint], "sova_access", None)
        if spec is None:
            undeclared.append(rule.endpoint)
            continue
        for method in METHODS:
            if method in rule.methods:
                rows.append((rule.endpoint, method, sample_url(rule), spec))
    return rows, undeclared


def page_urls(app, values: dict) -> list[str]:
    """Every GET page of the URL map (not the API, not static files) with real arguments
    (every combination of ``values``) and once with samples that name nothing (404)."""
    urls = []
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if "GET" not in rule.methods or rule.rule.startswith(("/api/", "/static")):
            continue
        real = [rule.rule]
        for m in ROUTE_ARG.finditer(rule.rule):
            real = [u.replace(m.group(0), str(v)) for u in real for v in values.get(m.group(2), [])]
        sample = ROUTE_ARG.sub(lambda m: SAMPLE_ARGS.get(m.group(1), "x"), rule.rule)
        urls.extend(dict.fromkeys([*real, sample]))
    return urls


def log_in(client, role: str) -> None:
    resp = client.post("/login", data={"email": f"{role}@test.local", "password": f"{role}-pw"})
    assert resp.status_code == 302, (role, resp.status_code)


def csrf_log_in(app, role: str):
    """A client of an app with CSRF on, signed in as ``role`` through the login form the
    page renders (its CSRF token included)."""
    from webapp.accounts.operations import create_user
    from webapp.tasks.outbox import commit

    with app.app_context():
        create_user(f"{role}@test.local", role, password=f"{role}-pw")
        commit()
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    data = {"email": f"{role}@test.local", "password": f"{role}-pw", "csrf_token": token}
    assert client.post("/login", data=data).status_code == 302
    return client
