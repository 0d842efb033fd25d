"""2009 sector 13: the computer's draw among the viewers' live questions
(002_e025d5ded135c1c4.txt §1.4.1), repeatable from its seed."""

from __future__ import annotations

import random
import secrets
from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

from webapp.core.documents import Owner, request_document
from webapp.core.models import Document, utcnow
from webapp.domain.books import rule_reference
from webapp.domain.text import quantity
from webapp.extensions import db
from webapp.games.game_rules import game_started_at
from webapp.games.models import (
    EnvelopeQuestion,
    Game,
    PrintedCopy,
    Sector13Draw,
)
from webapp.games.operations.common import GameConflict, status_label
from webapp.games.queries import current_draw, live_candidates
from webapp.submissions.models import Question, set_status


def repeat_draw(seed: str, candidates: list[int]) -> int | None:
    """The draw itself, repeatable by anyone: ``random.Random(seed)`` (Python's seeding of
    a str is SHA-512 based and stable across versions) picks uniformly one of the sorted
    ``candidates`` (question ids). None when there is no candidate."""
    if not candidates:
        return None
    return random.Random(seed).choice(sorted(candidates))


def air_day_start(game: Game) -> datetime:
    """The start (00:00 in the season's time zone, as an aware UTC datetime) of the game's
    air date: live questions sent before it belong to an earlier broadcast (§1.3)."""
    local = datetime.combine(game.air_date, time(0), tzinfo=ZoneInfo(game.season.timezone))
    return local.astimezone(UTC)


SECTOR13_CARD = "sector13_card"


def sector13_card_key(draw: Sector13Draw) -> str:
    """Document key of a draw's host card: ``"sector13_card:game:<game>:draw:<draw>"``."""
    return f"{SECTOR13_CARD}:game:{draw.game_id}:draw:{draw.id}"


def draw_card(draw: Sector13Draw) -> Document | None:
    """The host card of ``draw`` (queued by :func:`draw_sector13`), or None when nothing
    was drawn or the card was dropped with a cancelled draw."""
    return db.session.scalar(db.select(Document).filter_by(key=sector13_card_key(draw)))


def draw_sector13(
    game: Game, seq: int, spun_at, user_id: int | None, seed: str | None = None
) -> Sector13Draw:
    """Draw the 2009 sector-13 question for the spin ``seq`` made at ``spun_at``: uniform
    among :func:`live_candidates` sent during the game — from its first recorded event
    (:func:`webapp.games.game_rules.game_started_at`, §1.3 «во время игры») — before the
    spin, with a fresh 128-bit seed (recorded with the candidates).
    The drawn question goes into the sector-13 envelope (slot 1, status ``assigned``), so the
    close treats it like any envelope question (played → answered / unanswered, the author's
    prize); and its host card is queued at once (Document kind ``sector13_card``, one printed
    copy with serial ``"<game>-D<draw id>"``, ``games.render_envelopes``) so it can be printed
    on the spot. No candidate: the draw records ``question_id`` None and the envelope stays
    empty. Idempotent per game while not cancelled: the game's draw in force is returned
    (2009 plays sector 13 once, §1.4.1; a draw asked for through the API before the spin is
    the spin's draw)."""
    existing = current_draw(game)
    if existing is not None:
        return existing

    candidates = live_candidates(spun_at, since=game_started_at(game, spun_at), game_id=game.id)
    seed = seed or secrets.token_hex(16)
    chosen = repeat_draw(seed, candidates)
    draw = Sector13Draw(
        game_id=game.id,
        seq=seq,
        spun_at=spun_at,
        seed=seed,
        candidates=candidates,
        question_id=chosen,
        by_user_id=user_id,
    )
    db.session.add(draw)
    db.session.flush()
    env = next((e for e in game.envelopes if e.kind == "sector13"), None)
    q = db.session.get(Question, chosen) if chosen is not None else None
    if env is not None and q is not None and not env.questions:
        env.questions.append(EnvelopeQuestion(game_id=game.id, question=q, slot=1))
        set_status(
            q, "assigned", by_user_id=user_id, reason=f"жеребьёвка 13 сектора, игра {game.id}"
        )
        doc, _made = request_document(
            SECTOR13_CARD, sector13_card_key(draw), Owner(game_id=game.id)
        )
        db.session.add(
            PrintedCopy(
                document_id=doc.id,
                game_id=game.id,
                copy_no=1,
                serial=f"{game.id}-D{draw.id}",
                created_at=utcnow(),
            )
        )
    db.session.flush()
    return draw


