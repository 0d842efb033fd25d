"""Writes for game day: seasons, games, the table, envelopes, recorded events."""

from __future__ import annotations

import random
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from webapp.core.models import Document, utcnow
from webapp.domain.money import CURRENCIES, MoneyError, parse_amount
from webapp.domain.prizes import (
    DEFAULT_SERIES_FINAL_PRIZE,
    DEFAULT_SPECIAL_GAME_PRIZE,
    DEFAULT_UNANSWERED_PRIZE,
    DEFAULT_YEAR_FINAL_PRIZE,
)
from webapp.domain.rules import RULESETS, ProtocolError, RuleViolation, load_protocol, replay
from webapp.domain.topics import TOPICS, topic_label
from webapp.extensions import db
from webapp.games.models import (
    GAME_KINDS,
    SERIES_PARTS,
    TEAM_SIZE,
    Envelope,
    EnvelopeQuestion,
    EnvelopeReserve,
    Game,
    GameEvent,
    GameEventAudit,
    PrintedCopy,
    Season,
    Sector13Draw,
    Series,
    Team,
)
from webapp.jobs import enqueue
from webapp.moderation.models import QuestionRevision, QuestionSignoff
from webapp.moderation.operations import status_label as question_status_label
from webapp.moderation.queries import signed_off_ids
from webapp.submissions.models import Question, set_status

SECTORS = range(1, 14)

#: Russian names of game statuses for staff pages (``Game.status`` stays the code).
STATUS_LABELS = {"draft": "черновик", "ready": "стол заполнен", "live": "идёт",
                 "finished": "сыграна", "closed": "закрыта"}
#: Russian names of the input fields, for messages on staff pages.
FIELD_LABELS = {"name": "Название", "ruleset": "Правила", "currency": "Валюта",
                "timezone": "Часовой пояс", "unanswered_prize": "Приз за невзятый вопрос",
                "table": "Стол", "table.blitz": "Сектор блица",
                "table.superblitz": "Сектор суперблица", "table.sector13": "13 сектор",
                "experts": "Знатоки", "captain": "Капитан", "season_id": "Сезон",
                "part": "Серия", "team_id": "Команда", "series_id": "Серия", "kind": "Вид игры",
                "date": "Дата эфира", "team": "Команда знатоков", "title": "Название",
                "sector": "Сектор", "slot": "Ячейка", "question_id": "№ вопроса",
                "topic": "Тема", "copies": "Экземпляров"}


def status_label(status: str) -> str:
    """The Russian label of a game status code (``"draft"`` → ``"черновик"``)."""
    return STATUS_LABELS.get(status, status)


class GameError(ValueError):
    """Bad input for a game operation. ``errors``: ``{field: [message]}`` → HTTP 422."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__("; ".join(f"{FIELD_LABELS.get(k, k)}: {', '.join(v)}"
                                   for k, v in errors.items()))
        self.errors = errors


class GameConflict(RuntimeError):
    """The game's state does not allow this (HTTP 409). ``error``: a JSON-able dict; for
    a rule refusal it is the game-protocol error object (event, rule, message)."""

    def __init__(self, message: str, **extra):
        super().__init__(message)
        self.error = {**extra, "message": message}


#: Air dates a game may have: «Что? Где? Когда?» first aired in 1975; 2100 bounds typos.
FIRST_AIR_YEAR, LAST_AIR_YEAR = 1975, 2100
_BIDI_CONTROLS = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                           "\u2066\u2067\u2068\u2069")


def bad_line_chars(text: str | None) -> bool:
    """True if a one-line name (season, team, expert, title) holds a control character
    (C0/C1, also tab and newline) or a bidirectional override, which would print invisibly
    or reorder text on envelopes and agreements."""
    return any(unicodedata.category(c) == "Cc" or c in _BIDI_CONTROLS for c in text or "")


def _money(value, field: str, errors: dict, form: bool = False) -> Decimal | None:
    """The amount in ``value`` (:func:`webapp.domain.money.parse_amount`; ``form``: typed by
    a person), or None when empty; a bad amount is added to ``errors[field]``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return parse_amount(value, form=form)
    except MoneyError as exc:
        errors.setdefault(field, []).append(str(exc))
        return None


def create_season(name: str, ruleset: str, currency: str | None = None,
                  timezone: str | None = None, unanswered_prize=None,
                  form: bool = False) -> Season:
    """A season playing by ``ruleset`` ("2023" | "2009"). Currency and time zone default
    to the rule book's (BYN / Europe/Minsk; RUB / Europe/Moscow); the prize per unanswered
    question defaults to 300.00 for 2023 (000_90d7c8192601ed3a.txt §4.11.1); a given
    ``currency`` must be the rule book's. ``unanswered_prize``: str/int/float parsed by
    :func:`webapp.domain.money.parse_amount` (``form=True``: typed into the web form, so a
    decimal comma and spaces are accepted). Raises GameError (Russian messages)."""
    errors: dict[str, list[str]] = {}
    name = (name or "").strip()
    if not name or len(name) > 200:
        errors.setdefault("name", []).append("от 1 до 200 символов")
    elif bad_line_chars(name):
        errors.setdefault("name", []).append("недопустимые управляющие символы")
    if ruleset not in RULESETS:
        errors.setdefault("ruleset", []).append("«2023» или «2009»")
        raise GameError(errors)
    rules = RULESETS[ruleset]
    default_currency, default_tz = rules.currency, rules.timezone
    currency = currency or default_currency
    if currency not in CURRENCIES:
        errors.setdefault("currency", []).append(" или ".join(f"«{c}»" for c in CURRENCIES))
    elif currency != default_currency:
        # The rule book fixes the currency (RuleSet.currency cites the clause).
        errors.setdefault("currency", []).append(
            f"по правилам {ruleset} призы выплачиваются в {default_currency}")
    timezone = timezone or default_tz
    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        errors.setdefault("timezone", []).append(f"неизвестный часовой пояс «{timezone}»")
    prize = _money(unanswered_prize, "unanswered_prize", errors, form=form)
    if errors:
        raise GameError(errors)
    season = Season(name=name, ruleset=ruleset, currency=currency, timezone=timezone,
                    unanswered_prize=prize if prize is not None
                    else DEFAULT_UNANSWERED_PRIZE[ruleset],
                    series_final_prize=DEFAULT_SERIES_FINAL_PRIZE[ruleset],
                    year_final_prize=DEFAULT_YEAR_FINAL_PRIZE[ruleset],
                    special_game_prize=DEFAULT_SPECIAL_GAME_PRIZE[ruleset])
    db.session.add(season)
    db.session.flush()
    return season


