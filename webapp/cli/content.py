"""Commands that put content in: staff users (``sova users``), packets (``sova import``),
the demo (``sova seed-demo``)."""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext

from webapp.accounts.operations import AccountError
from webapp.cli import fail, missing_schema, no_tables_message
from webapp.core.transaction import transactional
from webapp.domain.text import quantity
from webapp.resources import package_dir


@click.command("create")
@click.option("--email", required=True)
@click.option("--role", required=True)
@click.option("--password", default=None)
@click.option("--name", default="")
@click.option("--token", "with_token", is_flag=True, help="print an API token (shown once)")
@with_appcontext
@transactional(AccountError)
def users_create(email, role, password, name, with_token):
    """Create a staff user. Exit 2 when the account is refused (the e-mail is taken, the
    role unknown …); nothing is written then."""
    from webapp.accounts.operations import create_user

    user, token = create_user(email, role, password=password, name=name, with_token=with_token)
    click.echo(f"created user {user.email} ({user.role})")
    if token:
        click.echo(token)


@click.command("token")
@click.option("--email", required=True)
@with_appcontext
@transactional()
def users_token(email):
    """Issue a new API token to an existing active user and print it (shown once; alone on
    stdout, what it is on stderr); the user's other tokens keep working (revoke them on the
    staff page). Exit 2 for an unknown or switched-off account."""
    from webapp.accounts.models import User
    from webapp.accounts.operations import issue_token
    from webapp.extensions import db

    user = db.session.scalar(db.select(User).filter_by(email=email.strip().lower()))
    if user is None or not user.active:
        fail(f"no active user with e-mail {email}")
    token = issue_token(user)
    # the token alone on stdout, so that `TOKEN=$(sova users token --email E)` takes it
    click.echo(f"new API token for {user.email} ({user.role})", err=True)
    click.echo(token)


@click.group("users")
def users():
    """Staff users."""


users.add_command(users_create)
users.add_command(users_token)


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--as", "as_", type=click.Choice(["archive", "submissions"]), required=True)
@click.option("--channel", type=click.Choice(["import", "mail", "partner"]), default=None)
@click.option(
    "--images",
    "images_path",
    type=click.Path(exists=True),
    default=None,
    help="A folder or zip with the packets' images ((img …) / (pic: …) files).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="A progress bar per file on stderr (default: when stderr is a terminal).",
)
@click.option(
    "--workers",
    type=click.IntRange(0, 16),
    default=None,
    envvar="SOVA_IMPORT_WORKERS",
    help="Processes reading and preparing the next files while this one is written "
    "(default: 2, or 1 on one CPU; 0: a thread of this process).",
)
@with_appcontext
@transactional()
def import_cmd(files, as_, channel, images_path, progress=None, workers=None):
    """Import question packets (chgksuite 4s or db.chgk.info text; UTF-8, KOI8-R, cp1251).

    A FILE may be a zip holding one packet text and its images, or a folder: every packet
    file in it (``.4s``, ``.txt``, ``.canon``, ``.zip``; not its subfolders), in the order
    of their names — a db.chgk.info dump in one command. A file of any size is taken (the
    web upload keeps its cap). ``--images`` gives a folder
    or zip of images for every FILE. One transaction per file; a bad file (or a bad image)
    is reported and nothing of it kept (exit 2 after the other files are done); referenced
    images without a file are listed (their questions fail the pre-check). ``--as
    archive`` writes in batches (:mod:`webapp.moderation.bulk_import`: the same rows). A
    packet whose questions are stored already (the same question texts) is announced on
    stderr with how many of how many before it is imported again (the contract's exit 2 is
    for a bad file only, so a script that imports a packet twice still succeeds).

    The files are read, parsed and (``--as archive``) made ready to write — cleaned,
    their duplicate index rows computed — by ``--workers`` processes, files ahead of the
    one being written; a worker that dies stops the command (exit 1) with the file it was
    preparing named and nothing of that file or the later ones written."""
    from webapp.submissions.packet_images import BundleError, read_bundle

    shared: dict[str, bytes] = {}
    if images_path:
        try:
            shared = read_bundle(Path(images_path)).images
        except (BundleError, OSError) as exc:
            click.echo(f"Error: {images_path}: {exc}", err=True)
            sys.exit(2)
    paths = packet_paths(files)
    _READER.update(app=current_app._get_current_object(), shared=shared, as_=as_, channel=channel)
    index = _IndexWriter.for_import(as_)
    total, failed = 0, 0
    # The next files are read and prepared (Python's work) while this one is written
    # (mostly the database server's): a folder of packets takes the time of the slower.
    try:
        with _readers(workers) as pool:
            ahead: dict[int, Future] = {}
            for number, path in enumerate(paths, 1):
                for later in range(number, min(len(paths), number + _AHEAD) + 1):
                    if later not in ahead:
                        ahead[later] = pool.submit(_read, paths[later - 1], later)
                label = path.name if len(paths) == 1 else f"[{number}/{len(paths)}] {path.name}"
                made = _read_and_import(
                    ahead.pop(number), number, path, as_, progress, label, index
                )
                _READER["batches"].forget(number)
                if made is None:
                    failed += 1
                else:
                    total += made
    finally:
        stop = _READER.get("stop")
        if stop:
            stop()
        _READER.clear()
        if index is not None:
            index.close()
    click.echo(
        f"total: {quantity(total, QUESTIONS)} from {len(paths) - failed} file(s); {failed} file(s) failed"
    )
    if failed:
        sys.exit(2)


