"""webapp.domain.packets: 4s and db.chgk.info packet parsing.

Real packets from ../shared are checked against chgksuite's own 4s reader
(``chgksuite.composer.chgksuite_parser.parse_4s``), used as a test oracle.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from webapp.domain.packets import (
    PACKET_ERROR_CODES,
    AuthorRef,
    Packet,
    PacketError,
    detect_format,
    format_authors,
    parse_4s,
    parse_authors,
    parse_db,
    parse_packet,
)
from webapp.domain.text import matching_key, normalise

ACUTE = "\u0301"
PECHENY = "data/chgk/alexander-pecheny__chgksuite"
PECZONY = "data/chgk/peczony__chgksuite"

# question counts from shared/data/chgk/SOURCES.md
CANON_COUNTS = {
    "2019-07-23_beln19_u.docx.canon": 75,
    "Kubok_knyagini_Olgi-2015.docx.canon": 75,
    "Shkolny_Chemp_Estonii-2014_(48v).docx.canon": 48,
    "balt09-1.txt.canon": 36,
    "bkd_2021_all.txt.canon": 106,
    "borromeo.txt.canon": 1,
    "malkin_papkov_synchr.docx.canon": 12,
    "nesova2025_troika.docx.canon": 510,
    "octo2021_khmelkov.docx.canon": 11,
    "ovsch_boronenko_3.docx.canon": 36,
    "pass1.docx.canon": 36,
    "schr16_ek_all.docx.canon": 417,
    "schr18_otbor_ssi_all.docx.canon": 538,
}


# --- oracle ----------------------------------------------------------------------


def _oracle_questions(text: str) -> list[dict]:
    """chgksuite's reading of a 4s text: the question dicts, in order."""
    if os.environ.get("CI") == "true":
        from chgksuite.common import DummyLogger
        from chgksuite.composer.chgksuite_parser import parse_4s as oracle_parse_4s
    else:
        oracle_parse_4s = pytest.importorskip("chgksuite.composer.chgksuite_parser").parse_4s
        from chgksuite.common import DummyLogger
    structure = oracle_parse_4s(text, logger=DummyLogger())
    return [element[1] for element in structure if element[0] == "Question"]


def _oracle_text(value) -> str:
    """chgksuite's str / [items] / [preamble, [items]] → our numbered-lines text."""
    if isinstance(value, str):
        return normalise(value)
    preamble, items = (value[0], value[1]) if isinstance(value[1], list) else ("", value)
    lines = [f"{i}. {item}" for i, item in enumerate(items, 1)]
    return normalise("\n".join([preamble, *lines] if preamble else lines))


def _oracle_sources(value) -> list[str]:
    if isinstance(value, str):
        return [normalise(value)] if value else []
    items = [value[0], *value[1]] if isinstance(value[1], list) else value
    return [normalise(x) for x in items if x]


def _expected(oracle_question: dict) -> dict:
    def optional(name):
        return _oracle_text(oracle_question[name]) if name in oracle_question else None

    return {
        "question": _oracle_text(oracle_question["question"]),
        "answer": _oracle_text(oracle_question["answer"]),
        "accepted": optional("zachet"),
        "rejected": optional("nezachet"),
        "comment": optional("comment"),
        "sources": _oracle_sources(oracle_question["source"])
        if "source" in oracle_question
        else [],
        "author_text": optional("author"),
    }


def _ours(question) -> dict:
    return {name: getattr(question, name) for name in _expected({"question": "", "answer": ""})}


def _assert_matches_oracle(packet: Packet, oracle: list[dict]) -> None:
    assert len(packet.questions) == len(oracle)
    for ours, theirs in zip(packet.questions, oracle, strict=True):
        assert _ours(ours) == _expected(theirs), f"question {ours.number} (line {ours.line})"
        # authors: the parsed list renders back to the @ line, up to separators / final dot
        if "author" in theirs:
            author_line = _oracle_text(theirs["author"])
            rendered = format_authors(ours.authors)
            assert rendered, author_line
            for author in ours.authors:
                assert author.name in author_line
                assert author.city is None or f"({author.city})" in author_line
        else:
            assert ours.authors == []


