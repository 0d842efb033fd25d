"""Open redirects in Chromium: every ``next`` a visitor can be sent to (the language switch,
the login) keeps the browser on Sova, whatever bypass of the target check it holds
(``webapp.core.redirects.local_path``). A browser is the judge, not the ``Location``
header: Chromium drops TAB/CR/LF and reads ``\\`` as ``/`` in a redirect.

Each payload names the host ``evil.example``; every request the browser makes is recorded,
and none may go anywhere but the live server."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.slow  # full run only (the browser smoke: tests/e2e/conftest.py)

#: ``next`` as it stands in the query string of a link an attacker sends.
BYPASSES = [
    "//evil.example/login",
    "%2F%2Fevil.example/login",
    "/%2F%2Fevil.example/login",
    "/%252F%252Fevil.example/login",
    "/%5Cevil.example/login",
    "%5C/evil.example/login",
    "%5C%5Cevil.example/login",
    "/%09/evil.example/login",
    "%09//evil.example/login",
    "/%0D/evil.example/login",
    "/%0A/evil.example/login",
    "//%0Aevil.example/login",
    "/%0D%0A/evil.example/login",
    "///evil.example/login",
    "https://evil.example/login",
    "https:evil.example/login",
    "//127.0.0.1@evil.example/login",
    "https://127.0.0.1@evil.example/login",
    "//%D0%B5vil.example/login",  # IDN: a Cyrillic «е»
    "//xn--vil-sqc.example/login",
    "/%E3%80%82/evil.example",  # an ideographic full stop
    "%EF%BC%8F%EF%BC%8Fevil.example/login",  # fullwidth solidi
    "javascript:alert(document.domain)",
]


def _visit(page, url: str) -> list[str]:
    """Open ``url`` and return the netlocs of every request the browser made."""
    hosts: list[str] = []
    page.on("request", lambda r: hosts.append(urlsplit(r.url).netloc))
    try:
        page.goto(url)
    except Exception:  # a navigation to an unknown host fails: the hosts list says so
        pass
    return hosts


@pytest.mark.parametrize("target", BYPASSES)
def test_the_language_switch_never_leaves_the_site(live_server, page, target):
    sova = urlsplit(live_server.url).netloc
    hosts = _visit(page, f"{live_server.url}/lang/en?next={target}")
    assert set(hosts) == {sova}, hosts
    assert urlsplit(page.url).netloc == sova
    assert page.locator("html").get_attribute("lang") == "en"


def test_the_language_switch_goes_back_to_the_page_it_was_pressed_on(live_server, page):
    page.goto(f"{live_server.url}/archive")
    page.get_by_role("link", name="Eng").click()
    page.wait_for_load_state("load")
    assert page.url == f"{live_server.url}/archive"
    assert page.locator("html").get_attribute("lang") == "en"


@pytest.mark.parametrize(
    "target", ["/%09/evil.example/login", "//evil.example", "/%5Cevil.example"]
)
def test_the_login_never_leaves_the_site(live_server, page, target):
    sova = urlsplit(live_server.url).netloc
    email = live_server.staff("editor")
    hosts = _visit(page, f"{live_server.url}/login?next={target}")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", "editor-pw")
    try:
        page.get_by_role("button", name="Войти").click()
        page.wait_for_load_state("load")
    except Exception:
        pass
    assert set(hosts) == {sova}, hosts
    assert page.url == f"{live_server.url}/editor/queue"
