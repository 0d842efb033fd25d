"""The host's and the producer's vote pages: open from the console, live tally JSON, close
with confirmation, the §3.1 award pre-filled with the winner (override needs a reason)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


def test_host_opens_from_console_and_closes(app, client, login, sms, finished_game):
    gid = finished_game()
    login("host")
    console = client.get(f"/games/{gid}/console").get_data(as_text=True)
    assert 'id="vote-panel"' in console and "Открыть голосование" in console
    resp = client.post(f"/games/{gid}/vote/open", data={"next": "console"})
    assert resp.status_code == 302 and resp.headers["Location"].endswith(f"/games/{gid}/console")
    sms("a", "+79160000001", "2")
    sms("b", "+79160000002", "Аскёров")
    sms("c", "+79160000002", "1")
    data = client.get(f"/games/{gid}/vote/tally.json").json
    assert data["can_open"] is False
    assert [c["votes"] for c in data["vote"]["candidates"]] == [0, 1, 1, 0, 0, 0]
    assert (data["vote"]["counted"], data["vote"]["repeats"]) == (2, 1)
    console = client.get(f"/games/{gid}/console").get_data(as_text=True)
    assert "Закрыть голосование" in console and "Ровшан Аскеров" in console
    # closing needs the confirmation
    client.post(f"/games/{gid}/vote/close", data={})
    assert client.get(f"/games/{gid}/vote/tally.json").json["vote"]["status"] == "open"
    client.post(f"/games/{gid}/vote/close", data={"confirm": "y"})
    assert client.get(f"/games/{gid}/vote/tally.json").json["vote"]["status"] == "closed"
    page = client.get(f"/games/{gid}/vote").get_data(as_text=True)
    assert "Голосование закрыто." in page and "не определён (равенство голосов)" in page
    # the host does not award prizes
    assert client.post(f"/games/{gid}/vote/award", data={"chosen": "Инна Друзь"}).status_code == 403


def test_producer_page_candidates_and_award(app, client, login, sms, finished_game):
    from webapp.extensions import db
    from webapp.votes.models import VoteAward

    gid = finished_game()
    login("producer")
    page = client.get(f"/games/{gid}/vote").get_data(as_text=True)
    assert "Александр Друзь\nИнна Друзь" in page  # defaults: the team's experts
    client.post(f"/games/{gid}/vote/open", data={"candidates": "Анна <i>П</i>\nБорис\n\n"})
    sms("a", "+79160000001", "борис")
    client.post(f"/games/{gid}/vote/close", data={"confirm": "y"})
    page = client.get(f"/games/{gid}/vote").get_data(as_text=True)
    assert "Анна &lt;i&gt;П&lt;/i&gt;" in page and "<i>П</i>" not in page
    assert '<option selected value="Борис">Борис</option>' in page  # pre-filled winner
    resp = client.post(
        f"/games/{gid}/vote/award", data={"chosen": "Анна <i>П</i>"}, follow_redirects=True
    )
    assert "укажите основание" in resp.get_data(as_text=True)
    assert db.session.scalar(db.select(db.func.count()).select_from(VoteAward)) == 0
    resp = client.post(f"/games/{gid}/vote/award", data={"chosen": "Борис"}, follow_redirects=True)
    assert "Лучший игрок игры (п. 3.1 Правил сезона 2009 г.): Борис." in resp.get_data(as_text=True)
    row = db.session.scalar(db.select(VoteAward))
    assert (row.chosen_name, row.winner_name, row.overridden, row.reason) == (
        "Борис",
        "Борис",
        False,
        "",
    )


def test_vote_page_refuses_2023_and_unfinished(app, client, login, finished_game):
    g2023 = finished_game("2023")
    live = finished_game(day=2, status="live")
    login("producer")
    assert "зрительского голосования нет" in client.get(f"/games/{g2023}/vote").get_data(
        as_text=True
    )
    assert client.get(f"/games/{live}/vote/tally.json").json == {"vote": None, "can_open": False}
    resp = client.post(f"/games/{live}/vote/open", data={}, follow_redirects=True)
    assert "голосование открывается, когда игра окончена" in resp.get_data(as_text=True)
    assert client.get(f"/games/{live}/vote/result.pdf").status_code == 404


def test_refused_open_flashes_and_writes_nothing(app, client, login, finished_game):
    """A refusal (409 VoteError, 422 VoteInputError) on a page is the edge's flash and
    redirect back where the form came from; no vote row is written."""
    from webapp.extensions import db
    from webapp.votes.models import Vote

    live, gid = finished_game(day=1, status="live"), finished_game(day=2)
    login("host")
    resp = client.post(f"/games/{live}/vote/open", data={"next": "console"})
    assert resp.status_code == 302
    assert resp.headers["Location"].endswith(f"/games/{live}/console")
    page = client.get(f"/games/{live}/vote").get_data(as_text=True)
    assert "Голосование не открыто: голосование открывается, когда игра окончена" in page
    resp = client.post(
        f"/games/{gid}/vote/open", data={"candidates": "Анна\nАННА"}, follow_redirects=True
    )
    text = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert "Голосование не открыто: кандидаты не различимы по имени: «АННА»" in text
    assert db.session.scalar(db.select(db.func.count()).select_from(Vote)) == 0
    assert client.post(f"/games/{gid + 1000}/vote/open", data={}).status_code == 404


@pytest.mark.parametrize(
    "lang,words,flash,citation",
    [
        (
            "en",
            [
                "Audience vote: ",
                "The vote is open: text messages are being accepted.",
                "Counted:",
                "Close the vote",
                'data-t-none="No vote has been held."',
                "To the game page",
            ],
            "The vote was not opened: the vote of another game (No. {other}) is open: only one "
            "can run at a time",
            "clause 3.1 of the 2009 season rules",
        ),
        (
            "be",
            [
                "Галасаванне гледачоў: ",
                "Галасаванне ідзе: SMS прымаюцца.",
                "Залічана:",
                "Закрыць галасаванне",
                'data-t-none="Галасаванне не праводзілася."',
                "Да старонкі гульні",
            ],
            "Галасаванне не адкрыта: адкрыта галасаванне іншай гульні (№ {other}): адначасова "
            "можа ісці толькі адно",
            "п. 3.1 Правілаў сезона 2009 г.",
        ),
    ],
)
def test_vote_page_in_english_and_belarusian(
    app, client, login, sms, finished_game, lang, words, flash, citation
):
    from flask_babel import refresh

    gid, other = finished_game(), finished_game(day=2)
    login("host")
    client.post(f"/games/{gid}/vote/open", data={})
    sms("a", "+79160000001", "1")
    # the page in Russian first: its template is compiled then, and a citation folded into
    # it at compile time would stay Russian in every language
    refresh()  # the test's app context is shared: drop the locale cached on ``g``
    russian = client.get(f"/games/{gid}/vote?lang=ru").get_data(as_text=True)
    assert "(п. 3.1 Правил сезона 2009 г.)" in russian
    refresh()
    page = client.get(f"/games/{gid}/vote?lang={lang}").get_data(as_text=True)
    for w in words:
        assert w in page
    for ru in ("Голосование идёт", "Засчитано:", "Закрыть голосование", "К странице игры"):
        assert ru not in page
    assert "002_e025d5ded135c1c4.txt" not in page  # the rule book by its name (rule_ref)
    assert f"({citation})" in page and "Правил сезона" not in page
    # a refusal of the operations, translated (the language cookie set by ?lang=)
    refresh()
    resp = client.post(f"/games/{other}/vote/open", data={}, follow_redirects=True)
    assert flash.format(other=gid) in resp.get_data(as_text=True)
