"""When a game airs (``Game.air_at``): entered in the season's zone, stored in UTC. The
game is public once it is closed and this time has passed (:mod:`webapp.games.publication`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.games.operations.common import FIRST_AIR_YEAR, LAST_AIR_YEAR, GameError


def air_time_utc(at: datetime, season: Season, errors: dict) -> datetime | None:
    """``at`` as an aware UTC datetime (a naive one is read in ``season``'s zone), or None
    with a message in ``errors["air_at"]`` when its year is outside 1975..2100."""
    if at.tzinfo is None:
        at = at.replace(tzinfo=ZoneInfo(season.timezone))
    if not FIRST_AIR_YEAR <= at.astimezone(ZoneInfo(season.timezone)).year <= LAST_AIR_YEAR:
        errors.setdefault("air_at", []).append(
            f"время эфира — с {FIRST_AIR_YEAR} по {LAST_AIR_YEAR} год"
        )
        return None
    return at.astimezone(UTC)


#: What the prizes feature does when a game's day of air changed, handed in by the caller
#: (``webapp.prizes.operations.reissue_for_new_air_date``: games never import prizes):
#: ``reissue(game, user_id)`` issues the game's unsigned gift agreements again and returns
#: ``{"reissued": n, "signed": m}``.
AirDateReissue = Callable[[Game, int | None], dict[str, int]]


def set_air_time(
    game: Game, at: datetime, user_id: int | None, reissue: AirDateReissue
) -> dict[str, int]:
    """Set when ``game`` airs (``at``: aware, or naive in the season's zone). The game is
    public once it is closed and this time has passed (``webapp.games.publication``); a
    later time hides it again. The game's ``air_date`` becomes the day of ``at`` in the
    season's zone; when that day changes, ``reissue`` issues the gift agreements not yet
    signed again with the new date. Returns
    ``{"reissued": n, "signed": m}``: agreements issued again, signed agreements that keep
    the date they were signed with (both 0 when the day stayed). Raises GameError
    (``air_at``) for a year outside 1975..2100."""
    errors: dict[str, list[str]] = {}
    value = air_time_utc(at, game.season, errors)
    if errors or value is None:
        raise GameError(errors)
    game.air_at = value
    game.air_time_given = True
    # the game's day of air follows: one date on the pages, the lists' order and the files
    day = value.astimezone(ZoneInfo(game.season.timezone)).date()
    changed = day != game.air_date
    game.air_date = day
    db.session.flush()
    if not changed:
        return {"reissued": 0, "signed": 0}
    return reissue(game, user_id)
