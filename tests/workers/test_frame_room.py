"""``workers.documents.with_frame_room``: a render's frames on a chunk of their own
(docs/performance-history.md, «Envelope rendering»)."""

from __future__ import annotations

import resource

import pytest

from workers.documents import with_frame_room


def _down(n: int) -> int:
    return 0 if n == 0 else _down(n - 1) + 1


def _oscillate() -> str:
    """What WeasyPrint's style lookups do: 40 frames down and back, 200 times."""
    for _ in range(200):
        _down(40)
    return "done"


def _nest(depth: int, fn):
    return fn() if depth == 0 else _nest(depth - 1, fn)


def _worst_faults(call) -> int:
    """The most page faults of this thread over one ``call()`` at caller depths 0..159."""
    worst = 0
    for depth in range(0, 160, 3):
        before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
        _nest(depth, call)
        worst = max(worst, resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)
    return worst


def test_a_recursion_crossing_a_chunk_end_maps_pages_each_time_without_the_room():
    # The cost the wrapper removes: at some caller depth the 16 KiB chunk's end falls
    # inside the recursion, and each of the 200 descents maps a chunk again (2 faults or
    # more each). If CPython stops freeing chunks this way, this test says so.
    assert _worst_faults(_oscillate) >= 200


def test_with_the_room_the_same_recursion_faults_a_few_pages_at_any_depth():
    # The room is mapped once per call: its first pages, and no more at any depth.
    assert _worst_faults(lambda: with_frame_room(_oscillate)) <= 40


def test_the_room_passes_arguments_results_and_errors_through():
    assert with_frame_room(lambda a, b: (a, b), 1, "x") == (1, "x")
    with pytest.raises(ZeroDivisionError):
        with_frame_room(lambda: 1 / 0)
