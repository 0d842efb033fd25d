"""Game-day checks that come from the rule books and span more than one row: the table
plan against the book (2009 §1.3, §1.4.2–1.4.3, :func:`webapp.domain.rules.check_plan`), the
start of a game for the 2009 sector-13 draw (§1.3 «во время игры»), and the experts off the
table at the start of a team's game (2023 §3.7.3)."""

from __future__ import annotations

from datetime import datetime

from webapp.domain.books import book, cite
from webapp.domain.rules import RuleViolation, Table, check_plan
from webapp.extensions import db
from webapp.games.models import Game, GameEvent, GameEventAudit

#: Russian text of a plan refusal by topic of the clause (staff pages and the API's 422).
PLAN_RU = {
    "table": "по правилам 2009 вопросы из Интернета играют в 13-м секторе",
    "blitz": "по правилам 2009 блиц — один из двенадцати секторов с письмами, не 13-й",
    "superblitz": "по правилам 2009 суперблиц — один из двенадцати секторов с письмами, не 13-й",
}


def plan_errors(plan: dict, ruleset: str) -> dict[str, list[str]]:
    """``{field: [Russian message with the clause as a person reads it]}`` (``"… (п. 1.3
    Правил сезона 2009 г.)"``, :func:`webapp.domain.books.cite`) for a table plan
    ``{"blitz", "superblitz", "sector13"}`` (already distinct sectors 1..13) that the rule
    book refuses (:func:`webapp.domain.rules.check_plan`), else ``{}``."""
    try:
        check_plan(Table(**plan), book(ruleset).rules)
    except RuleViolation as exc:
        clause = exc.rule or ""
        # the refusal's code says which sector is misplaced (webapp.domain.rules.refusals)
        kind = exc.params.get("kind") if exc.code == "plan_multi_on_13" else None
        field, key = (f"table.{kind}", kind) if kind else ("table.sector13", "table")
        return {field: [f"{PLAN_RU[key]} ({cite(clause)})"]}
    return {}


def game_started_at(game: Game, spun_at: datetime) -> datetime:
    """When ``game`` began: the first event the console recorded for it (its audit row
    stays after an undo), or ``spun_at`` when none is older. The 2009 sector-13 draw takes
    the live questions sent from then until the spin (002_e025d5ded135c1c4.txt §1.3:
    «поступившие по Интернету во время игры»; §1.4.1 «к этому моменту»)."""
    first = db.session.scalar(
        db.select(db.func.min(GameEventAudit.at)).where(
            GameEventAudit.game_id == game.id, GameEventAudit.action == "record"
        )
    )
    return min(first, spun_at) if first is not None else spun_at


def _before(air_date, game_id: int):
    """SQL condition: games played before the game (``air_date``, ``game_id``) — air date,
    then id."""
    return db.or_(Game.air_date < air_date, db.and_(Game.air_date == air_date, Game.id < game_id))


def experts_off_table(game: Game) -> list[str]:
    """2023 §3.7.3: the experts of ``game``'s team who hinted — a ``red_card`` event naming
    them (``expert``; ``team`` when the hinter is not of the playing team) — in a game of the
    season played since the team's previous game (that game included; every earlier game
    when it has none), so they start this game off the table. ``[]`` without a team, under
    2009 or when nobody hinted. Names as recorded, in the order of the cards, each once.
    Reads only the event payloads of those games (this runs at every console event)."""
    if game.team_id is None or not game.season.book.off_table_after_hint:
        return []
    team = game.team_row.name if game.team_row is not None else game.team
    before = _before(game.air_date, game.id)
    prev = db.session.execute(
        db.select(Game.air_date, Game.id)
        .where(
            Game.season_id == game.season_id,
            Game.team_id == game.team_id,
            Game.id != game.id,
            before,
        )
        .order_by(Game.air_date.desc(), Game.id.desc())
        .limit(1)
    ).first()
    query = (
        db.select(GameEvent.payload, Game.team)
        .join(Game, Game.id == GameEvent.game_id)
        .where(Game.season_id == game.season_id, Game.id != game.id, before)
    )
    if prev is not None:
        query = query.where(db.not_(_before(prev.air_date, prev.id)))
    names: list[str] = []
    for payload, game_team in db.session.execute(
        query.order_by(Game.air_date, Game.id, GameEvent.seq)
    ).all():
        if payload.get("type") != "red_card" or not isinstance(payload.get("expert"), str):
            continue
        if (payload.get("team") or game_team) == team and payload["expert"] not in names:
            names.append(payload["expert"])
    return names


def off_table_context(game: Game) -> dict:
    """The ``context`` key for :func:`experts_off_table`: ``{"off_table": [...]}`` when
    someone is off, else ``{}`` (the context stays the contract's two keys)."""
    names = experts_off_table(game)
    return {"off_table": names} if names else {}


def team_experts_context(game: Game) -> dict:
    """The ``context`` key ``{"experts": [name…]}`` of a game whose rule set removes the
    player who answered wrong (2009, 002_e025d5ded135c1c4.txt §1.6: an answer may name only
    one of the team's experts), with the game's team and its experts; else ``{}``."""
    if not game.season.book.names_answerer or game.team_row is None:
        return {}
    experts = [name for name in game.team_row.experts or [] if name.strip()]
    return {"experts": experts} if experts else {}
