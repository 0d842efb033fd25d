"""Content pre-checks: language, obscene words, the author's own
surname or city in the text, a handout referred to but missing — as pure functions
(``webapp.moderation.checks``) and through ``precheck`` (stored report, flags, queue
filter, the editor's page)."""

from __future__ import annotations

import pytest

from webapp.extensions import db
from webapp.moderation import queries
from webapp.moderation.checks import (
    author_leaks,
    handout_reference,
    has_handout,
    is_obscene,
    obscene_words,
)
from webapp.moderation.models import PRECHECK_VERSION, ModerationReport
from webapp.moderation.operations import precheck
from webapp.moderation.queries import QueueFilter
from webapp.submissions.operations import create_question
from webapp.tasks.outbox import commit

# --- obscene words --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "word",
    [
        "хуй",
        "хуями",
        "нахуя",
        "похуй",
        "хуйня",
        "охуенный",
        "пизда",
        "пизды",
        "пиздец",
        "спиздить",
        "распиздяй",
        "ебать",
        "ебёт",
        "ебут",
        "заебись",
        "уебище",
        "долбоёб",
        "выёбываться",
        "наебал",
        "блядь",
        "блять",
        "блядями",
        "выблядок",
        "мудак",
        "мудила",
        "пидорас",
        "манда",
        "мандой",
        "ХУЙ",
        "хУй",
        "xуй",  # capitals, capital-vowel «stress», a Latin "x"
    ],
)
def test_obscene_words_and_their_forms(word):
    assert is_obscene(word)


@pytest.mark.parametrize(
    "word",
    [
        # a root inside an ordinary word (the Scunthorpe problem)
        "оскорблять",
        "оскорбляет",
        "употреблять",
        "потребляет",
        "рубля",
        "сабля",
        "корабля",
        "страхуй",
        "застрахуй",
        "психуй",
        "команда",
        "мандарин",
        "мандат",
        "Мандельштам",
        "колебаться",
        "хлебало",
        "хлеб",
        "небо",
        "себе",
        "себя",
        "подебоширить",
        "учеба",
        "гребля",
        "мудрый",
        "мудрец",
        "хуже",
        "худой",
        "Тихуана",
        "Хуан",
        "ребята",
        # rude or vulgar, but not мат
        "сука",
        "дерьмо",
        "хрен",
    ],
)
def test_ordinary_words_are_not_obscene(word):
    assert not is_obscene(word)


def test_obscene_words_in_a_text():
    text = (
        "Сабля, рубля и команда — не мат. А вот «ХУЙ», хуями и ещё раз хуй, "
        "Пиздец! — мат; оскорблять можно и без него."
    )
    assert obscene_words(text) == ["хуй", "хуями", "пиздец"]
    assert obscene_words("Какой город основал Ярослав Мудрый на Волге в XI веке?") == []
    assert obscene_words("Ён сказаў: «Блядзь», — і пайшоў.") == ["блядзь"]  # Belarusian
    assert obscene_words("Ён сказаў: «Бляха», — і пайшоў.") == []
    assert obscene_words("") == []


# --- the author's own surname or city ----------------------------------------------------

AUTHORS = [
    ("Мария Лисовская", "Гомель"),
    ("Иван Сапего", "Ростов-на-Дону"),
    ("Алесь Бяляцкі", "Мінск"),
    ("Пётр Ус", "Орёл"),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Этот памятник стоит в Гомеле с 1999 года.", [("вопрос", "город")]),
        ("Гомельский дворец Румянцевых-Паскевичей.", [("вопрос", "город")]),
        ("Помніце, у Гомелі ёсць палац.", [("вопрос", "город")]),  # Belarusian
        ("В Ростове-на-Дону есть улица Большая Садовая.", [("вопрос", "город")]),
        ("у Мінску", [("вопрос", "город")]),
        ("в Минске", [("вопрос", "город")]),
        ("Как писала Лисовской её подруга, …", [("вопрос", "фамилия")]),
        ("Сапего — старинный род.", [("вопрос", "фамилия")]),
        ("Бяляцкага ведаюць усе.", [("вопрос", "фамилия")]),
        # not a leak: a given name, a 2-letter surname, another Ростов, a similar word
        ("Мария Стюарт и Иван Грозный.", []),
        ("Ус — это часть лица.", []),
        ("Ростов Великий и река Дон.", []),
        ("Лисица и гомеопатия.", []),
        ("Николай и Орлеан.", []),
    ],
)
def test_author_leaks(text, expected):
    assert author_leaks({"вопрос": text}, AUTHORS) == expected


