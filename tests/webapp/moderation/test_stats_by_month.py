"""The statistics by month (:mod:`webapp.moderation.stats`) equal a straightforward
computation from the questions themselves (the oracle below), on generated data: several
hundred viewer questions over more than a year and some in the future (a clock ahead),
every status, cities and none, decisions at whole hours (ties on the bins' edges), at any
microsecond, within the hour, before the receipt; windows whose first day falls early, in the
middle and late in a month; three time zones; SQLite and PostgreSQL."""

from __future__ import annotations

import random
import secrets
from datetime import timedelta

import pytest
from flask import current_app
from sqlalchemy import insert, update

from tests.stats_counts import oracle, recount, stored
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation import stats
from webapp.submissions.day_counts import count_questions, note_decisions, recount_day_counts
from webapp.submissions.models import Author, Question, QuestionAuthor

ZONES = ("Europe/Minsk", "Pacific/Kiritimati", "America/Los_Angeles")
WINDOWS = (1, 2, 5, 9, 13, 16, 20, 24, 29, 30, 31, 45, 61, 100, 183, 250, 366)
STATUSES = ("received", "prechecked", "in_review", "approved", "rejected", "played", "withdrawn")
CHANNELS = ("web", "api", "mail", "import", "partner")
CITIES = ("Минск", "Гомель", "Брест", None, "", "Гродно")


def decision_span(rng: random.Random) -> timedelta:
    kind = rng.randrange(5)
    if kind == 0:  # whole hours: many questions on one bin's edge
        return timedelta(hours=rng.randrange(1, 30))
    if kind == 1:  # within the first hour
        return timedelta(microseconds=rng.randrange(3_600_000_000))
    if kind == 2:  # stamped before the receipt (a clock put back)
        return -timedelta(minutes=rng.randrange(1, 90))
    return timedelta(microseconds=rng.randrange(400 * 3_600_000_000))


