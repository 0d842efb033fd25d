"""Two games of one day are told apart everywhere staff meet them: the games list (season,
kind, team), the game's page title, the table and console titles, the envelopes' header."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pypdf
from flask import current_app

from tests.webapp.games import helpers as h
from tests.webapp.games.helpers import EXPERTS
from tests.webapp.prizes.paperwork import pdftotext_words
from webapp.core.models import Document
from webapp.domain.text import FSI, PDI
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.operations import assign_envelopes, lock_table, request_envelopes
from webapp.games.season.operations import create_season, create_team


def _two_games_of_one_day():
    h.approved_questions(20)
    anna = h.team("Команда Анны")
    boris = create_team("Команда Бориса", "Борис", EXPERTS)
    first = h.game(
        h.season(),
        5,
        team_=anna,
        table={"blitz": 4, "superblitz": None, "sector13": None},
        status="draft",
    )
    second = h.game(h.season(), 5, team_=boris, kind="special", status="draft")
    assign_envelopes(first)
    lock_table(first, None)
    h.commit()
    return first, second


def _title(html: str) -> str:
    return re.search(r"<title>(.*?)</title>", html, re.S).group(1).strip()


def test_two_games_of_one_day_are_told_apart(login, drain):
    first, second = _two_games_of_one_day()
    assert first.air_date == second.air_date
    client = login("producer")
    page = client.get("/games/").get_data(as_text=True)
    rows = re.findall(
        r"<tr><td>(\d+)</td><td><a [^>]*>([^<]*)</a></td>\s*((?:<td>[^<]*</td>)+)</tr>", page
    )
    cells = {int(n): [title, *re.findall(r"<td>([^<]*)</td>", rest)] for n, title, rest in rows}
    assert cells[first.id][:5] == [
        "Игра 05.03.2023",
        "05.03.2023",
        "Сезон 2023",
        "отборочная",
        "Команда Анны",
    ]
    assert cells[second.id][:5] == [
        "Игра 05.03.2023",
        "05.03.2023",
        "Сезон 2023 №2",
        "специальная игра",
        "Команда Бориса",
    ]
    labels = {
        first.id: f"Игра 05.03.2023 — отборочная, Команда Анны, сезон «Сезон 2023», № {first.id}",
        second.id: (
            f"Игра 05.03.2023 — специальная игра, Команда Бориса, сезон «Сезон 2023 №2», "
            f"№ {second.id}"
        ),
    }
    for g in (first, second):
        game_page = client.get(f"/games/{g.id}").get_data(as_text=True)
        assert _title(game_page) == labels[g.id] + " — «Что? Где? Когда?»"
        assert f"<h1>{labels[g.id]} <small>" in game_page
        table = client.get(f"/games/{g.id}/table").get_data(as_text=True)
        assert _title(table) == f"Стол — {labels[g.id]} — «Что? Где? Когда?»"

    request_envelopes(db.session.get(Game, first.id))
    h.commit()
    drain()
    db.session.expire_all()
    doc = db.session.scalar(db.select(Document).filter_by(kind="envelopes", game_id=first.id))
    data = (Path(current_app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).read_bytes()
    text = " ".join(pypdf.PdfReader(io.BytesIO(data)).pages[0].extract_text().split())
    assert labels[first.id] in text


def test_a_right_to_left_name_leaves_the_game_number_in_place(login, drain):
    """A Hebrew season or team name is isolated (FSI … PDI) wherever the game's label puts it
    in a sentence: unisolated, «сезон «Сезон 2023 🦉 שלום», № 7» is shown and printed as
    «сезон «Сезон 2023 🦉 7 № ,«שלום», and no one can tell the game's number."""
    h.approved_questions(20)
    season = create_season("Сезон 2023 🦉 שלום", "2023")
    team = create_team("קבוצה 7", "Анна", EXPERTS)
    g = h.game(season, 5, team_=team, table={"blitz": 4, "superblitz": None, "sector13": None})
    g.title, g.status = "Финал שלום 2", "draft"
    assign_envelopes(g)
    lock_table(g, None)
    h.commit()
    label = (
        f"{FSI}Финал שלום 2{PDI} — отборочная, {FSI}קבוצה 7{PDI}, "
        f"сезон «{FSI}Сезон 2023 🦉 שלום{PDI}», № {g.id}"
    )
    assert g.label == label
    client = login("producer")
    game_page = client.get(f"/games/{g.id}").get_data(as_text=True)
    assert _title(game_page) == f"{label} — «Что? Где? Когда?»"
    assert f"<h1>{label} <small>" in game_page
    assert f"<p>Сезон: <bdi>{season.name}</bdi> (правила 2023)." in game_page
    assert f"Команда: <bdi>{team.name}</bdi>." in game_page
    table = client.get(f"/games/{g.id}/table").get_data(as_text=True)
    assert _title(table) == f"Стол — {label} — «Что? Где? Когда?»"
    assert f"<h1>Игровой стол: {label}</h1>" in table
    season_page = client.get(f"/games/seasons/{season.id}").get_data(as_text=True)
    assert _title(season_page) == f"Сезон «{FSI}{season.name}{PDI}» — «Что? Где? Когда?»"
    assert f"<h1>Сезон <bdi>«{season.name}»</bdi></h1>" in season_page

    request_envelopes(db.session.get(Game, g.id))
    h.commit()
    drain()
    db.session.expire_all()
    docs = db.session.scalars(db.select(Document).filter_by(game_id=g.id)).all()
    assert sorted(d.kind for d in docs) == ["envelopes", "host_cards"]
    # what the printer sees, word by word from the left as poppler places them (a Hebrew
    # word's letters as drawn, right to left): each name whole, «», № 1» after the season
    shalom, team_word = "שלום"[::-1], "קבוצה"[::-1]
    seen = (
        f"Финал 2 {shalom} — отборочная, 7 {team_word}, сезон «Сезон 2023 🦉 {shalom}», "
        f"№ {g.id} 5 марта 2023 г."
    )
    for doc in docs:
        data = (Path(current_app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).read_bytes()
        words = " ".join(word for word, _x0, _x1 in pdftotext_words(data))
        pdf = pypdf.PdfReader(io.BytesIO(data))
        assert words.count(seen) == len(pdf.pages), doc.kind  # every page's header
        # the document's title (a viewer's window) says the date after the game's title
        assert pdf.metadata.title.startswith(f"{FSI}Финал שלום 2{PDI} — 5 марта"), doc.kind