# --- real packets (../shared) -----------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CANON_COUNTS))
def test_canon_packets_match_chgksuite(shared_dir: Path, name: str):
    text = (shared_dir / PECHENY / name).read_text(encoding="utf-8")
    packet = parse_4s(text)
    assert len(packet.questions) == CANON_COUNTS[name]
    assert [q.number for q in packet.questions] == list(range(1, CANON_COUNTS[name] + 1))
    _assert_matches_oracle(packet, _oracle_questions(text))
    lines = text.split("\n")
    for q in packet.questions:  # every question starts on its ? / > / № line
        assert lines[q.line - 1].split()[0] in {"?", ">", "№", "№№"}


def test_older_kubok_canon_matches_chgksuite(shared_dir: Path):
    text = (shared_dir / PECZONY / "Kubok_knyagini_Olgi-2015.docx.canon").read_text(
        encoding="utf-8"
    )
    packet = parse_4s(text)
    assert len(packet.questions) == 75
    _assert_matches_oracle(packet, _oracle_questions(text))


def _balt(shared_dir: Path) -> tuple[Packet, Packet]:
    raw = (shared_dir / PECHENY / "balt09-1.txt").read_bytes().decode("koi8_r")
    canon = (shared_dir / PECHENY / "balt09-1.txt.canon").read_text(encoding="utf-8")
    return parse_db(raw), parse_4s(canon)


def test_balt_db_matches_chgksuite_canon(shared_dir: Path):
    db_packet, _ = _balt(shared_dir)
    canon = (shared_dir / PECHENY / "balt09-1.txt.canon").read_text(encoding="utf-8")
    assert len(db_packet.questions) == 36
    _assert_matches_oracle(db_packet, _oracle_questions(canon))


def test_balt_db_equals_its_canon_twin(shared_dir: Path):
    db_packet, canon_packet = _balt(shared_dir)
    assert (
        db_packet.title
        == canon_packet.title
        == "Синхронный турнир «Балтийский берег» — 2008/09. 1 этап"
    )
    for ours, twin in zip(db_packet.questions, canon_packet.questions, strict=True):
        assert dataclasses.replace(ours, line=0) == dataclasses.replace(twin, line=0)
    for key in ("editors", "dates", "tours"):
        assert db_packet.meta[key] == canon_packet.meta[key]
    assert db_packet.meta["format"] == "db"


def test_balt_db_details(shared_dir: Path):
    packet, _ = _balt(shared_dir)
    raw_lines = (shared_dir / PECHENY / "balt09-1.txt").read_bytes().decode("koi8_r").split("\n")
    headers = [raw_lines[q.line - 1] for q in packet.questions]
    # numbering restarts in every tour; q.number is the position in the packet
    assert headers == [f"Вопрос {n}:" for _ in range(3) for n in range(1, 13)]
    q1, q3, q7 = packet.questions[0], packet.questions[2], packet.questions[6]
    assert q1.question.startswith(
        "[Раздаточный материал:(img 20080328.jpg)]\nДля начала — фамильярный"
    )
    assert q1.handout == "(img 20080328.jpg)"
    assert q1.images == ["20080328.jpg"]
    assert q1.sources[1] == "http://inna-churikova.narod.ru/photo/ubilej03.jpg"
    assert len(q1.sources) == 3
    assert q1.authors == [AuthorRef("Александр Кудрявцев", "Николаев")]
    assert q1.tour == "1 тур"
    assert "Свентови" + ACUTE + "т" in q3.question and "Отто" + ACUTE + "на" in q3.question
    assert q7.images == ["20080329.jpg", "20080330.jpg"]  # handout + picture in the comment
    dialog = packet.questions[18]
    assert dialog.question.startswith("[Раздаточный материал:\n[СЛОВО ПРОПУЩЕНО] голос")
    assert dialog.handout.splitlines()[1] == "— Сонни, ты там?"
    assert packet.questions[-1].tour == "3 тур"


