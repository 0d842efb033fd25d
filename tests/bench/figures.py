"""Figures the benches report."""

from __future__ import annotations


def percentile(values: list[float], p: float) -> float | None:
    """The ``p``-th percentile (0..100) of ``values`` by the nearest rank (no interpolation);
    None for no values."""
    if not values:
        return None
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]
