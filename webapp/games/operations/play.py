"""Playing a game: its derived state (the replay of the recorded events with the context
from the database), recording and undoing events, the protocol file export and import
(contracts/game-protocol.md)."""

from __future__ import annotations

from webapp.core.models import utcnow
from webapp.domain.books import BOOKS, cite, refusal_text
from webapp.domain.rules import (
    ProtocolError,
    RuleViolation,
    load_protocol,
    load_protocol_rules,
    replay,
)
from webapp.domain.rules.parameters import AMEND_CLAUSE, PARAMETERS
from webapp.extensions import db
from webapp.games.game_rules import off_table_context, team_experts_context
from webapp.games.models import (
    Game,
    GameEvent,
    GameEventAudit,
)
from webapp.games.operations.common import GameConflict, move_game, status_label
from webapp.games.operations.draw import cancel_draw, draw_sector13
from webapp.games.queries import (
    chronological,
    current_draw,
    events_revision,
    played_before,
    team_payloads_before,
)
from webapp.games.season import queries as season_queries


def game_state(game: Game, extra: dict | None = None) -> dict:
    """The rules engine's replay of the recorded events (plus ``extra`` if given).
    Raises RuleViolation / ProtocolError from ``webapp.domain.rules``."""
    events = [e.payload for e in game.events]
    if extra is not None:
        events.append(extra)
    return replay(game.season.book, game.table, game_context(game), events, rules=game_rules(game))


def game_rules(game: Game) -> dict:
    """The amendable parameters this game is played under (000_90d7c8192601ed3a.txt
    §4.12.1), ``{parameter: value}`` where they differ from the book's: the ones it took
    when its first event was recorded (``game.rules``), or — before that — the ones in force
    in its season now (:func:`webapp.games.season.queries.game_rules_now`); ``{}`` for a game
    whose events were recorded before games kept their rules (the book's: nothing was
    amendable then)."""
    if game.rules is not None:
        return dict(game.rules)
    if game.events:  # recorded before games kept their rules: nothing was amendable then
        return {}
    return season_queries.game_rules_now(game.season)


def rules_shown(game: Game, rules: dict | None = None) -> list[dict[str, str]]:
    """The game's own rules where they differ from the book's (000_90d7c8192601ed3a.txt
    §4.12.1, :func:`game_rules`) as the console and the host cards print them:
    ``[{"label": Russian label, "value": «да»/«нет» for a switch, else the number}]``, in
    the parameters' order; ``[]`` when the game plays by the book. ``rules``: the game's
    rules when the caller has them already."""
    rules = game_rules(game) if rules is None else rules
    return [
        {"label": p.label_ru, "value": shown_value(rules[name])}
        for name, p in PARAMETERS.items()
        if name in rules
    ]


def rules_note(game: Game) -> str:
    """One sentence for the host: «Правила этой игры изменены (п. 4.12.1 Правил сезона
    2023 г.): Очков для победы — 7.»; ``""`` when the game plays by the book."""
    shown = rules_shown(game)
    if not shown:
        return ""
    items = "; ".join(f"{r['label']} — {r['value']}" for r in shown)
    return f"Правила этой игры изменены ({cite(AMEND_CLAUSE)}): {items}."


def shown_value(value: int | bool) -> str:
    """A rule parameter's value as a person reads it: «да»/«нет» for a switch, else the
    number."""
    if isinstance(value, bool):
        return "да" if value else "нет"
    return str(value)