def test_kubok_copies_fold_to_the_same_questions(shared_dir: Path):
    """SOURCES.md says 74 of 75 questions are the same. Exactly equal texts: 74.
    The 75th (question 25) differs only in how two stress marks are typed: the
    older copy has Latin "á" (U+00E1) in "Хáральд", "Пáулюса", the newer one
    Cyrillic "а" + U+0301. matching_key folds both, so all 75 keys are equal."""
    new = parse_4s(
        (shared_dir / PECHENY / "Kubok_knyagini_Olgi-2015.docx.canon").read_text("utf-8")
    )
    old = parse_4s(
        (shared_dir / PECZONY / "Kubok_knyagini_Olgi-2015.docx.canon").read_text("utf-8")
    )
    pairs = list(zip(new.questions, old.questions, strict=True))
    exact = [a.number for a, b in pairs if a.question == b.question]
    folded = [a.number for a, b in pairs if matching_key(a.question) == matching_key(b.question)]
    assert len(exact) == 74
    assert [n for n in range(1, 76) if n not in exact] == [25]
    assert len(folded) == 75
    assert "Ха" + ACUTE + "ральд" in new.questions[24].question
    assert "Х\u00e1ральд" in old.questions[24].question


def test_borromeo_blitz_lists(shared_dir: Path):
    packet = parse_4s((shared_dir / PECHENY / "borromeo.txt.canon").read_text("utf-8"))
    (q,) = packet.questions
    lines = q.question.split("\n")
    assert lines[0].startswith("Блиц.")
    assert [line[:3] for line in lines[1:]] == ["1. ", "2. ", "3. "]
    assert q.answer == "1. ребро;\n2. мо;\n3. о"
    assert len(q.sources) == 3
    assert q.authors == [AuthorRef("Антон Ботев")]


# --- the sample packet shipped with the app ------------------------------------------

SAMPLE = Path(__file__).resolve().parents[2] / "webapp" / "submissions" / "sample_packet.4s"


def test_sample_packet_parses():
    packet = parse_packet(SAMPLE.read_text(encoding="utf-8"))
    assert packet.title == "Сова: демонстрационный пакет"
    assert packet.meta["format"] == "4s"
    assert 8 <= len(packet.questions) <= 12
    assert all(q.question and q.answer for q in packet.questions)
    assert any(q.accepted for q in packet.questions)
    assert packet.meta["tours"] == ["Тур 1", "Тур 2"]
    q2, q3 = packet.questions[1], packet.questions[2]
    assert q2.accepted == "U." and len(q2.sources) == 2
    assert q3.authors == [
        AuthorRef("Анна Смирнова", "Казань"),
        AuthorRef("Пётр Волков", "Новосибирск"),
    ]
    handout_q = next(q for q in packet.questions if q.handout)
    assert handout_q.handout == "П В С Ч П С" and handout_q.tour == "Тур 2"
    assert packet.questions[-1].authors == []


def test_sample_packet_matches_chgksuite():
    text = SAMPLE.read_text(encoding="utf-8")
    # chgksuite drops a '>' handout that opens a block; we keep it (see packets docs)
    oracle = _oracle_questions(text)
    _assert_matches_oracle(parse_4s(text), oracle)


# --- small 4s texts ----------------------------------------------------------------------


def test_4s_fields_and_continuations():
    text = "\n".join(
        [
            "### Турнир",
            "## Тур 1",
            "",
            "? Первая строка",
            "вторая строка",
            "! Ответ",
            "= Зачёт 1",
            "= Зачёт 2",
            "!= Незачёт",
            "/ Комментарий",
            "^ Источник",
            "@ Иван Сапего (Брест — Минск)",
        ]
    )
    packet = parse_4s(text)
    (q,) = packet.questions
    assert (q.number, q.line, q.tour) == (1, 4, "Тур 1")
    assert q.question == "Первая строка\nвторая строка"
    assert q.accepted == "Зачёт 1\nЗачёт 2"
    assert q.rejected == "Незачёт"
    assert q.sources == ["Источник"]
    assert q.authors == [AuthorRef("Иван Сапего", "Брест — Минск")]


