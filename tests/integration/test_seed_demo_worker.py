"""``sova seed-demo`` beside a running worker.

``seed-demo`` imports the demo pool as submissions (each queues ``moderation.precheck``,
sent to Redis at the commit: ``SOVA_OUTBOX_AUTOSEND=1``) and then pre-checks every question
itself, while a real Celery worker on the same PostgreSQL database pre-checks the same
questions from the queue. Two pre-checks of one question at once must be harmless: exit 0,
the 50 demo questions approved and signed off, one report each, each question's duplicate
index exactly what one pre-check writes; a second run adds nothing. Needs
SOVA_TEST_DATABASE_URL and SOVA_TEST_REDIS_URL (skipped without them, failed under CI=true).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import celery_worker, wait_for

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SOVA = Path(sys.executable).parent / "sova"
POOL_SIZE = 50  # questions in webapp/demo/demo_pool.4s


@pytest.fixture
def worker_env(pg_url, redis_url, tmp_path):
    """The SOVA_* environment on a fresh PostgreSQL database and Redis, with a real
    ``celery worker`` process running on it (ready before the test starts), and its log."""
    env = dict(
        os.environ,
        SOVA_DATABASE_URL=pg_url,
        SOVA_BROKER_URL=redis_url,
        SOVA_REDIS_URL=redis_url,
        SOVA_INSTANCE_PATH=str(tmp_path / "instance"),
        SOVA_OUTBOX_AUTOSEND="1",
    )
    log_path = tmp_path / "worker.log"
    log = open(log_path, "w")  # closed in the finally below
    worker = celery_worker(env, log)
    try:
        wait_for(lambda: " ready." in log_path.read_text(), 60, "the worker to be ready")
        yield env, log_path
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        log.close()


def seed_demo(env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SOVA), "seed-demo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_seed_demo_beside_a_running_worker_builds_the_whole_pool(worker_env, pg_url):
    import sqlalchemy as sa

    from webapp.moderation.duplicates import index_rows

    env, log_path = worker_env
    first = seed_demo(env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Demo pool: 50 questions from demo_pool.4s approved by editor@sova.local" in (
        first.stdout
    )

    # the worker consumed every pre-check seed-demo queued, without an error
    # (the worker logs "Task moderation.precheck[<id>] received", then "… succeeded in"
    # or "… raised unexpected")
    def worker_done():
        text = log_path.read_text()
        return (
            len(re.findall(r"moderation\.precheck\[\S+\] (?:succeeded|raised)", text))
            >= (POOL_SIZE)
            and text
        )

    log = wait_for(worker_done, 60, "the worker's 20 pre-checks")
    assert len(re.findall(r"moderation\.precheck\[\S+\] succeeded in", log)) == POOL_SIZE, log
    assert "raised unexpected" not in log and "IntegrityError" not in log, log

    engine = sa.create_engine(pg_url)

    def state(conn) -> dict:
        counts = {
            table: conn.execute(
                sa.select(sa.func.count()).select_from(sa.table(table))
            ).scalar_one()
            for table in (
                "question",
                "moderation_report",
                "duplicate_bucket",
                "question_signoff",
                "question_status_change",
                "user",
            )
        }
        return counts

    try:
        with engine.connect() as conn:
            pool = conn.execute(
                sa.text(
                    "SELECT q.id, q.status, q.matching_key, s.user_id, u.email"
                    " FROM question q"
                    " LEFT JOIN question_signoff s ON s.question_id = q.id"
                    ' LEFT JOIN "user" u ON u.id = s.user_id'
                    " WHERE q.origin LIKE 'demo_pool.4s#%' ORDER BY q.id"
                )
            ).all()
            assert len(pool) == POOL_SIZE
            assert {row.status for row in pool} == {"approved"}
            assert {row.email for row in pool} == {"chief-editor@sova.local"}
            ids = [row.id for row in pool]
            reports = dict(
                conn.execute(
                    sa.text(
                        "SELECT question_id, count(*) FROM moderation_report"
                        " WHERE question_id = ANY(:ids) GROUP BY question_id"
                    ),
                    {"ids": ids},
                ).all()
            )
            assert reports == dict.fromkeys(ids, 1)
            buckets = dict(
                conn.execute(
                    sa.text(
                        "SELECT question_id, count(*) FROM duplicate_bucket"
                        " WHERE question_id = ANY(:ids) GROUP BY question_id"
                    ),
                    {"ids": ids},
                ).all()
            )
            # exactly the rows one pre-check writes for the question, no more, none missing
            assert buckets == {row.id: len(index_rows(row.id, row.matching_key)) for row in pool}
            assert all(n > 0 for n in buckets.values())
            before = state(conn)

        second = seed_demo(env)
        assert second.returncode == 0, second.stdout + second.stderr
        assert "Demo staff users exist already" in second.stdout
        assert "Demo pool:" not in second.stdout
        with engine.connect() as conn:
            assert state(conn) == before
    finally:
        engine.dispose()
