"""Sova's commands (``contracts/api.md`` "Command line"), attached by
:func:`register_commands` to ``app.cli`` (``flask --app webapp …``, the tests' CLI runner)
and to the ``sova`` console script (:mod:`webapp.cli_entry`, which builds the app only for a
command that needs it: one decorated with ``with_appcontext``).

Replay-style commands (``sova game replay``) take no ``with_appcontext``: they build no app,
read no configuration and write nothing. Bad input ends with a message on stderr and exit
code 2; nothing of it is written.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import NoReturn

import click
from flask.cli import with_appcontext

from webapp.resources import package_dir


def fail(message: str) -> NoReturn:
    """Print ``message`` to stderr and exit with code 2."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(2)


def announce_instance() -> Path:
    """Say on stderr which instance folder this command uses and why (``SOVA_INSTANCE_PATH``
    or the per-user data directory), and return it. Creates nothing."""
    from webapp.config import instance_path

    path, source = instance_path()
    click.echo(f"sova: instance folder {path} ({source})", err=True)
    return path


@click.command("create")
@click.option("--email", required=True)
@click.option("--role", required=True)
@click.option("--password", default=None)
@click.option("--name", default="")
@click.option("--token", "with_token", is_flag=True, help="print an API token (shown once)")
@with_appcontext
def users_create(email, role, password, name, with_token):
    """Create a staff user."""
    from webapp.accounts.operations import AccountError, create_user
    from webapp.jobs import commit

    try:
        user, token = create_user(email, role, password=password, name=name, with_token=with_token)
    except AccountError as exc:
        fail(str(exc))
    commit()
    click.echo(f"created user {user.email} ({user.role})")
    if token:
        click.echo(token)


@click.group("users")
def users():
    """Staff users."""


users.add_command(users_create)


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--as", "as_", type=click.Choice(["archive", "submissions"]), required=True)
@click.option("--channel", type=click.Choice(["import", "mail", "partner"]), default=None)
@click.option(
    "--images",
    "images_path",
    type=click.Path(exists=True),
    default=None,
    help="A folder or zip with the packets' images ((img …) / (pic: …) files).",
)
@with_appcontext
def import_cmd(files, as_, channel, images_path):
    """Import question packets (chgksuite 4s or db.chgk.info text; UTF-8, KOI8-R, cp1251).

    A FILE may be a zip holding one packet text and its images. ``--images`` gives a folder
    or zip of images for every FILE. One transaction per file; a bad file (or a bad image)
    is reported and nothing of it kept (exit 2 after the other files are done); referenced
    images without a file are listed (their questions fail the pre-check)."""
    from webapp.domain.packets import PacketError
    from webapp.submissions.packet_images import BundleError, read_bundle

    shared: dict[str, bytes] = {}
    if images_path:
        try:
            shared = read_bundle(Path(images_path)).images
        except (BundleError, OSError) as exc:
            click.echo(f"Error: {images_path}: {exc}", err=True)
            sys.exit(2)
    total, failed = 0, 0
    for name in files:
        path = Path(name)
        try:
            packet, images = _packet_and_images(path, shared)
        except (PacketError, BundleError, OSError) as exc:
            click.echo(f"Error: {path}: {exc}", err=True)
            failed += 1
            continue
        made = _import_one(path, packet, as_, channel, images)
        if made is None:
            failed += 1
            continue
        total += made
    click.echo(
        f"total: {total} questions from {len(files) - failed} file(s); {failed} file(s) failed"
    )
    if failed:
        sys.exit(2)


def _packet_and_images(path: Path, shared: dict[str, bytes]):
    """The parsed packet of ``path`` (a packet text, or a zip holding one) and its images
    (the zip's, else ``shared``)."""
    from webapp.domain.packets import PacketError
    from webapp.submissions.packet_files import read_packet_bytes, read_packet_file
    from webapp.submissions.packet_images import read_bundle

    if path.suffix.lower() != ".zip":
        return read_packet_file(path), shared
    bundle = read_bundle(path)
    if bundle.packet is None:
        raise PacketError("the zip holds no packet file (.4s, .txt)")
    return read_packet_bytes(bundle.packet[1], bundle.packet[0]), {**shared, **bundle.images}


