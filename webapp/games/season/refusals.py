"""The season's refusals: the conflict its rules raise, the Russian text the staff pages show
for it, and the check a new game of a season passes before it is created.

Below the season's writes (:mod:`.operations` and :mod:`.events` raise :class:`SeasonConflict`
and call :func:`check_new_game`) and above its reads (:mod:`.queries` replays the season).
"""

from __future__ import annotations

from webapp.domain.books import rule_reference, season_refusal_text
from webapp.domain.donor import quoted
from webapp.domain.rules import ProtocolError
from webapp.domain.season import SeasonViolation
from webapp.domain.text import team_phrase
from webapp.games.models import Season, Team
from webapp.games.operations import GameConflict
from webapp.games.season import queries as sq

#: Russian gist of the season's clauses, for the staff pages where a refusal carries no
#: Russian fault of its own (every refusal of the season engine carries one, with its
#: Belarusian and English, ``SeasonViolation.texts``); the clause is always shown.
REFUSALS_RU = {
    "§3.6": "решающий раунд здесь не положен",
    "§3.10": "счёт законченной игры — у одной из сторон 6 очков",
    "§1.8": "игра идёт до 6 очков",
    "§4.1": "эта игра или серия сейчас не по порядку сезона",
    "§4.2.3": "рейтинг осенней серии формируется по правилам",
    "§4.4": "команда выбыла из сезона после второго поражения",
    "§4.6": "в специальной игре играет команда вне рейтинга",
    "§4.7.1": "финал серии играет первая команда рейтинга",
    "§4.7.2": "команда сыграла финал серии и уже вышла в зимнюю серию",
    "§4.8": (
        "отборочные игры серии идут снизу вверх по рейтингу: "
        "первой играет команда с последнего места, последней — с первого"
    ),
    "§4.8.1": "команда отказывается от серии до своей первой игры в ней",
    "§4.9": "зимний рейтинг формируется по правилам",
    "§4.9.3": "резервные команды — только для зимней серии",
    "§4.10": "финал года играет первая команда зимнего рейтинга",
    "§2.3": "команда отказалась от этой серии",
    "§2.4": "команда не в списке серии или уже сыграла в ней",
    "§2.5": "серии идут по порядку: весенняя, летняя, осенняя, зимняя",
    "§2.6": "эта игра или серия сейчас не по порядку сезона",
    "§2.9": "финал серии играет первая команда рейтинга",
    "§2.10": "переигровка — только проигравшему финал серии",
    "§2.11": "команда выбыла из сезона",
    "§2.12": "отказ от зимней серии — только победителю финала серии",
    "§2.13": "команда спонсора входит в зимний рейтинг одна",
    "§2.15": "при четырёх командах финал Зимней серии отменён",
    "§2.16": "при трёх командах в Зимней серии 3 отборочные игры и финал",
    "§2.17": "в Зимней серии играют не меньше трёх команд",
    "§2.14": "первую зимнюю отборочную игру играет команда спонсора",
    "§2.18": "финал года играет первая команда рейтинга",
}


class SeasonConflict(GameConflict):
    """The season's rules or state refuse the action (HTTP 409). ``error``: ``{"event",
    "rule", "message"}`` — for a refusal by the rules the season engine's error object
    (``rule`` cites the clause), else ``rule`` None. ``ru``: the engine's Russian fault
    (``SeasonViolation.ru``; not in the API's body).
    ``str()`` is the Russian text for the staff pages (:func:`refusal_ru`)."""

    def __init__(self, message: str, ru: str | None = None, **extra):
        super().__init__(message, **extra)
        self.ru = ru

    def __str__(self) -> str:
        return refusal_ru(self.error, self.ru)


def refusal_ru(error: dict, ru: str | None = None) -> str:
    """The refusal for a Russian page: what is wrong and the clause as staff read it
    (``"«Потапова» уже играла в весенней серии и отказаться от неё больше не может (п. 4.8.1
    Правил сезона 2023 г.)"``, ``webapp.domain.rules.rule_reference``). ``ru``: the engine's
    Russian fault (``SeasonViolation.ru``, which every refusal of the engine carries); without
    it the gist of the clause (:data:`REFUSALS_RU`); without a clause, the operation's own
    (Russian) message."""
    rule = error.get("rule")
    if not rule:
        return str(error.get("message", ""))
    clause = rule.split(" ", 1)[-1]
    gist = ru or REFUSALS_RU.get(clause, "отказ по правилам сезона")
    return f"{gist} ({rule_reference(rule)})"


def conflict(exc: SeasonViolation | ProtocolError) -> SeasonConflict:
    """The engine's refusal as a SeasonConflict whose ``message`` (the API's 409 body) is the
    Russian text the staff pages show (:func:`refusal_ru`: the fault and the clause as
    «п. 4.12.1 Правил сезона 2023 г.»), as every other refusal of an operation is written
    (``docs/api.md``, «The language of error texts»); ``rule`` keeps the contract's form.
    Malformed input (a ProtocolError, ``rule`` None) gives its own Russian text where it has
    one (the season's events do)."""
    error = exc.to_json()["error"]
    ru = getattr(exc, "ru", None)
    message = error.pop("message")
    if isinstance(exc, SeasonViolation) and ru is not None:
        message = season_refusal_text(exc, "ru")
    elif ru is not None:
        message = refusal_ru({**error, "message": ru}, ru)
    return SeasonConflict(message, ru=ru, **error)


def check_new_game(season: Season, kind: str, team: Team | None) -> None:
    """Before a game of ``kind`` by ``team`` is created (or its team set) in a season kept by
    the engine: the team must be of the season and the rules must allow its game now
    (``Season.check_game``: 2023 §4.4, §4.6, §4.7.1, §4.8, §4.10; 2009 §2.3–2.18). Raises
    SeasonConflict with the clause. A game without a team is not checked (the producer sets
    the team later; the close checks the result)."""
    if team is None or not sq.managed(season):
        return
    if sq.team_of_season(season, team.id) is None:
        raise SeasonConflict(
            f"{team_phrase(team.name)} не из сезона {quoted(season.name)}", event=None, rule=None
        )
    eng = sq.engine(season)
    kind = sq.season_kind(season.ruleset, kind, team.name, eng)
    try:
        eng.check_game(kind, team.name, index=len(sq.stored_events(season)))
    except (SeasonViolation, ProtocolError) as exc:
        raise conflict(exc) from exc
