"""Filling the table («Заполнить стол», ``POST /api/v1/games/{id}/assign``) passes over the
approved questions it must not place and says so: an image file missing (an envelope printed
without it is a wrong envelope), a language the game is not played in (a Belarusian question
in a Russian 2009 game, ``webapp.domain.languages``); 2023 sector 13 takes the partner pool
(000_90d7c8192601ed3a.txt §3.3) or warns. Through the API and through the game page's form."""

from __future__ import annotations

import html
import re

from tests.webapp.games import helpers as h
from webapp.extensions import db
from webapp.games.models import Game
from webapp.submissions.models import Question, QuestionImage

PLAN_2023 = {"blitz": 4, "superblitz": 9, "sector13": 13}
PARTNER_WARNINGS = [
    "13 сектор: в пуле партнёров нет подходящего одобренного вопроса с проверенными "
    "источниками — поставлен вопрос из общего пула (п. 3.3 Правил сезона 2023 г.)",
    "13 сектор: резерв не из пула партнёров (п. 3.3 Правил сезона 2023 г.)",
]


def _defective() -> dict[str, Question]:
    """Approved, signed-off questions made first (the oldest: the fill would take them
    first): one referring to an image that is not attached, one whose attached image file is
    gone from the uploads, one in Belarusian."""
    no_file, gone, belarusian = h.approved_questions(3)
    no_file.text = "Что изображено на фото? (img kubok.png)"
    gone.text = "Что на картинке? (img map.png)"
    gone.images.append(QuestionImage(name="map.png", file="packet-gone.png"))
    belarusian.text = "Які горад называюць сталіцай Беларусі? Назавіце яго."
    belarusian.answer = "Мінск"
    db.session.flush()
    return {"no_file": no_file, "gone": gone, "belarusian": belarusian}


def _placed(sectors) -> set[int]:
    return {i for s in sectors for i in s["question_ids"]}


def test_the_api_fill_passes_over_missing_images_and_warns_on_sector13(app, api):
    bad = _defective()
    h.approved_questions_more(30)
    season = h.season("2023")
    game = h.game(season, table=PLAN_2023, status="draft")
    h.commit()
    r = api("post", f"/api/v1/games/{game.id}/assign", role="producer")
    assert r.status_code == 200, r.json
    no_file, gone = bad["no_file"].id, bad["gone"].id
    assert r.json["passed_over"] == [
        {
            "reason": "missing_image",
            "count": 2,
            "question_ids": [no_file, gone],
            "message": f"у 2 вопросов нет файла изображения: №{no_file} (kubok.png), "
            f"№{gone} (map.png)",
        }
    ]
    assert r.json["warnings"] == PARTNER_WARNINGS
    placed = _placed(r.json["sectors"])
    assert len(placed) == 17 and not placed & {no_file, gone}
    # 2023 is played in Belarusian or Russian: the Belarusian question fits
    reserves = {e.reserve.question_id for e in db.session.get(Game, game.id).envelopes if e.reserve}
    assert bad["belarusian"].id in placed | reserves
    # filled already: the same sectors, nothing passed over this time
    again = api("post", f"/api/v1/games/{game.id}/assign", role="producer").json
    assert (again["passed_over"], again["warnings"]) == ([], [])
    assert again["sectors"] == r.json["sectors"]


def test_sector13_takes_the_partner_pool_without_a_warning(app, api):
    h.approved_questions_more(30)
    partner = h.approved_questions_more(2, channel="partner")
    game = h.game(h.season("2023"), table=PLAN_2023, status="draft")
    h.commit()
    r = api("post", f"/api/v1/games/{game.id}/assign", role="producer").json
    assert (r["passed_over"], r["warnings"]) == ([], [])
    sector13 = next(s for s in r["sectors"] if s["sector"] == 13)
    assert sector13["question_ids"] == [partner[0].id]
    env = next(e for e in db.session.get(Game, game.id).envelopes if e.sector == 13)
    assert env.reserve.question_id == partner[1].id


def test_a_belarusian_question_is_not_placed_in_a_russian_game(app, api):
    bad = _defective()
    h.approved_questions_more(30)
    game = h.game(
        h.season("2009"), table={"blitz": None, "superblitz": 5, "sector13": 13}, status="draft"
    )
    h.commit()
    r = api("post", f"/api/v1/games/{game.id}/assign", role="producer").json
    be = bad["belarusian"].id
    assert r["passed_over"][1] == {
        "reason": "language",
        "count": 1,
        "question_ids": [be],
        "message": f"1 вопрос на белорусском языке, а игра на русском: №{be}",
    }
    assert r["passed_over"][0]["count"] == 2 and r["warnings"] == []
    reserves = {e.reserve.question_id for e in db.session.get(Game, game.id).envelopes if e.reserve}
    assert be not in _placed(r["sectors"]) | reserves


def test_a_pool_too_small_after_passing_over_says_why(app, api):
    bad = _defective()
    h.approved_questions_more(10)
    game = h.game(
        h.season("2009"), table={"blitz": None, "superblitz": 5, "sector13": 13}, status="draft"
    )
    h.commit()
    r = api("post", f"/api/v1/games/{game.id}/assign", role="producer")
    assert r.status_code == 409
    no_file, gone, be = (bad[k].id for k in ("no_file", "gone", "belarusian"))
    assert r.json["error"]["message"] == (
        "одобренных вопросов разных авторов — 10, а столу нужно 14 (Пропущено вопросов: 3 — "
        f"у 2 вопросов нет файла изображения: №{no_file} (kubok.png), №{gone} (map.png); "
        f"1 вопрос на белорусском языке, а игра на русском: №{be}): одобрите ещё вопросы или "
        "уменьшите план"
    )
    assert db.session.get(Game, game.id).envelopes == []


def _form(page: str, action: str) -> dict[str, str]:
    """The fields of the page's form posting to ``action``, as the browser sends them."""
    match = re.search(rf'<form method="post" action="{re.escape(action)}">(.*?)</form>', page, re.S)
    assert match, f"no form posting to {action}"
    return dict(re.findall(r'<input[^>]*name="(\w+)"[^>]*value="([^"]*)"', match.group(1)))


def test_the_game_page_button_says_what_was_passed_over(login, app):
    bad = _defective()
    h.approved_questions_more(30)
    game = h.game(h.season("2023"), table=PLAN_2023, status="draft")
    h.commit()
    client = login("producer")
    page = client.get(f"/games/{game.id}").get_data(as_text=True)
    action = f"/games/{game.id}/assign"
    assert "Заполнить стол" in page
    resp = client.post(action, data=_form(page, action), follow_redirects=True)
    text = html.unescape(resp.get_data(as_text=True))
    no_file, gone = bad["no_file"].id, bad["gone"].id
    assert (
        "Стол заполнен из одобренных вопросов. Пропущено вопросов: 2 — у 2 вопросов нет "
        f"файла изображения: №{no_file} (kubok.png), №{gone} (map.png)." in text
    )
    for warning in PARTNER_WARNINGS:
        assert f"Внимание: {warning}." in text
    assert db.session.get(Game, game.id).status == "ready"
