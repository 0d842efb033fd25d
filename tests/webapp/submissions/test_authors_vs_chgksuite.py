"""Every packet of ``../shared/data/chgk/`` imported by ``sova import``, each
question's authors compared with chgksuite's reading of the same file.

chgksuite (a dev dependency) does not split an author line: its reading of a question's
authors is the line itself (``question["author"]``), from
``chgksuite.composer.chgksuite_parser.parse_4s`` for 4s files and
``chgksuite.parser_db.chgk_parse_db`` for the db.chgk.info file. So for every question:

* Sova's ``author_line`` must equal chgksuite's line exactly (no difference allowed);
* Sova's parsed authors, written back as ``"Name (City), Name"``, are compared with that
  line. Every question where they differ is listed; each distinct difference must be in
  :data:`EXPECTED_DIFFERENCES` with the number of questions and why Sova's reading is the
  one to keep; any other difference (or a changed count) fails the test and prints the
  full list.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from webapp.domain.packets import AuthorRef, format_authors
from webapp.domain.text import normalise
from webapp.extensions import db
from webapp.submissions.models import Question
from webapp.submissions.packet_files import read_packet_file

CHGK = "data/chgk"
PECHENY = "alexander-pecheny__chgksuite"

#: Packets with no author line at all: 991 questions that would only slow the import down
#: (about 10 s). They are read by the same reader as ``sova import`` (read_packet_file),
#: and both readings must give no author for any question.
NO_AUTHOR_LINES = (
    f"{PECHENY}/pass1.docx.canon",
    f"{PECHENY}/schr16_ek_all.docx.canon",
    f"{PECHENY}/schr18_otbor_ssi_all.docx.canon",
)

#: Raw texts that are neither 4s nor db.chgk.info: chgksuite reads them with its
#: docx/plain-text heuristics, ``sova import`` refuses them (exit 2, the line named); their
#: chgksuite readings are the ``.canon`` files next to them, which are compared here.
NOT_PACKETS = {f"{PECHENY}/bkd_2021_all.txt": "line 2", f"{PECHENY}/borromeo.txt": "line 1"}

SOVA_DROPS_THE_FULL_STOP = (
    "Sova's reading: the full stop closes the line, it is not part of the name or the city "
    "printed on an envelope or a gift agreement"
)

#: ``(file, chgksuite's line) → (Sova's authors written back, questions, why Sova's is better)``
EXPECTED_DIFFERENCES = {
    (
        f"{PECHENY}/Kubok_knyagini_Olgi-2015.docx.canon",
        "Дмитрий Шахлов, в редакции Наиля Фарукшина",
    ): (
        "Дмитрий Шахлов",
        1,
        "Sova's reading: «в редакции» credits the editor, who is no author and no payee",
    ),
    (
        f"{PECHENY}/Kubok_knyagini_Olgi-2015.docx.canon",
        "Дмитрий Шахлов, Вадим Германенко, в редакции Наиля Фарукшина",
    ): (
        "Дмитрий Шахлов, Вадим Германенко",
        1,
        "Sova's reading: two authors share the prize; the editor is not a third",
    ),
    (
        "peczony__chgksuite/Kubok_knyagini_Olgi-2015.docx.canon",
        "Дмитрий Шахлов, в редакции Наиля Фарукшина",
    ): ("Дмитрий Шахлов", 1, "the same line in the older copy of the packet"),
    (
        "peczony__chgksuite/Kubok_knyagini_Olgi-2015.docx.canon",
        "Дмитрий Шахлов, Вадим Германенко, в редакции Наиля Фарукшина",
    ): ("Дмитрий Шахлов, Вадим Германенко", 1, "the same line in the older copy"),
    (f"{PECHENY}/bkd_2021_all.txt.canon", "Андрей Солдатов\nНаиль Фарукшин (Москва)"): (
        "Андрей Солдатов, Наиль Фарукшин (Москва)",
        1,
        "Sova's reading: the line break separates two people (two payees); the city after "
        "the break is Фарукшин's only (a break ends a shared-city run)",
    ),
    (f"{PECHENY}/malkin_papkov_synchr.docx.canon", "Михаил Малкин (Люберцы)."): (
        "Михаил Малкин (Люберцы)",
        8,
        SOVA_DROPS_THE_FULL_STOP,
    ),
    (f"{PECHENY}/malkin_papkov_synchr.docx.canon", "Михаил Папков (Санкт-Петербург — Тарту)."): (
        "Михаил Папков (Санкт-Петербург — Тарту)",
        4,
        SOVA_DROPS_THE_FULL_STOP + "; the dash joins two cities of one author",
    ),
    (f"{PECHENY}/ovsch_boronenko_3.docx.canon", "Алексей Бороненко."): (
        "Алексей Бороненко",
        19,
        SOVA_DROPS_THE_FULL_STOP,
    ),
    (f"{PECHENY}/ovsch_boronenko_3.docx.canon", "Наталья Яковлева."): (
        "Наталья Яковлева",
        14,
        SOVA_DROPS_THE_FULL_STOP,
    ),
    (f"{PECHENY}/ovsch_boronenko_3.docx.canon", "Александр Фокин."): (
        "Александр Фокин",
        1,
        SOVA_DROPS_THE_FULL_STOP,
    ),
    (f"{PECHENY}/ovsch_boronenko_3.docx.canon", "Антон Оборин."): (
        "Антон Оборин",
        1,
        SOVA_DROPS_THE_FULL_STOP,
    ),
    (f"{PECHENY}/ovsch_boronenko_3.docx.canon", "Нина Семушина."): (
        "Нина Семушина",
        1,
        SOVA_DROPS_THE_FULL_STOP,
    ),
}


def _chgksuite_authors(path: Path, text: str) -> list[str | None]:
    """chgksuite's reading: each question's author line (None without one), in order."""
    if os.environ.get("CI") != "true":
        pytest.importorskip("chgksuite")
    from chgksuite.common import DummyLogger
    from chgksuite.composer.chgksuite_parser import parse_4s
    from chgksuite.parser_db import chgk_parse_db

    if path.suffix == ".canon":
        structure = parse_4s(text, logger=DummyLogger())
    else:
        structure = chgk_parse_db(text, logger=DummyLogger())
    questions = [e[1] for e in structure if e[0] == "Question" and "question" in e[1]]
    return [normalise(q["author"]) if "author" in q else None for q in questions]


def _packets(shared_dir: Path) -> list[Path]:
    """Every 4s / db packet of ../shared/data/chgk (the .canon files and the one db file)."""
    root = shared_dir / CHGK
    found = sorted(root.glob("*/*.canon")) + [root / PECHENY / "balt09-1.txt"]
    assert len(found) == 15  # SOURCES.md: 13 + 1 canon files of chgksuite, 1 db text
    return found


def test_every_packet_authors_against_chgksuite(app, shared_dir):
    root = shared_dir / CHGK
    packets = [
        p for p in _packets(shared_dir) if p.relative_to(root).as_posix() not in NO_AUTHOR_LINES
    ]
    raw = [root / name for name in NOT_PACKETS]
    result = app.test_cli_runner().invoke(
        args=["import", *map(str, packets + raw), "--as", "archive"]
    )
    assert result.exit_code == 2, result.output  # the two raw texts, and only they
    assert f"total: 1021 questions from {len(packets)} file(s); 2 file(s) failed" in result.output
    for name, line in NOT_PACKETS.items():
        assert f"{Path(name).name}, {line}: text outside any field" in result.output

    stored = iter(db.session.scalars(db.select(Question).order_by(Question.id)).all())
    differences: Counter = Counter()
    listing = []
    compared = 0
    for path in packets:
        name = path.relative_to(root).as_posix()
        packet = read_packet_file(path)
        theirs = _chgksuite_authors(path, path.read_bytes().decode(packet.meta["encoding"]))
        assert len(theirs) == len(packet.questions), name
        for number, line in enumerate(theirs, 1):
            q = next(stored)
            assert q.origin == f"{path.name}#{number}"
            assert q.author_line == line, f"{name} #{number}"  # kept exactly as written
            ours = format_authors([AuthorRef(qa.author.name, qa.author.city) for qa in q.authors])
            compared += 1
            if ours != (line or ""):
                differences[(name, line, ours)] += 1
                listing.append(f"{name} #{number}: chgksuite {line!r}, Sova {ours!r}")
    assert next(stored, None) is None
    assert compared == 1021
    expected = {
        (name, line, ours): count
        for (name, line), (ours, count, _why) in EXPECTED_DIFFERENCES.items()
    }
    assert dict(differences) == expected, "\n".join(listing)
    assert len(listing) == 53


def test_packets_without_author_lines(shared_dir):
    for name in NO_AUTHOR_LINES:
        path = shared_dir / CHGK / name
        packet = read_packet_file(path)
        theirs = _chgksuite_authors(path, path.read_text(encoding="utf-8"))
        assert len(theirs) == len(packet.questions) > 0
        assert set(theirs) == {None}
        assert all(q.author_text is None and q.authors == [] for q in packet.questions)