def _import_one(path: Path, packet, as_, channel, images) -> int | None:
    """Import one parsed packet in one transaction; the number of questions, or None
    after printing why it failed (nothing kept)."""
    from flask import current_app
    from tqdm import tqdm

    from webapp.extensions import db
    from webapp.jobs import commit
    from webapp.submissions.operations import import_packet
    from webapp.submissions.packet_images import missing_refs

    uploads = Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    with tqdm(
        total=len(packet.questions),
        desc=path.name,
        unit="q",
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
    ) as bar:
        try:
            made = import_packet(
                packet,
                as_=as_,
                channel=channel,
                origin=path.name,
                progress=bar.update,
                images=images,
                uploads=uploads,
            )
            n_images = sum(len(q.images) for q in made)
            missing = missing_refs(made)
            commit()
        except Exception as exc:
            db.session.rollback()
            click.echo(f"Error: {path}: {exc}", err=True)
            return None
    click.echo(f"{path.name}: imported {len(made)} questions as {as_}")
    if n_images or missing:
        click.echo(f"{path.name}: {n_images} image(s) attached")
    if missing:
        click.echo(f"{path.name}: no file for {len(missing)} image(s): {', '.join(missing)}")
    return len(made)


@click.group("game")
def game():
    """Games."""


def _replay(protocol, replay) -> None:
    """Shared body of the replay commands: read ``protocol`` as JSON, print
    ``replay(data)`` (a JSON-ready state) and exit 0, or print the refusal's error JSON
    (``{"error": {"event", "rule", "message"}}``; a file that is not JSON has
    ``event``/``rule`` null) and exit 2. Reads no configuration, writes no file."""
    from webapp.domain.rules import ProtocolError, RuleViolation

    try:
        data = json.load(protocol)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        error = {"event": None, "rule": None, "message": f"not JSON: {exc}"}
        click.echo(json.dumps({"error": error}, ensure_ascii=False))
        sys.exit(2)
    try:
        state = replay(data)
    except (RuleViolation, ProtocolError) as exc:
        click.echo(json.dumps(exc.to_json(), ensure_ascii=False))
        sys.exit(2)
    click.echo(json.dumps(state, ensure_ascii=False, indent=2))


@game.command("replay")
@click.argument("protocol", type=click.File("r", encoding="utf-8"))
def game_replay(protocol):
    """Replay a ``sova.game-protocol/1`` file: the state as JSON (exit 0), or the refusal
    as JSON (exit 2). Needs no database."""
    from webapp.domain.rules import load_protocol, replay

    _replay(protocol, lambda data: replay(*load_protocol(data)))


@click.group("season")
def season():
    """Seasons."""


@season.command("replay")
@click.argument("protocol", type=click.File("r", encoding="utf-8"))
def season_replay(protocol):
    """Replay a ``sova.season-protocol/1`` file: the state as JSON (exit 0), or the refusal
    as JSON (exit 2). Needs no database; reads no configuration."""
    from webapp.domain.season import replay_season

    _replay(protocol, lambda data: replay_season(data).to_json())


@click.command("worker")
@click.option("--concurrency", default=2, show_default=True)
def worker(concurrency):
    """Run a Celery worker (and nothing else; ``webapp.celery.WORKER_FLAGS``)."""
    from webapp.celery import WORKER_FLAGS

    announce_instance()
    os.execvp(
        sys.executable,
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "workers.app",
            "worker",
            "--loglevel=INFO",
            f"--concurrency={concurrency}",
            *WORKER_FLAGS,
        ],
    )


@click.command("beat")
def beat():
    """Run Celery beat (the outbox sweeper)."""
    announce_instance()
    os.execvp(
        sys.executable,
        [sys.executable, "-m", "celery", "-A", "workers.app", "beat", "--loglevel=INFO"],
    )


@click.group("outbox")
def outbox():
    """The transactional outbox (tasks requested by committed transactions)."""


@outbox.command("relay")
@click.option(
    "--interval",
    default=0.05,
    show_default=True,
    type=click.FloatRange(0.001, 60),
    help="Seconds between polls when nothing is waiting.",
)
@click.option(
    "--batch",
    default=500,
    show_default=True,
    type=click.IntRange(1, 10000),
    help="Most messages sent per poll.",
)
@with_appcontext
def outbox_relay(interval, batch):
    """Send committed outbox messages to the broker until stopped (run it beside the web
    server with SOVA_OUTBOX_AUTOSEND=0, so requests end at their commit)."""
    from webapp.jobs import relay_forever

    click.echo(f"outbox relay: polling every {interval}s, up to {batch} messages a poll")
    relay_forever(interval=interval, limit=batch)


