"""`make bench`: benchmarks as JSON lines (never run by `make test`).

Measures the pure pieces on real data when ../shared is present (the question packets),
on the shipped sample packet otherwise: packet parsing, matching-key folding, rapidfuzz
duplicate ranking (brute force over the archive), and a full game replay.
"""

from __future__ import annotations

import json
import statistics
import time
import tracemalloc
from pathlib import Path

from rapidfuzz import fuzz, process

from webapp.domain.books import BOOKS
from webapp.domain.packets import parse_packet
from webapp.domain.rules import replay
from webapp.domain.text import matching_key
from webapp.submissions.packet_files import SAMPLE_PACKET, decode_packet_bytes

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data" / "chgk" / "alexander-pecheny__chgksuite"


def emit(name: str, **values) -> None:
    print(json.dumps({"bench": name, **values}, ensure_ascii=False), flush=True)


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="accepted; this bench is small")
    parser.parse_args()
    files = sorted(SHARED.glob("*.canon")) if SHARED.is_dir() else [SAMPLE_PACKET]
    texts = [decode_packet_bytes(p.read_bytes())[0] for p in files]
    tracemalloc.start()
    t = time.perf_counter()
    questions = [q for text in texts for q in parse_packet(text).questions]
    parse_s = time.perf_counter() - t
    emit(
        "parse_packets",
        files=len(files),
        questions=len(questions),
        seconds=round(parse_s, 3),
        peak_mb=round(tracemalloc.get_traced_memory()[1] / 2**20, 1),
    )
    tracemalloc.stop()
    t = time.perf_counter()
    keys = {i: matching_key(q.question) for i, q in enumerate(questions)}
    emit(
        "matching_key",
        questions=len(keys),
        us_per_question=round((time.perf_counter() - t) / max(1, len(keys)) * 1e6, 1),
    )
    probes = list(keys.values())[:50]
    lat = timed(
        lambda: [process.extract(p, keys, scorer=fuzz.token_set_ratio, limit=5) for p in probes], 3
    )
    per = sorted(x / len(probes) * 1000 for x in lat)
    emit("duplicate_bruteforce", archive=len(keys), ms_per_lookup_median=round(per[1], 2))
    events = []
    for sector in range(1, 12):  # experts win sectors 3, 6, 9; the viewers reach 6 at sector 8
        events += [
            {"type": "spin", "sector": sector},
            {"type": "answer", "correct": sector % 3 == 0},
        ]
        if sector == 8:
            break
    lat = timed(
        lambda: replay(
            BOOKS["2023"], {"blitz": None, "superblitz": None, "sector13": None}, {}, events
        ),
        200,
    )
    emit("replay_game", events=len(events), us_median=round(statistics.median(lat) * 1e6, 1))


if __name__ == "__main__":
    main()
