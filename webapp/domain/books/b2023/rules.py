"""The 2023 rule book's game (000_90d7c8192601ed3a.txt §3): its :class:`RuleSet`, its amendable
parameters (§4.12.1) and the wording of the refusals only this book raises (its decisive
round, its minute on credit, sector 13's options, a hinting expert off the table)."""

from __future__ import annotations

from types import MappingProxyType

from webapp.domain.rules.refusals import words
from webapp.domain.rules.rulesets import BLITZ, SECTOR13, SINGLE, SUPERBLITZ, RuleSet

WORDING = MappingProxyType(
    {
        "decisive_spin_first": words(
            "Решающий раунд назначен: сначала волчок.",
            "Вырашальны раўнд прызначаны: спачатку ваўчок.",
            "The decisive round was granted: spin the top first.",
        ),
        "sector13_option_first": words(
            "13 сектор: сначала команда выбирает вариант розыгрыша.",
            "13 сектар: спачатку каманда выбірае варыянт розыгрышу.",
            "Sector 13: the team must first choose how to play it.",
        ),
        "sector13_option_not_now": words(
            "Вариант 13 сектора выбирают сразу после того, как волчок указал на 13 сектор.",
            "Варыянт 13 сектара выбіраюць адразу пасля таго, як ваўчок паказаў на 13 сектар.",
            "A sector 13 option is chosen right after a spin that lands on sector 13.",
        ),
        "sector13_option_used": words(
            "Вариант {option} уже сыгран: он вернётся после вариантов {others}. Сейчас можно: "
            "{available}.",
            "Варыянт {option} ужо сыграны: ён вернецца пасля варыянтаў {others}. Цяпер можна: "
            "{available}.",
            "Option {option} was used already: it returns only after {others}. Available now: "
            "{available}.",
        ),
        "sector13_never_empty": words(
            "Вопрос 13 сектора лежит на столе с начала игры: 13 сектор не бывает пустым.",
            "Пытанне 13 сектара ляжыць на стале з пачатку гульні: 13 сектар не бывае пустым.",
            "Sector 13 holds a question laid on the table before the game: it is never empty.",
        ),
        "decisive_abolished": words(
            "Решающий раунд в этой игре отменён изменением правил сезона.",
            "Вырашальны раўнд у гэтай гульні адменены зменай правілаў сезона.",
            "The decisive round was abolished for this game by an amendment of the rules.",
        ),
        "decisive_granted": words(
            "Решающий раунд уже назначен: теперь волчок.",
            "Вырашальны раўнд ужо прызначаны: цяпер ваўчок.",
            "The decisive round was already granted: spin the top.",
        ),
        "decisive_not_at_short": words(
            "Решающий раунд — только когда знатокам до победы не хватает одного очка "
            "(счёт {score}).",
            "Вырашальны раўнд — толькі калі знаўцам да перамогі не хапае аднаго ачка "
            "(лік {score}).",
            "A decisive round only when the experts are one point short of winning "
            "(score {score}).",
        ),
        "decisive_no_series_best": words(
            "Лучший результат серии неизвестен: нет лидера, которого знатоки не смогли бы "
            "обойти без решающего раунда.",
            "Лепшы вынік серыі невядомы: няма лідара, якога знаўцы не змаглі б абысці без "
            "вырашальнага раўнда.",
            "No series best result is known: there is no leader the experts could fail to "
            "pass without a decisive round.",
        ),
        "decisive_not_needed": words(
            "Знатоки ещё могут обойти лучший результат серии {best} без решающего раунда: "
            "победа в следующем раунде даёт {win}.",
            "Знаўцы яшчэ могуць абысці лепшы вынік серыі {best} без вырашальнага раўнда: "
            "перамога ў наступным раўндзе дае {win}.",
            "The experts can still pass the series best {best} without a decisive round: "
            "winning the next round gives {win}.",
        ),
        "extra_minute_decisive": words(
            "В решающем раунде дополнительной минуты нет.",
            "У вырашальным раўндзе дадатковай хвіліны няма.",
            "No extra minute in the decisive round.",
        ),
        "extra_minute_sector13": words(
            "В 13 секторе дополнительная минута не действует.",
            "У 13 сектары дадатковая хвіліна не дзейнічае.",
            "The extra minute does not apply in sector 13.",
        ),
        "extra_minute_once_per_multi": words(
            "{kind}: дополнительная минута берётся только на один из трёх вопросов.",
            "{kind}: дадатковая хвіліна бярэцца толькі на адно з трох пытанняў.",
            "In a {kind} the extra minute serves only one of the three questions.",
        ),
        "club_help_decisive": words(
            "В решающем раунде помощи клуба нет.",
            "У вырашальным раўндзе дапамогі клуба няма.",
            "Club help does not apply to the decisive round.",
        ),
        "credit_abolished": words(
            "Минута в кредит в этой игре отменена изменением правил сезона.",
            "Хвіліна ў крэдыт у гэтай гульні адменена зменай правілаў сезона.",
            "The minute on credit was abolished for this game by an amendment of the rules.",
        ),
        "credit_sector13": words(
            "В 13 секторе минуты в кредит нет.",
            "У 13 сектары хвіліны ў крэдыт няма.",
            "No minute on credit in sector 13.",
        ),
        "credit_once": words(
            "Минута в кредит — один раз за игру (её нужно вернуть).",
            "Хвіліна ў крэдыт — адзін раз за гульню (яе трэба вярнуць).",
            "The minute on credit is granted once a game (it must be repaid).",
        ),
        "credit_not_now": words(
            "Минута в кредит — только при счёте телезрителей {viewers} и у знатоков не больше "
            "{experts} (счёт {score}).",
            "Хвіліна ў крэдыт — толькі пры ліку тэлегледачоў {viewers} і ў знаўцаў не больш "
            "за {experts} (лік {score}).",
            "A minute on credit only when the viewers have {viewers} points and the experts "
            "at most {experts} (score {score}).",
        ),
        "credit_before_extra_minute": words(
            "Минута в кредит берётся после дополнительной минуты, а не до неё.",
            "Хвіліна ў крэдыт бярэцца пасля дадатковай хвіліны, а не да яе.",
            "The minute on credit comes after the extra minute, not before.",
        ),
        "credit_before_club_help": words(
            "Минута в кредит берётся после помощи клуба, а не до неё.",
            "Хвіліна ў крэдыт бярэцца пасля дапамогі клуба, а не да яе.",
            "The minute on credit comes after club help, not before.",
        ),
        "credit_forced_no_aid": words(
            "При счёте 5:5 и невозвращённом кредите ведущий забирает минуту обсуждения: на "
            "этот вопрос отвечают без обсуждения.",
            "Пры ліку 5:5 і невернутым крэдыце вядучы забірае хвіліну абмеркавання: на гэтае "
            "пытанне адказваюць без абмеркавання.",
            "At 5:5 with the minute on credit not repaid the host takes the discussion "
            "minute: this question is answered without discussion.",
        ),
        "credit_forced_early": words(
            "При счёте 5:5 и невозвращённом кредите ведущий забирает минуту обсуждения: "
            "ответ только досрочный.",
            "Пры ліку 5:5 і невернутым крэдыце вядучы забірае хвіліну абмеркавання: адказ "
            "толькі датэрміновы.",
            "At 5:5 with the minute on credit not repaid the host takes the discussion "
            "minute: the answer must be early.",
        ),
        "off_table": words(
            "Знаток «{expert}» подсказывал (красная карточка) и начинает эту игру не за "
            "столом: вернётся за стол после верного ответа команды.",
            "Знаўца «{expert}» падказваў (чырвоная картка) і пачынае гэтую гульню не за "
            "сталом: вернецца за стол пасля правільнага адказу каманды.",
            "{expert} hinted (a red card) and starts this game off the table: back only "
            "after the team's right answer.",
        ),
    }
)
"""``code`` → ``{language: sentence}`` of the refusals only this book raises."""

