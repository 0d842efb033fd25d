"""Authors as quiz packets write them, through ``sova import``, the editors' import
page and the API; the line as written is kept beside the parsed authors; a credited
co-author is stored in the nominative and paid, an editor named in a credit is not."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest

from webapp.domain.books import BOOKS
from webapp.domain.money import Money
from webapp.domain.prizes import unanswered_question_prizes
from webapp.extensions import db
from webapp.submissions.models import Question
from webapp.submissions.names import credit_case, name_gender, nominative_name

PECHENY = "data/chgk/alexander-pecheny__chgksuite"


def rows(q: Question) -> list[tuple[str, str | None, str | None]]:
    """``(name, city, credit)`` of the question's authors, in authorship order."""
    return [(qa.author.name, qa.author.city, qa.credit) for qa in q.authors]


def imported(app, *paths, as_="submissions") -> list[Question]:
    result = app.test_cli_runner().invoke(args=["import", *map(str, paths), "--as", as_])
    assert result.exit_code == 0, result.output
    return db.session.scalars(db.select(Question).order_by(Question.id)).all()


# --- genitive → nominative (pymorphy3) ---------------------------------------------------


@pytest.mark.parametrize(
    ("genitive", "nominative"),
    [
        ("Евгения Миротина", "Евгений Миротин"),  # the example
        ("Марии Сидоровой", "Мария Сидорова"),
        ("Наиля Фарукшина", "Наиль Фарукшин"),  # the editor of the Kubok packet, as a person
        ("Ольги Берёзкиной-Смирновой", "Ольга Берёзкина-Смирнова"),
        ("Анны Бойко", "Анна Бойко"),  # an indeclinable surname stays
        ("Ивана Петровича Сидорова", "Иван Петрович Сидоров"),
        ("Евгений Миротин", "Евгений Миротин"),  # already nominative: unchanged
        ("Клуба Коломна", "Клуба Коломна"),  # no given name: left as written
    ],
)
def test_nominative_name(genitive, nominative):
    assert nominative_name(genitive) == nominative


@pytest.mark.parametrize(
    ("credit", "name", "nominative"),
    [
        ("в соавторстве с Ольгой Ким", "Ольгой Ким", "Ольга Ким"),
        ("в соавторстве с Юрием Ли", "Юрием Ли", "Юрий Ли"),
        ("в соавторстве со Светланой Ивановой", "Светланой Ивановой", "Светлана Иванова"),
        ("при помощи Ивана Петрова", "Ивана Петрова", "Иван Петров"),
    ],
)
def test_the_credit_phrase_decides_the_case(credit, name, nominative):
    assert nominative_name(name, credit_case(credit)) == nominative


# --- real packets through `sova import` ----------------------------------------------------


def test_import_kubok_editorial_credit_is_not_an_author(app, shared_dir):
    """Kubok_knyagini_Olgi-2015.docx.canon line 47: «Дмитрий Шахлов, в редакции Наиля
    Фарукшина»; line 67 with two authors; line 16: «Иван Сапего (Брест — Минск)»."""
    qs = imported(app, shared_dir / PECHENY / "Kubok_knyagini_Olgi-2015.docx.canon")
    by_line = {}
    for q in qs:
        by_line.setdefault(q.author_line, q)
    q = by_line["Дмитрий Шахлов, в редакции Наиля Фарукшина"]
    assert rows(q) == [("Дмитрий Шахлов", None, None)]
    q2 = by_line["Дмитрий Шахлов, Вадим Германенко, в редакции Наиля Фарукшина"]
    assert rows(q2) == [("Дмитрий Шахлов", None, None), ("Вадим Германенко", None, None)]
    assert rows(by_line["Иван Сапего (Брест — Минск)"]) == [("Иван Сапего", "Брест — Минск", None)]
    # who is paid follows the parsed authors: the editor is no payee
    shares = unanswered_question_prizes(
        BOOKS["2023"].unanswered_rule,
        [(q2.id, [qa.author_id for qa in q2.authors])],
        Money(Decimal("100.01"), "BYN"),
    )
    assert [
        (db.session.get(type(q2.authors[0].author), e.author_key).name, e.money.amount)
        for e in shares
    ] == [("Дмитрий Шахлов", Decimal("50.01")), ("Вадим Германенко", Decimal("50.00"))]


