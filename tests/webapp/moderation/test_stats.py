"""The editors' statistics page on fixed data: every figure of ``stats.summary`` and of the
page, exactly. Local days are days in ``SOVA_TIMEZONE`` (a question received at 00:30 in
Minsk is 21:30 UTC the day before); every figure counts the viewer questions received in
the last ``days`` days (the archive is left out everywhere)."""

from __future__ import annotations

import secrets
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import insert, text

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation import stats
from webapp.submissions.day_counts import count_questions, note_decisions
from webapp.submissions.models import (
    Author,
    Question,
    QuestionAuthor,
    QuestionStatusChange,
)


@pytest.fixture
def fixed(app):
    return build(app)


def build(app):
    """Nine questions around local midnights; returns (today, yesterday) as local dates."""
    zone = ZoneInfo(app.config["SOVA_TIMEZONE"])
    today = utcnow().astimezone(zone).date()
    midnight = datetime.combine(today, time(0), zone)
    author = Author(name="Мария Лис", city="Гродно")
    db.session.add(author)
    db.session.flush()
    # (channel, status, created, first-author city, decisions [(to_status, hours after)])
    spec = [
        ("web", "approved", midnight + timedelta(minutes=30), "Гродно", [("approved", 4)]),
        ("web", "rejected", midnight - timedelta(minutes=30), "Гродно", [("rejected", 2)]),
        (
            "mail",
            "approved",
            midnight - timedelta(days=1, minutes=30),
            "Брест",
            [("rejected", 1.5), ("approved", 10)],  # the first decision counts
        ),
        ("mail", "in_review", midnight - timedelta(days=2, hours=-12), None, []),
        ("import", "played", midnight - timedelta(days=40), "Брест", [("approved", 7.25)]),
        ("web", "assigned", midnight - timedelta(days=3, hours=-1), "", [("approved", 0.5)]),
        ("api", "rejected", midnight - timedelta(days=29, hours=-2), "Минск", [("rejected", 30)]),
        ("web", "received", midnight + timedelta(hours=1), "Гродно", []),
        ("archive", "archived", midnight - timedelta(days=1), "Гродно", []),
    ]
    for i, (channel, status, created, city, decisions) in enumerate(spec, 1):
        db.session.execute(
            insert(Question).values(
                id=i,
                public_token=secrets.token_urlsafe(24),
                text=f"Вопрос {i}",
                answer="Ответ",
                sources=[],
                channel=channel,
                status=status,
                matching_key=f"вопрос {i}",
                created_at=created,
            )
        )
        if city is not None:
            db.session.execute(
                insert(QuestionAuthor).values(
                    question_id=i, author_id=author.id, position=0, name="Мария Лис", city=city
                )
            )
        for to_status, hours in decisions:
            db.session.execute(
                insert(QuestionStatusChange).values(
                    question_id=i,
                    from_status="in_review",
                    to_status=to_status,
                    at=created + timedelta(hours=hours),
                )
            )
    # Core inserts pass no flush hook: the statistics' day counts and first decisions, as a
    # writer keeps them
    count_questions(db.session.connection(), range(1, len(spec) + 1))
    note_decisions(
        db.session.connection(),
        [
            (i, to_status, created + timedelta(hours=hours))
            for i, (_c, _s, created, _city, decisions) in enumerate(spec, 1)
            for to_status, hours in decisions
        ],
    )
    db.session.commit()
    return today, today - timedelta(days=1)


def test_summary_figures(fixed):
    check_figures(*fixed)


@pytest.mark.integration
def test_summary_figures_on_postgresql(pg_app):
    """The same figures from PostgreSQL's own date arithmetic, on connections without the
    server's JIT (it made the statistics' statements several times slower)."""
    check_figures(*build(pg_app))
    assert db.session.execute(text("SHOW jit")).scalar() == "off"


