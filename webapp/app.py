"""The application factory: ``create_app(test_config=None, pages=True)`` in small
``register_*`` steps.

Each step imports the features it wires when the app is made, not when this module is
imported; no feature imports this module, so those imports hide no cycle."""

from __future__ import annotations

import logging
from importlib import import_module
from pathlib import Path

from flask import (
    Flask,
    abort,
    current_app,
    g,
    has_request_context,
    render_template,
    request,
)
from sqlalchemy import event
from sqlalchemy.engine import Engine
from werkzeug.exceptions import HTTPException

from webapp.config import load_config
from webapp.core import edge
from webapp.core.access import BROADCAST
from webapp.core.pool import install_idle_ping
from webapp.extensions import babel, csrf, db, limiter, login_manager, migrate
from webapp.resources import package_dir, templates_dir

MIGRATIONS = package_dir() / "migrations"


class SovaFlask(Flask):
    """Flask whose every view runs inside the request edge (:func:`webapp.core.edge.run`):
    one transaction per request, committed or rolled back there and nowhere else."""

    def dispatch_request(self):
        return edge.run(super().dispatch_request)


#: Every module that maps tables. The views import them all; an app built without its pages
#: imports them here, so that every mapper's relationships find their classes.
MODEL_MODULES = (
    "webapp.core.models",
    "webapp.accounts.models",
    "webapp.authors.models",
    "webapp.submissions.models",
    "webapp.moderation.models",
    "webapp.games.models",
    "webapp.games.season.models",
    "webapp.prizes.models",
    "webapp.votes.models",
    "webapp.onair.models",
)


def create_app(test_config: dict | None = None, *, pages: bool = True) -> Flask:
    """Build the Flask app. ``test_config`` overrides any setting (see webapp.config).

    ``pages=False``: the app without its pages — no blueprint, no API, no WSGI wrappers —
    for a command that serves no request and builds no URL (``sova import``:
    :data:`webapp.cli.WITHOUT_PAGES`), which then starts sooner; the models, the
    extensions, the signals, Celery and the rest as in the full app."""
    app = SovaFlask(
        "sova", template_folder=str(templates_dir()), static_folder=str(package_dir() / "static")
    )
    app.config.from_mapping(load_config(test_config))
    Path(app.config["SOVA_INSTANCE_PATH"]).mkdir(parents=True, exist_ok=True)
    register_extensions(app)
    if pages:
        register_blueprints(app)
        register_wsgi(app)
    else:
        for module in MODEL_MODULES:
            import_module(module)
    register_signals()
    register_day_counts()
    register_handovers(app)
    register_errors(app)
    register_cli(app)
    from webapp.tasks.celery import celery_init_app

    celery_init_app(app)
    logging.basicConfig(level=logging.INFO)
    from webapp.observability import init_observability

    init_observability(app)  # request ids, /metrics, /readyz, JSON logs
    return app


#: The largest part of a SQLite database file a connection reads through a memory map.
SQLITE_MMAP_BYTES = 4 << 30


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    # Reads through a memory map of the database file (up to SQLITE_MMAP_BYTES): pages come
    # from the OS page cache, shared by every connection and process, instead of being
    # copied into each connection's own 2 MB cache, where a duplicate lookup on a large
    # archive would read its index pages anew every time (docs/performance-history.md,
    # «Duplicate detection»). Address space, not memory: nothing is
    # read until used, and the kernel drops clean pages under pressure.
    cur.execute(f"PRAGMA mmap_size={SQLITE_MMAP_BYTES}")
    cur.close()


def _sqlite_begin(conn) -> None:
    # Writers queue on the database lock up front instead of failing mid-transaction.
    conn.exec_driver_sql("BEGIN IMMEDIATE")


from webapp.app_lang import LANG_COOKIE, LANGUAGES, per_render, staff_page  # noqa: E402


def select_locale() -> str:
    """The viewer's language: ``?lang=``, then the remembered cookie, then the browser's
    Accept-Language among ru/be/en; Russian by default (also outside a request: a worker
    or a CLI command translating a message). A staff page is always Russian
    (:func:`webapp.app_lang.staff_page`)."""
    if not has_request_context() or staff_page():
        return "ru"
    lang = request.args.get("lang") or request.cookies.get(LANG_COOKIE)
    if lang in LANGUAGES:
        return lang
    return request.accept_languages.best_match(LANGUAGES) or "ru"


def remember_language(response):
    """A valid ``?lang=`` choice is remembered in the ``sova_lang`` cookie (one year), so
    the form posted from that page, the pages after it and the stored question keep it."""
    lang = request.args.get("lang")
    if lang in LANGUAGES and request.cookies.get(LANG_COOKIE) != lang:
        response.set_cookie(
            LANG_COOKIE,
            lang,
            max_age=365 * 24 * 3600,
            samesite="Lax",
            secure=current_app.config["SESSION_COOKIE_SECURE"],
            httponly=True,
        )
    return response


