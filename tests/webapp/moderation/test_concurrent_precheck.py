"""Two pre-checks of one question at once must be harmless. On
PostgreSQL, the second transaction's duplicate-index rows wait for the first's and, once it
commits, add nothing (ON CONFLICT DO NOTHING) instead of failing with an IntegrityError
(which made ``sova seed-demo`` fail beside a running worker). Skipped without
SOVA_TEST_DATABASE_URL; fails under CI=true. The app is the shared ``pg_app`` (tests/fixtures/services.py);
each thread pushes its own app context, so each has its own session."""

from __future__ import annotations

import threading
import time

import sqlalchemy as sa

from webapp.extensions import db

QUESTION = (
    "Какой город называют северной столицей России? Назовите его одним словом, "
    "как его называли в 1914–1924 годах."
)


def _received(pg_app) -> int:
    """The id of a viewer's question received through the API (committed, not pre-checked)."""
    from webapp.submissions.operations import AuthorInput, SubmissionInput, receive
    from webapp.tasks.outbox import commit

    with pg_app.app_context():
        qid = receive(
            SubmissionInput(
                question=QUESTION,
                answer="Петроград",
                authors=[AuthorInput("Иван", "Минск")],
                email="ivan@example.com",
                consent=True,
                channel="api",
            )
        ).id
        commit()
    return qid


def test_two_prechecks_of_one_question_at_once(pg_app):
    from webapp.moderation.duplicates import buckets, ensure_indexed
    from workers.moderation import precheck

    qid = _received(pg_app)

    first_wrote = threading.Event()
    release = threading.Event()
    errors: list[BaseException] = []

    def first():
        with pg_app.app_context():
            try:
                assert ensure_indexed(qid)
                first_wrote.set()
                release.wait(30)
                db.session.commit()
            except BaseException as exc:  # noqa: BLE001 — reported by the test
                errors.append(exc)
                first_wrote.set()
            finally:
                db.session.remove()

    def second():
        with pg_app.app_context():
            try:
                first_wrote.wait(30)
                precheck(qid)  # the whole task: the index rows wait for the first's
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)
            finally:
                db.session.remove()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    first_wrote.wait(30)
    time.sleep(1.0)  # the second pre-check is now blocked on the first's uncommitted rows
    release.set()
    for t in threads:
        t.join(60)
    assert errors == []
    with pg_app.app_context():
        rows = db.session.execute(
            sa.text(
                "SELECT count(*), count(DISTINCT bucket) FROM duplicate_bucket "
                "WHERE question_id = :q"
            ),
            {"q": qid},
        ).one()
        key = db.session.scalar(
            sa.text("SELECT matching_key FROM question WHERE id = :q"), {"q": qid}
        )
        assert rows[0] == rows[1] == len(buckets(key)) > 0  # one set of rows, not two
        status = db.session.scalar(sa.text("SELECT status FROM question WHERE id = :q"), {"q": qid})
        assert status in ("prechecked", "in_review")
        reports = db.session.scalar(
            sa.text("SELECT count(*) FROM moderation_report WHERE question_id = :q"), {"q": qid}
        )
        assert reports == 1


def test_two_reports_of_one_question_at_once(pg_app):
    """The last race: the first pre-check has written its report (not yet committed)
    when a second one starts. The second waits on the question's row lock and, once the
    first commits, finds the report: one report, no IntegrityError on
    ``moderation_report (question_id, version)``, the status moved once."""
    from webapp.moderation.duplicates import ensure_indexed
    from webapp.moderation.operations import precheck as precheck_op
    from webapp.tasks.outbox import commit
    from workers.moderation import precheck

    qid = _received(pg_app)
    with pg_app.app_context():
        assert ensure_indexed(qid)  # the index rows committed, as the task's first step does
        commit()

    first_wrote = threading.Event()
    release = threading.Event()
    second_done = threading.Event()
    errors: list[BaseException] = []
    report_ids: list[int | None] = []

    def first():
        with pg_app.app_context():
            try:
                report = precheck_op(qid)  # report flushed, transaction left open
                first_wrote.set()
                release.wait(30)
                db.session.commit()
                report_ids.append(report.id if report else None)
            except BaseException as exc:  # noqa: BLE001 — reported by the test
                errors.append(exc)
                first_wrote.set()
            finally:
                db.session.remove()

    def second():
        with pg_app.app_context():
            try:
                first_wrote.wait(30)
                report_ids.append(precheck(qid))  # the whole task
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)
            finally:
                second_done.set()
                db.session.remove()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    first_wrote.wait(30)
    # the second pre-check waits for the first's transaction instead of inserting its own
    assert not second_done.wait(1.0)
    release.set()
    for t in threads:
        t.join(60)
    assert errors == []
    assert len(report_ids) == 2 and report_ids[0] == report_ids[1] is not None
    with pg_app.app_context():
        reports = db.session.scalar(
            sa.text("SELECT count(*) FROM moderation_report WHERE question_id = :q"), {"q": qid}
        )
        assert reports == 1
        changes = (
            db.session.execute(
                sa.text(
                    "SELECT to_status FROM question_status_change WHERE question_id = :q ORDER BY id"
                ),
                {"q": qid},
            )
            .scalars()
            .all()
        )
        assert changes.count("in_review") == 1
