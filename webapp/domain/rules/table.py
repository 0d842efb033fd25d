"""The game table and the spinning top (rule 000_90d7c8192601ed3a.txt §3.3–§3.4,
002_e025d5ded135c1c4.txt §1.3–§1.4).

Thirteen sectors numbered 1..13 clockwise. The table plan says which sector holds the blitz,
the superblitz and sector 13; every other sector holds one question. The arrow picks a sector;
if that sector has been played, the round is played in the next unplayed sector clockwise,
wrapping from 13 to 1.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .rulesets import BLITZ, SECTOR13, SINGLE, SUPERBLITZ

SECTORS = range(1, 14)


@dataclass(frozen=True)
class Table:
    """Table plan: sector numbers (1..13, distinct) of the blitz, superblitz and sector 13,
    each ``None`` when the table has none."""

    blitz: int | None = None
    superblitz: int | None = None
    sector13: int | None = None

    def kind_of(self, sector: int) -> str:
        """``"blitz"``, ``"superblitz"``, ``"sector13"`` or ``"single"`` for ``sector``."""
        if sector == self.blitz:
            return BLITZ
        if sector == self.superblitz:
            return SUPERBLITZ
        if sector == self.sector13:
            return SECTOR13
        return SINGLE

    def to_json(self) -> dict[str, int | None]:
        """``{"blitz": …, "superblitz": …, "sector13": …}``."""
        return {"blitz": self.blitz, "superblitz": self.superblitz, "sector13": self.sector13}


def next_unplayed(arrow: int, played: Collection[int]) -> int | None:
    """The first sector from ``arrow`` clockwise (``arrow`` itself included, 13 wraps to 1)
    that is not in ``played``; ``None`` when all 13 have been played.

    Rule 000_90d7c8192601ed3a.txt §3.4, 002_e025d5ded135c1c4.txt §1.4.
    """
    for step in range(13):
        sector = (arrow - 1 + step) % 13 + 1
        if sector not in played:
            return sector
    return None
