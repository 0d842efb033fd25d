"""The table builder: plan per rule set, the fill's constraints, reserves, adjustments,
completeness check and lock (envelopes print only from a locked table)."""

from __future__ import annotations

import html
import re

import pytest

from tests.forms import page_forms
from tests.webapp.games import helpers as h
from tests.webapp.games.season_driver import SeasonRun
from webapp.core.models import Document
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.operations import (
    GameConflict,
    GameError,
    assign_envelopes,
    check_table,
    lock_table,
    replace_slot,
    request_envelopes,
    swap_slots,
    table_plan,
    unlock_table,
    use_reserve,
)

TABLE = {"blitz": 4, "superblitz": 9, "sector13": 13}


JSON = {"Accept": "application/json"}


def ids(env):
    return [eq.question.id for eq in sorted(env.questions, key=lambda eq: eq.slot)]


def test_plan_per_rule_set(app):
    g23 = h.game(h.season("2023"), table=TABLE, status="draft")
    g09 = h.game(h.season("2009"), table=TABLE, status="draft")
    plan23, plan09 = table_plan(g23), table_plan(g09)
    assert [(p["kind"], p["slots"], p["pool"]) for p in plan23 if p["sector"] in (4, 9, 13)] == [
        ("blitz", 3, "main"),
        ("superblitz", 3, "main"),
        ("sector13", 1, "partner"),
    ]
    assert plan09[12] == {"sector": 13, "kind": "sector13", "slots": 0, "pool": "live"}
    assert sum(p["slots"] for p in plan23) == 17 and sum(p["slots"] for p in plan09) == 16


def test_fill_constraints_partner_sector13_and_one_reserve_per_sector(app):
    main = h.approved_questions(40)
    # cities: two questions per city, so varied cities are a real choice
    for k, q in enumerate(main):
        q.authors[0].city = f"Город {k // 2}"
    partner = h.approved_questions(2, channel="partner")
    for k, q in enumerate(partner):
        q.authors[0].name, q.authors[0].city = f"Партнёр {k}", "Партнёрск"
    live = h.approved_questions(1, channel="live")
    live[0].authors[0].name = "Живой"
    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    envs = {e.sector: e for e in g.envelopes}
    assert [len(envs[s].questions) for s in range(1, 14)] == [1, 1, 1, 3, 1, 1, 1, 1, 3, 1, 1, 1, 1]
    assert ids(envs[13]) == [partner[0].id]
    assert envs[13].reserve.question.id == partner[1].id
    assert all(e.reserve is not None for e in g.envelopes)
    placed = [eq.question for e in g.envelopes for eq in e.questions] + [
        e.reserve.question for e in g.envelopes
    ]
    authors = [a.id for q in placed for a in q.author_list]
    assert len(authors) == len(set(authors)) == 30
    assert live[0].id not in {q.id for q in placed}
    # the 16 main-pool questions in envelopes come from 16 different cities (20 exist)
    main_cities = [
        eq.question.author_list[0].city
        for e in g.envelopes
        for eq in e.questions
        if eq.question.channel == "web"
    ]
    assert len(set(main_cities)) == len(main_cities) == 16
    questions = [eq.question for e in g.envelopes for eq in e.questions]
    assert {q.status for q in questions} == {"assigned"}
    assert {e.reserve.question.status for e in g.envelopes} == {"approved"}
    check = check_table(g)
    assert check == {"complete": True, "problems": [], "warnings": []}


def test_varied_cities_prefer_a_new_city(app):
    qs = h.approved_questions(30)
    for k, q in enumerate(qs):
        q.authors[0].city = "Минск" if k < 15 else f"Город {k}"
    g = h.game(
        h.season(), table={"blitz": None, "superblitz": None, "sector13": None}, status="draft"
    )
    assign_envelopes(g)
    cities = [eq.question.author_list[0].city for e in g.envelopes for eq in e.questions]
    # the oldest is from Minsk; then 15 other cities exist: no city twice
    assert cities.count("Минск") == 1 and len(set(cities)) == 13


