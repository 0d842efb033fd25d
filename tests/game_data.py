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
