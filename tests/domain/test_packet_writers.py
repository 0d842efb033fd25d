"""webapp.domain.packets' writers (write_4s, write_db): what they write, and that chgksuite's
own readers (``parse_4s``; the db.chgk.info lexer ``chgk_parse_db``) and Sova's read it
back with the same fields."""

from __future__ import annotations

import os

import pytest

from webapp.domain.packets import (
    ANONYMOUS_AUTHOR,
    AskedQuestion,
    PacketItem,
    PacketTour,
    parse_4s,
    parse_db,
    write_4s,
    write_db,
)
from webapp.domain.text import normalise

A = AskedQuestion


def _chgksuite(fmt: str, text: str) -> list[dict]:
    if os.environ.get("CI") != "true":
        pytest.importorskip("chgksuite")
    from chgksuite.common import DummyLogger
    from chgksuite.composer.chgksuite_parser import parse_4s as c_parse_4s
    from chgksuite.parser_db import chgk_parse_db

    reader = c_parse_4s if fmt == "4s" else chgk_parse_db
    structure = reader(text, logger=DummyLogger())

    def value(v):
        return normalise(v) if isinstance(v, str) else [value(x) for x in v]

    return [
        {k: value(v) for k, v in q.items() if k != "number"}
        for kind, q in structure
        if kind == "Question" and "question" in q
    ]


WRITERS = {"4s": write_4s, "db": write_db}
READERS = {"4s": parse_4s, "db": parse_db}


def test_4s_of_one_question_with_every_field():
    q = A(
        "Что «это» — такое?",
        "Ответ",
        accepted="Зачёт",
        rejected="Незачёт",
        comment="Комментарий",
        sources=("Источник",),
        handout="Карточка",
        authors="Иван Иванов (Минск)",
    )
    assert write_4s("Пакет", [PacketTour(None, (PacketItem((q,)),))]) == (
        "### Пакет\n\n? Что «это» — такое?\n> Карточка\n! Ответ\n= Зачёт\n!= Незачёт\n"
        "/ Комментарий\n^ Источник\n@ Иван Иванов (Минск)\n"
    )


def test_db_of_one_question_with_every_field():
    q = A(
        "Что «это» — такое?",
        "Ответ",
        accepted="Зачёт",
        rejected="Незачёт",
        comment="Комментарий",
        sources=("Источник 1", "Источник 2"),
        handout="Карточка",
        authors="Иван Иванов (Минск)",
    )
    assert write_db("Пакет", [PacketTour("Игра 1", (PacketItem((q,)),))]) == (
        "Чемпионат:\nПакет\n\nТур:\nИгра 1\n\nВопрос 1:\n   <раздатка>\n   Карточка\n"
        "   </раздатка>\n   Что «это» — такое?\n\nОтвет:\nОтвет\n\nЗачет:\nЗачёт\n\n"
        "Незачет:\nНезачёт\n\nКомментарий:\nКомментарий\n\nИсточник:\n   1. Источник 1\n"
        "   2. Источник 2\n\nАвтор:\nИван Иванов (Минск)\n\n"
    )


TOURS = [
    PacketTour(
        "Игра 01.03.2026",
        (
            PacketItem(
                (
                    A(
                        "Первая строка\n\nпосле пустой\n! не ответ\n-5 градусов\n@ не автор",
                        "Ответ — «да»",
                        comment="Строка\n2. не пункт",
                        sources=("https://example.org/a_b", "Книга"),
                        authors="Анна Первая (Минск), Борис Второй (Гродно)",
                    ),
                )
            ),
            PacketItem(
                (
                    A("Часть «один»?", "Один", accepted="Раз", authors="Вера (Брест)"),
                    A("Часть два?\nвторая строка", "Два", comment="К двум", authors="Вера (Брест)"),
                    A("Часть три?", "Три", sources=("Справочник",), authors="Вера (Брест)"),
                ),
                "superblitz",
            ),
            PacketItem((A("Одна часть?", "Одна", authors=ANONYMOUS_AUTHOR),), "blitz"),
        ),
    ),
    PacketTour(
        "Игра 08.03.2026",
        (
            PacketItem(
                (
                    A(
                        "[Раздаточный материал:(img w=5cm kartinka_1.png)]\nЧто на снимке?",
                        "Сова",
                        comment="См. (img otvet.jpg)",
                    ),
                )
            ),
        ),
    ),
]

