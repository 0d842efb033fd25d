"""The restore drill (issue 16): a game played and closed, its gift agreements rendered;
``sova backup``; the database and the folders destroyed; ``sova restore``; every question,
prize, agreement and document row and every file byte-identical. Damaged archives: a clear
message, exit 2, nothing changed. SQLite here; PostgreSQL in test_backup_postgres.py."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from pathlib import Path

import sqlalchemy as sa

from tests.helpers import VIEWERS_WIN
from webapp.extensions import db

TABLES = (
    "question",
    "question_author",
    "author",
    "prize",
    "gift_agreement",
    "document",
    "moderation_report",
    "game",
    "outbox_message",
    "mail_log",
)


def snapshot(app) -> dict:
    """Every row of :data:`TABLES` (ordered by id) and every file of the two folders."""
    db.session.remove()
    rows = {}
    with db.engine.connect() as conn:
        for name in TABLES:
            table = sa.Table(name, sa.MetaData(), autoload_with=conn)
            rows[name] = [
                tuple(r)
                for r in conn.execute(sa.select(table).order_by(*table.primary_key.columns))
            ]
    files = {}
    for folder in (
        Path(app.config["SOVA_DOCUMENTS_PATH"]),
        Path(app.config["SOVA_INSTANCE_PATH"]) / "uploads",
    ):
        files.update({str(p): p.read_bytes() for p in folder.rglob("*") if p.is_file()})
    return {"rows": rows, "files": files}


def make_instance(app, api, played, drain) -> dict:
    game = played("qualifying", VIEWERS_WIN)
    closed = api("post", f"/api/v1/games/{game}/close", role="producer")
    assert closed.status_code == 200, closed.json
    drain()
    uploads = Path(app.config["SOVA_INSTANCE_PATH"]) / "uploads" / "scans"
    uploads.mkdir(parents=True)
    (uploads / "letter-1.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    state = snapshot(app)
    # six unanswered questions, the first by two co-authors: seven prizes and agreements
    assert len(state["rows"]["prize"]) == 7 and len(state["rows"]["gift_agreement"]) == 7
    assert len(state["rows"]["question"]) == 13
    pdfs = [f for f in state["files"] if f.endswith(".pdf")]
    assert len(pdfs) == 7 and all(state["files"][f].startswith(b"%PDF") for f in pdfs)
    return state


def destroy(app) -> None:
    db.session.remove()
    db.drop_all()
    with db.engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE IF EXISTS alembic_version"))
    shutil.rmtree(app.config["SOVA_DOCUMENTS_PATH"])
    shutil.rmtree(Path(app.config["SOVA_INSTANCE_PATH"]) / "uploads")


def rewrite(archive: Path, out: Path, change) -> Path:
    """A copy of ``archive`` with ``change(name, data) -> data`` applied to every member."""
    with tarfile.open(archive) as src, tarfile.open(out, "w:gz") as dst:
        for member in src:
            data = change(member.name, src.extractfile(member).read())
            member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
    return out


def drill(app, api, played, drain, tmp_path) -> None:
    before = make_instance(app, api, played, drain)
    runner = app.test_cli_runner()
    made = runner.invoke(args=["backup", str(tmp_path)])
    assert made.exit_code == 0, made.output
    archive = next(tmp_path.glob("sova-backup-*.tar.gz"))
    assert f"backup written: {archive}" in made.output
    with tarfile.open(archive) as tar:
        manifest = json.load(tar.extractfile("manifest.json"))
        names = set(tar.getnames())
    assert names == set(manifest["files"]) | {"manifest.json"}
    assert sum(n.startswith("documents/gift_agreement/") for n in names) == 7
    assert "uploads/scans/letter-1.png" in names
    assert manifest["database"]["dialect"] == db.engine.dialect.name

    # damaged archives: exit 2, a clear message, nothing changed
    raw = archive.read_bytes()
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(raw[: len(raw) // 2])
    flipped = tmp_path / "flipped.tar.gz"
    flipped.write_bytes(raw[:2000] + bytes([raw[2000] ^ 0xFF]) + raw[2001:])
    tampered = rewrite(
        archive,
        tmp_path / "tampered.tar.gz",
        lambda name, data: (
            data.replace(b"%PDF", b"%PDX", 1) if name.startswith("documents/") else data
        ),
    )
    foreign = tmp_path / "foreign.tar.gz"
    with tarfile.open(foreign, "w:gz") as tar:
        info = tarfile.TarInfo("etc/passwd")
        tar.addfile(info, io.BytesIO(b""))
    expected = {
        truncated: "damaged archive",
        flipped: "",
        tampered: "does not match its SHA-256",
        foreign: "unexpected member 'etc/passwd'",
    }
    for bad, message in expected.items():
        result = runner.invoke(args=["restore", "--yes", str(bad)])
        assert result.exit_code == 2, (bad, result.output)
        assert result.output.startswith(f"Error: {bad}: ") and message in result.output
    missing = runner.invoke(args=["restore", "--yes", str(tmp_path / "nope.tar.gz")])
    assert missing.exit_code == 2 and "no such file" in missing.output
    assert snapshot(app) == before

    exists = runner.invoke(args=["backup", str(archive)])
    assert exists.exit_code == 2 and "exists already" in exists.output

    destroy(app)
    restored = runner.invoke(args=["restore", "--yes", str(archive)])
    assert restored.exit_code == 0, restored.output
    assert "restored the backup of" in restored.output
    after = snapshot(app)
    assert after["rows"] == before["rows"]
    assert after["files"] == before["files"]
    # the restored instance works: the status pages and the API read it
    assert api("get", "/api/v1/questions?status=assigned", role="editor").status_code == 200


def test_restore_drill_sqlite(app, api, played, drain, tmp_path):
    assert db.engine.dialect.name == "sqlite"
    (tmp_path / "backups").mkdir()
    drill(app, api, played, drain, tmp_path / "backups")


def test_restore_asks_before_replacing(app, tmp_path):
    runner = app.test_cli_runner()
    made = runner.invoke(args=["backup", str(tmp_path / "b.tar.gz")])
    assert made.exit_code == 0, made.output
    declined = runner.invoke(args=["restore", str(tmp_path / "b.tar.gz")], input="n\n")
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
