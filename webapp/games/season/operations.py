"""Seasons, teams, series and games: creating them and attaching a game to its team and
series (before its first event). A new game and a changed team pass the season's rules first
(:func:`webapp.games.season.refusals.check_new_game`). Operations only flush."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from webapp.core.models import utcnow
from webapp.domain.books import BOOKS, Book, book, rule_reference
from webapp.domain.donor import Donor, check_donor, quoted
from webapp.domain.game_states import INITIAL_STATE
from webapp.domain.money import CURRENCIES
from webapp.domain.rules.game import same_name
from webapp.domain.text import quantity
from webapp.extensions import db
from webapp.games.game_rules import plan_errors
from webapp.games.models import (
    GAME_KINDS,
    SERIES_PARTS,
    TEAM_SIZE,
    Game,
    Season,
    Series,
    Team,
    default_air_at,
)
from webapp.games.operations.air import air_time_utc
from webapp.games.operations.common import (
    FIRST_AIR_YEAR,
    LAST_AIR_YEAR,
    SECTORS,
    GameConflict,
    GameError,
    amount_or_error,
    bad_line_chars,
)
from webapp.games.season import queries as sq
from webapp.games.season.models import (
    SeasonAmountChange,
    SeasonDonorChange,
    SeasonPrizeChange,
)
from webapp.games.season.refusals import check_new_game


def create_season(
    name: str,
    ruleset: str,
    currency: str | None = None,
    timezone: str | None = None,
    unanswered_prize=None,
    form: bool = False,
    prize_required: bool = False,
    donor: dict | None = None,
) -> Season:
    """A season playing by ``ruleset`` (a name in :data:`~webapp.domain.books.BOOKS`). Currency and time zone default
    to the rule book's (BYN / Europe/Minsk; RUB / Europe/Moscow); the prize per unanswered
    question defaults to 300.00 for 2023 (000_90d7c8192601ed3a.txt §4.11.1); a given
    ``currency`` must be the rule book's. ``unanswered_prize``: str/int/float parsed by
    :func:`webapp.domain.money.parse_amount` (``form=True``: typed into the web form, so a
    decimal comma and spaces are accepted). ``prize_required`` (the web form): a rule set
    whose book names no amount (2009 §1.2.2) needs ``unanswered_prize``, else its games
    could not be closed. The name must be new (two seasons of one name would look the same
    in every dropdown). ``donor``: ``{name, city, details?, representative?}``
    (:func:`webapp.domain.donor.check_donor`; errors under ``donor.<field>``), by default
    the rule set's (:func:`webapp.games.season.queries.default_donor`: the
    ``SOVA_BROADCASTER_*`` settings for 2023, the neutral 2009 default, never the 2023
    broadcaster for 2009). Raises GameError (Russian messages)."""
    errors: dict[str, list[str]] = {}
    name = (name or "").strip()
    if not name or len(name) > 200:
        errors.setdefault("name", []).append("от 1 до 200 символов")
    elif bad_line_chars(name):
        errors.setdefault("name", []).append("недопустимые управляющие символы")
    elif db.session.scalar(db.select(Season.id).where(Season.name == name)) is not None:
        # two seasons of one name could not be told apart in the dropdowns
        errors.setdefault("name", []).append("сезон с таким названием уже есть")
    if ruleset not in BOOKS:
        errors.setdefault("ruleset", []).append(" или ".join(f"«{name}»" for name in BOOKS))
        raise GameError(errors)
    played = book(ruleset)
    default_currency, default_tz = played.currency, played.timezone
    currency = currency or default_currency
    if currency not in CURRENCIES:
        errors.setdefault("currency", []).append(" или ".join(f"«{c}»" for c in CURRENCIES))
    elif currency != default_currency:
        # The rule book fixes the currency (RuleSet.currency cites the clause).
        errors.setdefault("currency", []).append(
            f"по правилам {ruleset} призы выплачиваются в {default_currency}"
        )
    timezone = timezone or default_tz
    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        errors.setdefault("timezone", []).append(f"неизвестный часовой пояс «{timezone}»")
    prize = amount_or_error(unanswered_prize, "unanswered_prize", errors, form=form)
    if (
        prize_required
        and prize is None
        and "unanswered_prize" not in errors
        and played.unanswered_prize is None
    ):
        errors.setdefault("unanswered_prize", []).append(_prize_missing(played))
    chosen: Donor | None = None
    if donor is not None:
        chosen, donor_errors = check_donor(
            donor.get("name"),
            donor.get("city"),
            donor.get("details") or "",
            donor.get("representative") or "",
        )
        for field, messages in donor_errors.items():
            errors.setdefault(f"donor.{field}", []).extend(messages)
    if errors:
        raise GameError(errors)
    if chosen is None:
        chosen = sq.default_donor(ruleset)
    season = Season(
        name=name,
        ruleset=ruleset,
        donor_name=chosen.name,
        donor_city=chosen.city,
        donor_details=chosen.details,
        donor_representative=chosen.representative,
        currency=currency,
        timezone=timezone,
        unanswered_prize=prize if prize is not None else played.unanswered_prize,
    )
    # the individual prizes' amounts: one row per amount the book's prizes pay, its default
    for key, amount in played.amounts.items():
        season.set_prize_amount(key, amount.default)
    db.session.add(season)
    db.session.flush()
    return season


def _prize_missing(played: Book) -> str:
    return (
        f"укажите сумму: в правилах {played.name} г. её нет "
        f"({rule_reference(played.unanswered_rule)}), её назначает продюсер"
    )


def set_unanswered_prize(season: Season, amount, user_id: int | None) -> Season:
    """The producer sets or changes the season's cash prize per unanswered question (typed
    into the season page: a decimal comma and spaces are accepted; 2009 §1.2.2 names no
    amount, 2023 §4.11.1 names 300,00). Only while no game of the season is closed: the
    closed games' prizes were made with the amount (GameConflict). Each change is audited
    (:class:`~webapp.games.season.models.SeasonPrizeChange`: who, when, old → new). Setting
    the amount it already has changes and records nothing. Raises GameError."""
    errors: dict[str, list[str]] = {}
    prize = amount_or_error(amount, "unanswered_prize", errors, form=True)
    if prize is None and not errors:
        errors["unanswered_prize"] = ["укажите сумму, например 1000,00"]
    if errors:
        raise GameError(errors)
    closed = db.session.scalar(
        db.select(db.func.count())
        .select_from(Game)
        .where(Game.season_id == season.id, Game.status == "closed")
    )
    if closed:
        raise GameConflict(
            f"в сезоне «{season.name}» уже закрыто игр: {closed}; их призы начислены "
            "по прежней сумме, приз за невзятый вопрос больше не меняется"
        )
    if season.unanswered_prize == prize:
        return season
    db.session.add(
        SeasonPrizeChange(
            season_id=season.id,
            old_amount=season.unanswered_prize,
            new_amount=prize,
            by_user_id=user_id,
            at=utcnow(),
        )
    )
    season.unanswered_prize = prize
    db.session.flush()
    return season


def set_prize_amounts(
    season: Season, values: Mapping[str, object], user_id: int | None
) -> list[str]:
    """The producer sets the amounts of the season's individual prizes (typed into the
    season page, checked as the prize per unanswered question is: a decimal comma and
    spaces accepted, required, :func:`~webapp.games.operations.common.amount_or_error`).
    ``values``: ``{amount key: amount}`` for keys of the season's book (``Book.amounts``;
    a key the book does not have is refused). All or nothing: one bad value refuses the
    whole change (GameError keyed by the amount key). Each changed amount is audited
    (:class:`~webapp.games.season.models.SeasonAmountChange`: which, who, when, old → new);
    an amount typed as it is changes and records nothing. A prize already awarded keeps
    the amount it was made with (``Prize.amount``): only later awards read the new one.
    Returns the keys changed, in the book's order."""
    amounts = season.book.amounts
    errors: dict[str, list[str]] = {}
    parsed: dict[str, Decimal] = {}
    for key, value in values.items():
        if key not in amounts:
            errors[key] = [f"в правилах {season.book.name} г. нет такой суммы призов"]
            continue
        amount = amount_or_error(value, key, errors, form=True)
        if amount is None and key not in errors:
            errors[key] = ["укажите сумму, например 1000,00"]
        elif amount is not None:
            parsed[key] = amount
    if errors:
        raise GameError(errors)
    at = utcnow()
    changed = []
    for key in amounts:
        if key not in parsed or season.prize_amount(key) == parsed[key]:
            continue
        db.session.add(
            SeasonAmountChange(
                season_id=season.id,
                amount_key=key,
                old_amount=season.prize_amount(key),
                new_amount=parsed[key],
                by_user_id=user_id,
                at=at,
            )
        )
        season.set_prize_amount(key, parsed[key])
        changed.append(key)
    db.session.flush()
    return changed