def test_author_leaks_names_fields_not_words():
    found = author_leaks(
        {"вопрос": "Орёл — город.", "комментарий": "Автор из Орла.", "раздаточный материал": None},
        AUTHORS,
    )
    assert found == [("вопрос", "город"), ("комментарий", "город")]
    assert author_leaks({"вопрос": "Гомель"}, [("Без Города", None)]) == []
    assert author_leaks({"вопрос": "Гомель"}, []) == []


def test_city_of_the_author_called_like_a_given_name():
    # «Николаев» is also the genitive plural of «Николай»: only the city reading counts
    assert (
        author_leaks(
            {"вопрос": "Историк Николай Костомаров сообщает…"},
            [("Александр Кудрявцев", "Николаев")],
        )
        == []
    )
    assert author_leaks({"вопрос": "Порт в Николаеве."}, [("Александр Кудрявцев", "Николаев")]) == [
        ("вопрос", "город")
    ]


# --- handout referenced but missing -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("Перед вами фрагмент карты. Что на нём отмечено?", "Перед вами"),
        ("На раздатке мы убрали подписи к фотографиям.", "На раздатке"),
        ("Раздаточный материал: см. ниже.", "Раздаточный материал"),
        ("Что изображено на этом  фото?", "на этом фото"),
        ("На рисунке — герб города.", "На рисунке"),
        ("На изображении вы видите ЕГО.", "На изображении"),
        ("Перад вамі ўрывак з ліста.", "Перад вамі"),
        ("Што намалявана на малюнку?", "на малюнку"),
        ("Раздатачны матэрыял ляжыць на стале.", "Раздатачны матэрыял"),
        # described in words, no handout needed
        ("На картине Эдуара Мане «В лодке» на голове рулевого красуется ЭТА ШЛЯПА.", None),
        ("На фотографии 1940 года ЭТОГО ПИСАТЕЛЯ можно увидеть с двумя парусниками.", None),
        ("Мы собирались вам раздать либо картину 1891 года, либо другую.", None),
    ],
)
def test_handout_reference(text, reference):
    assert handout_reference(text) == reference


def test_has_handout():
    assert has_handout("Текст раздатки", None, ["Перед вами текст."])
    assert has_handout(None, "a1b2.webp", ["Перед вами фото."])
    # how the importer keeps handouts inside the text (webapp.domain.packets)
    assert has_handout(None, None, ["[Раздаточный материал: Ad usum Delphini] Перед вами…"])
    assert has_handout(None, None, ["[Раздаточный материал:(img 1.jpg)] Перед вами…"])
    assert has_handout(None, None, ["Перед вами герб: (img gerb.png)"])
    assert has_handout(
        None, None, ["Раздаточный материал:\nЛишний вес — страшный сон.\nПеред вами…"]
    )
    assert not has_handout(None, None, ["Перед вами фрагмент карты."])
    assert not has_handout("  ", None, ["Перед вами фрагмент карты.", None])


# --- through precheck ------------------------------------------------------------------------


def make(text, answer="Гомель", city="Гомель", comment=None, handout=None):
    q = create_question(
        {
            "question": text,
            "answer": answer,
            "comment": comment,
            "handout": handout,
            "sources": ["https://example.org/s"],
            "authors": [("Мария Лисовская", city, "m@example.com")],
        },
        "web",
    )
    commit()
    precheck(q.id)
    commit()
    return q


def report_of(q) -> ModerationReport:
    return db.session.scalar(
        db.select(ModerationReport).filter_by(question_id=q.id, version=PRECHECK_VERSION)
    )


def test_precheck_stores_the_content_checks(app):
    q = make(
        "Перед вами фрагмент карты. Этот памятник в Гомеле установили в 1999 году, "
        "и хуй кто его узнает. Назовите его."
    )
    report = report_of(q)
    assert report.version == 5
    assert report.checks[6:] == [
        {"name": "language", "ok": True, "message": "язык: русский"},
        {"name": "obscene_words", "ok": False, "message": "нецензурные слова: хуй"},
        {
            "name": "author_in_text",
            "ok": False,
            "message": "фамилия или город автора в тексте: вопрос (город)",
        },
        {
            "name": "handout_missing",
            "ok": False,
            "message": "текст ссылается на раздаточный материал («Перед вами»), но его нет",
        },
        {"name": "images_missing", "ok": True, "message": ""},  # no image is referred to
        {
            "name": "answer_leak",
            "ok": False,
            "message": "слова ответа в тексте: «Гомеле» (вопрос)",
            "words": [{"word": "гомель", "found": "Гомеле", "where": "вопрос", "intended": False}],
        },
        # 49 syllables («1999»: 12) at 4.5 a second; no handout, so no note
        {"name": "reading_time", "ok": True, "message": "≈ 11 с", "seconds": 10.9},
        {
            "name": "names_to_stress",
            "ok": False,
            "message": "без ударения: Гомеле",
            "words": [{"word": "Гомеле", "suggestion": None}],
        },
    ]
    assert [c["name"] for c in report.checks[:6]] == [
        "question_present",
        "answer_present",
        "question_length",
        "answer_length",
        "author_present",
        "sources_present",
    ]
    assert all(c["ok"] for c in report.checks[:6])
    assert (
        report.flags
        == " obscene_words author_in_text handout_missing answer_leak names_to_stress lang_ru "
    )


