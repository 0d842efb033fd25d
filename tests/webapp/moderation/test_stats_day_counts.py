"""The statistics' day counts (``viewer_question_day``) are kept exact by every writer:
on a varied data set (days on both sides of local midnights, every channel, statuses
reached through the state machine, decisions, a first author's city corrected, a later
first author, a merge, a question deleted, one moved to another day, a packet imported
under a viewer channel, viewer submissions through the real intake: the one-statement
intake on PostgreSQL, the ORM elsewhere) the page's figures for every window equal those
of the per-question computation (:func:`per_question` and :func:`decisions`, the
statistics before the day counts: the test's oracle), and the rows equal a recount from
scratch (as migration 0044 fills them)."""

from __future__ import annotations

import secrets
import statistics
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from flask import current_app
from sqlalchemy import func, select

from tests.stats_counts import city_counts, oracle, recount, stored
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation import stats
from webapp.submissions.models import (
    Author,
    Question,
    QuestionAuthor,
    QuestionStatusChange,
    set_status,
)
from webapp.tasks.outbox import commit

WINDOWS = (1, 2, 3, 7, 30, 100, 366, 800)


def per_question(days: int) -> dict:
    """The figures of :func:`stats.summary` but the time to decision, computed question by
    question in Python from the questions and their first authors (the oracle)."""
    return {k: v for k, v in oracle(days).items() if k != "decision_hours"}


def decisions(days: int) -> dict:
    """The time to decision question by question from the status history (the oracle):
    each viewer question's earliest change to approved or rejected."""
    since = utcnow() - timedelta(days=days)
    first: dict[int, tuple[datetime, datetime]] = {}
    for qid, created, at in db.session.execute(
        select(Question.id, Question.created_at, QuestionStatusChange.at)
        .join(QuestionStatusChange, QuestionStatusChange.question_id == Question.id)
        .where(
            Question.channel != "archive",
            Question.created_at >= since,
            QuestionStatusChange.to_status.in_(("approved", "rejected")),
        )
    ):
        if qid not in first or at < first[qid][1]:
            first[qid] = (created, at)
    hours = sorted((at - created).total_seconds() / 3600 for created, at in first.values())
    if not hours:
        return {"count": 0, "median": None, "mean": None}
    return {
        "count": len(hours),
        "median": round(statistics.median(hours), 1),
        "mean": round(statistics.fmean(hours), 1),
    }


def assert_exact() -> None:
    assert stored() == recount()
    assert stored()["city"] == city_counts()
    for days in WINDOWS:
        figures = stats.summary(days)
        assert figures.pop("decision_hours") == decisions(days), days
        assert figures == per_question(days), days


def question(n: int, created: datetime, channel: str, authors: list[tuple[Author, str | None]]):
    q = Question(
        public_token=secrets.token_urlsafe(24),
        text=f"Вопрос {n}",
        answer="Ответ",
        sources=[],
        channel=channel,
        status="received",
        matching_key=f"вопрос {n}",
        created_at=created,
    )
    for position, (author, city) in enumerate(authors):
        q.authors.append(
            QuestionAuthor(author=author, position=position, name=author.name, city=city)
        )
    db.session.add(q)
    return q


def walk(q: Question, *statuses: str, by: int) -> None:
    """Through the state machine, each change recorded as a decision would be."""
    for to in statuses:
        set_status(q, to, by)