def test_2009_sector13_is_left_for_the_draw_and_small_pool_refused(app):
    h.approved_questions(16)
    g = h.game(h.season("2009"), table=TABLE, status="draft")
    assign_envelopes(g)
    envs = {e.sector: e for e in g.envelopes}
    assert envs[13].questions == [] and envs[13].reserve is None
    assert check_table(g)["complete"] is True
    other = h.game(h.season("2009"), table=TABLE, status="draft")
    with pytest.raises(GameConflict) as exc:
        assign_envelopes(other)
    assert exc.value.error["needed"] == 16 and exc.value.error["available"] == 0
    assert other.envelopes == []


def test_reserves_of_an_open_game_are_not_taken_by_another(app):
    h.approved_questions(26)
    table = {"blitz": None, "superblitz": None, "sector13": None}
    g1 = h.game(h.season(), table=table, status="draft")
    assign_envelopes(g1)
    reserves = {e.reserve.question.id for e in g1.envelopes}
    g2 = h.game(h.season(), 2, table=table, status="draft")
    with pytest.raises(GameConflict):  # 26 - 13 assigned - 13 reserved = 0 left
        assign_envelopes(g2)
    assert len(reserves) == 13


def test_swap_replace_use_reserve_and_author_rule(app):
    qs = h.approved_questions(40)
    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    envs = {e.sector: e for e in g.envelopes}
    one, blitz2 = ids(envs[1])[0], ids(envs[4])[1]
    swap_slots(g, (1, 1), (4, 2))
    assert (ids(envs[1]), ids(envs[4])[1]) == ([blitz2], one)
    # main ↔ reserve: statuses follow
    reserve = envs[2].reserve.question
    main2 = envs[2].questions[0].question
    swap_slots(g, (2, 1), (2, 0))
    assert (ids(envs[2]), envs[2].reserve.question.id) == ([reserve.id], main2.id)
    assert (reserve.status, main2.status) == ("assigned", "approved")
    # use the reserve: the replaced question goes back to the pool
    use_reserve(g, 3, 1)
    assert envs[3].reserve is None
    assert check_table(g)["warnings"] == ["сектор 3: нет резерва"]
    # replace by a free pool question; an author already in the game is refused
    placed = {eq.question.id for e in g.envelopes for eq in e.questions} | {
        e.reserve.question.id for e in g.envelopes if e.reserve
    }
    free = [q for q in qs if q.id not in placed and q.status == "approved"]
    replace_slot(g, 3, 0, free[0].id)
    assert envs[3].reserve.question.id == free[0].id
    dup_author = free[1]
    dup_author.authors[0].author_id = envs[5].questions[0].question.author_list[0].id
    db.session.flush()
    db.session.expire(dup_author)
    with pytest.raises(GameError) as exc:
        replace_slot(g, 6, 1, dup_author.id)
    assert exc.value.errors == {
        "question_id": [
            "автор этого вопроса (Автор 31, Город 31) уже есть в игре: сектор 5, вопрос 1 "
            "(п. 4.11.1 Правил сезона 2023 г.)"
        ]
    }
    with pytest.raises(GameError) as exc:
        replace_slot(g, 6, 1, ids(envs[7])[0])
    assert exc.value.errors == {
        "question_id": [f"вопрос №{ids(envs[7])[0]} уже на столе этой игры: сектор 7, вопрос 1"]
    }
    with pytest.raises(GameError) as exc:
        swap_slots(g, (1, 1), (4, 4))
    assert exc.value.errors == {"slot": ["в секторе 4 нет ячейки 4: от 0 (резерв) до 3"]}
    with pytest.raises(GameError) as exc:
        swap_slots(g, (1, 2), (2, 3))
    assert exc.value.errors == {
        "slot": [
            "в секторе 1 нет ячейки 2: 0 (резерв) или 1",
            "в секторе 2 нет ячейки 3: 0 (резерв) или 1",
        ]
    }