def generate(n: int, seed: int) -> None:
    """``n`` viewer questions (and a few archived) written by Core statements, counted as
    the Core writers count them; decisions noted after, some revised to an earlier time."""
    rng = random.Random(seed)
    now = utcnow()
    people = [Author(name=f"Автор {i}", city=None) for i in range(4)]
    db.session.add_all(people)
    db.session.flush()
    questions, links, decisions = [], [], []
    for qid in range(1, n + 1):
        created = now - timedelta(microseconds=rng.randrange(420 * 86_400_000_000))
        if qid % 40 == 0:
            created = now + timedelta(hours=rng.randrange(1, 72))  # a clock ahead
        status = rng.choice(STATUSES)
        questions.append(
            {
                "id": qid,
                "public_token": secrets.token_urlsafe(24),
                "text": f"Вопрос {qid}",
                "answer": "Ответ",
                "sources": [],
                "channel": "archive" if qid % 25 == 0 else rng.choice(CHANNELS),
                "status": status,
                "matching_key": f"вопрос {qid}",
                "created_at": created,
            }
        )
        author = people[qid % len(people)]
        links.append(
            {
                "question_id": qid,
                "author_id": author.id,
                "position": 0,
                "name": author.name,
                "city": rng.choice(CITIES),
            }
        )
        if rng.random() < 0.7:
            at = created + decision_span(rng)
            decisions.append((qid, rng.choice(("approved", "rejected")), at))
            if rng.random() < 0.1:  # revised: a later change that is not the first
                decisions.append((qid, "approved", at + timedelta(hours=5)))
    db.session.execute(insert(Question), questions)
    db.session.execute(insert(QuestionAuthor), links)
    count_questions(db.session.connection(), [q["id"] for q in questions])
    note_decisions(db.session.connection(), decisions[: len(decisions) // 2])
    note_decisions(db.session.connection(), decisions[len(decisions) // 2 :])
    db.session.commit()


def check(zone: str) -> None:
    current_app.config["SOVA_TIMEZONE"] = zone
    generate(600, seed=sum(map(ord, zone)))
    assert stored() == recount()
    for days in WINDOWS:
        assert stats.summary(days) == oracle(days), (zone, days)
    # a few questions only (the others archived, counted again from scratch): the median's
    # one or two middle values in one hour or in two
    db.session.execute(update(Question).where(Question.id % 50 != 7).values(channel="archive"))
    recount_day_counts(db.session.connection())
    db.session.commit()
    assert stored() == recount()
    for days in WINDOWS:
        assert stats.summary(days) == oracle(days), (zone, days)


@pytest.mark.parametrize("zone", ZONES)
def test_the_statistics_equal_the_questions_own_figures(make_app, zone):
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_TIMEZONE=zone)
    with app.app_context():
        check(zone)


@pytest.mark.integration
@pytest.mark.parametrize("zone", ZONES)
def test_the_statistics_equal_the_questions_own_figures_on_postgresql(make_app, pg_url, zone):
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_DATABASE_URL=pg_url, SOVA_TIMEZONE=zone)
    with app.app_context():
        assert db.engine.dialect.name == "postgresql"
        check(zone)
        db.session.remove()
        db.engine.dispose()


def migrate_down_and_up() -> None:
    """Migration 0046 down drops the three tables (and PostgreSQL's index); up fills them
    from the day counts and the questions as they are, equal to a recount."""
    from flask_migrate import downgrade, upgrade

    generate(300, seed=5)
    before = stored()
    assert before == recount()
    db.session.remove()
    downgrade(revision="0045_drop_status_change_decided")
    inspector = db.inspect(db.engine)
    tables = set(inspector.get_table_names())
    assert not tables & {"viewer_intake_day", "viewer_question_month", "viewer_decision_month"}
    assert "viewer_question_day" in tables
    indexes = {ix["name"] for ix in inspector.get_indexes("question")}
    assert "ix_question_viewer_decision_time" not in indexes
    upgrade(revision="heads")
    db.session.remove()
    assert stored() == before
    for days in WINDOWS:
        assert stats.summary(days) == oracle(days), days


def test_the_migration_fills_and_drops_the_month_counts(app):
    migrate_down_and_up()


@pytest.mark.integration
def test_the_migration_fills_and_drops_the_month_counts_on_postgresql(pg_app):
    migrate_down_and_up()
    indexes = {ix["name"] for ix in db.inspect(db.engine).get_indexes("question")}
    assert "ix_question_viewer_decision_time" in indexes


def migrate_decision_days_down_and_up() -> None:
    """Migration 0052 down drops the decisions by day; up fills them from the questions as
    they are, equal to a recount, and the figures stay the questions' own."""
    from flask_migrate import downgrade, upgrade

    generate(300, seed=6)
    before = stored()
    assert before["decision_day"] and before == recount()
    db.session.remove()
    downgrade(revision="0051_question_city_count")
    tables = set(db.inspect(db.engine).get_table_names())
    assert "viewer_decision_day" not in tables
    assert "viewer_decision_month" in tables
    upgrade(revision="heads")
    db.session.remove()
    assert stored() == before
    for days in WINDOWS:
        assert stats.summary(days) == oracle(days), days


def test_the_migration_fills_and_drops_the_decisions_by_day(app):
    migrate_decision_days_down_and_up()


@pytest.mark.integration
def test_the_migration_fills_and_drops_the_decisions_by_day_on_postgresql(pg_app):
    migrate_decision_days_down_and_up()


def at_every_time_of_day(monkeypatch) -> None:
    """The same questions seen at five times of the day: the window's first day is cut
    early and late (its part inside or outside the window the shorter), each window's
    first month split on either side of its middle."""
    import tests.stats_counts

    generate(600, seed=7)
    assert stored() == recount()
    now = utcnow()
    for hours in (0, 5, 11, 17, 23):
        moved = now + timedelta(hours=hours, minutes=17)
        monkeypatch.setattr(stats, "utcnow", lambda moved=moved: moved)
        monkeypatch.setattr(tests.stats_counts, "utcnow", lambda moved=moved: moved)
        for days in WINDOWS:
            assert stats.summary(days) == oracle(days), (hours, days)


def test_the_statistics_at_every_time_of_day(make_app, monkeypatch):
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_TIMEZONE="Europe/Minsk")
    with app.app_context():
        at_every_time_of_day(monkeypatch)


@pytest.mark.integration
def test_the_statistics_at_every_time_of_day_on_postgresql(make_app, pg_url, monkeypatch):
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_DATABASE_URL=pg_url, SOVA_TIMEZONE="Europe/Minsk")
    with app.app_context():
        at_every_time_of_day(monkeypatch)
        db.session.remove()
        db.engine.dispose()


def test_the_first_month_is_read_by_at_most_fifteen_days():
    """Whatever the day, the day rows read (added or taken off the month's row) cover the
    month's days from ``day`` on, and are never more than 15 days."""
    from datetime import date

    day = date(2024, 1, 1)
    while day < date(2027, 1, 1):
        p = stats.days_from(day)
        read = (p["d_to"] - p["d_from"]).days
        assert 0 <= read <= 15, (day, p)
        month_days = {p["d_from"] + timedelta(days=n) for n in range(read)}
        if p["d_sign"] == 1:
            next_month = (day.replace(day=1) + timedelta(days=32)).replace(day=1)
            assert p["d_from"] == day and p["m_from"] == p["d_to"] == next_month
        else:
            assert p["m_from"] == p["d_from"] == day.replace(day=1) and p["d_to"] == day
            assert all(d < day for d in month_days)
        day += timedelta(days=1)