def check_figures(today, _yesterday):
    day = lambda n: today - timedelta(days=n)  # noqa: E731
    s = stats.summary(30)
    assert s["intake"] == [
        {"day": day(29), "channel": "api", "count": 1},
        {"day": day(3), "channel": "web", "count": 1},
        {"day": day(2), "channel": "mail", "count": 2},
        {"day": day(1), "channel": "web", "count": 1},
        {"day": today, "channel": "web", "count": 2},
    ]
    assert s["channels"] == ["api", "mail", "web"]
    # the decisions and cities of the same window: the import of 40 days ago is outside
    assert (s["accepted"], s["rejected"], s["acceptance_rate"]) == (3, 2, 0.6)
    assert s["cities"] == [
        {"city": "Гродно", "received": 3, "accepted": 1},
        {"city": "—", "received": 2, "accepted": 1},
        {"city": "Брест", "received": 1, "accepted": 1},
        {"city": "Минск", "received": 1, "accepted": 0},
    ]
    # first decisions after 0.5, 1.5, 2, 4 and 30 hours
    assert s["decision_hours"] == {"count": 5, "median": 2.0, "mean": 7.6}
    wide = stats.summary(60)
    assert wide["intake"][0] == {"day": day(40), "channel": "import", "count": 1}
    assert wide["intake"][1:] == s["intake"] and wide["channels"] == [
        "api",
        "import",
        "mail",
        "web",
    ]
    # 60 days take the import in: its decision after 7.25 hours and its city
    assert (wide["accepted"], wide["rejected"], wide["acceptance_rate"]) == (4, 2, 0.667)
    assert wide["cities"] == [
        {"city": "Гродно", "received": 3, "accepted": 1},
        {"city": "Брест", "received": 2, "accepted": 2},
        {"city": "—", "received": 2, "accepted": 1},
        {"city": "Минск", "received": 1, "accepted": 0},
    ]
    assert wide["decision_hours"] == {"count": 6, "median": 3.0, "mean": 7.5}
    assert stats.summary(1)["intake"][-1] == {"day": today, "channel": "web", "count": 2}


def test_the_page_shows_the_figures(fixed, login):
    today, _ = fixed
    page = login("chief_editor").get("/editor/stats").get_data(as_text=True)
    # a row per day, a column per channel (api, mail, web) and the day's total
    assert "<tr><th>День</th><th>приложение</th><th>письмо</th><th>сайт</th><th>Всего</th>" in page
    rows = [
        (today - timedelta(days=29), (1, 0, 0)),
        (today - timedelta(days=3), (0, 0, 1)),
        (today - timedelta(days=2), (0, 2, 0)),
        (today - timedelta(days=1), (0, 0, 1)),
        (today, (0, 0, 2)),
    ]
    for d, counts in rows:
        cells = "".join(f"<td>{n}</td>" for n in (*counts, sum(counts)))
        assert f"<tr><td>{d:%d.%m.%Y}</td>{cells}</tr>" in page
    assert page.count("</td></tr>") == len(rows) + 4  # and the four cities
    assert "<h2>Решения по вопросам, полученным за этот период</h2>" in page
    assert "Принято: 3, отклонено: 2, доля принятых:\n  60\u00a0%." in page
    assert "медиана 2,0,\n  среднее 7,6 (решений: 5)." in page
    for city, received, accepted in (
        ("Гродно", 3, 1),
        ("—", 2, 1),
        ("Брест", 1, 1),
        ("Минск", 1, 0),
    ):
        assert f"<tr><td>{city}</td><td>{received}</td><td>{accepted}</td></tr>" in page


def test_a_period_outside_a_year_says_which_it_shows(login):
    """«За последние, дней» takes 1 to 366: a typed address outside it shows the nearest
    period, a word the usual 30 days, and the page says so; a period inside says nothing."""
    import html

    client = login("chief_editor")

    def shown(days: str) -> tuple[str, str]:
        text = html.unescape(client.get(f"/editor/stats?days={days}").get_data(as_text=True))
        value = text.split('name="days"', 1)[1].split('value="', 1)[1].split('"', 1)[0]
        notice = "Период — от 1 до 366 дней; показано за "
        said = text.split(notice, 1)[1].split(".", 1)[0] if notice in text else ""
        return value, said

    assert shown("7") == ("7", "")
    assert shown("0") == ("1", "1")
    assert shown("-5") == ("1", "1")
    assert shown("100000") == ("366", "366")
    assert shown("abc") == ("30", "30")