def validate_table(table: dict | None, ruleset: str) -> dict:
    """Check a table plan ``{"blitz", "superblitz", "sector13"}`` (each 1..13 or None,
    distinct) and against the rule book (:func:`webapp.domain.rules.check_plan`: 2009
    sector 13 is the 13th, blitz and superblitz among the other twelve). Raises GameError."""
    table = dict(table or {})
    errors: dict[str, list[str]] = {}
    plan = {}
    for key in ("blitz", "superblitz", "sector13"):
        value = table.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or value not in SECTORS):
            errors.setdefault(f"table.{key}", []).append("сектор от 1 до 13 или пусто")
            value = None
        plan[key] = value
    used = [v for v in plan.values() if v is not None]
    if len(used) != len(set(used)):
        errors.setdefault("table", []).append(
            "у блица, суперблица и 13 сектора должны быть разные сектора")
    unknown = set(table) - set(plan)
    if unknown:
        errors.setdefault("table", []).append(
            f"неизвестные ключи: {', '.join(sorted(unknown))}")
    if not errors and ruleset in RULESETS:
        from webapp.games.game_rules import plan_errors
        errors.update(plan_errors(plan, ruleset))  # 2009 §1.3, §1.4.2–1.4.3 (check_plan)
    if errors:
        raise GameError(errors)
    return plan


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
    if len(names) != TEAM_SIZE or len(set(names)) != TEAM_SIZE:
        errors.setdefault("experts", []).append(f"{TEAM_SIZE} разных имён")
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


def _team_and_series(season: Season | None, team_id, series_id,
                     errors: dict[str, list[str]]) -> tuple[Team | None, Series | None]:
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
    from webapp.games.season_events import check_new_game
    check_new_game(game.season, game.kind, team)  # the season's rules (SeasonConflict)
    game.team_id = team.id if team else None
    game.series_id = series.id if series else None
    if team is not None:
        game.team = team.name
    db.session.flush()
    return game


def create_game(season_id: int, kind: str, air_date: date, table: dict | None,
                team: str | None = None, title: str | None = None,
                team_id: int | None = None, series_id: int | None = None) -> Game:
    """A game of a season with its table plan; optionally of a team (``team_id``; ``team``
    stays a free string and defaults to the team's name) and a series of the same season.
    ``air_date`` in 1975..2100; ``team`` and ``title`` without control characters
    (:func:`bad_line_chars`). Raises GameError (unknown season, kind, team, series…)."""
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
            f"дата эфира — с {FIRST_AIR_YEAR} по {LAST_AIR_YEAR} год")
    team = (team or "").strip() or None
    if team is not None and bad_line_chars(team):
        errors.setdefault("team", []).append("недопустимые управляющие символы")
    if title and bad_line_chars(title):
        errors.setdefault("title", []).append("недопустимые управляющие символы")
    if errors:
        raise GameError(errors)
    plan = validate_table(table, season.ruleset)
    from webapp.games.season_events import check_new_game
    check_new_game(season, kind, team_row)  # the season's rules (SeasonConflict)
    if not team and team_row is not None:
        team = team_row.name
    game = Game(season_id=season.id, kind=kind, air_date=air_date, team=(team or None),
                team_id=team_row.id if team_row else None,
                series_id=series.id if series else None,
                title=(title or "").strip()[:200], table_blitz=plan["blitz"],
                table_superblitz=plan["superblitz"], table_sector13=plan["sector13"],
                status="draft", created_at=utcnow())
    db.session.add(game)
    db.session.flush()
    return game


def slots_for(kind: str, ruleset: str = "2023") -> int:
    """Questions in an envelope: three for blitz and superblitz, one otherwise
    (000_90d7c8192601ed3a.txt §3.4.1, §3.4.2; 002_e025d5ded135c1c4.txt §1.4.2, §1.4.3);
    none for a 2009 sector 13, whose question the computer draws among the live questions at
    the spin (002 §1.4.1, :func:`draw_sector13`)."""
    if kind == "sector13" and ruleset == "2009":
        return 0
    return 3 if kind in ("blitz", "superblitz") else 1


MAIN_CHANNELS_EXCLUDED = ("partner", "live")


