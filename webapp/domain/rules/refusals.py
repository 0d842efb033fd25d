"""The game engine's refusals in the people's words: the wording of every refusal code, in
Russian, Belarusian and English, as data beside the rule sets.

The engine (:mod:`.game`, :func:`.table.check_plan`) raises :class:`.errors.RuleViolation`
with a stable ``code`` and its ``params`` (plain data: str, int, list of str) besides the
English ``message`` that the protocol's error JSON and ``sova game replay`` print. A person
reads :func:`refusal_text`: the sentence of :data:`WORDING` for the code, its ``{param}``
placeholders filled (a value named in :data:`TERMS` — a kind of round, an aid, an option, a
side — in the reader's words; a list joined with ``", "``), then the clause as every page
cites it (:func:`.rulesets.cite`: «п. 3.7.1 Правил сезона 2023 г.»).

A code says what is refused, whichever book refuses it; the clause comes from the book
(``rule``), so one sentence serves both books where they agree (e.g. ``spin_first``: 2023
§3.4, 2009 §1.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .errors import RuleViolation
from .rulesets import cite

LANGUAGES = ("ru", "be", "en")


def _w(ru: str, be: str, en: str) -> Mapping[str, str]:
    return MappingProxyType({"ru": ru, "be": be, "en": en})


#: ``code`` → ``{language: sentence with {param} placeholders}``. A sentence may start with
#: a placeholder: :func:`refusal_text` capitalises its first letter.
WORDING: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        # ---- the arrow and the round in play (2023 §3.2–§3.4, 2009 §1.2–§1.4)
        "spin_first": _w(
            "Вопрос ещё не выбран: сначала волчок.",
            "Пытанне яшчэ не выбрана: спачатку ваўчок.",
            "No question is in play: spin the top first.",
        ),
        "decisive_spin_first": _w(
            "Решающий раунд назначен: сначала волчок.",
            "Вырашальны раўнд прызначаны: спачатку ваўчок.",
            "The decisive round was granted: spin the top first.",
        ),
        "question_in_play": _w(
            "Идёт вопрос сектора {sector}: сначала ответ на него, {action} — потом.",
            "Ідзе пытанне сектара {sector}: спачатку адказ на яго, {action} — потым.",
            "The question of sector {sector} is in play: it must be answered before {action}.",
        ),
        "multi_in_play": _w(
            "Идёт {kind} в секторе {sector} (отвечено {answered} из 3): {action} — только "
            "после него.",
            "Ідзе {kind} у сектары {sector} (адказана {answered} з 3): {action} — толькі "
            "пасля яго.",
            "The {kind} in sector {sector} is in play ({answered} of 3 questions answered): "
            "{action} only after it.",
        ),
        "multi_lost": _w(
            "{kind} уже проигран (нужны были три верных ответа): {aid} теперь не берётся.",
            "{kind} ужо прайграны (патрэбныя былі тры правільныя адказы): {aid} цяпер не бярэцца.",
            "The {kind} is already lost (all three answers had to be right): no {aid} now.",
        ),
        "no_such_sector": _w(
            "На столе 13 секторов: стрелка не может указать на сектор {sector}.",
            "На стале 13 сектараў: стрэлка не можа паказаць на сектар {sector}.",
            "The table has sectors 1 to 13: the arrow cannot point at sector {sector}.",
        ),
        "all_sectors_played": _w(
            "Все секторы уже сыграны.",
            "Усе сектары ўжо сыграны.",
            "Every sector has been played.",
        ),
        "game_over": _w(
            "Игра окончена: победили {winner}, счёт {score}; больше событий нет.",
            "Гульня скончана: перамаглі {winner}, лік {score}; больш падзей няма.",
            "The game is over: the {winner} won {score}; nothing may follow.",
        ),
        # ---- sector 13 (2023 §3.4.3, §3.6.2; 2009 §1.4.1)
        "sector13_option_first": _w(
            "13 сектор: сначала команда выбирает вариант розыгрыша.",
            "13 сектар: спачатку каманда выбірае варыянт розыгрышу.",
            "Sector 13: the team must first choose how to play it.",
        ),
        "sector13_no_options": _w(
            "В 13 секторе играет вопрос телезрителя, присланный через Интернет: вариантов "
            "розыгрыша нет.",
            "У 13 сектары гуляе пытанне тэлегледача, дасланае праз Інтэрнэт: варыянтаў "
            "розыгрышу няма.",
            "Sector 13 plays a viewer's question sent over the Internet: there are no options.",
        ),
        "sector13_option_not_now": _w(
            "Вариант 13 сектора выбирают сразу после того, как волчок указал на 13 сектор.",
            "Варыянт 13 сектара выбіраюць адразу пасля таго, як ваўчок паказаў на 13 сектар.",
            "A sector 13 option is chosen right after a spin that lands on sector 13.",
        ),
        "sector13_option_used": _w(
            "Вариант {option} уже сыгран: он вернётся после вариантов {others}. Сейчас можно: "
            "{available}.",
            "Варыянт {option} ужо сыграны: ён вернецца пасля варыянтаў {others}. Цяпер можна: "
            "{available}.",
            "Option {option} was used already: it returns only after {others}. Available now: "
            "{available}.",
        ),
        "sector13_never_empty": _w(
            "Вопрос 13 сектора лежит на столе с начала игры: 13 сектор не бывает пустым.",
            "Пытанне 13 сектара ляжыць на стале з пачатку гульні: 13 сектар не бывае пустым.",
            "Sector 13 holds a question laid on the table before the game: it is never empty.",
        ),
        "sector13_empty_elsewhere": _w(
            "Пустым бывает только 13 сектор, а этот волчок указывает на сектор {sector}.",
            "Пустым бывае толькі 13 сектар, а гэты ваўчок паказвае на сектар {sector}.",
            "Only sector 13 can be empty, and this spin lands on sector {sector}.",
        ),
        # ---- the decisive round (2023 §3.6; 2009 has none, §1.8)
        "no_decisive_round": _w(
            "Игра идёт до 6 очков: решающего раунда в этих правилах нет.",
            "Гульня ідзе да 6 ачкоў: вырашальнага раўнда ў гэтых правілах няма.",
            "The game goes to 6 points: these rules have no decisive round.",
        ),
        "decisive_abolished": _w(
            "Решающий раунд в этой игре отменён изменением правил сезона.",
            "Вырашальны раўнд у гэтай гульні адменены зменай правілаў сезона.",
            "The decisive round was abolished for this game by an amendment of the rules.",
        ),
        "decisive_granted": _w(
            "Решающий раунд уже назначен: теперь волчок.",
            "Вырашальны раўнд ужо прызначаны: цяпер ваўчок.",
            "The decisive round was already granted: spin the top.",
        ),
        "decisive_not_at_short": _w(
            "Решающий раунд — только когда знатокам до победы не хватает одного очка "
            "(счёт {score}).",
            "Вырашальны раўнд — толькі калі знаўцам да перамогі не хапае аднаго ачка "
            "(лік {score}).",
            "A decisive round only when the experts are one point short of winning "
            "(score {score}).",
        ),
        "decisive_no_series_best": _w(
            "Лучший результат серии неизвестен: нет лидера, которого знатоки не смогли бы "
            "обойти без решающего раунда.",
            "Лепшы вынік серыі невядомы: няма лідара, якога знаўцы не змаглі б абысці без "
            "вырашальнага раўнда.",
            "No series best result is known: there is no leader the experts could fail to "
            "pass without a decisive round.",
        ),
        "decisive_not_needed": _w(
            "Знатоки ещё могут обойти лучший результат серии {best} без решающего раунда: "
            "победа в следующем раунде даёт {win}.",
            "Знаўцы яшчэ могуць абысці лепшы вынік серыі {best} без вырашальнага раўнда: "
            "перамога ў наступным раўндзе дае {win}.",
            "The experts can still pass the series best {best} without a decisive round: "
            "winning the next round gives {win}.",
        ),
        # ---- early answers and the extra minute (2023 §3.5, §3.5.1; 2009 §1.5)
        "extra_minute_decisive": _w(
            "В решающем раунде дополнительной минуты нет.",
            "У вырашальным раўндзе дадатковай хвіліны няма.",
            "No extra minute in the decisive round.",
        ),
        "extra_minute_sector13": _w(
            "В 13 секторе дополнительная минута не действует.",
            "У 13 сектары дадатковая хвіліна не дзейнічае.",
            "The extra minute does not apply in sector 13.",
        ),
        "extra_minute_none_held": _w(
            "У знатоков нет дополнительной минуты: её даёт верный досрочный ответ.",
            "У знаўцаў няма дадатковай хвіліны: яе дае правільны датэрміновы адказ.",
            "The experts hold no extra minute: a right early answer earns one.",
        ),
        "extra_minute_again": _w(
            "На один вопрос — одна дополнительная минута.",
            "На адно пытанне — адна дадатковая хвіліна.",
            "One extra minute per question.",
        ),
        "extra_minute_once_per_multi": _w(
            "{kind}: дополнительная минута берётся только на один из трёх вопросов.",
            "{kind}: дадатковая хвіліна бярэцца толькі на адно з трох пытанняў.",
            "In a {kind} the extra minute serves only one of the three questions.",
        ),
        "early_after_aid": _w(
            "Досрочный ответ даётся без минуты обсуждения, а на этот вопрос уже взято: {aids}.",
            "Датэрміновы адказ даецца без хвіліны абмеркавання, а на гэтае пытанне ўжо ўзята: "
            "{aids}.",
            "An early answer is given without the discussion minute, but this question "
            "already had: {aids}.",
        ),
        # ---- club help (2023 §3.7, §3.7.1; 2009 §1.7)
        "club_help_decisive": _w(
            "В решающем раунде помощи клуба нет.",
            "У вырашальным раўндзе дапамогі клуба няма.",
            "Club help does not apply to the decisive round.",
        ),
        "club_help_not_here": _w(
            "{kind}: помощь клуба здесь не действует.",
            "{kind}: дапамога клуба тут не дзейнічае.",
            "{kind}: club help does not apply here.",
        ),
        "club_help_none": _w(
            "В этой игре помощи клуба нет.",
            "У гэтай гульні дапамогі клуба няма.",
            "Club help is not given in this game.",
        ),
        "club_help_once": _w(
            "Помощь клуба — один раз за игру.",
            "Дапамога клуба — адзін раз за гульню.",
            "Club help is taken once a game.",
        ),
        "club_help_used_up": _w(
            "Помощь клуба в этой игре уже взята столько раз, сколько разрешено ({uses}).",
            "Дапамога клуба ў гэтай гульні ўжо ўзята столькі разоў, колькі дазволена ({uses}).",
            "Club help is taken at most {uses} times a game.",
        ),
        "club_help_again": _w(
            "Помощь клуба на этот вопрос уже была.",
            "Дапамога клуба на гэтае пытанне ўжо была.",
            "Club help was already given on this question.",
        ),
        "club_help_not_behind": _w(
            "Помощь клуба — только когда знатоки проигрывают (счёт {score}).",
            "Дапамога клуба — толькі калі знаўцы прайграюць (лік {score}).",
            "Club help only while the experts are behind (score {score}).",
        ),
        "answer_after_club_help": _w(
            "После помощи клуба знатоки отвечают.",
            "Пасля дапамогі клуба знаўцы адказваюць.",
            "After club help the experts must answer.",
        ),
        # ---- the minute on credit (2023 §3.8–§3.8.5; 2009 has none, §1.2)
        "no_credit_minute": _w(
            "Одна минута на вопрос: минуты в кредит в этих правилах нет.",
            "Адна хвіліна на пытанне: хвіліны ў крэдыт у гэтых правілах няма.",
            "One minute per question: these rules have no minute on credit.",
        ),
        "credit_abolished": _w(
            "Минута в кредит в этой игре отменена изменением правил сезона.",
            "Хвіліна ў крэдыт у гэтай гульні адменена зменай правілаў сезона.",
            "The minute on credit was abolished for this game by an amendment of the rules.",
        ),
        "credit_sector13": _w(
            "В 13 секторе минуты в кредит нет.",
            "У 13 сектары хвіліны ў крэдыт няма.",
            "No minute on credit in sector 13.",
        ),
        "credit_once": _w(
            "Минута в кредит — один раз за игру (её нужно вернуть).",
            "Хвіліна ў крэдыт — адзін раз за гульню (яе трэба вярнуць).",
            "The minute on credit is granted once a game (it must be repaid).",
        ),
        "credit_not_now": _w(
            "Минута в кредит — только при счёте телезрителей {viewers} и у знатоков не больше "
            "{experts} (счёт {score}).",
            "Хвіліна ў крэдыт — толькі пры ліку тэлегледачоў {viewers} і ў знаўцаў не больш "
            "за {experts} (лік {score}).",
            "A minute on credit only when the viewers have {viewers} points and the experts "
            "at most {experts} (score {score}).",
        ),
        "credit_before_extra_minute": _w(
            "Минута в кредит берётся после дополнительной минуты, а не до неё.",
            "Хвіліна ў крэдыт бярэцца пасля дадатковай хвіліны, а не да яе.",
            "The minute on credit comes after the extra minute, not before.",
        ),
        "credit_before_club_help": _w(
            "Минута в кредит берётся после помощи клуба, а не до неё.",
            "Хвіліна ў крэдыт бярэцца пасля дапамогі клуба, а не да яе.",
            "The minute on credit comes after club help, not before.",
        ),
        "credit_forced_no_aid": _w(
            "При счёте 5:5 и невозвращённом кредите ведущий забирает минуту обсуждения: на "
            "этот вопрос отвечают без обсуждения.",
            "Пры ліку 5:5 і невернутым крэдыце вядучы забірае хвіліну абмеркавання: на гэтае "
            "пытанне адказваюць без абмеркавання.",
            "At 5:5 with the minute on credit not repaid the host takes the discussion "
            "minute: this question is answered without discussion.",
        ),
        "credit_forced_early": _w(
            "При счёте 5:5 и невозвращённом кредите ведущий забирает минуту обсуждения: "
            "ответ только досрочный.",
            "Пры ліку 5:5 і невернутым крэдыце вядучы забірае хвіліну абмеркавання: адказ "
            "толькі датэрміновы.",
            "At 5:5 with the minute on credit not repaid the host takes the discussion "
            "minute: the answer must be early.",
        ),
        # ---- who answers (2023 §3.7.3; 2009 §1.6)
        "off_table": _w(
            "Знаток «{expert}» подсказывал (красная карточка) и начинает эту игру не за "
            "столом: вернётся за стол после верного ответа команды.",
            "Знаўца «{expert}» падказваў (чырвоная картка) і пачынае гэтую гульню не за "
            "сталом: вернецца за стол пасля правільнага адказу каманды.",
            "{expert} hinted (a red card) and starts this game off the table: back only "
            "after the team's right answer.",
        ),
        "removed": _w(
            "Знаток «{expert}» удалён из-за стола после неверного ответа и не отвечает до "
            "следующего верного ответа команды.",
            "Знаўца «{expert}» выдалены з-за стала пасля няправільнага адказу і не адказвае "
            "да наступнага правільнага адказу каманды.",
            "{expert} was removed after a wrong answer and may not answer until the team's "
            "next right answer.",
        ),
        "not_team_expert": _w(
            "«{expert}» — не знаток этой команды (знатоки: {experts}). По правилу удаления "
            "уходит из-за стола игрок команды, который отвечал: выберите его из списка.",
            "«{expert}» — не знаўца гэтай каманды (знаўцы: {experts}). Па правіле выдалення "
            "з-за стала выходзіць гулец каманды, які адказваў: выберыце яго са спісу.",
            "{expert} is not one of the team's experts ({experts}). The removal rule removes "
            "the player of the team who answered: choose them from the list.",
        ),
        # ---- the table plan (2009 §1.3, §1.4.2–§1.4.3)
        "plan_sector13_elsewhere": _w(
            "Вопросы из Интернета играют в 13-м секторе, а не в секторе {sector}.",
            "Пытанні з Інтэрнэту гуляюць у 13-м сектары, а не ў сектары {sector}.",
            "The Internet questions are in sector 13, not in sector {sector}.",
        ),
        "plan_multi_on_13": _w(
            "{kind} — один из двенадцати секторов с письмами, не 13-й.",
            "{kind} — адзін з дванаццаці сектараў з лістамі, не 13-ы.",
            "The {kind} is one of the twelve sectors of posted questions, not sector 13.",
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


def refusal_sentence(code: str, params: Mapping[str, Any], language: str = "ru") -> str:
    """The sentence of ``code`` (:data:`WORDING`) in ``language`` (``"ru"``, ``"be"``,
    ``"en"``; another reads as Russian) with ``params`` filled in, its first letter capital;
    ``KeyError`` for a code without wording."""
    lang = language if language in LANGUAGES else "ru"
    terms = TERMS[lang]
    shown = {name: _shown(name, value, terms) for name, value in params.items()}
    text = WORDING[code][lang].format(**shown)
    return text[:1].upper() + text[1:]


def refusal_text(violation: RuleViolation, language: str = "ru") -> str:
    """What a person reads of an engine's refusal: the sentence of its code in ``language``
    then the clause as pages cite it (:func:`.rulesets.cite`) — ``"Помощь клуба — только
    когда знатоки проигрывают (счёт 3:3). (п. 3.7.1 Правил сезона 2023 г.)"``; in English
    ``"Club help only while the experts are behind (score 3:3). (clause 3.7.1 of the 2023
    season rules)"``. A violation without a worded code (raised outside the engine) reads
    as its own ``message``."""
    lang = language if language in LANGUAGES else "ru"
    code = violation.code
    if code is not None and code in WORDING:
        sentence = refusal_sentence(code, violation.params, lang)
    else:
        sentence = violation.message
    reference = cite(violation.rule, lang)
    return f"{sentence} ({reference})" if reference else sentence
