"""The callback's group commit (webapp/votes/group_commit.py): requests that queue up behind
a write in flight are written together by one of them, each gets its own result, and a
failed write fails every request of its batch (and no other)."""

from __future__ import annotations

import threading

import pytest

from webapp.votes.group_commit import GroupCommit


def test_queued_requests_are_written_in_one_batch_each_with_its_result():
    group = GroupCommit(max_batch=64)
    batches: list[list[int]] = []
    first_in_flight, release = threading.Event(), threading.Event()

    def flush(items):
        batches.append(list(items))
        if len(batches) == 1:
            first_in_flight.set()
            assert release.wait(10)
        return [i * 10 for i in items]

    results: dict[int, int] = {}

    def submit(i):
        results[i] = group.submit(i, flush)

    leader = threading.Thread(target=submit, args=(0,))
    leader.start()
    assert first_in_flight.wait(10)
    followers = [threading.Thread(target=submit, args=(i,)) for i in range(1, 6)]
    for t in followers:
        t.start()
    while len(group._pending) < 5:  # all five queued behind the write in flight
        threading.Event().wait(0.01)
    release.set()
    for t in [leader, *followers]:
        t.join(10)
    assert batches[0] == [0]
    assert sorted(batches[1]) == [1, 2, 3, 4, 5] and len(batches) == 2
    assert results == {i: i * 10 for i in range(6)}
    assert group._busy is False and group._pending == []


def test_a_failed_write_fails_its_batch_and_the_next_batch_goes_on():
    group = GroupCommit(max_batch=2)
    calls: list[list[str]] = []
    gate = threading.Event()

    def flush(items):
        calls.append(list(items))
        if len(calls) == 1:
            assert gate.wait(10)
            raise ConnectionError("database down")
        return [f"ok {i}" for i in items]

    out: dict[str, object] = {}

    def submit(i):
        try:
            out[i] = group.submit(i, flush)
        except ConnectionError as exc:
            out[i] = f"error: {exc}"

    first = threading.Thread(target=submit, args=("a",))
    first.start()
    while not calls:
        threading.Event().wait(0.01)
    rest = [threading.Thread(target=submit, args=(i,)) for i in ("b", "c", "d")]
    for t in rest:
        t.start()
    while len(group._pending) < 3:
        threading.Event().wait(0.01)
    gate.set()
    for t in [first, *rest]:
        t.join(10)
    assert out["a"] == "error: database down"
    assert [len(c) for c in calls] == [1, 2, 1]  # max_batch 2: b, c then d
    assert {k: out[k] for k in "bcd"} == {"b": "ok b", "c": "ok c", "d": "ok d"}
    with pytest.raises(ValueError):
        group.submit("x", lambda items: (_ for _ in ()).throw(ValueError("bad")))
