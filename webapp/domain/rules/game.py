"""Game replay: the state of a game derived from its events, under a rule set.

Entry points: :func:`replay` (events → state dict, or :class:`RuleViolation`) and
:func:`allowed_actions` (the event types the rules allow next). :class:`Game` applies one
event at a time and is what both use.

Rule books: ``000_90d7c8192601ed3a.txt`` §3 (rule set ``"2023"``) and
``002_e025d5ded135c1c4.txt`` §1 (rule set ``"2009"``). ``docs/rules.md`` maps every clause to
the method here that decides it and the test that checks it.

Size (over 500 lines, on purpose): the one replay state machine both rule books share;
each transition checks clauses of several topics (spin, answer, credit, club help), so it
is kept whole rather than split by topic.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import RuleViolation
from .protocol import (
    EVENT_TYPES,
    UNRULED_EVENT_TYPES,
    Context,
    Event,
    parse_context,
    parse_event,
    parse_events,
    parse_rules,
    parse_table,
)
from .rulesets import (
    MULTI_KINDS,
    SECTOR13,
    SECTOR13_OPTIONS,
    SINGLE,
    HasRules,
    RuleSet,
    rule_set,
)
from .table import SECTORS, Table, check_plan, next_unplayed

EXPERTS = "experts"
VIEWERS = "viewers"
WINNING_SCORE = 6

CREDIT_NONE = "none"
CREDIT_OUTSTANDING = "outstanding"
CREDIT_REPAID = "repaid"

# aid names, as they appear in a round's "aids"
EXTRA_MINUTE = "extra_minute"
CLUB_HELP = "club_help"
CREDIT_MINUTE = "credit_minute"


@dataclass
class Question:
    """One question of a round (slot 1, or slots 1..3 of a blitz/superblitz).

    ``asked``: the question was put and settled (answered, or lost to a red card).
    ``aids``: aids spent on this question, in order (the round's ``aids`` collects them).
    """

    slot: int
    asked: bool = False
    correct: bool = False
    early: bool = False
    aids: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "slot": self.slot,
            "asked": self.asked,
            "correct": self.correct,
            "early": self.early,
        }


@dataclass
class Round:
    """One round: the sector the arrow gave and its question(s).

    ``winner`` is set as soon as the round is decided (a blitz is lost at its first wrong
    answer); ``closed`` when no more answers may come. ``option`` is the 2023 sector-13 option.
    ``sector13_empty``: the arrow landed on an empty 2009 sector 13 and this round is played
    in the next sector clockwise (002 §1.4.1, §1.4; :meth:`Game._pass_over_empty_sector13`).
    """

    n: int
    arrow: int
    sector: int
    kind: str
    decisive: bool
    questions: list[Question]
    aids: list[str] = field(default_factory=list)
    winner: str | None = None
    closed: bool = False
    option: str | None = None
    credit_used: bool = False
    sector13_empty: bool = False

    @property
    def multi(self) -> bool:
        """A blitz or superblitz round (three questions)."""
        return self.kind in MULTI_KINDS

    def current_question(self) -> Question | None:
        """The first question not yet asked, or ``None`` once all are."""
        return next((q for q in self.questions if not q.asked), None)

    def clone(self) -> Round:
        """An independent copy (questions and aids copied)."""
        return replace(
            self,
            questions=[replace(q, aids=list(q.aids)) for q in self.questions],
            aids=list(self.aids),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n": self.n,
            "arrow": self.arrow,
            "sector": self.sector,
            "kind": self.kind,
            "winner": self.winner,
            "questions": [q.to_json() for q in self.questions],
            "aids": list(self.aids),
        }
        if self.decisive:
            out["decisive"] = True
        if self.sector13_empty:
            out["sector13_empty"] = True
        return out


@dataclass
class Game:
    """The state of one game, changed by :meth:`apply` one event at a time.

    Score is kept experts first. Use :meth:`to_json` for the contract's output.
    """

    rules: RuleSet
    table: Table
    context: Context
    experts: int = 0
    viewers: int = 0
    rounds: list[Round] = field(default_factory=list)
    played: set[int] = field(default_factory=set)
    decisive_pending: bool = False
    decided_by: str | None = None
    extra_minutes_held: int = 0
    club_help_used: bool = False
    club_help_count: int = 0
    credit: str = CREDIT_NONE
    credit_taken: bool = False
    credit_forced: bool = False
    removed_experts: list[str] = field(default_factory=list)
    off_table: list[str] | None = None  # 2023 §3.7.3: None = as the context says
    red_cards: list[dict[str, str | None]] = field(default_factory=list)
    minutes: list[dict[str, object]] = field(default_factory=list)
    event_index: int = 0

    def clone(self) -> Game:
        """An independent copy, to try an event without changing this game."""
        return replace(
            self,
            rounds=[r.clone() for r in self.rounds],
            played=set(self.played),
            removed_experts=list(self.removed_experts),
            off_table=None if self.off_table is None else list(self.off_table),
            red_cards=[dict(c) for c in self.red_cards],
            minutes=[dict(m) for m in self.minutes],
        )

    # ----------------------------------------------------------------- queries

    @property
    def score(self) -> str:
        """``"E:V"``, experts first."""
        return f"{self.experts}:{self.viewers}"

    @property
    def target(self) -> int:
        """The points that win the game: six (rule §3.10 / §1.8), or as amended
        (000_90d7c8192601ed3a.txt §4.12.1, ``points_to_win``)."""
        return self.rules.points_to_win

    @property
    def finished(self) -> bool:
        """A side has the winning points (rule §3.10 / §1.8)."""
        return self.target in (self.experts, self.viewers)

    @property
    def winner(self) -> str | None:
        if self.experts == self.target:
            return EXPERTS
        if self.viewers == self.target:
            return VIEWERS
        return None

    @property
    def current(self) -> Round | None:
        """The round in play (not closed), if any."""
        if self.rounds and not self.rounds[-1].closed:
            return self.rounds[-1]
        return None

    @property
    def experts_off_table(self) -> list[str]:
        """2023 §3.7.3: the experts of the playing team who hinted in an earlier game (a red
        card naming them) and are off the table until the team's first right answer in this
        game (``context.off_table``); always ``[]`` in 2009 (no such clause)."""
        if "off_table" not in self.rules.clauses:
            return []
        if self.off_table is None:
            return list(self.context.off_table)
        return list(self.off_table)

    def _awaiting_option(self, rnd: Round) -> bool:
        return self.rules.sector13_options and rnd.kind == SECTOR13 and rnd.option is None

    def _credit_forced_now(self) -> bool:
        return self.credit_forced and self.credit == CREDIT_OUTSTANDING

    # ----------------------------------------------------------------- refusals

    def _refuse(self, topic: str, code: str, message: str, **params: Any) -> RuleViolation:
        """The refusal of the current event: ``topic``'s clause of this book, the refusal's
        ``code`` and ``params`` (its wording: :mod:`.refusals`) and the English ``message``
        the protocol's error JSON prints."""
        return RuleViolation(self.event_index, self.rules.cite(topic), message, code, params)

    def _kind_topic(self, rnd: Round) -> str:
        return {SINGLE: "question", SECTOR13: "sector13"}.get(rnd.kind, rnd.kind)

    def _require_question(self) -> tuple[Round, Question]:
        """The round and question in play, or a refusal: no question is asked before the
        arrow has picked one (§3.4 / §1.4), nor before the sector-13 option (§3.4.3)."""
        rnd = self.current
        if rnd is None:
            if self.decisive_pending:
                raise self._refuse(
                    "spin", "decisive_spin_first", "the decisive round was granted: spin first"
                )
            raise self._refuse("spin", "spin_first", "no question is in play: spin first")
        if self._awaiting_option(rnd):
            raise self._refuse(
                "sector13",
                "sector13_option_first",
                "sector 13: the team must first choose how to play it",
            )
        question = rnd.current_question()
        assert question is not None  # an open round always has a question to ask
        return rnd, question

    def _refuse_if_lost_multi(self, rnd: Round, aid: str) -> None:
        """``aid``: the event type refused (``"extra_minute"``, ``"credit_minute"``)."""
        if rnd.multi and rnd.winner is not None:
            what = aid.replace("credit_minute", "minute on credit").replace("_", " ")
            raise self._refuse(
                rnd.kind,
                "multi_lost",
                f"no {what}: the {rnd.kind} is already lost (all three must be right)",
                aid=aid,
                kind=rnd.kind,
            )

    def _close_lost_multi_for(self, action: str) -> Round | None:
        """Between rounds, or a lost blitz/superblitz still open (it closes now, its remaining
        questions unasked); any other round in play refuses ``action`` (the event type:
        ``"spin"``, ``"decisive_round"``)."""
        rnd = self.current
        if rnd is None:
            return None
        what = {"decisive_round": "decisive round asked for"}.get(action, action)
        if self._awaiting_option(rnd):
            raise self._refuse(
                "sector13",
                "sector13_option_first",
                "sector 13: the team must first choose how to play it",
            )
        if rnd.multi and rnd.winner is not None:
            return rnd
        if rnd.multi:
            answered = sum(q.asked for q in rnd.questions)
            raise self._refuse(
                rnd.kind,
                "multi_in_play",
                f"{what} while the {rnd.kind} in sector {rnd.sector} is in play "
                f"({answered} of 3 questions answered)",
                action=action,
                kind=rnd.kind,
                sector=rnd.sector,
                answered=answered,
            )
        raise self._refuse(
            self._kind_topic(rnd),
            "question_in_play",
            f"{what} while the question of sector {rnd.sector} is in play: it must be answered",
            action=action,
            sector=rnd.sector,
        )

    # ----------------------------------------------------------------- events

    def apply(self, event: Event, index: int) -> None:
        """Apply one event (index ``index`` in the event list) or raise
        :class:`RuleViolation` citing the clause that forbids it; on a refusal the game must
        be discarded (it may be partly changed)."""
        self.event_index = index
        if event.type in UNRULED_EVENT_TYPES:  # no rule speaks of them: never refused
            getattr(self, f"_on_{event.type}")(event)
            return
        if self.finished:
            raise self._refuse(
                "game_end",
                "game_over",
                f"the game is over ({self.winner} won {self.score}): nothing may follow",
                winner=self.winner,
                score=self.score,
            )
        getattr(self, f"_on_{event.type}")(event)

    def _on_spin(self, event: Event) -> None:
        """Rule §3.3–§3.4 / §1.3–§1.4: the arrow picks the first unplayed sector clockwise."""
        arrow = event.sector
        assert arrow is not None
        if arrow not in SECTORS:
            raise self._refuse(
                "table",
                "no_such_sector",
                f"the table has sectors 1..13; the arrow cannot point at {arrow}",
                sector=arrow,
            )
        lost = self._close_lost_multi_for("spin")
        sector = next_unplayed(arrow, self.played)
        if event.sector13_empty:
            sector = self._pass_over_empty_sector13(sector)
        if sector is None:  # unreachable: a game ends within 11 rounds
            raise self._refuse("spin", "all_sectors_played", "every sector has been played")
        if lost is not None:
            lost.closed = True
        kind = self.table.kind_of(sector)
        questions = [Question(slot) for slot in range(1, 4 if kind in MULTI_KINDS else 2)]
        self.rounds.append(
            Round(
                n=len(self.rounds) + 1,
                arrow=arrow,
                sector=sector,
                kind=kind,
                decisive=self.decisive_pending,
                questions=questions,
                sector13_empty=event.sector13_empty,
            )
        )
        self.played.add(sector)
        self.decisive_pending = False

    def _pass_over_empty_sector13(self, sector: int | None) -> int | None:
        """Rule 002 §1.4.1 with §1.4, for a spin marked ``sector13_empty`` (the computer's
        draw found no live question that passed the fast lane): the arrow «выбирает»
        sector 13, which has now fallen its once a game, but it holds no question, so it
        counts as a sector that cannot be played — out for the rest of the game — and the
        round is played in the next unplayed sector clockwise, as for a played sector
        (§1.4). ``sector``: where the arrow's spin lands; returns the sector played
        instead. Refused (§1.4.1) when the spin does not land on sector 13; refused under a
        rule book whose sector 13 is laid on the table beforehand (2023 §3.3)."""
        if not self.rules.sector13_drawn_at_spin:
            raise self._refuse(
                "table",
                "sector13_never_empty",
                "sector 13 holds a question laid on the table before the game: it is never empty",
            )
        if sector is None or self.table.kind_of(sector) != SECTOR13:
            raise self._refuse(
                "sector13",
                "sector13_empty_elsewhere",
                "sector13_empty is said only of a spin that lands on sector 13 "
                f"(this one lands on sector {sector})",
                sector=sector,
            )
        self.played.add(sector)
        return next_unplayed(sector, self.played)

    def _on_sector13_option(self, event: Event) -> None:
        """Rule 000 §3.4.3 (and §3.6.2 in the decisive round): the way to play sector 13,
        right after the spin; an option returns only after the other two were used."""
        if not self.rules.sector13_options:
            raise self._refuse(
                "sector13",
                "sector13_no_options",
                "sector 13 plays a viewer question sent over the Internet; there are no options",
            )
        rnd = self.current
        if rnd is None or rnd.kind != SECTOR13 or rnd.option is not None:
            raise self._refuse(
                "sector13",
                "sector13_option_not_now",
                "a sector 13 option is chosen right after a spin that lands on sector 13",
            )
        option = event.option
        assert option is not None
        available = self.context.sector13_options_available()
        if option not in available:
            others = [o for o in SECTOR13_OPTIONS if o != option]
            raise self._refuse(
                "decisive_sector13" if rnd.decisive else "sector13",
                "sector13_option_used",
                f"option {option!r} was used already; it returns only after "
                f"{' and '.join(others)} (available: {', '.join(available)})",
                option=option,
                others=others,
                available=list(available),
            )
        rnd.option = option
        rnd.aids.append(f"sector13_option:{option}")

    def _on_decisive_round(self, event: Event) -> None:
        """Rule 000 §3.6: at the experts' five points, only if they cannot pass the series best
        without it; the score becomes 0:0 and the next spin's round is the decisive round."""
        if not self.rules.decisive_round:
            if "decisive_round" in self.rules.amended_values:  # 000 §4.12.1
                raise self._refuse(
                    "decisive",
                    "decisive_abolished",
                    "the decisive round was abolished for this game (§4.12.1)",
                )
            raise self._refuse(
                "decisive",
                "no_decisive_round",
                "the game goes to 6 points; there is no decisive round",
            )
        lost = self._close_lost_multi_for("decisive_round")
        if self.decisive_pending:
            raise self._refuse(
                "decisive", "decisive_granted", "the decisive round was already granted: spin"
            )
        if self.experts != self.target - 1:
            points = "five points" if self.target == WINNING_SCORE else f"{self.target - 1} points"
            raise self._refuse(
                "decisive",
                "decisive_not_at_short",
                f"a decisive round only at the experts' {points} (score {self.score})",
                points=self.target - 1,
                score=self.score,
            )
        best = self.context.series_best
        if best is None:
            raise self._refuse(
                "decisive",
                "decisive_no_series_best",
                "no series best result is known (context.series_best): there is no leader "
                "the experts could fail to pass without a decisive round",
            )
        if can_pass_without_decisive(self.viewers, best, self.target):
            raise self._refuse(
                "decisive",
                "decisive_not_needed",
                f"the experts can still pass the series best {best[0]}:{best[1]} without a "
                f"decisive round (winning the next round gives {self.target}:{self.viewers})",
                best=f"{best[0]}:{best[1]}",
                win=f"{self.target}:{self.viewers}",
            )
        if lost is not None:
            lost.closed = True
        self.experts = self.viewers = 0
        self.decisive_pending = True

    def _on_extra_minute(self, event: Event) -> None:
        """Rule 000 §3.5 / 002 §1.5: spend a held extra minute on the current question."""
        rnd, question = self._require_question()
        self._refuse_if_lost_multi(rnd, EXTRA_MINUTE)
        if rnd.decisive:
            raise self._refuse(
                "decisive", "extra_minute_decisive", "no extra minute in the decisive round"
            )
        if rnd.kind == SECTOR13 and self.rules.sector13_no_aids:
            raise self._refuse(
                "sector13",
                "extra_minute_sector13",
                "the extra minute rule does not apply in sector 13",
            )
        if self.extra_minutes_held == 0:
            raise self._refuse(
                "early",
                "extra_minute_none_held",
                "the experts hold no extra minute (a right early answer earns one)",
            )
        if EXTRA_MINUTE in question.aids:
            raise self._refuse("early", "extra_minute_again", "one extra minute per question")
        if self.rules.extra_minute_one_per_blitz and rnd.multi and EXTRA_MINUTE in rnd.aids:
            raise self._refuse(
                "early",
                "extra_minute_once_per_multi",
                f"in a {rnd.kind} the extra minute serves only one of the three questions",
                kind=rnd.kind,
            )
        if CLUB_HELP in question.aids:
            raise self._refuse(
                "club_help", "answer_after_club_help", "after club help the experts must answer"
            )
        if CREDIT_MINUTE in question.aids:
            raise self._refuse(
                "credit_order",
                "credit_before_extra_minute",
                "the minute on credit comes after the extra minute, not before",
            )
        if self._credit_forced_now():
            raise self._refuse(
                "credit_forced",
                "credit_forced_no_aid",
                "at 5:5 with the minute on credit not repaid the host takes the discussion "
                "minute: this question is answered without discussion",
            )
        self.extra_minutes_held -= 1
        question.aids.append(EXTRA_MINUTE)
        rnd.aids.append(EXTRA_MINUTE)

    def _on_club_help(self, event: Event) -> None:
        """Rule 000 §3.7, §3.7.1 / 002 §1.7: club help while behind; 2023: once a game (as many
        times as an amended ``club_help`` allows, §4.12.1; 2009: no limit, read as 11) and not
        in blitz, superblitz, sector 13 or the decisive round; 2009: not in blitz, superblitz."""
        rnd, question = self._require_question()
        if rnd.decisive:
            raise self._refuse(
                "club_help",
                "club_help_decisive",
                "club help does not apply to the decisive round",
            )
        if rnd.kind in self.rules.club_help_excluded:
            raise self._refuse(
                "club_help",
                "club_help_not_here",
                f"club help does not apply to {rnd.kind}",
                kind=rnd.kind,
            )
        if self.club_help_count >= self.rules.club_help_uses:
            uses = self.rules.club_help_uses
            topic = "club_help_once" if "club_help_once" in self.rules.clauses else "club_help"
            if uses == 0:
                raise self._refuse(topic, "club_help_none", "club help is not given in this game")
            if uses == 1:
                raise self._refuse(topic, "club_help_once", "club help is taken once a game")
            raise self._refuse(
                topic,
                "club_help_used_up",
                f"club help is taken at most {uses} times a game",
                uses=uses,
            )
        if CLUB_HELP in question.aids:
            raise self._refuse(
                "club_help", "club_help_again", "club help was already given on this question"
            )
        if CREDIT_MINUTE in question.aids:
            raise self._refuse(
                "credit_order",
                "credit_before_club_help",
                "the minute on credit comes after club help, not before",
            )
        if self.experts >= self.viewers:
            raise self._refuse(
                "club_help",
                "club_help_not_behind",
                f"club help only while the experts are behind (score {self.score})",
                score=self.score,
            )
        self.club_help_used = True
        self.club_help_count += 1
        question.aids.append(CLUB_HELP)
        rnd.aids.append(CLUB_HELP)

    def _on_credit_minute(self, event: Event) -> None:
        """Rule 000 §3.8, §3.8.2, §3.8.3: a minute on credit at viewers 5, experts at most 4;
        not in sector 13; once a game."""
        if not self.rules.credit_minute:
            if "credit_minute" in self.rules.amended_values:  # 000 §4.12.1
                raise self._refuse(
                    "credit",
                    "credit_abolished",
                    "the minute on credit was abolished for this game (§4.12.1)",
                )
            raise self._refuse(
                "credit",
                "no_credit_minute",
                "one minute per question; there is no minute on credit",
            )
        rnd, question = self._require_question()
        self._refuse_if_lost_multi(rnd, CREDIT_MINUTE)
        if rnd.kind == SECTOR13:
            raise self._refuse(
                "credit_sector13", "credit_sector13", "no minute on credit in sector 13"
            )
        if self.credit_taken:
            raise self._refuse(
                "credit_repay",
                "credit_once",
                "the minute on credit is granted once a game (it must be repaid)",
            )
        short = self.target - 1  # 5 of 6 (§3.8); one point short of an amended target
        if not (self.viewers == short and self.experts <= short - 1):
            raise self._refuse(
                "credit",
                "credit_not_now",
                f"a minute on credit only when the viewers have {short} points and the experts "
                f"at most {short - 1} (score {self.score})",
                viewers=short,
                experts=short - 1,
                score=self.score,
            )
        self.credit_taken = True
        rnd.credit_used = True
        question.aids.append(CREDIT_MINUTE)
        rnd.aids.append(CREDIT_MINUTE)

    def _on_answer(self, event: Event) -> None:
        """Rule §3.2.1–§3.2.2 / §1.2.1–§1.2.2: one answer to the current question; early
        answers §3.5, §3.5.1 / §1.5; removal rule 002 §1.6; forced repayment 000 §3.8.4."""
        rnd, question = self._require_question()
        correct = bool(event.correct)
        self._check_team_expert(event.expert)
        if event.expert is not None and event.expert in self.experts_off_table:
            raise self._refuse(
                "off_table",
                "off_table",
                f"{event.expert} hinted (a red card) and starts this game off the table: "
                "he returns only after the team's right answer",
                expert=event.expert,
            )
        if (
            self.rules.removal_rule
            and event.expert is not None
            and any(same_name(event.expert, name) for name in self.removed_experts)
        ):
            raise self._refuse(
                "removal",
                "removed",
                f"{event.expert} was removed after a wrong answer and may not answer until "
                "the team's next right answer",
                expert=event.expert,
            )
        if event.early and question.aids:
            raise self._refuse(
                "early",
                "early_after_aid",
                "an early answer is given without the discussion minute, but "
                f"{', '.join(question.aids)} was already used on this question",
                aids=list(question.aids),
            )
        if not event.early and self._credit_forced_now():
            raise self._refuse(
                "credit_forced",
                "credit_forced_early",
                "at 5:5 with the minute on credit not repaid the host takes the discussion "
                "minute: the answer must be early",
            )
        question.asked = True
        question.correct = correct
        question.early = event.early
        if correct and "off_table" in self.rules.clauses:
            self.off_table = []  # §3.7.3: back at the table after a right answer
        if self.rules.removal_rule:
            if correct:
                self.removed_experts.clear()
            elif event.expert is not None:
                self.removed_experts.append(event.expert)
        if event.early and correct:
            if self.credit == CREDIT_OUTSTANDING and not rnd.multi:
                # §3.8.3 (§3.8.5 in the decisive round): answered without discussion; the
                # saved minute goes back to the advocate, so no extra minute is earned
                self.credit = CREDIT_REPAID
            elif not rnd.decisive and rnd.kind in self.rules.early_earns_in:
                self.extra_minutes_held += 1  # §3.5 / §1.5 (not blitz §3.5.1, not sector 13 §3.4.3)
        if correct and rnd.option == "one" and not rnd.decisive:
            self.extra_minutes_held += 1  # §3.4.3: the lone expert's right answer
        self._settle(rnd, question, correct)

    def _check_team_expert(self, expert: str | None) -> None:
        """Rule 002 §1.6 («игрок, отвечавший на него, удаляется»): the removal rule removes
        a player of the team, so under it the expert an answer names must be one of the
        team's experts (``context.experts``; names compared as :func:`same_name` does).
        No name (the field is optional) or no known team: nothing to check. Reading: §1.6
        speaks of «игрок» of «его команда» — a name outside the team would remove nobody
        and leave the rule unenforced, so it is refused rather than recorded."""
        experts = self.context.experts
        if not (self.rules.removal_rule and expert is not None and experts):
            return
        if not any(same_name(expert, name) for name in experts):
            raise self._refuse(
                "removal",
                "not_team_expert",
                f"{expert} is not one of the team's experts ({', '.join(experts)}): the "
                "removal rule removes the player of the team who answered",
                expert=expert,
                experts=list(experts),
            )

    def _on_minute(self, event: Event) -> None:
        """The host's tap when the discussion minute starts or stops (game protocol,
        ``minute``): kept with the round in play for the broadcast graphics and the reading
        time; no rule of either book reads it, so it changes no score and is never refused."""
        self.minutes.append(
            {
                "round": len(self.rounds),
                "action": event.action,
                "at": event.at.isoformat() if event.at else None,
            }
        )

    def _on_red_card(self, event: Event) -> None:
        """Rule 000 §3.9: a hint was caught, the team loses the right to answer: the viewers
        get the point and the question counts as unanswered. (2009 has no hint clause; the
        host rules the answer not right, 002 §1.2.3.)"""
        rnd, question = self._require_question()
        question.asked = True
        question.correct = False
        question.early = False
        if event.expert is not None:  # §3.7.3: remembered for the hinter team's next game
            self.red_cards.append({"expert": event.expert, "team": event.team})
        self._settle(rnd, question, False)

    # ----------------------------------------------------------------- scoring

    def _settle(self, rnd: Round, question: Question, correct: bool) -> None:
        """Score the round once decided, close it when no more answers may come."""
        if rnd.winner is None:
            if not correct:
                self._round_won_by(rnd, VIEWERS)
            elif not rnd.multi or question.slot == 3:
                self._round_won_by(rnd, EXPERTS)
        if not rnd.multi or question.slot == 3 or self.finished:
            rnd.closed = True

    def _round_won_by(self, rnd: Round, side: str) -> None:
        rnd.winner = side
        if rnd.decisive:  # §3.6: 6:0 or 0:6 (the amended target: N:0 or 0:N)
            win = self.target
            self.experts, self.viewers = (win, 0) if side == EXPERTS else (0, win)
            self.decided_by = "decisive_round"
        else:
            if side == EXPERTS:
                self.experts += 1
            else:
                self.viewers += 1
            if self.finished:
                self.decided_by = "rounds"
        if side == EXPERTS:
            if (
                rnd.multi
                and self.credit == CREDIT_OUTSTANDING
                and all(q.early for q in rnd.questions)
            ):
                self.credit = CREDIT_REPAID  # §3.8.3: all three answered without discussion
            if rnd.credit_used:
                self.credit = CREDIT_OUTSTANDING  # §3.8.3: won on credit, must repay
        short = self.target - 1
        if self.credit == CREDIT_OUTSTANDING and (self.experts, self.viewers) == (short, short):
            self.credit_forced = True  # §3.8.4

    # ----------------------------------------------------------------- output

    def to_json(self) -> dict[str, Any]:
        """The contract's "Output of sova game replay"."""
        unanswered = [
            {"sector": r.sector, "slot": q.slot}
            for r in self.rounds
            for q in r.questions
            if q.asked and not q.correct
        ]
        unasked = [
            {"sector": r.sector, "slot": q.slot}
            for r in self.rounds
            if r.closed and r.multi
            for q in r.questions
            if not q.asked
        ]
        return {
            "ruleset": self.rules.name,
            "score": self.score,
            "finished": self.finished,
            "winner": self.winner,
            "decided_by": self.decided_by,
            "rounds": [r.to_json() for r in self.rounds],
            "unanswered": unanswered,
            "unasked": unasked,
            "extra_minutes_held": self.extra_minutes_held,
            "credit": self.credit,
            "removed_experts": list(self.removed_experts),
            **({"off_table": self.experts_off_table} if self.context.off_table else {}),
            **({"red_cards": [dict(c) for c in self.red_cards]} if self.red_cards else {}),
        }


def can_pass_without_decisive(
    viewers: int, series_best: tuple[int, int], points_to_win: int = WINNING_SCORE
) -> bool:
    """Whether experts one point short of ``points_to_win`` (5 of 6; against ``viewers``) can
    still pass the series best without a decisive round (rule 000_90d7c8192601ed3a.txt §3.6).

    The best they can do without it is to win the next round: ``6:viewers``. Results rank by
    score difference (§4.5.2) and an equal result ranks the later team higher (§4.5.3), so
    ``6:viewers`` passes a winning ``6:b`` when ``viewers <= b``; any win passes a best result
    that is not a win. With an amended target (§4.12.1) the same comparison of differences:
    ``points_to_win - viewers >= best_experts - best_viewers``.
    """
    best_experts, best_viewers = series_best
    return points_to_win - viewers >= best_experts - best_viewers


def same_name(a: str, b: str) -> bool:
    """True when two spellings of an expert's name are the same name: Unicode NFC, case
    and runs of white space ignored (``"вера  ИВАНОВА"`` is ``"Вера Иванова"``)."""

    def fold(name: str) -> str:
        return " ".join(unicodedata.normalize("NFC", name).casefold().split())

    return fold(a) == fold(b)


Book = RuleSet | HasRules
"""What the engine is handed: a book's game :class:`RuleSet`, or a book holding one."""


def new_game(book: Book, table: Any, context: Any, rules: Any = None) -> Game:
    """A game of ``book`` before its first event; validates ``table``, ``context`` and
    ``rules`` (the amendable parameters in force for this game, 000_90d7c8192601ed3a.txt
    §4.12.1: ``{parameter: value}``, partial or ``None`` = the book's values)
    (:class:`ProtocolError`) and the table plan against the rule book (:func:`check_plan`:
    :class:`RuleViolation` with ``event_index=None``)."""
    own = rule_set(book)
    plan = parse_table(table)
    check_plan(plan, own)
    amended = own.amended(parse_rules(own, rules))
    return Game(rules=amended, table=plan, context=parse_context(context))


def _replay_game(book: Book, table: Any, context: Any, events: Any, rules: Any = None) -> Game:
    game = new_game(book, table, context, rules)
    for index, event in enumerate(parse_events(events)):
        game.apply(event, index)
    return game


def replay(
    book: Book,
    table: dict[str, int | None],
    context: dict[str, Any] | None,
    events: list[dict[str, Any]],
    rules: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Replay ``events`` of a game under ``book`` (``BOOKS["2023"]``, or its rule set) with the
    amendable parameters ``rules`` in force (``None`` = the book's; §4.12.1) and return
    the derived state, the contract's "Output of sova game replay"::

        {"ruleset", "score": "E:V", "finished", "winner": "experts"|"viewers"|None,
         "decided_by": "rounds"|"decisive_round"|None,
         "rounds": [{"n", "arrow", "sector", "kind", "winner", "questions": [{"slot",
                     "asked", "correct", "early"}], "aids", ("decisive": True),
                     ("sector13_empty": True)}],
         "unanswered": [{"sector", "slot"}], "unasked": [{"sector", "slot"}],
         "extra_minutes_held", "credit": "none"|"outstanding"|"repaid", "removed_experts"}

    ``table``: ``{"blitz", "superblitz", "sector13"}`` sector numbers or ``None``;
    ``context``: ``{"series_best": "E:V", "sector13_options_used": [...]}`` or ``None``.
    Raises :class:`RuleViolation` (first refused event, with its clause) or
    :class:`ProtocolError` (malformed input).
    """
    return _replay_game(book, table, context, events, rules).to_json()


def _candidates(kind: str) -> list[dict[str, Any]]:
    if kind == "spin":
        return [{"type": "spin", "sector": 1}]
    if kind == "sector13_option":
        return [{"type": kind, "option": option} for option in SECTOR13_OPTIONS]
    if kind == "answer":
        return [
            {"type": "answer", "correct": True},
            {"type": "answer", "correct": True, "early": True},
        ]
    return [{"type": kind}]


def allowed_actions(
    book: Book,
    table: dict[str, int | None],
    context: dict[str, Any] | None,
    events: list[dict[str, Any]],
    rules: dict[str, Any] | None = None,
) -> list[str]:
    """Event types the rules allow after ``events``, in the order
    ``spin, decisive_round, sector13_option, answer, club_help, credit_minute, extra_minute,
    red_card``; ``[]`` once the game is over. A type is listed when at least one event of
    that type would be accepted (``spin`` at any sector, ``answer`` right or early…).
    Raises like :func:`replay` when ``events`` themselves are refused or malformed.
    """
    game = _replay_game(book, table, context, events, rules)
    if game.finished:
        return []
    order = (
        "spin",
        "decisive_round",
        "sector13_option",
        "answer",
        "club_help",
        "credit_minute",
        "extra_minute",
        "red_card",
    )
    assert set(order) == set(EVENT_TYPES) - UNRULED_EVENT_TYPES
    allowed = []
    for kind in order:
        for raw in _candidates(kind):
            trial = game.clone()
            try:
                trial.apply(parse_event(raw, len(events)), len(events))
            except RuleViolation:
                continue
            allowed.append(kind)
            break
    return allowed


def answer_modes(
    book: Book,
    table: dict[str, int | None],
    context: dict[str, Any] | None,
    events: list[dict[str, Any]],
    rules: dict[str, Any] | None = None,
) -> list[str]:
    """How an answer may be given now: a sublist of ``["discussed", "early"]`` — after the
    discussion minute, or early (without it); ``[]`` when no answer is accepted. An early
    answer is refused once an aid (club help, the extra minute, the minute on credit) was used
    on the question (§3.5 / §1.5); at 5:5 with the credit not repaid only an early one is
    accepted (§3.8.4). Decided like :func:`allowed_actions`, by trying each on a copy of the
    game (a right answer; the verdict never changes which modes are accepted). Raises like
    :func:`replay` when ``events`` themselves are refused or malformed.
    """
    game = _replay_game(book, table, context, events, rules)
    modes = []
    for mode, early in (("discussed", False), ("early", True)):
        trial = game.clone()
        try:
            trial.apply(
                parse_event({"type": "answer", "correct": True, "early": early}, len(events)),
                len(events),
            )
        except RuleViolation:
            continue
        modes.append(mode)
    return modes
