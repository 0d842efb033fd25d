"""The season-amount migration moves each season's individual-prize amounts from the three
``season`` columns into ``season_amount`` rows and back, on SQLite and PostgreSQL."""

from __future__ import annotations

from decimal import Decimal

import sqlalchemy as sa

from webapp.extensions import db
from webapp.tasks.outbox import commit


def _migrate_down_and_up() -> tuple[dict, dict]:
    from flask_migrate import downgrade, upgrade

    from webapp.games.models import Season
    from webapp.games.season.operations import create_season

    minsk = create_season("М", "2023")
    moscow = create_season("Р", "2009", None, None, "100.00")
    moscow.set_prize_amount("year_final", Decimal("1250000.50"))
    minsk.set_prize_amount("special_game", None)  # not set: stays not set, not the default
    commit()
    ids = (minsk.id, moscow.id)
    db.session.remove()
    downgrade(revision="0039_game_host")
    inspector = sa.inspect(db.engine)
    assert "season_amount" not in inspector.get_table_names()
    with db.engine.connect() as conn:
        columns = conn.execute(
            sa.text(
                "SELECT id, series_final_prize, year_final_prize, special_game_prize "
                "FROM season ORDER BY id"
            )
        ).all()
    down = {
        row[0]: tuple(None if v is None else Decimal(str(v)) for v in row[1:]) for row in columns
    }
    upgrade(revision="heads")
    db.session.remove()
    assert "series_final_prize" not in {
        c["name"] for c in sa.inspect(db.engine).get_columns("season")
    }
    up = {
        s.id: s.prize_amounts
        for s in db.session.scalars(db.select(Season).where(Season.id.in_(ids)).order_by(Season.id))
    }
    return down, up


def _expected(down: dict, up: dict) -> None:
    minsk, moscow = sorted(up)
    assert down == {
        minsk: (Decimal("2000.00"), Decimal("2000.00"), None),
        moscow: (Decimal("300000.00"), Decimal("1250000.50"), None),
    }
    assert up == {
        minsk: [
            ("series_final", Decimal("2000.00")),
            ("year_final", Decimal("2000.00")),
            ("special_game", None),
        ],
        moscow: [("series_final", Decimal("300000.00")), ("year_final", Decimal("1250000.50"))],
    }


def test_the_migration_moves_the_amounts_on_sqlite(app):
    _expected(*_migrate_down_and_up())


def test_the_migration_moves_the_amounts_on_postgresql(pg_app):
    _expected(*_migrate_down_and_up())