def table_plan(game: Game) -> list[dict]:
    """The plan of the game's table per its rule set: for each sector 1..13
    ``{"sector", "kind", "slots", "pool"}`` where ``pool`` is ``"main"`` (approved questions
    of the ordinary channels), ``"partner"`` (2023 sector 13: partner questions first,
    000_90d7c8192601ed3a.txt §3.3) or ``"live"`` (2009 sector 13: drawn at the spin)."""
    ruleset = game.season.ruleset
    plan = []
    for sector in SECTORS:
        kind = game.sector_kind(sector)
        pool = "main"
        if kind == "sector13":
            pool = "partner" if ruleset == "2023" else "live"
        plan.append({"sector": sector, "kind": kind, "slots": slots_for(kind, ruleset),
                     "pool": pool})
    return plan


def _reserved_elsewhere(game: Game):
    """Question ids held as reserves by other games not yet closed."""
    return (db.select(EnvelopeReserve.question_id).join(Game, Game.id == EnvelopeReserve.game_id)
            .where(Game.id != game.id, Game.status != "closed"))


def _pool(game: Game, partner: bool) -> list[Question]:
    """Approved questions for this game's fill, oldest first (``created_at``, id)."""
    query = db.select(Question).where(Question.status == "approved",
                                      Question.id.in_(signed_off_ids()),
                                      Question.id.not_in(_reserved_elsewhere(game)))
    if partner:
        query = query.where(Question.channel == "partner")
    else:
        query = query.where(Question.channel.not_in(MAIN_CHANNELS_EXCLUDED))
    return list(db.session.scalars(query.order_by(Question.created_at, Question.id)).all())


def _city(author) -> str:
    return (author.city or "").strip().casefold()


class _Picker:
    """Greedy choice under the table constraints: no author twice in a game; among the
    allowed, the question whose topic is least used so far (varied topics: a topic twice
    only when the pool has no other), then whose authors' cities are least used (varied
    cities), then the oldest approved. A question without a topic never repeats one."""

    def __init__(self) -> None:
        self.authors: set[int] = set()
        self.cities: dict[str, int] = {}
        self.topics: dict[str, int] = {}
        self.taken: set[int] = set()

    def add(self, q: Question) -> None:
        self.taken.add(q.id)
        if q.topic:
            self.topics[q.topic] = self.topics.get(q.topic, 0) + 1
        for a in q.author_list:
            self.authors.add(a.id)
            if _city(a):
                self.cities[_city(a)] = self.cities.get(_city(a), 0) + 1

    def allows(self, q: Question) -> bool:
        return q.id not in self.taken and not ({qa.author_id for qa in q.authors} & self.authors)

    def pick(self, pool: list[Question]) -> Question | None:
        best, best_key = None, None
        for index, q in enumerate(pool):
            if not self.allows(q):
                continue
            key = (self.topics.get(q.topic, 0) if q.topic else 0,
                   max((self.cities.get(_city(a), 0) for a in q.author_list), default=0),
                   index)
            if best_key is None or key < best_key:
                best, best_key = q, key
                if key[:2] == (0, 0):
                    break
        if best is not None:
            self.add(best)
        return best


def assign_envelopes(game: Game) -> Game:
    """Fill the table from the approved pool by :func:`table_plan`: no author twice in the
    game (reserves included), varied topics, then varied cities (:class:`_Picker`),
    blitz/superblitz triplets of three authors,
    2023 sector 13 from the partner pool (the main pool when it has none), 2009 sector 13
    left for the draw; then one reserve per sector when the pool allows (a missing reserve is a
    warning of :func:`check_table`, not a failure). Idempotent: a game that has envelopes
    keeps them. Raises GameConflict when the game is past its draft or the pool is too small
    for the questions themselves (nothing is written)."""
    if game.envelopes and game.status == "ready":
        return game
    if game.status != "draft":
        raise GameConflict(f"игра {game.id} — {status_label(game.status)}: "
                           "конверты заполняются только в черновике")
    plan = table_plan(game)
    main, partner = _pool(game, partner=False), _pool(game, partner=True)
    picker = _Picker()
    chosen: dict[int, list[Question]] = {}
    # the partner sector first (its pool is the narrow one), then the triplets, then singles
    order = sorted(plan, key=lambda p: (p["pool"] != "partner", -p["slots"], p["sector"]))
    short = 0
    for item in order:
        picked = []
        for _ in range(item["slots"]):
            q = (picker.pick(partner) if item["pool"] == "partner" else None) or picker.pick(main)
            if q is None:
                short += 1
            else:
                picked.append(q)
        chosen[item["sector"]] = picked
    needed = sum(p["slots"] for p in plan)
    if short:
        raise GameConflict(
            f"the approved pool has {needed - short} questions by distinct authors; "
            f"this table needs {needed}", needed=needed, available=needed - short)
    for item in plan:
        env = Envelope(sector=item["sector"], kind=item["kind"])
        for slot, q in enumerate(chosen[item["sector"]], start=1):
            env.questions.append(EnvelopeQuestion(game_id=game.id, question=q, slot=slot))
            set_status(q, "assigned")
        game.envelopes.append(env)
    db.session.flush()
    for env, item in zip(game.envelopes, plan, strict=True):
        if item["pool"] == "live":
            continue
        q = (picker.pick(partner) if item["pool"] == "partner" else None) or picker.pick(main)
        if q is not None:
            env.reserve = EnvelopeReserve(game_id=game.id, question=q)
    game.status = "ready"
    db.session.flush()
    return game


def _editable(game: Game) -> None:
    if game.table_locked_at is not None:
        raise GameConflict("стол заблокирован: сначала разблокируйте его")
    if game.events or game.status not in ("draft", "ready"):
        raise GameConflict("игра уже идёт: стол менять нельзя")
    if not game.envelopes:
        raise GameConflict("стол ещё не заполнен")


