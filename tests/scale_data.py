"""Many questions at once for the scale tests and the export benchmark: Core inserts
(no ORM flush hooks), seeded, in mixed statuses and channels, with pre-check reports
(failed checks, duplicate scores), first authors' cities, status history and, on SQLite,
the full-text rows the queue's search reads."""

from __future__ import annotations

import random
import secrets
from datetime import timedelta

from sqlalchemy import func, insert, select

#: (status, channel) of the generated questions, cycled.
MIX = (
    ("in_review", "web"),
    ("in_review", "mail"),
    ("approved", "web"),
    ("rejected", "import"),
    ("in_review", "api"),
    ("archived", "archive"),
    ("approved", "mail"),
    ("in_review", "web"),
)
CITIES = ("Минск", "Гомель", "Брест", None, "Гродно")
#: Texts a spreadsheet would take for a formula or an error code: they stay text.
TRICKY = ('=HYPERLINK("http://evil.example")', "+7 029 123", "#N/A", "@SUM(A1)")


def add_questions(n: int, seed: int = 1, batch: int = 5000, days: int = 60) -> list[int]:
    """Insert ``n`` questions (ids after the current maximum) received over the last
    ``days`` days and return their ids; every third gets a report of the current pre-check
    version, every question a first author and a status change received → its status
    (archived ones none). Commits."""
    from webapp.core.models import utcnow
    from webapp.extensions import db
    from webapp.moderation.models import PRECHECK_VERSION, ModerationReport
    from webapp.submissions.day_counts import count_questions, note_decisions
    from webapp.submissions.models import (
        Author,
        Question,
        QuestionAuthor,
        QuestionStatusChange,
    )

    rng = random.Random(seed)
    now = utcnow()
    start = db.session.scalar(select(func.coalesce(func.max(Question.id), 0)))
    authors = []
    for i, city in enumerate(CITIES):
        author = Author(name=f"Автор {seed}-{i}", city=city)
        db.session.add(author)
        authors.append(author)
    db.session.flush()
    ids = list(range(start + 1, start + n + 1))
    sqlite = db.session.get_bind().dialect.name == "sqlite"
    for lo in range(0, n, batch):
        chunk = ids[lo : lo + batch]
        questions, reports, links, history, fts = [], [], [], [], []
        for qid in chunk:
            status, channel = MIX[qid % len(MIX)]
            created = now - timedelta(days=rng.randrange(0, days), minutes=rng.randrange(1440))
            text = f"Вопрос {qid}: какой город стоит на Волге и основан в {1000 + qid % 900} году?"
            if qid % 97 == 0:
                text = TRICKY[qid % len(TRICKY)]
            answer = rng.choice(("Ярославль", "Казань", "Тверь", "=1+1"))
            questions.append(
                {
                    "id": qid,
                    "public_token": secrets.token_urlsafe(24),
                    "text": text,
                    "answer": answer,
                    "accepted": "Ярославл" if qid % 5 == 0 else None,
                    "rejected": None,
                    "comment": "Комментарий\nв две строки" if qid % 7 == 0 else None,
                    "sources": [f"https://example.org/{qid}", "Книга"] if qid % 2 else [],
                    "handout": "Раздатка" if qid % 11 == 0 else None,
                    "channel": channel,
                    "status": status,
                    "matching_key": text.lower(),
                    "created_at": created,
                    # the pre-check's copy of its report's top_score (below)
                    "duplicate_score": 50.5 + qid % 50 if qid % 12 == 0 else 0.0,
                }
            )
            city = CITIES[qid % len(CITIES)]
            links.append(
                {
                    "question_id": qid,
                    "author_id": authors[qid % len(authors)].id,
                    "position": 0,
                    "name": authors[qid % len(authors)].name,
                    "city": city,
                }
            )
            if status != "archived":
                history.append(
                    {
                        "question_id": qid,
                        "from_status": "received",
                        "to_status": status,
                        "at": created + timedelta(hours=1 + qid % 30),
                    }
                )
            if qid % 3 == 0:
                failed = qid % 2 == 0
                score = 50.5 + qid % 50 if qid % 4 == 0 else 0.0
                reports.append(
                    {
                        "question_id": qid,
                        "version": PRECHECK_VERSION,
                        "checks": [
                            {"name": "sources_present", "ok": not failed, "message": ""},
                            {"name": "length", "ok": True, "message": ""},
                        ],
                        "duplicates": [{"question_id": 1, "score": score, "status": "approved"}]
                        if score
                        else [],
                        "flags": " sources_present " if failed else " ",
                        "top_score": score,
                        "created_at": created,
                    }
                )
            fts.append((qid, text, answer))
        db.session.execute(insert(Question), questions)
        db.session.execute(insert(QuestionAuthor), links)
        if history:
            db.session.execute(insert(QuestionStatusChange), history)
        if reports:
            db.session.execute(insert(ModerationReport), reports)
        if sqlite:
            db.session.connection().exec_driver_sql(
                "INSERT INTO question_fts (rowid, text, answer) VALUES (?, ?, ?)", fts
            )
        # Core inserts pass no flush hook: the statistics' day counts and first decisions
        count_questions(db.session.connection(), [q["id"] for q in questions])
        note_decisions(
            db.session.connection(), [(h["question_id"], h["to_status"], h["at"]) for h in history]
        )
        db.session.commit()
    return ids


