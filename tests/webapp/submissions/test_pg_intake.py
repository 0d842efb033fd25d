"""The one-statement intake on PostgreSQL (``webapp.submissions.pg_intake``) writes exactly
the rows the ORM path writes (skipped without SOVA_TEST_DATABASE_URL; fails under CI=true).

Each submission goes through both paths on the same database; every column of the
question, its author links, its status record and its outbox rows is compared (ids, the
random token and the clock aside), and one row is also checked value by value.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
import sqlalchemy as sa

from webapp.core.crypto import decrypt
from webapp.extensions import db
from webapp.submissions import operations
from webapp.submissions.operations import AuthorInput, SubmissionInput, intake
from webapp.tasks.outbox import commit

QUESTION = (
    "Какой город называют северной\u00a0столицей России? Назовите его одним "
    "сло\u200bвом, как его называли в 1914–1924 годах."
)


def submissions() -> dict[str, SubmissionInput]:
    """The shapes of intake: a viewer on the web, an API call with co-authors' e-mails, a
    paper letter without e-mail, a partner question; ``n`` makes keys and e-mails unique."""
    return {
        "web": SubmissionInput(
            question=QUESTION,
            answer=" Петроград ",
            accepted="Питер; Санкт-Петербург",
            comment="Переименован в 1914 году.",
            sources=["https://ru.wikipedia.org/wiki/Петроград", "  "],
            handout="Карта 1914 года",
            authors=[AuthorInput("Іван Сцяпанаў", "Мінск"), AuthorInput("Анна Петрова", None)],
            email="Ivan@ПОЧТА.РФ",
            consent=True,
            consent_on_air=True,
            age_confirmed=True,
            idempotency_key="web-key-0001",
            language="be",
            channel="web",
        ),
        "api": SubmissionInput(
            question=QUESTION + " (API)",
            answer="Петроград",
            authors=[
                AuthorInput("Мария Иванова", "Гомель"),
                AuthorInput("Пётр Соавтор", "Брест", email="petr@example.org"),
            ],
            email="maria@example.org",
            consent=True,
            channel="api",
        ),
        "mail": SubmissionInput(
            question=QUESTION + " (письмо)",
            answer="Петроград",
            authors=[AuthorInput("Бабушка Зина", "Пинск")],
            consent=True,
            channel="mail",
            postmark_date=date(2023, 3, 1),
            letter_scan="letters/abc.jpg",
        ),
        "partner": SubmissionInput(
            question=QUESTION + " (партнёр)",
            answer="Петроград",
            authors=[AuthorInput("Бабушка Зина", "Пинск")],
            consent=True,
            channel="partner",
        ),
    }


def snapshot(qid: int) -> dict:
    """Every stored value of question ``qid`` that does not depend on ids, the token or
    the clock, with authors resolved to (name, city, e-mail)."""
    conn = db.session.connection()
    q = dict(
        conn.execute(sa.text("SELECT * FROM question WHERE id = :i"), {"i": qid}).mappings().one()
    )
    for volatile in ("id", "public_token", "created_at"):
        q.pop(volatile)
    authors = [
        (r.position, r.name, r.city, decrypt(r.email_encrypted))
        for r in conn.execute(
            sa.text(
                "SELECT qa.position, qa.name, qa.city, a.email_encrypted FROM question_author qa "
                "JOIN author a ON a.id = qa.author_id WHERE qa.question_id = :i "
                "AND qa.confirmed_at IS NULL ORDER BY qa.position"
            ),
            {"i": qid},
        )
    ]
    history = [
        tuple(r)
        for r in conn.execute(
            sa.text(
                "SELECT from_status, to_status, by_user_id, reason FROM question_status_change "
                "WHERE question_id = :i ORDER BY id"
            ),
            {"i": qid},
        )
    ]
    outbox = [
        (r.task, r.args, r.sent_at, r.attempts)
        for r in conn.execute(
            sa.text(
                "SELECT task, args, sent_at, attempts FROM outbox_message "
                "WHERE CAST(args AS text) = :a ORDER BY id"
            ),
            {"a": f"[{qid}]"},
        )
    ]
    return {"question": q, "authors": authors, "history": history, "outbox": outbox}


def through(path: str, data: SubmissionInput, n: int) -> int:
    """Store ``data`` by ``path`` ("pg": the one statement, "orm": the unit of work) with
    its key and e-mails made unique by ``n``; commit; return the question id."""
    data.idempotency_key = f"{data.idempotency_key}-{n}" if data.idempotency_key else None
    data.email = f"{n}.{data.email}" if data.email else None
    for a in data.authors:
        a.email = f"{n}.{a.email}" if a.email else None
    clean = operations.validate(data, require_email=data.channel in ("web", "api"))
    tasks = ["moderation.precheck"] + (["notify.received"] if clean["authors"][0][2] else [])
    columns = dict(
        consent_version=operations.CONSENT_VERSION,
        language=data.language,
        consent_on_air=data.consent_on_air,
        age_confirmed=data.age_confirmed,
        idempotency_key=data.idempotency_key,
        handout_image=None,
        postmark_date=data.postmark_date,
        letter_scan=data.letter_scan,
    )
    receive = intake.receive_pg if path == "pg" else intake.receive_orm
    made = receive(clean, data.channel, tasks, columns)
    commit()
    return made.id


def unnumbered(snap: dict, n: int) -> dict:
    """The snapshot with the ``n.`` prefixes of e-mails and the ``-n`` key suffix removed,
    and the question id in the outbox arguments replaced by ``"id"``."""
    q = dict(snap["question"])
    if q["idempotency_key"]:
        q["idempotency_key"] = q["idempotency_key"].removesuffix(f"-{n}")
    authors = [
        (p, name, city, e.removeprefix(f"{n}.") if e else None)
        for p, name, city, e in snap["authors"]
    ]
    outbox = [
        (task, ["id"] * len(args), sent, attempts) for task, args, sent, attempts in snap["outbox"]
    ]
    return dict(snap, question=q, authors=authors, outbox=outbox)


@pytest.mark.parametrize("shape", ["web", "api", "mail", "partner"])
def test_the_one_statement_writes_the_rows_of_the_orm(pg_app, shape):
    pg_id = through("pg", submissions()[shape], 1)
    orm_id = through("orm", submissions()[shape], 2)
    pg, orm = snapshot(pg_id), snapshot(orm_id)
    assert unnumbered(pg, 1) == unnumbered(orm, 2)
    keys = "SELECT a.name_key, a.city_key FROM question_author qa JOIN author a ON a.id = qa.author_id WHERE qa.question_id = :i ORDER BY qa.position"  # noqa: E501
    pg_keys, orm_keys = (db.session.execute(sa.text(keys), {"i": i}).all() for i in (pg_id, orm_id))
    assert pg_keys == orm_keys and all(k for k, _ in pg_keys)  # the merge page's pair keys
    assert pg["history"] == [(None, "received", None, None)]
    tasks = ["moderation.precheck"] + (["notify.received"] if shape in ("web", "api") else [])
    assert pg["outbox"] == [(t, [pg_id], None, 0) for t in tasks]


def test_the_stored_values_of_a_web_submission(pg_app):
    before = datetime.now(UTC)
    qid = through("pg", submissions()["web"], 7)
    snap = snapshot(qid)
    q = snap["question"]
    assert q["text"] == (
        "Какой город называют северной\u00a0столицей России? Назовите его "
        "одним словом, как его называли в 1914–1924 годах."
    )  # U+200B gone
    assert (q["answer"], q["accepted"], q["sources"]) == (
        "Петроград",
        "Питер; Санкт-Петербург",
        ["https://ru.wikipedia.org/wiki/Петроград"],
    )
    assert (q["status"], q["channel"], q["language"], q["consent_version"]) == (
        "received",
        "web",
        "be",
        "2023-1",
    )
    assert (q["consent_on_air"], q["age_confirmed"], q["idempotency_key"]) == (
        True,
        True,
        "web-key-0001-7",
    )
    assert q["matching_key"].startswith("какой город называют северной столицей россии")
    assert snap["authors"] == [
        (0, "Іван Сцяпанаў", "Мінск", "7.ivan@почта.рф"),
        (1, "Анна Петрова", None, None),
    ]
    created, at = db.session.execute(
        sa.text(
            "SELECT q.created_at, s.at FROM question q JOIN question_status_change s "
            "ON s.question_id = q.id WHERE q.id = :i"
        ),
        {"i": qid},
    ).one()
    assert created == at and before <= created <= datetime.now(UTC) + timedelta(seconds=1)


@pytest.mark.parametrize("co_author", [True, False])
def test_a_repeated_key_returns_the_first_question_and_writes_nothing(pg_app, co_author):
    """Alone (one statement in autocommit) or with a co-author (a transaction rolled back):
    the repeat neither adds an author nor renames the first one (the lone
    statement used to upsert the author even when the question was a repeat)."""

    def web(name: str, email: str) -> SubmissionInput:
        data = submissions()["web"]
        data.authors = data.authors if co_author else data.authors[:1]
        data.authors[0].name, data.email = name, email
        return data

    first = operations.receive(web("Іван Сцяпанаў", "Ivan@ПОЧТА.РФ"))
    commit()
    for name, email in (("Другое Имя", "IVAN@почта.рф"), ("Посторонний", "x@example.org")):
        second = operations.receive(web(name, email))  # the same idempotency key
        commit()
        assert (second.id, second.public_token, second.created) == (
            first.id,
            first.public_token,
            False,
        )
    counts = {
        t: db.session.scalar(sa.text(f"SELECT count(*) FROM {t}"))  # noqa: S608
        for t in (
            "question",
            "author",
            "question_author",
            "question_status_change",
            "outbox_message",
        )
    }
    n = 2 if co_author else 1
    assert counts == {
        "question": 1,
        "author": n,
        "question_author": n,
        "question_status_change": 1,
        "outbox_message": 2,
    }
    assert (
        db.session.scalar(sa.text("SELECT name FROM author WHERE email_hash IS NOT NULL"))
        == "Іван Сцяпанаў"
    )


def test_a_returning_viewer_is_one_author_and_each_question_keeps_its_name(pg_app):
    """The address finds the one author row, which is never renamed; each
    question's link carries the name as given with it, unconfirmed."""
    a = submissions()["web"]
    b = submissions()["web"]
    b.idempotency_key, b.email, b.authors = (
        "web-key-0002",
        "ivan@почта.рф",
        [AuthorInput("Иван Степанов", "Минск")],
    )
    ids = [operations.receive(x).id for x in (a, b)]
    commit()
    rows = db.session.execute(
        sa.text(
            "SELECT qa.question_id, a.id, a.name, qa.name AS given, qa.confirmed_at "
            "FROM question_author qa JOIN author a "
            "ON a.id = qa.author_id WHERE qa.position = 0 ORDER BY qa.question_id"
        )
    ).all()
    assert [r.question_id for r in rows] == ids
    assert rows[0].id == rows[1].id
    assert [(r.name, r.given, r.confirmed_at) for r in rows] == [
        ("Іван Сцяпанаў", "Іван Сцяпанаў", None),
        ("Іван Сцяпанаў", "Иван Степанов", None),
    ]