def test_4s_handout_and_images():
    text = (
        "№ 1\n> (img w=50mm Kubok_(48v)_001.png) подпись\n? Что это?\n! Это.\n/ (img answer.jpg)\n"
    )
    (q,) = parse_4s(text).questions
    assert q.line == 1
    assert q.handout == "(img w=50mm Kubok_(48v)_001.png) подпись"
    assert q.images == ["Kubok_(48v)_001.png", "answer.jpg"]


def test_4s_crlf_bom_and_zero_width():
    text = "\ufeff? Воп\u200bрос  \r\n! Ответ\r\n"
    (q,) = parse_4s(text).questions
    assert (q.question, q.answer) == ("Вопрос", "Ответ")


def test_4s_theme_author_is_not_a_question_author():
    text = "#T Тема\n@ Автор Темы\n\n? В\n! О\n"
    packet = parse_4s(text)
    assert packet.questions[0].authors == []
    assert packet.meta["extra"] == [{"field": "author", "text": "Автор Темы", "line": 2}]


# --- authors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Иван Сапего (Брест — Минск)", [AuthorRef("Иван Сапего", "Брест — Минск")]),
        (
            "Дмитрий Шахлов (Рига), Вадим Германенко (Витебск — Минск)",
            [AuthorRef("Дмитрий Шахлов", "Рига"), AuthorRef("Вадим Германенко", "Витебск — Минск")],
        ),
        ("Дмитрий Шахлов, в редакции Наиля Фарукшина", [AuthorRef("Дмитрий Шахлов")]),
        ("Денис Ершов (Тарту, Эстония)", [AuthorRef("Денис Ершов", "Тарту, Эстония")]),
        (
            "Андрей Солдатов\nНаиль Фарукшин (Москва)",
            [AuthorRef("Андрей Солдатов"), AuthorRef("Наиль Фарукшин", "Москва")],
        ),
        ("Михаил Малкин (Люберцы).", [AuthorRef("Михаил Малкин", "Люберцы")]),
        ("Антон Оборин.", [AuthorRef("Антон Оборин")]),
        ("Иванов И.", [AuthorRef("Иванов И.")]),
        ("Коллектив авторов клуба Коломна", [AuthorRef("Коллектив авторов клуба Коломна")]),
        ("", []),
        (None, []),
    ],
)
def test_parse_authors(text, expected):
    assert parse_authors(text) == expected


# Authors as packets write them. Real lines first (file cited), then written ones.
KUBOK = f"{PECHENY}/Kubok_knyagini_Olgi-2015.docx.canon"
ESTONIA = f"{PECHENY}/Shkolny_Chemp_Estonii-2014_(48v).docx.canon"
BKD = f"{PECHENY}/bkd_2021_all.txt.canon"
NESOVA = f"{PECHENY}/nesova2025_troika.docx.canon"


@pytest.mark.parametrize(
    ("path", "line", "expected"),
    [
        # an editorial credit is not an author (Kubok line 47, line 67)
        (KUBOK, "Дмитрий Шахлов, в редакции Наиля Фарукшина", [AuthorRef("Дмитрий Шахлов")]),
        (
            KUBOK,
            "Дмитрий Шахлов, Вадим Германенко, в редакции Наиля Фарукшина",
            [AuthorRef("Дмитрий Шахлов"), AuthorRef("Вадим Германенко")],
        ),
        # a dash joins two cities of one author (Kubok line 16)
        (KUBOK, "Иван Сапего (Брест — Минск)", [AuthorRef("Иван Сапего", "Брест — Минск")]),
        # two authors, each with a city of their own: no sharing (Kubok)
        (
            KUBOK,
            "Дмитрий Шахлов (Рига), Вадим Германенко (Витебск — Минск)",
            [AuthorRef("Дмитрий Шахлов", "Рига"), AuthorRef("Вадим Германенко", "Витебск — Минск")],
        ),
        # a comma inside the parentheses is part of the city (Estonia line 91)
        (ESTONIA, "Денис Ершов (Тарту, Эстония)", [AuthorRef("Денис Ершов", "Тарту, Эстония")]),
        # a line break ends a run: the city after it is not shared (bkd line 316-317)
        (
            BKD,
            "Андрей Солдатов\nНаиль Фарукшин (Москва)",
            [AuthorRef("Андрей Солдатов"), AuthorRef("Наиль Фарукшин", "Москва")],
        ),
        # stray marks typed after a name (nesova lines 65, 581, 681; theme authors there)
        (NESOVA, "Роман Фролов/", [AuthorRef("Роман Фролов")]),
        (NESOVA, "Роман Фролов\u0301", [AuthorRef("Роман Фролов")]),
        (NESOVA, "Роман Фролов .", [AuthorRef("Роман Фролов")]),
    ],
)
def test_parse_authors_real_lines(shared_dir: Path, path: str, line: str, expected):
    lines = (shared_dir / path).read_text(encoding="utf-8").split("\n@ ")
    assert any(block.startswith(line) for block in lines), f"{line!r} not in {path}"
    assert parse_authors(line) == expected


