"""The table of a game: its plan per rule set, filling the 13 sectors from the approved
pool, swaps and replacements, topics, the completeness check, the lock and the envelope
print request.

Every operation on the table shares the helpers of the placed questions (``_Placed``,
``_where``, ``_set_slot``, ``_table_questions``) and the rule "no author twice in one game"
(``_persons``, ``one_author_rule``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from webapp.core.documents import Owner, request_document
from webapp.core.models import Document, utcnow
from webapp.domain.authors import repeated_authors
from webapp.domain.books import BOOKS, book, rule_reference
from webapp.domain.handouts import image_refs, missing_images
from webapp.domain.languages import LANGUAGE_NAMES_RU, fits_game
from webapp.domain.rules import Table, missing_multi
from webapp.domain.text import ru_plural
from webapp.domain.topics import TOPICS, topic_label
from webapp.extensions import db
from webapp.games.models import (
    Envelope,
    EnvelopeQuestion,
    EnvelopeReserve,
    Game,
    PrintedCopy,
)
from webapp.games.operations.common import (
    SECTORS,
    GameConflict,
    GameError,
    move_game,
    status_label,
)
from webapp.moderation.models import ModerationReport, QuestionRevision, QuestionSignoff
from webapp.moderation.operations import question_language
from webapp.moderation.operations import status_label as question_status_label
from webapp.moderation.queries import reports_for, signed_off_ids
from webapp.submissions.models import Question, set_status


def slots_for(kind: str, ruleset: str) -> int:
    """Questions in an envelope: three for blitz and superblitz, one otherwise
    (000_90d7c8192601ed3a.txt §3.4.1, §3.4.2; 002_e025d5ded135c1c4.txt §1.4.2, §1.4.3);
    none for a 2009 sector 13, whose question the computer draws among the live questions at
    the spin (002 §1.4.1, :func:`draw_sector13`)."""
    if kind == "sector13" and book(ruleset).sector13_drawn_at_spin:
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
            pool = book(ruleset).rules.sector13_pool
        plan.append(
            {"sector": sector, "kind": kind, "slots": slots_for(kind, ruleset), "pool": pool}
        )
    return plan


def _reserved_elsewhere(game: Game):
    """Question ids held as reserves by other games not yet closed."""
    return (
        db.select(EnvelopeReserve.question_id)
        .join(Game, Game.id == EnvelopeReserve.game_id)
        .where(Game.id != game.id, Game.status != "closed")
    )


def _pool(game: Game, partner: bool) -> list[Question]:
    """Approved questions for this game's fill, oldest first (``created_at``, id)."""
    query = db.select(Question).where(
        Question.status == "approved",
        Question.id.in_(signed_off_ids()),
        Question.id.not_in(_reserved_elsewhere(game)),
    )
    if partner:
        query = query.where(Question.channel == "partner")
    else:
        query = query.where(Question.channel.not_in(MAIN_CHANNELS_EXCLUDED))
    return list(db.session.scalars(query.order_by(Question.created_at, Question.id)).all())


def _city(author) -> str:
    return (author.city or "").strip().casefold()


def _persons(q: Question) -> set[int]:
    """The persons behind ``q``'s authors: an author row merged into another counts as the
    surviving one (``Author.person_id``)."""
    return {qa.author.person_id for qa in q.authors}


def _merged_into(questions) -> dict[int, int]:
    """``{author row: the row it was merged into}`` for the authors of ``questions``."""
    return {
        qa.author_id: qa.author.merged_into_id
        for q in questions
        for qa in q.authors
        if qa.author.merged_into_id is not None
    }


def one_author_rule(game: Game) -> str:
    """The clause of "no author twice in one game" for the game's rule set, as staff read
    it: «п. 4.11.1 Правил сезона 2023 г.» (the book's ``one_author_rule``)."""
    return rule_reference(game.season.book.one_author_rule)


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
        self.authors |= _persons(q)
        for a in q.author_list:
            if _city(a):
                self.cities[_city(a)] = self.cities.get(_city(a), 0) + 1

    def allows(self, q: Question) -> bool:
        return q.id not in self.taken and not (_persons(q) & self.authors)

    def pick(self, pool: list[Question]) -> Question | None:
        best, best_key = None, None
        for index, q in enumerate(pool):
            if not self.allows(q):
                continue
            key = (
                self.topics.get(q.topic, 0) if q.topic else 0,
                max((self.cities.get(_city(a), 0) for a in q.author_list), default=0),
                index,
            )
            if best_key is None or key < best_key:
                best, best_key = q, key
                if key[:2] == (0, 0):
                    break
        if best is not None:
            self.add(best)
        return best