def cancel_draw(game: Game, seq: int) -> None:
    """Undoing the spin of a draw cancels it: the drawn question leaves the envelope (back to
    ``approved``, a candidate again) and its host card is dropped unless it was already
    rendered (a rendered card stays listed: its serial may be on a printed sheet)."""
    draw = db.session.scalar(
        db.select(Sector13Draw).filter_by(game_id=game.id, seq=seq, cancelled_at=None)
    )
    if draw is None:
        return
    draw.cancelled_at = utcnow()
    env = next((e for e in game.envelopes if e.kind == "sector13"), None)
    if env is not None:
        for eq in list(env.questions):
            if eq.question_id == draw.question_id:
                env.questions.remove(eq)
                db.session.flush()
                if eq.question.status == "assigned":
                    set_status(eq.question, "approved", reason=f"волчок отменён, игра {game.id}")
    card = draw_card(draw)
    if card is not None and card.status == "pending":
        db.session.execute(db.delete(PrintedCopy).where(PrintedCopy.document_id == card.id))
        db.session.delete(card)
        db.session.flush()


def request_draw(game: Game, user_id: int | None) -> Sector13Draw:
    """The draw of ``POST /api/v1/games/{id}/draw`` (``shared/contracts/api.md``): the
    game's draw in force if there is one (asking again returns the same draw; the spin on
    sector 13 made it, or an earlier call), else a draw made now (:func:`draw_sector13`,
    ``seq`` 0: drawn on request, not at a recorded spin — undoing an event never cancels it)
    among the live questions sent during this game and approved. Raises
    :class:`GameConflict` (409) for a game whose rule set takes sector 13 from elsewhere
    (2023: the partner, §3.3), a game not being played (status other than ``live``), an
    empty pool (nothing is written then), or a game whose spin on sector 13 found the pool
    empty (the draw in force drew nothing: sector 13 was passed over, §1.4.1 with §1.4)."""
    rules = game.season.book.rules
    if not rules.sector13_drawn_at_spin:
        rule = rules.cite("table")
        raise GameConflict(
            f"игра {game.id}: по этим правилам вопрос 13 сектора не разыгрывается среди "
            f"вопросов зрителей ({rule_reference(rule)})",
            rule=rule,
        )
    rule = rules.cite("sector13")
    if game.status != "live":
        raise GameConflict(
            f"игра {game.id} — {status_label(game.status)}: жеребьёвка 13 сектора идёт "
            f"только во время игры ({rule_reference(rule)})",
            rule=rule,
        )
    draw = current_draw(game)
    if draw is None:
        now = utcnow()
        if live_candidates(now, since=game_started_at(game, now), game_id=game.id):
            draw = draw_sector13(game, 0, now, user_id)
    if draw is not None and draw.question_id is None:
        raise GameConflict(
            f"игра {game.id}: 13 сектор уже выпал, и жеребьёвке не из чего было выбирать — "
            "он пропущен, играл следующий по часовой стрелке сектор; 13 сектор выпадает не "
            f"более 1 раза за игру ({rule_reference(rule)})",
            rule=rule,
        )
    if draw is None:
        raise GameConflict(
            f"игра {game.id}: среди вопросов, присланных во время игры, нет одобренного "
            f"редакторами с проверенными источниками — жеребьёвке не из чего выбирать "
            f"({rule_reference(rule)})",
            rule=rule,
        )
    return draw


def sector13_pool(game: Game, now: datetime | None = None) -> dict | None:
    """What the game page says of the 2009 sector-13 pool before sector 13 falls:
    ``{"candidates": int, "text": Russian sentence citing §1.4.1}`` — the live questions the
    draw would choose among at ``now`` (:func:`live_candidates` sent during this game, from
    its first event, that passed the fast lane; none before the game begins). None when the
    rule set takes sector 13 from elsewhere (2023 §3.3), the table has no sector 13, the game
    is over (status other than draft, ready, live) or its draw is made (sector 13 has fallen
    its once a game, §1.4.1). An empty pool is the warning: a spin on sector 13 then passes
    it over to the next sector clockwise (§1.4.1 with §1.4, ``docs/rules.md`` «Readings» 13).
    """
    rules = game.season.book.rules
    if not rules.sector13_drawn_at_spin or game.table_sector13 is None:
        return None
    if game.status not in ("draft", "ready", "live") or current_draw(game) is not None:
        return None
    now = now or utcnow()
    count = len(live_candidates(now, since=game_started_at(game, now), game_id=game.id))
    rule = rule_reference(rules.cite("sector13"))
    if count:
        pool = quantity(count, ("вопрос", "вопроса", "вопросов"))
        return {
            "candidates": count,
            "text": f"В пуле 13 сектора {pool}: одобрены редакторами, источники проверены — "
            f"при вращении на 13 сектор компьютер выберет один из них ({rule}).",
        }
    return {
        "candidates": 0,
        "text": "Пул 13 сектора пуст: ни один вопрос, присланный зрителями во время этой "
        "игры, ещё не одобрен редактором с проверенными вторым редактором источниками. "
        "Вопросы приходят через форму «Вопрос в 13 сектор во время игры», как только на "
        "пульте записано первое событие; редакторы разбирают их в очереди, канал «во время "
        "игры». Если волчок укажет на 13 сектор, пока пул пуст, 13 сектор пропускается и "
        f"играет следующий по часовой стрелке сектор ({rule}).",
    }