def test_import_comma_in_city_and_db_packet_lines(app, shared_dir):
    """Shkolny_Chemp_Estonii-2014_(48v).docx.canon line 91: «Денис Ершов (Тарту, Эстония)»;
    balt09-1.txt (db format, KOI8-R): «Александр Кудрявцев (Николаев)»."""
    qs = imported(
        app,
        shared_dir / PECHENY / "Shkolny_Chemp_Estonii-2014_(48v).docx.canon",
        shared_dir / PECHENY / "balt09-1.txt",
    )
    ershov = [q for q in qs if q.author_line == "Денис Ершов (Тарту, Эстония)"]
    assert len(ershov) == 1 and rows(ershov[0]) == [("Денис Ершов", "Тарту, Эстония", None)]
    balt = [q for q in qs if q.origin.startswith("balt09-1.txt#")]
    assert len(balt) == 36
    assert balt[0].author_line == "Александр Кудрявцев (Николаев)"
    assert rows(balt[0]) == [("Александр Кудрявцев", "Николаев", None)]


# --- written packets: every pattern --------------------------------------------------------

PACKET = """### Проверка авторов

? Первый вопрос о том, как пакеты пишут двух авторов из одного города.
! Один
@ Анна Смирнова, Пётр Волков (Казань)

? Второй вопрос о том, как пакеты пишут двух авторов из одного города.
! Два
@ Анна Смирнова и Пётр Волков (Казань)

? Третий вопрос: автор с соавтором, упомянутым при активном участии.
! Три
@ Пётр Волков (Казань), при активном участии Евгения Миротина (Горки, Белоруссия)

? Четвёртый вопрос: при участии, при помощи и в соавторстве.
! Четыре
@ Анна Смирнова (Брест — Минск), при участии Марии Сидоровой, при помощи Ивана Петрова (Минск)

? Пятый вопрос: в соавторстве с двумя людьми из одного города.
! Пять
@ Пётр Волков, в соавторстве с Ольгой Ким и Юрием Ли (Гомель)

? Шестой вопрос: редактор не автор и не получатель приза.
! Шесть
@ Анна Смирнова (Казань), в редакции Наиля Фарукшина
"""

CREDIT3 = "при активном участии Евгения Миротина (Горки, Белоруссия)"
CREDIT5 = "в соавторстве с Ольгой Ким и Юрием Ли (Гомель)"
EXPECTED = [
    [("Анна Смирнова", "Казань", None), ("Пётр Волков", "Казань", None)],
    [("Анна Смирнова", "Казань", None), ("Пётр Волков", "Казань", None)],
    [("Пётр Волков", "Казань", None), ("Евгений Миротин", "Горки, Белоруссия", CREDIT3)],
    [
        ("Анна Смирнова", "Брест — Минск", None),
        ("Мария Сидорова", None, "при участии Марии Сидоровой"),
        ("Иван Петров", "Минск", "при помощи Ивана Петрова (Минск)"),
    ],
    [("Пётр Волков", None, None), ("Ольга Ким", "Гомель", CREDIT5), ("Юрий Ли", "Гомель", CREDIT5)],
    [("Анна Смирнова", "Казань", None)],
]


def test_written_packet_through_sova_import(app, tmp_path):
    path = tmp_path / "authors.4s"
    path.write_text(PACKET, encoding="utf-8")
    qs = imported(app, path)
    assert [rows(q) for q in qs] == EXPECTED
    assert [q.author_line for q in qs] == [
        line[2:] for line in PACKET.split("\n") if line.startswith("@ ")
    ]
    # the same person is one author row across questions (no e-mail: name + city)
    assert qs[0].authors[0].author_id == qs[1].authors[0].author_id
    # a credited co-author shares the prize
    q3 = qs[2]
    shares = unanswered_question_prizes(
        BOOKS["2009"].unanswered_rule,
        [(q3.id, [qa.author_id for qa in q3.authors])],
        Money(Decimal("1000"), "RUB"),
    )
    assert [(e.author_key, e.money.amount) for e in shares] == [
        (q3.authors[0].author_id, Decimal("500.00")),
        (q3.authors[1].author_id, Decimal("500.00")),
    ]