CREDIT = "при активном участии Евгения Миротина (Горки, Белоруссия)"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a city after several names belongs to all of them
        (
            "Анна Смирнова, Пётр Волков (Казань)",
            [AuthorRef("Анна Смирнова", "Казань"), AuthorRef("Пётр Волков", "Казань")],
        ),
        (
            "Анна Смирнова и Пётр Волков (Казань)",
            [AuthorRef("Анна Смирнова", "Казань"), AuthorRef("Пётр Волков", "Казань")],
        ),
        (
            "Анна Смирнова (Минск), Пётр Волков, Ольга Ким и Иван Ли (Брест — Минск)",
            [
                AuthorRef("Анна Смирнова", "Минск"),
                AuthorRef("Пётр Волков", "Брест — Минск"),
                AuthorRef("Ольга Ким", "Брест — Минск"),
                AuthorRef("Иван Ли", "Брест — Минск"),
            ],
        ),
        ("Анна Смирнова, Пётр Волков", [AuthorRef("Анна Смирнова"), AuthorRef("Пётр Волков")]),
        (
            "Анна Смирнова; Пётр Волков (Казань)",  # a semicolon ends the run
            [AuthorRef("Анна Смирнова"), AuthorRef("Пётр Волков", "Казань")],
        ),
        # credited co-authors: the name as written (genitive), the phrase kept
        (
            "Пётр Волков (Казань), " + CREDIT,
            [
                AuthorRef("Пётр Волков", "Казань"),
                AuthorRef("Евгения Миротина", "Горки, Белоруссия", CREDIT),
            ],
        ),
        (
            "Пётр Волков (Казань), при участии Марии Сидоровой",
            [
                AuthorRef("Пётр Волков", "Казань"),
                AuthorRef("Марии Сидоровой", None, "при участии Марии Сидоровой"),
            ],
        ),
        (
            "Пётр Волков, при помощи Ивана Петрова (Минск).",
            [
                AuthorRef("Пётр Волков"),
                AuthorRef("Ивана Петрова", "Минск", "при помощи Ивана Петрова (Минск)"),
            ],
        ),
        (
            "Пётр Волков (Казань), в соавторстве с Анной Ким (Гомель)",
            [
                AuthorRef("Пётр Волков", "Казань"),
                AuthorRef("Анной Ким", "Гомель", "в соавторстве с Анной Ким (Гомель)"),
            ],
        ),
        (
            "Пётр Волков, при участии Ивана Ли и Ольги Ким (Брест — Минск)",
            [
                AuthorRef("Пётр Волков"),
                AuthorRef(
                    "Ивана Ли", "Брест — Минск", "при участии Ивана Ли и Ольги Ким (Брест — Минск)"
                ),
                AuthorRef(
                    "Ольги Ким", "Брест — Минск", "при участии Ивана Ли и Ольги Ким (Брест — Минск)"
                ),
            ],
        ),
        # a credit phrase's city is not shared with the authors before it
        (
            "Анна Смирнова, Пётр Волков, при участии Ивана Ли (Минск)",
            [
                AuthorRef("Анна Смирнова"),
                AuthorRef("Пётр Волков"),
                AuthorRef("Ивана Ли", "Минск", "при участии Ивана Ли (Минск)"),
            ],
        ),
        # editorial credits are neither authors nor payees
        ("Пётр Волков (Казань), под редакцией Ивана Ли", [AuthorRef("Пётр Волков", "Казань")]),
        ("Пётр Волков, Редактор: Иван Ли", [AuthorRef("Пётр Волков")]),
        (
            "Пётр Волков и Анна Ким (Минск), в редакции Ивана Ли (Брест)",
            [AuthorRef("Пётр Волков", "Минск"), AuthorRef("Анна Ким", "Минск")],
        ),
        # "и" inside the parentheses or before a lower-case word does not split
        ("Пётр Волков (Минск и Брест)", [AuthorRef("Пётр Волков", "Минск и Брест")]),
        ("Клуб «Знатоки и эрудиты»", [AuthorRef("Клуб «Знатоки и эрудиты»")]),
    ],
)
def test_parse_authors_patterns(text, expected):
    assert parse_authors(text) == expected