def _envelope(game: Game, sector: int) -> Envelope:
    env = next((e for e in game.envelopes if e.sector == sector), None)
    if env is None:
        raise GameError({"sector": ["сектор от 1 до 13"]})
    return env


def _slot_question(env: Envelope, slot: int) -> Question | None:
    """Slot 0 is the sector's reserve; 1..3 its questions."""
    if slot == 0:
        return env.reserve.question if env.reserve else None
    eq = next((q for q in env.questions if q.slot == slot), None)
    return eq.question if eq else None


def _set_slot(game: Game, env: Envelope, slot: int, q: Question | None) -> None:
    """Put ``q`` in ``env``'s slot (0 = reserve), keeping question statuses right: a question
    in an envelope is ``assigned``, a reserve and a question taken out are ``approved``."""
    if slot == 0:
        if env.reserve is not None:
            old = env.reserve.question
            env.reserve = None
            db.session.flush()
            if old.status == "assigned":
                set_status(old, "approved", reason=f"снят со стола игры {game.id}")
        if q is not None:
            if q.status == "assigned":
                set_status(q, "approved", reason=f"резерв игры {game.id}")
            env.reserve = EnvelopeReserve(game_id=game.id, question=q)
        db.session.flush()
        return
    eq = next((x for x in env.questions if x.slot == slot), None)
    if eq is not None:
        old = eq.question
        env.questions.remove(eq)
        db.session.flush()
        if old.status == "assigned":
            set_status(old, "approved", reason=f"снят со стола игры {game.id}")
    if q is not None:
        env.questions.append(EnvelopeQuestion(game_id=game.id, question=q, slot=slot))
        if q.status == "approved":
            set_status(q, "assigned", reason=f"стол игры {game.id}")
    db.session.flush()


def _check_slot(env: Envelope, slot: int, ruleset: str) -> None:
    top = slots_for(env.kind, ruleset)
    if not isinstance(slot, int) or isinstance(slot, bool) or not 0 <= slot <= top:
        raise GameError({"slot": [f"0 (резерв) или 1..{top}"]})


def swap_slots(game: Game, a: tuple[int, int], b: tuple[int, int]) -> None:
    """Swap the questions of two slots ``(sector, slot)`` of the table (slot 0: the sector's
    reserve) — the editor's drag-and-drop. Authors stay distinct (both are in this game).
    Raises GameConflict (locked or playing) / GameError (no such slot, empty slot)."""
    _editable(game)
    ruleset = game.season.ruleset
    env_a, env_b = _envelope(game, a[0]), _envelope(game, b[0])
    _check_slot(env_a, a[1], ruleset)
    _check_slot(env_b, b[1], ruleset)
    qa, qb = _slot_question(env_a, a[1]), _slot_question(env_b, b[1])
    if qa is None and qb is None:
        raise GameError({"slot": ["обе ячейки пусты"]})
    if a == b:
        return
    _set_slot(game, env_a, a[1], None)
    _set_slot(game, env_b, b[1], None)
    _set_slot(game, env_a, a[1], qb)
    _set_slot(game, env_b, b[1], qa)


def replace_slot(game: Game, sector: int, slot: int, question_id: int) -> None:
    """Put approved question ``question_id`` in ``(sector, slot)`` (slot 0: the reserve); the
    question there goes back to the pool. The new question must be approved with its sources
    signed off (moderation, issue 4), not in this game,
    not a reserve of another open game, and by authors not yet in this game. GameError
    otherwise; GameConflict when the table is locked or the game is playing."""
    _editable(game)
    env = _envelope(game, sector)
    _check_slot(env, slot, game.season.ruleset)
    q = db.session.get(Question, question_id) if isinstance(question_id, int) else None
    errors: dict[str, list[str]] = {}
    if q is None or q.status != "approved":
        errors["question_id"] = ["нет такого одобренного вопроса"]
    elif db.session.scalar(signed_off_ids().where(QuestionSignoff.question_id == q.id)) is None:
        errors["question_id"] = ["источники вопроса ещё не проверены вторым редактором"]
    elif q.id in {x.question.id for x in _table_questions(game)}:
        errors["question_id"] = ["этот вопрос уже на столе"]
    elif db.session.scalar(_reserved_elsewhere(game).where(
            EnvelopeReserve.question_id == q.id)) is not None:
        errors["question_id"] = ["вопрос — резерв другой игры"]
    else:
        current = _slot_question(env, slot)
        others = {a.id for x in _table_questions(game) if x.question is not current
                  for a in x.question.author_list}
        if {a.id for a in q.author_list} & others:
            errors["question_id"] = ["автор этого вопроса уже есть в игре"]
    if errors:
        raise GameError(errors)
    _set_slot(game, env, slot, q)


def use_reserve(game: Game, sector: int, slot: int) -> None:
    """Replace question ``slot`` of ``sector`` by the sector's reserve (the replaced question
    goes back to the pool; the sector has no reserve afterwards)."""
    _editable(game)
    env = _envelope(game, sector)
    if env.reserve is None:
        raise GameError({"slot": ["у сектора нет резерва"]})
    _check_slot(env, slot, game.season.ruleset)
    if slot == 0:
        raise GameError({"slot": ["выберите вопрос сектора, не резерв"]})
    reserve = env.reserve.question
    _set_slot(game, env, 0, None)
    _set_slot(game, env, slot, reserve)


# A topic may be set until the question is played (its outcome is history then).
TOPIC_EDITABLE = ("received", "prechecked", "in_review", "approved", "rejected", "assigned")


