"""The idle-connection ping (``webapp.core.pool``) on PostgreSQL: a pooled connection whose
server process was killed while it sat idle is replaced at checkout, so the viewer sees
nothing; one used a moment ago is not pinged, and its next request answers 503 once
(skipped without SOVA_TEST_DATABASE_URL; fails under CI=true)."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa


def app_on(pg_url, tmp_path, idle_seconds: float):
    from webapp.app import create_app

    return create_app(
        {
            "SOVA_DATABASE_URL": pg_url,
            "SOVA_BROKER_URL": "memory://",
            "SOVA_INSTANCE_PATH": str(tmp_path / "instance"),
            "TESTING": True,
            "PROPAGATE_EXCEPTIONS": False,
            "SOVA_DB_PING_IDLE_SECONDS": idle_seconds,
        }
    )


def kill_app_connections(pg_url) -> int:
    """Terminate every server process of the test database but our own; returns how many."""
    admin = sa.create_engine(pg_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        killed = conn.execute(
            sa.text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        ).scalar()
    admin.dispose()
    time.sleep(0.2)  # the server processes exit
    return killed


@pytest.mark.parametrize("idle_seconds, after_kill", [(0.1, [200, 200]), (60, [503, 200])])
def test_a_connection_killed_while_idle(pg_url, tmp_path, idle_seconds, after_kill):
    """Idle longer than ``idle_seconds``: pinged, replaced, 200. Used 0.2 s ago with a
    60 s threshold: not pinged (so no round trip under load), hence one 503, then 200."""
    app = app_on(pg_url, tmp_path, idle_seconds)
    client = app.test_client()
    assert client.get("/healthz").status_code == 200  # one connection now in the pool
    assert kill_app_connections(pg_url) == 1
    codes = [client.get("/healthz").status_code for _ in range(2)]
    assert codes == after_kill
    if after_kill[0] == 503:
        assert client.get("/healthz").get_json() == {"status": "ok", "database": "ok"}
    with app.app_context():
        from webapp.extensions import db

        db.engine.dispose()