#: What the prizes feature does when a season's donor changed, handed in by the caller
#: (``webapp.prizes.operations.reissue_for_new_donor``: games never import prizes):
#: ``reissue(season, user_id)`` issues the season's unsigned gift agreements again and
#: returns how many.
DonorReissue = Callable[[Season, int | None], int]


def _refuse_the_old_donors_papers(before: Donor, donor: Donor) -> None:
    """A new donor (another name) whose details or signatory are still the old donor's, word
    for word, is refused: the form starts from the old donor, and a new name typed over it
    alone would print the old donor's bank account and signatory on the new donor's gift
    agreements. GameError on ``donor.details`` / ``donor.representative``."""
    if " ".join(before.name.split()).casefold() == " ".join(donor.name.split()).casefold():
        return
    errors = {
        f"donor.{field}": [
            f"это {what} прежнего дарителя ({before.name}): впишите {whom} нового "
            "дарителя или очистите поле"
        ]
        for field, what, whom, old, new in (
            ("details", "реквизиты", "реквизиты", before.details, donor.details),
            (
                "representative",
                "представитель",
                "представителя",
                before.representative,
                donor.representative,
            ),
        )
        if old.strip() and old.strip() == new.strip()
    }
    if errors:
        raise GameError(errors)


def set_donor(
    season: Season, values: dict, user_id: int | None, reissue: DonorReissue
) -> tuple[Season, int]:
    """The producer sets or changes the donor of the season's prizes (the season page):
    ``values`` ``{name, city, details, representative}`` checked by
    :func:`webapp.domain.donor.check_donor` (GameError with the field's message). Audited
    (:class:`~webapp.games.season.models.SeasonDonorChange`: who, when, before and after);
    the season's unsigned gift agreements are issued again with the new donor by
    ``reissue`` (signed ones keep the donor they were signed with). Setting the
    donor it already has changes and records nothing. Returns ``(season, reissued)``."""
    donor, errors = check_donor(
        values.get("name"),
        values.get("city"),
        values.get("details") or "",
        values.get("representative") or "",
    )
    if errors or donor is None:
        raise GameError({f"donor.{field}": messages for field, messages in errors.items()})
    before = sq.season_donor(season)
    if before == donor and season.donor_name:
        return season, 0
    _refuse_the_old_donors_papers(before, donor)
    season.donor_name, season.donor_city = donor.name, donor.city
    season.donor_details, season.donor_representative = donor.details, donor.representative
    db.session.flush()
    reissued = reissue(season, user_id)
    db.session.add(
        SeasonDonorChange(
            season_id=season.id,
            old=before.to_json(),
            new=donor.to_json(),
            reissued=reissued,
            by_user_id=user_id,
            at=utcnow(),
        )
    )
    db.session.flush()
    return season, reissued


