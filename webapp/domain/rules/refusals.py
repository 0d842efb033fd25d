"""The game engine's refusals in the people's words: the wording of the refusal codes every
book may raise, in Russian, Belarusian and English, and how a sentence is filled in.

The engine (:mod:`.game`, :func:`.table.check_plan`) raises :class:`.errors.RuleViolation`
with a stable ``code`` and its ``params`` (plain data: str, int, list of str) besides the
English ``message`` that the protocol's error JSON and ``sova game replay`` print. A code
says what is refused, whichever book refuses it; the clause comes from the book (``rule``),
so one sentence serves every book that has the rule (e.g. ``spin_first``: 2023 §3.4, 2009
§1.4). The codes only one book raises (its decisive round, its minute on credit, its removal
rule…) are worded in that book (:attr:`.rulesets.RuleSet.wording`);
``webapp.domain.books.refusal_text`` puts the two together with the clause as pages cite it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .errors import RuleViolation

LANGUAGES = ("ru", "be", "en")


def words(ru: str, be: str, en: str) -> Mapping[str, str]:
    """One sentence in the three languages, as :data:`WORDING` and a book's wording hold it."""
    return MappingProxyType({"ru": ru, "be": be, "en": en})


#: ``code`` → ``{language: sentence with {param} placeholders}``. A sentence may start with
#: a placeholder: :func:`refusal_text` capitalises its first letter.
WORDING: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        # ---- the arrow and the round in play (2023 §3.2–§3.4, 2009 §1.2–§1.4)
        "spin_first": words(
            "Вопрос ещё не выбран: сначала волчок.",
            "Пытанне яшчэ не выбрана: спачатку ваўчок.",
            "No question is in play: spin the top first.",
        ),
        "question_in_play": words(
            "Идёт вопрос сектора {sector}: сначала ответ на него, {action} — потом.",
            "Ідзе пытанне сектара {sector}: спачатку адказ на яго, {action} — потым.",
            "The question of sector {sector} is in play: it must be answered before {action}.",
        ),
        "multi_in_play": words(
            "Идёт {kind} в секторе {sector} (отвечено {answered} из 3): {action} — только "
            "после него.",
            "Ідзе {kind} у сектары {sector} (адказана {answered} з 3): {action} — толькі "
            "пасля яго.",
            "The {kind} in sector {sector} is in play ({answered} of 3 questions answered): "
            "{action} only after it.",
        ),
        "multi_lost": words(
            "{kind} уже проигран (нужны были три верных ответа): {aid} теперь не берётся.",
            "{kind} ужо прайграны (патрэбныя былі тры правільныя адказы): {aid} цяпер не бярэцца.",
            "The {kind} is already lost (all three answers had to be right): no {aid} now.",
        ),
        "no_such_sector": words(
            "На столе 13 секторов: стрелка не может указать на сектор {sector}.",
            "На стале 13 сектараў: стрэлка не можа паказаць на сектар {sector}.",
            "The table has sectors 1 to 13: the arrow cannot point at sector {sector}.",
        ),
        "all_sectors_played": words(
            "Все секторы уже сыграны.",
            "Усе сектары ўжо сыграны.",
            "Every sector has been played.",
        ),
        "game_over": words(
            "Игра окончена: победили {winner}, счёт {score}; больше событий нет.",
            "Гульня скончана: перамаглі {winner}, лік {score}; больш падзей няма.",
            "The game is over: the {winner} won {score}; nothing may follow.",
        ),
        # ---- sector 13, whichever way the book plays it (2023 §3.4.3, 2009 §1.4.1)
        "sector13_empty_elsewhere": words(
            "Пустым бывает только 13 сектор, а этот волчок указывает на сектор {sector}.",
            "Пустым бывае толькі 13 сектар, а гэты ваўчок паказвае на сектар {sector}.",
            "Only sector 13 can be empty, and this spin lands on sector {sector}.",
        ),
        # ---- early answers and the extra minute (2023 §3.5, §3.5.1; 2009 §1.5)
        "extra_minute_none_held": words(
            "У знатоков нет дополнительной минуты: её даёт верный досрочный ответ.",
            "У знаўцаў няма дадатковай хвіліны: яе дае правільны датэрміновы адказ.",
            "The experts hold no extra minute: a right early answer earns one.",
        ),
        "extra_minute_again": words(
            "На один вопрос — одна дополнительная минута.",
            "На адно пытанне — адна дадатковая хвіліна.",
            "One extra minute per question.",
        ),
        "early_after_aid": words(
            "Досрочный ответ даётся без минуты обсуждения, а на этот вопрос уже взято: {aids}.",
            "Датэрміновы адказ даецца без хвіліны абмеркавання, а на гэтае пытанне ўжо ўзята: "
            "{aids}.",
            "An early answer is given without the discussion minute, but this question "
            "already had: {aids}.",
        ),
        # ---- club help (2023 §3.7, §3.7.1; 2009 §1.7)
        "club_help_not_here": words(
            "{kind}: помощь клуба здесь не действует.",
            "{kind}: дапамога клуба тут не дзейнічае.",
            "{kind}: club help does not apply here.",
        ),
        "club_help_none": words(
            "В этой игре помощи клуба нет.",
            "У гэтай гульні дапамогі клуба няма.",
            "Club help is not given in this game.",
        ),
        "club_help_once": words(
            "Помощь клуба — один раз за игру.",
            "Дапамога клуба — адзін раз за гульню.",
            "Club help is taken once a game.",
        ),
        "club_help_used_up": words(
            "Помощь клуба в этой игре уже взята столько раз, сколько разрешено ({uses}).",
            "Дапамога клуба ў гэтай гульні ўжо ўзята столькі разоў, колькі дазволена ({uses}).",
            "Club help is taken at most {uses} times a game.",
        ),
        "club_help_again": words(
            "Помощь клуба на этот вопрос уже была.",
            "Дапамога клуба на гэтае пытанне ўжо была.",
            "Club help was already given on this question.",
        ),
        "club_help_not_behind": words(
            "Помощь клуба — только когда знатоки проигрывают (счёт {score}).",
            "Дапамога клуба — толькі калі знаўцы прайграюць (лік {score}).",
            "Club help only while the experts are behind (score {score}).",
        ),
        "answer_after_club_help": words(
            "После помощи клуба знатоки отвечают.",
            "Пасля дапамогі клуба знаўцы адказваюць.",
            "After club help the experts must answer.",
        ),
    }
)

