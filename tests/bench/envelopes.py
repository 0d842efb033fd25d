"""Envelope rendering benchmark: ``python -m tests.bench.envelopes``, JSON lines.

A 13-sector 2023 game (blitz, superblitz, sector 13: 17 questions of realistic length) on a
fresh SQLite database with the real migrations. For the envelopes and the host cards, three
paths are timed on the same HTML:

- ``sova``: the whole task ``workers.games.render_envelopes`` — database reads, context
  (primitives, props list), Jinja with forced autoescape, the restricted URL fetcher, fixed
  font timestamps, WeasyPrint (the process's shared font configuration, content-derived
  /ID), SHA-256, the atomic file write, the commit;
- ``weasyprint``: ``weasyprint.HTML(string=html, base_url=templates/pdf).write_pdf()`` on the
  very HTML ``workers.documents.render_html`` produced, with no Sova code around it: what
  anyone would write, and the issue's anchor;
- ``weasyprint_fonts``: the same bare call given one shared ``FontConfiguration`` (as Sova
  does): Sova against it is the cost of Sova's own code and options alone.

Each path runs ``REPEAT`` times after one warm-up of each, in rounds: every round runs the
three once, the order rotating from round to round, each run after a ``gc.collect()`` (no
path pays for another's garbage); resetting the document to "pending" (so the idempotent
task renders again) happens before, outside the measured call. Each run is measured in CPU
time of this process (``time.process_time``: the figure a shared machine disturbs least)
and in wall-clock time. Reported per document: the CPU medians with their spread (min,
max), the overhead ``(sova − weasyprint) / weasyprint`` of the CPU medians (target
≤ 5 %), the median and spread of the per-round ratios ``sova / weasyprint`` (the two runs of
a round are seconds apart, so a load that drifts over the bench moves both), the same
against ``weasyprint_fonts``, the kernel's part of the CPU time (``*_sys_s``), the PDF sizes
and the load average; the ``pair`` line is the issue's pair, Sova and its anchor from this
one run with their ratio.

``--instructions`` counts instead of timing (needs valgrind and gcc with the valgrind
headers): the bench runs itself under ``valgrind --tool=callgrind --instr-atstart=no`` and
each measured call is bracketed by callgrind's client requests (zero, dump); the setup and
the warm-ups run uninstrumented. Instructions do not depend on the other processes of the
machine (the runs of a path agree within 0.1 %), but they miss the kernel's time; a run
takes about 5 CPU-minutes per document. ``--rounds N`` sets the rounds of either mode.
"""

from __future__ import annotations

import gc
import json
import os
import re
import resource
import secrets
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

REPEAT = 9


def emit(name: str, **values) -> None:
    line = {"bench": name, **values, "loadavg": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(line, ensure_ascii=False), flush=True)


def measure(fn, prepare=None) -> tuple[float, float, float]:
    """``(cpu_s, wall_s, sys_s)`` of one call of ``fn``, after ``prepare()`` (not measured)
    and a full garbage collection; ``sys_s`` is the kernel's part of ``cpu_s`` (file and
    database I/O, page faults), which an instruction count does not see."""
    if prepare is not None:
        prepare()
    gc.collect()
    k = resource.getrusage(resource.RUSAGE_SELF).ru_stime  # os.times() counts in 10 ms ticks
    c, t = time.process_time(), time.perf_counter()
    fn()
    cpu, wall = time.process_time() - c, time.perf_counter() - t
    return cpu, wall, resource.getrusage(resource.RUSAGE_SELF).ru_stime - k


def spread(values: list[float], digits: int = 3) -> list[float]:
    return [round(min(values), digits), round(max(values), digits)]