def set_topic(question_id: int, topic: str | None, user_id: int | None) -> Question:
    """Set the topic of question ``question_id`` to a code of
    :data:`webapp.domain.topics.TOPICS`, or clear it (``None`` / ``""``) — the editor's edit
    on the table page (issue 5: varied topics). Allowed until the question is played, also
    on a locked table (the topic is not printed). The change is kept as a
    ``QuestionRevision`` (``{"topic": old code or ""}`` → ``{"topic": new}``); the sources
    sign-off stays. Returns the question; GameError for an unknown question or topic, or a
    status past ``assigned``. Flushes only."""
    q = (db.session.get(Question, question_id) if isinstance(question_id, int)
         and 0 < question_id <= 2**31 - 1 else None)
    if q is None:
        raise GameError({"question_id": ["нет такого вопроса"]})
    topic = topic or None
    if topic is not None and topic not in TOPICS:
        raise GameError({"topic": [f"одна из тем: {', '.join(TOPICS)}"]})
    if q.status not in TOPIC_EDITABLE:
        raise GameError({"question_id": [f"вопрос в статусе «{question_status_label(q.status)}»: тему не изменить"]})
    if q.topic != topic:
        db.session.add(QuestionRevision(question_id=q.id, user_id=user_id, at=utcnow(),
                                        before={"topic": q.topic or ""},
                                        after={"topic": topic or ""}))
        q.topic = topic
        db.session.flush()
    return q


@dataclass
class _Placed:
    sector: int
    slot: int
    question: Question


def _table_questions(game: Game) -> list[_Placed]:
    out = []
    for env in game.envelopes:
        out.extend(_Placed(env.sector, eq.slot, eq.question) for eq in env.questions)
        if env.reserve is not None:
            out.append(_Placed(env.sector, 0, env.reserve.question))
    return out


def check_table(game: Game) -> dict:
    """The completeness check before the lock: ``{"complete": bool, "problems": [str],
    "warnings": [str]}`` (Russian, for the producer). Problems: a sector not filled per
    :func:`table_plan` (a 2009 sector 13 may hold the one question drawn at the spin), a
    question no longer ``assigned`` (withdrawn, rejected…), a question
    without an answer, an author twice in the game. Warnings: a sector without a reserve; 2023
    sector 13 not from the partner pool while approved partner questions are waiting; a topic
    on more than one envelope question (reserves not counted), e.g. ``"тема «История»
    повторяется: сектор 2, вопрос 1; сектор 7, вопрос 1"`` (issue 5: varied topics)."""
    problems: list[str] = []
    warnings: list[str] = []
    if not game.envelopes:
        return {"complete": False, "problems": ["стол не заполнен"], "warnings": []}
    by_sector = {e.sector: e for e in game.envelopes}
    for item in table_plan(game):
        env = by_sector.get(item["sector"])
        have = len(env.questions) if env else 0
        drawn = item["pool"] == "live" and have == 1  # the 2009 draw filled it (live game)
        if have != item["slots"] and not drawn:
            problems.append(f"сектор {item['sector']}: вопросов {have}, нужно {item['slots']}")
        if env is not None and env.reserve is None and item["pool"] != "live":
            warnings.append(f"сектор {item['sector']}: нет резерва")
        if env is not None and item["pool"] == "partner" and any(
                eq.question.channel != "partner" for eq in env.questions) and _pool(
                game, partner=True):
            warnings.append(f"сектор {item['sector']}: вопрос не из пула партнёров")
    seen: dict[int, str] = {}
    for placed in _table_questions(game):
        q = placed.question
        where = f"сектор {placed.sector}, " + ("резерв" if placed.slot == 0
                                                else f"вопрос {placed.slot}")
        if placed.slot and q.status != "assigned":
            problems.append(f"{where}: вопрос №{q.id} в статусе «{question_status_label(q.status)}»")
        if placed.slot == 0 and q.status != "approved":
            warnings.append(f"{where}: резервный вопрос №{q.id} в статусе «{question_status_label(q.status)}»")
        if not (q.answer or "").strip():
            problems.append(f"{where}: у вопроса №{q.id} нет ответа")
        for a in q.author_list:
            if a.id in seen:
                problems.append(f"{where}: автор «{a.display}» уже есть ({seen[a.id]})")
            else:
                seen[a.id] = where
    by_topic: dict[str, list[str]] = {}
    for placed in _table_questions(game):
        if placed.slot and placed.question.topic:
            by_topic.setdefault(placed.question.topic, []).append(
                f"сектор {placed.sector}, вопрос {placed.slot}")
    for topic, wheres in by_topic.items():
        if len(wheres) > 1:
            warnings.append(f"тема «{topic_label(topic)}» повторяется: {'; '.join(wheres)}")
    return {"complete": not problems, "problems": problems, "warnings": warnings}


def lock_table(game: Game, user_id: int | None) -> dict:
    """Lock the table after :func:`check_table` finds it complete (idempotent). Returns the
    check. GameConflict with ``problems`` when it is not complete (nothing is written)."""
    check = check_table(game)
    if game.table_locked_at is not None:
        return check
    if not check["complete"]:
        raise GameConflict("стол не готов: " + "; ".join(check["problems"]),
                           problems=check["problems"])
    game.table_locked_at = utcnow()
    game.table_locked_by = user_id
    db.session.flush()
    return check


def unlock_table(game: Game) -> None:
    """Unlock for more changes: only before the first event and before envelopes were
    queued for printing (printed sheets must match the table). GameConflict otherwise."""
    if game.events:
        raise GameConflict("игра уже идёт: стол не разблокировать")
    if db.session.scalar(db.select(Document.id).where(
            Document.game_id == game.id, Document.kind.in_(("envelopes", "host_cards")))):
        raise GameConflict("конверты уже отправлены в печать: стол не разблокировать")
    game.table_locked_at = None
    game.table_locked_by = None
    db.session.flush()


