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

from .errors import RuleViolation
from .rulesets import BLITZ, SECTOR13, SINGLE, SUPERBLITZ, RuleSet

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


def check_plan(table: Table, rules: RuleSet) -> None:
    """Refuse a table plan the rule book does not allow (:class:`RuleViolation` with
    ``event_index=None``; the shape — sectors 1..13, distinct — is checked by
    ``protocol.parse_table``).

    A book with ``plan_sector13_fixed`` (2009, 002_e025d5ded135c1c4.txt): the Internet questions are in the 13th sector (§1.3), so
    ``sector13`` is 13 when the plan places it; the superblitz (§1.4.2) and the blitz (§1.4.3)
    are one of the other twelve, never sector 13. ``sector13: null`` stays allowed (the game
    protocol lets any of the three be null: a table without live questions plays sector 13 as
    a single question). 2023 (§3.3, §3.4.1–§3.4.2): any distinct sectors; nothing more to check.
    """
    if not rules.plan_sector13_fixed:
        return
    if table.sector13 is not None and table.sector13 != 13:
        raise RuleViolation(
            None,
            rules.cite("table"),
            f"the Internet questions are in sector 13, not in sector {table.sector13}",
            "plan_sector13_elsewhere",
            {"sector": table.sector13},
        )
    for kind, topic in ((BLITZ, "blitz"), (SUPERBLITZ, "superblitz")):
        if getattr(table, kind) == 13:
            raise RuleViolation(
                None,
                rules.cite(topic),
                f"the {kind} is one of the twelve sectors of posted questions, not sector 13",
                "plan_multi_on_13",
                {"kind": kind},
            )


def usual_plan(rules: RuleSet) -> Table:
    """The plan a new game's form starts from: blitz in sector 11, superblitz in sector 12,
    sector 13 in sector 13 (:class:`Table`).

    Both books have all three on the table (000_90d7c8192601ed3a.txt §3.3, §3.4.1–§3.4.3;
    002_e025d5ded135c1c4.txt §1.3, §1.4.1–§1.4.3) but name no sector for the blitz and the
    superblitz ("one of the thirteen/twelve sectors may be"). Reading chosen: the usual plan
    holds all three, in sectors 11, 12 and 13 (2009 §1.3 puts sector 13's questions in sector
    13; 11 and 12 are the form's long-standing 2009 default, used for 2023 too). The producer
    may change any of them; the rule set is accepted for a later per-book difference.
    """
    del rules  # both books: the same usual plan
    return Table(blitz=11, superblitz=12, sector13=13)


def missing_multi(table: Table, rules: RuleSet) -> tuple[str, ...]:
    """The multi-question sectors (``"blitz"``, ``"superblitz"``, in that order) the plan
    lacks although the book has them (000_90d7c8192601ed3a.txt §3.4.1–§3.4.2,
    002_e025d5ded135c1c4.txt §1.4.2–§1.4.3): a warning for the producer, not a refusal — the
    books say the sector "may be" on the table, so a plan without one stays legal.
    """
    if not rules.warns_missing_multi:
        return ()
    return tuple(kind for kind in (BLITZ, SUPERBLITZ) if getattr(table, kind) is None)
