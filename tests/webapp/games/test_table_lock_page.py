"""After the producer locks the table (the table page's own form), the game page says so:
its status reads «стол заполнен и заблокирован» and the lock message sits beside the print
button."""

from __future__ import annotations

import re

from werkzeug.datastructures import MultiDict

from tests.webapp.games import helpers as h
from tests.webapp.moderation import pages
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.operations import assign_envelopes
from webapp.games.queries import game_copies


def _table_game():
    h.approved_questions(20)
    g = h.game(h.season(), table={"blitz": 4, "superblitz": None, "sector13": None}, status="draft")
    assign_envelopes(g)
    h.commit()
    return g.id


def _lock(client, game_id: int):
    table = client.get(f"/games/{game_id}/table").get_data(as_text=True)
    button = pages.button(table, "Заблокировать стол")
    action = button["form"]["action"]
    assert action == f"/games/{game_id}/table/lock"
    form = pages.form(table, action=action)
    return client.post(action, data=MultiDict(form["fields"]))


def test_the_game_page_says_the_table_is_locked_beside_the_print_button(login):
    game_id = _table_game()
    client = login("producer")
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "<small>(стол заполнен)</small>" in page
    assert "Конверты печатаются после блокировки стола." in page
    resp = _lock(client, game_id)
    assert (resp.status_code, resp.headers["Location"]) == (302, f"/games/{game_id}#print")
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    game = db.session.get(Game, game_id)
    assert f"<h1>{game.label} <small>(стол заполнен и заблокирован)</small></h1>" in page
    printing = re.search(
        r'<form method="post" action="/games/\d+/envelopes" id="print">.*?</form>', page, re.S
    )
    assert printing is not None
    locked = re.search(
        r'<span class="hint" id="table-lock">Стол заблокирован (\d\d\.\d\d\.\d{4} \d\d:\d\d): '
        r"можно печатать конверты\.</span>",
        printing.group(0),
    )
    assert locked is not None and "<button>Напечатать конверты</button>" in printing.group(0)
    assert page.count("Стол заблокирован") == 1  # no second message at the top
    # the games list says it too
    listing = client.get("/games/").get_data(as_text=True)
    assert "<td>стол заполнен и заблокирован</td>" in listing


def test_an_editor_who_locks_stays_on_the_table_page(login):
    game_id = _table_game()
    client = login("editor")
    resp = _lock(client, game_id)
    assert (resp.status_code, resp.headers["Location"]) == (302, f"/games/{game_id}/table")
    table = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Стол заблокирован: можно печатать конверты." in table


def test_the_print_button_untouched_prints_one_copy_as_the_api_does(login):
    """The form's «Экземпляров» starts at 1, the API's default: pressing the button as the
    page renders it queues one copy of the envelopes and one of the host cards."""
    game_id = _table_game()
    client = login("producer")
    _lock(client, game_id)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    form = pages.form(page, action=f"/games/{game_id}/envelopes")
    assert ("copies", "1") in form["fields"]
    client.post(form["action"], data=MultiDict(form["fields"]))
    db.session.expire_all()
    serials = [c.serial for c in game_copies(game_id)]
    assert serials == [f"{game_id}-E01", f"{game_id}-H01"]


def test_zero_copies_is_out_of_range_not_missing(login):
    """«0» typed into «Экземпляров» is a number out of range («От 1 до 20 экземпляров.»),
    as 21 and −1 are, not an empty field."""
    game_id = _table_game()
    client = login("producer")
    _lock(client, game_id)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    form = pages.form(page, action=f"/games/{game_id}/envelopes")
    fields = [(k, "0" if k == "copies" else v) for k, v in form["fields"]]
    resp = client.post(form["action"], data=MultiDict(fields), follow_redirects=True)
    text = resp.get_data(as_text=True)
    assert "От 1 до 20 экземпляров." in text and "Укажите число экземпляров." not in text
    assert game_copies(game_id) == []