MAX_COPIES = 20


def request_envelopes(game: Game, lock_if_complete: bool = False,
                      user_id: int | None = None, copies: int = 1) -> list[Document]:
    """Queue the envelope and host-card PDFs (``games.render_envelopes``). Returns the two
    Document rows (status pending, or the existing ones). Envelopes print only from a locked
    table: GameConflict before assign or while unlocked — unless ``lock_if_complete`` (the
    API's ``POST /games/{id}/envelopes``, whose contract has no lock step), which locks a
    complete table first (:func:`lock_table`; GameConflict with its problems otherwise).
    ``copies`` (1..20): printed copies of each document, each with its own serial
    (:class:`PrintedCopy`); fixed when the documents are first requested. A closed game
    prints nothing more (GameConflict)."""
    if not isinstance(copies, int) or isinstance(copies, bool) or not 1 <= copies <= MAX_COPIES:
        raise GameError({"copies": [f"от 1 до {MAX_COPIES}"]})
    if game.status == "closed":
        raise GameConflict(f"игра {game.id} закрыта: конверты больше не печатаются")
    if not game.envelopes:
        raise GameConflict(f"у игры {game.id} ещё нет конвертов: сначала заполните стол")
    if game.table_locked_at is None:
        if not lock_if_complete:
            raise GameConflict(f"игра {game.id}: заблокируйте стол перед печатью конвертов")
        lock_table(game, user_id)
    docs = []
    for kind in ("envelopes", "host_cards"):
        key = f"{kind}:game:{game.id}:v1"
        doc = db.session.scalar(db.select(Document).filter_by(key=key))
        if doc is None:
            doc = Document(key=key, kind=kind, game_id=game.id, version=1, status="pending",
                           created_at=utcnow())
            db.session.add(doc)
            db.session.flush()
            letter = "E" if kind == "envelopes" else "H"
            for n in range(1, copies + 1):
                db.session.add(PrintedCopy(document_id=doc.id, game_id=game.id, copy_no=n,
                                           serial=f"{game.id}-{letter}{n:02d}",
                                           created_at=utcnow()))
            db.session.flush()
            enqueue("games.render_envelopes", doc.id)
        docs.append(doc)
    return docs


def game_state(game: Game, extra: dict | None = None) -> dict:
    """The rules engine's replay of the recorded events (plus ``extra`` if given).
    Raises RuleViolation / ProtocolError from ``webapp.domain.rules``."""
    events = [e.payload for e in game.events]
    if extra is not None:
        events.append(extra)
    return replay(game.season.ruleset, game.table, game_context(game), events)


def _earlier(game: Game):
    """SQL condition: games played before ``game`` (air date, then id)."""
    return db.or_(Game.air_date < game.air_date,
                  db.and_(Game.air_date == game.air_date, Game.id < game.id))


def _chronological(query) -> list[Game]:
    return list(db.session.scalars(query.order_by(Game.air_date, Game.id)).all())


def sector13_options_used(game: Game) -> list[str]:
    """Sector-13 options the game's team has used, in its earlier games of the season,
    since it last used all three (000_90d7c8192601ed3a.txt §3.4.3: «не сможет его
    использовать в следующих играх, пока не выберет два других»). Read from the recorded
    ``sector13_option`` events (each was accepted by the engine), in play order. ``[]``
    without a team or under 2009 (no options, 002_e025d5ded135c1c4.txt §1.4.1)."""
    if game.team_id is None or game.season.ruleset != "2023":
        return []
    used: list[str] = []
    earlier = _chronological(db.select(Game).where(
        Game.team_id == game.team_id, Game.season_id == game.season_id, Game.id != game.id,
        _earlier(game)))
    for other in earlier:
        for event in other.events:
            option = event.payload.get("option")
            if event.payload.get("type") == "sector13_option" and option not in used:
                used.append(option)
                if len(used) == 3:
                    used = []
    return used


def _difference(score: str) -> int:
    experts, viewers = (int(x) for x in score.split(":"))
    return experts - viewers


def series_best(game: Game) -> str | None:
    """The best result (``"E:V"``) of the series' earlier qualifying games that are over
    (finished or closed), or None. «Best» ranks by score difference
    (000_90d7c8192601ed3a.txt §4.5.2); equal differences are equal scores, since a finished
    game has a 6 on one side (§3.10), so the tie rule §4.5.3 never changes the score the
    decisive round must pass (§3.6; ``docs/rules.md``, «Readings» 4 and «Context»). Each
    earlier game's score is its replay under its own context, computed in play order.
    Only for a qualifying game: a series final, special game or year final has nobody to
    pass (§3.6 with §4.6, §4.7.1, §4.10). A season kept by the season engine (it has teams)
    takes it from the season state instead: :func:`webapp.games.season_queries.series_best`."""
    from webapp.games import season_queries
    if season_queries.managed(game.season):
        return season_queries.series_best(game)
    if game.series_id is None or game.kind != "qualifying":
        return None
    earlier = _chronological(db.select(Game).where(
        Game.series_id == game.series_id, Game.id != game.id, Game.kind == "qualifying",
        Game.status.in_(("finished", "closed")), _earlier(game)))
    best: str | None = None
    for other in earlier:
        context = {"series_best": best, "sector13_options_used": sector13_options_used(other)}
        state = replay(other.season.ruleset, other.table, context,
                       [e.payload for e in other.events])
        if state["finished"] and (best is None
                                  or _difference(state["score"]) > _difference(best)):
            best = state["score"]
    return best