def test_completeness_check_lock_and_printing(app):
    qs = h.approved_questions(17)
    g = h.game(
        h.season("2009"), table={"blitz": 4, "superblitz": None, "sector13": None}, status="draft"
    )
    assign_envelopes(g)
    withdrawn = g.envelopes[0].questions[0].question
    withdrawn.status = "withdrawn"
    check = check_table(g)
    assert check["complete"] is False
    assert check["problems"] == [
        f"сектор 1, вопрос 1: вопрос №{withdrawn.id} в статусе «отозван автором»"
    ]
    with pytest.raises(GameConflict):
        lock_table(g, None)
    with pytest.raises(GameConflict) as exc:
        request_envelopes(g)
    assert str(exc.value) == f"игра {g.id}: заблокируйте стол перед печатью конвертов"
    assert g.table_locked_at is None
    withdrawn.status = "assigned"
    lock_table(g, None)
    assert g.table_locked_at is not None
    with pytest.raises(GameConflict) as exc:
        swap_slots(g, (1, 1), (2, 1))
    assert str(exc.value) == "стол заблокирован: сначала разблокируйте его"
    docs = request_envelopes(g)
    assert [d.kind for d in docs] == ["envelopes", "host_cards"]
    with pytest.raises(GameConflict):
        unlock_table(g)
    assert db.session.scalar(db.select(db.func.count()).select_from(Document)) == 2
    assert len(qs) == 17


def test_table_pages_without_javascript(app, login):
    h.approved_questions(30)
    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    h.commit()
    client = login("editor")
    page = client.get(f"/games/{g.id}/table").get_data(as_text=True)
    assert page.count('class="slot"') == 17 and page.count('class="slot reserve"') == 13
    assert 'src="/static/table.js"' in page and "Стол полный." in page
    first = g.envelopes[0].questions[0].question.id
    second = g.envelopes[1].questions[0].question.id
    (swap_form,) = [f for f in page_forms(page) if f.action == f"/games/{g.id}/table/swap"]

    def swap(headers=None, **typed):
        """The page's «Переставить» form with ``typed`` places (``sector_a=1``, …)."""
        typed_in = {f"swap-{name}": value for name, value in typed.items()}
        return client.post(swap_form.action, data={**swap_form.fields, **typed_in}, headers=headers)

    r = swap(sector_a=1, slot_a=1, sector_b=2, slot_b=1)
    assert r.status_code == 302
    db.session.expire_all()
    assert [e.questions[0].question.id for e in g.envelopes[:2]] == [second, first]
    r = swap(JSON, sector_a=1, slot_a=3, sector_b=2, slot_b=1)
    assert r.status_code == 409
    assert r.json["error"] == "Не изменено: Ячейка: в секторе 1 нет ячейки 3: 0 (резерв) или 1"
    r = swap(JSON, sector_a=1, slot_a=1, sector_b=1, slot_b=1)
    assert (r.status_code, r.json) == (
        409,
        {
            "ok": False,
            "error": "Не изменено: Ячейка: вопрос 1.1 не переставить сам с собой: "
            "выберите две разные ячейки",
        },
    )
    # the form's own errors name which of the two places is wrong
    r = swap(JSON, sector_a="", slot_a=1, sector_b=0, slot_b=9)
    assert r.json["error"] == (
        "Не изменено: Укажите первый сектор; Второй сектор: номер от 1 до 13; "
        "Ячейка второго сектора: от 0 (резерв) до 3."
    )
    db.session.expire_all()
    assert [e.questions[0].question.id for e in g.envelopes[:2]] == [second, first]
    r = client.post(
        f"/games/{g.id}/table/replace",
        data={"replace-sector": 5, "replace-slot": 1, "replace-use_reserve": "y"},
    )
    assert r.status_code == 302
    assert client.post(f"/games/{g.id}/table/lock").status_code == 302
    db.session.expire_all()
    assert g.table_locked_at is not None
    login("producer")
    page = client.get(f"/games/{g.id}").get_data(as_text=True)
    assert "Напечатать конверты" in page


