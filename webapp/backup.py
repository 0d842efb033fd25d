"""Backups of one Sova instance in one file: ``sova backup DEST`` / ``sova restore ARCHIVE``.

The archive (``sova-backup-<UTC time>.tar.gz.enc``) is a gzip-compressed tar, encrypted
with AES-256-GCM in 1 MiB chunks under the backup key (:func:`backup_key`, never in the
archive)::

    header                 b"SOVA-BACKUP-2\n", key id (8 bytes), salt (16 bytes)
    chunks                 ciphertext length (4 bytes, big-endian), AES-GCM ciphertext
                           with its tag; key HKDF-SHA256(backup key, salt); nonce the
                           chunk's number (11 bytes) and 1 on the last chunk, else 0;
                           the header is the associated data of every chunk

so a changed, reordered, dropped or truncated chunk does not decrypt. The tar holds::

    manifest.json          {"format": 2, "created_at": ISO UTC, "database": {"dialect":
                            "sqlite" | "postgresql", "file": member name, "revision":
                            alembic revision}, "files": {member name: sha256 hex}}
    database.sqlite        SQLite: a consistent copy made with the online backup API
    database.dump          PostgreSQL: ``pg_dump --format=custom`` (the pg_dump of the
                           server's major version: /usr/lib/postgresql/<major>/bin first)
    documents/…            the rendered PDFs and stored scans (``SOVA_DOCUMENTS_PATH``)
    uploads/…              the viewers' and editors' uploads (``<instance>/uploads``)
    manifest.sig           HMAC-SHA256 (hex) of manifest.json's bytes under a key derived
                           from the backup key

The manifest lists every other member with its SHA-256, and its signature proves it was
written by a holder of the backup key. :func:`restore` decrypts and checks the whole
archive before it changes anything (:class:`BackupError` otherwise: a damaged, truncated,
altered, foreign or unsigned archive, or one made with another key, changes nothing), then replaces the database (SQLite: backup
API into the live file; PostgreSQL: ``pg_restore --clean --if-exists --single-transaction``)
and then the two folders.

Run backups while Sova runs (both copies are consistent snapshots of the database; a
document rendered during the backup may be missing from the folders, and is rendered again
by the reconciliation after a restore, since its row is still ``pending`` in that case —
or it is listed but missing: see docs/operations.md "Backups"). Stop web, workers, relay
and beat before a restore.

One archive format, written and read here: the header, the chunk layout and nonces, the
manifest and its signature are shared by :func:`backup`, :func:`verify` and
:func:`restore`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
import zlib
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import current_app
from sqlalchemy.engine import make_url

from webapp.extensions import db

FORMAT = 2
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
FOLDERS = ("documents", "uploads")
_CHUNK = 1 << 20


class BackupError(Exception):
    """A backup could not be made or an archive cannot be restored (message for the user)."""


# --- the backup key, encryption and the manifest's signature ------------------------------

MAGIC = b"SOVA-BACKUP-2\n"
_SALT = 16
_KEY_ID = 8
_HEADER = len(MAGIC) + _KEY_ID + _SALT
KEY_FILE = "backup_key"


def new_backup_key() -> str:
    """A fresh backup key: 32 random bytes, URL-safe base64 (44 characters)."""
    return base64.urlsafe_b64encode(os.urandom(32)).decode()


def backup_key(create: bool = False) -> bytes:
    """The backup key (32 bytes): ``SOVA_BACKUP_KEY`` (configuration or environment, URL-safe
    base64 of 32 bytes), else the file ``<instance>/backup_key``. ``create``: make that file
    (mode 0600) when neither exists (``sova backup``; a restore never invents a key).
    Raises BackupError when there is no key or it is malformed."""
    value = current_app.config.get("SOVA_BACKUP_KEY") or os.environ.get("SOVA_BACKUP_KEY")
    source = "SOVA_BACKUP_KEY"
    if not value:
        path = Path(current_app.config["SOVA_INSTANCE_PATH"]) / KEY_FILE
        source = str(path)
        if not path.exists():
            if not create:
                raise BackupError(
                    f"no backup key: set SOVA_BACKUP_KEY or put the key in {path} "
                    '(the key kept apart from the archives, docs/operations.md "Backups")'
                )
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(new_backup_key() + "\n")
        value = path.read_text()
    try:
        key = base64.urlsafe_b64decode(value.strip().encode())
    except ValueError:
        key = b""
    if len(key) != 32:
        raise BackupError(f"the backup key in {source} is not 32 bytes of URL-safe base64")
    return key


def _derive(key: bytes, info: bytes, salt: bytes | None = None, length: int = 32) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(key)


def key_id(key: bytes) -> str:
    """The backup key's public fingerprint (16 hex digits, written in each archive's
    header): tells which key an archive needs without revealing it."""
    return _derive(key, b"sova backup key id", length=_KEY_ID).hex()


def sign_manifest(key: bytes, manifest: bytes) -> str:
    """HMAC-SHA256 (hex) of the manifest's bytes under the key's manifest subkey."""
    return hmac.new(_derive(key, b"sova backup manifest"), manifest, hashlib.sha256).hexdigest()


def _nonce(number: int, final: bool) -> bytes:
    return number.to_bytes(11, "big") + (b"\x01" if final else b"\x00")


class EncryptingWriter:
    """A write-only file object that encrypts what is written to ``out`` (a binary file) in
    the format of the module docstring; :meth:`finish` writes the last chunk (required)."""

    def __init__(self, out, key: bytes):
        salt = os.urandom(_SALT)
        self._out, self._buf, self._n = out, bytearray(), 0
        self._header = MAGIC + bytes.fromhex(key_id(key)) + salt
        self._aead = AESGCM(_derive(key, b"sova backup encryption", salt))
        out.write(self._header)

    def _chunk(self, data: bytes, final: bool) -> None:
        sealed = self._aead.encrypt(_nonce(self._n, final), data, self._header)
        self._out.write(len(sealed).to_bytes(4, "big") + sealed)
        self._n += 1

    def write(self, data) -> int:
        self._buf += data
        while len(self._buf) > _CHUNK:
            self._chunk(bytes(self._buf[:_CHUNK]), False)
            del self._buf[:_CHUNK]
        return len(data)

    def flush(self) -> None:
        pass

    def finish(self) -> None:
        self._chunk(bytes(self._buf), True)
        self._buf.clear()


class DecryptingReader:
    """A read-only file object over an archive ``src`` (a binary file) encrypted by
    :class:`EncryptingWriter`. Raises BackupError for a foreign or unencrypted file, an
    archive of another key, and any chunk that does not decrypt (changed, reordered,
    truncated, extended)."""

    def __init__(self, src, key: bytes, name: str = "archive"):
        self._src, self._name, self._buf, self._n, self._done = src, name, b"", 0, False
        header = src.read(_HEADER)
        if len(header) != _HEADER or not header.startswith(MAGIC):
            raise BackupError(
                f"{name}: not an encrypted Sova backup (archives are encrypted and signed "
                "with the backup key; an unsigned archive cannot be trusted)"
            )
        found = header[len(MAGIC) : len(MAGIC) + _KEY_ID].hex()
        if found != key_id(key):
            raise BackupError(
                f"{name}: made with another backup key (key id {found}; this instance's "
                f"key id {key_id(key)})"
            )
        self._header = header
        self._aead = AESGCM(_derive(key, b"sova backup encryption", header[-_SALT:]))
        self._next = self._read_sealed()

    def _read_sealed(self) -> bytes | None:
        size = self._src.read(4)
        if not size:
            return None
        sealed = self._src.read(int.from_bytes(size, "big")) if len(size) == 4 else b""
        if len(size) != 4 or len(sealed) != int.from_bytes(size, "big") or len(sealed) < 16:
            raise BackupError(f"{self._name}: damaged or altered archive (truncated)")
        return sealed

    def _fill(self) -> None:
        sealed = self._next
        if sealed is None:
            if not self._done:
                raise BackupError(f"{self._name}: damaged or altered archive (truncated)")
            return
        self._next = self._read_sealed()
        final = self._next is None
        try:
            self._buf += self._aead.decrypt(_nonce(self._n, final), sealed, self._header)
        except InvalidTag as exc:
            raise BackupError(f"{self._name}: damaged or altered archive") from exc
        self._n += 1
        self._done = final

    def read(self, size: int = -1) -> bytes:
        while (size < 0 or len(self._buf) < size) and not (self._done and self._next is None):
            self._fill()
        if size < 0:
            data, self._buf = self._buf, b""
        else:
            data, self._buf = self._buf[:size], self._buf[size:]
        return data


def encrypt_file(src: Path, dest: Path, key: bytes) -> None:
    """Encrypt the file ``src`` into ``dest`` (the archive format; tests and tooling)."""
    with open(src, "rb") as fin, open(dest, "wb") as fout:
        writer = EncryptingWriter(fout, key)
        while chunk := fin.read(_CHUNK):
            writer.write(chunk)
        writer.finish()


def decrypt_file(src: Path, dest: Path, key: bytes) -> None:
    """Decrypt the archive ``src`` into ``dest`` (its tar.gz). Raises BackupError."""
    with open(src, "rb") as fin, open(dest, "wb") as fout:
        reader = DecryptingReader(fin, key, str(src))
        while chunk := reader.read(_CHUNK):
            fout.write(chunk)


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
ARCHIVE_SUFFIX = ".tar.gz.enc"
ARCHIVE_NAME = "sova-backup-%Y%m%dT%H%M%SZ" + ARCHIVE_SUFFIX
#: The name of archives made before backups were encrypted (still pruned).
PLAIN_ARCHIVE_NAME = "sova-backup-%Y%m%dT%H%M%SZ.tar.gz"


def prune(folder: Path, days: int, now: datetime) -> list[Path]:
    """Delete the archives named ``sova-backup-<UTC time>.tar.gz.enc`` (or ``.tar.gz``, from
    before encryption) in ``folder`` whose time is more than ``days`` days before ``now``
    (aware); other files are left alone. Returns the deleted paths. This is the backup
    retention the privacy notice states (``SOVA_BACKUP_RETENTION_DAYS``; 0 keeps every
    archive)."""
    if days <= 0:
        return []
    gone = []
    for path in sorted(folder.glob("sova-backup-*.tar.gz*")):
        made = None
        for pattern in (ARCHIVE_NAME, PLAIN_ARCHIVE_NAME):
            try:
                made = datetime.strptime(path.name, pattern).replace(tzinfo=UTC)
                break
            except ValueError:
                continue
        if made is not None and (now - made).days > days:
            path.unlink(missing_ok=True)
            gone.append(path)
    return gone


def _destination(dest: str | Path, stamp: datetime) -> tuple[Path, Path | None]:
    """``(archive path, folder or None)`` for ``sova backup DEST``: an existing folder, or
    a name ending in ``/`` (the folder is created, with its parents), gets
    ``sova-backup-<UTC time>.tar.gz.enc`` in it; any other name is the archive's own, in an
    existing folder, ending in ``.tar.gz.enc`` (``FILE.tar`` is refused: the archive is
    encrypted, and a ``.tar`` name would promise a plain tar). A missing name without a
    suffix (``backups``) is refused: it reads as a folder, and a file of that name would
    hide the backup."""
    text = str(dest)
    path = Path(dest)
    if text.endswith(("/", os.sep)) or path.is_dir():
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BackupError(f"cannot create the folder {path}: {exc.strerror}") from exc
        return path / stamp.strftime(ARCHIVE_NAME), path
    if not path.exists() and not path.suffix:
        raise BackupError(
            f"{path} does not exist: to back up into a new folder, end it with a slash "
            f"({path}/); to name the archive, give it a suffix ({path}.tar.gz.enc)"
        )
    if not path.name.endswith(ARCHIVE_SUFFIX):
        stem = re.sub(r"(\.tar)?(\.gz|\.tgz)?(\.enc)?$", "", path.name) or "backup"
        raise BackupError(
            f"{path}: an archive's name ends in {ARCHIVE_SUFFIX} (a gzip-compressed tar, "
            f"encrypted; it cannot be opened as {path.suffix or 'a plain file'}): give "
            f"{path.with_name(stem + ARCHIVE_SUFFIX)}"
        )
    return path, None


def backup(dest: str | Path, progress=None, keep_days: int = 0) -> Path:
    """Write an encrypted, signed backup archive and return its path. ``dest``: a file
    name, or a folder (existing, or given with a trailing slash and then created; the
    archive is ``sova-backup-<UTC time>.tar.gz.enc`` in it, and the folder's archives older
    than ``keep_days`` days are deleted after it, :func:`prune`). The archive is written to
    a temporary name and renamed when complete. The key is :func:`backup_key` (created in
    the instance folder on first use when ``SOVA_BACKUP_KEY`` is unset). ``progress(n)``:
    called per file added. Raises BackupError (no usable key, dump failed, destination
    exists, is not writable or reads as a missing folder)."""
    stamp = datetime.now(UTC)
    dest, folder = _destination(dest, stamp)
    if dest.exists():
        raise BackupError(f"{dest} exists already: choose another name")
    if not dest.parent.is_dir():
        raise BackupError(f"folder {dest.parent} does not exist")
    key = backup_key(create=True)
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
            with open(partial, "wb") as out:
                sealed = EncryptingWriter(out, key)
                with tarfile.open(fileobj=sealed, mode="w|gz") as tar:  # type: ignore[call-overload]
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
                    signature = sign_manifest(key, manifest).encode()
                    for name, data in ((MANIFEST, manifest), (SIGNATURE, signature)):
                        info = tarfile.TarInfo(name)
                        info.size, info.mtime = len(data), int(stamp.timestamp())
                        tar.addfile(info, io.BytesIO(data))
                sealed.finish()
            os.chmod(partial, 0o600)
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
        and (
            name in (MANIFEST, SIGNATURE, "database.sqlite", "database.dump")
            or path.parts[0] in FOLDERS
        )
    )


def verify(archive: str | Path, into: Path) -> dict:
    """Decrypt ``archive`` with the backup key (:func:`backup_key`), unpack it into the
    empty folder ``into`` and check it: the manifest's signature, every member a regular
    file with a safe name, every file listed with the right SHA-256, nothing missing,
    nothing extra. Returns the manifest; raises BackupError with what is wrong (no key,
    another key, not encrypted, damaged or altered)."""
    key = backup_key()
    seen = set()
    try:
        with open(archive, "rb") as raw:
            reader = DecryptingReader(raw, key, str(archive))
            with tarfile.open(fileobj=reader, mode="r|gz") as tar:  # type: ignore[call-overload]
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
        manifest_bytes = (into / MANIFEST).read_bytes()
        signature = (into / SIGNATURE).read_text().strip()
    except OSError as exc:
        raise BackupError(f"{archive}: no signed Sova manifest") from exc
    if not hmac.compare_digest(
        signature.encode("ascii", "replace"), sign_manifest(key, manifest_bytes).encode()
    ):
        raise BackupError(f"{archive}: the manifest's signature does not verify")
    try:
        manifest = json.loads(manifest_bytes)
        files = manifest["files"]
        database = manifest["database"]
        assert manifest["format"] == FORMAT and isinstance(files, dict)
        assert database["dialect"] in ("sqlite", "postgresql") and database["file"] in files
    except (OSError, ValueError, KeyError, TypeError, AssertionError) as exc:
        raise BackupError(f"{archive}: no valid Sova manifest") from exc
    if seen - {MANIFEST, SIGNATURE} != set(files):
        missing, extra = set(files) - seen, seen - {MANIFEST, SIGNATURE} - set(files)
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


__all__ = ["BackupError", "backup", "backup_key", "restore", "verify"]