def game_context(game: Game) -> dict:
    """The engine's ``context`` (``contracts/game-protocol.md``) from the database:
    ``{"series_best": "E:V" | None, "sector13_options_used": [option…]}`` — see
    :func:`series_best` (2023 §3.6) and :func:`sector13_options_used` (2023 §3.4.3)."""
    from webapp.games.game_rules import off_table_context
    return {"series_best": series_best(game), "sector13_options_used": sector13_options_used(game),
            **off_table_context(game)}  # 2023 §3.7.3: experts who hinted start off the table


def protocol(game: Game) -> dict:
    """The game as a ``sova.game-protocol/1`` file (with its computed context)."""
    return {"format": "sova.game-protocol/1", "ruleset": game.season.ruleset,
            "table": game.table, "context": game_context(game),
            "events": [e.payload for e in game.events]}


def record_event(game: Game, event: dict, user_id: int | None) -> dict:
    """Append one ``sova.game-protocol/1`` event if the replay of all events accepts it.

    Returns the new state. Raises GameConflict carrying the protocol error object
    (``{"event", "rule", "message"}``) on a refusal or a malformed event; nothing is stored.
    """
    if game.status not in ("ready", "live", "finished"):
        raise GameConflict(f"игра {game.id} — {status_label(game.status)}: события "
                           "записываются после заполнения стола и до закрытия игры")
    if not isinstance(event, dict):
        raise GameConflict("событие — объект JSON", event=len(game.events), rule=None)
    try:
        state = game_state(game, extra=event)
    except RuleViolation as exc:
        error = exc.to_json()["error"]
        raise GameConflict(error.pop("message"), **error) from exc
    except ProtocolError as exc:
        error = exc.to_json()["error"]
        raise GameConflict(error.pop("message"), **error) from exc
    seq = len(game.events) + 1
    now = utcnow()
    game.events.append(GameEvent(seq=seq, payload=event, by_user_id=user_id, created_at=now))
    db.session.add(GameEventAudit(game_id=game.id, action="record", seq=seq, payload=event,
                                  by_user_id=user_id, at=now))
    if (game.season.ruleset == "2009" and event.get("type") == "spin"
            and state["rounds"] and state["rounds"][-1]["kind"] == "sector13"):
        draw_sector13(game, seq, now, user_id)
    game.status = "finished" if state["finished"] else "live"
    db.session.flush()
    return state


def undo_last_event(game: Game, user_id: int | None = None) -> dict:
    """Remove the last recorded event (host's undo) unless the game is closed; the undo is
    audited (``GameEventAudit`` action ``undo``: who, when, which event). Returns the state
    replayed from the remaining events. GameConflict when there is nothing to undo."""
    if game.status == "closed":
        raise GameConflict(f"игра {game.id} закрыта: события закрытой игры не отменяются")
    if not game.events:
        raise GameConflict("отменять нечего: событий ещё нет")
    last = game.events[-1]
    _cancel_draw(game, last.seq)
    db.session.add(GameEventAudit(game_id=game.id, action="undo", seq=last.seq,
                                  payload=dict(last.payload), by_user_id=user_id, at=utcnow()))
    game.events.remove(last)
    db.session.delete(last)
    state = game_state(game)
    game.status = "finished" if state["finished"] else ("live" if game.events else "ready")
    db.session.flush()
    return state


# --- 2009 sector 13: the computer's draw (002_e025d5ded135c1c4.txt §1.4.1) ---------------

def repeat_draw(seed: str, candidates: list[int]) -> int | None:
    """The draw itself, repeatable by anyone: ``random.Random(seed)`` (Python's seeding of
    a str is SHA-512 based and stable across versions) picks uniformly one of the sorted
    ``candidates`` (question ids). None when there is no candidate."""
    if not candidates:
        return None
    return random.Random(seed).choice(sorted(candidates))


def live_candidates(spun_at, since=None) -> list[int]:
    """Ids of the live questions (channel ``live``) that arrived strictly before ``spun_at``
    and, when ``since`` is given, not before ``since`` (their server timestamp
    ``created_at``, UTC; 002_e025d5ded135c1c4.txt §1.4.1 «поступивших … к этому моменту»,
    §1.3 «поступившие по Интернету во время игры») and passed the fast lane: ``approved`` by
    an editor with the sources signed off — the same bar as every envelope question (issue 4;
    ``signed_off_ids``). A question still in moderation, rejected, withdrawn or already in a
    game (``assigned`` and later) is not a candidate. Sorted."""
    query = db.select(Question.id).where(Question.channel == "live",
                                         Question.created_at < spun_at,
                                         Question.status == "approved",
                                         Question.id.in_(signed_off_ids()))
    if since is not None:
        query = query.where(Question.created_at >= since)
    return list(db.session.scalars(query.order_by(Question.id)).all())


def air_day_start(game: Game) -> datetime:
    """The start (00:00 in the season's time zone, as an aware UTC datetime) of the game's
    air date: live questions sent before it belong to an earlier broadcast (§1.3)."""
    local = datetime.combine(game.air_date, time(0), tzinfo=ZoneInfo(game.season.timezone))
    return local.astimezone(UTC)


SECTOR13_CARD = "sector13_card"


def sector13_card_key(draw: Sector13Draw) -> str:
    """Document key of a draw's host card: ``"sector13_card:game:<game>:draw:<draw>"``."""
    return f"{SECTOR13_CARD}:game:{draw.game_id}:draw:{draw.id}"