def test_api_envelopes_lock_a_complete_table(app, api):
    h.approved_questions(17)
    g = h.game(h.season(), table={"blitz": 4, "superblitz": None, "sector13": None}, status="draft")
    assign_envelopes(g)
    g.envelopes[2].questions[0].question.status = "rejected"
    h.commit()
    r = api("post", f"/api/v1/games/{g.id}/envelopes", role="producer")
    assert r.status_code == 409
    assert r.json["error"]["problems"] == [
        f"сектор 3, вопрос 1: вопрос №{g.envelopes[2].questions[0].question.id} в статусе «отклонён»"
    ]
    g.envelopes[2].questions[0].question.status = "assigned"
    h.commit()
    assert api("post", f"/api/v1/games/{g.id}/envelopes", role="producer").status_code == 202
    db.session.expire_all()
    assert g.table_locked_at is not None


NO_MULTI = {"blitz": None, "superblitz": None, "sector13": 13}


@pytest.mark.parametrize(
    ("ruleset", "warnings"),
    [
        (
            "2023",
            [
                "в плане стола нет блица (п. 3.4.1 Правил сезона 2023 г.)",
                "в плане стола нет суперблица (п. 3.4.2 Правил сезона 2023 г.)",
            ],
        ),
        (
            "2009",
            [
                "в плане стола нет блица (п. 1.4.3 Правил сезона 2009 г.)",
                "в плане стола нет суперблица (п. 1.4.2 Правил сезона 2009 г.)",
            ],
        ),
    ],
)
def test_a_plan_without_blitz_or_superblitz_warns_but_locks(app, ruleset, warnings):
    # 13 single questions used to pass as a full 2023 table without a word
    h.approved_questions(30)
    h.approved_questions(2, channel="partner")
    season = h.season(ruleset)
    g = h.game(season, table=NO_MULTI, status="draft")
    assert check_table(g) == {
        "complete": False,
        "problems": ["стол не заполнен"],
        "warnings": warnings,
    }
    assign_envelopes(g)
    check = check_table(g)
    assert check["complete"] is True and check["problems"] == []
    assert check["warnings"][:2] == warnings
    assert lock_table(g, None)["complete"] is True  # a warning, not a refusal
    assert g.table_locked_at is not None
    full = h.game(season, 2, table={"blitz": 4, "superblitz": 9, "sector13": 13}, status="draft")
    assert check_table(full)["warnings"] == []


def test_new_game_forms_start_from_the_usual_plan_and_explain_it(app, api, login):
    urls = ["/games/"]
    for ruleset in ("2023", "2009"):
        run = SeasonRun(api, ruleset, f"Сезон {ruleset}", "300.00")
        run.add_teams([f"Орлова {ruleset}", f"Буян {ruleset}"])
        urls.append(f"/games/seasons/{run.id}")
    client = login("producer")
    for url in urls:
        page = client.get(url).get_data(as_text=True)
        for name, value in (("blitz", 11), ("superblitz", 12), ("sector13", 13)):
            assert re.search(rf'<input[^>]*name="game-{name}"[^>]*value="{value}"', page) or (
                re.search(rf'<input[^>]*value="{value}"[^>]*name="game-{name}"', page)
            ), (url, name)
        assert "где лежат три вопроса блица" in page, url
        assert "отвечает один знаток" in page, url
        assert "Пусто — 13 сектор играет как обычный вопрос." in page, url


