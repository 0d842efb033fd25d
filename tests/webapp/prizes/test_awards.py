"""Awarding every prize after a game through the API and the producer's page, with exact
amounts, recipients, refusals citing the clause, and nothing made twice."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.helpers import EXPERTS_WIN, VIEWERS_WIN
from webapp.extensions import db
from webapp.games.models import Game
from webapp.prizes.models import GiftAgreement, Prize, PrizeStatusChange
from webapp.submissions.models import Author

TEAM = [
    "Алёна Повышева",
    "Илья Новиков",
    "Максим Поташев",
    "Борис Белозёров",
    "Елизавета Овдеенко",
    "Ровшан Аскеров",
]


def count(model) -> int:
    return db.session.scalar(db.select(db.func.count()).select_from(model))


def test_series_final_won_best_participant_2000_small_owl(app, api, played, drain):
    game = played("series_final", EXPERTS_WIN)
    closed = api("post", f"/api/v1/games/{game}/close", role="producer").json["prizes"]
    assert closed == []
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_participant_of_series", "recipient": "Илья Новиков", "team": TEAM},
    )
    assert r.status_code == 201, r.json
    [p] = r.json["prizes"]
    assert (p["kind"], p["author"], p["amount"], p["currency"], p["trophy"], p["rule"]) == (
        "best_participant_of_series",
        "Илья Новиков",
        "2000.00",
        "BYN",
        "small_crystal_owl",
        "000_90d7c8192601ed3a.txt §4.11.2",
    )
    again = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_participant_of_series", "recipient": "Илья Новиков", "team": TEAM},
    )
    assert again.status_code == 201 and again.json["prizes"] == [p]
    other = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_participant_of_series", "recipient": "Максим Поташев", "team": TEAM},
    )
    assert other.status_code == 409
    assert other.json["error"] == {
        "message": "приз «Лучший участник серии» этой игры уже присуждён: Илья Новиков",
        "rule": "000_90d7c8192601ed3a.txt §4.11.2",
    }
    assert count(Prize) == 1 and count(GiftAgreement) == 1
    agreement = db.session.scalar(db.select(GiftAgreement))
    assert agreement.number == "2023-0001"
    assert sorted(drain()) == ["prizes.issue_agreement", "prizes.render_minutes"]


def test_best_participant_from_the_other_side_is_refused(app, api, played):
    game = played("series_final", EXPERTS_WIN)
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_participant_of_series", "recipient": "Автор 3", "team": TEAM},
    )
    assert r.status_code == 409
    assert r.json["error"] == {
        "message": "«Автор 3» не входит в состав команды знатоков этой игры: приз вручается "
        "только её участнику",
        "rule": "000_90d7c8192601ed3a.txt §4.11.2",
    }
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_author_of_series", "author_id": 1},
    )
    assert r.status_code == 409
    assert r.json["error"]["rule"] == "000_90d7c8192601ed3a.txt §4.11.3"
    assert count(Prize) == 0 and count(PrizeStatusChange) == 0


def test_series_final_lost_best_author_among_unanswered_authors(app, api, played):
    game = played("series_final", VIEWERS_WIN)
    closed = api("post", f"/api/v1/games/{game}/close", role="producer").json["prizes"]
    # 6 unanswered questions; question 1 has two co-authors: 150,00 each.
    assert sorted((p["author"], p["amount"]) for p in closed)[:3] == [
        ("Автор 1, Минск", "150.00"),
        ("Автор 2, Минск", "300.00"),
        ("Автор 3, Минск", "300.00"),
    ]
    assert len(closed) == 7
    unanswered = {(p["author"].split(",")[0]) for p in closed}
    never = db.session.scalar(db.select(Author).where(Author.name == "Автор 13"))
    assert never.name not in unanswered
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_author_of_series", "author_id": never.id},
    )
    assert r.status_code == 409
    assert r.json["error"] == {
        "message": "«Автор 13» не автор ни одного вопроса, на который знатоки не ответили "
        "в этой игре",
        "rule": "000_90d7c8192601ed3a.txt §4.11.3",
    }
    co = db.session.scalar(db.select(Author).where(Author.name == "Соавтор 1"))
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_author_of_series", "author_id": co.id},
    )
    assert r.status_code == 201, r.json
    [p] = r.json["prizes"]
    assert (p["author"], p["amount"], p["trophy"], p["rule"]) == (
        "Соавтор 1",
        "2000.00",
        "small_crystal_owl",
        "000_90d7c8192601ed3a.txt §4.11.3",
    )
    numbers = db.session.scalars(db.select(GiftAgreement.number).order_by(GiftAgreement.seq)).all()
    assert numbers == [f"2023-{n:04d}" for n in range(1, 9)]
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_participant_of_series", "recipient": TEAM[0], "team": TEAM},
    )
    assert r.status_code == 409
    assert r.json["error"]["rule"] == "000_90d7c8192601ed3a.txt §4.11.2"


def test_year_final_won_and_lost(app, api, played):
    won = played("year_final", EXPERTS_WIN)
    r = api(
        "post",
        f"/api/v1/games/{won}/prizes",
        role="producer",
        json={"kind": "best_expert_of_year", "recipient": "максим  поташев", "team": TEAM},
    )
    [p] = r.json["prizes"]
    assert (p["author"], p["amount"], p["currency"], p["trophy"], p["rule"]) == (
        "максим поташев",
        "2000.00",
        "BYN",
        "big_crystal_owl",
        "000_90d7c8192601ed3a.txt §4.11.4",
    )
    lost = played("year_final", VIEWERS_WIN, name="Сезон 2024")
    api("post", f"/api/v1/games/{lost}/close", role="producer")
    author = db.session.scalar(db.select(Author).where(Author.name == "Автор 15"))
    r = api(
        "post",
        f"/api/v1/games/{lost}/prizes",
        role="producer",
        json={"kind": "best_author_of_year", "author_id": author.id},
    )
    [p] = r.json["prizes"]
    assert (p["author"], p["amount"], p["trophy"], p["rule"]) == (
        "Автор 15",
        "2000.00",
        "big_crystal_owl",
        "000_90d7c8192601ed3a.txt §4.11.5",
    )


def test_special_game_200_to_each_expert(app, api, played):
    game = played("special", VIEWERS_WIN)
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "special_game_expert", "team": TEAM},
    )
    assert r.status_code == 201, r.json
    assert [(p["author"], p["amount"], p["currency"], p["rule"]) for p in r.json["prizes"]] == [
        (name, "200.00", "BYN", "000_90d7c8192601ed3a.txt §4.11.6") for name in TEAM
    ]
    again = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "special_game_expert", "team": TEAM},
    )
    assert again.json["prizes"] == r.json["prizes"]
    assert count(Prize) == 6 and count(GiftAgreement) == 0


def test_2009_prizes(app, api, played):
    game = played("series_final", EXPERTS_WIN, ruleset="2009", unanswered_prize="41000.00")
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_player_of_game", "recipient": "Ровшан Аскеров", "team": TEAM},
    )
    # no audience vote was held for this game: only the sponsor's representative decides
    # (§3.1 «в отдельных случаях»), with a reason (tests/webapp/votes/test_vote_result.py)
    assert r.status_code == 409
    assert r.json["error"]["rule"] == "002_e025d5ded135c1c4.txt §3.1"
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={
            "kind": "best_player_of_game",
            "recipient": "Ровшан Аскеров",
            "team": TEAM,
            "reason": "голосование не проводилось",
        },
    )
    [p] = r.json["prizes"]
    assert (p["amount"], p["currency"], p["rule"]) == (None, "RUB", "002_e025d5ded135c1c4.txt §3.1")
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_player_of_series", "recipient": "Ровшан Аскеров", "team": TEAM},
    )
    [p] = r.json["prizes"]
    assert (p["amount"], p["currency"], p["trophy"], p["rule"]) == (
        "300000.00",
        "RUB",
        "crystal_owl",
        "002_e025d5ded135c1c4.txt §3.2",
    )
    year = played("year_final", EXPERTS_WIN, ruleset="2009", name="Сезон 2010")
    r = api(
        "post",
        f"/api/v1/games/{year}/prizes",
        role="producer",
        json={"kind": "best_player_of_year", "recipient": "Ровшан Аскеров", "team": TEAM},
    )
    [p] = r.json["prizes"]
    assert (p["amount"], p["trophy"], p["rule"]) == (
        "1000000.00",
        "diamond_owl",
        "002_e025d5ded135c1c4.txt §3.3",
    )
    r = api(
        "post",
        f"/api/v1/games/{year}/prizes",
        role="producer",
        json={"kind": "best_expert_of_year", "recipient": "Ровшан Аскеров", "team": TEAM},
    )
    assert r.status_code == 409
    assert r.json["error"]["rule"] == "000_90d7c8192601ed3a.txt §4.11.4"


def test_2009_unanswered_prize_is_the_season_amount(app, api, played):
    game = played("qualifying", VIEWERS_WIN, ruleset="2009", unanswered_prize="41000.00")
    closed = api("post", f"/api/v1/games/{game}/close", role="producer").json["prizes"]
    assert sorted(p["amount"] for p in closed) == ["20500.00", "20500.00"] + ["41000.00"] * 5
    assert {p["currency"] for p in closed} == {"RUB"}
    amounts = db.session.scalars(db.select(Prize.amount)).all()
    assert sum(amounts) == Decimal("246000.00")  # 6 questions × 41 000,00


def test_award_page_for_producer(app, login, played):
    game = played("series_final", EXPERTS_WIN)
    client = login("producer")
    page = client.get(f"/prizes/games/{game}/award")
    assert page.status_code == 200
    assert "Лучший участник серии" in page.text
    r = client.post(
        f"/prizes/games/{game}/award",
        data={
            "kind": "best_participant_of_series",
            "recipient": "<b>Чужой</b>",
            "team": "\n".join(TEAM),
            "author_id": "0",
        },
    )
    assert r.status_code == 409
    assert "&lt;b&gt;Чужой&lt;/b&gt;" in r.text and "<b>Чужой</b>" not in r.text
    assert "п. 4.11.2 Правил сезона 2023 г." in r.text
    assert "000_90d7c8192601ed3a.txt" not in r.text  # the rule book's file name is internal
    r = client.post(
        f"/prizes/games/{game}/award",
        data={
            "kind": "best_participant_of_series",
            "recipient": "Илья Новиков",
            "team": "\n".join(TEAM),
            "author_id": "0",
        },
        follow_redirects=True,
    )
    assert r.status_code == 200 and "Присуждено призов: 1." in r.text
    assert count(Prize) == 1
    history = db.session.scalars(db.select(PrizeStatusChange)).all()
    assert [(h.from_status, h.to_status) for h in history] == [(None, "owed")]
    # the rule shows as staff read it, on the award page and the prize page
    prize = db.session.scalars(db.select(Prize)).one()
    for url in (f"/prizes/games/{game}/award", f"/prizes/{prize.id}"):
        text = client.get(url).text
        assert "п. 4.11.2 Правил сезона 2023 г." in text, url
        assert "000_90d7c8192601ed3a.txt" not in text, url


def test_closing_a_game_on_the_page_asks_for_confirmation(app, login, played):
    # closing creates prizes and numbered agreements — never on a bare click
    game = played("qualifying", VIEWERS_WIN)
    client = login("producer")
    page = client.get(f"/games/{game}").text
    assert 'name="confirm"' in page and "отменить это нельзя" in page
    r = client.post(f"/prizes/close/{game}", follow_redirects=True)
    assert r.status_code == 200
    assert "Игра не закрыта: Подтвердите закрытие игры: отметьте галочку." in r.text
    assert count(Prize) == 0 and count(GiftAgreement) == 0
    assert db.session.get(Game, game).status == "finished"
    r = client.post(f"/prizes/close/{game}", data={"confirm": "y"}, follow_redirects=True)
    # six unanswered questions; the first has two co-authors
    assert "Игра закрыта. Призов: 7." in r.text
    db.session.expire_all()
    assert db.session.get(Game, game).status == "closed"
    assert count(Prize) == 7


def test_the_game_page_previews_the_outcomes_and_prizes_before_closing(app, login, played):
    """Before the irreversible close the producer sees each question's outcome and every
    prize owed (author, amount, total), the same as closing then records; the close is the
    rendered form with its confirmation ticked."""
    import re

    from tests.forms import page_forms

    game = played("qualifying", VIEWERS_WIN)
    client = login("producer")
    page = client.get(f"/games/{game}").text
    preview = page.split('<section id="close-preview">', 1)[1].split("</section>", 1)[0]
    assert "Закрытие нельзя отменить" in preview and "(п. 4.11.1 Правил сезона 2023 г.)" in preview

    def rows(table_id: str) -> list[list[str]]:
        body = preview.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
        return [
            re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body)[1:]
        ]

    outcomes = rows("close-outcomes")
    assert [(r[0], r[1], r[3]) for r in outcomes] == [
        (str(s), "1", "не взят: автору положен приз") for s in range(1, 7)
    ] + [(str(s), "1", "не сыгран: вернётся в пул") for s in range(7, 14)]
    prizes = rows("close-prizes")
    *owed, total = prizes
    assert len(owed) == 7  # six unanswered questions; the first has two co-authors
    assert [r[0] for r in owed] == ["1", "1", "2", "3", "4", "5", "6"]

    form = next(f for f in page_forms(page) if f.attrs.get("id") == "close-game")
    r = client.post(form.action, data={**form.fields, "confirm": "y"}, follow_redirects=True)
    assert "Игра закрыта. Призов: 7." in r.text
    db.session.expire_all()
    closed = db.session.scalars(db.select(Prize).order_by(Prize.id)).all()
    shown = [(r[2], r[3].replace("\xa0", " ")) for r in owed]
    assert shown == [
        (
            next(a.display for a in p.question.author_list if a.id == p.author_id),
            f"{p.amount:.2f} {p.currency}".replace(".", ","),
        )
        for p in closed
    ]
    assert sum(p.amount for p in closed) == Decimal("1800.00")  # 6 × 300,00 BYN
    assert total == ["Всего призов: 7", "1\xa0800,00\xa0BYN"]
    # closed: no preview any more
    assert 'id="close-preview"' not in client.get(f"/games/{game}").text


def test_a_prize_pays_the_amount_the_season_page_set_and_keeps_it(app, api, login, played):
    """The producer changes the season's series-final amount on the season page (the form
    it renders): the prize awarded next pays the new amount; a later change leaves it as
    awarded (2023 §4.11.2; the season's amounts: ``season_amount``)."""
    from tests.forms import get_page, submit_form

    game = played("series_final", EXPERTS_WIN)
    season_id = db.session.get(Game, game).season_id
    client = login("producer")
    url = f"/games/seasons/{season_id}"

    def set_series_final(amount: str) -> None:
        # this app has CSRF off: no token names the form's prefix, so the field is named whole
        typed = {"amounts-series_final": amount}
        answer = submit_form(client, get_page(client, url), "amounts-form", url, True, **typed)
        assert "Суммы призов сезона: Приз финала серии" in get_page(
            client, answer.headers["Location"]
        )

    set_series_final("2 500,00")
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_participant_of_series", "recipient": "Илья Новиков", "team": TEAM},
    )
    assert r.status_code == 201, r.json
    assert [(p["amount"], p["currency"]) for p in r.json["prizes"]] == [("2500.00", "BYN")]
    set_series_final("3 000,00")
    db.session.expire_all()
    assert db.session.scalars(db.select(Prize.amount)).all() == [Decimal("2500.00")]


def test_the_best_player_is_not_awarded_without_the_game_s_vote_handed_in(app, played):
    """The vote belongs to the votes feature, above prizes: every caller hands it in
    (``webapp.votes.queries.best_player_vote``); forgetting it fails loudly, writing
    nothing, instead of awarding as if no vote had been held."""
    from webapp.prizes.operations import award_prize

    game_id = played("series_final", EXPERTS_WIN, ruleset="2009", unanswered_prize="41000.00")
    game = db.session.get(Game, game_id)
    with pytest.raises(TypeError, match="needs the game's vote handed in"):
        award_prize(game, "best_player_of_game", None, recipient="Ровшан Аскеров", team=TEAM)
    assert db.session.scalar(db.select(db.func.count()).select_from(Prize)) == 0
