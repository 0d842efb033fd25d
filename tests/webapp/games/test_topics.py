"""Question topics («varied cities and topics»): the controlled vocabulary, the
fill's preference for a new topic, the completeness check's warning, the editor's edit on
the table page, and the read-only ``topic`` of the API question."""

from __future__ import annotations

import pytest

from tests.webapp.games import helpers as h
from webapp.domain.topics import TOPICS, topic_label
from webapp.extensions import db
from webapp.games.operations import GameError, assign_envelopes, check_table, set_topic
from webapp.moderation.models import QuestionRevision

SINGLES = {"blitz": None, "superblitz": None, "sector13": None}
#: the completeness check's warnings on a 2023 plan without blitz and superblitz
NO_MULTI = [
    "в плане стола нет блица (п. 3.4.1 Правил сезона 2023 г.)",
    "в плане стола нет суперблица (п. 3.4.2 Правил сезона 2023 г.)",
]
CODES = list(TOPICS)  # 12 codes


def placed(g):
    return [eq.question for e in g.envelopes for eq in sorted(e.questions, key=lambda x: x.slot)]


def test_vocabulary():
    assert CODES == [
        "history",
        "literature",
        "science",
        "art",
        "music",
        "cinema",
        "sport",
        "geography",
        "language",
        "religion",
        "everyday",
        "other",
    ]
    assert (topic_label("history"), topic_label(None), topic_label("zzz")) == ("История", "", "zzz")