def test_format_authors_round_trip():
    line = "Дмитрий Шахлов (Рига), Вадим Германенко (Витебск — Минск)"
    assert format_authors(parse_authors(line)) == line


# --- db format -------------------------------------------------------------------------

DB_SAMPLE = """Чемпионат:
Тестовый турнир "Сова" - 2026

Тур:
1 тур

Вопрос 1:
(pic: 12345.jpg)
   Перед вами - "картинка". Назовите композитора ОттОна
Николаи.

Ответ:
Николаи.

Зачет:
Отто Николаи.

Незачет:
Николай.

Комментарий:
Текст - "комментарий".

Источник:
   1. Первый источник,
продолжение.
   2. http://example.org/a%20b

Автор:
Иван Петров (Москва), Пётр Иванов

Вопрос 2:
   <раздатка>
   Строка 1
   - Строка 2
   </раздатка>
   Что на раздатке?

Ответ:
   1. Строки;
   2. текст.
"""


def test_db_sample():
    packet = parse_db(DB_SAMPLE)
    assert packet.title == "Тестовый турнир «Сова» — 2026"
    q1, q2 = packet.questions
    lines = DB_SAMPLE.split("\n")
    assert (q1.line, q2.line) == (lines.index("Вопрос 1:") + 1, lines.index("Вопрос 2:") + 1)
    assert q1.question == (
        "[Раздаточный материал:(img 12345.jpg)]\n"
        "Перед вами — «картинка». Назовите композитора Отто" + ACUTE + "на Николаи."
    )
    assert q1.handout == "(img 12345.jpg)" and q1.images == ["12345.jpg"]
    assert (q1.accepted, q1.rejected) == ("Отто Николаи.", "Николай.")
    assert q1.comment == "Текст — «комментарий»."
    assert q1.sources == ["Первый источник, продолжение.", "http://example.org/a b"]
    assert q1.authors == [AuthorRef("Иван Петров", "Москва"), AuthorRef("Пётр Иванов")]
    assert q1.tour == q2.tour == "1 тур"
    assert q2.question == "[Раздаточный материал:\nСтрока 1\n— Строка 2\n]\nЧто на раздатке?"
    assert q2.handout == "Строка 1\n— Строка 2"
    assert q2.answer == "1. Строки;\n2. текст."
    assert q2.authors == [] and q2.sources == []


def test_db_inline_headers_and_crlf():
    packet = parse_db("Вопрос 1: Сколько?\r\n\r\nОтвет: Два.\r\n")
    (q,) = packet.questions
    assert (q.question, q.answer, q.line) == ("Сколько?", "Два.", 1)


# --- format detection ---------------------------------------------------------------------


def test_detect_format():
    assert detect_format(DB_SAMPLE) == "db"
    assert detect_format("? Вопрос\n! Ответ\n") == "4s"
    assert detect_format("") == "4s"
    assert parse_packet(DB_SAMPLE).meta["format"] == "db"


