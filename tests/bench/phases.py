"""Where one request's time goes, by phase: ``python -m tests.bench.submit_profile --breakdown``.

:class:`Phases` wraps named functions (the multipart parser, the CSRF check, the session
cookie, the WTForms form's construction and validation, the Redis and PostgreSQL round
trips, the intake, the commit, the redirect, every ``before_request``/``after_request``/
``teardown_request`` hook of the app, the view) and charges each moment to the innermost
phase running then: a phase's time excludes the phases nested in it, so the phases and the
rest of the WSGI call (``Flask dispatch (rest)``) add up to the request. Both clocks are kept:
CPU (``time.process_time``) and wall (``time.perf_counter``: a round trip's wait shows here
and not in CPU). Bench-only code: the wrappers cost about 2 µs of CPU per phase entered.
"""

from __future__ import annotations

import functools
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

REST = "Flask dispatch (rest)"


class Phases:
    """Exclusive CPU and wall time per phase name, summed over the requests timed."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.wall: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._stack: list[str] = []
        self._mark = (0.0, 0.0)
        self.enabled = False

    def _switch(self) -> None:
        """Charge the time since the last switch to the phase on top of the stack."""
        cpu, wall = time.process_time(), time.perf_counter()
        if self._stack:
            top = self._stack[-1]
            self.cpu[top] += cpu - self._mark[0]
            self.wall[top] += wall - self._mark[1]
        self._mark = (cpu, wall)

    def run(self, name: str, fn: Callable, *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` charged to phase ``name`` (when enabled)."""
        if not self.enabled:
            return fn(*args, **kwargs)
        self._switch()
        self._stack.append(name)
        self.calls[name] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            self._switch()
            self._stack.pop()

    def wrap(self, name: str, fn: Callable) -> Callable:
        """``fn`` wrapped so that its calls are charged to ``name``."""
        if getattr(fn, "__sova_phase__", None):
            return fn

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            return self.run(name, fn, *args, **kwargs)

        timed.__sova_phase__ = name  # type: ignore[attr-defined]
        return timed

    def patch(self, owner: Any, attr: str, name: str) -> None:
        """Replace ``owner.attr`` (a class's method or a module's function) by its timed
        wrapper."""
        fn = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
        if isinstance(fn, staticmethod | classmethod):
            raise TypeError(f"{owner}.{attr}: wrap the function, not a descriptor")
        setattr(owner, attr, self.wrap(name, fn))

    def hooks(self, app: Any) -> None:
        """Every request hook of ``app`` (and of its blueprints) timed under its own name,
        and the whole WSGI call as :data:`REST`."""
        for table, kind in (
            (app.before_request_funcs, "before"),
            (app.after_request_funcs, "after"),
            (app.teardown_request_funcs, "teardown"),
        ):
            for key, funcs in table.items():
                table[key] = [self.wrap(f"hook {kind}: {hook_name(f)}", f) for f in funcs]
        app.wsgi_app = self.wrap(REST, app.wsgi_app)

    def per_request(self, requests: int) -> list[dict]:
        """``[{"phase", "cpu_ms", "wall_ms", "calls"}]`` per request, largest CPU first."""
        rows = [
            {
                "phase": name,
                "cpu_ms": round(1000 * self.cpu[name] / requests, 3),
                "wall_ms": round(1000 * self.wall[name] / requests, 3),
                "calls": round(self.calls[name] / requests, 2),
            }
            for name in self.cpu
        ]
        return sorted(rows, key=lambda r: -r["cpu_ms"])


def hook_name(fn: Callable) -> str:
    """A hook's module and qualified name (``functools.partial``: its function's)."""
    inner = getattr(fn, "func", fn)
    return f"{getattr(inner, '__module__', '?')}.{getattr(inner, '__qualname__', repr(inner))}"


def instrument(phases: Phases, app: Any) -> None:
    """The phases of a viewer's ``POST /submit`` (Sova's or the textbook app's) on ``app``."""
    import celery
    import flask.sessions
    import psycopg
    import redis.client
    import werkzeug.formparser
    import wtforms.form

    phases.patch(werkzeug.formparser.FormDataParser, "parse", "multipart parse (werkzeug)")
    phases.patch(flask.sessions.SecureCookieSessionInterface, "open_session", "session cookie")
    phases.patch(flask.sessions.SecureCookieSessionInterface, "save_session", "session cookie")
    phases.patch(wtforms.form.FormMeta, "__call__", "form build (WTForms)")
    phases.patch(wtforms.form.Form, "validate", "form validate (WTForms)")
    phases.patch(redis.client.Redis, "execute_command", "Redis round trip (redis-py)")
    phases.patch(redis.client.Pipeline, "execute", "Redis round trip (redis-py)")
    phases.patch(psycopg.Cursor, "execute", "PostgreSQL round trip (psycopg)")
    phases.patch(psycopg.Connection, "commit", "PostgreSQL round trip (psycopg)")
    phases.patch(celery.Celery, "send_task", "broker publish (Celery send_task)")
    try:
        import flask_wtf.csrf

        phases.patch(flask_wtf.csrf, "validate_csrf", "CSRF token check")
    except ImportError:  # pragma: no cover
        pass
    if "submissions.submit" in app.view_functions:
        from webapp.submissions.views import submit_form

        phases.patch(submit_form, "receive", "intake: receive() (rest)")
        phases.patch(submit_form, "commit", "commit + outbox hand-off")
        phases.patch(submit_form, "redirect", "response: redirect")
        phases.patch(submit_form, "url_for", "response: redirect")
        phases.patch(submit_form, "_too_fast", "minimum fill time")
        phases.patch(submit_form, "_keep_handout_image", "handout image (none sent)")
        phases.patch(submit_form, "submission_from", "form → SubmissionInput")
        from webapp.submissions.operations import intake

        phases.patch(intake, "validate", "intake: validate (clean, normalise e-mail)")
        phases.patch(intake, "_resend_of", "intake: resend check (statement)")
        phases.patch(intake, "question_values", "intake: question values (matching key, …)")
        phases.patch(intake, "insert_received", "intake: the one statement (SQLAlchemy Core)")
    for endpoint, view in list(app.view_functions.items()):
        if endpoint.endswith("submit"):
            app.view_functions[endpoint] = phases.wrap("view (rest)", view)
    phases.hooks(app)
