"""One author per person: the Kubok packet writes Дмитрий Шахлов both «(Рига)» and
without a city; the two author rows are suggested to the chief editor, merged (audited;
questions, prizes and consents follow), and "no author twice in one game" holds on the
merged person. Trust: a match is only suggested, a survivor with an unconfirmed
address is refused, an unconfirmed address never moves."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.webapp.games import helpers as h
from webapp.authors.models import AuthorMerge
from webapp.authors.operations import AuthorError, confirm_author, merge_authors, plan_merge
from webapp.authors.queries import suggestions
from webapp.core.crypto import lookup_hash
from webapp.domain.authors import AuthorKey, Match
from webapp.extensions import db
from webapp.games.operations import (
    GameError,
    assign_envelopes,
    check_table,
    replace_slot,
)
from webapp.moderation.models import QuestionSignoff
from webapp.prizes.models import Prize, PrizeStatusChange
from webapp.submissions.models import Author, Question, QuestionAuthor
from webapp.submissions.operations import create_question, upsert_author

KUBOK = "data/chgk/peczony__chgksuite/Kubok_knyagini_Olgi-2015.docx.canon"


def imported(app, shared_dir) -> None:
    result = app.test_cli_runner().invoke(
        args=["import", str(shared_dir / KUBOK), "--as", "submissions"]
    )
    assert result.exit_code == 0, result.output


def shahlov() -> tuple[Author, Author]:
    """The two rows of the packet: «Дмитрий Шахлов (Рига)» and «Дмитрий Шахлов»."""
    rows = db.session.scalars(
        db.select(Author).where(Author.name == "Дмитрий Шахлов").order_by(Author.id)
    ).all()
    assert [(a.name, a.city) for a in rows] == [
        ("Дмитрий Шахлов", "Рига"),
        ("Дмитрий Шахлов", None),
    ]
    return rows[0], rows[1]


def links(author: Author) -> list[tuple[int, str, str | None, bool]]:
    """``(question id, name, city, confirmed)`` of the author's question links."""
    return [
        (qa.question_id, qa.name, qa.city, qa.confirmed_at is not None)
        for qa in db.session.scalars(
            db.select(QuestionAuthor)
            .where(QuestionAuthor.author_id == author.id)
            .order_by(QuestionAuthor.question_id)
        )
    ]


def approve(*questions: Question) -> None:
    """Approved with the sources signed off: ready for a game's table."""
    signer = h.signer_id()
    for q in questions:
        q.status = "approved"
        db.session.add(QuestionSignoff(question_id=q.id, user_id=signer))
    db.session.flush()


def prize(game, question: Question, author: Author) -> Prize:
    p = Prize(
        game_id=game.id,
        question_id=question.id,
        author_id=author.id,
        kind="unanswered_question",
        amount=Decimal("300.00"),
        currency="BYN",
        rule="000_90d7c8192601ed3a.txt §4.11.1",
        status="owed",
    )
    db.session.add(p)
    db.session.flush()
    return p


@pytest.fixture
def chief(staff) -> int:
    return staff("chief_editor")[0]


def test_the_kubok_packet_makes_two_shahlovs_and_they_are_suggested(app, shared_dir):
    imported(app, shared_dir)
    riga, plain = shahlov()
    assert links(riga) == [
        (3, "Дмитрий Шахлов", "Рига", False),
        (12, "Дмитрий Шахлов", "Рига", False),
    ]
    assert links(plain) == [(4, "Дмитрий Шахлов", None, False), (7, "Дмитрий Шахлов", None, False)]
    assert db.session.get(Question, 4).author_line == "Дмитрий Шахлов, в редакции Наиля Фарукшина"
    germanenko = db.session.scalars(
        db.select(Author.id).where(Author.name == "Вадим Германенко").order_by(Author.id)
    ).all()
    assert suggestions() == [
        Match(
            AuthorKey(germanenko[0], "Вадим Германенко", "Витебск — Минск"),
            AuthorKey(germanenko[1], "Вадим Германенко", None),
            "name_no_city",
        ),
        Match(
            AuthorKey(riga.id, "Дмитрий Шахлов", "Рига"),
            AuthorKey(plain.id, "Дмитрий Шахлов", None),
            "name_no_city",
        ),
    ]