@outbox.command("status")
@with_appcontext
def outbox_status():
    """Print what is owed (JSON): outbox rows waiting for the broker, tasks handed over
    and not done (in flight, overdue, given up), questions without their pre-check,
    documents pending, e-mails being sent and in doubt (webapp.owed.owed_status)."""
    from webapp.owed import owed_status

    click.echo(json.dumps(owed_status()))


@outbox.command("reconcile")
@with_appcontext
def outbox_reconcile():
    """Once, now: send again the tasks the broker lost and queue overdue owed work (what
    the beat's ``outbox.reconcile`` does every minute). Prints the counts (JSON)."""
    from webapp.owed import reconcile

    click.echo(json.dumps(reconcile()))


@click.group("precheck")
def precheck():
    """Pre-checks of questions awaiting a decision."""


@precheck.command("stale")
@click.option("--dry-run", is_flag=True, help="Only count; queue nothing.")
@click.option(
    "--batch",
    default=1000,
    show_default=True,
    type=click.IntRange(1, 100000),
    help="Questions queued per transaction.",
)
@with_appcontext
def precheck_stale(dry_run, batch):
    """Queue `moderation.precheck` again for every question in review without a report of
    the current check version (run after an upgrade that changes the checks)."""
    from tqdm import tqdm

    from webapp.jobs import commit, enqueue
    from webapp.moderation.models import PRECHECK_VERSION
    from webapp.moderation.queries import stale_precheck_ids

    ids = stale_precheck_ids()
    if dry_run:
        click.echo(f"{len(ids)} question(s) without a version {PRECHECK_VERSION} pre-check")
        return
    with tqdm(total=len(ids), unit="q", file=sys.stderr, disable=not sys.stderr.isatty()) as bar:
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            for qid in chunk:
                enqueue("moderation.precheck", qid)
            commit()
            bar.update(len(chunk))
    click.echo(f"queued the version {PRECHECK_VERSION} pre-check for {len(ids)} question(s)")


@click.command("run")
@with_appcontext
def run_all():
    """Web, worker and beat together (the package's Procfile + honcho); Ctrl-C stops all
    three. The processes run in the instance folder with this interpreter's ``bin`` first on
    PATH, so they are this installation's whatever the current directory."""
    from flask import current_app

    procfile = package_dir() / "Procfile"
    bindir = str(Path(sys.executable).parent)
    os.environ["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", "")])
    # the children build their own app: they must find the same instance folder
    os.environ["SOVA_INSTANCE_PATH"] = current_app.config["SOVA_INSTANCE_PATH"]
    os.execvp(
        sys.executable,
        [
            sys.executable,
            "-m",
            "honcho",
            "-f",
            str(procfile),
            "-d",
            current_app.config["SOVA_INSTANCE_PATH"],
            "start",
        ],
    )


DEMO_ROLES = ("editor", "chief_editor", "producer", "host", "accountant", "admin")
#: The playable demo pool: 20 questions by 20 different authors, so that «Заполнить стол»
#: can fill a 2023 table (17 envelope questions, no author twice in a game) with reserves.
DEMO_POOL = package_dir() / "demo" / "demo_pool.4s"
#: The archive packet seed-demo imports when given none (``--archive``).
SAMPLE_ARCHIVE = package_dir() / "submissions" / "sample_packet.4s"


def _demo_email(role: str) -> str:
    return f"{role.replace('_', '-')}@sova.local"


@click.command("seed-demo")
@click.option(
    "--archive",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="packet imported as archive when there are no questions "
    "(default: the package's sample packet)",
)
@with_appcontext
def seed_demo(archive):
    """Prepare a demo instance; safe to run again (``make run`` runs it every time).

    * Demo staff users, one per role (``editor@sova.local`` / ``editor-demo`` …), created
      when there are no users; their logins are printed, and on a later run the demo users
      that exist are listed again.
    * One packet imported as archive (``--archive``, our own sample packet otherwise; ``make
      run`` passes a real one from shared/ when present), for duplicate detection, when there
      are no questions.
    * A playable pool: ``webapp/demo/demo_pool.4s`` imported as submissions, then each
      question pre-checked, approved by the demo editor and its sources signed off by the
      demo chief editor — through the moderation operations, so the state machine and the
      history hold — once, when no question of that file exists yet.
    """
    from webapp.accounts.models import User
    from webapp.accounts.operations import create_user
    from webapp.extensions import db
    from webapp.jobs import commit
    from webapp.submissions.models import Question

    if db.session.scalar(db.select(db.func.count()).select_from(User)) == 0:
        click.echo("Demo staff users (password = role name + '-demo'):")
        for role in DEMO_ROLES:
            email = _demo_email(role)
            create_user(email, role, password=f"{role}-demo")
            click.echo(f"  {role:13} {email:28} {role}-demo")
        commit()
    else:
        existing = db.session.scalars(
            db.select(User)
            .where(User.email.in_([_demo_email(r) for r in DEMO_ROLES]))
            .order_by(User.id)
        ).all()
        if existing:
            click.echo(
                "Demo staff users exist already (password = role name + '-demo', unless changed):"
            )
            for user in existing:
                click.echo(f"  {user.role:13} {user.email:28} {user.role}-demo")
        else:
            click.echo("Staff users exist (no demo users): log in with your own.")
    if db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0:
        packet = archive or SAMPLE_ARCHIVE
        ctx = click.get_current_context()
        try:
            ctx.invoke(import_cmd, files=(str(packet),), as_="archive", channel=None)
        except SystemExit as exc:
            if exc.code:
                raise
    _seed_demo_pool()


