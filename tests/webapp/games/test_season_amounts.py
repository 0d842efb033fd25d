"""The amounts of a season's individual prizes (2023 §4.11.2–§4.11.6, 2009 §3.1–§3.3; the
keys and labels are the book's ``Book.amounts``) set by the producer on the season page, in
the form the page renders (CSRF on): one field per amount of the season's book, checked as
the prize per unanswered question is, confirmed by a box, all or nothing, each changed
amount audited (who, when, before, after)."""

from __future__ import annotations

import html
from decimal import Decimal

import pytest

from tests.forms import form_fields, get_page, signed_in, submit_form
from webapp.accounts.models import User
from webapp.accounts.operations import create_user
from webapp.extensions import db
from webapp.games.models import Season
from webapp.games.operations.common import GameError
from webapp.games.season.models import SeasonAmountChange
from webapp.games.season.operations import create_season, set_prize_amounts
from webapp.tasks.outbox import commit

NBSP = "\u00a0"
SERIES = "Приз финала серии (Малая Хрустальная Сова)"
YEAR = "Приз финала года (Большая Хрустальная Сова)"
SPECIAL = "Вознаграждение каждому участнику специальной игры"
#: the 2023 book's amounts (b2023/prizes.py), a new season's
BOOK_2023 = {
    "series_final": Decimal("2000.00"),
    "year_final": Decimal("2000.00"),
    "special_game": Decimal("200.00"),
}


@pytest.fixture
def csrf_app(make_app):
    """An app with CSRF on (the token posted is the one the page renders), inside its app
    context as the form helpers of ``tests.forms`` want it."""
    app = make_app()
    with app.app_context():
        yield app


def _signed_in(app, role: str):
    """A client of ``role`` signed in through the login form the page renders."""
    with app.app_context():
        create_user(f"{role}@test.local", role, password=f"{role}-pw")
        commit()
    client = signed_in(app, f"{role}@test.local", f"{role}-pw")
    assert client is not None
    return client


def _season(app, ruleset: str = "2023") -> int:
    with app.app_context():
        season = create_season(f"Сезон {ruleset}", ruleset, unanswered_prize="1000")
        commit()
        return season.id


def _amounts(season_id: int) -> dict[str, Decimal | None]:
    """The season's amounts as stored (the requests share this context's session: what they
    left open is ended first, so the rows are read afresh)."""
    db.session.rollback()
    return dict(db.session.get(Season, season_id).prize_amounts)


def _changes() -> list[tuple]:
    db.session.rollback()
    rows = db.session.scalars(db.select(SeasonAmountChange).order_by(SeasonAmountChange.id))
    return [(c.season_id, c.amount_key, c.old_amount, c.new_amount, c.by_user_id) for c in rows]


def _after(client, response) -> str:
    """The page the form's answer redirects to (post/redirect/get), with its flash."""
    assert response.status_code == 302, response.status_code
    return html.unescape(get_page(client, response.headers["Location"]))


