"""The 2009 rule book's game (002_e025d5ded135c1c4.txt §1): its :class:`RuleSet`, its amendable
parameters and the wording of the refusals only this book raises (what it lacks — the decisive
round, the minute on credit, sector 13's options — its removal rule and its table plan)."""

from __future__ import annotations

from types import MappingProxyType

from webapp.domain.rules.refusals import words
from webapp.domain.rules.rulesets import BLITZ, KINDS, SUPERBLITZ, RuleSet

MAX_ROUNDS = 11
"""The most rounds a 2009 game can have (6 + 5, §1.8): a club-help limit this high never binds,
which is how the engine reads §1.7 (club help on any question while behind, no limit a game)."""

WORDING = MappingProxyType(
    {
        "sector13_no_options": words(
            "В 13 секторе играет вопрос телезрителя, присланный через Интернет: вариантов "
            "розыгрыша нет.",
            "У 13 сектары гуляе пытанне тэлегледача, дасланае праз Інтэрнэт: варыянтаў "
            "розыгрышу няма.",
            "Sector 13 plays a viewer's question sent over the Internet: there are no options.",
        ),
        "no_decisive_round": words(
            "Игра идёт до 6 очков: решающего раунда в этих правилах нет.",
            "Гульня ідзе да 6 ачкоў: вырашальнага раўнда ў гэтых правілах няма.",
            "The game goes to 6 points: these rules have no decisive round.",
        ),
        "no_credit_minute": words(
            "Одна минута на вопрос: минуты в кредит в этих правилах нет.",
            "Адна хвіліна на пытанне: хвіліны ў крэдыт у гэтых правілах няма.",
            "One minute per question: these rules have no minute on credit.",
        ),
        "removed": words(
            "Знаток «{expert}» удалён из-за стола после неверного ответа и не отвечает до "
            "следующего верного ответа команды.",
            "Знаўца «{expert}» выдалены з-за стала пасля няправільнага адказу і не адказвае "
            "да наступнага правільнага адказу каманды.",
            "{expert} was removed after a wrong answer and may not answer until the team's "
            "next right answer.",
        ),
        "not_team_expert": words(
            "«{expert}» — не знаток этой команды (знатоки: {experts}). По правилу удаления "
            "уходит из-за стола игрок команды, который отвечал: выберите его из списка.",
            "«{expert}» — не знаўца гэтай каманды (знаўцы: {experts}). Па правіле выдалення "
            "з-за стала выходзіць гулец каманды, які адказваў: выберыце яго са спісу.",
            "{expert} is not one of the team's experts ({experts}). The removal rule removes "
            "the player of the team who answered: choose them from the list.",
        ),
        "plan_sector13_elsewhere": words(
            "Вопросы из Интернета играют в 13-м секторе, а не в секторе {sector}.",
            "Пытанні з Інтэрнэту гуляюць у 13-м сектары, а не ў сектары {sector}.",
            "The Internet questions are in sector 13, not in sector {sector}.",
        ),
        "plan_multi_on_13": words(
            "{kind} — один из двенадцати секторов с письмами, не 13-й.",
            "{kind} — адзін з дванаццаці сектараў з лістамі, не 13-ы.",
            "The {kind} is one of the twelve sectors of posted questions, not sector 13.",
        ),
    }
)
"""``code`` → ``{language: sentence}`` of the refusals only this book raises."""

RULESET_2009 = RuleSet(
    name="2009",
    file="002_e025d5ded135c1c4.txt",
    currency="RUB",  # §3.2: prizes in Russian roubles
    timezone="Europe/Moscow",  # the Russian edition airs in Moscow
    clauses=MappingProxyType(
        {
            "question": "§1.2",
            "scoring": "§1.2.1",
            "red_card": "§1.2.3",  # no hint clause in 2009: the host rules on the answer
            "table": "§1.3",
            "spin": "§1.4",
            "sector13": "§1.4.1",
            "superblitz": "§1.4.2",
            "blitz": "§1.4.3",
            "early": "§1.5",
            "removal": "§1.6",
            "club_help": "§1.7",
            "game_end": "§1.8",
            # what 2009 lacks is refused by the clause that leaves no room for it:
            "decisive": "§1.8",  # the game goes to 6 points, no decisive round
            "credit": "§1.2",  # one minute per question, no minute on credit
        }
    ),
    decisive_round=False,
    credit_minute=False,
    sector13_options=False,
    removal_rule=True,
    club_help_once=False,
    club_help_excluded=frozenset({BLITZ, SUPERBLITZ}),
    sector13_no_aids=False,
    extra_minute_one_per_blitz=False,
    early_earns_in=frozenset(KINDS),
    sector13_pool="live",  # §1.4.1
    sector13_drawn_at_spin=True,  # §1.4.1
    off_table_after_hint=False,
    series_rematch=True,  # §2.10
    audience_vote=True,  # §3.1
    points_to_win=6,  # §1.8
    club_help_uses=MAX_ROUNDS,  # §1.7 has no limit a game
    parameters=MappingProxyType({"points_to_win": 6, "club_help": MAX_ROUNDS}),
    parameter_clauses=MappingProxyType({"points_to_win": "§1.8", "club_help": "§1.7"}),
    # §1.7 names no number: the limit is only the engine's reading, shown once amended
    silent_parameters=frozenset({"club_help"}),
    plan_sector13_fixed=True,  # §1.3, §1.4.2–§1.4.3
    warns_missing_multi=True,  # §1.4.2–§1.4.3
    wording=WORDING,
)