def sector13_options_used(game: Game) -> list[str]:
    """Sector-13 options the game's team has used, in its earlier games of the season,
    since it last used all three (000_90d7c8192601ed3a.txt §3.4.3: «не сможет его
    использовать в следующих играх, пока не выберет два других»). Read from the recorded
    ``sector13_option`` events (each was accepted by the engine), in play order. ``[]``
    without a team or under 2009 (no options, 002_e025d5ded135c1c4.txt §1.4.1)."""
    if game.team_id is None or not game.season.book.sector13_options:
        return []
    used: list[str] = []
    for payload in team_payloads_before(game):
        option = payload.get("option", "")  # a recorded option event names one
        if payload.get("type") == "sector13_option" and option not in used:
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
    takes it from the season state instead: :func:`webapp.games.season.queries.series_best`."""
    if season_queries.managed(game.season):
        return season_queries.series_best(game)
    if game.series_id is None or game.kind != "qualifying":
        return None
    earlier = chronological(
        db.select(Game).where(
            Game.series_id == game.series_id,
            Game.id != game.id,
            Game.kind == "qualifying",
            Game.status.in_(("finished", "closed")),
            played_before(game),
        )
    )
    best: str | None = None
    for other in earlier:
        context = {"series_best": best, "sector13_options_used": sector13_options_used(other)}
        state = replay(
            other.season.book,
            other.table,
            context,
            [e.payload for e in other.events],
            rules=game_rules(other),
        )
        if state["finished"] and (best is None or _difference(state["score"]) > _difference(best)):
            best = state["score"]
    return best


def game_context(game: Game) -> dict:
    """The engine's ``context`` (``contracts/game-protocol.md``) from the database:
    ``{"series_best": "E:V" | None, "sector13_options_used": [option…]}`` — see
    :func:`series_best` (2023 §3.6) and :func:`sector13_options_used` (2023 §3.4.3) — plus
    ``off_table`` (2023 §3.7.3) and ``experts`` (2009 §1.6) when they apply."""
    return {
        "series_best": series_best(game),
        "sector13_options_used": sector13_options_used(game),
        **off_table_context(game),  # 2023 §3.7.3: experts who hinted start off the table
        **team_experts_context(game),  # 2009 §1.6: who may answer (the team's experts)
    }


def protocol(game: Game) -> dict:
    """The game as a ``sova.game-protocol/1`` file (with its computed context, and its own
    ``rules`` where they differ from the book's, 2023 §4.12.1)."""
    rules = game_rules(game)
    return {
        "format": "sova.game-protocol/1",
        "ruleset": game.season.ruleset,
        **({"rules": rules} if rules else {}),
        "table": game.table,
        "context": game_context(game),
        "events": [e.payload for e in game.events],
    }


def _minute_on_the_server_clock(game: Game, event: dict) -> dict:
    """A ``minute`` tap as recorded: ``at`` is this server's clock (UTC, with its offset),
    whatever the console sent, so that the broadcast graphics' countdown never follows a
    browser's clock. Refused before the first spin: the minute is a question's."""
    if not game.events or not any(e.payload.get("type") == "spin" for e in game.events):
        raise GameConflict(
            "минута обсуждения отмечается по вопросу: сначала вращение волчка",
            event=len(game.events),
            rule=None,
        )
    return {**event, "at": utcnow().isoformat()}


#: The refusal of a press on a console whose revision of the events is behind the game's.
STALE_CONSOLE = (
    "на другом устройстве уже записано событие — пульт показывает игру заново: проверьте "
    "её и нажмите ещё раз, если нужно"
)


def record_event(game: Game, event: dict, user_id: int | None, after: int | None = None) -> dict:
    """Append one ``sova.game-protocol/1`` event if the replay of all events accepts it.

    ``after``: the revision of the events the console showed when the host pressed
    (:func:`~webapp.games.queries.events_revision`; None: not checked, as for the API); when
    another event was recorded or undone meanwhile (an undo and a new event too) the press
    is refused as stale (:data:`STALE_CONSOLE`), so an answer meant for one question is
    never recorded for the next. Two presses on the same revision both pass this check, and
    the event's unique ``seq`` keeps the second out.

    A 2009 spin that lands on sector 13 makes the computer's draw
    (:func:`~webapp.games.operations.draw.draw_sector13`, §1.4.1); when it finds no live
    question the event is stored with ``"sector13_empty": true`` (Sova's protocol extension,
    ``docs/protocols.md``) and the round is played in the next sector clockwise (§1.4), so
    no point is ever scored for a question that does not exist. The server decides that
    field: a spin that says ``sector13_empty`` while the draw found a question is refused.

    Returns the new state. Raises GameConflict carrying the protocol error object
    (``{"event", "rule", "message"}``) on a refusal or a malformed event; nothing is stored.
    """
    if game.status not in ("ready", "live", "finished"):
        raise GameConflict(
            f"игра {game.id} — {status_label(game.status)}: события "
            "записываются после заполнения стола и до закрытия игры"
        )
    if not isinstance(event, dict):
        raise GameConflict("событие — объект JSON", event=len(game.events), rule=None)
    if after is not None and after != events_revision(game.id):
        raise GameConflict(STALE_CONSOLE, event=len(game.events), rule=None)
    if event.get("type") == "minute":
        event = _minute_on_the_server_clock(game, event)
    rules = game_rules(game)
    state = _replayed(game, event)
    seq = len(game.events) + 1
    now = utcnow()
    if _lands_on_live_sector13(game, event):
        # 2009 §1.4.1: the computer draws at the spin; with nothing to draw, sector 13 is
        # passed over (§1.4) and the stored event says so, so every replay agrees
        draw = draw_sector13(game, seq, now, user_id)
        empty = draw.question_id is None
        if event.get("sector13_empty") and not empty:
            rule = game.season.book.rules.cite("sector13")
            raise GameConflict(
                "13 сектор не пуст: жеребьёвка выбрала вопрос зрителей, его и играют "
                f"({cite(rule)})",
                event=len(game.events),
                rule=rule,
            )
        event = {k: v for k, v in event.items() if k != "sector13_empty"}
        if empty:
            event["sector13_empty"] = True
        state = _replayed(game, event)
    elif event.get("type") in QUESTION_EVENTS and _live_sector13_without_question(game, state):
        rule = game.season.book.rules.cite("sector13")
        raise GameConflict(
            "в 13 секторе нет вопроса: очко за несуществующий вопрос не начисляется — "
            f"отмените вращение и запишите его снова, пустой 13 сектор пропускается ({cite(rule)})",
            event=len(game.events),
            rule=rule,
        )
    if game.rules is None:  # 2023 §4.12.1: the game keeps the rules in force at its start
        game.rules = rules
    game.events.append(GameEvent(seq=seq, payload=event, by_user_id=user_id, created_at=now))
    db.session.add(
        GameEventAudit(
            game_id=game.id, action="record", seq=seq, payload=event, by_user_id=user_id, at=now
        )
    )
    move_game(game, "finished" if state["finished"] else "live")
    db.session.flush()
    return state


def _replayed(game: Game, event: dict) -> dict:
    """The state after the recorded events and ``event``, or :class:`GameConflict` carrying
    the protocol error object of a refusal: ``{"event", "rule", "message"}``, where a refusal
    by the rules has the Russian text with its clause as ``message``
    (:func:`webapp.domain.books.refusal_text`: «Помощь клуба — … (п. 3.7.1 Правил сезона
    2023 г.)») and adds its ``code`` and ``params`` (``docs/api.md``); a malformed event
    keeps the engine's message, ``rule`` None."""
    try:
        return game_state(game, extra=event)
    except RuleViolation as exc:
        error = exc.to_json()["error"]
        error.pop("message")
        raise GameConflict(
            refusal_text(exc, "ru"), **error, code=exc.code, params=exc.params
        ) from exc
    except ProtocolError as exc:
        error = exc.to_json()["error"]
        raise GameConflict(error.pop("message"), **error) from exc


#: The events that settle or help with the question in play.
QUESTION_EVENTS = frozenset({"answer", "club_help", "extra_minute", "red_card"})


def _live_sector13_without_question(game: Game, state: dict) -> bool:
    """Whether the round in play is a 2009 sector 13 (drawn at the spin, §1.4.1) whose draw
    holds no question — a spin recorded before empty spins were marked ``sector13_empty``."""
    if not (game.season.book.sector13_drawn_at_spin and state["rounds"]):
        return False
    if state["rounds"][-1]["kind"] != "sector13":
        return False
    draw = current_draw(game)
    return draw is None or draw.question_id is None


def _lands_on_live_sector13(game: Game, event: dict) -> bool:
    """Whether ``event`` (already accepted by the replay) is a spin of a game whose sector 13
    is drawn at the spin (2009 §1.4.1) that lands on sector 13 — the arrow's own sector or
    the first unplayed one clockwise from it (§1.4) — whatever its ``sector13_empty`` says."""
    if not (game.season.book.sector13_drawn_at_spin and event.get("type") == "spin"):
        return False
    bare = {k: v for k, v in event.items() if k != "sector13_empty"}
    return game_state(game, extra=bare)["rounds"][-1]["kind"] == "sector13"


def undo_last_event(game: Game, user_id: int | None = None, after: int | None = None) -> dict:
    """Remove the last recorded event (host's undo) unless the game is closed; the undo is
    audited (``GameEventAudit`` action ``undo``: who, when, which event). ``after``: the
    revision the console showed (None: not checked); another one is refused as stale
    (:data:`STALE_CONSOLE`): the undo would take an event the console did not show. Returns
    the state replayed from the remaining events. GameConflict when there is nothing to
    undo."""
    if game.status == "closed":
        raise GameConflict(f"игра {game.id} закрыта: события закрытой игры не отменяются")
    if not game.events:
        raise GameConflict("отменять нечего: событий ещё нет")
    last = game.events[-1]
    if after is not None and after != events_revision(game.id):
        raise GameConflict(STALE_CONSOLE)
    cancel_draw(game, last.seq)
    db.session.add(
        GameEventAudit(
            game_id=game.id,
            action="undo",
            seq=last.seq,
            payload=dict(last.payload),
            by_user_id=user_id,
            at=utcnow(),
        )
    )
    game.events.remove(last)
    db.session.delete(last)
    if not game.events:  # 2023 §4.12.1: the rules are taken again at the new first event
        game.rules = None
    state = game_state(game)
    move_game(game, "finished" if state["finished"] else ("live" if game.events else "ready"))
    db.session.flush()
    return state


# --- protocol file import (contracts/game-protocol.md) --------------------------------------


def import_protocol(game: Game, data, user_id: int | None) -> dict:
    """Record the events of a ``sova.game-protocol/1`` file (``data``: the parsed JSON) into
    ``game``, which must have no events yet. The file's rule set and table must be the game's;
    its ``context`` is not trusted — every event is checked, one by one, by
    :func:`record_event` with the context computed from the database. All or nothing: on the
    first refusal GameConflict carries the protocol error (``event`` is the index in the
    file) and the caller rolls back. Returns the final state."""
    if game.events:
        raise GameConflict(
            f"в игре {game.id} уже есть события: протокол загружается в пустую игру",
            event=None,
            rule=None,
        )
    try:
        book, table, _context, events = load_protocol(data, BOOKS)
    except ProtocolError as exc:
        error = exc.to_json()["error"]
        raise GameConflict(error.pop("message"), **error) from exc
    if book is not game.season.book:
        raise GameConflict(
            f"файл — по правилам {book.name}, а игра — по правилам {game.season.ruleset}",
            event=None,
            rule=None,
        )
    if table != game.table:
        raise GameConflict(
            f"стол в файле {table} не совпадает со столом игры {game.table}", event=None, rule=None
        )
    rules = load_protocol_rules(data, BOOKS)
    if rules != game_rules(game):
        raise GameConflict(
            f"правила в файле {rules} не совпадают с правилами игры {game_rules(game)} "
            "(п. 4.12.1 Правил сезона 2023 г.)",
            event=None,
            rule=None,
        )
    state = game_state(game)
    for event in events:
        state = record_event(game, dict(event), user_id)
    return state