#: Files read ahead of the one being written, beyond it (a few MB each when prepared).
_AHEAD = 2
#: How much lower the reader processes' priority is than the command's (``nice``): they
#: work ahead of the writes, and on a machine of few cores the command and the database
#: server, writing what is ready, must not wait for the CPU behind them.
READER_NICENESS = 10
#: How often a reader process looks whether the command that made it is still there.
PARENT_CHECK_SECONDS = 0.5
#: What the reading of every file of one ``sova import`` shares: the app (its context for
#: the messages), the ``--images`` files, ``--as``, ``--channel``, where the archive's
#: batches go (``send``) and where the command takes them (``batches``). Set by the
#: command before its readers start; a worker process gets it by ``fork``, never pickled.
_READER: dict = {}


class _Batches:
    """The archive's prepared batches as the readers send them, ``(file number, kind,
    item)``: ``head`` (the file's stored texts, its own images), each ``batch``, ``end``;
    held per file until the command takes them in order (:meth:`take`), those of a file
    it is done with dropped."""

    def __init__(self) -> None:
        import collections

        self.held: dict[int, collections.deque] = collections.defaultdict(collections.deque)
        self.done: set[int] = set()
        self.ready = threading.Condition()

    def deliver(self, message: tuple) -> None:
        with self.ready:
            if message[0] not in self.done:
                self.held[message[0]].append(message[1:])
                self.ready.notify_all()

    def take(self, number: int, read: Future) -> tuple:
        """The file's next ``(kind, item)``; raises what its reading raised (its
        :class:`~concurrent.futures.process.BrokenProcessPool` when its process died) once
        what it sent before is taken."""
        with self.ready:
            while not self.held[number]:
                if read.done() and read.exception() is not None:
                    break
                self.ready.wait(0.05)
            if self.held[number]:
                return self.held[number].popleft()
        read.result()
        raise RuntimeError(f"file {number}: its reader ended without its batches")

    def forget(self, number: int) -> None:
        with self.ready:
            self.done.add(number)
            self.held.pop(number, None)


