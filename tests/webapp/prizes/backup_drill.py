"""The restore drill shared by the SQLite and the PostgreSQL test (tests/webapp/prizes/
test_backup.py, test_backup_postgres.py): a game played and closed, its gift agreements
rendered; ``sova backup``; damaged, altered, unsigned or foreign archives refused; the
database and the folders destroyed; ``sova restore``; every row and file byte-identical."""

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


def rewrite(archive: Path, out: Path, change, key: bytes | None = None) -> Path:
    """A copy of the encrypted ``archive`` with ``change(name, data) -> data`` applied to
    every member of its tar, encrypted again with ``key`` (None: left as a plain tar.gz)."""
    from webapp.backup import backup_key, decrypt_file, encrypt_file

    plain = out.with_name(out.name + ".plain")
    decrypt_file(archive, plain, backup_key())
    changed = out.with_name(out.name + ".changed")
    with tarfile.open(plain) as src, tarfile.open(changed, "w:gz") as dst:
        for member in src:
            data = change(member.name, src.extractfile(member).read())
            member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
    if key is None:
        changed.rename(out)
    else:
        encrypt_file(changed, out, key)
    return out


def members(archive: Path) -> dict[str, bytes]:
    """``{name: bytes}`` of the encrypted ``archive``'s tar (read with the backup key)."""
    from webapp.backup import backup_key, decrypt_file

    plain = archive.with_name(archive.name + ".read")
    decrypt_file(archive, plain, backup_key())
    try:
        with tarfile.open(plain) as tar:
            return {m.name: tar.extractfile(m).read() for m in tar}
    finally:
        plain.unlink()


def altered_document(name: str, data: bytes, manifest: dict) -> bytes:
    """The attack on an archive: one agreement changed and its SHA-256 in the manifest
    recomputed (the manifest's signature left as it was: it needs the key)."""
    import hashlib

    target = sorted(n for n in manifest["files"] if n.startswith("documents/gift_agreement/"))[0]
    if name == target:
        return data.replace(b"%PDF", b"%PDX", 1)
    if name == "manifest.json":
        forged = json.loads(data)
        forged["files"][target] = hashlib.sha256(
            members_cache[target].replace(b"%PDF", b"%PDX", 1)
        ).hexdigest()
        return json.dumps(forged, indent=2, sort_keys=True).encode()
    return data


members_cache: dict[str, bytes] = {}


def drill(app, api, played, drain, tmp_path) -> None:
    before = make_instance(app, api, played, drain)
    runner = app.test_cli_runner()
    made = runner.invoke(args=["backup", f"{tmp_path}/"])
    assert made.exit_code == 0, made.output
    archive = next(tmp_path.glob("sova-backup-*.tar.gz.enc"))
    assert f"backup written: {archive}" in made.output
    raw = archive.read_bytes()
    # encrypted at rest: no PDF, no manifest, no gzip header readable without the key
    assert raw.startswith(b"SOVA-BACKUP-2\n") and b"%PDF" not in raw and b"files" not in raw
    assert archive.stat().st_mode & 0o777 == 0o600
    content = members(archive)
    members_cache.clear()
    members_cache.update(content)
    manifest = json.loads(content["manifest.json"])
    names = set(content)
    assert names == set(manifest["files"]) | {"manifest.json", "manifest.sig"}
    assert sum(n.startswith("documents/gift_agreement/") for n in names) == 7
    assert "uploads/scans/letter-1.png" in names
    assert manifest["database"]["dialect"] == db.engine.dialect.name
    from webapp.backup import backup_key, new_backup_key

    key = backup_key()

    # damaged, altered, unsigned or foreign archives: exit 2, a clear message, nothing changed
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(raw[: len(raw) // 2])
    flipped = tmp_path / "flipped.tar.gz"
    flipped.write_bytes(raw[:2000] + bytes([raw[2000] ^ 0xFF]) + raw[2001:])
    chunk_cut = tmp_path / "chunk-cut.tar.gz.enc"  # the last whole chunk dropped
    ends, at = [], 38  # the header: magic (14), key id (8), salt (16)
    while at < len(raw):
        at += 4 + int.from_bytes(raw[at : at + 4], "big")
        ends.append(at)
    chunk_cut.write_bytes(raw[: ([38] + ends)[-2]])
    # one document changed, its SHA-256 in the manifest recomputed, encrypted again with the
    # right key (the worst case: someone who holds the encryption but cannot sign)
    forged = rewrite(
        archive,
        tmp_path / "forged.tar.gz.enc",
        lambda name, data: altered_document(name, data, manifest),
        key=key,
    )
    # the same change in a plain tar.gz, as archives were before they were encrypted
    plain = rewrite(
        archive,
        tmp_path / "plain.tar.gz",
        lambda name, data: altered_document(name, data, manifest),
    )
    other_key = rewrite(
        archive,
        tmp_path / "other-key.tar.gz.enc",
        lambda name, data: data,
        key=__import__("base64").urlsafe_b64decode(new_backup_key()),
    )
    # a document changed with its SHA-256 left alone, signed and encrypted correctly
    tampered = rewrite(
        archive,
        tmp_path / "tampered.tar.gz.enc",
        lambda name, data: (
            data.replace(b"%PDF", b"%PDX", 1) if name.startswith("documents/") else data
        ),
        key=key,
    )
    foreign_tar = tmp_path / "foreign.tar.gz"
    with tarfile.open(foreign_tar, "w:gz") as tar:
        info = tarfile.TarInfo("etc/passwd")
        tar.addfile(info, io.BytesIO(b""))
    foreign = tmp_path / "foreign.tar.gz.enc"
    from webapp.backup import encrypt_file

    encrypt_file(foreign_tar, foreign, key)
    expected = {
        foreign: "unexpected member 'etc/passwd'",
        truncated: "damaged or altered archive",
        flipped: "damaged or altered archive",
        chunk_cut: "damaged or altered archive (truncated)",
        forged: "the manifest's signature does not verify",
        plain: "not an encrypted Sova backup",
        other_key: "made with another backup key",
        tampered: "does not match its SHA-256",
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