def _seed_demo_pool() -> None:
    """The approved, signed-off demo pool of :func:`seed_demo` (see there)."""
    from webapp.accounts.models import User
    from webapp.extensions import db
    from webapp.jobs import commit
    from webapp.moderation.operations import decide, precheck, sign_off
    from webapp.submissions.models import Question
    from webapp.submissions.operations import import_packet
    from webapp.submissions.packet_files import read_packet_file

    origin = DEMO_POOL.name
    if db.session.scalar(
        db.select(db.func.count()).select_from(Question).where(Question.origin.like(f"{origin}#%"))
    ):
        return
    editor, chief = (
        db.session.scalar(db.select(User).where(User.email == _demo_email(r)))
        for r in ("editor", "chief_editor")
    )
    if editor is None or chief is None:
        click.echo("Demo pool skipped: the demo editor and chief editor do not exist.")
        return
    made = import_packet(
        read_packet_file(DEMO_POOL), as_="submissions", channel="import", origin=origin
    )
    commit()
    for question in made:
        precheck(question.id)
        decide(question, "approve", editor.id)
        sign_off(question, chief.id)
        commit()
    click.echo(
        f"Demo pool: {len(made)} questions from {origin} approved by {editor.email} "
        f"and signed off by {chief.email} — enough for «Заполнить стол»."
    )


@click.group("mail")
def mail():
    """The sent-mail ledger (docs/operations.md "E-mail")."""


@mail.command("stuck")
@click.option(
    "--older-than",
    "minutes",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="also list claims older than this many minutes",
)
@with_appcontext
def mail_stuck(minutes):
    """List e-mails still ``sending``: every one in doubt, and claims older than
    ``--older-than`` minutes. One tab-separated line each (key, state, attempt, claimed at
    UTC, Message-ID), then a count."""
    from datetime import timedelta

    from webapp.core.mail import stuck

    rows = stuck(timedelta(minutes=minutes))
    for row in rows:
        state = (
            f"in doubt (end of data {row.end_of_data_at:%Y-%m-%d %H:%M:%S})"
            if row.in_doubt
            else "not delivered"
        )
        click.echo(
            f"{row.key}\t{state}\tattempt {row.attempt}\t"
            f"{row.claimed_at:%Y-%m-%d %H:%M:%S}\t{row.message_id}"
        )
    click.echo(f"{len(rows)} stuck e-mail(s)")


@mail.command("resend")
@click.argument("key")
@with_appcontext
def mail_resend(key):
    """Queue the task of a stuck e-mail again (same Message-ID). Exit 2: unknown key,
    already sent, or no recorded task."""
    from webapp.core.mail import MailError, resend
    from webapp.jobs import commit

    try:
        row = resend(key)
    except MailError as exc:
        fail(str(exc))
    commit()
    click.echo(
        f"queued {row.task}{''.join(f' {a}' for a in row.args or [])} for {key} "
        f"(Message-ID {row.message_id})"
    )


@mail.command("mark-sent")
@click.argument("key")
@with_appcontext
def mail_mark_sent(key):
    """Record a stuck e-mail as sent (found delivered in the mail server's log). Exit 2:
    unknown key or already sent."""
    from webapp.core.mail import MailError, mark_sent_by_operator
    from webapp.jobs import commit

    try:
        mark_sent_by_operator(key)
    except MailError as exc:
        fail(str(exc))
    commit()
    click.echo(f"marked {key} as sent")


