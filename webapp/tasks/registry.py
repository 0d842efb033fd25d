"""Where a task is declared, and where its body registers under that declaration.

A feature declares each of its tasks once, in ``webapp/<feature>/tasks.py``::

    RENDER_ENVELOPES = declare(
        "games.render_envelopes",
        body="workers.games",
        renders=("envelopes", "host_cards", "sector13_card"),
    )
    PURGE_NUMBERS = declare("votes.purge_numbers", body="workers.votes", schedule=DAILY)

and the body, in the module the declaration names, registers under it::

    @task(tasks.RENDER_ENVELOPES, acks_late=True, time_limit=180)
    def render_envelopes(document_id: int) -> int | None: ...

The declaration and the body are apart because the web process requests tasks (by name,
through the outbox), builds the beat's schedule and requests documents again, but must
never import a body: the bodies live in ``workers`` and render with WeasyPrint. So the
name, the schedule, the module of the body and the document kinds a task renders live
with the feature, importable by anyone; the Celery options that only a running body needs
(time limits, retries) live on the body. :func:`task` refuses a body for a name nobody
declared, or in another module than the declared one, so the two cannot drift apart.

Names never change: outbox rows in flight and the reconciliation hold them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from importlib import import_module
from typing import Any

#: A beat schedule: a fixed interval, or one read from the app's configuration.
Schedule = timedelta | Callable[[Mapping[str, Any]], timedelta]

#: The modules that declare tasks: the outbox's own, then each feature's ``tasks.py``. A
#: feature with background work adds its module here.
DECLARING_MODULES = (
    "webapp.tasks.outbox",
    "webapp.submissions.tasks",
    "webapp.moderation.tasks",
    "webapp.games.tasks",
    "webapp.prizes.tasks",
    "webapp.votes.tasks",
)


@dataclass(frozen=True)
class Declaration:
    """One task: its ``name`` (what outbox rows hold), ``body`` (the module that defines
    it), ``schedule`` (a beat entry when set), ``renders`` (the Document kinds it renders)
    and ``takes`` (the Document attribute its one argument is, ``"id"`` or ``"prize_id"``;
    None when the requester passes another row's id, such a document cannot be requested
    again from its row alone)."""

    name: str
    body: str
    schedule: Schedule | None = None
    renders: tuple[str, ...] = ()
    takes: str | None = "id"

    @property
    def beat_entry(self) -> str:
        """The beat entry's name: the task's, dashed (``votes-purge-numbers``)."""
        return self.name.replace(".", "-").replace("_", "-")

    def interval(self, config: Mapping[str, Any]) -> timedelta | None:
        """The beat interval under ``config``; None for a task the beat does not run."""
        if self.schedule is None or isinstance(self.schedule, timedelta):
            return self.schedule
        return self.schedule(config)


_DECLARED: dict[str, Declaration] = {}


def declare(
    name: str,
    *,
    body: str,
    schedule: Schedule | None = None,
    renders: tuple[str, ...] = (),
    takes: str | None = "id",
) -> str:
    """Declare task ``name`` (see :class:`Declaration`) and return the name, the constant
    a requester passes to ``enqueue``. ValueError when ``name`` is already declared
    otherwise, or a kind in ``renders`` already has its task."""
    declaration = Declaration(name, body, schedule, tuple(renders), takes)
    known = _DECLARED.get(name)
    if known is not None and known != declaration:
        raise ValueError(f"task {name!r} declared twice: {known} and {declaration}")
    for other in _DECLARED.values():
        twice = set(other.renders) & set(declaration.renders)
        if other.name != name and twice:
            raise ValueError(f"document kinds {sorted(twice)} rendered by {other.name} and {name}")
    _DECLARED[name] = declaration
    return name


def declarations() -> dict[str, Declaration]:
    """Every declared task by name (the :data:`DECLARING_MODULES` imported first)."""
    for module in DECLARING_MODULES:
        import_module(module)
    return dict(_DECLARED)


def task_names() -> set[str]:
    """Every task name Sova defines."""
    return set(declarations())


def beat_schedule(config: Mapping[str, Any]) -> dict[str, dict]:
    """The beat's schedule under ``config``: one entry per task declared with a schedule."""
    schedule = {}
    for declaration in declarations().values():
        every = declaration.interval(config)
        if every is not None:
            schedule[declaration.beat_entry] = {"task": declaration.name, "schedule": every}
    return schedule


def renderer(kind: str) -> Declaration:
    """The task that renders Document kind ``kind``. LookupError when none is declared."""
    for declaration in declarations().values():
        if kind in declaration.renders:
            return declaration
    raise LookupError(f"no task renders documents of kind {kind!r}")


def document_tasks() -> dict[str, tuple[str, str]]:
    """Document kind → (the task that renders it, the Document attribute the task takes),
    for the kinds a pending row alone says how to request again (the reconciliation)."""
    return {
        kind: (declaration.name, declaration.takes)
        for declaration in declarations().values()
        if declaration.takes is not None
        for kind in declaration.renders
    }


def task(name: str, **options: Any) -> Callable[[Callable[..., Any]], Any]:
    """Register the decorated function as the Celery task ``name`` (``ignore_result``, and
    ``options`` such as time limits and retries). The task must be declared
    (:func:`declare`) with this module as its body: LookupError or ValueError otherwise,
    at import, so a worker never starts with a body its declaration does not know."""
    from celery import shared_task

    declaration = _DECLARED.get(name)
    if declaration is None:
        raise LookupError(f"task {name!r} is not declared: declare it in its feature's tasks.py")

    def register(body: Callable[..., Any]) -> Any:
        if body.__module__ != declaration.body:
            raise ValueError(
                f"task {name!r} is declared with its body in {declaration.body},"
                f" not in {body.__module__}"
            )
        return shared_task(name=name, ignore_result=True, **options)(body)

    return register
