"""The host console's view model: the state its parts are rendered from
(``templates/games/_console.html``, for the page and for the parts answered after each
action), and a refusal as the host reads it (:func:`refusal_ru`; the wording of the engine's
refusals lives with the rule books, ``webapp.domain.rules.refusals``).

Shape of :func:`console_payload` (JSON-able)::

    {"game": {"id", "title", "status", "ruleset", "team": name | None,
              "team_label": "Команда «Королёва»" | "Команда Анны" | "Знатоки",
              "rules": [{"label", "value"}]},   # the game's own rules that differ (§4.12.1)
     "start_refusal": None | "Игру нельзя начать: …",   # operations.start_refusal; no actions then
     "score": "E:V", "finished": bool, "winner": "experts"|"viewers"|None,
     "sectors": [{"sector": 1..13, "kind", "label", "played": bool, "current": bool,
                  "empty": bool}],   # empty: a 2009 sector 13 passed over (§1.4.1)
     "current": None | {"sector", "kind", "label", "slot", "slots", "decisive": bool,
                        "text", "handout", "answer", "accepted", "comment", "option",
                        "parts": {"text": [part…], "handout": [part…]},
                        "handout_image": stored file | None,
                        "draw": None | {"seed", "candidates": int,
                                        "candidates_text": "3 вопроса", "question_id",
                                        "card": None | {"document_id", "status"}},
                        "notice": None | "13 сектор пуст: … (п. 1.4.1 …)"},
     "allowed": ["spin", …],                 # webapp.domain.rules.allowed_actions
     "answer_modes": ["discussed", "early"],  # webapp.domain.rules.answer_modes
     "actions": [{"type", "label", "fields": {...}, "style",   # one big button each (the
                                             # minute taps after the answer buttons)
                  "expert_pick"?: {"label", "choices": [{"name", "disabled", "note"}]}}],
     "extra_minutes_held": int, "credit": "none"|"outstanding"|"repaid",
     "removed_experts": [name…], "events": int, "experts": [name…],
     "revision": int,   # webapp.games.queries.events_revision: each form sends it back
     "last_event": None | {"seq", "type", "label"}}

``current.notice`` says why the round is played where it is when the arrow landed on an
empty 2009 sector 13 (:func:`sector13_notice`); a 2009 sector-13 round with no drawn
question (recorded before empty spins were marked) offers no answer, only the undo.

``current.text`` is the question without a leading ``[Раздаточный материал: …]`` block that
repeats ``handout`` (shown once, under «Раздаточный материал», as the envelope prints it);
``parts`` cut the text and the handout at their image references (``{"text"}`` or
``{"image", "file"}``, :meth:`Question.image_parts`): the page shows each image
(``/uploads/<file>``), never the ``(img …)`` reference.
"""

from __future__ import annotations

from webapp.domain.books import cite
from webapp.domain.handouts import without_leading_handout
from webapp.domain.rules import allowed_actions, answer_modes
from webapp.domain.text import quantity, team_phrase
from webapp.games.models import Game
from webapp.games.operations import (
    draw_card,
    game_context,
    game_rules,
    game_state,
    rules_shown,
    start_refusal,
)
from webapp.games.operations.play import QUESTION_EVENTS
from webapp.games.queries import current_draw, events_revision

SECTOR_LABELS = {
    "single": "Вопрос",
    "blitz": "Блиц",
    "superblitz": "Суперблиц",
    "sector13": "13 сектор",
}
EVENT_LABELS = {
    "spin": "Волчок",
    "decisive_round": "Решающий раунд",
    "sector13_option": "Вариант 13 сектора",
    "answer": "Ответ",
    "club_help": "Помощь клуба",
    "credit_minute": "Минута в кредит",
    "extra_minute": "Дополнительная минута",
    "red_card": "Красная карточка",
    "minute": "Минута обсуждения",
}
MINUTE_LABELS = {"start": "пошла", "stop": "остановлена"}
#: The host's optional minute taps (game protocol ``minute``), next to the answer buttons
#: while a question is open and the team has its minute of discussion: they anchor the
#: broadcast graphics' countdown.
MINUTE_TAPS = (
    {"type": "minute", "label": "Минута пошла", "fields": {"minute": "start"}, "style": "minute"},
    {"type": "minute", "label": "Минута стоп", "fields": {"minute": "stop"}, "style": "minute"},
)
OPTION_LABELS = {
    "six": "Шестеро, 10 секунд",
    "three": "Трое, 20 секунд",
    "one": "Один знаток, минута",
}


