"""Shared game data for tests: one protocol, used by the unit, integration and fault tests."""

# 2023 rules, table {"blitz": 4}: the experts lose 3:6; the blitz in sector 4 is lost on
# its second question (its third is unasked); sectors 3, 10, 11, 12 are never played.
LOSE_3_6_WITH_LOST_BLITZ = [
    {"type": "spin", "sector": 1},
    {"type": "answer", "correct": False},
    {"type": "spin", "sector": 2},
    {"type": "answer", "correct": True},
    {"type": "spin", "sector": 4},
    {"type": "answer", "correct": True},
    {"type": "answer", "correct": False},
    {"type": "spin", "sector": 13},
    {"type": "answer", "correct": False},
    {"type": "spin", "sector": 5},
    {"type": "answer", "correct": True},
    {"type": "spin", "sector": 6},
    {"type": "answer", "correct": False},
    {"type": "spin", "sector": 7},
    {"type": "answer", "correct": True},
    {"type": "spin", "sector": 8},
    {"type": "answer", "correct": False},
    {"type": "spin", "sector": 9},
    {"type": "answer", "correct": False},
]


def single_rounds(results: str, sectors=(1, 2, 3, 5, 6, 7, 8, 9, 11, 12)) -> list[dict]:
    """Single rounds in ``sectors`` (a 2023 table with the blitz in 4 and the superblitz in
    10 by default), one per result: "E" the experts answer right, "V" wrong; a spin and its
    answer (not early) each."""
    return [
        e
        for sector, result in zip(sectors, results, strict=False)
        for e in (
            {"type": "spin", "sector": sector},
            {"type": "answer", "correct": result == "E", "early": False},
        )
    ]