def test_written_db_packet_in_cp1251_through_sova_import(app, tmp_path):
    path = tmp_path / "authors.txt"
    path.write_bytes(
        (
            "Вопрос 1:\nКакой город упомянут в этом вопросе для проверки авторов?\n\n"
            "Ответ:\nКазань\n\n"
            "Автор:\nАнна Смирнова и Пётр Волков (Казань), при активном участии\n"
            "Евгения Миротина (Горки, Белоруссия)\n"
        ).encode("cp1251")
    )
    (q,) = imported(app, path)
    # db lines are hard-wrapped: the line as chgksuite reads it (joined with a space)
    assert q.author_line == (
        "Анна Смирнова и Пётр Волков (Казань), при активном участии "
        "Евгения Миротина (Горки, Белоруссия)"
    )
    assert rows(q) == [
        ("Анна Смирнова", "Казань", None),
        ("Пётр Волков", "Казань", None),
        ("Евгений Миротин", "Горки, Белоруссия", CREDIT3),
    ]


def test_written_packet_through_the_import_page(login, client):
    login("editor")
    resp = client.post(
        "/editor/import",
        data={
            "packet": (io.BytesIO(PACKET.encode("utf-8")), "authors.4s"),
            "as_": "archive",
            "channel": "import",
        },
        content_type="multipart/form-data",
    )
    assert resp.status_code == 302, resp.get_data(as_text=True)
    qs = db.session.scalars(db.select(Question).order_by(Question.id)).all()
    assert [rows(q) for q in qs] == EXPECTED
    assert qs[2].author_line == ("Пётр Волков (Казань), " + CREDIT3)


# --- the API: authors are given as entries, not as a line ----------------------------------


def test_api_submission_keeps_its_author_entries_as_given(api):
    """``POST /api/v1/submissions`` carries ``authors: [{name, city, email?}]``: the viewer
    has already split the people, so there is no line to parse and none is stored
    (``author_line`` is None); the entries are stored as given, in order — two authors of
    one city each carry it, a co-author is an author like any other."""
    resp = api(
        "post",
        "/api/v1/submissions",
        json={
            "question": "Какой город упомянут в этом вопросе для проверки авторов?",
            "answer": "Казань",
            "email": "anna@example.com",
            "consent": True,
            "authors": [
                {"name": "Анна Смирнова", "city": "Казань"},
                {"name": "Пётр Волков", "city": "Казань"},
                {
                    "name": "Евгений Миротин",
                    "city": "Горки, Белоруссия",
                    "email": "e.m@example.com",
                },
            ],
        },
    )
    assert resp.status_code == 201, resp.json
    q = db.session.get(Question, resp.json["id"])
    assert q.author_line is None
    assert rows(q) == [
        ("Анна Смирнова", "Казань", None),
        ("Пётр Волков", "Казань", None),
        ("Евгений Миротин", "Горки, Белоруссия", None),
    ]


# --- the question page: both, for the chief editor who reveals the authors -----------------


def test_question_page_shows_the_line_and_the_parsed_authors(app, tmp_path, login, client):
    path = tmp_path / "authors.4s"
    path.write_text(PACKET, encoding="utf-8")
    q3 = imported(app, path)[2]
    login("editor")
    page = client.get(f"/editor/questions/{q3.id}").get_data(as_text=True)
    assert "Миротин" not in page and "Волков" not in page  # blind moderation
    client.post("/logout")
    login("chief_editor")
    page = client.post(f"/editor/questions/{q3.id}/reveal").get_data(as_text=True)
    assert (
        "Как в пакете: <q>Пётр Волков (Казань), при активном участии Евгения Миротина "
        "(Горки, Белоруссия)</q>"
    ) in page
    assert "<li>Пётр Волков, Казань\n" in page
    assert (
        "<li>Евгений Миротин, Горки, Белоруссия <small>(в пакете: «при активном участии "
        "Евгения Миротина (Горки, Белоруссия)»)</small>"
    ) in page