def missing_image_files(q: Question, uploads: Path | None) -> list[str]:
    """The image files ``q`` would print without: each name its text, handout or comment
    refers to with no image attached (``(img name)``), and — with ``uploads`` — each attached
    image or uploaded handout image whose stored file is not under ``uploads``. Names as the
    text writes them (an uploaded handout image: «раздаточный материал»)."""
    missing = missing_images(image_refs(q.text, q.handout, q.comment), q.image_files)
    if uploads is not None:
        missing += [
            img.name
            for img in q.images
            if img.name not in missing and not (uploads / img.file).is_file()
        ]
        if q.handout_image and not (uploads / q.handout_image).is_file():
            missing.append("раздаточный материал")
    return missing


@dataclass
class FillReport:
    """What :func:`fill_table` passed over and warns about (Russian, for the producer).

    ``passed_over``: ``[{"reason": "missing_image" | "language", "count": int,
    "question_ids": [int], "message": str}]`` — approved questions the fill did not place;
    ``warnings``: e.g. 2023 sector 13 filled from the main pool (§3.3)."""

    passed_over: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def skipped(self) -> int:
        return sum(item["count"] for item in self.passed_over)

    def summary(self) -> str:
        """``""`` or «Пропущено вопросов: 3 — …; ….» (one sentence for the flash)."""
        if not self.passed_over:
            return ""
        reasons = "; ".join(item["message"] for item in self.passed_over)
        return f"Пропущено вопросов: {self.skipped} — {reasons}."

    def to_json(self) -> dict:
        return {"passed_over": self.passed_over, "warnings": self.warnings}


def _numbers(ids: list[int]) -> str:
    return ", ".join(f"№{i}" for i in ids)


def _passed_over(game: Game, pool: list[Question], uploads: Path | None) -> tuple[list, list]:
    """Split ``pool`` into the questions the fill may place and the report of those it
    passes over: a missing image file (an envelope printed without it is a wrong envelope),
    a language the game is not played in (:mod:`webapp.domain.languages`)."""
    ruleset = game.season.ruleset
    keep: list[Question] = []
    images: list[tuple[int, list[str]]] = []
    languages: dict[str | None, list[int]] = {}
    for q in pool:
        missing = missing_image_files(q, uploads)
        language = question_language(q)
        if missing:
            images.append((q.id, missing))
        elif not fits_game(language, BOOKS[ruleset].game_languages):
            languages.setdefault(language, []).append(q.id)
        else:
            keep.append(q)
    report = []
    if images:
        n = len(images)
        report.append(
            {
                "reason": "missing_image",
                "count": n,
                "question_ids": [i for i, _ in images],
                "message": f"у {n} {ru_plural(n, ('вопроса', 'вопросов', 'вопросов'))} нет "
                "файла изображения: "
                + ", ".join(f"№{i} ({', '.join(names)})" for i, names in images),
            }
        )
    game_language = LANGUAGE_NAMES_RU[book(ruleset).game_language]
    for language, ids in sorted(languages.items(), key=lambda item: item[0] or ""):
        n = len(ids)
        report.append(
            {
                "reason": "language",
                "count": n,
                "question_ids": ids,
                "message": f"{n} {ru_plural(n, ('вопрос', 'вопроса', 'вопросов'))} на "
                f"{LANGUAGE_NAMES_RU.get(language or '', language)} языке, а игра на "
                f"{game_language}: {_numbers(ids)}",
            }
        )
    return keep, report


def _sector13_name(sector: int) -> str:
    """«13 сектор», or «13 сектор (сектор 7)» when the plan put it elsewhere."""
    return "13 сектор" if sector == 13 else f"13 сектор (сектор {sector})"


def assign_envelopes(game: Game, uploads: Path | None = None) -> Game:
    """:func:`fill_table`, returning the game."""
    fill_table(game, uploads)
    return game