def validate_table(table: dict | None, ruleset: str) -> dict:
    """Check a table plan ``{"blitz", "superblitz", "sector13"}`` (each 1..13 or None,
    distinct) and against the rule book (:func:`webapp.domain.rules.check_plan`: 2009
    sector 13 is the 13th, blitz and superblitz among the other twelve). Raises GameError."""
    table = dict(table or {})
    errors: dict[str, list[str]] = {}
    plan = {}
    for key in ("blitz", "superblitz", "sector13"):
        value = table.get(key)
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value not in SECTORS
        ):
            errors.setdefault(f"table.{key}", []).append("сектор от 1 до 13 или пусто")
            value = None
        plan[key] = value
    used = [v for v in plan.values() if v is not None]
    if len(used) != len(set(used)):
        errors.setdefault("table", []).append(
            "у блица, суперблица и 13 сектора должны быть разные сектора"
        )
    unknown = set(table) - set(plan)
    if unknown:
        errors.setdefault("table", []).append(f"неизвестные ключи: {', '.join(sorted(unknown))}")
    if not errors and ruleset in BOOKS:
        errors.update(plan_errors(plan, ruleset))  # 2009 §1.3, §1.4.2–1.4.3 (check_plan)
    if errors:
        raise GameError(errors)
    return plan