def test_chief_editor_corrects_a_credited_co_author(app, tmp_path, login, client, staff):
    """pymorphy3 reads «Евгения Миротина» as Евгений Миротин; if the co-author is a woman,
    Евгения Миротина, the chief editor corrects it: the line and the phrase stay as
    written, the question is linked to the corrected author, the correction is audited."""
    from webapp.moderation.models import ModerationAudit
    from webapp.submissions.models import Author

    path = tmp_path / "authors.4s"
    path.write_text(PACKET, encoding="utf-8")
    q3 = imported(app, path)[2]
    old_id = q3.authors[1].author_id
    login("editor")
    url = f"/editor/questions/{q3.id}/authors/1"
    form = {"name": "Евгения Миротина", "city": "Горки, Белоруссия"}
    assert client.post(url, data=form).status_code == 403
    client.post("/logout")
    login("chief_editor")
    page = client.post(url, data=form).get_data(as_text=True)
    assert "Автор исправлен." in page
    assert "<li>Евгения Миротина, Горки, Белоруссия <small>(в пакете: «при активном" in page
    db.session.expire_all()
    q3 = db.session.get(Question, q3.id)
    assert rows(q3) == [
        ("Пётр Волков", "Казань", None),
        ("Евгения Миротина", "Горки, Белоруссия", CREDIT3),
    ]
    assert q3.author_line == "Пётр Волков (Казань), " + CREDIT3
    assert db.session.get(Author, old_id).name == "Евгений Миротин"  # other questions keep it
    actions = db.session.scalars(db.select(ModerationAudit.action).order_by(ModerationAudit.id))
    assert list(actions) == ["correct_author", "reveal_authors"]
    # the other author of the question cannot be named twice; an empty name is refused
    page = client.post(url, data={"name": "Пётр Волков", "city": "Казань"}).get_data(as_text=True)
    assert "Автор не исправлен: этот автор уже указан в вопросе" in page
    page = client.post(url, data={"name": " ", "city": ""}).get_data(as_text=True)
    assert "Автор не исправлен: укажите имя" in page
    assert rows(db.session.get(Question, q3.id))[1][0] == "Евгения Миротина"


def test_a_viewer_with_an_e_mail_is_not_renamed_by_the_editor(api, login, client):
    resp = api(
        "post",
        "/api/v1/submissions",
        json={
            "question": "Какой город упомянут в этом вопросе для проверки авторов?",
            "answer": "Казань",
            "email": "anna@example.com",
            "consent": True,
            "authors": [{"name": "Анна Смирнова", "city": "Казань"}],
        },
    )
    qid = resp.json["id"]
    login("chief_editor")
    page = client.post(f"/editor/questions/{qid}/reveal").get_data(as_text=True)
    assert "Исправить автора" not in page
    page = client.post(
        f"/editor/questions/{qid}/authors/0", data={"name": "Анна Иванова"}
    ).get_data(as_text=True)
    assert "Автор не исправлен: автор с адресом электронной почты сам указал имя" in page
    assert rows(db.session.get(Question, qid)) == [("Анна Смирнова", "Казань", None)]


def test_written_packet_through_sova_import_on_postgresql(make_app, pg_url, tmp_path):
    """The same import on PostgreSQL (migration 0012_author_line there too)."""
    app = make_app(SOVA_DATABASE_URL=pg_url)
    path = tmp_path / "authors.4s"
    path.write_text(PACKET, encoding="utf-8")
    with app.app_context():
        qs = imported(app, path)
        assert [rows(q) for q in qs] == EXPECTED
        assert qs[2].author_line == "Пётр Волков (Казань), " + CREDIT3
        db.session.remove()
        db.engine.dispose()


@pytest.mark.parametrize(
    ("name", "gender"),
    [
        ("Анна Лысенко", "femn"),
        ("Иван Сапего", "masc"),
        ("Купалович Иван Доминикович", "masc"),
        ("Женя Пак", None),  # either gender
        # pymorphy3 reads Russian only: Belarusian «Янка» (Иван) is no woman, and a name
        # spelt in Belarusian is not guessed («Мікола» read as Russian is feminine)
        ("Янка Купалавіч", None),
        ("Янка Купалович", None),
        ("Мікола Лынькоў", None),
        ("Мар'я Сабаль", None),
    ],
)
def test_name_gender(name, gender):
    assert name_gender(name) == gender
