"""Live questions for sector 13 of the 2009 rule set (002_e025d5ded135c1c4.txt §1.3,
§1.4.1): while a 2009 game is live, viewers send questions here; each gets a server
timestamp (``created_at``, UTC), channel ``live`` and the game it was sent during
(``live_game_id``), and enters the fast moderation lane (the editors' queue filtered by
channel ``live``). The draw itself is the game day's (:mod:`webapp.games.operations.draw`).

The page is the viewer form of :mod:`webapp.submissions.views.submit_form` (the same checks,
the one commit, the same 413/429/503/expired-token pages), posting back to ``/live``."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask_wtf.csrf import CSRFError

from webapp.core.access import access
from webapp.domain.books import BOOKS
from webapp.extensions import db, limiter
from webapp.games.models import Game, Season
from webapp.submissions.views import counts_toward_limit, csrf_expired
from webapp.submissions.views.submit_form import email_key, handle_form

bp = Blueprint("live", __name__)


def live_sector13_books() -> list[str]:
    """The ``ruleset`` names of the books whose sector 13 takes viewers' questions live."""
    return [b.name for b in BOOKS.values() if b.live_sector13]


def live_game() -> Game | None:
    """The game being played now (status ``live``) under a rule set whose sector 13 takes
    the viewers' questions live (2009, 002_e025d5ded135c1c4.txt §1.4.1), or None."""
    return db.session.scalar(
        db.select(Game)
        .join(Season)
        .where(Game.status == "live", Season.ruleset.in_(live_sector13_books()))
        .order_by(Game.id.desc())
    )


@bp.route("/live", methods=["GET", "POST"])
@limiter.limit("10/hour", methods=["POST"], deduct_when=lambda r: counts_toward_limit(r))
@limiter.limit(
    "10/hour",
    methods=["POST"],
    key_func=lambda: email_key(),
    deduct_when=lambda r: counts_toward_limit(r),
)
@access("public")
def live():
    """GET: the form (posting to ``/live``) while a 2009 game is live, else «Сейчас игра не
    идёт». POST: a live question of that game (302 to its status page), or the form again
    with the errors (422); after the game ended, the closed page (nothing stored)."""
    game = live_game()
    if game is None:
        return render_template("live/closed.html"), 200
    return handle_form("live", live_game_id=game.id)


@bp.errorhandler(CSRFError)
def live_csrf_expired(exc):
    """An expired or missing CSRF token on the live form: the live form again, text kept."""
    return csrf_expired(exc)
