"""The vote result of a 2009 season names the season's donor (the general sponsor who gives
the best player's prize, 002_e025d5ded135c1c4.txt §3.1) in its text, the signatures and
the stamp line, as the producer set it on the season page; never «Печать Sova»."""

from __future__ import annotations

import pytest

from tests.webapp.games.donor import DONOR, page, rendered_form
from tests.webapp.votes.helpers import close_vote, open_vote, pdf_text


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
    # the representative named at the signature line too
    assert (
        "Представитель Генерального спонсора (ПАО «МТС», в лице генерального директора "
        "Козлова Бориса Петровича, действующего на основании Устава)"
    ) in text
    assert "М. П. ПАО «МТС»" in text
    assert "Контрольный код итогов:" in text
    assert "Sova" not in text and "Второй национальный" not in text


def _page_texts(data: bytes) -> list[str]:
    import io

    import pypdf

    return [
        " ".join(p.extract_text().replace("\u00a0", " ").split())
        for p in pypdf.PdfReader(io.BytesIO(data)).pages
    ]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_the_signature_block_stays_on_one_page(app, api, sms, finished_game, drain, login):
    """However many candidates (1 to 12) and with a long donor name and representative, the
    host's, the producer's and the sponsor's signature lines print together on one sheet,
    with the last paragraph before them (never a sheet of signatures alone)."""
    from webapp.extensions import db
    from webapp.games.models import Game
    from webapp.votes.models import Vote
    from webapp.votes.queries import result_context
    from workers.documents import render_pdf

    gid = finished_game()
    season_id = db.session.get(Game, gid).season_id
    client = login("producer")
    form = rendered_form(page(client.get(f"/games/seasons/{season_id}")), "donor-form")
    name = "Открытое акционерное общество «Московская городская телефонная сеть и партнёры»"
    fields = {
        **form.fields,
        "donor-name": name,
        "donor-city": "Москва",
        "donor-representative": DONOR["representative"],
        "donor-details": "",
        "donor-confirm": "y",
    }
    assert client.post(form.action, data=fields).status_code == 302
    open_vote(api, gid, ["Ровшан Аскеров", "Инна Друзь"])
    sms("a", "+79160000001", "1")
    vote = close_vote(api, gid).json["vote"]
    drain()
    context = result_context(db.session.get(Vote, vote["id"]))
    assert context["donor"]["name"] == name
    lines = (
        "Ведущий",
        "Продюсер",
        f"Представитель Генерального спонсора ({name}, в лице генерального директора",
        "М. П.",
    )
    split_before = False
    for n in range(1, 13):
        candidates = [
            {"n": k, "name": f"Кандидат {k} Длинная Фамилия", "votes": 1} for k in range(1, n + 1)
        ]
        pages = _page_texts(render_pdf("vote_result.html", {**context, "candidates": candidates}))
        holding = [[i for i, text in enumerate(pages) if line in text] for line in lines]
        assert all(len(h) == 1 for h in holding), (n, holding)
        assert len({h[0] for h in holding}) == 1, (n, holding)
        assert "Основание:" in pages[holding[0][0]] or "Подписи" in pages[0], n
        # the signatures' sheet carries the totals and the control code in its body
        assert "Засчитано голосов: 1." in pages[holding[0][0]], n
        assert "Контрольный код итогов:" in pages[holding[0][0]], n
        split_before = split_before or holding[0][0] > 0
    assert split_before  # some of these layouts really run past the first sheet
