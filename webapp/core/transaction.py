"""The command edge: one transaction per CLI command that writes, as the request edge
(``webapp.core.edge``) and the task edge (``webapp.tasks.celery.SovaTask``) give one per request
and per task. Commands only flush; :func:`transactional` commits."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from webapp.core.refusal import fail
from webapp.extensions import db
from webapp.tasks.outbox import commit

_F = TypeVar("_F", bound=Callable[..., Any])


def transactional(*refusals: type[Exception]) -> Callable[[_F], _F]:
    """Run the decorated command in one transaction: commit when it returns (or exits
    with code 0), sending the tasks it queued (:func:`webapp.tasks.outbox.commit`); roll back when
    it raises. An exception of a type in ``refusals`` (the operation saying no, e.g.
    ``AccountError``) is a refusal: rolled back, its message on stderr, exit code 2
    (:func:`webapp.core.refusal.fail`); so is the command's own :func:`webapp.cli.fail` (or any
    non-zero exit). Any other exception is rolled back and goes on.

    Put it below ``@with_appcontext`` (it needs the app's session). A command that must
    keep progress in the middle (one transaction per imported file, per batch of queued
    pre-checks) still commits there itself and says why; the decorator then commits the
    rest.
    """

    def decorate(command: _F) -> _F:
        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                result = command(*args, **kwargs)
            except refusals as exc:
                db.session.rollback()
                fail(str(exc))
            except SystemExit as exc:
                if exc.code in (None, 0):
                    commit()
                else:
                    db.session.rollback()
                raise
            except BaseException:
                db.session.rollback()
                raise
            commit()
            return result

        return run  # type: ignore[return-value]

    return decorate
