"""The air-time migration fills every existing game: its date at 00:00 in its season's
time zone (Europe/Minsk for 2023, Europe/Moscow for 2009), on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, date, datetime

import sqlalchemy as sa

from webapp.extensions import db
from webapp.tasks.outbox import commit


def _migrate_games_down_and_up() -> dict[int, datetime]:
    from flask_migrate import downgrade, upgrade

    from webapp.games.models import Game
    from webapp.games.season.operations import create_game, create_season

    table = {"blitz": None, "superblitz": None, "sector13": None}
    minsk = create_game(create_season("М", "2023").id, "qualifying", date(2023, 12, 30), table)
    moscow = create_game(create_season("Р", "2009", None, None, "100.00").id, "special",
                         date(2009, 3, 1), table)  # fmt: skip
    commit()
    ids = (minsk.id, moscow.id)
    db.session.remove()
    downgrade(revision="0024_author_keys")
    assert "air_at" not in {c["name"] for c in sa.inspect(db.engine).get_columns("game")}
    upgrade(revision="heads")
    db.session.remove()
    return {g.id: g.air_at for g in db.session.scalars(db.select(Game).where(Game.id.in_(ids)))}


def _expected(found: dict[int, datetime]) -> None:
    minsk, moscow = sorted(found)
    assert found == {
        minsk: datetime(2023, 12, 29, 21, 0, tzinfo=UTC),  # 00:00 in Minsk (UTC+3)
        moscow: datetime(2009, 2, 28, 21, 0, tzinfo=UTC),  # 00:00 in Moscow (UTC+3 in 2009)
    }


def test_the_migration_fills_air_times_on_sqlite(app):
    _expected(_migrate_games_down_and_up())


def test_the_migration_fills_air_times_on_postgresql(pg_app):
    _expected(_migrate_games_down_and_up())