def fill_table(game: Game, uploads: Path | None = None) -> FillReport:
    """Fill the table from the approved pool by :func:`table_plan`: no author twice in the
    game (reserves included), varied topics, then varied cities (:class:`_Picker`),
    blitz/superblitz triplets of three authors,
    2023 sector 13 from the partner pool (000_90d7c8192601ed3a.txt §3.3: «вопросы от одного
    из партнёров Проекта»; the main pool when it has none, with a warning), 2009 sector 13
    left for the draw; then one reserve per sector when the pool allows (a missing reserve is a
    warning of :func:`check_table`, not a failure). Questions whose image files are missing
    (:func:`missing_image_files`; with ``uploads``, the files on disk too) or in a language
    the game is not played in (:mod:`webapp.domain.languages`) are passed over. Returns the
    :class:`FillReport`. Idempotent: a game that has envelopes keeps them (an empty report).
    Raises GameConflict when the game is past its draft or the pool is too small for the
    questions themselves (nothing is written; the refusal says what was passed over)."""
    report = FillReport()
    if game.envelopes and game.status == "ready":
        return report
    if game.status != "draft":
        raise GameConflict(
            f"игра {game.id} — {status_label(game.status)}: конверты заполняются только в черновике"
        )
    plan = table_plan(game)
    main, skipped_main = _passed_over(game, _pool(game, partner=False), uploads)
    partner, skipped_partner = _passed_over(game, _pool(game, partner=True), uploads)
    for item in skipped_partner:
        item["message"] = "из пула партнёров " + item["message"]
    report.passed_over = skipped_main + skipped_partner
    picker = _Picker()
    chosen: dict[int, list[Question]] = {}
    # the partner sector first (its pool is the narrow one), then the triplets, then singles
    order = sorted(plan, key=lambda p: (p["pool"] != "partner", -p["slots"], p["sector"]))
    short = 0
    from_main: list[int] = []
    for item in order:
        picked = []
        for _ in range(item["slots"]):
            q = picker.pick(partner) if item["pool"] == "partner" else None
            if q is None:
                q = picker.pick(main)
                if q is not None and item["pool"] == "partner":
                    from_main.append(item["sector"])
            if q is None:
                short += 1
            else:
                picked.append(q)
        chosen[item["sector"]] = picked
    needed = sum(p["slots"] for p in plan)
    if short:
        why = f" ({report.summary()[:-1]})" if report.passed_over else ""
        raise GameConflict(
            f"одобренных вопросов разных авторов — {needed - short}, а столу нужно {needed}{why}: "
            "одобрите ещё вопросы или уменьшите план",
            needed=needed,
            available=needed - short,
            passed_over=report.passed_over,
        )
    partner_rule = rule_reference(game.season.book.rules.cite("table"))
    for sector in from_main:
        report.warnings.append(
            f"{_sector13_name(sector)}: в пуле партнёров нет подходящего одобренного "
            f"вопроса с проверенными источниками — поставлен вопрос из общего пула "
            f"({partner_rule})"
        )
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
        q = picker.pick(partner) if item["pool"] == "partner" else None
        if q is None:
            q = picker.pick(main)
            if q is not None and item["pool"] == "partner":
                report.warnings.append(
                    f"{_sector13_name(item['sector'])}: резерв не из пула партнёров "
                    f"({partner_rule})"
                )
        if q is not None:
            env.reserve = EnvelopeReserve(game_id=game.id, question=q)
    move_game(game, "ready")
    db.session.flush()
    return report


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


def _slot_problem(env: Envelope, slot: int, ruleset: str) -> str | None:
    """What is wrong with ``slot`` of ``env``'s sector, naming both («в секторе 1 нет
    ячейки 2: 0 (резерв) или 1»), or None."""
    top = slots_for(env.kind, ruleset)
    if isinstance(slot, int) and not isinstance(slot, bool) and 0 <= slot <= top:
        return None
    cells = "0 (резерв) или 1" if top == 1 else f"от 0 (резерв) до {top}"
    return f"в секторе {env.sector} нет ячейки {slot}: {cells}"


def _check_slot(env: Envelope, slot: int, ruleset: str) -> None:
    problem = _slot_problem(env, slot, ruleset)
    if problem is not None:
        raise GameError({"slot": [problem]})