#: What each reader gives back: the rules of the writers' docstrings applied.
READ_BACK = [
    {
        # a blank line dropped; lines opening with a marker or "-" joined to the one before
        "question": "Первая строка\nпосле пустой ! не ответ -5 градусов @ не автор",
        "answer": "Ответ — «да»",
        "comment": "Строка\n2. не пункт",
        "source": ["https://example.org/a_b", "Книга"],
        "author": "Анна Первая (Минск), Борис Второй (Гродно)",
    },
    {
        "question": ["Суперблиц.", ["Часть «один»?", "Часть два?\nвторая строка", "Часть три?"]],
        "answer": ["Один", "Два", "Три"],
        "zachet": "1. Раз",
        "comment": "2. К двум",
        "source": "Справочник",
        "author": "Вера (Брест)",  # the same for every part: once
    },
    {"question": "Блиц.\nОдна часть?", "answer": "Одна", "author": ANONYMOUS_AUTHOR},
]


@pytest.mark.parametrize("fmt", ["4s", "db"])
def test_chgksuite_reads_the_fields_back(fmt, tmp_path, monkeypatch):
    text = WRITERS[fmt]("Сезон «2026»", TOURS)
    monkeypatch.chdir(tmp_path)  # the db reader looks for a (pic: …) file beside it
    for name in ("kartinka_1.png", "otvet.jpg"):
        (tmp_path / name).write_bytes(b"x")
    got = _chgksuite(fmt, text)
    assert got[:3] == READ_BACK
    image_question = "[Раздаточный материал:(img kartinka_1.png)]\nЧто на снимке?"
    if fmt == "4s":  # 4s keeps the reference's options; db.chgk.info has none
        image_question = image_question.replace("(img ", "(img w=5cm ")
    assert got[3] == {
        "question": image_question,
        "answer": "Сова",
        "comment": "См. (img otvet.jpg)",
    }


@pytest.mark.parametrize("fmt", ["4s", "db"])
def test_sova_reads_the_same_questions_back(fmt):
    packet = READERS[fmt](WRITERS[fmt]("Сезон «2026»", TOURS))
    assert packet.title == "Сезон «2026»"
    assert packet.meta["tours"] == ["Игра 01.03.2026", "Игра 08.03.2026"]
    assert [q.number for q in packet.questions] == [1, 2, 3, 4]  # through the whole packet
    first, blitz, single, image = packet.questions
    assert first.question == READ_BACK[0]["question"]
    assert first.sources == ["https://example.org/a_b", "Книга"]
    assert [(a.name, a.city) for a in first.authors] == [
        ("Анна Первая", "Минск"),
        ("Борис Второй", "Гродно"),
    ]
    assert blitz.answer == "1. Один\n2. Два\n3. Три"
    assert single.question == "Блиц.\nОдна часть?"
    assert image.images == ["kartinka_1.png", "otvet.jpg"]
    assert image.handout in ("(img w=5cm kartinka_1.png)", "(img kartinka_1.png)")


def test_db_numbers_questions_through_tours_and_writes_pictures():
    text = write_db(None, TOURS)
    assert text.startswith("Тур:\nИгра 01.03.2026\n\nВопрос 1:\n")
    assert "\nВопрос 4:\n[Раздаточный материал:(pic: kartinka_1.png)]\n   Что на снимке?\n" in text
    assert "Комментарий:\nСм. (pic: otvet.jpg)\n" in text
    # a further line that looks like a list item is joined where items are read
    assert write_db(None, [PacketTour(None, (PacketItem((A("Вопрос", "Раз\n2. два"),)),))]) == (
        "Вопрос 1:\nВопрос\n\nОтвет:\nРаз\n2. два\n\n"
    )


def test_a_multi_part_question_with_different_authors_numbers_them():
    item = PacketItem(
        (A("Один?", "1", authors="Анна (Минск)"), A("Два?", "2", authors=ANONYMOUS_AUTHOR)),
        "blitz",
    )
    text = write_4s(None, [PacketTour(None, (item,))])
    assert text == (
        "? Блиц.\n- Один?\n- Два?\n!\n- 1\n- 2\n@ 1. Анна (Минск)\n"
        "2. Автор пожелал остаться неизвестным\n"
    )