@click.command("backup")
@click.argument("dest", type=click.Path(dir_okay=True, file_okay=True))
@with_appcontext
def backup_cmd(dest):
    """Back up the database and the documents and uploads folders into one archive (DEST:
    a new file name, or a folder for sova-backup-<UTC time>.tar.gz; that folder's archives
    older than SOVA_BACKUP_RETENTION_DAYS are then deleted), with a SHA-256 manifest.
    Exit 2 when the backup cannot be made."""
    from flask import current_app
    from tqdm import tqdm

    from webapp.backup import BackupError, backup

    with tqdm(unit="file", file=sys.stderr, disable=not sys.stderr.isatty()) as bar:
        try:
            path = backup(
                dest,
                progress=bar.update,
                keep_days=current_app.config["SOVA_BACKUP_RETENTION_DAYS"],
            )
        except BackupError as exc:
            fail(str(exc))
    click.echo(f"backup written: {path} ({path.stat().st_size} bytes)")


@click.command("restore")
@click.argument("archive", type=click.Path(dir_okay=False))
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@with_appcontext
def restore_cmd(archive, yes):
    """Replace the database and the documents and uploads folders by a backup's. The whole
    archive is checked against its manifest first: a damaged or foreign archive changes
    nothing (exit 2). Stop web, workers, relay and beat first."""
    from webapp.backup import BackupError, restore, verify

    if not yes:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            try:
                manifest = verify(archive, Path(tmp))
            except BackupError as exc:
                fail(str(exc))
        click.confirm(
            f"Replace this instance's database and files by the backup of "
            f"{manifest['created_at']} ({len(manifest['files'])} files)?",
            abort=True,
        )
    try:
        manifest = restore(archive)
    except BackupError as exc:
        fail(str(exc))
    click.echo(
        f"restored the backup of {manifest['created_at']}: database "
        f"({manifest['database']['dialect']}, revision "
        f"{manifest['database']['revision']}) and {len(manifest['files']) - 1} files"
    )


@click.group("health")
def health():
    """Liveness of the worker and relay processes (exit 0 alive, 1 not; JSON on stdout)."""


@health.command("worker")
@click.option("--node", default=None, help="Celery node name (default: celery@<this host>).")
@click.option("--timeout", default=3.0, show_default=True, type=click.FloatRange(0.1, 60))
@with_appcontext
def health_worker(node, timeout):
    """Ping the worker through the broker (Celery's remote control): alive when it answers
    within TIMEOUT seconds."""
    import socket

    from flask import current_app

    node = node or f"celery@{socket.gethostname()}"
    try:
        replies = current_app.extensions["celery"].control.ping(destination=[node], timeout=timeout)
    except Exception as exc:  # the broker is down: the worker cannot be reached either
        click.echo(json.dumps({"worker": node, "alive": False, "error": str(exc)[:200]}))
        sys.exit(1)
    alive = any(node in reply for reply in replies)
    click.echo(json.dumps({"worker": node, "alive": alive}))
    sys.exit(0 if alive else 1)


@health.command("relay")
@click.option(
    "--max-age",
    default=30.0,
    show_default=True,
    type=click.FloatRange(0.1, 3600),
    help="Seconds since the relay's last successful poll.",
)
@with_appcontext
def health_relay(max_age):
    """Alive when this host's relay heartbeat file (<instance>/relay-<host>.heartbeat,
    touched after each successful poll) is younger than MAX_AGE seconds."""
    import time

    from webapp.jobs import heartbeat_path

    path = heartbeat_path("relay")
    age = time.time() - path.stat().st_mtime if path.exists() else None
    alive = age is not None and age <= max_age
    click.echo(
        json.dumps(
            {
                "relay": str(path),
                "alive": alive,
                "age_seconds": round(age, 1) if age is not None else None,
            }
        )
    )
    sys.exit(0 if alive else 1)


def register_commands(group: click.Group) -> None:
    """Attach Sova's commands to ``group``: ``app.cli`` (``flask --app webapp …``) and the
    ``sova`` console script's group (:mod:`webapp.cli_entry`). A new command belongs here."""
    from webapp.prizes.cli import keys
    from webapp.submissions.cli import uploads
    from webapp.votes.cli import vote

    for cmd in (
        users,
        import_cmd,
        game,
        season,
        worker,
        beat,
        outbox,
        precheck,
        run_all,
        seed_demo,
        mail,
        keys,
        uploads,
        vote,
        backup_cmd,
        restore_cmd,
        health,
    ):
        group.add_command(cmd)


__all__ = ["fail", "register_commands"]
