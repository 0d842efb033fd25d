"""How the content pre-checks (``webapp.moderation.checks``) behave on real questions.

    .venv/bin/python -m tests.bench.checks [--dictionary]

Runs every check over every question of ``../shared/data/chgk/`` (the 4s packets and the
db text through ``webapp.domain.packets``, the «Своя игра» CSV, the JSON packs) and prints
what each flags, so that false positives can be counted; ``--dictionary`` also runs the
obscene-word check over all word forms of the OpenCorpora dictionary shipped with
pymorphy3 (about 5.1 million, three minutes) and prints the lexemes it flags. The figures
are quoted in docs/guide.md («Content pre-checks»). Output: one JSON object per line.
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import sys
import time
from pathlib import Path

from tests.bench.duplicates import SHARED

ROOTS = ("ху", "пизд", "пезд", "еб", "ёб", "бля", "муд", "манд", "пидор", "пидар")


def questions(root: Path = SHARED) -> list[dict]:
    """``[{"file", "text", "comment", "answer", "handout", "image", "authors"}]``."""
    from webapp.domain.packets import PacketError, parse_packet

    out = []
    for path in sorted(root.rglob("*")):
        if not (path.suffix == ".canon" or path.name == "balt09-1.txt"):
            continue
        raw = path.read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("koi8-r")
        try:
            packet = parse_packet(text)
        except PacketError:
            continue
        for q in packet.questions:
            out.append(
                {
                    "file": path.name,
                    "text": q.question,
                    "comment": q.comment,
                    "answer": q.answer,
                    "handout": q.handout,
                    "image": None,
                    "authors": [(a.name, a.city) for a in q.authors],
                }
            )
    with open(
        root / "evrog__Russian-QA-Jeopardy" / "Russian_QA_Jeopardy_dataset_extended_validation.csv",
        encoding="utf-8",
    ) as fh:
        for row in csv.DictReader(fh):
            out.append(
                {
                    "file": "jeopardy.csv",
                    "text": row.get("QuestionText") or "",
                    "comment": None,
                    "answer": row.get("Answer") or "",
                    "handout": None,
                    "image": None,
                    "authors": [],
                }
            )
    for path in sorted((root / "thesysadminest__chgk_website").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for item in data if isinstance(data, list) else []:
            f = item.get("fields", item) if isinstance(item, dict) else {}
            text = f.get("question_text") or f.get("question")
            if isinstance(text, str):
                out.append(
                    {
                        "file": path.name,
                        "text": text,
                        "comment": f.get("question_note") or f.get("comment"),
                        "answer": f.get("answer_text") or f.get("answer") or "",
                        "handout": None,
                        "image": f.get("image") or None,
                        "authors": [],
                    }
                )
    return out


def emit(**fields) -> None:
    print(json.dumps(fields, ensure_ascii=False), flush=True)


def corpus() -> None:
    from webapp.domain.languages import text_language
    from webapp.moderation import checks

    qs = questions()
    started = time.perf_counter()
    languages: collections.Counter = collections.Counter()
    obscene, leaks, references, missing = [], [], 0, []
    for q in qs:
        languages[text_language(q["text"], q["answer"], q["handout"])] += 1
        words = checks.obscene_words(
            "\n".join(t or "" for t in (q["text"], q["answer"], q["comment"], q["handout"]))
        )
        if words:
            obscene.append({"file": q["file"], "words": words})
        found = checks.author_leaks(
            {
                "вопрос": q["text"],
                "комментарий": q["comment"],
                "раздаточный материал": q["handout"],
            },
            q["authors"],
        )
        if found:
            leaks.append({"file": q["file"], "found": found, "text": q["text"][:120]})
        reference = checks.handout_reference(q["text"])
        if reference:
            references += 1
            if not checks.has_handout(q["handout"], q["image"], [q["text"], q["comment"]]):
                missing.append({"file": q["file"], "reference": reference, "text": q["text"][:120]})
    emit(
        bench="checks_corpus",
        questions=len(qs),
        with_authors=sum(1 for q in qs if q["authors"]),
        languages={str(k): v for k, v in languages.most_common()},
        obscene_flagged=len(obscene),
        author_in_text_flagged=len(leaks),
        handout_references=references,
        handout_missing_flagged=len(missing),
        seconds=round(time.perf_counter() - started, 1),
    )
    for item in obscene + leaks + missing:
        emit(flagged=item)


def dictionary() -> None:
    from webapp.moderation import checks
    from webapp.submissions.names import morph_analyzer

    morph = morph_analyzer()
    started = time.perf_counter()
    lexemes: dict[str, set[str]] = collections.defaultdict(set)
    forms = 0
    for word, _tag, normal, _para, _idx in morph.dictionary.iter_known_words():
        forms += 1
        if any(r in word for r in ROOTS) and checks.is_obscene(word):
            lexemes[normal].add(word)
    emit(
        bench="checks_dictionary",
        forms=forms,
        flagged_forms=sum(map(len, lexemes.values())),
        flagged_lexemes=sorted(lexemes),
        seconds=round(time.perf_counter() - started),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--dictionary",
        action="store_true",
        help="also scan every OpenCorpora word form (about three minutes)",
    )
    args = parser.parse_args(argv)
    if not SHARED.is_dir():
        print(f"no test data at {SHARED}", file=sys.stderr)
        return 2
    corpus()
    if args.dictionary:
        dictionary()
    return 0


if __name__ == "__main__":
    sys.exit(main())
