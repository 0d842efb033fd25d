"""Envelope rendering benchmark (issue 5): ``python -m tests.bench.envelopes``, JSON lines.

A 13-sector 2023 game (blitz, superblitz, sector 13: 17 questions of realistic length) on a
fresh SQLite database with the real migrations. For the envelopes and the host cards, two
paths are timed on the same HTML:

- ``sova``: the whole task ``workers.games.render_envelopes`` — database reads, context
  (primitives, props list), Jinja with forced autoescape, the restricted URL fetcher, the
  deterministic-font wrapper, WeasyPrint, SHA-256, the atomic file write, the commit;
- ``weasyprint``: ``weasyprint.HTML(string=html, base_url=templates/pdf).write_pdf()`` on the
  very HTML ``workers.documents.render_html`` produced, with no Sova code around it.

Each path runs ``REPEAT`` times after one warm-up, the two alternating (which goes first
swaps every round) with a ``gc.collect()`` before each run, so neither pays for the other's
garbage; each run is measured in CPU time of this process (``time.process_time``: the
figure a shared machine disturbs least) and in wall-clock time. Reported: the medians, the
spread (min and max), the PDF sizes, the overhead ``(sova − weasyprint) / weasyprint`` of
the CPU medians (issue 19 target ≤ 5 %) and the machine's load average; the ``pair`` line
is the issue's pair, Sova and its anchor from this one run with their ratio.
"""

from __future__ import annotations

import gc
import json
import os
import secrets
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

REPEAT = 7


def emit(name: str, **values) -> None:
    line = {"bench": name, **values, "loadavg": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(line, ensure_ascii=False), flush=True)


def measure(fn) -> tuple[float, float]:
    """``(cpu_s, wall_s)`` of one call of ``fn`` after a full garbage collection."""
    gc.collect()
    c, t = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c, time.perf_counter() - t


def _seed(app) -> tuple[int, dict[str, int]]:
    from webapp.accounts.operations import create_user
    from webapp.extensions import db
    from webapp.games.operations import (
        assign_envelopes,
        create_game,
        create_season,
        lock_table,
        request_envelopes,
    )
    from webapp.jobs import commit
    from webapp.moderation.models import QuestionSignoff
    from webapp.submissions.models import Author, Question, QuestionAuthor

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


def main() -> None:
    import argparse

    import weasyprint

    parser = argparse.ArgumentParser(prog="python -m tests.bench.envelopes")
    parser.add_argument("--quick", action="store_true", help="accepted; the run is small")
    parser.parse_args()
    from flask_migrate import upgrade

    from webapp.app import create_app
    from webapp.core.models import Document
    from webapp.extensions import db
    from workers.documents import ASSETS_DIR, render_html
    from workers.games import game_documents, render_envelopes

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

                def sova(doc_id=doc_id):
                    doc = db.session.get(Document, doc_id)
                    doc.status = "pending"  # force a real render (the task is idempotent)
                    db.session.commit()
                    render_envelopes.run(doc_id)

                plain()
                sova()
                runs: dict[str, list[tuple[float, float]]] = {"plain": [], "sova": []}
                for k in range(REPEAT):
                    order = (("plain", plain), ("sova", sova))
                    for name, fn in order if k % 2 == 0 else order[::-1]:
                        runs[name].append(measure(fn))
                pdf = plain()
                doc = db.session.get(Document, doc_id)
                size = (Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).stat().st_size
                cpu = {n: sorted(c for c, _ in r) for n, r in runs.items()}
                wall = {n: sorted(w for _, w in r) for n, r in runs.items()}
                p, s = statistics.median(cpu["plain"]), statistics.median(cpu["sova"])
                emit(
                    f"render_{kind}",
                    game=game_id,
                    sectors=13,
                    questions=sum(len(x["questions"]) for x in context["sectors"]),
                    pages_html_bytes=len(html.encode()),
                    repeat=REPEAT,
                    weasyprint_cpu_s=round(p, 3),
                    weasyprint_cpu_spread_s=[round(cpu["plain"][0], 3), round(cpu["plain"][-1], 3)],
                    sova_cpu_s=round(s, 3),
                    sova_cpu_spread_s=[round(cpu["sova"][0], 3), round(cpu["sova"][-1], 3)],
                    weasyprint_wall_s=round(statistics.median(wall["plain"]), 3),
                    sova_wall_s=round(statistics.median(wall["sova"]), 3),
                    overhead_pct=round((s - p) / p * 100, 1),
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