def test_the_producer_changes_the_amounts_through_the_form_the_page_renders(csrf_app):
    app = csrf_app
    season_id = _season(app)
    producer = _signed_in(app, "producer")
    url = f"/games/seasons/{season_id}"
    page = get_page(producer, url)
    # one field per amount of the 2023 book, labelled as the book labels it, holding the amount
    fields = form_fields(page, f"{url}/amounts")
    assert fields.pop("amounts-csrf_token")
    assert fields == {
        "amounts-series_final": f"2{NBSP}000,00",
        "amounts-year_final": f"2{NBSP}000,00",
        "amounts-special_game": "200,00",
    }
    text = html.unescape(page)
    for key, label in (("series_final", SERIES), ("year_final", YEAR), ("special_game", SPECIAL)):
        assert f'<label for="amounts-{key}">{label} <span aria-hidden="true">*</span>' in text

    # a bad amount: the unanswered prize's message, named by the book's label; nothing
    # written, not even the other amount typed beside it
    answer = submit_form(
        producer, page, "amounts-form", url, tick=True, series_final="1e5", year_final="3000"
    )
    assert (
        f"Суммы призов не изменены: {SERIES}: Сумма цифрами, без степени: например "
        "100000,00, а не 1e5."
    ) in _after(producer, answer)
    assert _amounts(season_id) == BOOK_2023
    assert _changes() == []
    # an empty amount: the unanswered prize form's own words
    answer = submit_form(producer, page, "amounts-form", url, tick=True, year_final=" ")
    assert (f"Суммы призов не изменены: {YEAR}: укажите сумму, например 1000,00.") in _after(
        producer, answer
    )
    # the box not ticked
    answer = submit_form(producer, page, "amounts-form", url, series_final="2500")
    assert (
        "Суммы призов не изменены: Подтвердите изменение сумм призов: отметьте галочку."
    ) in _after(producer, answer)
    assert _amounts(season_id) == BOOK_2023
    assert _changes() == []

    # two amounts changed, the third typed as it is: two audit rows, one flash naming both
    answer = submit_form(
        producer, page, "amounts-form", url, tick=True, series_final="2 500,50", year_final="3000"
    )
    text = _after(producer, answer)
    assert (
        f"Суммы призов сезона: {SERIES} — 2{NBSP}500,50{NBSP}BYN; {YEAR} — 3{NBSP}000,00{NBSP}BYN."
    ) in text
    assert _amounts(season_id) == {
        "series_final": Decimal("2500.50"),
        "year_final": Decimal("3000.00"),
        "special_game": Decimal("200.00"),
    }
    producer_id = db.session.scalar(db.select(User.id).where(User.email == "producer@test.local"))
    assert _changes() == [
        (season_id, "series_final", Decimal("2000.00"), Decimal("2500.50"), producer_id),
        (season_id, "year_final", Decimal("2000.00"), Decimal("3000.00"), producer_id),
    ]
    assert (
        f"<td>producer@test.local</td><td>{SERIES}</td><td>2{NBSP}000,00{NBSP}BYN</td>"
        f"<td>2{NBSP}500,50{NBSP}BYN</td>"
    ) in text
    assert f'<li data-amount="series_final">{SERIES}: 2{NBSP}500,50{NBSP}BYN' in text

    # the same amounts again: nothing changes, nothing is recorded
    page = get_page(producer, url)
    answer = submit_form(producer, page, "amounts-form", url, tick=True)
    assert "Суммы призов не изменились." in _after(producer, answer)
    assert len(_changes()) == 2


def test_a_2009_season_shows_its_own_books_amounts(csrf_app):
    app = csrf_app
    season_id = _season(app, "2009")
    producer = _signed_in(app, "producer")
    url = f"/games/seasons/{season_id}"
    page = get_page(producer, url)
    fields = form_fields(page, f"{url}/amounts")
    assert fields.pop("amounts-csrf_token")
    assert fields == {
        "amounts-series_final": f"300{NBSP}000,00",
        "amounts-year_final": f"1{NBSP}000{NBSP}000,00",
    }
    assert (
        '<label for="amounts-series_final">Приз лучшему игроку серии (Хрустальная Сова) <span'
    ) in html.unescape(page)
    answer = submit_form(producer, page, "amounts-form", url, tick=True, year_final="1 500 000")
    assert (
        "Суммы призов сезона: Приз лучшему игроку года (Бриллиантовая сова) — "
        f"1{NBSP}500{NBSP}000,00{NBSP}RUB."
    ) in _after(producer, answer)
    assert _amounts(season_id)["year_final"] == Decimal("1500000.00")


def test_only_the_producer_changes_the_amounts(csrf_app):
    app = csrf_app
    season_id = _season(app)
    url = f"/games/seasons/{season_id}"
    clients = {role: _signed_in(app, role) for role in ("host", "accountant", "editor")}
    assert 'id="amounts-form"' not in get_page(clients["host"], url)
    for role, client in clients.items():
        answer = client.post(f"{url}/amounts", data={"amounts-series_final": "1"})
        assert answer.status_code == 403, role
    assert _amounts(season_id) == BOOK_2023
    assert _changes() == []


def test_the_operation_refuses_a_key_of_no_book_and_writes_nothing(app):
    season = create_season("Сезон 2023", "2023")
    with pytest.raises(GameError) as refused:
        set_prize_amounts(season, {"series_final": "2500", "toy_owl": "1"}, None)
    assert refused.value.errors == {"toy_owl": ["в правилах 2023 г. нет такой суммы призов"]}
    assert season.prize_amount("series_final") == Decimal("2000.00")
    assert db.session.scalar(db.select(db.func.count()).select_from(SeasonAmountChange)) == 0