def register_extensions(app: Flask) -> None:
    db.init_app(app)
    migrate.init_app(app, db, directory=str(MIGRATIONS), render_as_batch=True)
    from webapp.core.access import access_before_csrf

    app.before_request(access_before_csrf)  # a staff page's role check runs before CSRF
    csrf.init_app(app)
    limiter.init_app(app)
    babel.init_app(
        app,
        locale_selector=select_locale,
        default_translation_directories=str(package_dir() / "translations"),
    )
    from flask_babel import get_locale

    app.jinja_env.globals["get_locale"] = get_locale
    app.jinja_env.globals["staff_page"] = staff_page
    register_formats(app)
    app.after_request(remember_language)
    login_manager.init_app(app)
    login_manager.login_view = "accounts.login"
    login_manager.login_message = "Войдите, чтобы продолжить."
    from webapp.security import init_security

    init_security(app)

    with app.app_context():
        engine: Engine = db.engine
        install_idle_ping(engine, app.config["SOVA_DB_PING_IDLE_SECONDS"])
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas)
            event.listen(engine, "begin", _sqlite_begin)

    from webapp.accounts.operations import user_by_token, user_for_session

    @login_manager.user_loader
    def load_user(session_id: str):
        # "<id>:<session_version>": an ended session (logout, password change, an
        # admin's "sign out everywhere") is anonymous from then on
        return user_for_session(session_id)

    @app.before_request
    def api_token():
        """The API's caller (``g.api_user``) from ``Authorization: Bearer <token>``. A
        credential that is presented and not valid (revoked, unknown, of a switched-off
        account, another scheme) is refused with 401 on every API endpoint, public ones
        too: a client that meant to be someone is told so, never served as anonymous. The
        on-air feed's endpoints take their own per-game broadcast token there instead."""
        g.api_user = None
        if not request.path.startswith("/api/") or "Authorization" not in request.headers:
            return
        view = app.view_functions.get(request.endpoint or "")
        if getattr(view, "sova_access", None) == BROADCAST:
            return  # a broadcast token is no staff token: the feed's view checks it
        header = request.headers.get("Authorization", "")
        if header.startswith("Bearer "):
            g.api_user = user_by_token(header[7:].strip())
        if g.api_user is None:
            abort(401)


def register_wsgi(app: Flask) -> None:
    """The WSGI layers in front of Flask, outermost first: the forwarded headers, believed
    only from ``SOVA_TRUSTED_PROXIES`` (:mod:`webapp.core.proxies`); then the SMS gateway's
    short path (:mod:`webapp.sms_gateway`), which reads the client's scheme as the proxies
    leave it and needs the API's routes registered."""
    from webapp.core.proxies import TrustedProxies, parse_networks
    from webapp.sms_gateway import GatewayPath

    trusted = parse_networks(app.config["SOVA_TRUSTED_PROXIES"])
    app.wsgi_app = TrustedProxies(  # type: ignore[method-assign]  # Flask's documented way
        GatewayPath(app.wsgi_app, app), trusted, int(app.config["SOVA_PROXY_COUNT"] or 0)
    )


def register_formats(app: Flask) -> None:
    """The Jinja filters every page prints money and times with (``webapp.core.formats``):
    ``{{ prize.amount|money(prize.currency) }}`` → «1 800,00 BYN» in the page's language
    (Flask-Babel's locale), ``{{ hours|number }}`` → «0,0», ``{{ share|percent }}`` → «100 %»;
    ``{{ at|when(season.timezone) }}`` → «04.03.2023 15:00» in that
    zone, ``{{ at|when }}`` in ``SOVA_TIMEZONE`` (pages of no season), a date «04.03.2023».
    ``{{ q.text|question_preview|clip(120) }}``: a question's text as one plain line for
    a list (``webapp.core.formats.question_preview``): its leading handout block reads
    «[раздаточный материал]», an image «[изображение]», never ``(img …)``.
    ``{{ n|quantity("вопрос", "вопроса", "вопросов") }}`` → «1 вопрос», «20 вопросов»
    (:func:`webapp.domain.text.quantity`, the one plural helper: three forms for Russian and
    Belarusian, two for English). ``{{ "BY"|country_name }}`` → «Беларусь» (Babel's CLDR
    territory name in the page's language; an unknown code is shown as is)."""
    from flask_babel import get_locale

    from webapp.core.formats import clip, money, number, percent, question_preview, when

    def money_filter(amount, currency=None):
        return money(amount, currency, locale=str(get_locale() or "ru"))

    def number_filter(value, places=1):
        return number(value, places, locale=str(get_locale() or "ru"))

    def percent_filter(ratio):
        return percent(ratio, locale=str(get_locale() or "ru"))

    def when_filter(value, zone=None):
        return when(value, zone or current_app.config["SOVA_TIMEZONE"])

    from webapp.domain.text import isolate, quantity

    def quantity_filter(n, *forms):
        return quantity(int(n), forms)

    def country_filter(code):
        from babel import Locale

        locale = Locale.parse(str(get_locale() or "ru"))
        return locale.territories.get(str(code or "").upper(), code or "")

    def zone_city_filter(zone=None):
        # the zone by its city in the page's language («Минск», «Мінск», «Minsk»): CLDR's
        # zone names read Minsk as Moscow time, its location format as «летнее время»
        from babel.dates import get_timezone_location

        zone = zone or current_app.config["SOVA_TIMEZONE"]
        return get_timezone_location(zone, locale=str(get_locale() or "ru"), return_city=True)

    app.add_template_filter(quantity_filter, "quantity")
    app.add_template_filter(per_render(zone_city_filter), "zone_city")
    app.add_template_filter(per_render(country_filter), "country_name")
    app.add_template_filter(per_render(money_filter), "money")
    app.add_template_filter(per_render(question_preview), "question_preview")
    app.add_template_filter(clip, "clip")
    app.add_template_filter(per_render(number_filter), "number")
    app.add_template_filter(per_render(percent_filter), "percent")
    app.add_template_filter(when_filter, "when")
    from webapp.domain.donor import quoted

    app.add_template_filter(quoted, "quoted")  # «…» with inner «» as „“
    # a name in a <title>, where <bdi> cannot go: FSI … PDI around a right-to-left one
    app.add_template_filter(isolate, "isolate")
    from webapp.domain.reading import seconds_label

    app.add_template_filter(seconds_label, "reading_label")  # staff pages: «23 с»