def _readers(workers: int | None):
    """The executor that reads the files: ``workers`` processes made by ``fork`` (None:
    2, or 1 on one CPU), or one thread of this process for 0 or where ``fork`` is not
    offered. Processes because the reading is Python's own work: a thread holds the GIL
    this process needs to drive the writes. The archive's batches come back through one
    pipe (``SimpleQueue``: a ``put`` is in the pipe when it returns), read by a thread of
    the command as they come, so a worker never waits for the command."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    batches = _READER["batches"] = _Batches()
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    if workers == 0 or "fork" not in multiprocessing.get_all_start_methods():
        _READER["send"] = batches.deliver
        return ThreadPoolExecutor(max_workers=1)
    context = multiprocessing.get_context("fork")
    pipe = context.SimpleQueue()
    _READER["send"] = pipe.put
    stopped = threading.Event()

    def drain() -> None:
        # polled, not a blocking get: stopping it needs no write to the pipe, whose lock
        # a worker killed in the middle of a put keeps for ever
        while not stopped.is_set():
            if pipe.empty():
                stopped.wait(0.005)
            else:
                batches.deliver(pipe.get())

    # a daemon: a worker dying in the middle of a message leaves it waiting for the rest
    drainer = threading.Thread(target=drain, name="sova-import-batches", daemon=True)
    drainer.start()

    def stop() -> None:
        stopped.set()
        drainer.join(timeout=1)
        if not drainer.is_alive():
            pipe.close()

    _READER["stop"] = stop
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_reader_start, initargs=(os.getpid(),)
    )


def _reader_start(command: int) -> None:
    """A reader process's first step: a lower priority (:data:`READER_NICENESS`), and a
    thread that ends the process once the command (process id ``command``) is gone. A
    command killed outright (``SIGKILL``, the OOM killer) cannot stop its readers, and a
    reader whose batches no one reads any more waits for ever on the full pipe; its parent
    no longer being the command (the process that adopts orphans has it) is the sign."""
    import os

    os.nice(READER_NICENESS)
    parent = command

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="sova-import-parent", daemon=True).start()


def _read(path: Path, number: int):
    """Read and parse ``path``, file ``number`` (in a reader, :func:`_readers`): ``(packet,
    own images)`` for ``--as submissions``; for ``--as archive`` the file's ``head``, then
    its batches (:func:`webapp.moderation.bulk_import.batches`) sent as they are made, then
    ``end`` (:class:`_Batches`), and None. ``own images``: a zip's images, the
    ``--images`` ones not repeated (the command has them)."""
    with _READER["app"].app_context():  # the reader's messages are translated as the command's
        packet, images = _packet_and_images(path, {})
        if _READER["as_"] != "archive":
            return packet, images
        from webapp.extensions import db
        from webapp.moderation.bulk_import import batches
        from webapp.submissions.operations.packet_import import stored_text

        send = _READER["send"]
        send((number, "head", ([stored_text(pq) for pq in packet.questions], images)))
        dialect = db.engine.dialect  # the values bound as the command's writes bind them
        for batch in batches(packet, _READER["channel"], origin=path.name, dialect=dialect):
            send((number, "batch", batch))
        send((number, "end", None))
        return None


class _IndexWriter:
    """``sova import --as archive`` on PostgreSQL: the duplicate index rows of each
    committed file (:func:`webapp.moderation.bulk_import.write_index`), written in a
    transaction of their own by a thread of the command, on a connection of its own,
    while the command writes the next file — so the database server works on two files
    at once. One file after the other, in order. A file's rows are owed by an outbox row
    committed with its questions: if they cannot be written now (a warning names the file),
    or the command is killed first, a worker writes them (``moderation.index_questions``).
    """

    def __init__(self, engine) -> None:
        import queue

        self.engine = engine
        self.todo: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None

    @classmethod
    def for_import(cls, as_: str) -> _IndexWriter | None:
        """The writer for an import ``--as as_`` into this app's database, or None where
        the index is written with the questions (SQLite: one writer at a time; ``--as
        submissions``: the pre-check indexes them)."""
        from webapp.extensions import db

        if as_ != "archive" or db.engine.dialect.name != "postgresql":
            return None
        return cls(db.engine)

    def submit(self, path: Path, done) -> None:
        """Write the rows a committed file left (``done``: its ``ArchiveImport``). The
        thread starts with the first file, once the reader processes are forked: a fork
        copies only the thread that makes it, and none of this one's locks."""
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="sova-import-index", daemon=True)
            self.thread.start()
        self.todo.put((path, done))

    def _run(self) -> None:
        from webapp.moderation.bulk_import import write_index

        while (item := self.todo.get()) is not None:
            path, done = item
            try:
                with self.engine.begin() as connection:
                    write_index(connection, done)
            except Exception as exc:  # the rows stay owed: a worker writes them
                click.echo(
                    f"Warning: {path}: its duplicate index was not written now "
                    f"({type(exc).__name__}: {str(exc).splitlines()[0]}); a worker will "
                    "write it (the task moderation.index_questions is owed)",
                    err=True,
                )

    def close(self) -> None:
        """Wait for the rows of every file submitted."""
        if self.thread is not None:
            self.todo.put(None)
            self.thread.join()


class WorkerDied(click.ClickException):
    """A reader process of ``sova import`` stopped without an answer (killed, out of
    memory): the command stops, exit 1."""

    exit_code = 1