def test_merge_moves_questions_and_prizes_and_is_audited(app, shared_dir, chief):
    imported(app, shared_dir)
    riga, plain = shahlov()
    game = h.game(h.season("2023"), status="closed")
    owed = prize(game, db.session.get(Question, 4), plain)
    record = merge_authors(plain.id, riga.id, chief)
    db.session.expire_all()
    # every question link moved; each keeps the byline as given on its question
    assert links(riga) == [
        (3, "Дмитрий Шахлов", "Рига", False),
        (4, "Дмитрий Шахлов", None, False),
        (7, "Дмитрий Шахлов", None, False),
        (12, "Дмитрий Шахлов", "Рига", False),
    ]
    assert links(plain) == []
    assert db.session.get(Question, 4).authors_display == "Дмитрий Шахлов"
    # the prize follows, with a note in its history; its payee reads as on the question
    owed = db.session.get(Prize, owed.id)
    assert (owed.author_id, owed.payee, owed.status) == (riga.id, "Дмитрий Шахлов", "owed")
    note = db.session.scalars(
        db.select(PrizeStatusChange).where(PrizeStatusChange.prize_id == owed.id)
    ).one()
    assert (note.from_status, note.to_status, note.by_user_id, note.note) == (
        "owed",
        "owed",
        chief,
        f"автор объединён: №{plain.id} → №{riga.id}",
    )
    # the absorbed row stays, pointing at its person; the audit says who, when, what
    assert db.session.get(Author, plain.id).merged_into_id == riga.id
    row = db.session.get(AuthorMerge, record.id)
    assert (row.from_author_id, row.into_author_id, row.by_user_id) == (plain.id, riga.id, chief)
    assert row.at is not None and row.at.utcoffset().total_seconds() == 0
    assert row.moved == {"questions": [4, 7], "prizes": [owed.id], "authors": [], "email": False}
    # no more suggestion for him; the next packet line «Дмитрий Шахлов» links to the person
    assert [m.a.name for m in suggestions()] == ["Вадим Германенко"]
    assert upsert_author("Дмитрий Шахлов", None, None) == riga.id


def test_consents_follow_the_questions(app, chief):
    """A viewer's consents (personal data, on air) are the question's: they move with it."""
    web = create_question(
        {
            "question": "Какой город основал Ярослав Мудрый на Волге в XI веке?",
            "answer": "Ярославль",
            "authors": [("Пётр Ёлкин", "Минск", "elkin@example.com")],
        },
        "web",
        consent_version="2023-1",
        consent_on_air=True,
    )
    letter = create_question(
        {
            "question": "Что в письме прислал автор без адреса?",
            "answer": "Ответ",
            "authors": [("Петр Елкин", "Минск", None)],
        },
        "mail",
    )
    web_author, letter_author = web.authors[0].author, letter.authors[0].author
    confirm_author(web, 0, chief)  # the editor confirms: the address now counts
    merge_authors(letter_author.id, web_author.id, chief)
    db.session.expire_all()
    mine = db.session.scalars(
        db.select(Question)
        .join(QuestionAuthor)
        .where(QuestionAuthor.author_id == web_author.id)
        .order_by(Question.id)
    ).all()
    assert [(q.id, q.consent_version, q.consent_on_air) for q in mine] == [
        (web.id, "2023-1", True),
        (letter.id, None, False),
    ]
    assert [qa.name for q in mine for qa in q.authors] == ["Пётр Ёлкин", "Петр Елкин"]


def _place(game, question_id: int) -> tuple[int, int] | None:
    """``(sector, slot)`` of the question on the game's table (slot 0: the reserve)."""
    for env in game.envelopes:
        for eq in env.questions:
            if eq.question.id == question_id:
                return env.sector, eq.slot
        if env.reserve is not None and env.reserve.question.id == question_id:
            return env.sector, 0
    return None


def test_the_game_rule_holds_on_the_merged_author(app, shared_dir, chief):
    """The issue's fault and its fix: before the merge the fill puts both Shahlovs into one
    game; the merge is refused while they are there; once one is replaced the merge goes
    through, and putting the second back is refused, in Russian, with the clause."""
    imported(app, shared_dir)
    riga, plain = shahlov()
    q12, q4 = db.session.get(Question, 12), db.session.get(Question, 4)
    approve(q12, q4)
    h.approved_questions(19)
    game = h.game(h.season("2023"), status="draft")
    assign_envelopes(game)
    at12, at4 = _place(game, q12.id), _place(game, q4.id)
    assert at12 is not None and at4 is not None  # two rows: one game took both
    assert check_table(game)["problems"] == []
    with pytest.raises(AuthorError) as exc:
        merge_authors(plain.id, riga.id, chief)
    assert exc.value.problems == [
        f"оба автора в игре №{game.id}: после объединения автор был бы в игре дважды "
        "(п. 4.11.1 Правил сезона 2023 г.); сначала замените один из вопросов"
    ]
    assert db.session.get(Author, plain.id).merged_into_id is None  # nothing written
    (free,) = h.approved_questions_more(1)
    replace_slot(game, at4[0], at4[1], free.id)
    merge_authors(plain.id, riga.id, chief)
    with pytest.raises(GameError) as exc:
        replace_slot(game, at4[0], at4[1], q4.id)
    where = f"сектор {at12[0]}, " + ("резерв" if at12[1] == 0 else f"вопрос {at12[1]}")
    assert exc.value.errors == {
        "question_id": [
            f"автор этого вопроса (Дмитрий Шахлов) уже есть в игре: {where} "
            "(п. 4.11.1 Правил сезона 2023 г.)"
        ]
    }


