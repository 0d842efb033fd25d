"""The restore drill on PostgreSQL (``pg_dump`` / ``pg_restore`` of the server's major
version). Skipped without SOVA_TEST_DATABASE_URL; fails under CI=true."""

from __future__ import annotations

import pytest

from tests.helpers import COMMISSION
from tests.webapp.prizes.backup_drill import drill
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


def test_restore_drill_postgresql(app, api, played, drain, tmp_path):
    from webapp.backup import pg_tool

    version = db.session.connection().dialect.server_version_info[0]
    db.session.rollback()
    assert pg_tool("pg_dump") in (
        f"/usr/lib/postgresql/{version}/bin/pg_dump",
        __import__("shutil").which("pg_dump"),
    )
    (tmp_path / "backups").mkdir()
    drill(app, api, played, drain, tmp_path / "backups")


def test_a_sqlite_backup_is_refused_by_a_postgresql_instance(app, make_app, tmp_path):
    sqlite_app = make_app(WTF_CSRF_ENABLED=False)
    with sqlite_app.app_context():
        made = sqlite_app.test_cli_runner().invoke(args=["backup", str(tmp_path / "s.tar.gz.enc")])
        assert made.exit_code == 0, made.output
    result = app.test_cli_runner().invoke(args=["restore", "--yes", str(tmp_path / "s.tar.gz.enc")])
    assert result.exit_code == 2
    assert "the archive holds a sqlite database; this instance runs on postgresql" in result.output