def _read_and_import(
    read: Future, number: int, path: Path, as_, progress, label, index=None
) -> int | None:
    """Import the file ``path``, file ``number``, as its reading (``read``, :func:`_read`)
    gives it: the number of questions, or None after printing why the file failed (nothing
    of it kept); ``index``: the command's :class:`_IndexWriter`, if any. Raises
    :class:`WorkerDied` when the process reading it died."""
    from concurrent.futures.process import BrokenProcessPool

    from webapp.domain.packets import PacketError
    from webapp.moderation.bulk_import import Prepared
    from webapp.submissions.packet_images import BundleError

    try:
        if as_ == "archive":
            kind, (texts, images) = _READER["batches"].take(number, read)
            assert kind == "head"  # noqa: S101  # the reader sends it first

            def batches():
                while (got := _READER["batches"].take(number, read))[0] == "batch":
                    yield got[1]

            packet = Prepared(_READER["channel"] or "archive", texts, batches())
        else:
            packet, images = read.result()
    except BrokenProcessPool as exc:
        raise _died(path, exc) from exc
    except (PacketError, BundleError, OSError) as exc:
        if isinstance(exc, PacketError) and exc.filename == path.name:
            # the error names the file already: say its path once
            exc = exc.with_filename(str(path))
            click.echo(f"Error: {exc}", err=True)
        else:
            click.echo(f"Error: {path}: {exc}", err=True)
        return None
    images = {**_READER["shared"], **images}
    return _import_one(path, packet, as_, _READER["channel"], images, progress, label, index)


def _died(path: Path, exc: BaseException) -> WorkerDied:
    return WorkerDied(
        f"{path}: the process reading it stopped ({exc}); nothing of it or of the "
        "files after it was imported"
    )


def packet_paths(names: tuple[str, ...]) -> list[Path]:
    """The files ``sova import`` reads, in order: each name as given, a folder replaced by
    its packet files (:data:`webapp.submissions.packet_images.PACKET_SUFFIXES` and
    ``.zip``, the folder's own files only) sorted by name. A folder without one is an
    error (exit 2): an operator who named the wrong folder is told, not given «0 files»."""
    from webapp.submissions.packet_images import PACKET_SUFFIXES

    suffixes = PACKET_SUFFIXES | {".zip"}
    paths: list[Path] = []
    for name in names:
        path = Path(name)
        if not path.is_dir():
            paths.append(path)
            continue
        found = sorted(
            (p for p in path.iterdir() if p.suffix.lower() in suffixes and p.is_file()),
            key=lambda p: p.name,
        )
        if not found:
            fail(f"{path}: no packet file ({', '.join(sorted(suffixes))}) in this folder")
        paths.extend(found)
    return paths


def _packet_and_images(path: Path, shared: dict[str, bytes]):
    """The parsed packet of ``path`` (a packet text, or a zip holding one) and its images
    (the zip's, else ``shared``)."""
    from webapp.domain.packets import PacketError
    from webapp.submissions.packet_files import read_packet_bytes, read_packet_file
    from webapp.submissions.packet_images import read_bundle

    if path.suffix.lower() != ".zip":
        # any size: the operator chose the file (the web upload keeps MAX_PACKET_BYTES)
        return read_packet_file(path, max_bytes=None), shared
    bundle = read_bundle(path)
    if bundle.packet is None:
        raise PacketError("the zip holds no packet file (.4s, .txt)", code="zip_no_packet")
    return read_packet_bytes(bundle.packet[1], bundle.packet[0]), {**shared, **bundle.images}


def _import_one(
    path: Path, packet, as_, channel, images, progress=None, label: str | None = None, index=None
) -> int | None:
    """Import one parsed packet (``--as archive``: as :func:`webapp.moderation.bulk_import.
    prepare` made it) in one transaction; the number of questions, or None after
    printing why it failed (nothing kept). ``progress``: the bar on stderr (None: when
    stderr is a terminal). A packet whose questions are stored already is announced first
    (a warning on stderr: how many of how many). ``index``: an :class:`_IndexWriter` that
    writes the file's duplicate index rows after its commit (None: in its transaction)."""
    from concurrent.futures.process import BrokenProcessPool

    from tqdm import tqdm

    from webapp.extensions import db
    from webapp.submissions.operations import already_there, import_packet, texts_already_there
    from webapp.submissions.packet_images import missing_refs
    from webapp.tasks.outbox import commit

    try:
        if as_ == "archive":
            already = texts_already_there(packet.texts)
        else:
            already = already_there(packet)
    except Exception as exc:
        if missing_schema(exc):  # as every other command says it
            orig = exc.orig  # type: ignore[attr-defined]  # a DBAPIError (missing_schema)
            fail(no_tables_message(f"{type(orig).__name__}: {str(orig).splitlines()[0]}"))
        raise
    if already is not None:
        click.echo(
            f"Warning: {path}: {already.present} of {already.total} questions are already in "
            "the database (the same question text); importing them again.",
            err=True,
        )
    uploads = Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    with tqdm(
        total=len(packet) if as_ == "archive" else len(packet.questions),
        desc=label or path.name,
        unit="q",
        file=sys.stderr,
        disable=not (sys.stderr.isatty() if progress is None else progress),
    ) as bar:
        try:
            if as_ == "archive":  # the bulk path: the same rows, batches instead of objects
                from webapp.moderation.bulk_import import write

                done = write(
                    packet,
                    progress=bar.update,
                    images=images,
                    uploads=uploads,
                    index_after_commit=index is not None,
                )
                count, n_images, missing = len(done.ids), done.images, done.missing
            else:
                made = import_packet(
                    packet,
                    as_=as_,
                    channel=channel,
                    origin=path.name,
                    progress=bar.update,
                    images=images,
                    uploads=uploads,
                )
                count, n_images = len(made), sum(len(q.images) for q in made)
                missing = missing_refs(made)
            # Kept on purpose: one transaction per file, so a bad file further on does not
            # take the good ones with it (the command's edge commits only what is left).
            commit()
            if index is not None and done.owed is not None:
                index.submit(path, done)
        except BrokenProcessPool as exc:  # its batches stopped coming: nothing of it kept
            db.session.rollback()
            raise _died(path, exc) from exc
        except Exception as exc:
            db.session.rollback()
            if missing_schema(exc):  # as every other command says it
                orig = exc.orig  # type: ignore[attr-defined]  # a DBAPIError (missing_schema)
                fail(no_tables_message(f"{type(orig).__name__}: {str(orig).splitlines()[0]}"))
            click.echo(f"Error: {path}: {exc}", err=True)
            return None
    click.echo(f"{path.name}: imported {quantity(count, QUESTIONS)} as {as_}")
    if n_images:
        click.echo(f"{path.name}: {n_images} image(s) attached")
    if missing:
        click.echo(f"{path.name}: no file for {len(missing)} image(s): {', '.join(missing)}")
    return count