def test_the_fill_takes_one_question_of_a_merged_author(app, shared_dir, chief):
    """17 questions needed, 18 approved: the two of the merged Shahlov count as one author,
    so the fill takes the older (question 4) and leaves question 12 in the pool."""
    imported(app, shared_dir)
    riga, plain = shahlov()
    merge_authors(plain.id, riga.id, chief)
    q12, q4 = db.session.get(Question, 12), db.session.get(Question, 4)
    approve(q12, q4)
    h.approved_questions(16)
    game = h.game(h.season("2023"), status="draft")
    assign_envelopes(game)
    assert _place(game, q4.id) is not None
    assert (_place(game, q12.id), q12.status) == (None, "approved")
    assert check_table(game)["problems"] == []


def test_the_table_check_counts_a_merged_row_as_its_person(app, chief):
    """A later submission under the absorbed row's own address links to that row (an
    address is never moved unconfirmed): the completeness check counts it as its person."""
    qs = h.approved_questions(17)
    game = h.game(h.season("2009"), status="draft")
    assign_envelopes(game)
    first, second = game.envelopes[0].questions[0].question, game.envelopes[1].questions[0].question
    assert check_table(game)["problems"] == []
    second.authors[0].author.merged_into_id = first.authors[0].author_id
    db.session.flush()
    assert len(qs) == 17
    assert check_table(game)["problems"] == [
        f"сектор {game.envelopes[1].sector}, вопрос 1: автор «{second.authors_display}» уже есть "
        f"(сектор {game.envelopes[0].sector}, вопрос 1; п. 1.2.2 Правил сезона 2009 г.)"
    ]


def test_two_prizes_of_one_game_refuse_the_merge(app, shared_dir, chief):
    imported(app, shared_dir)
    riga, plain = shahlov()
    game = h.game(h.season("2023"), status="closed")
    p1 = prize(game, db.session.get(Question, 12), riga)
    p2 = prize(game, db.session.get(Question, 4), plain)
    with pytest.raises(AuthorError) as exc:
        merge_authors(plain.id, riga.id, chief)
    assert str(exc.value) == (
        f"у обоих авторов есть приз за игру №{game.id} (призы №{p1.id}, №{p2.id}): один "
        "человек не получает два приза за одну игру (п. 4.11.1 Правил сезона 2023 г.); "
        "сначала решите, какой приз остаётся"
    )
    assert exc.value.status == 409
    assert (p1.author_id, p2.author_id) == (riga.id, plain.id)


def test_a_viewer_cannot_take_over_a_prize_winner(app, shared_dir, chief):
    """Anyone may type «Дмитрий Шахлов, Рига» and their own address. The pair is suggested,
    but the winner cannot be merged into that row (its address is unconfirmed); merged the
    other way, the viewer's question joins the winner unconfirmed, the address stays behind
    and the prize keeps its payee."""
    imported(app, shared_dir)
    riga, _ = shahlov()
    game = h.game(h.season("2023"), status="closed")
    won = prize(game, db.session.get(Question, 12), riga)
    viewer_q = create_question(
        {
            "question": "Почему этот вопрос прислал не тот Шахлов?",
            "answer": "Ответ",
            "authors": [("Дмитрий Шахлов", "Рига", "taker@example.com")],
        },
        "web",
    )
    viewer = viewer_q.authors[0].author
    assert any({m.a.id, m.b.id} == {riga.id, viewer.id} for m in suggestions())
    with pytest.raises(AuthorError) as exc:
        merge_authors(riga.id, viewer.id, chief)
    assert exc.value.problems == [
        f"адрес автора №{viewer.id} не подтверждён: его нельзя оставить при объединении "
        "(адрес в форме мог ввести кто угодно); оставьте другого автора"
    ]
    record = merge_authors(viewer.id, riga.id, chief)
    db.session.expire_all()
    assert record.moved["email"] is False
    riga, viewer = db.session.get(Author, riga.id), db.session.get(Author, viewer.id)
    assert (riga.email_hash, viewer.email_hash) == (None, lookup_hash("taker@example.com"))
    assert links(riga)[-1] == (viewer_q.id, "Дмитрий Шахлов", "Рига", False)  # unconfirmed
    assert db.session.get(Prize, won.id).author_id == riga.id
    # a later submission under that address is still its own row, counted as the person
    assert upsert_author("Дмитрий Шахлов", "Рига", "taker@example.com") == viewer.id
    assert viewer.person_id == riga.id


