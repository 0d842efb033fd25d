"""A staff page opened without a session sends the visitor to the login page and back."""

from __future__ import annotations


def test_a_staff_page_sends_an_anonymous_visitor_to_log_in_and_back(client):
    """The login page's ``next`` is the page's own address, with no bare «?» after it."""
    assert client.get("/prizes/").headers["Location"] == "/login?next=/prizes/"
    assert client.get("/prizes/?status=paid").headers["Location"] == (
        "/login?next=/prizes/?status%3Dpaid"
    )


#: ``next`` values that name another site once a browser reads them (TAB/CR/LF dropped,
#: ``\`` read as ``/``), or that made the ``Location`` header itself invalid (CR, LF: a 500).
BYPASSES = [
    "/%09/evil.example/login",
    "/%0A/x",
    "/%0D/x",
    "//evil.example",
    "/%5Cevil.example",
    "%5C/evil.example",
    "/%2F%2Fevil.example",
    "https://evil.example",
    "//127.0.0.1@evil.example",
    "//%D0%B5vil.example",
]


def test_the_language_switch_sends_a_foreign_next_home(client):
    """Every bypass answers the home page (``/``), never 500; a path of the site is kept."""
    for target in BYPASSES:
        resp = client.get(f"/lang/ru?next={target}")
        assert (resp.status_code, resp.headers["Location"]) == (302, "/"), target
    assert client.get("/lang/be?next=/archive?page=2").headers["Location"] == "/archive?page=2"


def test_the_login_sends_a_foreign_next_to_the_role_home(client, staff):
    """The login form, posted as rendered (it posts back to its own address, ``next`` and
    all), lands on the editor's queue, not on the foreign target."""
    from tests.forms import page_forms

    staff("editor")
    for target in ("/%09/evil.example/login", "/%0A/x", "/%5Cevil.example"):
        url = f"/login?next={target}"
        (form,) = page_forms(client.get(url).get_data(as_text=True))
        fields = {**form.fields, "email": "editor@test.local", "password": "editor-pw"}
        resp = client.post(form.action or url, data=fields)
        assert (resp.status_code, resp.headers["Location"]) == (302, "/editor/queue"), target
        client.post("/logout", data={})