def test_autosend_relays_the_outbox_rows_of_the_statement(pg_app):
    """With ``SOVA_OUTBOX_AUTOSEND`` the commit sends the rows the statement inserted
    (``jobs.track``), as it sends the rows of ``enqueue``."""
    pg_app.config["SOVA_OUTBOX_AUTOSEND"] = True
    made = operations.receive(submissions()["api"])
    commit()
    sent = db.session.execute(
        sa.text("SELECT task, sent_at IS NOT NULL, attempts FROM outbox_message ORDER BY id")
    ).all()
    assert [tuple(r) for r in sent] == [
        ("moderation.precheck", True, 1),
        ("notify.received", True, 1),
    ]
    assert made.created


def test_a_one_statement_submission_commits_by_itself(pg_url, pg_app):
    """One author with an e-mail and nothing else in the transaction: the statement runs in
    autocommit (no BEGIN/COMMIT round trips), so another connection sees the question
    before ``commit()``. With a co-author (two statements) it waits for ``commit()``."""
    other = sa.create_engine(pg_url)

    def visible() -> int:
        with other.connect() as conn:
            return conn.execute(sa.text("SELECT count(*) FROM question")).scalar()

    alone = submissions()["web"]
    alone.authors = alone.authors[:1]
    operations.receive(alone)
    assert visible() == 1
    commit()
    operations.receive(submissions()["api"])  # a co-author: the author upsert comes first
    assert visible() == 1
    commit()
    assert visible() == 2
    other.dispose()