def refusal_ru(error: dict) -> str:
    """The refusal as the host reads it. A refusal by the rules (``error.rule`` set) is
    already the person's Russian sentence with its clause — the engine's through
    ``webapp.domain.rules.refusal_text`` (``"Помощь клуба — только когда знатоки
    проигрывают (счёт 3:3). (п. 3.7.1 Правил сезона 2023 г.)"``), the operations' written
    so — and is shown as it is, its first letter capital; the JSON ``error.rule`` keeps the
    citation. The console's own refusal to start says its reason as it is; anything else
    (``rule`` None: the operations' own refusals, a form field the host's slip left wrong,
    «Сектор: неверное целое число») is its sentence with a capital letter too, and the page
    puts only «Отказано: » before it: the host reads one label, then what to put right."""
    message = str(error.get("message", ""))
    if error.get("start"):  # the console's own refusal to start (operations.start_refusal)
        return message
    return message[:1].upper() + message[1:]


def _event_label(payload: dict) -> str:
    label = EVENT_LABELS.get(payload.get("type") or "", payload.get("type", "?"))
    if payload.get("type") == "spin":
        return f"{label}: сектор {payload.get('sector')}"
    if payload.get("type") == "answer":
        verdict = "верно" if payload.get("correct") else "неверно"
        early = ", досрочно" if payload.get("early") else ""
        expert = f" ({payload['expert']})" if payload.get("expert") else ""
        return f"{label}: {verdict}{early}{expert}"
    if payload.get("type") == "red_card" and payload.get("expert"):
        return f"{label}: подсказал {payload['expert']}"
    if payload.get("type") == "sector13_option":
        return f"{label}: {OPTION_LABELS.get(payload.get('option') or '', payload.get('option'))}"
    if payload.get("type") == "minute":
        return f"{label}: {MINUTE_LABELS.get(payload.get('action') or '', payload.get('action'))}"
    return label


def expert_picks(game: Game, off_table: list[str]) -> dict[str, dict]:
    """The «who» lists of the 2023 hint clause (000_90d7c8192601ed3a.txt §3.7.3: the expert
    who hinted starts his team's next game off the table until its right answer), by event
    type: ``{"red_card": pick, "answer"?: pick}``, each pick
    ``{"label", "choices": [{"name", "disabled": bool, "note": str}]}`` over the team's
    experts (``game.team_row.experts``), sent as the event's ``expert``. The red card names
    who hinted; the answer names who answered only while someone is off the table
    (``off_table``, from the replay), and those experts are shown but cannot be chosen, the
    note citing the clause. ``{}`` under 2009 (no such clause) or without a team's experts."""
    ruleset = game.season.book.rules
    experts = [n for n in (game.team_row.experts or []) if n.strip()] if game.team_row else []
    if not ruleset.off_table_after_hint or not experts:
        return {}
    picks = {
        "red_card": {
            "label": "Подсказал",
            "choices": [{"name": n, "disabled": False, "note": ""} for n in experts],
        }
    }
    if off_table:
        note = f" (не за столом, {cite(ruleset.cite('off_table'))})"
        picks["answer"] = {
            "label": "Отвечал",
            "choices": [
                {"name": n, "disabled": n in off_table, "note": note if n in off_table else ""}
                for n in experts
            ],
        }
    return picks


def hinter_refusal(game: Game, event: dict) -> str | None:
    """The console names who hinted from the team's list (:func:`expert_picks`): a red card
    naming anyone else (a hand-made form) is refused, in Russian, so that §3.7.3 keeps the
    right expert off the table; None when the event is fine. (The API may also name a
    hinter of another team with ``team``, ``contracts/game-protocol.md``.)"""
    expert = event.get("expert")
    if event.get("type") != "red_card" or expert is None:
        return None
    pick = expert_picks(game, []).get("red_card")
    names = [c["name"] for c in pick["choices"]] if pick else []
    if expert in names:
        return None
    if not names:
        return (
            "подсказавшего знатока называют только в игре команды со списком знатоков "
            "по правилам 2023 г. (п. 3.7.3 Правил сезона 2023 г.)"
        )
    return f"«{expert}» — не знаток этой команды (знатоки: {', '.join(names)}): выберите из списка"