def register_blueprints(app: Flask) -> None:
    from webapp.accounts.views import bp as accounts_bp
    from webapp.api import register_api
    from webapp.archive.viewer import bp as viewer_bp
    from webapp.archive.views import bp as archive_bp
    from webapp.authors.views import bp as authors_bp
    from webapp.games.season.views import bp as seasons_bp
    from webapp.games.views import bp as games_bp
    from webapp.live.views import bp as live_bp
    from webapp.moderation.views import bp as moderation_bp
    from webapp.onair.views import bp as onair_bp
    from webapp.prizes.views import bp as prizes_bp
    from webapp.submissions.pages import bp as pages_bp
    from webapp.submissions.views import bp as submissions_bp
    from webapp.votes.views import bp as votes_bp

    for bp in (
        submissions_bp,
        pages_bp,
        accounts_bp,
        moderation_bp,
        games_bp,
        seasons_bp,
        prizes_bp,
        authors_bp,
        live_bp,
        votes_bp,
        archive_bp,
        viewer_bp,
        onair_bp,
    ):
        app.register_blueprint(bp)
    register_api(app)


def register_signals() -> None:
    """Connect the receivers of the signals in the catalogue (:mod:`webapp.core.signals`).
    Blinker keeps one connection per receiver, so a second app connects nothing new."""
    from webapp.core import signals
    from webapp.votes.receivers import keep_decision

    signals.best_player_awarded.connect(keep_decision)


def register_day_counts() -> None:
    """The statistics' day counts follow every ORM write of a question or an author link
    (:mod:`webapp.submissions.day_counts`)."""
    from webapp.submissions import day_counts

    day_counts.register_day_counts()


def register_handovers(app: Flask) -> None:
    """Hand a page of a lower feature the one read it needs from a higher one, as a direct
    call (the app sits above every feature): the prizes' award page
    (``webapp.prizes.views.award``) is handed the votes feature's read of a game's 2009
    §3.1 audience vote (``app.extensions["sova_best_player_vote"]``), which it shows and
    hands on to ``award_prize``; votes build on prizes, so prizes cannot import it. The
    games' pages that set a game's air time and a season's donor are handed the prizes
    feature's re-issue of the unsigned gift agreements
    (``app.extensions["sova_reissue_for_new_air_date"]``, ``["sova_reissue_for_new_donor"]``),
    which they hand on to ``set_air_time`` and ``set_donor``; prizes build on games."""
    from webapp.prizes.operations import reissue_for_new_air_date, reissue_for_new_donor
    from webapp.votes.queries import best_player_vote

    app.extensions["sova_best_player_vote"] = best_player_vote
    app.extensions["sova_reissue_for_new_air_date"] = reissue_for_new_air_date
    app.extensions["sova_reissue_for_new_donor"] = reissue_for_new_donor


def register_errors(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if request.path.startswith("/api/"):
            return app.extensions["sova_api_error"](exc)
        # Werkzeug's own description is English; only a view's own text is shown as is
        own = exc.description if exc.description != type(exc).description else None
        return render_template("error.html", error=exc, own_description=own), exc.code

    @app.teardown_request
    def rollback_on_error(exc):
        if exc is not None:
            db.session.rollback()


def register_cli(app: Flask) -> None:
    from webapp.cli import register_commands

    register_commands(app.cli)