@pytest.mark.parametrize("city", ["Мінск", None])
def test_a_resend_of_the_form_on_postgresql_is_the_first_question(pg_app, city):
    """The back button's resend (the same form, a new idempotency key) is found by the
    statement :func:`intake._resend_of` builds once per process: on the autocommit path
    and inside a begun transaction alike, with a city or without one (``IS NOT DISTINCT
    FROM`` NULL); another answer, another address or a withdrawn question is a new one."""

    def sent(key: str, answer: str = " Петроград ", email: str = "Ivan@ПОЧТА.РФ"):
        data = submissions()["web"]
        data.authors = [AuthorInput("Іван Сцяпанаў", city)]
        data.idempotency_key, data.answer, data.email = key, answer, email
        made = operations.receive(data)
        commit()
        return made

    first = sent("resend-1")
    again = sent("resend-2")
    assert first.created and not again.created
    assert again.resent and not first.resent  # told to the viewer as a resend
    clicked = sent("resend-1")  # the first key again: a double click, not a resend
    assert clicked.id == first.id and not clicked.created and not clicked.resent
    assert (again.id, again.public_token) == (first.id, first.public_token)
    db.session.execute(sa.text("SELECT 1"))  # a begun transaction: read inside it
    inside = sent("resend-3")
    assert inside.id == first.id and not inside.created
    assert sent("resend-4", answer="Петербург").id != first.id
    assert sent("resend-5", email="other@example.org").id != first.id
    db.session.execute(
        sa.text("UPDATE question SET status = 'withdrawn' WHERE id = :i"), {"i": first.id}
    )
    commit()
    assert sent("resend-6").id != first.id
    counted = db.session.execute(sa.text("SELECT count(*) FROM question")).scalar()
    assert counted == 4


def test_the_same_text_from_many_viewers_is_each_one_s_own_question(pg_app):
    """A text many viewers send (a spammer's, a benchmark's): each address gets its own
    question, and each one's resend finds that one, read from the viewer's own questions
    (:func:`intake._resend_of` starts from the address, not from the text)."""

    def sent(key: str, email: str):
        data = submissions()["web"]
        data.authors = [AuthorInput("Іван Сцяпанаў", "Мінск")]
        data.idempotency_key, data.email = key, email
        made = operations.receive(data)
        commit()
        return made

    firsts = [sent(f"same-text-{n}", f"viewer{n}@example.org") for n in range(12)]
    assert all(made.created for made in firsts)
    assert len({made.id for made in firsts}) == 12
    for n in (0, 7, 11):
        again = sent(f"same-again-{n}", f"viewer{n}@example.org")
        assert (again.id, again.created) == (firsts[n].id, False)
    counted = db.session.execute(sa.text("SELECT count(*) FROM question")).scalar()
    assert counted == 12