def draw_card(draw: Sector13Draw) -> Document | None:
    """The host card of ``draw`` (queued by :func:`draw_sector13`), or None when nothing
    was drawn or the card was dropped with a cancelled draw."""
    return db.session.scalar(db.select(Document).filter_by(key=sector13_card_key(draw)))


def draw_sector13(game: Game, seq: int, spun_at, user_id: int | None,
                  seed: str | None = None) -> Sector13Draw:
    """Draw the 2009 sector-13 question for the spin ``seq`` made at ``spun_at``: uniform
    among :func:`live_candidates` sent during the game — from its first recorded event
    (:func:`webapp.games.game_rules.game_started_at`, §1.3 «во время игры») — before the
    spin, with a fresh 128-bit seed (recorded with the candidates).
    The drawn question goes into the sector-13 envelope (slot 1, status ``assigned``), so the
    close treats it like any envelope question (played → answered / unanswered, the author's
    prize); and its host card is queued at once (Document kind ``sector13_card``, one printed
    copy with serial ``"<game>-D<draw id>"``, ``games.render_envelopes``) so it can be printed
    on the spot. No candidate: the draw records ``question_id`` None and the envelope stays
    empty. Idempotent per (game, seq) while not cancelled."""
    existing = db.session.scalar(db.select(Sector13Draw).filter_by(
        game_id=game.id, seq=seq, cancelled_at=None))
    if existing is not None:
        return existing
    from webapp.games.game_rules import game_started_at
    candidates = live_candidates(spun_at, since=game_started_at(game, spun_at))
    seed = seed or secrets.token_hex(16)
    chosen = repeat_draw(seed, candidates)
    draw = Sector13Draw(game_id=game.id, seq=seq, spun_at=spun_at, seed=seed,
                        candidates=candidates, question_id=chosen, by_user_id=user_id)
    db.session.add(draw)
    db.session.flush()
    env = next((e for e in game.envelopes if e.kind == "sector13"), None)
    q = db.session.get(Question, chosen) if chosen is not None else None
    if env is not None and q is not None and not env.questions:
        env.questions.append(EnvelopeQuestion(game_id=game.id, question=q, slot=1))
        set_status(q, "assigned", by_user_id=user_id,
                   reason=f"жеребьёвка 13 сектора, игра {game.id}")
        doc = Document(key=sector13_card_key(draw), kind=SECTOR13_CARD,
                       game_id=game.id, version=1, status="pending", created_at=utcnow())
        db.session.add(doc)
        db.session.flush()
        db.session.add(PrintedCopy(document_id=doc.id, game_id=game.id, copy_no=1,
                                   serial=f"{game.id}-D{draw.id}", created_at=utcnow()))
        enqueue("games.render_envelopes", doc.id)
    db.session.flush()
    return draw


def _cancel_draw(game: Game, seq: int) -> None:
    """Undoing the spin of a draw cancels it: the drawn question leaves the envelope (back to
    ``approved``, a candidate again) and its host card is dropped unless it was already
    rendered (a rendered card stays listed: its serial may be on a printed sheet)."""
    draw = db.session.scalar(db.select(Sector13Draw).filter_by(
        game_id=game.id, seq=seq, cancelled_at=None))
    if draw is None:
        return
    draw.cancelled_at = utcnow()
    env = next((e for e in game.envelopes if e.kind == "sector13"), None)
    if env is not None:
        for eq in list(env.questions):
            if eq.question_id == draw.question_id:
                env.questions.remove(eq)
                db.session.flush()
                if eq.question.status == "assigned":
                    set_status(eq.question, "approved", reason=f"волчок отменён, игра {game.id}")
    card = draw_card(draw)
    if card is not None and card.status == "pending":
        db.session.execute(db.delete(PrintedCopy).where(PrintedCopy.document_id == card.id))
        db.session.delete(card)
        db.session.flush()


def current_draw(game: Game) -> Sector13Draw | None:
    """The game's draw in force (not cancelled), if any (2009 plays sector 13 at most once,
    002 §1.4.1)."""
    return db.session.scalar(db.select(Sector13Draw).where(
        Sector13Draw.game_id == game.id, Sector13Draw.cancelled_at.is_(None)))


# --- protocol file import (contracts/game-protocol.md) --------------------------------------

def import_protocol(game: Game, data, user_id: int | None) -> dict:
    """Record the events of a ``sova.game-protocol/1`` file (``data``: the parsed JSON) into
    ``game``, which must have no events yet. The file's rule set and table must be the game's;
    its ``context`` is not trusted — every event is checked, one by one, by
    :func:`record_event` with the context computed from the database. All or nothing: on the
    first refusal GameConflict carries the protocol error (``event`` is the index in the
    file) and the caller rolls back. Returns the final state."""
    if game.events:
        raise GameConflict(f"в игре {game.id} уже есть события: протокол загружается в пустую игру",
                           event=None, rule=None)
    try:
        ruleset, table, _context, events = load_protocol(data)
    except ProtocolError as exc:
        error = exc.to_json()["error"]
        raise GameConflict(error.pop("message"), **error) from exc
    if ruleset != game.season.ruleset:
        raise GameConflict(f"файл — по правилам {ruleset}, а игра — по правилам "
                           f"{game.season.ruleset}", event=None, rule=None)
    if table != game.table:
        raise GameConflict(f"стол в файле {table} не совпадает со столом игры {game.table}",
                           event=None, rule=None)
    state = game_state(game)
    for event in events:
        state = record_event(game, dict(event), user_id)
    return state