def test_a_confirmed_address_moves_to_a_survivor_without_one(app, shared_dir, chief):
    imported(app, shared_dir)
    riga, _ = shahlov()
    web = create_question(
        {
            "question": "Какой вопрос прислал Шахлов через сайт?",
            "answer": "Этот",
            "authors": [("Дмитрий Шахлов", None, "shahlov@example.com")],
        },
        "web",
    )
    own = web.authors[0].author
    from webapp.submissions.operations import confirm_authorship

    assert confirm_authorship(web, own.id)  # he followed the e-mailed link
    plan = plan_merge(own.id, riga.id)
    assert (plan.problems, plan.move_email) == ([], True)
    merge_authors(own.id, riga.id, chief)
    db.session.expire_all()
    assert db.session.get(Author, riga.id).email_hash == lookup_hash("shahlov@example.com")
    assert db.session.get(Author, own.id).email_hash is None
    assert upsert_author("Дмитрий Шахлов", None, "shahlov@example.com") == riga.id


@pytest.mark.parametrize("case", ["self", "missing", "merged", "same_question"])
def test_other_refusals(app, shared_dir, chief, case):
    imported(app, shared_dir)
    riga, plain = shahlov()
    germanenko = db.session.scalars(
        db.select(Author).where(Author.name == "Вадим Германенко").order_by(Author.id)
    ).all()
    if case == "self":
        with pytest.raises(AuthorError, match="^нельзя объединить автора с самим собой$"):
            merge_authors(riga.id, riga.id, chief)
    elif case == "missing":
        with pytest.raises(AuthorError, match="^нет автора №999999$"):
            merge_authors(999999, riga.id, chief)
    elif case == "merged":
        merge_authors(plain.id, riga.id, chief)
        with pytest.raises(AuthorError) as exc:
            merge_authors(plain.id, riga.id, chief)
        assert exc.value.problems == [f"автор №{plain.id} уже объединён с автором №{riga.id}"]
    else:  # question 7: «Дмитрий Шахлов, Вадим Германенко, …» — two people on one line
        with pytest.raises(AuthorError) as exc:
            merge_authors(germanenko[1].id, plain.id, chief)
        assert exc.value.problems == ["оба автора указаны в одном вопросе №7"]


def test_confirm_author_records_the_editor(app, shared_dir, chief):
    imported(app, shared_dir)
    q = db.session.get(Question, 4)
    link = confirm_author(q, 0, chief)
    assert link.confirmed_at is not None
    note = q.history[-1]
    assert (note.by_user_id, note.reason, note.from_status, note.to_status) == (
        chief,
        "автор подтверждён редактором",
        "received",
        "received",
    )
    first = link.confirmed_at
    confirm_author(q, 0, chief)  # idempotent: the first time stays, no second note
    assert (link.confirmed_at, len(q.history)) == (first, 2)
    with pytest.raises(AuthorError, match="^такого автора у вопроса нет$"):
        confirm_author(q, 5, chief)


def test_on_postgresql_the_merge_moves_the_prize_and_a_confirmed_address(pg_app, shared_dir):
    """The same merge on PostgreSQL (the foreign key of ``merged_into_id`` is declared
    there; the unique address leaves the absorbed row before the survivor takes it)."""
    from webapp.accounts.operations import create_user
    from webapp.submissions.operations import confirm_authorship

    chief_user, _ = create_user("chief@test.local", "chief_editor", password="chief-pw")
    imported(pg_app, shared_dir)
    riga, plain = shahlov()
    game = h.game(h.season("2023"), status="closed")
    owed = prize(game, db.session.get(Question, 4), plain)
    merge_authors(plain.id, riga.id, chief_user.id)
    web = create_question(
        {
            "question": "Какой вопрос прислал Шахлов через сайт?",
            "answer": "Этот",
            "authors": [("Дмитрий Шахлов", "Рига", "shahlov@example.com")],
        },
        "web",
    )
    own = web.authors[0].author
    assert confirm_authorship(web, own.id)
    record = merge_authors(own.id, riga.id, chief_user.id)
    db.session.commit()
    db.session.expire_all()
    assert record.moved == {"questions": [web.id], "prizes": [], "authors": [], "email": True}
    assert db.session.get(Prize, owed.id).author_id == riga.id
    assert [
        a.id
        for a in db.session.scalars(
            db.select(Author).where(Author.merged_into_id == riga.id).order_by(Author.id)
        )
    ] == [plain.id, own.id]
    assert upsert_author("Дмитрий Шахлов", None, "shahlov@example.com") == riga.id
    assert links(riga)[-1] == (web.id, "Дмитрий Шахлов", "Рига", True)
