"""A season joined under way (Sova's ``start`` event, ``docs/protocols.md``): the producer's
rendered form «Сезон уже идёт: начальная точка» with its Russian errors, the API's event, the
page's record of who set the starting point, and ``sova season replay`` of the exported file."""

from __future__ import annotations

import html
import json

from tests.forms import page_forms
from tests.webapp.games.season_driver import SeasonRun
from tests.webapp.season_replay import sova_season_replay
from webapp.domain.books import replay_season

R23 = "000_90d7c8192601ed3a.txt"
TEAMS = ["Королёва", "Орлова", "Свинтицкий", "Буян", "Наталевич", "Стишенок", "Антипов"]
TEAMS += ["Потапова"]
GAMES = "\n".join(
    [
        "весенняя; отборочная; Потапова; 4:6",
        "весенняя; отборочная; Буян; 6:3",
        "Весенняя; финал серии; буян; 6:2",
        "летняя; отборочная; Потапова; 2:6",
        "летняя; финал серии; Свинтицкий; 3:6",
        "осенняя; отборочная; Королёва; 6:1",
    ]
)
RATING = "Орлова\nНаталевич\nСтишенок\nАнтипов\nкоролёва"


def _page(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def test_the_producer_starts_a_season_under_way_with_the_rendered_form(api, client, login):
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(TEAMS)
    login("producer")
    page = _page(client.get(f"/games/seasons/{run.id}"))
    assert "<h2>Сезон уже идёт: начальная точка</h2>" in page

    def submit(**fields: str) -> str:
        form = next(
            f
            for f in page_forms(_page(client.get(f"/games/seasons/{run.id}")))
            if f.attrs.get("id") == "start-form"
        )
        data = dict(form.fields)
        data.update(
            {
                "start-part": "autumn",
                "start-qualifying": "5",
                "start-closing": "series_final",
                "start-rating": RATING,
                "start-results": GAMES,
                "start-note": "протоколы эфиров весны и лета",
                "start-confirm": form.when_ticked["start-confirm"],
            }
        )
        data.update(fields)
        return _page(client.post(form.action, data=data, follow_redirects=True))

    assert (
        "Начальная точка не принята: Сыгранные игры: строка 2: «Бурян» нет среди команд "
        "сезона; счёт «6-3» — пишите "
        "знатоки:телезрители, например 6:3."
    ) in submit(
        **{"start-results": "весенняя; отборочная; Потапова; 4:6\nвесенняя; отборочная; Бурян; 6-3"}
    )
    assert (
        "Начальная точка не принята: «Буян» не может быть в рейтинге осенней серии: она уже "
        "вышла в зимнюю серию (п. 4.7.2 Правил сезона 2023 г.)"
    ) in submit(**{"start-rating": "Орлова\nБуян\nСтишенок\nАнтипов\nКоролёва"})
    refused = submit(**{"start-results": GAMES.replace("Королёва; 6:1", "Орлова; 6:1")})
    assert (
        "Начальная точка не принята: строка 6 сыгранного (осенняя серия): «Орлова» играет не "
        "в свою очередь: 1-ю отборочную игру осенней серии играет «Королёва»"
    ) in refused
    assert (
        "Начальная точка не принята: Сыгранные игры: строка 1: счёт «16:1» — пишите "
        "знатоки:телезрители, например 6:3."
    ) in submit(**{"start-results": "весенняя; отборочная; Буян; 16:1"})
    assert (
        "Начальная точка не принята: Сыгранные игры: строка 1: отказ записывается только от "
        "серии, с которой сезон ведётся в Сове."
    ) in submit(**{"start-results": "весенняя; отказ; Стишенок\n" + GAMES})
    # 2023 §4.8.1: «Стишенок» withdrew from the autumn series before its first game
    assert (
        "Начальная точка не принята: строка 6 сыгранного (осенняя серия): «Стишенок» не может "
        "отказаться от участия в осенней серии: без неё для 5 отборочных игр останется 4 "
        "команды рейтинга (п. 4.8 Правил сезона 2023 г.)"
    ) in submit(
        **{
            "start-results": GAMES.replace(
                "осенняя; отборочная; Королёва; 6:1", "осенняя; отказ; Стишенок"
            )
        }
    )
    assert "Подтвердите начальную точку сезона." in submit(**{"start-confirm": ""})
    assert run.state()["series"] is None  # nothing stored by a refusal
    login("producer")  # the API's calls sign the page's session out
    done = submit()
    assert "Начальная точка сезона записана: сезон ведётся в Сове с неё." in done
    assert "<h2>Сезон уже идёт: начальная точка</h2>" not in done
    assert "Сезон ведётся в Сове с осенней серии (событие 0): записано " in done
    assert ", producer@test.local; сыгранных до того игр — 6. Откуда данные: протоколы " in done
    state = run.state()
    assert state["rating"] == ["Королёва", "Орлова", "Наталевич", "Стишенок", "Антипов"]
    assert state["next"] == {"kind": "qualifying", "team": "Антипов"}
    assert state["winter"] == ["Буян", "Свинтицкий"]
    assert state["out"] == [{"team": "Потапова", "rule": f"{R23} §4.4"}]
    # the viewers' page shows the standings and the results so far (aired before Sova)
    public = _page(client.get(f"/season/{run.id}"))
    rows = " ".join(public[public.index('<table id="results">') :].split())
    assert "<td></td> <td>финал серии</td> <td>Буян</td><td>6:2</td>" in rows
    assert "<td></td> <td>отборочная</td> <td>Королёва</td><td>6:1</td>" in rows
    # the season goes on from it: the game the rules want next is created, another refused
    assert run.create_game("qualifying", "Антипов").status_code == 201
    assert run.create_game("qualifying", "Орлова").status_code == 409


def test_the_api_takes_a_start_and_the_cli_replays_the_exported_file(api, tmp_path):
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(TEAMS)
    start = {
        "type": "start",
        "part": "autumn",
        "qualifying": 5,
        "closing": "series_final",
        "rating": ["Орлова", "Наталевич", "СТИШЕНОК", "Антипов", "Королёва"],
        "results": [
            {"part": "spring", "kind": "series_final", "team": "буян", "score": "6:2"},
            {"part": "spring", "kind": "qualifying", "team": "Буян", "score": "6:2"},
        ],
        "note": "переход на Сову",
    }
    refused = run.event({**start, "rating": ["Буян", *start["rating"][1:]]})
    assert (refused.status_code, refused.json) == (
        409,
        {
            "error": {
                "event": 0,
                "rule": f"{R23} §4.7.2",
                "message": "«Буян» не может быть в рейтинге осенней серии: она уже вышла в "
                "зимнюю серию (п. 4.7.2 Правил сезона 2023 г.)",
            }
        },
    )
    r = run.event(start)
    assert r.status_code == 201, r.json
    assert r.json["state"]["order"] == ["Королёва", "Антипов", "Стишенок", "Наталевич", "Орлова"]
    protocol = api("get", f"/api/v1/seasons/{run.id}/protocol", role="host").json
    assert protocol["events"][0]["rating"][2] == "Стишенок"  # the season's spelling is stored
    path = tmp_path / "season.json"
    path.write_text(json.dumps(protocol, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "cli").mkdir()
    code, replayed = sova_season_replay(path, tmp_path / "cli")
    assert code == 0
    assert (
        replayed
        == replay_season(protocol).to_json()
        == {k: v for k, v in run.state().items() if k not in ("id", "name")}
    )
    assert replayed["winter"] == ["Буян"]
    again = run.event(start)  # the starting point is set once, first
    assert again.status_code == 409
    assert again.json["error"]["message"] == (
        "начальная точка сезона записывается до всех других событий (раньше неё может быть "
        "только изменение правил) (п. 4.1 Правил сезона 2023 г.)"
    )
