"""The restore drill: a game played and closed, its gift agreements rendered;
``sova backup``; the database and the folders destroyed; ``sova restore``; every question,
prize, agreement and document row and every file byte-identical. Damaged, altered,
unsigned or foreign archives, and archives of another backup key: a clear message, exit 2,
nothing changed. SQLite here; PostgreSQL in test_backup_postgres.py."""

from __future__ import annotations

from pathlib import Path

from tests.webapp.prizes.backup_drill import drill
from webapp.extensions import db


def test_restore_drill_sqlite(app, api, played, drain, tmp_path):
    assert db.engine.dialect.name == "sqlite"
    (tmp_path / "backups").mkdir()
    drill(app, api, played, drain, tmp_path / "backups")


def test_restore_asks_before_replacing(app, tmp_path):
    runner = app.test_cli_runner()
    made = runner.invoke(args=["backup", str(tmp_path / "b.tar.gz.enc")])
    assert made.exit_code == 0, made.output
    declined = runner.invoke(args=["restore", str(tmp_path / "b.tar.gz.enc")], input="n\n")
    assert declined.exit_code == 1 and "Replace this instance's database" in declined.output
    assert "Aborted" in declined.output


def test_backup_into_a_folder_deletes_archives_past_retention(app, tmp_path):
    """The backup retention the privacy notice states (SOVA_BACKUP_RETENTION_DAYS, 35 by
    default): `sova backup FOLDER` deletes that folder's archives older than it, and only
    those (a younger archive and other files stay)."""
    from datetime import UTC, datetime, timedelta

    from webapp.backup import ARCHIVE_NAME

    now = datetime.now(UTC)
    old = tmp_path / (now - timedelta(days=36)).strftime(ARCHIVE_NAME)
    young = tmp_path / (now - timedelta(days=34)).strftime(ARCHIVE_NAME)
    other = tmp_path / "notes.txt"
    for path in (old, young, other):
        path.write_bytes(b"x")
    assert app.config["SOVA_BACKUP_RETENTION_DAYS"] == 35
    result = app.test_cli_runner().invoke(args=["backup", str(tmp_path)])
    assert result.exit_code == 0, result.output
    left = sorted(p.name for p in tmp_path.iterdir())
    assert old.name not in left and young.name in left and other.name in left
    assert len([n for n in left if n.startswith("sova-backup-")]) == 2


def test_backup_into_a_missing_folder_creates_it_or_refuses(app, tmp_path):
    """``sova backup DIR/`` into a folder that does not exist creates it (with its parents)
    and writes the archive in it; ``sova backup DIR`` (no slash, no suffix) is refused with
    the two ways to say what was meant, and writes no file named like the folder."""
    runner = app.test_cli_runner()
    made = runner.invoke(args=["backup", f"{tmp_path}/new/backups/"])
    assert made.exit_code == 0, made.output
    archives = list((tmp_path / "new" / "backups").iterdir())
    assert len(archives) == 1 and archives[0].name.startswith("sova-backup-")
    assert archives[0].name.endswith(".tar.gz.enc")
    refused = runner.invoke(args=["backup", str(tmp_path / "other")])
    assert refused.exit_code == 2
    assert refused.output == (
        f"Error: {tmp_path}/other does not exist: to back up into a new folder, end it with a "
        f"slash ({tmp_path}/other/); to name the archive, give it a suffix "
        f"({tmp_path}/other.tar.gz.enc)\n"
    )
    assert not (tmp_path / "other").exists()


def test_restore_needs_the_backup_key_kept_apart(app, make_app, tmp_path):
    """The key that encrypts and signs archives is not in them: an instance without it
    cannot read an archive (exit 2, nothing changed), one given it by SOVA_BACKUP_KEY can;
    a wrong SOVA_BACKUP_KEY names both key ids."""
    from webapp.backup import backup_key, key_id, new_backup_key

    made = app.test_cli_runner().invoke(args=["backup", str(tmp_path / "b.tar.gz.enc")])
    assert made.exit_code == 0, made.output
    key_file = Path(app.config["SOVA_INSTANCE_PATH"]) / "backup_key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    text = key_file.read_text().strip()
    assert text.encode() not in (tmp_path / "b.tar.gz.enc").read_bytes()
    fresh = make_app(WTF_CSRF_ENABLED=False, SOVA_INSTANCE_PATH=str(tmp_path / "fresh"))
    with fresh.app_context():
        db.create_all()
        result = fresh.test_cli_runner().invoke(
            args=["restore", "--yes", str(tmp_path / "b.tar.gz.enc")]
        )
        assert result.exit_code == 2
        assert "no backup key: set SOVA_BACKUP_KEY or put the key in" in result.output
        assert not (tmp_path / "fresh" / "backup_key").exists()
        wrong = new_backup_key()
        fresh.config["SOVA_BACKUP_KEY"] = wrong
        result = fresh.test_cli_runner().invoke(
            args=["restore", "--yes", str(tmp_path / "b.tar.gz.enc")]
        )
        assert result.exit_code == 2
        wrong_id = key_id(__import__("base64").urlsafe_b64decode(wrong))
        with app.app_context():
            right_id = key_id(backup_key())
        assert (
            f"made with another backup key (key id {right_id}; this instance's key id "
            f"{wrong_id})" in result.output
        )
        fresh.config["SOVA_BACKUP_KEY"] = text
        result = fresh.test_cli_runner().invoke(
            args=["restore", "--yes", str(tmp_path / "b.tar.gz.enc")]
        )
        assert result.exit_code == 0, result.output
        db.session.remove()


def test_backup_under_a_name_not_ending_in_tar_gz_enc_is_refused(app, tmp_path):
    """``sova backup FILE.tar`` would put the encrypted archive under a plain tar's name:
    refused (exit 2) with the name to give; nothing is written."""
    result = app.test_cli_runner().invoke(args=["backup", str(tmp_path / "FILE.tar")])
    assert result.exit_code == 2
    assert result.output == (
        f"Error: {tmp_path}/FILE.tar: an archive's name ends in .tar.gz.enc (a gzip-compressed "
        f"tar, encrypted; it cannot be opened as .tar): give {tmp_path}/FILE.tar.gz.enc\n"
    )
    assert not (tmp_path / "FILE.tar").exists()
    assert not list(tmp_path.glob("*.tar*")) and not list(tmp_path.glob(".*partial"))