def test_fill_avoids_a_repeated_topic_the_oldest_first_order_would_make(app):
    # 26 questions, oldest first: two of each of the 12 topics side by side, then two
    # without a topic. Oldest-first would put history, history, literature, literature… on
    # the table; the fill takes one question per topic, then one without a topic.
    qs = h.approved_questions(26)
    for k, q in enumerate(qs[:24]):
        q.topic = CODES[k // 2]
    g = h.game(h.season(), table=SINGLES, status="draft")
    assign_envelopes(g)
    on_table = placed(g)
    assert [q.id for q in on_table] == [qs[k].id for k in range(0, 24, 2)] + [qs[24].id]
    assert [q.topic for q in on_table] == CODES + [None]
    # reserves come after: first the other question without a topic, then each topic's twin
    assert [e.reserve.question.id for e in g.envelopes] == (
        [qs[25].id] + [qs[k].id for k in range(1, 24, 2)]
    )
    assert check_table(g) == {"complete": True, "problems": [], "warnings": NO_MULTI}


def test_topic_repeats_only_when_the_pool_has_no_other(app):
    qs = h.approved_questions(13)
    for q in qs:
        q.topic = "sport" if q is qs[0] or q is qs[1] else None
    for q in qs[2:]:
        q.topic = CODES[qs.index(q) % 12]  # 11 more questions over 12 codes: sport again once
    g = h.game(h.season(), table=SINGLES, status="draft")
    assign_envelopes(g)
    topics = [q.topic for q in placed(g)]
    assert topics.count("sport") == 3  # the pool has 13 questions for 13 sectors: no choice
    warnings = check_table(g)["warnings"]
    sport = [
        f"сектор {e.sector}, вопрос 1"
        for e in g.envelopes
        if e.questions[0].question.topic == "sport"
    ]
    assert [w for w in warnings if w.startswith("тема")] == [
        "тема «Спорт» повторяется: " + "; ".join(sport)
    ]


def test_completeness_check_warns_about_a_repeated_topic_in_a_blitz(app):
    h.approved_questions(40)
    g = h.game(h.season(), table={"blitz": 4, "superblitz": None, "sector13": None}, status="draft")
    assign_envelopes(g)
    envs = {e.sector: e for e in g.envelopes}
    set_topic(envs[4].questions[0].question.id, "history", None)
    set_topic(envs[4].questions[2].question.id, "history", None)
    set_topic(envs[7].questions[0].question.id, "history", None)
    set_topic(envs[9].reserve.question.id, "history", None)  # a reserve does not count
    set_topic(envs[2].questions[0].question.id, "music", None)
    check = check_table(g)
    assert check == {
        "complete": True,
        "problems": [],
        "warnings": [
            NO_MULTI[1],
            "тема «История» повторяется: сектор 4, вопрос 1; сектор 4, вопрос 3; сектор 7, вопрос 1",
        ],
    }


def test_set_topic_records_a_revision_and_refuses_bad_input(app):
    q = h.approved_questions(1)[0]
    assert set_topic(q.id, "cinema", None).topic == "cinema"
    set_topic(q.id, "cinema", None)  # the same topic again: no new revision
    set_topic(q.id, "", None)
    assert q.topic is None
    revs = db.session.scalars(db.select(QuestionRevision).order_by(QuestionRevision.id)).all()
    assert [(r.before, r.after) for r in revs] == [
        ({"topic": ""}, {"topic": "cinema"}),
        ({"topic": "cinema"}, {"topic": ""}),
    ]
    with pytest.raises(GameError) as exc:
        set_topic(q.id, "cooking", None)
    assert exc.value.errors == {"topic": ["одна из тем: " + ", ".join(CODES)]}
    for missing in (10**6, 2**63, 0):
        with pytest.raises(GameError) as exc:
            set_topic(missing, "art", None)
        assert exc.value.errors == {"question_id": ["нет такого вопроса"]}
    q.status = "unanswered"
    with pytest.raises(GameError) as exc:
        set_topic(q.id, "art", None)
    assert exc.value.errors == {"question_id": ["вопрос в статусе «не отвечен»: тему не изменить"]}


def test_table_page_sets_the_topic_without_javascript(app, login, api):
    h.approved_questions(30)
    g = h.game(h.season(), table=SINGLES, status="draft")
    assign_envelopes(g)
    h.commit()
    q = g.envelopes[0].questions[0].question
    client = login("editor")
    page = client.get(f"/games/{g.id}/table").get_data(as_text=True)
    assert page.count('class="topic"') == 26  # 13 questions and 13 reserves
    assert page.count('<option value="history">История</option>') == 26
    r = client.post(
        f"/games/{g.id}/table/topic", data={"topic-question_id": q.id, "topic-topic": "geography"}
    )
    assert r.status_code == 302
    page = client.get(f"/games/{g.id}/table").get_data(as_text=True)
    assert f"Тема вопроса №{q.id}: География." in page
    assert "[География]" in page
    assert page.count('<option value="geography" selected>География</option>') == 1
    r = client.post(
        f"/games/{g.id}/table/topic",
        headers={"Accept": "application/json"},
        data={"topic-question_id": q.id, "topic-topic": "cooking"},
    )
    assert r.status_code == 409
    assert r.json["error"] == "Тема не изменена: Тема: неверный вариант."
    r = client.post(
        f"/games/{g.id}/table/topic",
        headers={"Accept": "application/json"},
        data={"topic-question_id": 2**40, "topic-topic": "art"},
    )
    assert (r.status_code, r.json["error"]) == (
        409,
        "Тема не изменена: № вопроса: нет такого вопроса.",
    )
    db.session.expire_all()
    assert db.session.get(type(q), q.id).topic == "geography"
    # the API shows the topic read-only on the question
    r = api("get", f"/api/v1/questions/{q.id}", role="editor")
    assert r.status_code == 200 and r.json["topic"] == "geography"


def test_migration_adds_and_drops_the_topic_column(app):
    from flask_migrate import downgrade, upgrade

    def columns() -> set[str]:
        return {c["name"] for c in db.inspect(db.engine).get_columns("question")}

    assert "topic" in columns()
    db.session.remove()
    downgrade(revision="0006_viewers")
    assert "topic" not in columns()
    upgrade(revision="heads")
    assert "topic" in columns()