#: Syllables of the generated archive's words (a vocabulary of a few thousand words, as a
#: real archive's duplicate index sees it).
_SYLLABLES = (
    "ба ве гор да ель жи за ин ка ло ми но па ро са ту фе ха цы че ша эр юн ям "
    "ост ран ски ной мир дом лес вол гра стол"
).split()
_FIRST = ("Анна", "Пётр", "Мария", "Иван", "Ольга", "Дмитрий", "Елена", "Сергей", "Ксения")
_LAST = ("Смирнов", "Волков", "Орлов", "Кудрявцев", "Шахлов", "Сапего", "Ким", "Лысенко")
_PACKET_CITIES = ("Минск", "Гомель", "Брест", "Москва", "Казань", None)


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3)))


def archive_packet(n: int, seed: int = 1) -> str:
    """A chgksuite 4s packet of ``n`` archive questions, seeded: texts of 15–45 words from a
    vocabulary of a few thousand, answers, every third an accepted answer, comments,
    sources, one or two authors from a pool of 72 name+city pairs (some without a city),
    every tenth question a near copy of an earlier one (a duplicate for the index). Fast:
    about 20 µs a question."""
    rng = random.Random(seed)
    vocab = [_word(rng) for _ in range(4000)]
    people = [
        (f"{first} {last}", city)
        for first in _FIRST
        for last in _LAST
        for city in (_PACKET_CITIES[(len(first) + len(last)) % len(_PACKET_CITIES)],)
    ]
    lines = ["### Архив: сгенерированный пакет", ""]
    texts: list[str] = []
    for i in range(1, n + 1):
        if texts and i % 10 == 0:
            text = rng.choice(texts) + f" {rng.choice(vocab)}"
        else:
            words = rng.choices(vocab, k=rng.randint(15, 45))
            text = f"{' '.join(words).capitalize()} {i}?"
            texts.append(text)
        lines.append(f"? {text}")
        lines.append(f"! {rng.choice(vocab).capitalize()}.")
        if i % 3 == 0:
            lines.append(f"= {rng.choice(vocab).capitalize()}.")
        if i % 2 == 0:
            lines.append(f"/ {' '.join(rng.choices(vocab, k=12)).capitalize()}.")
        lines.append(f"^ https://example.org/{seed}/{i}")
        authors = rng.sample(people, rng.choice((1, 1, 1, 2)))
        lines.append(
            "@ " + ", ".join(f"{name} ({city})" if city else name for name, city in authors)
        )
        lines.append("")
    return "\n".join(lines)