def build_and_check() -> None:
    from tests.scale_data import archive_packet
    from webapp.accounts.operations import create_user
    from webapp.authors.operations import merge_authors
    from webapp.domain.packets import parse_packet
    from webapp.moderation.bulk_import import import_archive
    from webapp.moderation.operations.decisions import decide
    from webapp.moderation.operations.editing import correct_author
    from webapp.submissions.operations import AuthorInput, SubmissionInput, intake

    chief = create_user("chief@test.local", "chief_editor", password="chief-pw")[0].id
    zone = ZoneInfo(current_app.config["SOVA_TIMEZONE"])
    now = utcnow()
    midnight = datetime.combine(now.astimezone(zone).date(), time(0), zone)
    people = [Author(name=f"Автор {i}", city=None) for i in range(6)]
    db.session.add_all(people)
    db.session.flush()
    a, b, c, d, e, f = people
    # (created, channel, authors as [(author, city on this question)])
    spec = [
        (midnight + timedelta(minutes=30), "web", [(a, "Гродно")]),
        (midnight - timedelta(minutes=30), "web", [(b, "Гродно"), (c, "Брест")]),
        (midnight - timedelta(days=1, minutes=1), "mail", [(c, "Брест")]),
        (midnight - timedelta(days=1, hours=-23, minutes=-59), "api", [(d, None)]),
        (midnight - timedelta(days=2, hours=-12), "mail", [(e, "")]),
        (midnight - timedelta(days=3, hours=-1), "partner", [(a, "Минск")]),
        (midnight - timedelta(days=29, hours=-2), "api", [(f, "Минск"), (a, "Пинск")]),
        (midnight - timedelta(days=40), "import", [(b, "Брест")]),
        (midnight - timedelta(days=200, minutes=10), "web", [(c, "Гомель")]),
        (now - timedelta(days=365, hours=23), "web", [(d, "Гомель")]),
        (now - timedelta(days=366, minutes=-5), "mail", [(e, "Гомель")]),
        (now - timedelta(days=366, minutes=5), "mail", [(e, "Гомель")]),
        (now - timedelta(days=1, minutes=-5), "web", [(f, "Гродно")]),
        (now - timedelta(days=1, minutes=5), "web", [(f, "Гродно")]),
        (now + timedelta(days=2), "web", [(a, "Гродно")]),  # a clock ahead
        (midnight - timedelta(days=1), "archive", [(b, "Гродно")]),
    ]
    qs = [question(n, *row) for n, row in enumerate(spec, 1)]
    commit()
    assert_exact()

    walk(qs[0], "prechecked", "in_review", by=chief)
    decide(qs[0], "approve", chief)
    walk(qs[1], "prechecked", "in_review", by=chief)
    decide(qs[1], "reject", chief)
    walk(qs[2], "prechecked", "in_review", by=chief)
    decide(qs[2], "reject", chief)
    decide(qs[2], "approve", chief)  # a revised decision
    walk(qs[3], "withdrawn", by=chief)
    walk(qs[4], "prechecked", by=chief)
    walk(qs[5], "prechecked", "in_review", "approved", "assigned", "played", by=chief)
    walk(qs[6], "prechecked", "in_review", "approved", "assigned", "played", "unanswered", by=chief)
    walk(qs[7], "prechecked", "in_review", "rejected", by=chief)
    walk(qs[8], "prechecked", "in_review", "approved", by=chief)
    walk(qs[9], "prechecked", "in_review", "rejected", by=chief)
    walk(qs[10], "prechecked", "in_review", "approved", by=chief)
    walk(qs[12], "prechecked", "in_review", "approved", by=chief)
    commit()
    assert_exact()

    # the first author's city corrected; a co-author's too (no first author's city moves)
    assert correct_author(qs[0], 0, "Автор 0", "Пинск", chief)
    assert correct_author(qs[1], 1, "Автор 2", "Лида", chief)
    # a later link at position 0 is the first author the statistics take
    qs[8].authors.append(QuestionAuthor(author=e, position=0, name=e.name, city="Орша"))
    db.session.delete(qs[13])
    qs[11].created_at = now - timedelta(days=2)  # moved to another day
    commit()
    assert_exact()
    merge_authors(c.id, b.id, chief)  # the links keep the city as given: nothing moves
    commit()
    assert_exact()

    # viewers through the real intake (PostgreSQL: the one statement), a packet imported
    # under a viewer channel (Core inserts)
    for n, (channel, city) in enumerate([("web", "Минск"), ("api", None), ("mail", "Брест")]):
        intake.receive(
            SubmissionInput(
                question=f"Какой город стоит на Немане? Вариант {n}",
                answer="Гродно",
                authors=[AuthorInput(f"Зритель {n}", city)],
                email=f"viewer{n}@example.org" if channel != "mail" else None,
                consent=True,
                age_confirmed=True,
                channel=channel,
                postmark_date=midnight.date() if channel == "mail" else None,
            )
        )
        commit()
    import_archive(parse_packet(archive_packet(12, seed=3)), channel="import", origin="p.4s")
    commit()
    assert_exact()


def test_day_counts_equal_the_per_question_figures(app):
    build_and_check()


@pytest.mark.integration
def test_day_counts_equal_the_per_question_figures_on_postgresql(pg_app):
    assert db.session.get_bind().dialect.name == "postgresql"
    build_and_check()


def migrate_down_and_up() -> None:
    """Migration 0044 down drops the table; up fills it from the questions as they are."""
    from flask_migrate import downgrade, upgrade

    build_and_check()
    before = stored()
    db.session.remove()
    downgrade(revision="0043_question_text_hash")
    assert "viewer_question_day" not in db.inspect(db.engine).get_table_names()
    upgrade(revision="heads")
    db.session.remove()
    assert stored() == before == recount()
    assert_exact()


def test_the_migration_fills_and_drops_the_day_counts(app):
    migrate_down_and_up()


@pytest.mark.integration
def test_the_migration_fills_and_drops_the_day_counts_on_postgresql(pg_app):
    assert db.session.get_bind().dialect.name == "postgresql"
    migrate_down_and_up()


def recount_in_another_zone() -> None:
    """After SOVA_TIMEZONE changes, the day counts are the old zone's until ``sova stats
    recount`` counts them again; then the figures equal the per-question ones in the new
    zone, for every window."""
    from webapp.submissions.cli import stats as stats_command

    build_and_check()
    current_app.config["SOVA_TIMEZONE"] = "Pacific/Kiritimati"  # +14: most days move
    db.session.remove()
    assert stored() != recount()
    result = current_app.test_cli_runner().invoke(stats_command, ["recount"])
    assert result.exit_code == 0, result.output
    viewer = db.session.scalar(
        select(func.count()).select_from(Question).where(Question.channel != "archive")
    )
    assert result.output == f"{viewer} viewer question(s) counted by day in Pacific/Kiritimati\n"
    db.session.remove()
    assert_exact()


def test_the_recount_follows_a_new_time_zone(app):
    recount_in_another_zone()


@pytest.mark.integration
def test_the_recount_follows_a_new_time_zone_on_postgresql(pg_app):
    assert db.session.get_bind().dialect.name == "postgresql"
    recount_in_another_zone()


def decision_indexes() -> set[str]:
    db.session.remove()
    return {ix["name"] for ix in db.inspect(db.engine).get_indexes("question_status_change")}


def test_the_decisions_history_index_is_gone_and_comes_back_down(app):
    """Migration 0045 drops the index the statistics no longer read; down makes it again."""
    from flask_migrate import downgrade, upgrade

    assert "ix_question_status_change_decided" not in decision_indexes()
    downgrade(revision="0044_viewer_question_day")
    assert "ix_question_status_change_decided" in decision_indexes()
    upgrade(revision="heads")
    assert "ix_question_status_change_decided" not in decision_indexes()