#: Experts as a count (:func:`webapp.domain.text.quantity`).
EXPERTS = ("знаток", "знатока", "знатоков")


def create_team(name: str, captain: str, experts: list[str]) -> Team:
    """A team of experts: ``experts`` is six distinct names (blank entries ignored), the
    ``captain`` one of them (000_90d7c8192601ed3a.txt §3.4.2, §3.4.3). Raises GameError."""
    errors: dict[str, list[str]] = {}
    name = (name or "").strip()
    captain = (captain or "").strip()
    names = [(e or "").strip() for e in (experts or []) if (e or "").strip()]
    if not name or len(name) > 200:
        errors.setdefault("name", []).append("от 1 до 200 символов")
    elif bad_line_chars(name):
        errors.setdefault("name", []).append("недопустимые управляющие символы")
    elif db.session.scalar(db.select(Team.id).where(Team.name == name)) is not None:
        errors.setdefault("name", []).append("команда с таким названием уже есть")
    repeated = list(dict.fromkeys(n for n in names if names.count(n) > 1))
    if repeated:
        errors.setdefault("experts", []).append(
            "каждый знаток — один раз, а повторены: " + ", ".join(repeated)
        )
    if len(set(names)) != TEAM_SIZE:
        errors.setdefault("experts", []).append(
            f"в команде {quantity(TEAM_SIZE, EXPERTS)}, а названо {len(set(names))}"
        )
    if any(len(n) > 100 for n in names):
        errors.setdefault("experts", []).append("имя — не длиннее 100 символов")
    if any(bad_line_chars(n) for n in names) or bad_line_chars(captain):
        errors.setdefault("experts", []).append("недопустимые управляющие символы")
    if not captain or captain not in names:
        errors.setdefault("captain", []).append("капитан — один из шести знатоков")
    if errors:
        raise GameError(errors)
    team = Team(name=name, captain=captain, experts=names, created_at=utcnow())
    db.session.add(team)
    db.session.flush()
    return team


def create_series(season_id: int, part: str) -> Series:
    """The season's ``part`` series (spring/summer/autumn/winter, 000_90d7c8192601ed3a.txt
    §4.1); returns the existing one if it was created before. Raises GameError."""
    errors: dict[str, list[str]] = {}
    season = db.session.get(Season, season_id) if isinstance(season_id, int) else None
    if season is None:
        errors.setdefault("season_id", []).append("нет такого сезона")
    if part not in SERIES_PARTS:
        errors.setdefault("part", []).append(f"одна из: {', '.join(SERIES_PARTS)}")
    if errors:
        raise GameError(errors)
    series = db.session.scalar(db.select(Series).filter_by(season_id=season_id, part=part))
    if series is None:
        series = Series(season_id=season_id, part=part, created_at=utcnow())
        db.session.add(series)
        db.session.flush()
    return series


def _team_and_series(
    season: Season | None, team_id, series_id, errors: dict[str, list[str]]
) -> tuple[Team | None, Series | None]:
    team = series = None
    if team_id is not None:
        team = db.session.get(Team, team_id) if isinstance(team_id, int) else None
        if team is None:
            errors.setdefault("team_id", []).append("нет такой команды")
    if series_id is not None:
        series = db.session.get(Series, series_id) if isinstance(series_id, int) else None
        if series is None:
            errors.setdefault("series_id", []).append("нет такой серии")
        elif season is not None and series.season_id != season.id:
            errors.setdefault("series_id", []).append("серия другого сезона")
    return team, series


def _season_team_named(season: Season, name: str, errors: dict[str, list[str]]) -> Team | None:
    """The team of ``season``'s rating called ``name``, else an error on ``team`` naming the
    season. Names are compared as :func:`same_name` does: Unicode NFC, case and runs of white
    space aside («королёва» is «Королёва»); «ё» and «е» stay different letters (the teams
    are named after their captains, and a surname is spelt with one or the other)."""
    for st in sq.season_teams(season):
        if same_name(st.team.name, name):
            return st.team
    errors.setdefault("team", []).append(
        f"{quoted(name)} не в рейтинге сезона {quoted(season.name)}: "
        "игру сезона играет команда из его рейтинга"
    )
    return None


