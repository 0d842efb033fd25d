"""The Sova app plus two endpoints that exist only for ``python -m tests.bench.submit
--budget`` (never in the product): they split the cost of ``POST /submit`` into what any
form POST costs and what storing the question costs (docs/performance-history.md, «The budget»).

- ``POST /bench/redirect``: reads nothing of the body, answers 302 (the WSGI, Flask,
  security-header and redirect cost of a POST with the browser's body);
- ``POST /bench/form``: builds ``SubmitForm`` from the body and validates it (multipart
  parsing, CSRF, WTForms), stores nothing, answers 302 (or 422 if the body is invalid).
"""

from __future__ import annotations

from flask import Flask, redirect

from webapp import create_app as create_sova_app
from webapp.core.access import access


def create_app() -> Flask:
    """``gunicorn 'tests.bench.budget_app:create_app()'``: Sova with the two bench routes."""
    app = create_sova_app()

    @access("public")
    def bench_redirect():
        return redirect("/")

    @access("public")
    def bench_form():
        from webapp.submissions.forms import SubmitForm

        form = SubmitForm()
        if not form.validate():
            return {"errors": form.errors}, 422
        return redirect("/")

    app.add_url_rule("/bench/redirect", "bench_redirect", bench_redirect, methods=["POST"])
    app.add_url_rule("/bench/form", "bench_form", bench_form, methods=["POST"])
    return app