def _seed(app) -> tuple[int, dict[str, int]]:
    from webapp.accounts.operations import create_user
    from webapp.extensions import db
    from webapp.games.operations import assign_envelopes, lock_table, request_envelopes
    from webapp.games.season.operations import create_game, create_season
    from webapp.moderation.models import QuestionSignoff
    from webapp.submissions.models import Author, Question, QuestionAuthor
    from webapp.tasks.outbox import commit

    signer, _ = create_user("bench@sova.local", "editor", password="bench-pw")
    db.session.flush()
    for k in range(1, 31):
        q = Question(
            public_token=secrets.token_urlsafe(24),
            channel="partner" if k > 28 else "web",
            status="approved",
            matching_key=f"bench{k}",
            sources=[
                "https://ru.wikipedia.org/wiki/Что%3F_Где%3F_Когда%3F",
                "Книга «Что? Где? Когда?», 2001, с. 112",
            ],
            text=(
                f"Внимание, в вопросе {k} есть замены. Во время одной из игр знатоки "
                "получили в чёрном ящике предмет, о котором рассказывал ведущий: его "
                "назначение долго оставалось загадкой для историков. Назови́те его."
            ),
            answer=f"Ответ {k}",
            accepted="Синоним ответа",
            rejected="Неточный ответ",
            comment="Комментарий автора: откуда взялся вопрос и почему ответ верен.",
            handout="Раздаточный материал:\nстрока 1\nстрока 2" if k % 5 == 0 else None,
        )
        q.authors.append(
            QuestionAuthor(author=Author(name=f"Автор {k}", city=f"Город {k}"), position=0)
        )
        db.session.add(q)
        db.session.flush()
        db.session.add(QuestionSignoff(question_id=q.id, user_id=signer.id))
    season = create_season("Сезон 2023", "2023")
    game = create_game(
        season.id,
        "qualifying",
        date(2023, 3, 4),
        {"blitz": 4, "superblitz": 9, "sector13": 13},
        team="Команда",
    )
    assign_envelopes(game)
    lock_table(game, signer.id)
    docs = request_envelopes(game, copies=1)
    commit()
    return game.id, {d.kind: d.id for d in docs}


CALLGRIND_SHIM = r"""
#include <valgrind/callgrind.h>
void sova_bench_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void sova_bench_zero(void) { CALLGRIND_ZERO_STATS; }
void sova_bench_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
"""


class Callgrind:
    """Instructions executed by single calls, in a process run under ``valgrind
    --tool=callgrind --instr-atstart=no``: a tiny C library (``CALLGRIND_SHIM``, built by
    :func:`instructions`) zeroes the counters before the call and dumps them after it,
    labelled; the setup and the warm-ups run uninstrumented."""

    def __init__(self, library: str) -> None:
        import ctypes

        self.lib = ctypes.CDLL(library)
        self.started = False

    def count(self, label: str, fn, prepare=None) -> None:
        if prepare is not None:
            prepare()
        gc.collect()
        if not self.started:
            self.lib.sova_bench_start()
            self.started = True
        self.lib.sova_bench_zero()
        fn()
        self.lib.sova_bench_dump(label.encode())


