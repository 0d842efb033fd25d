"""The access matrix, generated from the URL map (DESIGN "Security").

Every endpoint × every method it accepts × every role × anonymous. The expected answer is the
declaration next to each view, ``@access("…")`` (``view.sova_access``, see
webapp/core/access.py):

- ``public``: any visitor; never 401/403, never a redirect to the login page, never 5xx;
- ``gateway`` (a machine signing each request, the SMS gateway's HMAC): every caller — any
  role, anonymous — gets **401** without the signature (a staff token does not replace it);
- a role set: an admitted role is never refused (no 401/403/login redirect, no 5xx); any other
  role gets **403**; anonymous gets **401** under ``/api/`` and **302 → /login** for pages.

Requests carry no body, so a refusal must come before any validation (a 422 or 400 to a
wrong role would mean the view validated first).

The editors' pages (``REAL_OBJECT_PREFIXES``) are also called on a real question (and each
export format): there an admitted role must get **200 or 302** (the view did its work, it was
not merely let in); this is the moderation queue's own 91-case role matrix, folded
in here. Pages are called with a session cookie from
``POST /login`` (one client per role), the API with the role's bearer token. A view without a
declaration fails :func:`test_every_view_declares_access`; new views are covered automatically.
The walk of the URL map and the log-in are tests/security/access.py's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.access import METHODS, ROUTE_ARG, csrf_log_in, log_in, matrix
from webapp.accounts.models import ROLES
from webapp.core.access import BROADCAST, GATEWAY, allowed_roles

#: Endpoints after which a client's session is gone (the matrix logs the client in again).
ENDS_SESSION = {"accounts.logout"}

#: The SMS gateway's secret in the matrix app (signed endpoints answer 401 unsigned).
GATEWAY_SECRET = "matrix-gateway-secret"

#: Endpoints (by prefix) also called with real URL arguments, where an admitted role must get
#: 200 or 302: the editors' pages and the chief editor's author pages, on the
#: seeded question and its author (``real_urls``).
REAL_OBJECT_PREFIXES = ("moderation.", "authors.")


def real_urls(rule, question_id: int, author_id: int = 0, job_id: int = 0) -> list[str]:
    """The rule's path with real arguments: the seeded question's id, its first author
    (position 0, author row ``author_id``), every export format, the editor's finished
    export job ``job_id``."""
    values = {
        "question_id": [str(question_id)],
        "position": ["0"],
        "fmt": ["csv", "xlsx"],
        "author_id": [str(author_id)],
        "job_id": [str(job_id)],
    }
    urls = [rule.rule]
    for match in ROUTE_ARG.finditer(rule.rule):
        urls = [u.replace(match.group(0), v) for u in urls for v in values[match.group(2)]]
    return urls


def expectation_failure(
    spec: str, role: str | None, url: str, resp, real: bool = False
) -> str | None:
    """Why ``resp`` breaks the declaration ``spec`` for ``role`` (None: as declared). With
    ``real`` (the URL names existing objects) an admitted role must get 200 or 302, or, for
    a POST of an empty form, 422 (the form again with its messages)."""
    code = resp.status_code
    to_login = code == 302 and "/login" in resp.headers.get("Location", "")
    if code >= 500:
        return f"server error {code}"
    if spec == GATEWAY:
        return None if code == 401 else f"unsigned gateway call expected 401, got {code}"
    if spec == BROADCAST:  # a game's broadcast token, never a staff login
        return None if code == 401 else f"a feed without its token expected 401, got {code}"
    roles = allowed_roles(spec)
    if roles is None or (role is not None and role in roles):
        if code in (401, 403) or to_login:
            return f"admitted ({spec!r}) but refused with {code}"
        expected = (200, 302, 422) if resp.request.method == "POST" else (200, 302)
        if real and code not in expected:
            return f"admitted ({spec!r}) on a real object expected {expected}, got {code}"
        return None
    if role is not None:
        return None if code == 403 else f"wrong role expected 403, got {code}"
    if url.startswith("/api/"):
        return None if code == 401 else f"anonymous API call expected 401, got {code}"
    return None if to_login else f"anonymous page expected 302 → /login, got {code}"


@pytest.fixture
def matrix_app(make_app):
    """An app (CSRF off) with one user per role, one pre-checked question in review
    (``SOVA_TEST_QUESTION``, with a letter's scan in PDF) and the editor's queue export written by the worker
    (``SOVA_TEST_EXPORT_JOB``: the editor, a chief editor and an admin may see it); no app
    context stays pushed, so each test request has its own
    ``g`` (flask-login caches the user there) exactly as in production."""
    from webapp.accounts.operations import create_user
    from webapp.moderation.export_jobs import request_export, run_export
    from webapp.moderation.operations import precheck
    from webapp.moderation.queries import QueueFilter
    from webapp.submissions.operations import create_question
    from webapp.submissions.scans import store_scan
    from webapp.tasks.outbox import commit

    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMS_SECRET=GATEWAY_SECRET)
    tokens, users = {}, {}
    with app.app_context():
        for role in ROLES:
            users[role], tokens[role] = create_user(
                f"{role}@test.local", role, password=f"{role}-pw", with_token=True
            )
        question = create_question(
            {
                "question": "Какой город основал Ярослав Мудрый на Волге в XI веке?",
                "answer": "Ярославль",
                "sources": ["https://example.org/s"],
                "authors": [("Мария Лис", "Гомель", "lis@example.com")],
            },
            "web",
        )
        question.letter_scan = store_scan(
            _blank_pdf(), Path(app.config["SOVA_INSTANCE_PATH"]) / "uploads"
        )
        commit()
        precheck(question.id)
        commit()
        app.config["SOVA_TEST_QUESTION"] = question.id
        job = request_export(users["editor"].id, "csv", QueueFilter(), "Очередь.csv")
        commit()
        run_export(job.id)
        commit()
        app.config["SOVA_TEST_EXPORT_JOB"] = job.id
        app.config["SOVA_TEST_AUTHOR"] = question.authors[0].author_id
    app.config["SOVA_TEST_TOKENS"] = tokens
    return app


def _blank_pdf() -> bytes:
    """A one-page PDF (a letter's scan)."""
    import io

    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=100, height=100)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture
def role_clients(matrix_app):
    """``{None: (anonymous client, {}), role: (client with that role's session, bearer
    headers)}``."""
    clients = {None: (matrix_app.test_client(), {})}
    for role, token in matrix_app.config["SOVA_TEST_TOKENS"].items():
        client = matrix_app.test_client()
        log_in(client, role)
        clients[role] = (client, {"Authorization": f"Bearer {token}"})
    return clients


def test_every_view_declares_access(app):
    rows, undeclared = matrix(app)
    assert undeclared == [], f"views without @access: {undeclared}"
    assert len(rows) > 40


def test_matrix_every_endpoint_every_role_and_anonymous(matrix_app, role_clients):
    rows, _ = matrix(matrix_app)
    failures, checked = [], 0
    for endpoint, method, url, spec in rows:
        for role, (client, headers) in role_clients.items():
            api = url.startswith("/api/")
            resp = client.open(url, method=method, headers=headers if api else {})
            checked += 1
            if role is not None and endpoint in ENDS_SESSION:
                log_in(client, role)
            why = expectation_failure(spec, role, url, resp)
            if why:
                failures.append(
                    f"{method} {url} ({endpoint}, {spec}) as {role or 'anonymous'}: {why}"
                )
    assert failures == [], "\n".join(failures)
    assert checked == len(rows) * (len(ROLES) + 1)


def test_matrix_editors_pages_on_a_real_question(matrix_app, role_clients):
    """Every editors' page × every role and anonymous on the seeded question (and on both
    export formats): admitted roles get 200 or 302 (a POST of an empty form: 422), other roles 403, anonymous the login
    page."""
    question_id = matrix_app.config["SOVA_TEST_QUESTION"]
    author_id = matrix_app.config["SOVA_TEST_AUTHOR"]
    job_id = matrix_app.config["SOVA_TEST_EXPORT_JOB"]
    failures, urls = [], set()
    for rule in sorted(matrix_app.url_map.iter_rules(), key=lambda r: r.rule):
        if not rule.endpoint.startswith(REAL_OBJECT_PREFIXES):
            continue
        spec = matrix_app.view_functions[rule.endpoint].sova_access
        for url in real_urls(rule, question_id, author_id, job_id):
            for method in (m for m in METHODS if m in rule.methods):
                urls.add((method, url))
                for role, (client, _) in role_clients.items():
                    resp = client.open(url, method=method)
                    why = expectation_failure(spec, role, url, resp, real=True)
                    if why:
                        failures.append(f"{method} {url} ({spec}) as {role or 'anonymous'}: {why}")
    assert failures == [], "\n".join(failures)
    q = f"/editor/questions/{question_id}"
    assert urls == {
        ("GET", "/editor/queue"),
        ("GET", q),
        ("POST", q),
        ("POST", f"{q}/claim"),
        ("POST", f"{q}/release"),
        ("POST", f"{q}/reveal"),
        ("POST", f"{q}/letter-scan"),
        ("POST", f"{q}/authors/0"),
        ("POST", f"{q}/edit"),
        ("POST", f"{q}/comments"),
        ("POST", f"{q}/sign-off"),
        ("POST", f"{q}/images"),
        ("POST", f"{q}/hold-back"),
        ("POST", f"{q}/leaks"),
        ("POST", f"{q}/stress"),
        ("POST", "/editor/bulk"),
        ("POST", "/editor/signoffs"),
        ("GET", "/editor/export.csv"),
        ("GET", "/editor/export.xlsx"),
        ("GET", "/editor/export/approved.4s"),
        ("POST", "/editor/exports"),
        ("GET", f"/editor/exports/{job_id}"),
        ("GET", f"/editor/exports/{job_id}/status"),
        ("GET", f"/editor/exports/{job_id}/file"),
        ("GET", "/editor/stats"),
        ("GET", "/editor/authors/"),
        ("GET", f"/editor/authors/{author_id}"),
        ("POST", "/editor/authors/merge"),
        ("POST", f"/editor/authors/questions/{question_id}/0/confirm"),
    }


def test_the_editors_pages_declare_their_roles(app):
    """The declarations the editors' matrix checks against (blind moderation: only a chief
    editor reveals or corrects authors, or exports the approved packet)."""
    specs = {
        r.endpoint: app.view_functions[r.endpoint].sova_access
        for r in app.url_map.iter_rules()
        if r.endpoint.startswith("moderation.")
    }
    chief_only = {
        "moderation.reveal",
        "moderation.correct",
        "moderation.export_4s",
        "moderation.letter_scan",
    }
    assert {e for e, s in specs.items() if s == "chief_editor"} == chief_only
    assert all(s == "editor+" for e, s in specs.items() if e not in chief_only)
    assert allowed_roles("chief_editor") == {"chief_editor", "admin"}
    assert allowed_roles("editor+") == {"editor", "chief_editor", "admin"}


def test_the_author_pages_are_the_chief_editors(app):
    """Matches, merges and author confirmations show and change author data, so
    blind moderation keeps them from editors: every author page is ``chief_editor`` (and
    admin)."""
    specs = {
        r.endpoint: app.view_functions[r.endpoint].sova_access
        for r in app.url_map.iter_rules()
        if r.endpoint.startswith("authors.")
    }
    assert specs == {
        "authors.index": "chief_editor",
        "authors.author": "chief_editor",
        "authors.merge": "chief_editor",
        "authors.confirm": "chief_editor",
    }


def test_privacy_notice_and_favicon_answer_everyone(matrix_app, role_clients):
    """The public pages on real content: the privacy notice and the owl
    favicon answer 200 to every role and to anonymous visitors (the generated matrix only
    checks that nobody is refused), and they are the only ``pages.*`` endpoints."""
    specs = {
        r.endpoint: matrix_app.view_functions[r.endpoint].sova_access
        for r in matrix_app.url_map.iter_rules()
        if r.endpoint.startswith("pages.")
    }
    assert specs == {"pages.privacy": "public", "pages.favicon": "public"}
    for role, (client, _) in role_clients.items():
        page = client.get("/privacy")
        assert page.status_code == 200, role
        assert "Как «Сова» обращается с персональными данными" in page.text, role
        icon = client.get("/favicon.ico")
        assert (icon.status_code, icon.mimetype) == (200, "image/vnd.microsoft.icon"), role
        assert icon.data[:4] == b"\x00\x00\x01\x00", role


def test_api_ignores_session_cookies_without_token(matrix_app, role_clients):
    """A staff session does not authenticate the API (no CSRF-able cookie auth on /api/)."""
    rows, _ = matrix(matrix_app)
    client, _ = role_clients["admin"]
    for endpoint, method, url, spec in rows:
        if url.startswith("/api/") and spec != "public":
            code = client.open(url, method=method).status_code
            assert code in (401, 403), (endpoint, method, code)


def test_every_page_form_refuses_a_post_without_csrf_token(make_app):
    """Public forms refuse an anonymous post without its token (400); staff forms refuse
    an admitted user's (the admin, admitted everywhere) — an anonymous one meets the login
    page first (``test_a_staff_post_checks_access_before_csrf``)."""
    app = make_app()  # CSRF on
    assert app.config.get("WTF_CSRF_ENABLED", True) is True
    rows, _ = matrix(app)
    anonymous, admin = app.test_client(), csrf_log_in(app, "admin")
    posted = 0
    for endpoint, method, url, spec in rows:
        if method in ("POST", "PUT", "PATCH", "DELETE") and not url.startswith("/api/"):
            client = anonymous if allowed_roles(spec) is None else admin
            resp = client.open(url, method=method, data={"x": "1"})
            assert resp.status_code == 400, (endpoint, method, resp.status_code)
            posted += 1
    assert posted > 15


def test_the_matrix_catches_an_undeclared_view(make_app):
    app = make_app(WTF_CSRF_ENABLED=False)

    @app.route("/forgot-to-declare")
    def forgot():
        return "secret"

    _, undeclared = matrix(app)
    assert undeclared == ["forgot"]


def test_the_matrix_catches_a_view_that_lets_the_wrong_role_in(make_app, staff):
    """A declaration that the code does not enforce is reported (checks the checker)."""
    from types import SimpleNamespace

    resp = SimpleNamespace(status_code=200, headers={})
    assert expectation_failure("accountant", "editor", "/prizes/", resp) == (
        "wrong role expected 403, got 200"
    )
    assert expectation_failure("accountant", None, "/api/v1/prizes", resp) == (
        "anonymous API call expected 401, got 200"
    )
    assert expectation_failure("accountant", None, "/prizes/", resp) == (
        "anonymous page expected 302 → /login, got 200"
    )
    refused = SimpleNamespace(status_code=403, headers={})
    assert expectation_failure("editor+", "admin", "/editor/queue", refused) == (
        "admitted ('editor+') but refused with 403"
    )
    assert expectation_failure(
        "public", None, "/", SimpleNamespace(status_code=500, headers={})
    ) == ("server error 500")


def test_gateway_endpoints_are_declared_and_admit_a_signed_call(matrix_app):
    """The signed endpoints are exactly the SMS callback; with the signature (and no user
    at all) it answers; a staff token without the signature does not."""
    import hashlib
    import hmac
    import json

    rows, _ = matrix(matrix_app)
    assert sorted({(e, m) for e, m, _u, spec in rows if spec == GATEWAY}) == [
        ("api.vote_sms", "POST")
    ]
    body = json.dumps(
        {
            "message_id": "m1",
            "msisdn": "+79160000001",
            "text": "1",
            "received_at": "2009-03-01T20:00:00+03:00",
        }
    ).encode()
    signature = hmac.new(GATEWAY_SECRET.encode(), body, hashlib.sha256).hexdigest()
    client = matrix_app.test_client()
    resp = client.post(
        "/api/v1/votes/sms",
        data=body,
        content_type="application/json",
        headers={"X-Sova-Signature": signature},
    )
    assert resp.status_code == 200 and resp.json == {"result": "late"}
    admin = matrix_app.config["SOVA_TEST_TOKENS"]["admin"]
    resp = client.post(
        "/api/v1/votes/sms",
        data=body,
        content_type="application/json",
        headers={"Authorization": f"Bearer {admin}"},
    )
    assert resp.status_code == 401


def test_the_game_day_endpoints_declare_their_roles(app):
    """The game page's live document status is the game page's (producer, host); only the
    producer confirms a start without printed envelopes (the generated matrix above checks
    that the code enforces both)."""
    specs = {
        e: app.view_functions[e].sova_access
        for e in ("games.documents_json", "games.game", "games.allow_start_view")
    }
    assert specs["games.documents_json"] == specs["games.game"] == "producer|host"
    assert specs["games.allow_start_view"] == "producer"
    assert allowed_roles("producer|host") == {"producer", "host", "admin"}


def test_the_season_prize_form_is_the_producers(app):
    """Setting the season's prize per unanswered question and the amounts of its individual
    prizes (the season page's two forms) is the producer's (admin too); the page itself is
    the producer's and the host's (the generated matrix above checks that the code enforces
    all three)."""
    specs = {
        e: app.view_functions[e].sova_access
        for e in ("seasons.season_prize", "seasons.season_amounts", "seasons.season")
    }
    assert specs == {
        "seasons.season_prize": "producer",
        "seasons.season_amounts": "producer",
        "seasons.season": "producer|host",
    }
    assert allowed_roles("producer") == {"producer", "admin"}


def test_the_season_donor_form_is_the_producers(app):
    """Setting the donor of the season's prizes (the season page's form) is the
    producer's (admin too), like the prize."""
    assert app.view_functions["seasons.season_donor"].sova_access == "producer"
