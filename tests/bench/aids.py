"""How the editors' aids of the pre-check (``webapp.moderation.aids``) do on real questions.

    .venv/bin/python -m tests.bench.aids

The answer-leak check (``answer_leak``) over the real edited packets of
``../shared/data/chgk/alexander-pecheny__chgksuite/`` (every 4s ``.canon`` file; the
older copy of one packet in ``peczony__chgksuite`` is left out, so no question counts
twice):

* ``false_alarms``: the questions the check flags as they were edited and asked (each
  hit there was left in on purpose, so each counts as a false alarm), per 100 questions;
* ``recall``: the share of leaks planted into the same questions that it finds, by kind —
  the answer's first looked-for word (``answer_words``) in another form of its lexeme
  appended to the question (``inflected``) or to the handout (``handout``), and a word
  derived from it by a Russian suffix that the dictionary knows as a word of its own
  (``derived``: ``альбом`` → ``альбомный``).

tests/webapp/moderation/test_aids.py holds the figures to the issue's bar (at most 2 false
alarms per 100 questions, at least 95 % of planted leaks found); docs/guide.md quotes them.

The reading time (``reading_time``) on the readings the console recorded in the instance's
database (``sova``'s configuration: ``SOVA_DATABASE_URL`` or the instance path): per host,
the mean absolute error of the estimate at the default pace and at the host's pace
calibrated on their other readings (leave one out, so a reading never calibrates its own
estimate). An instance without recorded readings reports none.
Output: one JSON object per line.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.duplicates import SHARED

PACKETS = "alexander-pecheny__chgksuite"
#: Suffixes a planted derived word is made with (each result must be a dictionary lemma
#: of its own, not a form of the answer word).
PLANT_SUFFIXES = (
    "ский", "ская", "ское", "овый", "овая", "ин", "ина", "ный", "ная",
    "ник", "ость", "ство", "ка", "ик", "ец", "ист", "изм",
)  # fmt: skip


@dataclass
class Edited:
    """One edited question: its ``file``, ``question``, ``answer`` and ``handout``."""

    file: str
    question: str
    answer: str
    handout: str


def edited_questions(root: Path = SHARED) -> list[Edited]:
    """Every question of the edited 4s packets, in file order."""
    from webapp.domain.packets import parse_4s

    out = []
    for path in sorted((root / PACKETS).glob("*.canon")):
        for q in parse_4s(path.read_text(encoding="utf-8")).questions:
            out.append(Edited(path.name, q.question, q.answer, q.handout or ""))
    return out


def flagged(q: Edited) -> list:
    from webapp.moderation.aids import answer_leaks

    return answer_leaks(q.answer, {"вопрос": q.question, "раздаточный материал": q.handout})


def inflected(word: str) -> str | None:
    """Another form of the lexeme of ``word`` (``кошка`` → ``кошки``), or None."""
    from webapp.submissions.names import morph_analyzer

    parse = morph_analyzer().parse(word)[0]
    for form in parse.lexeme:
        candidate = form.word.replace("ё", "е")
        if candidate != word and len(candidate) >= len(word) - 1:
            return candidate
    return None


def derived(word: str) -> str | None:
    """A dictionary lemma made from the normal form of ``word`` without its final vowel by
    one of :data:`PLANT_SUFFIXES` and not a form of ``word`` (``альбом`` → ``альбомный``),
    or None."""
    from webapp.submissions.names import morph_analyzer

    morph = morph_analyzer()
    lemma = morph.parse(word)[0].normal_form.replace("ё", "е")
    base = lemma.rstrip("аяоеьйыиу")
    if len(base) < 3:
        return None
    for suffix in PLANT_SUFFIXES:
        candidate = base + suffix
        if not morph.word_is_known(candidate):
            continue
        parses = morph.parse(candidate)
        if parses[0].normal_form == candidate and all(
            p.normal_form.replace("ё", "е") != lemma for p in parses
        ):
            return candidate
    return None


@dataclass
class Recall:
    found: int = 0
    planted: int = 0
    missed: list[tuple[str, str]] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.found / self.planted if self.planted else 1.0


def planted_recall(questions: list[Edited]) -> dict[str, Recall]:
    """Plant one leak of each kind into each question whose answer has a looked-for word;
    ``{"inflected" | "derived" | "handout": Recall}``."""
    from webapp.moderation.aids import answer_leaks, answer_words, word_key

    out = {kind: Recall() for kind in ("inflected", "derived", "handout")}
    for q in questions:
        words = answer_words(q.answer)
        if not words:
            continue
        for kind, recall in out.items():
            planted = derived(words[0]) if kind == "derived" else inflected(words[0])
            if planted is None:
                continue
            text, handout = q.question, q.handout
            if kind == "handout":
                handout = f"{handout}\n{planted}"
            else:
                text = f"{text} {planted}"
            hits = answer_leaks(q.answer, {"вопрос": text, "раздаточный материал": handout})
            recall.planted += 1
            if any(word_key(h.found) == planted for h in hits):
                recall.found += 1
            else:
                recall.missed.append((words[0], planted))
    return out


def reading_errors() -> list[dict]:
    """Per host of the instance's recorded games: ``{"host", "readings", "mae_default",
    "mae_calibrated"}`` (seconds, one decimal)."""
    from decimal import Decimal

    from webapp.app import create_app
    from webapp.domain.reading import (
        DEFAULT_SYLLABLES_PER_SECOND,
        calibrated_rate,
        mean_absolute_error,
    )
    from webapp.extensions import db
    from webapp.games.models import Game
    from webapp.games.operations import recorded_readings

    app = create_app()
    out = []
    with app.app_context():
        by_host: dict = {}
        for game in db.session.scalars(db.select(Game).where(Game.events.any())):
            for host, reading in recorded_readings(game):
                by_host.setdefault(host, []).append(reading)
        for host, readings in sorted(by_host.items(), key=lambda kv: kv[0] or 0):
            errors = [
                abs(
                    Decimal(r.syllables) / calibrated_rate(readings[:i] + readings[i + 1 :])
                    - r.seconds
                )
                for i, r in enumerate(readings)
            ]
            out.append(
                {
                    "host": host,
                    "readings": len(readings),
                    "mae_default": str(mean_absolute_error(readings, DEFAULT_SYLLABLES_PER_SECOND)),
                    "mae_calibrated": str(
                        (sum(errors, Decimal(0)) / len(errors)).quantize(Decimal("0.1"))
                    ),
                }
            )
    return out


def main() -> int:
    try:
        hosts = reading_errors()
    except Exception as exc:  # no database configured or reachable: say so, go on
        print(json.dumps({"bench": "aids", "check": "reading_time", "error": str(exc)}))
    else:
        print(
            json.dumps(
                {"bench": "aids", "check": "reading_time", "metric": "mae_seconds", "hosts": hosts},
                ensure_ascii=False,
            ),
            flush=True,
        )
    if not (SHARED / PACKETS).is_dir():
        print(f"no test data at {SHARED}", file=sys.stderr)
        return 0
    started = time.perf_counter()
    questions = edited_questions()
    alarms = [q for q in questions if flagged(q)]
    print(
        json.dumps(
            {
                "bench": "aids",
                "check": "answer_leak",
                "metric": "false_alarms_per_100",
                "questions": len(questions),
                "flagged": len(alarms),
                "value": round(100 * len(alarms) / len(questions), 2),
                "seconds": round(time.perf_counter() - started, 1),
            },
            ensure_ascii=False,
        ),
        flush=True,
    )
    for kind, recall in planted_recall(questions).items():
        print(
            json.dumps(
                {
                    "bench": "aids",
                    "check": "answer_leak",
                    "metric": f"recall_{kind}",
                    "planted": recall.planted,
                    "found": recall.found,
                    "value": round(100 * recall.share, 1),
                    "missed": recall.missed[:10],
                },
                ensure_ascii=False,
            ),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