def instructions(rounds: int) -> None:
    """``--instructions``: the same paths counted in instructions (callgrind), ``rounds``
    runs of each after the warm-up; one JSON line per document."""
    import shutil
    import subprocess
    import sys

    if not shutil.which("valgrind") or not shutil.which("gcc"):
        emit("render_instructions", skipped="valgrind and gcc (valgrind headers) are needed")
        return
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "shim.c").write_text(CALLGRIND_SHIM)
        library = f"{tmp}/shim.so"
        subprocess.run(
            ["gcc", "-shared", "-fPIC", "-O2", "-o", library, f"{tmp}/shim.c"], check=True
        )
        subprocess.run(
            [
                "valgrind", "--tool=callgrind", "--instr-atstart=no",
                f"--callgrind-out-file={tmp}/cg.out", "--",
                sys.executable, "-m", "tests.bench.envelopes",
                f"--callgrind-child={library}", f"--rounds={rounds}",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        counts: dict[str, dict[str, list[int]]] = {}
        for dump in sorted(Path(tmp).glob("cg.out.*")):
            text = dump.read_text()
            label = re.search(r"^desc: Trigger: Client Request: (\S+)", text, re.M)
            total = re.search(r"^summary: (\d+)", text, re.M)
            if label and total:
                kind, path = label.group(1).split(":")[:2]
                counts.setdefault(kind, {}).setdefault(path, []).append(int(total.group(1)))
    for kind, by_path in counts.items():
        med = {n: statistics.median(v) for n, v in by_path.items()}
        p, f, s = med["plain"], med["fonts"], med["sova"]
        emit(
            f"render_{kind}_instructions",
            rounds=rounds,
            weasyprint_ginstr=round(p / 1e9, 3),
            weasyprint_fonts_ginstr=round(f / 1e9, 3),
            sova_ginstr=round(s / 1e9, 3),
            spread_pct={n: round((max(v) - min(v)) / min(v) * 100, 2) for n, v in by_path.items()},
            overhead_pct=round((s - p) / p * 100, 1),
            own_overhead_pct=round((s - f) / f * 100, 1),
            limit_pct=5,
            ok=(s - p) / p <= 0.05,
        )


def main() -> None:
    import argparse

    import weasyprint
    from weasyprint.text.fonts import FontConfiguration

    parser = argparse.ArgumentParser(prog="python -m tests.bench.envelopes")
    parser.add_argument("--quick", action="store_true", help="accepted; the run is small")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions under valgrind (callgrind) instead of timing; slow",
    )
    parser.add_argument("--rounds", type=int, default=None, help="rounds after the warm-up")
    parser.add_argument("--callgrind-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.instructions:
        instructions(args.rounds or 2)
        return
    rounds = args.rounds or REPEAT
    counter = Callgrind(args.callgrind_child) if args.callgrind_child else None
    from flask_migrate import upgrade

    from webapp.app import create_app
    from webapp.core.models import Document
    from webapp.extensions import db
    from workers.documents import ASSETS_DIR, render_html
    from workers.games import game_documents, render_envelopes

    shared_fonts = FontConfiguration()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {
                "TESTING": True,
                "SOVA_INSTANCE_PATH": f"{tmp}/instance",
                "SOVA_DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite",
                "SOVA_BROKER_URL": "memory://",
                "SOVA_OUTBOX_AUTOSEND": False,
                "SOVA_DOCUMENTS_PATH": f"{tmp}/documents",
            }
        )
        with app.app_context():
            upgrade(revision="heads")
            game_id, docs = _seed(app)
            for kind, doc_id in docs.items():
                template, context, _images = game_documents(db.session.get(Document, doc_id))
                html = render_html(template, context)
                base = Path(ASSETS_DIR).as_uri() + "/"

                def plain(html=html, base=base):
                    return weasyprint.HTML(string=html, base_url=base).write_pdf()

                def fonts(html=html, base=base):
                    return weasyprint.HTML(string=html, base_url=base).write_pdf(
                        font_config=shared_fonts
                    )

                def reset(doc_id=doc_id):
                    doc = db.session.get(Document, doc_id)
                    doc.status = "pending"  # force a real render (the task is idempotent)
                    db.session.commit()

                def sova(doc_id=doc_id):
                    render_envelopes.run(doc_id)

                paths = {
                    "plain": (plain, None),
                    "fonts": (fonts, None),
                    "sova": (sova, reset),
                }
                for fn, prepare in paths.values():  # warm-up
                    measure(fn, prepare)
                runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in paths}
                names = list(paths)
                for k in range(rounds):
                    for name in names[k % 3 :] + names[: k % 3]:
                        if counter is not None:
                            counter.count(f"{kind}:{name}:{k}", *paths[name])
                        else:
                            runs[name].append(measure(*paths[name]))
                if counter is not None:
                    continue
                pdf = plain()
                doc = db.session.get(Document, doc_id)
                size = (Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).stat().st_size
                cpu = {n: [c for c, _, _ in r] for n, r in runs.items()}
                wall = {n: [w for _, w, _ in r] for n, r in runs.items()}
                kernel = {n: [k for _, _, k in r] for n, r in runs.items()}
                med = {n: statistics.median(v) for n, v in cpu.items()}
                p, f, s = med["plain"], med["fonts"], med["sova"]
                ratios = [b / a for a, b in zip(cpu["plain"], cpu["sova"], strict=True)]
                own = [b / a for a, b in zip(cpu["fonts"], cpu["sova"], strict=True)]
                emit(
                    f"render_{kind}",
                    game=game_id,
                    sectors=13,
                    questions=sum(len(x["questions"]) for x in context["sectors"]),
                    pages_html_bytes=len(html.encode()),
                    repeat=rounds,
                    weasyprint_cpu_s=round(p, 3),
                    weasyprint_cpu_spread_s=spread(cpu["plain"]),
                    sova_cpu_s=round(s, 3),
                    sova_cpu_spread_s=spread(cpu["sova"]),
                    weasyprint_fonts_cpu_s=round(f, 3),
                    weasyprint_fonts_cpu_spread_s=spread(cpu["fonts"]),
                    weasyprint_sys_s=round(statistics.median(kernel["plain"]), 4),
                    sova_sys_s=round(statistics.median(kernel["sova"]), 4),
                    weasyprint_wall_s=round(statistics.median(wall["plain"]), 3),
                    sova_wall_s=round(statistics.median(wall["sova"]), 3),
                    overhead_pct=round((s - p) / p * 100, 1),
                    round_ratio_median=round(statistics.median(ratios), 3),
                    round_ratio_spread=spread(ratios),
                    own_overhead_pct=round((s - f) / f * 100, 1),
                    own_round_ratio_median=round(statistics.median(own), 3),
                    own_round_ratio_spread=spread(own),
                    limit_pct=5,
                    ok=(s - p) / p <= 0.05,
                    weasyprint_bytes=len(pdf),
                    sova_bytes=size,
                )
                emit(
                    "pair",
                    pair=f"render_{kind}",
                    sova="workers.games.render_envelopes, CPU median (s)",
                    anchor="weasyprint.HTML(string=same html).write_pdf(), CPU median (s)",
                    sova_value=round(s, 3),
                    anchor_value=round(p, 3),
                    ratio=round(s / p, 3),
                )


if __name__ == "__main__":
    main()
