"""The commission minutes' numbering and its migration on PostgreSQL (season row locked
``FOR UPDATE``; the migration goes down and up and numbers the minutes already issued), and
the payment register PDF's query there.
Skipped without SOVA_TEST_DATABASE_URL; fails under CI=true."""

from __future__ import annotations

import pytest

from tests.helpers import COMMISSION
from tests.webapp.prizes.paperwork import (
    TEAM,
    migration_numbers_minutes_issued_before_it,
    minutes_numbered_per_season_without_gaps_and_kept,
    minutes_numbers,
    register_pdf_rows_and_totals_per_currency,
)
from webapp.extensions import db


@pytest.fixture
def app(make_app, pg_url):
    """The prizes ``app`` fixture on a fresh PostgreSQL database."""
    app = make_app(
        WTF_CSRF_ENABLED=False,
        SOVA_PRIZE_COMMISSION=COMMISSION,
        SOVA_REQUIRE_SIGNOFF=False,
        SOVA_DATABASE_URL=pg_url,
    )
    with app.app_context():
        assert db.engine.dialect.name == "postgresql"
        yield app
        db.session.remove()
        db.engine.dispose()


def test_migration_numbers_minutes_issued_before_it(app, api, played, drain):
    migration_numbers_minutes_issued_before_it(app, api, played, drain)


def test_minutes_numbered_per_season_without_gaps_and_kept(app, api, played, drain, login):
    minutes_numbered_per_season_without_gaps_and_kept(app, api, played, drain, login)


def test_register_pdf_rows_and_totals_per_currency(app, api, played, drain, login):
    register_pdf_rows_and_totals_per_currency(app, api, played, drain, login)


def test_two_minutes_issued_at_once_get_consecutive_numbers(app, played):
    """Two producers award Crystal Owls of one season at the same moment: the season row
    lock serialises the numbering (no unique violation, no gap, no duplicate)."""
    import threading

    from tests.helpers import EXPERTS_WIN
    from webapp.games.models import Game
    from webapp.prizes.operations import award_prize
    from webapp.tasks.outbox import commit

    series = played("series_final", EXPERTS_WIN)
    season = db.session.get(Game, series).season_id
    year = played("year_final", EXPERTS_WIN, season_id=season)
    db.session.remove()
    barrier, errors = threading.Barrier(2), []

    def award(game_id: int, kind: str) -> None:
        with app.app_context():
            try:
                game = db.session.get(Game, game_id)
                barrier.wait(timeout=30)
                award_prize(game, kind, None, recipient=TEAM[0], team=TEAM)
                commit()
            except Exception as exc:  # reported below
                errors.append(repr(exc))
            finally:
                db.session.remove()

    threads = [
        threading.Thread(target=award, args=(series, "best_participant_of_series")),
        threading.Thread(target=award, args=(year, "best_expert_of_year")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert sorted((number, seq) for _prize, number, seq in minutes_numbers()) == [
        ("2023-К-0001", 1),
        ("2023-К-0002", 2),
    ]