def test_precheck_clean_belarusian_and_other_language(app):
    be = make(
        "Паводле легенды, гэты горад заснаваў князь Барыс. Як ён называецца?",
        answer="Барысаў",
        city="Брэст",
        handout="Мапа Беларусі",
    )
    en = make(
        "According to legend, this city was founded by Prince Boris. Name it.",
        answer="Borisov",
        city="Brest",
    )
    assert report_of(be).checks[6:] == [
        {"name": "language", "ok": True, "message": "язык: белорусский"},
        {"name": "obscene_words", "ok": True, "message": ""},
        {"name": "author_in_text", "ok": True, "message": ""},
        {"name": "handout_missing", "ok": True, "message": ""},
        {"name": "images_missing", "ok": True, "message": ""},
        # the prince's name is the answer's root: a hint the editor marks as intended
        {
            "name": "answer_leak",
            "ok": False,
            "message": "слова ответа в тексте: «Барыс» (вопрос)",
            "words": [{"word": "барысаў", "found": "Барыс", "where": "вопрос", "intended": False}],
        },
        # 23 syllables of the question and 12 of the handout's note, at 4.5 a second
        {"name": "reading_time", "ok": True, "message": "≈ 8 с", "seconds": 7.8},
        {
            "name": "names_to_stress",
            "ok": False,
            "message": "без ударения: Барыс",
            "words": [{"word": "Барыс", "suggestion": None}],
        },
    ]
    assert report_of(be).flags == " answer_leak names_to_stress lang_be "
    assert report_of(en).checks[6] == {
        "name": "language",
        "ok": False,
        "message": "язык: английский",
    }
    assert report_of(en).flags == " language lang_other "


def test_precheck_reads_the_language_the_table_fill_reads(app):
    from webapp.moderation.operations import question_language

    # a Belarusian phrase quoted in a Russian question: Russian for the editor and the fill
    quoting = make("Что значит «Перад вамі» на белорусском? Ответьте по-русски.", answer="Вот")
    # short Belarusian without «і» or «ў», its handout Belarusian too
    short = make("Што гэта?", answer="Кубак", handout="Гэта — кубак")
    assert report_of(quoting).checks[6] == {
        "name": "language",
        "ok": True,
        "message": "язык: русский",
    }
    assert report_of(short).checks[6] == {
        "name": "language",
        "ok": True,
        "message": "язык: белорусский",
    }
    assert (question_language(quoting), question_language(short)) == ("ru", "be")
    assert report_of(quoting).flags.endswith(" lang_ru ")
    assert report_of(short).flags.endswith(" lang_be ")


def test_queue_filters_by_the_new_flags(app):
    leak = make("Этот памятник в Гомеле установили в 1999 году. Назовите его.")
    be = make(
        "Паводле легенды, гэты горад заснаваў князь Барыс. Як ён называецца?",
        answer="Барысаў",
        city="Брэст",
    )

    def ids(flag):
        items, _ = queries.queue(filters=QueueFilter(flag=flag))
        return [q.id for q in items]

    assert ids("author_in_text") == [leak.id]
    assert ids("lang_be") == [be.id]
    assert ids("lang_ru") == [leak.id]
    assert ids("obscene_words") == []


def test_editor_page_and_queue_show_the_checks(app, login, client):
    q = make("Перед вами фрагмент карты. Этот памятник в Гомеле установили в 1999 году.")
    login("editor")
    page = client.get(f"/editor/questions/{q.id}").get_data(as_text=True)
    assert '<li class="ok">язык вопроса: ок (язык: русский)</li>' in page
    assert (
        '<li class="bad">анонимность: фамилия или город автора в тексте: вопрос (город)</li>'
    ) in page
    assert (
        '<li class="bad">раздаточный материал: текст ссылается на раздаточный материал '
        "(«Перед вами»), но его нет</li>"
    ) in page
    assert "Лисовская" not in page  # blind moderation: the message names no author
    queue_page = client.get("/editor/queue?flag=handout_missing").get_data(as_text=True)
    assert '<option selected value="handout_missing">нет раздатки</option>' in queue_page
    assert f'href="/editor/questions/{q.id}"' in queue_page
    # with the answer in the text, and «Гомеле» without a stress mark
    assert '<span class="bad">4 замеч.</span>' in queue_page