#: The values of the term parameters (``kind``, ``aid``, ``aids``, ``action``, ``option``,
#: ``others``, ``available``, ``winner``) in the reader's words, by language.
TERMS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "ru": MappingProxyType(
            {
                "single": "вопрос",
                "blitz": "блиц",
                "superblitz": "суперблиц",
                "sector13": "13 сектор",
                "extra_minute": "дополнительная минута",
                "credit_minute": "минута в кредит",
                "club_help": "помощь клуба",
                "spin": "волчок",
                "decisive_round": "решающий раунд",
                "six": "«шестеро»",
                "three": "«трое»",
                "one": "«один знаток»",
                "experts": "знатоки",
                "viewers": "телезрители",
            }
        ),
        "be": MappingProxyType(
            {
                "single": "пытанне",
                "blitz": "бліц",
                "superblitz": "супербліц",
                "sector13": "13 сектар",
                "extra_minute": "дадатковая хвіліна",
                "credit_minute": "хвіліна ў крэдыт",
                "club_help": "дапамога клуба",
                "spin": "ваўчок",
                "decisive_round": "вырашальны раўнд",
                "six": "«шасцёра»",
                "three": "«трое»",
                "one": "«адзін знаўца»",
                "experts": "знаўцы",
                "viewers": "тэлегледачы",
            }
        ),
        "en": MappingProxyType(
            {
                "single": "question",
                "blitz": "blitz",
                "superblitz": "superblitz",
                "sector13": "sector 13",
                "extra_minute": "extra minute",
                "credit_minute": "minute on credit",
                "club_help": "club help",
                "spin": "the spin",
                "decisive_round": "the decisive round",
                "six": "“six”",
                "three": "“three”",
                "one": "“one expert”",
                "experts": "experts",
                "viewers": "viewers",
            }
        ),
    }
)

#: The parameters whose values are terms (:data:`TERMS`); the others are shown as they are.
TERM_PARAMS = frozenset(
    {"kind", "aid", "aids", "action", "option", "others", "available", "winner"}
)


def _shown(name: str, value: Any, terms: Mapping[str, str]) -> str:
    """One parameter's value as the sentence shows it: a term in the reader's words, a list
    joined with ``", "``, anything else as ``str()``."""
    if isinstance(value, list | tuple):
        return ", ".join(_shown(name, item, terms) for item in value)
    if name in TERM_PARAMS and isinstance(value, str):
        return terms.get(value, value)
    return str(value)


def refusal_sentence(
    code: str,
    params: Mapping[str, Any],
    language: str = "ru",
    wording: Mapping[str, Mapping[str, str]] = WORDING,
) -> str:
    """The sentence of ``code`` in ``wording`` (a book's own codes over :data:`WORDING`) in
    ``language`` (``"ru"``, ``"be"``, ``"en"``; another reads as Russian) with ``params``
    filled in, its first letter capital; ``KeyError`` for a code without wording."""
    lang = language if language in LANGUAGES else "ru"
    terms = TERMS[lang]
    shown = {name: _shown(name, value, terms) for name, value in params.items()}
    text = wording[code][lang].format(**shown)
    return text[:1].upper() + text[1:]


def worded(
    violation: RuleViolation, language: str, wording: Mapping[str, Mapping[str, str]]
) -> str:
    """The sentence of ``violation`` in ``language``: its code's sentence in ``wording``
    (:func:`refusal_sentence`), or its own English ``message`` when the code has none (a
    violation raised outside the engine)."""
    code = violation.code
    if code is not None and code in wording:
        return refusal_sentence(code, violation.params, language, wording)
    return violation.message
