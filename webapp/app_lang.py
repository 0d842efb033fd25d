"""Languages of the UI: Russian (default), Belarusian, English."""

from __future__ import annotations

import functools
from collections.abc import Callable

from jinja2 import pass_context

LANGUAGES = ("ru", "be", "en")
LANG_COOKIE = "sova_lang"


#: Blueprints whose staff pages are translated whole (the audience vote's page, which a
#: guest host or the sponsor's representative may read in Belarusian or English): they keep
#: the visitor's language and the switch.
TRANSLATED_STAFF_BLUEPRINTS = frozenset({"votes"})


def staff_page() -> bool:
    """Whether this request is a Russian-only staff page: an HTML view that admits staff
    roles only (its ``access`` declaration is none of ``"public"``, ``"gateway"``,
    ``"broadcast"``), not the API, not of :data:`TRANSLATED_STAFF_BLUEPRINTS` — or, when no
    page matched the address (a 404 or 405 page), an address in a section of staff pages
    (:func:`staff_sections`): ``/editor/…`` mistyped is a staff 404, in Russian; under a
    section that also has public pages (``/prizes/…``) for a signed-in staff member only.
    The rest of the staff interface is
    written in Russian only, so such a page is shown in Russian whatever language the
    visitor chose, and offers no language switch (a choice that translated a few words of
    it made a page of two languages)."""
    from flask import current_app, has_request_context, request

    if not has_request_context() or request.path.startswith("/api/"):
        return False
    if request.endpoint is None:  # no page matched (a 404, 405): judged by the address
        only_staff = staff_sections(current_app).get(request.path.split("/")[1])
        if only_staff is None:
            return False
        from flask_login import current_user

        return only_staff or bool(current_user and current_user.is_authenticated)
    if request.blueprint in TRANSLATED_STAFF_BLUEPRINTS:
        return False
    view = current_app.view_functions.get(request.endpoint)
    return getattr(view, "sova_access", "public") not in ("public", "gateway", "broadcast")


def staff_sections(app) -> dict[str, bool]:
    """The first path segments of ``app``'s staff pages (see :func:`staff_page`), each with
    whether *every* page under it is one: ``{"editor": True, "prizes": False, …}``
    (``/prizes/details/…`` is the payee's public form, ``/games/<id>/vote`` a translated
    staff page). Computed once per app from its URL map."""
    cached = app.extensions.get("sova_staff_sections")
    if cached is None:
        staff: set[str] = set()
        other: set[str] = set()
        for rule in app.url_map.iter_rules():
            first = rule.rule.split("/")[1]
            if not first or first.startswith("<") or first in ("api", "static"):
                continue
            view = app.view_functions.get(rule.endpoint)
            blueprint = rule.endpoint.rpartition(".")[0]
            spec = getattr(view, "sova_access", "public")
            if spec in ("public", "gateway", "broadcast") or (
                blueprint in TRANSLATED_STAFF_BLUEPRINTS
            ):
                other.add(first)
            else:
                staff.add(first)
        cached = app.extensions["sova_staff_sections"] = {s: s not in other for s in staff}
    return cached


def per_render(filter_: Callable[..., str]) -> Callable[..., str]:
    """A template filter that reads the request's language (Flask-Babel's ``get_locale``),
    made to run at every render.

    Jinja's optimizer evaluates a filter applied to literals once, when it compiles the
    template (``{{ "002_….txt §3.1"|rule_ref }}``, ``{{ "BY"|country_name }}``), and the
    compiled template is cached for the process: the first visitor's language would then be
    printed for everyone (an English page citing «п. 3.1 Правил сезона 2009 г.»). A filter
    that takes the context is never folded (``jinja2.pass_context``); this wrapper takes it
    and drops it."""

    @pass_context
    @functools.wraps(filter_)
    def run(_context, *args, **kwargs):
        return filter_(*args, **kwargs)

    return run