# --- broken packets ---------------------------------------------------------------------


def _error(parse, text) -> PacketError:
    with pytest.raises(PacketError) as info:
        parse(text)
    return info.value


def test_4s_question_without_answer():
    text = "? Первый\n! Ответ\n\n? Второй\n/ комментарий\n\n? Третий\n! Ответ\n"
    err = _error(parse_4s, text)
    assert err.line == 4
    assert "answer" in err.message and "line 4" in str(err)


def test_4s_answer_without_question():
    assert _error(parse_4s, "? В\n! О\n\n\n! Ответ без вопроса\n").line == 5


def test_4s_no_questions():
    err = _error(parse_4s, "### Заголовок\n\n# только мета\n")
    assert err.line == 4 and "no questions" in err.message
    assert _error(parse_4s, "").line == 1


def test_4s_text_without_marker_after_blank_line():
    err = _error(parse_4s, "? В\n! О\n\nпотерянная строка\n")
    assert err.line == 4 and "marker" in err.message


def test_4s_binary_garbage():
    err = _error(parse_4s, "? Вопрос\n! Ответ\n\n\x00\x01\x02PK\x03\x04")
    assert err.line == 4 and "control" in err.message


def test_parse_packet_garbage():
    assert _error(parse_packet, "просто текст\nбез разметки").line == 1


def test_db_question_without_answer():
    text = "Вопрос 1:\nТекст\n\nОтвет:\nДа\n\nВопрос 2:\nЕщё текст\n\nКомментарий:\nБез ответа\n"
    assert _error(parse_db, text).line == 7


def test_db_stray_block_and_field_before_question():
    assert _error(parse_db, "Вопрос 1:\nТекст\n\nОтвет:\nДа\n\nлишний абзац\n").line == 7
    assert _error(parse_db, "Ответ:\nДа\n\nВопрос 1:\nТекст\n").line == 1


def test_db_no_questions():
    assert _error(parse_db, "Чемпионат:\nТурнир\n").line == 3


def test_packet_error_pickles():
    import pickle

    err = pickle.loads(pickle.dumps(PacketError("no answer", 12, "a.4s")))
    assert (err.message, err.line, err.filename, str(err)) == (
        "no answer",
        12,
        "a.4s",
        "a.4s, line 12: no answer",
    )


def test_packet_errors_carry_a_code_for_pages_to_translate():
    """The web import page says the error in Russian from ``code`` (and ``params``)."""
    cases = [
        (parse_4s, "? Вопрос без ответа\n", "no_answer", {}),
        (parse_4s, "? В\n! О\n\nпотерянная строка\n", "outside_field", {}),
        (parse_4s, "? В\n! О\n\n\n! Ответ без вопроса\n", "no_question", {}),
        (parse_4s, "# только мета\n", "no_questions", {}),
        (parse_4s, "? В\n! О\n\n\x00", "control_chars", {}),
        (parse_db, "Вопрос 1:\nТекст\n\nлишний абзац\n", "db_outside_field", {}),
        (
            parse_db,
            "Ответ:\nДа\n\nВопрос 1:\nТекст\n",
            "db_field_before_question",
            {"label": "Ответ"},
        ),
        (parse_db, "Чемпионат:\nТурнир\n", "db_no_questions", {}),
        (parse_db, "Вопрос 1:\nТекст без ответа\n", "db_no_answer", {}),
    ]
    for parse, text, code, params in cases:
        err = _error(parse, text)
        assert (err.code, err.params) == (code, params), text
        assert err.code in PACKET_ERROR_CODES


def test_packet_error_keeps_its_code_through_pickle_and_with_filename():
    import pickle

    err = PacketError("x", 3, None, "db_field_before_question", {"label": "Ответ"})
    for copy in (pickle.loads(pickle.dumps(err)), err.with_filename("a.txt")):
        assert (copy.code, copy.params, copy.line) == (
            "db_field_before_question",
            {"label": "Ответ"},
            3,
        )
