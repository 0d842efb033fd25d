"""Backups of one Sova instance in one file: ``sova backup DEST`` / ``sova restore ARCHIVE``.

The archive is a gzip-compressed tar holding::

    manifest.json          {"format": 1, "created_at": ISO UTC, "database": {"dialect":
                            "sqlite" | "postgresql", "file": member name, "revision":
                            alembic revision}, "files": {member name: sha256 hex}}
    database.sqlite        SQLite: a consistent copy made with the online backup API
    database.dump          PostgreSQL: ``pg_dump --format=custom`` (the pg_dump of the
                           server's major version: /usr/lib/postgresql/<major>/bin first)
    documents/…            the rendered PDFs and stored scans (``SOVA_DOCUMENTS_PATH``)
    uploads/…              the viewers' and editors' uploads (``<instance>/uploads``)

The manifest lists every other member with its SHA-256. :func:`restore` checks the whole
archive against it before it changes anything (:class:`BackupError` otherwise: a damaged,
truncated or foreign archive changes nothing), then replaces the database (SQLite: backup
API into the live file; PostgreSQL: ``pg_restore --clean --if-exists --single-transaction``)
and then the two folders.

Run backups while Sova runs (both copies are consistent snapshots of the database; a
document rendered during the backup may be missing from the folders, and is rendered again
by the reconciliation after a restore, since its row is still ``pending`` in that case —
or it is listed but missing: see docs/operations.md "Backups"). Stop web, workers, relay
and beat before a restore.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
import zlib
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from flask import current_app
from sqlalchemy.engine import make_url

from webapp.extensions import db

FORMAT = 1
MANIFEST = "manifest.json"
FOLDERS = ("documents", "uploads")
_CHUNK = 1 << 20


class BackupError(Exception):
    """A backup could not be made or an archive cannot be restored (message for the user)."""


def _folders() -> dict[str, Path]:
    instance = Path(current_app.config["SOVA_INSTANCE_PATH"])
    return {
        "documents": Path(current_app.config["SOVA_DOCUMENTS_PATH"]),
        "uploads": instance / "uploads",
    }


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _revision() -> str | None:
    from sqlalchemy import text

    try:
        return db.session.execute(text("SELECT version_num FROM alembic_version")).scalar()
    finally:
        db.session.rollback()


def pg_tool(name: str) -> str:
    """Path of ``pg_dump`` / ``pg_restore`` matching the server's major version:
    ``$SOVA_PG_BIN/<name>``, else ``/usr/lib/postgresql/<major>/bin/<name>``, else the one
    on PATH. Raises BackupError when none exists."""
    configured = current_app.config.get("SOVA_PG_BIN") or os.environ.get("SOVA_PG_BIN")
    candidates = [Path(configured) / name] if configured else []
    version = db.session.connection().dialect.server_version_info
    db.session.rollback()
    if version:
        candidates.append(Path(f"/usr/lib/postgresql/{version[0]}/bin/{name}"))
    for path in candidates:
        if path.is_file():
            return str(path)
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} not found (install postgresql-client or set SOVA_PG_BIN)")
    return found


def _pg_args() -> tuple[list[str], dict]:
    """libpq connection options for the configured database (the password goes in the
    environment, never on the command line)."""
    url = make_url(current_app.config["SQLALCHEMY_DATABASE_URI"])
    args = [f"--dbname={url.database}"]
    if url.host:
        args.append(f"--host={url.host}")
    if url.port:
        args.append(f"--port={url.port}")
    if url.username:
        args.append(f"--username={url.username}")
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    return args, env


def _dump_database(work: Path) -> tuple[str, Path]:
    dialect = db.engine.dialect.name
    if dialect == "sqlite":
        target = work / "database.sqlite"
        source = sqlite3.connect(str(db.engine.url.database))
        try:
            dest = sqlite3.connect(target)
            with dest:
                source.backup(dest)
            dest.close()
        finally:
            source.close()
        return dialect, target
    if dialect == "postgresql":
        target = work / "database.dump"
        args, env = _pg_args()
        run = subprocess.run(
            [
                pg_tool("pg_dump"),
                "--format=custom",
                "--no-owner",
                "--no-privileges",
                f"--file={target}",
                *args,
            ],
            env=env,
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            raise BackupError(f"pg_dump failed: {run.stderr.strip()}")
        return dialect, target
    raise BackupError(f"backups of {dialect} databases are not supported")


#: The archive name in a destination folder (a ``datetime.strftime`` pattern, UTC).
ARCHIVE_NAME = "sova-backup-%Y%m%dT%H%M%SZ.tar.gz"


def prune(folder: Path, days: int, now: datetime) -> list[Path]:
    """Delete the archives named ``sova-backup-<UTC time>.tar.gz`` in ``folder`` whose time
    is more than ``days`` days before ``now`` (aware); other files are left alone. Returns
    the deleted paths. This is the backup retention the privacy notice states
    (``SOVA_BACKUP_RETENTION_DAYS``; 0 keeps every archive)."""
    if days <= 0:
        return []
    gone = []
    for path in sorted(folder.glob("sova-backup-*.tar.gz")):
        try:
            made = datetime.strptime(path.name, ARCHIVE_NAME).replace(tzinfo=UTC)
        except ValueError:
            continue
        if (now - made).days > days:
            path.unlink(missing_ok=True)
            gone.append(path)
    return gone


def backup(dest: str | Path, progress=None, keep_days: int = 0) -> Path:
    """Write a backup archive and return its path. ``dest``: a file name, or an existing
    folder (the archive is then ``sova-backup-<UTC time>.tar.gz`` in it, and the folder's
    archives older than ``keep_days`` days are deleted after it, :func:`prune`). The archive
    is written to a temporary name and renamed when complete. ``progress(n)``: called per
    file added. Raises BackupError (dump failed, destination exists or is not writable)."""
    dest = Path(dest)
    stamp = datetime.now(UTC)
    folder = dest if dest.is_dir() else None
    if folder is not None:
        dest = folder / stamp.strftime(ARCHIVE_NAME)
    if dest.exists():
        raise BackupError(f"{dest} exists already: choose another name")
    if not dest.parent.is_dir():
        raise BackupError(f"folder {dest.parent} does not exist")
    with tempfile.TemporaryDirectory(prefix="sova-backup-") as tmp:
        dialect, dump = _dump_database(Path(tmp))
        members: list[tuple[str, Path]] = [(dump.name, dump)]
        for name, root in _folders().items():
            if root.is_dir():
                members += [
                    (f"{name}/{p.relative_to(root).as_posix()}", p)
                    for p in sorted(root.rglob("*"))
                    if p.is_file() and not p.is_symlink()
                ]
        files = {}
        partial = dest.with_name(f".{dest.name}.partial")
        try:
            with tarfile.open(partial, "w:gz") as tar:
                for arcname, path in members:
                    files[arcname] = _sha256(path)
                    tar.add(path, arcname=arcname, recursive=False)
                    if progress:
                        progress(1)
                manifest = json.dumps(
                    {
                        "format": FORMAT,
                        "created_at": stamp.isoformat(),
                        "database": {
                            "dialect": dialect,
                            "file": dump.name,
                            "revision": _revision(),
                        },
                        "files": files,
                    },
                    indent=2,
                    sort_keys=True,
                ).encode()
                info = tarfile.TarInfo(MANIFEST)
                info.size, info.mtime = len(manifest), int(stamp.timestamp())
                tar.addfile(info, io.BytesIO(manifest))
            os.replace(partial, dest)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise BackupError(f"cannot write {dest}: {exc}") from exc
    if folder is not None:
        prune(folder, keep_days, stamp)
    return dest


def _safe_name(name: str) -> bool:
    path = PurePosixPath(name)
    return (
        not path.is_absolute()
        and ".." not in path.parts
        and bool(path.parts)
        and (name in (MANIFEST, "database.sqlite", "database.dump") or path.parts[0] in FOLDERS)
    )


def verify(archive: str | Path, into: Path) -> dict:
    """Unpack ``archive`` into the empty folder ``into`` and check it against its manifest:
    every member a regular file with a safe name, every file listed with the right SHA-256,
    nothing missing, nothing extra. Returns the manifest; raises BackupError with what is
    wrong."""
    try:
        tar = tarfile.open(archive, "r:*")
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise BackupError(f"{archive}: not a readable backup archive ({exc})") from exc
    seen = set()
    try:
        with tar:
            for member in tar:
                if not member.isfile() or not _safe_name(member.name) or member.name in seen:
                    raise BackupError(f"{archive}: unexpected member {member.name!r}")
                seen.add(member.name)
                target = into / member.name
                target.parent.mkdir(parents=True, exist_ok=True)
                src = tar.extractfile(member)
                if src is None:
                    raise BackupError(f"{archive}: unreadable member {member.name!r}")
                with open(target, "wb") as out:
                    shutil.copyfileobj(src, out, _CHUNK)
    except (OSError, tarfile.TarError, EOFError, zlib.error) as exc:
        raise BackupError(f"{archive}: damaged archive ({exc})") from exc
    try:
        manifest = json.loads((into / MANIFEST).read_text())
        files = manifest["files"]
        database = manifest["database"]
        assert manifest["format"] == FORMAT and isinstance(files, dict)
        assert database["dialect"] in ("sqlite", "postgresql") and database["file"] in files
    except (OSError, ValueError, KeyError, TypeError, AssertionError) as exc:
        raise BackupError(f"{archive}: no valid Sova manifest") from exc
    if seen - {MANIFEST} != set(files):
        missing, extra = set(files) - seen, seen - {MANIFEST} - set(files)
        raise BackupError(
            f"{archive}: files missing {sorted(missing)[:5]} or not in the "
            f"manifest {sorted(extra)[:5]}"
        )
    for name, digest in files.items():
        if _sha256(into / name) != digest:
            raise BackupError(f"{archive}: {name} does not match its SHA-256 in the manifest")
    return manifest


def _restore_database(manifest: dict, work: Path) -> None:
    dialect = db.engine.dialect.name
    if manifest["database"]["dialect"] != dialect:
        raise BackupError(
            f"the archive holds a {manifest['database']['dialect']} database; "
            f"this instance runs on {dialect}"
        )
    dump = work / manifest["database"]["file"]
    db.session.remove()
    db.engine.dispose()
    if dialect == "sqlite":
        try:
            source = sqlite3.connect(f"file:{dump}?mode=ro", uri=True)
            source.execute("PRAGMA integrity_check").fetchone()
            live = sqlite3.connect(str(db.engine.url.database))
            with live:
                source.backup(live)
            live.close()
            source.close()
        except sqlite3.Error as exc:
            raise BackupError(f"the database copy cannot be restored: {exc}") from exc
        return
    args, env = _pg_args()
    run = subprocess.run(
        [
            pg_tool("pg_restore"),
            "--clean",
            "--if-exists",
            "--no-owner",
            "--no-privileges",
            "--single-transaction",
            "--exit-on-error",
            *args,
            str(dump),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        raise BackupError(
            f"pg_restore failed (the database is unchanged): {run.stderr.strip()[:500]}"
        )


def restore(archive: str | Path) -> dict:
    """Replace this instance's database and folders by the archive's, after checking the
    whole archive (:func:`verify`; BackupError and nothing changed when it fails, or when
    the database kind differs). The database goes first, in one transaction; the folders
    are then swapped (the old ones renamed aside, then removed). Returns the manifest."""
    archive = Path(archive)
    if not archive.is_file():
        raise BackupError(f"{archive}: no such file")
    folders = _folders()
    parent = Path(current_app.config["SOVA_INSTANCE_PATH"])
    parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".sova-restore-", dir=parent) as tmp:
        work = Path(tmp)
        manifest = verify(archive, work)
        _restore_database(manifest, work)
        for name, root in folders.items():
            new = work / name
            new.mkdir(exist_ok=True)
            old = root.with_name(f".{root.name}.before-restore")
            if old.exists():
                shutil.rmtree(old)
            if root.exists():
                os.replace(root, old)
            root.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(new), str(root))
            if old.exists():
                shutil.rmtree(old)
    return manifest


__all__ = ["BackupError", "backup", "restore", "verify"]