def swap_slots(game: Game, a: tuple[int, int], b: tuple[int, int]) -> None:
    """Swap the questions of two slots ``(sector, slot)`` of the table (slot 0: the sector's
    reserve) — the editor's drag-and-drop. Authors stay distinct (both are in this game).
    Raises GameConflict (locked or playing) / GameError (no such slot, empty slot, a slot
    swapped with itself)."""
    _editable(game)
    ruleset = game.season.ruleset
    env_a, env_b = _envelope(game, a[0]), _envelope(game, b[0])
    problems = [_slot_problem(env_a, a[1], ruleset), _slot_problem(env_b, b[1], ruleset)]
    if any(problems):  # each wrong place said, by its sector and slot
        raise GameError({"slot": [p for p in problems if p]})
    if a == b:
        where = f"вопрос {a[0]}.{a[1]}" if a[1] else f"резерв сектора {a[0]}"
        raise GameError(
            {"slot": [f"{where} не переставить сам с собой: выберите две разные ячейки"]}
        )
    qa, qb = _slot_question(env_a, a[1]), _slot_question(env_b, b[1])
    if qa is None and qb is None:
        raise GameError({"slot": ["обе ячейки пусты"]})
    _set_slot(game, env_a, a[1], None)
    _set_slot(game, env_b, b[1], None)
    _set_slot(game, env_a, a[1], qb)
    _set_slot(game, env_b, b[1], qa)


def replace_slot(game: Game, sector: int, slot: int, question_id: int) -> None:
    """Put approved question ``question_id`` in ``(sector, slot)`` (slot 0: the reserve); the
    question there goes back to the pool. The new question must be approved with its sources
    signed off (moderation), not in this game,
    not a reserve of another open game, and by authors not yet in this game. GameError
    otherwise; GameConflict when the table is locked or the game is playing."""
    _editable(game)
    env = _envelope(game, sector)
    _check_slot(env, slot, game.season.ruleset)
    q = db.session.get(Question, question_id) if isinstance(question_id, int) else None
    errors: dict[str, list[str]] = {}
    here = next((x for x in _table_questions(game) if q is not None and x.question is q), None)
    if q is None:
        errors["question_id"] = [f"вопроса №{question_id} нет"]
    elif here is not None:
        errors["question_id"] = [f"вопрос №{q.id} уже на столе этой игры: {_where(here)}"]
    elif q.status != "approved":
        errors["question_id"] = [_not_in_pool(q)]
    elif db.session.scalar(signed_off_ids().where(QuestionSignoff.question_id == q.id)) is None:
        errors["question_id"] = ["источники вопроса ещё не проверены вторым редактором"]
    elif (
        db.session.scalar(_reserved_elsewhere(game).where(EnvelopeReserve.question_id == q.id))
        is not None
    ):
        errors["question_id"] = ["вопрос — резерв другой игры"]
    else:
        current = _slot_question(env, slot)
        placed = [x for x in _table_questions(game) if x.question is not current]
        repeats = repeated_authors(
            [(_where(x), [(a.id, a.display) for a in x.question.author_list]) for x in placed]
            + [("", [(a.id, a.display) for a in q.author_list])],
            _merged_into([x.question for x in placed] + [q]),
        )
        if repeats:
            r = repeats[0]
            errors["question_id"] = [
                f"автор этого вопроса ({r.display}) уже есть в игре: {r.first} "
                f"({one_author_rule(game)})"
            ]
    if errors:
        raise GameError(errors)
    _set_slot(game, env, slot, q)