#: The import's messages count questions in English (``quantity``: «1 question»).
QUESTIONS = ("question", "questions")


DEMO_ROLES = ("editor", "chief_editor", "producer", "host", "accountant", "admin")
#: The playable demo pool: 20 questions by 20 different authors, so that «Заполнить стол»
#: can fill a 2023 table (17 envelope questions, no author twice in a game) with reserves.
DEMO_POOL = package_dir() / "demo" / "demo_pool.4s"
#: The archive packet seed-demo imports when given none (``--archive``).
SAMPLE_ARCHIVE = package_dir() / "submissions" / "sample_packet.4s"


def _demo_email(role: str) -> str:
    from webapp.accounts.models import DEMO_DOMAIN

    return f"{role.replace('_', '-')}@{DEMO_DOMAIN}"


@click.command("seed-demo")
@click.option(
    "--archive",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="packet imported as archive when there are no questions "
    "(default: the package's sample packet)",
)
@with_appcontext
@transactional()
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
    from webapp.submissions.models import Question

    if current_app.config.get("SOVA_ENV") == "production":
        fail(
            "seed-demo is refused when SOVA_ENV=production: its accounts' passwords are "
            "published; create staff with `sova users create` or the admin's «Сотрудники» page"
        )
    if db.session.scalar(db.select(db.func.count()).select_from(User)) == 0:
        click.echo("Demo staff users (password = role name + '-demo'):")
        for role in DEMO_ROLES:
            email = _demo_email(role)
            create_user(email, role, password=f"{role}-demo")
            click.echo(f"  {role:13} {email:28} {role}-demo")
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
    _print_vote_rehearsal()


def _print_vote_rehearsal() -> None:
    """In development with ``SOVA_SMS_SECRET`` set (``make run`` sets the rehearsal one),
    print the secret and the ``sova vote simulate`` command that rehearses the §3.1 vote
    against this instance (``SOVA_PUBLIC_URL``); nothing in production."""
    from flask import current_app

    secret = current_app.config.get("SOVA_SMS_SECRET")
    if current_app.config.get("SOVA_ENV") == "production" or not secret:
        return
    click.echo(f"SMS gateway rehearsal secret (development only): {secret}")
    click.echo(
        "  open a vote on a finished 2009 game's vote page, then: "
        f"sova vote simulate --url {current_app.config['SOVA_PUBLIC_URL']} "
        f"--secret {secret} --total 100"
    )


def _seed_demo_pool() -> None:
    """The approved, signed-off demo pool of :func:`seed_demo` (see there)."""
    from webapp.accounts.models import User
    from webapp.extensions import db
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
    for question in made:
        precheck(question.id)
        decide(question, "approve", editor.id)
        sign_off(question, chief.id)
    click.echo(
        f"Demo pool: {len(made)} questions from {origin} approved by {editor.email} "
        f"and signed off by {chief.email} — enough for «Заполнить стол»."
    )
