"""Money and times as every page prints them: «1 800,00 BYN» with
no-break spaces (Babel's ru pattern), times in the season's zone (Europe/Minsk for the 2023
book, Europe/Moscow for 2009), one date format (``webapp.core.formats``)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from tests.helpers import VIEWERS_WIN
from webapp.core.formats import money, number, percent, when
from webapp.extensions import db
from webapp.prizes.models import Prize, PrizeStatusChange
from webapp.tasks.outbox import commit

NB = "\u00a0"


@pytest.mark.parametrize(
    ("amount", "currency", "expected"),
    [
        ("1800", "BYN", f"1{NB}800,00{NB}BYN"),
        ("300", None, "300,00"),
        ("300000.5", "RUB", f"300{NB}000,50{NB}RUB"),
        ("0", "BYN", f"0,00{NB}BYN"),
    ],
)
def test_money(amount: str, currency: str | None, expected: str) -> None:
    assert money(Decimal(amount), currency) == expected


def test_money_refuses_a_float() -> None:
    with pytest.raises(TypeError):
        money(1800.0, "BYN")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ratio", "locale", "expected"),
    [
        (1.0, "ru", f"100{NB}%"),
        (0.667, "ru", f"66,7{NB}%"),
        (0.5, "be", f"50{NB}%"),
        (0.667, "en", "66.7%"),
        (None, "ru", "—"),
    ],
)
def test_percent(ratio: float | None, locale: str, expected: str) -> None:
    assert percent(ratio, locale=locale) == expected


def test_number() -> None:
    assert (number(0.0), number(1234.5), number(3, 0), number(None)) == (
        "0,0",
        f"1{NB}234,5",
        "3",
        "—",
    )
    assert number(1234.5, locale="en") == "1,234.5"


def test_when_in_the_season_zone() -> None:
    noon_utc = datetime(2023, 3, 4, 12, 0, tzinfo=UTC)
    assert when(noon_utc, "Europe/Minsk") == "04.03.2023 15:00"
    # 2009: Moscow still had summer time (UTC+4 in July)
    assert when(datetime(2009, 7, 4, 12, 0, tzinfo=UTC), "Europe/Moscow") == "04.07.2009 16:00"
    assert when(date(2023, 3, 4)) == when("2023-03-04") == "04.03.2023"
    assert when(None) == "—"
    with pytest.raises(ValueError):
        when(datetime(2023, 3, 4, 12, 0))


def test_a_day_prints_as_babel_prints_it_every_time() -> None:
    """A calendar day, in each of the pages' languages, is Babel's own ``dd.MM.yyyy``, the
    first time and when asked again."""
    from datetime import timedelta

    from babel.dates import format_date

    for locale in ("ru", "be", "en"):
        for n in range(0, 800, 7):
            day = date(2025, 12, 28) + timedelta(days=n)
            expected = format_date(day, "dd.MM.yyyy", locale=locale)
            assert when(day, locale=locale) == when(day, locale=locale) == expected
    assert when(date(987, 6, 5)) == "05.06.0987"


def test_prize_page_prints_money_and_minsk_time(app, api, played, login) -> None:
    """The producer's prize page: «Сумма: 1 800,00 BYN.» and the history time of a known
    UTC instant in the 2023 season's zone (Europe/Minsk, UTC+3), no «UTC»."""
    game = played("qualifying", VIEWERS_WIN)
    assert api("post", f"/api/v1/games/{game}/close", role="producer").status_code == 200
    prize = db.session.scalars(db.select(Prize).order_by(Prize.id)).first()
    prize.amount = Decimal("1800.00")
    change = db.session.scalars(
        db.select(PrizeStatusChange).where(PrizeStatusChange.prize_id == prize.id)
    ).first()
    change.created_at = datetime(2023, 12, 30, 21, 5, tzinfo=UTC)
    prize_id = prize.id
    commit()
    page = login("producer").get(f"/prizes/{prize_id}").get_data(as_text=True)
    assert f"Сумма: 1{NB}800,00{NB}BYN." in page
    assert "<tr><td>31.12.2023 00:05</td>" in page
    assert "UTC" not in page
    listing = login("producer").get(f"/prizes/?game_id={game}").get_data(as_text=True)
    assert f"1{NB}800,00{NB}BYN" in listing


def test_clip_cuts_at_a_word_and_ends_with_one_ellipsis():
    from webapp.core.formats import clip

    text = "Ветер стих, и наступила спокойную погоду. Что дальше было с лодкой рыбака?"
    assert clip(text, 200) == text
    assert clip(text, 42) == "Ветер стих, и наступила спокойную погоду…"
    assert clip(text, 13) == "Ветер стих…"
    assert clip("Раздаточныйматериалбезпробелов", 10) == "Раздаточн…"
    assert clip(None, 10) == ""
