"""The public archive: ``/archive`` (the aired games, newest first), ``/archive/games/<id>``
(a game's questions in the order asked, answers behind «Показать ответ»), ``/archive/search``,
``/archive/authors/<id>`` (an author who agreed to be named), ``/archive/feed.atom`` (the
newly aired games) and the handout images of aired questions.

Russian by default, Belarusian and English (the viewer's language, as ``/submit``). A game
that has not aired and a held-back question appear nowhere (``webapp.archive.queries`` reads
only through :mod:`webapp.games.publication`), and leave shared caches within
:data:`MAX_AGE` seconds (:func:`_revalidate`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from flask import Blueprint, Response, abort, render_template, request, send_from_directory
from flask_babel import format_date
from flask_babel import gettext as _
from flask_login import current_user

from webapp.archive import queries
from webapp.core.access import access
from webapp.core.chars import xml_safe
from webapp.core.links import public_url
from webapp.core.models import utcnow
from webapp.extensions import db, limiter
from webapp.games.publication import public_game_or_404, question_public
from webapp.submissions.models import Question
from webapp.submissions.views import uploads_folder

bp = Blueprint("archive", __name__, url_prefix="/archive")

ATOM = "http://www.w3.org/2005/Atom"

#: Seconds a shared cache (a proxy, a CDN) may serve an archive response without asking
#: again: a question held back, or a game whose air time moved later, is gone from every
#: cache within this time. Each response carries an ETag, so asking again costs a 304.
MAX_AGE = 60


@bp.after_request
def _revalidate(resp: Response) -> Response:
    """Every archive response (pages, search, feed, images, and their 404s): an ETag, with
    ``If-None-Match`` answered ``304``; ``Cache-Control: public, max-age=60``
    (:data:`MAX_AGE`) for a visitor who sends no cookie and chose no language in the
    address, what a shared cache may keep for everyone; else ``private, no-cache`` (a staff
    member's preview of a game not yet aired, a chosen language: never in a shared cache,
    and the browser asks again each time). ``Vary: Accept-Language, Cookie``: the page's
    language comes from either."""
    if resp.status_code not in (200, 304, 404):
        return resp
    if resp.status_code == 200 and not resp.direct_passthrough and "ETag" not in resp.headers:
        resp.add_etag()
        resp.make_conditional(request)
    shared = not request.cookies and "lang" not in request.args
    if shared and not current_user.is_authenticated:
        resp.headers["Cache-Control"] = f"public, max-age={MAX_AGE}"
    else:
        resp.headers["Cache-Control"] = "private, no-cache"
    resp.headers.pop("Expires", None)  # send_file's, from its own max-age
    resp.vary.update(("Accept-Language", "Cookie"))
    return resp


def game_title(game) -> str:
    """The game's public name: its title, else «Игра 30 декабря 2023 г.» in the page's
    language (the air date in the season's zone)."""
    if game.title:
        return game.title
    return _("Игра %(date)s", date=format_date(air_day(game), "long"))


def air_day(game):
    """The air date in the season's time zone."""
    from zoneinfo import ZoneInfo

    return game.air_at.astimezone(ZoneInfo(game.season.timezone)).date()


@bp.app_context_processor
def _archive_helpers():
    return {"archive_game_title": game_title, "archive_air_day": air_day}


def _page_arg() -> int:
    try:
        return int(request.args.get("page", "1"))
    except ValueError:
        return 1


@bp.route("")
@access("public")
def index():
    """The aired games, newest first, ``PAGE_SIZE`` a page."""
    games, page, pages = queries.games_page(_page_arg())
    return render_template(
        "archive/index.html",
        games=games,
        counts=queries.question_counts([g.id for g in games]),
        page=page,
        pages=pages,
    )


@bp.route("/games/<int:game_id>")
@access("public")
def game(game_id: int):
    """One aired game: its questions in the order asked (404 before the air, except to
    staff, who see the page without its questions)."""
    g = public_game_or_404(game_id)
    items = queries.game_questions(g)
    return render_template("archive/game.html", game=g, items=items)


@bp.route("/search")
@limiter.limit("60/minute")
@access("public")
def search():
    """Full-text search over the aired questions (text and answer); 60 searches a minute
    per address (each is a query of the whole archive)."""
    words = request.args.get("q", "").strip()[:200]
    items = queries.search(words) if words else []
    return render_template("archive/search.html", words=words, items=items)


@bp.route("/authors/<int:author_id>")
@access("public")
def author(author_id: int):
    """An author's aired questions, only those whose authors may be named on air."""
    items = queries.author_questions(author_id)
    if not items:
        abort(404)
    return render_template(
        "archive/author.html",
        items=items,
        author_id=author_id,
        byline=queries.author_byline(author_id, items),
    )


@bp.route("/questions/<int:question_id>/images/<name>")
@access("public")
def image(question_id: int, name: str):
    """A handout image of an aired question that is not held back (404 otherwise)."""
    q = db.session.get(Question, question_id)
    if q is None or not question_public(q):
        abort(404)
    if name not in {*q.image_files.values(), q.handout_image}:
        abort(404)
    return send_from_directory(uploads_folder(), name, max_age=MAX_AGE)


@bp.route("/feed.atom")
@access("public")
def feed():
    """An Atom feed of the newest aired games (built with ``xml.etree``: every text is
    escaped by the serializer, and stripped of what XML 1.0 cannot hold by
    :func:`webapp.core.chars.xml_safe`, so one stored U+FFFE never breaks the feed)."""
    games = queries.feed_games()
    ET.register_namespace("", ATOM)

    def sub(parent, tag, text=None, **attrs):
        # the last guard: no character that XML 1.0 cannot hold, whatever was stored
        attrs = {name: xml_safe(value) for name, value in attrs.items()}
        el = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            el.text = xml_safe(text)
        return el

    root = ET.Element(f"{{{ATOM}}}feed")
    sub(root, "title", _("Архив вопросов телезрителей «Что? Где? Когда?»"))
    sub(root, "id", public_url("archive.feed"))
    sub(root, "link", href=public_url("archive.feed"), rel="self")
    sub(root, "link", href=public_url("archive.index"))
    updated = games[0].air_at if games else utcnow()
    sub(root, "updated", updated.isoformat())
    sub(sub(root, "author"), "name", _("Сова"))
    counts = queries.question_counts([g.id for g in games])
    for g in games:
        entry = sub(root, "entry")
        link = public_url("archive.game", game_id=g.id)
        sub(entry, "title", game_title(g))
        sub(entry, "id", link)
        sub(entry, "link", href=link)
        sub(entry, "updated", g.air_at.isoformat())
        sub(entry, "published", g.air_at.isoformat())
        n = counts.get(g.id, 0)
        summary = _("Вопросов телезрителей в эфире: %(n)s.", n=n)
        if g.team_name:
            summary = _("Команда: %(team)s.", team=g.team_name) + " " + summary
        sub(entry, "summary", summary)
    body = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return Response(body, mimetype="application/atom+xml")