def test_api_table_semantics_unchanged_by_the_form_default(app, api):
    # the usual plan is the page form's starting point only: the API stores what it is given
    season_id = api(
        "post", "/api/v1/seasons", role="producer", json={"name": "Сезон", "ruleset": "2023"}
    ).json["id"]
    r = api(
        "post",
        "/api/v1/games",
        role="producer",
        json={
            "season_id": season_id,
            "kind": "qualifying",
            "date": "2023-03-01",
            "table": {"blitz": None, "superblitz": None, "sector13": None},
        },
    )
    assert r.status_code == 201
    game = db.session.get(Game, r.json["id"])
    assert game.table == {"blitz": None, "superblitz": None, "sector13": None}


def test_a_placed_question_without_its_handout_warns_and_locks(app, login, tmp_path):
    """A placed question whose pre-check flagged a missing handout («Перад вамі») is named
    by the table check, not just «Стол полный.», so the envelope does not print without
    it. A warning (the check reads words), not a refusal."""
    import io

    from PIL import Image

    from webapp.moderation.images import HANDOUT, attach_image
    from webapp.moderation.operations import precheck

    h.approved_questions(30)
    h.approved_questions(2, channel="partner")
    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    q = {e.sector: e for e in g.envelopes}[9].questions[0].question
    q.text = "Перад вамі здымак помніка ў Гродне. Каго ён увекавечвае?"
    precheck(q.id)
    h.commit()
    warning = (
        f"сектор 9, вопрос 1: вопрос №{q.id} — текст ссылается на раздаточный материал "
        "(«Перад вамі»), но его нет"
    )
    check = check_table(g)
    assert check["complete"] is True and check["problems"] == []
    assert check["warnings"] == [warning]
    client = login("editor")
    page = client.get(f"/games/{g.id}/table").get_data(as_text=True)
    assert "Стол полный." in page and f"<li>{warning}</li>" in page
    # an editor attaches the handout image (allowed in a game): the report follows
    png = io.BytesIO()
    Image.new("RGB", (40, 30), "white").save(png, "PNG")
    attach_image(q, HANDOUT, png.getvalue(), tmp_path, None)
    assert check_table(g)["warnings"] == []
    assert lock_table(g, None)["complete"] is True


def test_replace_form_says_which_question_cannot_be_put_and_why(login):
    """«Заменить» on the table page, sent as the page renders it: a number that names no
    question, a question already on this table, one on another game's table and one out of
    the pool each get their own reason; nothing changes."""
    from tests.forms import page_forms

    h.approved_questions(30)
    table = {"blitz": None, "superblitz": None, "sector13": None}
    g = h.game(h.season(), table=table, status="draft")
    assign_envelopes(g)
    other = h.game(h.season(), 2, table=table, status="draft")
    envs = {e.sector: e for e in g.envelopes}
    h.approved_questions_more(13)
    assign_envelopes(other)
    theirs = next(e for e in other.envelopes if e.sector == 5).questions[0].question.id
    ours = ids(envs[7])[0]
    rejected = h.approved_questions_more(1)[0]
    rejected.status = "rejected"
    h.commit()
    before = {e.sector: ids(e) for e in g.envelopes}
    client = login("producer")
    page = client.get(f"/games/{g.id}/table").get_data(as_text=True)
    form = next(f for f in page_forms(page) if f.action == f"/games/{g.id}/table/replace")
    for number, reason in (
        ("999999", "вопроса №999999 нет"),
        (str(ours), f"вопрос №{ours} уже на столе этой игры: сектор 7, вопрос 1"),
        (str(theirs), f"вопрос №{theirs} уже на столе игры №{other.id}: сектор 5, вопрос 1"),
        (
            str(rejected.id),
            f"вопрос №{rejected.id} не в пуле одобренных: он в статусе «отклонён»",
        ),
    ):
        fields = {**form.fields, "replace-sector": "3", "replace-question_id": number}
        r = client.post(form.action, data=fields, follow_redirects=True)
        text = html.unescape(r.get_data(as_text=True))
        assert f"Не изменено: № вопроса: {reason}" in text, number
    db.session.expire_all()
    assert {e.sector: ids(e) for e in db.session.get(Game, g.id).envelopes} == before
