"""One author per person, the pure part: authors matched across spellings, and "no author twice in one
game" counted on persons (``webapp.domain.authors``)."""

from __future__ import annotations

import pytest

from webapp.domain.authors import (
    AuthorKey,
    Match,
    Repeat,
    fold_name,
    match,
    payee_may_be_author,
    person,
    repeated_authors,
    suggest,
)
from webapp.domain.books import BOOKS, rule_reference


@pytest.mark.parametrize(
    ("raw", "folded"),
    [
        ("Дмитрий Шахлов", "дмитрий шахлов"),
        ("ДМИТРИЙ  ШАХЛОВ ", "дмитрий шахлов"),
        ("Пётр Ёлкин", "петр елкин"),
        ("Петр Елкин", "петр елкин"),
        ("Алёна Ша\u0301хлова", "алена шахлова"),  # a stress mark
        ("Анна-Мария Бойко", "анна мария бойко"),
        ("Витебск — Минск", "витебск — минск"),
        ("Йошкар-Ола", "йошкар ола"),  # й keeps its breve
        (None, ""),
        ("", ""),
    ],
)
def test_fold_name(raw, folded):
    assert fold_name(raw) == folded


RIGA = AuthorKey(1, "Дмитрий Шахлов", "Рига")
NO_CITY = AuthorKey(2, "Дмитрий Шахлов", None)


def test_the_issues_case_same_name_one_without_a_city():
    assert match(RIGA, NO_CITY) == "name_no_city"
    assert match(NO_CITY, RIGA) == "name_no_city"


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        # case and ё folded, the same city
        (AuthorKey(1, "Пётр Ёлкин", "Минск"), AuthorKey(2, "ПЕТР ЕЛКИН", "минск"), "name_city"),
        # the city optional when the name is the same
        (AuthorKey(1, "Пётр Ёлкин", None), AuthorKey(2, "Петр Елкин", None), "name_no_city"),
        # two cities: two people of one name
        (AuthorKey(1, "Иван Петров", "Минск"), AuthorKey(2, "Иван Петров", "Брест"), None),
        # another name
        (AuthorKey(1, "Иван Петров", "Минск"), AuthorKey(2, "Иван Петрович", "Минск"), None),
        # the same row
        (AuthorKey(1, "Иван Петров", "Минск"), AuthorKey(1, "Иван Петров", "Минск"), None),
        # two different confirmed addresses: two people who each proved their own
        (
            AuthorKey(1, "Иван Петров", "Минск", email="h1"),
            AuthorKey(2, "Иван Петров", None, email="h2"),
            None,
        ),
        # one confirmed address, the other row without one: still a likely match
        (
            AuthorKey(1, "Иван Петров", "Минск", email="h1"),
            AuthorKey(2, "Иван Петров", "Минск"),
            "name_city",
        ),
        # an empty name never matches
        (AuthorKey(1, "", None), AuthorKey(2, " ", None), None),
    ],
)
def test_match(a, b, reason):
    assert match(a, b) == reason


def test_suggest_pairs_by_folded_name_then_ids():
    authors = [
        AuthorKey(5, "Вадим Германенко", "Витебск — Минск"),
        RIGA,
        AuthorKey(7, "дмитрий шахлов", "Рига"),
        NO_CITY,
        AuthorKey(9, "Дмитрий Шахлов", "Таллин"),
        AuthorKey(11, "Вадим Германенко", None),
    ]
    assert suggest(authors) == [
        Match(authors[0], authors[5], "name_no_city"),
        Match(RIGA, NO_CITY, "name_no_city"),
        Match(RIGA, authors[2], "name_city"),
        Match(NO_CITY, authors[2], "name_no_city"),
        Match(NO_CITY, authors[4], "name_no_city"),
    ]


def test_person_follows_merges():
    assert person(3, {}) == 3
    assert person(3, {3: 1}) == 1
    assert person(4, {4: 3, 3: 1}) == 1
    assert person(1, {1: 2, 2: 1}) == 1  # a cycle (never made by a merge) stops


def test_one_author_per_game_counts_persons():
    placed = [
        ("сектор 1, вопрос 1", [(10, "Дмитрий Шахлов, Рига")]),
        ("сектор 2, вопрос 1", [(20, "Вадим Германенко")]),
        ("сектор 3, вопрос 1", [(11, "Дмитрий Шахлов")]),
    ]
    assert repeated_authors(placed, {}) == []
    assert repeated_authors(placed, {11: 10}) == [
        Repeat("сектор 3, вопрос 1", "сектор 1, вопрос 1", 10, 11, "Дмитрий Шахлов")
    ]


def test_the_rule_cites_both_books():
    assert rule_reference(BOOKS["2023"].one_author_rule) == "п. 4.11.1 Правил сезона 2023 г."
    assert rule_reference(BOOKS["2009"].one_author_rule) == "п. 1.2.2 Правил сезона 2009 г."


@pytest.mark.parametrize(
    ("author", "declared", "expected"),
    [
        ("Максим Соколов", "Соколов Максим Петрович", True),  # surname first, a patronymic
        ("М. Соколов", "Соколов Максим", True),  # an initial
        ("Пётр Ёлкин", "ЕЛКИН ПЕТР", True),  # case and ё
        ("Максим Соколов", "Максим Мерзляков", False),  # another surname
        ("М. Соколов", "Соколов Иван", False),  # the initial fits no declared word
        ("Пётр Иванов", "Иванов Пётр Анна Победитель", False),  # two more names
        ("Пётр Иванов", "Иванов Иванов", False),  # one declared word for each author word
        ("Пётр Иванов", '=HYPERLINK("http://x.example";"Иванов Пётр")', False),  # a formula
        ("Пётр Иванов", "+Иванов Пётр", False),
        ("Пётр Иванов", "Иванов Пётр (победитель)", False),
        ("Николай Римский-Корсаков", "Римский-Корсаков Николай Андреевич", True),
        ("Мар'ян Д’Арк", "Д’Арк Мар'ян", True),
        ("Максим Соколов", "", True),  # nothing declared yet
        ("Максим Соколов", None, True),
        # Belarusian spellings of the Russian declared name: і/и, ў/у, ы/и, the apostrophe
        ("Дзмітрый Аўсянік", "Авсяник Дзмитрий Иванович", True),
        ("Алесь Мурашкевіч", "Мурашкевич Алесь", True),
        ("Сымон Шыла", "Шила Симон", True),
        ("Мар'я Сабаль", "Сабаль Марья", True),
        ("Yanka Sabal", "Сабаль Янка", True),  # a Latin spelling
        # another given name is another person: Янка is Иван in Russian, but Sova cannot know
        ("Янка Купалавіч", "Купалович Иван Доминикович", False),
        ("Дзмітрый Аўсянік", "Авсяник Андрей", False),
    ],
)
def test_payee_may_be_author(author, declared, expected):
    assert payee_may_be_author(author, declared) is expected