def _actions(
    allowed: list[str], current: dict | None, modes: list[str], picks: dict | None = None
) -> list[dict]:
    """One big button per accepted event (a spin needs the sector: a form with a number).
    The answer buttons follow ``modes`` (``webapp.domain.rules.answer_modes``): the «досрочно»
    box only when both an early and a discussed answer are accepted; when only an early one
    is (§3.8.4), the buttons send ``early`` themselves and say so. ``picks``
    (:func:`expert_picks`): the «who» list an event type's form carries."""
    out: list[dict] = []
    only_early = modes == ["early"]
    early_fields = {"early": "y"} if only_early else {}
    early_label = " (досрочно)" if only_early else ""
    for kind in allowed:
        if kind == "spin":
            out.append(
                {
                    "type": "spin",
                    "label": "Волчок",
                    "fields": {},
                    "style": "primary",
                    "needs_sector": True,
                }
            )
        elif kind == "answer":
            out.append(
                {
                    "type": "answer",
                    "label": "Верно" + early_label,
                    "style": "primary",
                    "fields": {"correct": "true", **early_fields},
                    "early_option": len(modes) == 2,
                }
            )
            out.append(
                {
                    "type": "answer",
                    "label": "Неверно" + early_label,
                    "style": "danger",
                    "fields": {"correct": "false", **early_fields},
                    "early_option": len(modes) == 2,
                }
            )
            if not only_early:  # §3.8.4: an early answer only, so no minute to count down
                out.extend(dict(tap) for tap in MINUTE_TAPS)
        elif kind == "sector13_option":
            for option, label in OPTION_LABELS.items():
                out.append(
                    {"type": kind, "label": label, "fields": {"option": option}, "style": ""}
                )
        else:
            out.append({"type": kind, "label": EVENT_LABELS[kind], "fields": {}, "style": ""})
    for action in out:
        if picks and action["type"] in picks:
            action["expert_pick"] = picks[action["type"]]
    return out


def sector13_notice(game: Game, sector: int) -> str:
    """What the host reads when the arrow landed on an empty 2009 sector 13 and the round is
    played in ``sector`` instead (002_e025d5ded135c1c4.txt §1.4.1 with §1.4; reading in
    ``docs/rules.md``)."""
    rules = game.season.book.rules
    return (
        "13 сектор пуст: к моменту вращения ни один вопрос зрителей не одобрен редакторами "
        "с проверенными источниками — компьютеру не из чего выбирать. 13 сектор выпал и "
        "больше в этой игре не играет; вопрос задаётся из следующего по часовой стрелке "
        f"сектора {sector} ({cite(rules.cite('sector13'))}; {cite(rules.cite('spin'))})."
    )


NO_SECTOR13_QUESTION = (
    "В 13 секторе нет вопроса: отмените вращение и запишите его снова — пустой 13 сектор "
    "пропускается ({rule})."
)


def _current(game: Game, state: dict, allowed: list[str]) -> dict | None:
    """The question the host reads now: the first unasked question of the open round."""
    if not state["rounds"] or not ({"answer", "sector13_option", "red_card"} & set(allowed)):
        return None
    rnd = state["rounds"][-1]
    slot = next((q["slot"] for q in rnd["questions"] if not q["asked"]), None)
    if slot is None:
        return None
    envelope = next((e for e in game.envelopes if e.sector == rnd["sector"]), None)
    eq = next((q for q in envelope.questions if q.slot == slot), None) if envelope else None
    q = eq.question if eq else None
    draw = None
    if rnd["kind"] == "sector13" and game.season.book.sector13_drawn_at_spin:
        row = current_draw(game)
        if row is not None:
            q = q or row.question
            draw = {
                "seed": row.seed,
                "candidates": len(row.candidates),
                "candidates_text": quantity(len(row.candidates), ("вопрос", "вопроса", "вопросов")),
                "question_id": row.question_id,
                "card": sector13_card(row),
            }
    text = without_leading_handout(q.text, q.handout) if q else None
    return {
        "sector": rnd["sector"],
        "kind": rnd["kind"],
        "label": SECTOR_LABELS.get(rnd["kind"], rnd["kind"]),
        "slot": slot,
        "slots": len(rnd["questions"]),
        "decisive": bool(rnd.get("decisive")),
        "text": text,
        "handout": q.handout if q else None,
        "parts": {
            "text": q.image_parts(text) if q else [],
            "handout": q.image_parts(q.handout) if q else [],
        },
        "handout_image": q.handout_image if q else None,
        "answer": q.answer if q else None,
        "accepted": q.accepted if q else None,
        "comment": q.comment if q else None,
        "draw": draw,
        "notice": _notice(game, rnd, q),
        "option": next(
            (a.split(":", 1)[1] for a in rnd["aids"] if a.startswith("sector13_option:")), None
        ),
    }


