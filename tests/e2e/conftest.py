"""End-to-end fixtures: a real Sova server in a thread and headless Debian Chromium
driven by Playwright (``executable_path``; Playwright never downloads a browser).

``live_server``: ``.url``, ``.app``, ``.drain()`` (run queued tasks in-process, as the
worker would), ``.staff(role)`` (creates a user with password ``<role>-pw``),
``.login(page, role)`` (that user logs in on ``page``).
``page``: a Playwright page in a fresh browser context (phone-sized with ``phone_page``).
Both skip when Chromium or Playwright is missing, and fail under CI=true.

The full run (CI=true or SOVA_TEST_FULL=1) runs every browser test. A local ``make test``
runs the browser smoke only, the tests without the ``slow`` marker: the Belarusian viewer on
a phone (test_viewer), a whole game on the host's console (test_console) and viewer markup
that never runs, the console's parts swapped in by console.js included (test_xss). The
others (each 1-8 s of Chromium, about 90 s together) drive pages whose forms and views the
fast tests already submit as rendered; they stay in the full run for what only a browser
shows (scripts, drag and drop, the no-JS fallbacks).
"""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import dataclass

import pytest

CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing(message: str):
    if os.environ.get("CI") == "true":
        pytest.fail(message + " (required when CI=true)")
    pytest.skip(message)


@dataclass
class LiveServer:
    url: str
    app: object

    def drain(self) -> list[str]:
        from tests.helpers import drain_outbox

        with self.app.app_context():
            return drain_outbox(self.app)

    def staff(self, role: str) -> str:
        """Create (once) a staff user of ``role``; returns its e-mail."""
        from webapp.accounts.models import User
        from webapp.accounts.operations import create_user
        from webapp.extensions import db
        from webapp.tasks.outbox import commit

        email = f"{role}@e2e.local"
        with self.app.app_context():
            if db.session.scalar(db.select(User).filter_by(email=email)) is None:
                create_user(email, role, password=f"{role}-pw")
                commit()
        return email

    def login(self, page, role: str) -> None:
        """Create (once) the staff user of ``role`` and log ``page`` in as it."""
        email = self.staff(role)
        page.goto(f"{self.url}/login")
        page.fill("input[name=email]", email)
        page.fill("input[name=password]", f"{role}-pw")
        page.get_by_role("button", name="Войти").click()
        page.wait_for_load_state("load")


@pytest.fixture
def live_server(make_app):
    from werkzeug.serving import make_server

    app = make_app(SOVA_SMTP_URL=os.environ.get("SOVA_TEST_SMTP_URL"))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    app.config["SOVA_PUBLIC_URL"] = url  # absolute links point at this server
    try:
        yield LiveServer(url=url, app=app)
    finally:
        server.shutdown()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed")
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        _missing("Debian chromium is not installed (apt-get install chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(locale="ru-RU")
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


@pytest.fixture
def phone_page(browser):
    """A phone-sized page (390×844, touch) as most viewers use."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="be-BY"
    )
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()