RULESET_2023 = RuleSet(
    name="2023",
    file="000_90d7c8192601ed3a.txt",
    currency="BYN",  # §4.11.1: prizes in Belarusian roubles
    timezone="Europe/Minsk",  # the Belarusian edition airs in Minsk
    clauses=MappingProxyType(
        {
            "question": "§3.2",
            "scoring": "§3.2.1",
            "table": "§3.3",
            "spin": "§3.4",
            "blitz": "§3.4.1",
            "superblitz": "§3.4.2",
            "sector13": "§3.4.3",
            "early": "§3.5",
            "early_blitz": "§3.5.1",
            "decisive": "§3.6",
            "decisive_blitz": "§3.6.1",
            "decisive_sector13": "§3.6.2",
            "club_help_once": "§3.7",
            "club_help": "§3.7.1",
            "credit": "§3.8",
            "credit_order": "§3.8.1",
            "credit_sector13": "§3.8.2",
            "credit_repay": "§3.8.3",
            "credit_forced": "§3.8.4",
            "credit_decisive": "§3.8.5",
            "red_card": "§3.9",
            "off_table": "§3.7.3",
            "game_end": "§3.10",
        }
    ),
    decisive_round=True,
    credit_minute=True,
    sector13_options=True,
    removal_rule=False,
    club_help_once=True,
    club_help_excluded=frozenset({BLITZ, SUPERBLITZ, SECTOR13}),
    sector13_no_aids=True,
    extra_minute_one_per_blitz=True,
    early_earns_in=frozenset({SINGLE}),
    sector13_pool="partner",  # §3.3
    sector13_drawn_at_spin=False,
    off_table_after_hint=True,  # §3.7.3
    series_rematch=False,
    audience_vote=False,
    points_to_win=6,  # §3.2, §3.10
    club_help_uses=1,  # §3.7: «один раз»
    parameters=MappingProxyType(
        {
            "points_to_win": 6,
            "club_help": 1,
            "decisive_round": True,
            "credit_minute": True,
            "losses_to_out": 2,
        }
    ),
    parameter_clauses=MappingProxyType(
        {
            "points_to_win": "§3.2, §3.10",
            "club_help": "§3.7",
            "decisive_round": "§3.6",
            "credit_minute": "§3.8",
            "losses_to_out": "§4.4",
        }
    ),
    warns_missing_multi=True,  # §3.4.1–§3.4.2
    wording=WORDING,
)