def _notice(game: Game, rnd: dict, q) -> str | None:
    """The current round's :func:`sector13_notice`, or the 2009 sector-13 round without a
    question (:data:`NO_SECTOR13_QUESTION`), or None."""
    if rnd.get("sector13_empty"):
        return sector13_notice(game, rnd["sector"])
    if _no_live_question(game, rnd, q):
        rule = game.season.book.rules.cite("sector13")
        return NO_SECTOR13_QUESTION.format(rule=cite(rule))
    return None


def _no_live_question(game: Game, rnd: dict, q) -> bool:
    """A round in the 2009 sector 13 (drawn at the spin) that holds no question."""
    rules = game.season.book.rules
    return rnd["kind"] == "sector13" and rules.sector13_drawn_at_spin and q is None


def sector13_card(draw) -> dict | None:
    """The host card of a 2009 draw (``operations.draw_sector13`` queues it):
    ``{"document_id", "status": "pending"|"ready"|"failed"}``, or None when nothing was
    drawn (an empty envelope has no card)."""
    doc = draw_card(draw)
    return {"document_id": doc.id, "status": doc.status} if doc is not None else None


def console_payload(game: Game) -> dict:
    """The console's view of ``game``, derived by replaying its events (shape above)."""
    state = game_state(game)
    events = [e.payload for e in game.events]
    context = game_context(game)
    rules = game_rules(game)  # 2023 §4.12.1: the game's own parameters
    allowed = allowed_actions(game.season.book, game.table, context, events, rules)
    modes = answer_modes(game.season.book, game.table, context, events, rules)
    refused_start = start_refusal(game)
    current = _current(game, state, allowed)
    if current is not None and current["text"] is None and current["kind"] == "sector13":
        if _no_live_question(game, state["rounds"][-1], None):
            allowed = [kind for kind in allowed if kind not in QUESTION_EVENTS]
    played = {r["sector"] for r in state["rounds"]}
    # 2009 §1.4.1: an empty sector 13 fell and is out for the game, though nobody played it
    empty = {game.table["sector13"] for r in state["rounds"] if r.get("sector13_empty")}
    sectors = []
    for sector in range(1, 14):
        kind = game.sector_kind(sector)
        sectors.append(
            {
                "sector": sector,
                "kind": kind,
                "label": SECTOR_LABELS[kind],
                "played": sector in played or sector in empty,
                "current": bool(current and current["sector"] == sector),
                "empty": sector in empty,
            }
        )
    last = game.events[-1] if game.events else None
    team = game.team_row.name if game.team_row else (game.team or None)
    return {
        "game": {
            "id": game.id,
            "title": game.display_title,
            "status": game.status,
            "ruleset": game.season.ruleset,
            "team": team,
            "team_label": team_phrase(team, capital=True) if team else "Знатоки",
            # 2023 §4.12.1: the game's own rules where they differ from the book's
            "rules": rules_shown(game, rules),
        },
        "start_refusal": refused_start,
        "score": state["score"],
        "finished": state["finished"],
        "winner": state["winner"],
        "sectors": sectors,
        "current": current,
        "allowed": allowed,
        "answer_modes": modes,
        "actions": []
        if refused_start
        else _actions(allowed, current, modes, expert_picks(game, state.get("off_table", []))),
        "extra_minutes_held": state["extra_minutes_held"],
        "credit": state["credit"],
        "removed_experts": state["removed_experts"],
        "events": len(events),
        "revision": events_revision(game.id),
        "off_table": state.get("off_table", []),  # 2023 §3.7.3
        "experts": list(game.team_row.experts) if game.team_row else [],
        "last_event": (
            {"seq": last.seq, "type": last.payload.get("type"), "label": _event_label(last.payload)}
            if last
            else None
        ),
    }
