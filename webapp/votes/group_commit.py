"""Group commit for the SMS callback's hottest write (designed for the
broadcast burst; figures in docs/performance.md).

Each gunicorn worker process serves several callbacks at once (gthread threads). Instead of
one INSERT — one transaction, one WAL flush — per message, the requests that arrive while a
write is in flight are written together by the next one: the first request to find no
write in flight becomes the *leader*, takes every waiting request (up to ``max_batch``),
runs ``flush(items)`` once and wakes them; if more arrived meanwhile, it hands the
leadership to the oldest of them (which then writes the next batch, itself included) and
returns. Nobody waits on a timer: an idle server writes each message at once (a batch of
one), a busy one writes as many as have queued up behind the write in flight.

Exactness is not this module's business: ``flush`` must write a batch in one atomic
statement and report per item what happened; a failed flush (the database is down) raises
in every request of the batch (the gateway retries; nothing of the batch was written).
Nothing is acknowledged before its batch is committed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any


class _Slot:
    __slots__ = ("item", "event", "lead", "result", "error")

    def __init__(self, item: Any):
        self.item = item
        self.event = threading.Event()
        self.lead = False
        self.result: Any = None
        self.error: BaseException | None = None


class GroupCommit:
    """Leader/follower batching of ``flush(items) -> results`` (one result per item, same
    order) across the threads of one process. :meth:`submit` returns the item's result or
    raises the flush's exception."""

    def __init__(self, max_batch: int = 64):
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._pending: list[_Slot] = []
        self._busy = False

    def submit(self, item: Any, flush: Callable[[Sequence[Any]], Sequence[Any]]) -> Any:
        slot = _Slot(item)
        with self._lock:
            self._pending.append(slot)
            if not self._busy:
                self._busy = slot.lead = True
        if not slot.lead:
            slot.event.wait()
        if slot.lead:
            self._lead(flush)
        if slot.error is not None:
            raise slot.error
        return slot.result

    def _lead(self, flush: Callable[[Sequence[Any]], Sequence[Any]]) -> None:
        with self._lock:
            batch = self._pending[: self.max_batch]
            del self._pending[: self.max_batch]
        try:
            results = flush([s.item for s in batch])
            for s, r in zip(batch, results, strict=True):
                s.result = r
        except BaseException as exc:  # every request of the batch answers the failure
            for s in batch:
                s.error = exc
        finally:
            with self._lock:
                if self._pending:
                    nxt = self._pending[0]
                    nxt.lead = True
                    nxt.event.set()
                else:
                    self._busy = False
            for s in batch:
                s.lead = False
                s.event.set()