def _not_in_pool(q: Question) -> str:
    """Why question ``q`` (not ``approved``) cannot be put on a table: on another game's
    table (which game and where), or its status."""
    other = db.session.execute(
        db.select(EnvelopeQuestion.game_id, Envelope.sector, EnvelopeQuestion.slot)
        .join(Envelope, Envelope.id == EnvelopeQuestion.envelope_id)
        .where(EnvelopeQuestion.question_id == q.id)
        .limit(1)
    ).first()
    if q.status == "assigned" and other is not None:
        return (
            f"вопрос №{q.id} уже на столе игры №{other.game_id}: "
            f"сектор {other.sector}, вопрос {other.slot}"
        )
    return f"вопрос №{q.id} не в пуле одобренных: он в статусе «{question_status_label(q.status)}»"


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
    on the table page (varied topics). Allowed until the question is played, also
    on a locked table (the topic is not printed). The change is kept as a
    ``QuestionRevision`` (``{"topic": old code or ""}`` → ``{"topic": new}``); the sources
    sign-off stays. Returns the question; GameError for an unknown question or topic, or a
    status past ``assigned``. Flushes only."""
    q = (
        db.session.get(Question, question_id)
        if isinstance(question_id, int) and 0 < question_id <= 2**31 - 1
        else None
    )
    if q is None:
        raise GameError({"question_id": ["нет такого вопроса"]})
    topic = topic or None
    if topic is not None and topic not in TOPICS:
        raise GameError({"topic": [f"одна из тем: {', '.join(TOPICS)}"]})
    if q.status not in TOPIC_EDITABLE:
        raise GameError(
            {
                "question_id": [
                    f"вопрос в статусе «{question_status_label(q.status)}»: тему не изменить"
                ]
            }
        )
    if q.topic != topic:
        db.session.add(
            QuestionRevision(
                question_id=q.id,
                user_id=user_id,
                at=utcnow(),
                before={"topic": q.topic or ""},
                after={"topic": topic or ""},
            )
        )
        q.topic = topic
        db.session.flush()
    return q


@dataclass
class _Placed:
    sector: int
    slot: int
    question: Question


def _where(placed: _Placed) -> str:
    """``"сектор 3, вопрос 1"`` or ``"сектор 3, резерв"``."""
    return f"сектор {placed.sector}, " + ("резерв" if placed.slot == 0 else f"вопрос {placed.slot}")


def _table_questions(game: Game) -> list[_Placed]:
    out: list[_Placed] = []
    for env in game.envelopes:
        out.extend(_Placed(env.sector, eq.slot, eq.question) for eq in env.questions)
        if env.reserve is not None:
            out.append(_Placed(env.sector, 0, env.reserve.question))
    return out


MULTI_LABELS = {"blitz": "блица", "superblitz": "суперблица"}


def plan_warnings(game: Game) -> list[str]:
    """Warnings on the game's table plan: a 2023 or 2009 plan without a blitz or
    superblitz (``webapp.domain.rules.missing_multi``), e.g. ``"в плане стола нет блица
    (п. 3.4.1 Правил сезона 2023 г.)"`` — a warning, not a refusal: the book says the sector
    "may be" on the table."""
    rules = game.season.book.rules
    table = Table(
        blitz=game.table_blitz, superblitz=game.table_superblitz, sector13=game.table_sector13
    )
    return [
        f"в плане стола нет {MULTI_LABELS[kind]} ({rule_reference(rules.cite(kind))})"
        for kind in missing_multi(table, rules)
    ]


def _failed_check(report: ModerationReport | None, name: str) -> str | None:
    """The message of the pre-check row ``name`` when it failed in ``report``, else None."""
    for row in report.checks if report is not None else []:
        if row.get("name") == name and not row.get("ok", True):
            return str(row.get("message") or name)
    return None


def check_table(game: Game) -> dict:
    """The completeness check before the lock: ``{"complete": bool, "problems": [str],
    "warnings": [str]}`` (Russian, for the producer). Problems: a sector not filled per
    :func:`table_plan` (a 2009 sector 13 may hold the one question drawn at the spin), a
    question no longer ``assigned`` (withdrawn, rejected…), a question
    without an answer, an envelope question whose image file is missing, an author twice in
    the game. Warnings: a sector without a reserve; a reserve whose image file is missing; a
    placed question whose newest pre-check report says its text refers to a handout it does
    not have (``handout_missing``: «сектор 9, вопрос 1: вопрос №97 — текст ссылается на
    раздаточный материал («Перад вамі»), но его нет»); 2023
    sector 13 not from the partner pool while approved partner questions are waiting; a 2023 or
    2009 plan without a blitz or superblitz (:func:`plan_warnings`, first); a topic
    on more than one envelope question (reserves not counted), e.g. ``"тема «История»
    повторяется: сектор 2, вопрос 1; сектор 7, вопрос 1"`` (varied topics)."""
    problems: list[str] = []
    warnings: list[str] = plan_warnings(game)
    if not game.envelopes:
        return {"complete": False, "problems": ["стол не заполнен"], "warnings": warnings}
    by_sector = {e.sector: e for e in game.envelopes}
    for item in table_plan(game):
        env = by_sector.get(item["sector"])
        have = len(env.questions) if env else 0
        drawn = item["pool"] == "live" and have == 1  # the 2009 draw filled it (live game)
        if have != item["slots"] and not drawn:
            problems.append(f"сектор {item['sector']}: вопросов {have}, нужно {item['slots']}")
        if env is not None and env.reserve is None and item["pool"] != "live":
            warnings.append(f"сектор {item['sector']}: нет резерва")
        if (
            env is not None
            and item["pool"] == "partner"
            and any(eq.question.channel != "partner" for eq in env.questions)
            and _pool(game, partner=True)
        ):
            warnings.append(f"сектор {item['sector']}: вопрос не из пула партнёров")
    table = _table_questions(game)
    reports = reports_for([x.question.id for x in table])
    for placed in table:
        q = placed.question
        where = _where(placed)
        if placed.slot and q.status != "assigned":
            problems.append(
                f"{where}: вопрос №{q.id} в статусе «{question_status_label(q.status)}»"
            )
        if placed.slot == 0 and q.status != "approved":
            warnings.append(
                f"{where}: резервный вопрос №{q.id} в статусе «{question_status_label(q.status)}»"
            )
        if not (q.answer or "").strip():
            problems.append(f"{where}: у вопроса №{q.id} нет ответа")
        for name in missing_images(image_refs(q.text, q.handout, q.comment), q.image_files):
            # an envelope printed without its handout image is a wrong envelope
            (problems if placed.slot else warnings).append(
                f"{where}: у вопроса №{q.id} нет файла изображения {name}"
            )
        handout = _failed_check(reports.get(q.id), "handout_missing")
        if handout is not None:
            # an envelope must not print without the handout its text refers to; the check
            # reads words, so it warns (an editor may know better)
            warnings.append(f"{where}: вопрос №{q.id} — {handout}")
    for r in repeated_authors(
        [(_where(x), [(a.id, a.display) for a in x.question.author_list]) for x in table],
        _merged_into([x.question for x in table]),
    ):
        problems.append(
            f"{r.where}: автор «{r.display}» уже есть ({r.first}; {one_author_rule(game)})"
        )
    by_topic: dict[str, list[str]] = {}
    for placed in _table_questions(game):
        if placed.slot and placed.question.topic:
            by_topic.setdefault(placed.question.topic, []).append(
                f"сектор {placed.sector}, вопрос {placed.slot}"
            )
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
        raise GameConflict(
            "стол не готов: " + "; ".join(check["problems"]), problems=check["problems"]
        )
    game.table_locked_at = utcnow()
    game.table_locked_by = user_id
    db.session.flush()
    return check


