"""The vote result of a 2009 season names the season's donor (the general sponsor who gives
the best player's prize, 002_e025d5ded135c1c4.txt §3.1) in its text, the signatures and
the stamp line, as the producer set it on the season page; never «Печать Sova»."""

from __future__ import annotations

import pytest

from tests.webapp.games.test_season_donor import DONOR, page, rendered_form
from tests.webapp.votes.test_vote_api import close_vote, open_vote
from tests.webapp.votes.test_vote_result import pdf_text


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_the_vote_result_names_the_donor_set_on_the_season_page(
    app, api, sms, finished_game, drain, login
):
    from webapp.extensions import db
    from webapp.games.models import Game

    gid = finished_game()
    season_id = db.session.get(Game, gid).season_id
    client = login("producer")
    form = rendered_form(page(client.get(f"/games/seasons/{season_id}")), "donor-form")
    fields = {
        **form.fields,
        "donor-name": "ПАО «МТС»",
        "donor-city": "Москва",
        "donor-representative": DONOR["representative"],
        "donor-details": "",
        "donor-confirm": "y",
    }
    r = client.post(form.action, data=fields, follow_redirects=True)
    assert "Даритель сезона: ПАО «МТС», г.\u00a0Москва." in page(r)
    open_vote(api, gid, ["Ровшан Аскеров", "Инна Друзь"])
    sms("a", "+79160000001", "1")
    vote = close_vote(api, gid).json["vote"]
    drain()
    text = pdf_text(app, vote["document"]["id"])
    assert (
        "Приз лучшему игроку вручает Генеральный спонсор: ПАО «МТС», г. Москва, в лице "
        "генерального директора Козлова Бориса Петровича, действующего на основании Устава."
    ) in text
    assert "Представитель Генерального спонсора (ПАО «МТС»)" in text
    assert "М. П. ПАО «МТС»" in text
    assert "Контрольный код итогов:" in text
    assert "Sova" not in text and "Второй национальный" not in text