def _open_series(season: Season) -> Series | None:
    """The Series row of the series open in a season kept by the engine (a new game counts
    in it), else None."""
    if not sq.managed(season):
        return None
    eng = sq.engine(season)
    return create_series(season.id, eng.series.part) if eng.series is not None else None


def attach(game: Game, team_id: int | None, series_id: int | None) -> Game:
    """Set the game's team and series (None detaches). The free-text ``team`` follows the
    team's name when a team is attached. Only before the first event: the context of a
    recorded game must not change under it (GameConflict). Raises GameError."""
    if game.events or game.status in ("finished", "closed"):
        raise GameConflict(f"в игре {game.id} уже записаны события: команду и серию не изменить")
    errors: dict[str, list[str]] = {}
    team, series = _team_and_series(game.season, team_id, series_id, errors)
    if errors:
        raise GameError(errors)
    check_new_game(game.season, game.kind, team)  # the season's rules (SeasonConflict)
    game.team_id = team.id if team else None
    game.series_id = series.id if series else None
    if team is not None:
        game.team = team.name
    db.session.flush()
    return game


def create_game(
    season_id: int,
    kind: str,
    air_date: date,
    table: dict | None,
    team: str | None = None,
    title: str | None = None,
    team_id: int | None = None,
    series_id: int | None = None,
    air_at: datetime | None = None,
) -> Game:
    """A game of a season with its table plan; optionally of a team (``team_id``; ``team``
    stays a free string and defaults to the team's name) and a series of the same season
    (default in a season kept by the engine: the series open now, which the game counts in).
    ``air_date`` in 1975..2100; ``team`` and ``title`` without control characters
    (:func:`bad_line_chars`). ``air_at``: when the game airs (aware; a naive time is read
    in the season's zone), default ``air_date`` at 00:00 in the season's zone
    (:func:`webapp.games.models.default_air_at`). Raises GameError (unknown season, kind,
    team, series…)."""
    errors: dict[str, list[str]] = {}
    season = db.session.get(Season, season_id) if isinstance(season_id, int) else None
    if season is None:
        errors.setdefault("season_id", []).append("нет такого сезона")
    team_row, series = _team_and_series(season, team_id, series_id, errors)
    if kind not in GAME_KINDS:
        errors.setdefault("kind", []).append(f"один из: {', '.join(GAME_KINDS)}")
    if not isinstance(air_date, date):
        errors.setdefault("date", []).append("дата ГГГГ-ММ-ДД")
    elif not FIRST_AIR_YEAR <= air_date.year <= LAST_AIR_YEAR:
        errors.setdefault("date", []).append(
            f"дата эфира — с {FIRST_AIR_YEAR} по {LAST_AIR_YEAR} год"
        )
    if air_at is not None and season is not None:
        air_at = air_time_utc(air_at, season, errors)
    team = (team or "").strip() or None
    if team is not None and bad_line_chars(team):
        errors.setdefault("team", []).append("недопустимые управляющие символы")
    if title and bad_line_chars(title):
        errors.setdefault("title", []).append("недопустимые управляющие символы")
    if team is not None and team_row is None and season is not None and sq.managed(season):
        # a team named in a season kept by the engine is that season's team, checked by its
        # rules like a team chosen from the list (not a free string beside the engine)
        team_row = _season_team_named(season, team, errors)
        if team_row is not None:
            team = team_row.name  # the season's spelling
    if errors:
        raise GameError(errors)
    assert season is not None  # else errors named season_id
    plan = validate_table(table, season.ruleset)
    check_new_game(season, kind, team_row)  # the season's rules (SeasonConflict)
    if not team and team_row is not None:
        team = team_row.name
    if series is None:
        series = _open_series(season)
    game = Game(
        season_id=season.id,
        kind=kind,
        air_date=air_date,
        air_at=air_at or default_air_at(air_date, season.timezone),
        air_time_given=air_at is not None,
        team=(team or None),
        team_id=team_row.id if team_row else None,
        series_id=series.id if series else None,
        title=(title or "").strip()[:200],
        table_blitz=plan["blitz"],
        table_superblitz=plan["superblitz"],
        table_sector13=plan["sector13"],
        status=INITIAL_STATE,
        created_at=utcnow(),
    )
    db.session.add(game)
    db.session.flush()
    return game