def unlock_table(game: Game) -> None:
    """Unlock for more changes: only before the first event and before envelopes were
    queued for printing (printed sheets must match the table). GameConflict otherwise."""
    if game.events:
        raise GameConflict("игра уже идёт: стол не разблокировать")
    if db.session.scalar(
        db.select(Document.id).where(
            Document.game_id == game.id, Document.kind.in_(("envelopes", "host_cards"))
        )
    ):
        raise GameConflict("конверты уже отправлены в печать: стол не разблокировать")
    game.table_locked_at = None
    game.table_locked_by = None
    db.session.flush()


MAX_COPIES = 20


def request_envelopes(
    game: Game, lock_if_complete: bool = False, user_id: int | None = None, copies: int = 1
) -> list[Document]:
    """Queue the envelope and host-card PDFs (``games.render_envelopes``). Returns the two
    Document rows (status pending, or the existing ones). Envelopes print only from a locked
    table: GameConflict before assign or while unlocked — unless ``lock_if_complete`` (the
    API's ``POST /games/{id}/envelopes``, whose contract has no lock step), which locks a
    complete table first (:func:`lock_table`; GameConflict with its problems otherwise).
    ``copies`` (1..20): printed copies of each document, each with its own serial
    (:class:`PrintedCopy`); fixed when the documents are first requested. A document still
    pending is queued again when its earlier request is overdue
    (:func:`webapp.tasks.outbox.request_again`). A closed game prints nothing more (GameConflict)."""
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
        doc, made = request_document(kind, f"{kind}:game:{game.id}:v1", Owner(game_id=game.id))
        if made:
            letter = "E" if kind == "envelopes" else "H"
            for n in range(1, copies + 1):
                db.session.add(
                    PrintedCopy(
                        document_id=doc.id,
                        game_id=game.id,
                        copy_no=n,
                        serial=f"{game.id}-{letter}{n:02d}",
                        created_at=utcnow(),
                    )
                )
            db.session.flush()
        docs.append(doc)
    return docs


def set_reading_budget(game: Game, seconds: int | None) -> Game:
    """The producer's budget for reading the episode's questions aloud, whole seconds
    (None clears it); the table builder sets ``games.queries.reading_plan`` against it.
    Raises GameError for a negative budget. Flushes only."""
    if seconds is not None and seconds < 0:
        raise GameError({"reading_budget_seconds": ["не может быть отрицательным"]})
    game.reading_budget_seconds = seconds
    db.session.flush()
    return game
