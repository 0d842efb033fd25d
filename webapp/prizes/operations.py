"""Writes of the prizes feature: closing a game, individual prizes, statuses, paperwork.

Operations only flush; the view, task or command that calls them commits once
(``webapp.jobs.commit``). Every status change is recorded in ``PrizeStatusChange``.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from flask import current_app
from PIL import Image, UnidentifiedImageError
from pypdf import PdfReader
from pypdf.errors import PyPdfError

from webapp.core.errors import OperationError
from webapp.core.models import Document, utcnow
from webapp.domain.money import Money
from webapp.domain.prizes import (
    AWARD_RULES,
    COMMISSION_MINUTES,
    GIFT_AGREEMENT,
    Award,
    PrizeRefused,
    award_to_author,
    award_to_expert,
    special_game_prizes,
    unanswered_question_prizes,
)
from webapp.domain.vote import VoteRuleError, best_player_award
from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.games.operations import GameConflict, game_state, status_label
from webapp.jobs import enqueue
from webapp.prizes.models import (
    STATUS_LABELS,
    CommissionMinutes,
    GiftAgreement,
    PayeeDetails,
    Prize,
    PrizeStatusChange,
)
from webapp.prizes.queries import best_player_awarded, vote_for_best_player
from webapp.submissions.models import Author, set_status

#: Allowed status changes. A prize without a gift agreement (2023 §4.11.6, 2009 §3) goes
#: owed → paid → closed (or owed → closed for a prize without cash, 2009 §3.1).
TRANSITIONS = {
    "owed": {"details_requested", "details_received", "agreement_issued"},
    "details_requested": {"details_requested", "details_received", "agreement_issued"},
    "details_received": {"agreement_issued"},
    "agreement_issued": {"details_requested", "details_received", "signed"},
    "signed": {"paid"},
    "paid": {"closed"},
    "closed": set(),
}
NO_AGREEMENT_TRANSITIONS = {
    "owed": {"details_requested", "details_received", "paid", "closed"},
    "details_requested": {"details_requested", "details_received", "paid"},
    "details_received": {"paid"},
    "paid": {"closed"},
    "closed": set(),
}


class PrizeError(OperationError, RuntimeError):
    """A prize operation the prize's state does not allow (HTTP 409 / a flash message).
    ``rule``: the clause for a refusal by the rule book, else None."""

    status = 409

    def __init__(self, message: str, rule: str | None = None):
        super().__init__(message, error={"message": message, "rule": rule})
        self.rule = rule


def agreement_prefix(season: Season) -> str:
    """The number prefix of a season's agreements: the first 4-digit year in its name
    (``"Сезон 2023"`` → ``"2023"``), else ``"S<id>"``."""
    m = re.search(r"(19|20)\d\d", season.name)
    return m.group(0) if m else f"S{season.id}"


def next_agreement_seq(season: Season) -> int:
    """The next gap-free number of the season. The season row is locked (``FOR UPDATE`` on
    PostgreSQL; SQLite writers are serialised by ``BEGIN IMMEDIATE``)."""
    db.session.execute(db.select(Season.id).where(Season.id == season.id).with_for_update())
    current = db.session.scalar(
        db.select(db.func.max(GiftAgreement.seq)).where(GiftAgreement.season_id == season.id)
    )
    return (current or 0) + 1


def next_minutes_seq(season: Season) -> int:
    """The next gap-free number of the season's prize commission minutes; the season row is
    locked as in :func:`next_agreement_seq`."""
    db.session.execute(db.select(Season.id).where(Season.id == season.id).with_for_update())
    current = db.session.scalar(
        db.select(db.func.max(CommissionMinutes.seq)).where(
            CommissionMinutes.season_id == season.id
        )
    )
    return (current or 0) + 1


def change_status(prize: Prize, to: str, user_id: int | None, note: str = "") -> Prize:
    """Move ``prize`` to status ``to`` and record who and when (PrizeStatusChange).

    Allowed moves: :data:`TRANSITIONS` (or :data:`NO_AGREEMENT_TRANSITIONS` for a prize
    without a gift agreement). Raises PrizeError for any other move.
    """
    graph = TRANSITIONS if prize.agreement is not None else NO_AGREEMENT_TRANSITIONS
    if to not in graph.get(prize.status, set()):
        raise PrizeError(
            f"приз {prize.id}: переход «{STATUS_LABELS.get(prize.status, prize.status)}»"
            f" → «{STATUS_LABELS.get(to, to)}» не допускается"
        )
    _record(prize, prize.status, to, user_id, note)
    return prize


def _record(prize: Prize, from_status: str | None, to: str, user_id: int | None, note: str) -> None:
    now = utcnow()
    prize.status = to
    prize.status_changed_at = now
    db.session.add(
        PrizeStatusChange(
            prize_id=prize.id,
            from_status=from_status,
            to_status=to,
            by_user_id=user_id,
            note=note[:300],
            created_at=now,
        )
    )
    db.session.flush()


def _new_prize(game: Game, user_id: int | None, note: str, **fields) -> Prize:
    prize = Prize(game_id=game.id, status="owed", created_at=utcnow(), **fields)
    db.session.add(prize)
    db.session.flush()
    _record(prize, None, "owed", user_id, note)
    return prize


def _document(kind: str, prize: Prize, version: int = 1) -> Document:
    doc = Document(
        key=f"{kind}:prize:{prize.id}:v{version}",
        kind=kind,
        game_id=prize.game_id,
        prize_id=prize.id,
        version=version,
        status="pending",
        created_at=utcnow(),
    )
    db.session.add(doc)
    db.session.flush()
    return doc


def _number_agreement(prize: Prize, season: Season) -> GiftAgreement:
    """Take the season's next number for ``prize`` and queue its rendering."""
    seq = next_agreement_seq(season)
    doc = _document(GIFT_AGREEMENT, prize)
    agreement = GiftAgreement(
        prize_id=prize.id,
        season_id=season.id,
        seq=seq,
        number=f"{agreement_prefix(season)}-{seq:04d}",
        status="pending",
        document_id=doc.id,
        created_at=utcnow(),
    )
    db.session.add(agreement)
    db.session.flush()
    enqueue("prizes.issue_agreement", prize.id)
    return agreement


def _unanswered(game: Game, state: dict) -> list[tuple[int, list[int]]]:
    """``[(question_id, [author_id in authorship order])]`` of the game's unanswered
    questions, from the replayed ``state``."""
    keys = {(u["sector"], u["slot"]) for u in state["unanswered"]}
    return [
        (eq.question.id, [qa.author_id for qa in eq.question.authors])
        for env in game.envelopes
        for eq in env.questions
        if (env.sector, eq.slot) in keys
    ]


def close_game(game: Game, user_id: int | None) -> list[Prize]:
    """Close a finished game (idempotent: closing twice returns the same prizes).

    Every envelope question gets its outcome from the replay: ``unanswered`` (asked, not
    answered right: its authors are owed the prize — 2023 §4.11.1, 2009 §1.2.2),
    ``answered``, or ``unasked`` (never asked — back to the approved pool). Played
    questions go ``played`` → ``answered`` / ``unanswered`` with the air date. One Prize per author share, one
    GiftAgreement per prize numbered ``<year>-0001`` without gaps, and
    ``prizes.issue_agreement`` queued for each. Raises GameConflict.
    """
    if game.status == "closed":
        return prizes_of(game, kind="unanswered_question")
    if game.status != "finished":
        raise GameConflict(
            f"игра {game.id} — {status_label(game.status)}: закрыть можно только сыгранную игру"
        )
    season = game.season
    if season.unanswered_prize is None:
        raise GameConflict(
            f"season {season.name!r} has no cash prize per unanswered question; set it first"
        )
    state = game_state(game)
    from webapp.games.season_events import add_game_result

    add_game_result(game, state, user_id)  # the season's result, same transaction (409)
    unanswered = {(u["sector"], u["slot"]) for u in state["unanswered"]}
    played_sectors = {r["sector"] for r in state["rounds"]}
    asked = {
        (r["sector"], q["slot"]) for r in state["rounds"] for q in r["questions"] if q.get("asked")
    }
    for env in game.envelopes:
        for eq in env.questions:
            key = (env.sector, eq.slot)
            q = eq.question
            if key in unanswered:
                eq.outcome = "unanswered"
            elif env.sector in played_sectors and key in asked:
                eq.outcome = "answered"
            else:
                eq.outcome = "unasked"
            if eq.outcome == "unasked":
                set_status(
                    q,
                    "approved",
                    by_user_id=user_id,
                    reason=f"не сыгран в игре {game.id}: возвращён в пул",
                )
            else:
                # issue 4's state machine: assigned → played → answered / unanswered.
                q.aired_on = game.air_date
                set_status(q, "played", by_user_id=user_id, reason=f"сыгран в игре {game.id}")
                set_status(
                    q,
                    eq.outcome,
                    by_user_id=user_id,
                    reason=f"игра {game.id}: "
                    + ("не отвечен" if eq.outcome == "unanswered" else "отвечен"),
                )
    entitlements = unanswered_question_prizes(
        season.ruleset, _unanswered(game, state), Money(season.unanswered_prize, season.currency)
    )
    for ent in entitlements:
        prize = _new_prize(
            game,
            user_id,
            f"игра {game.id} закрыта",
            question_id=ent.question_key,
            author_id=ent.author_key,
            kind=ent.kind,
            amount=ent.money.amount,
            currency=ent.money.currency,
            rule=ent.rule,
        )
        _number_agreement(prize, season)
    game.status = "closed"
    game.closed_at = utcnow()
    db.session.flush()
    return prizes_of(game, kind="unanswered_question")


def prizes_of(game: Game, kind: str | None = None) -> list[Prize]:
    """The game's prizes (of one ``kind`` if given), in creation order."""
    stmt = db.select(Prize).where(Prize.game_id == game.id).order_by(Prize.id)
    if kind is not None:
        stmt = stmt.where(Prize.kind == kind)
    return list(db.session.scalars(stmt).all())


def _season_amount(season: Season, field: str | None) -> Money | None:
    if field is None:
        return None
    value = getattr(season, field)
    return None if value is None else Money(value, season.currency)


def _award_key(game: Game, award: Award) -> str:
    if award.kind == "special_game_expert":
        return f"{game.id}:{award.kind}:{' '.join(award.recipient.split()).casefold()}"
    return f"{game.id}:{award.kind}"


def award_prize(
    game: Game,
    kind: str,
    user_id: int | None,
    *,
    recipient: str = "",
    team: Sequence[str] = (),
    author_id: int | None = None,
    reason: str = "",
) -> list[Prize]:
    """Award an individual prize of the season's rule book after ``game``.

    ``kind``: a key of ``webapp.domain.prizes.AWARD_RULES``. Experts' prizes take
    ``recipient`` (a name) and ``team`` (the experts' names: the roster the recipient must
    belong to; for ``special_game_expert`` every member gets the prize); best-author prizes
    take ``author_id`` (an Author among the game's unanswered-question authors). The game's
    winner comes from the rules engine's replay; the game must be finished or closed.
    Amounts come from the season (``series_final_prize``, ``year_final_prize``,
    ``special_game_prize``). Crystal Owl prizes of 2023 get a numbered gift agreement and
    the prize commission's minutes (queued for rendering).

    ``best_player_of_game`` (2009 §3.1) follows the game's audience vote, on every page
    that awards it (``webapp.domain.vote.best_player_award``): after a closed vote the
    winner, anyone else (or deciding a tie) only with the sponsor's representative's
    ``reason``; refused while the vote is open; with no vote held only with a ``reason``.
    The team defaults to the vote's candidates; the decision is kept for the audit
    (:data:`~webapp.prizes.queries.best_player_awarded`, the prize's history note).

    Idempotent: awarding the same prize to the same person again returns the existing
    prize; to another person raises PrizeError. Raises PrizeError (carrying the clause) for
    a refusal by the rule book; nothing is written then.
    """
    rule = AWARD_RULES.get(kind)
    if rule is None:
        raise PrizeError(f"неизвестный вид приза {kind!r}")
    if game.status not in ("finished", "closed"):
        raise PrizeError(
            f"игра {game.id} ещё не окончена: призы присуждаются после игры", rule.rule
        )
    season = game.season
    winner = game_state(game)["winner"]
    prize_money = _season_amount(season, rule.amount_field)
    vote, overridden = None, False
    if kind == "best_player_of_game":
        vote = vote_for_best_player(game)
        try:
            recipient, overridden = best_player_award(
                vote["status"] if vote else None,
                vote["candidates"] if vote else [],
                vote["winner"] if vote else None,
                recipient,
                reason,
            )
        except VoteRuleError as exc:
            raise PrizeError(exc.message, exc.rule) from exc
        if vote and not [t for t in team if t.strip()]:
            team = list(vote["candidates"])
    try:
        if rule.recipient == "each_expert":
            awards = special_game_prizes(
                ruleset=season.ruleset, game_kind=game.kind, team=team, prize=prize_money
            )
        elif rule.recipient == "team":
            awards = [
                award_to_expert(
                    kind,
                    ruleset=season.ruleset,
                    game_kind=game.kind,
                    winner=winner,
                    recipient=recipient,
                    team=team,
                    prize=prize_money,
                )
            ]
        else:
            author = db.session.get(Author, author_id) if author_id is not None else None
            if author is None:
                raise PrizeRefused(rule.rule, "не выбран автор вопроса")
            authors = [a for _q, ids in _unanswered(game, game_state(game)) for a in ids]
            awards = [
                award_to_author(
                    kind,
                    ruleset=season.ruleset,
                    game_kind=game.kind,
                    winner=winner,
                    author_key=author.id,
                    author_name=author.name,
                    unanswered_authors=authors,
                    prize=prize_money,
                )
            ]
    except PrizeRefused as exc:
        raise PrizeError(exc.message, exc.rule) from exc
    out = []
    for award in awards:
        key = _award_key(game, award)
        existing = db.session.scalar(db.select(Prize).where(Prize.award_key == key))
        if existing is not None:
            same = (
                existing.author_id == award.author_key
                and (existing.recipient_name or "").casefold() == award.recipient.casefold()
            )
            if not same:
                raise PrizeError(
                    f"приз «{rule.label}» этой игры уже присуждён: {existing.payee}", rule.rule
                )
            out.append(existing)
            continue
        money = award.money
        note = f"присуждён: {rule.label}"
        if overridden:
            note = f"{note}; решение представителя Генерального спонсора: {reason.strip()}"
        prize = _new_prize(
            game,
            user_id,
            note[:300],
            kind=award.kind,
            author_id=award.author_key,
            recipient_name=award.recipient,
            amount=money.amount if money else None,
            currency=money.currency if money else season.currency,
            trophy=award.trophy,
            rule=award.rule,
            award_key=key,
        )
        if COMMISSION_MINUTES in award.paperwork:
            issue_minutes(prize, season)
        if GIFT_AGREEMENT in award.paperwork:
            _number_agreement(prize, season)
        if kind == "best_player_of_game":
            best_player_awarded.send(
                game,
                prize=prize,
                vote_id=vote["vote_id"] if vote else None,
                winner_name=(
                    vote["candidates"][vote["winner"] - 1] if vote and vote["winner"] else None
                ),
                chosen=award.recipient,
                overridden=overridden,
                reason=(reason or "").strip(),
                user_id=user_id,
            )
        out.append(prize)
    return out


def issue_minutes(prize: Prize, season: Season | None = None) -> CommissionMinutes:
    """Number the prize commission's minutes of ``prize`` (a Crystal Owl prize, 2023
    §4.11.2–§4.11.5) and queue their first rendering (``prizes.render_minutes``).

    The number (``<season prefix>-К-<seq:04d>``, e.g. ``2023-К-0001``) is the season's next
    one without gaps, taken in the caller's transaction (season row locked) and kept for
    good. Idempotent: minutes already numbered are returned as they are (no new number, no
    new document, nothing queued).
    """
    existing = db.session.scalar(
        db.select(CommissionMinutes).where(CommissionMinutes.prize_id == prize.id)
    )
    if existing is not None:
        return existing
    season = season or prize.game.season
    seq = next_minutes_seq(season)
    minutes = CommissionMinutes(
        prize_id=prize.id,
        season_id=season.id,
        seq=seq,
        number=f"{agreement_prefix(season)}-К-{seq:04d}",
        created_at=utcnow(),
    )
    db.session.add(minutes)
    _document(COMMISSION_MINUTES, prize)
    enqueue("prizes.render_minutes", prize.id)
    return minutes


def reissue_minutes(prize: Prize, user_id: int | None) -> Document:
    """A new version of the prize commission's minutes (e.g. after the commission's members
    changed in the configuration): same number, next version, rendered by
    ``prizes.render_minutes``; the prize's status does not change. ``user_id``: who asked
    (kept for the views' uniform call; documents record no author). Raises PrizeError when
    the prize has no minutes."""
    minutes = db.session.scalar(
        db.select(CommissionMinutes).where(CommissionMinutes.prize_id == prize.id)
    )
    if minutes is None:
        raise PrizeError(f"у приза {prize.id} нет протокола комиссии")
    version = 1 + (
        db.session.scalar(
            db.select(db.func.max(Document.version)).where(
                Document.prize_id == prize.id, Document.kind == COMMISSION_MINUTES
            )
        )
        or 0
    )
    doc = _document(COMMISSION_MINUTES, prize, version)
    enqueue("prizes.render_minutes", prize.id)
    return doc


def reissue_agreement(prize: Prize, user_id: int | None) -> Document:
    """A new version of the prize's gift agreement (e.g. once the address is known): same
    number, next version, rendered by ``prizes.issue_agreement``. Raises PrizeError when
    the prize has no agreement or is already signed."""
    agreement = prize.agreement
    if agreement is None:
        raise PrizeError(f"у приза {prize.id} нет договора дарения")
    if prize.status in ("signed", "paid", "closed"):
        raise PrizeError(f"договор {agreement.number} уже подписан: новая версия не выпускается")
    version = 1 + (
        db.session.scalar(
            db.select(db.func.max(Document.version)).where(
                Document.prize_id == prize.id, Document.kind == GIFT_AGREEMENT
            )
        )
        or 0
    )
    doc = _document(GIFT_AGREEMENT, prize, version)
    agreement.document_id = doc.id
    agreement.status = "pending"
    enqueue("prizes.issue_agreement", prize.id)
    return doc


#: The signed scan's file name suffix → the format its content must open as.
SCAN_FORMATS = {".pdf": "PDF", ".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}
SCAN_MAX_BYTES = 10 * 1024 * 1024


def scan_format(scan: bytes, filename: str) -> str:
    """Check that ``scan`` really is what its name says: a PDF that pypdf opens with at
    least one page, or a PNG / JPEG that Pillow opens and verifies (≤ 10 MB, at most
    Pillow's decompression-bomb pixel limit). Returns ``"PDF"``, ``"PNG"`` or ``"JPEG"``;
    raises PrizeError otherwise (a file that only starts like one is refused)."""
    wrong = PrizeError("скан договора: нужен файл PDF, PNG или JPEG")
    expected = SCAN_FORMATS.get(Path(filename or "").suffix.lower())
    if expected is None:
        raise wrong
    if len(scan) > SCAN_MAX_BYTES:
        raise PrizeError("скан договора больше 10 МБ")
    if expected == "PDF":
        try:
            pages = len(PdfReader(io.BytesIO(scan)).pages)
        except (PyPdfError, ValueError, KeyError, TypeError, OSError):
            pages = 0
        if pages < 1:
            raise PrizeError("скан договора: файл не открывается как PDF")
        return "PDF"
    try:
        with Image.open(io.BytesIO(scan)) as image:
            found = image.format
            image.verify()
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, SyntaxError, ValueError):
        raise PrizeError(
            "скан договора: файл не открывается как изображение PNG или JPEG"
        ) from None
    if found != expected:
        raise wrong
    return found


def mark_signed(prize: Prize, scan: bytes, filename: str, user_id: int | None) -> Document:
    """Store the scan of the signed agreement and mark the prize ``signed``.

    ``scan``: a PDF, PNG or JPEG of at most 10 MB that really opens as one
    (:func:`scan_format`). The payee's details must have been received (issue 6: owed →
    details requested → details received → agreement issued → signed): the agreement the
    payee signs carries their passport data and address. Raises PrizeError for a wrong
    file, missing details or a status that cannot become ``signed``.
    """
    agreement = prize.agreement
    if agreement is None:
        raise PrizeError(f"у приза {prize.id} нет договора дарения")
    suffix = Path(filename or "").suffix.lower()
    scan_format(scan, filename)
    received = db.session.scalar(
        db.select(PayeeDetails.id).where(PayeeDetails.prize_id == prize.id)
    )
    if received is None:
        raise PrizeError(
            f"приз {prize.id}: реквизиты получателя не получены — договор "
            f"{agreement.number} подписывается после получения паспортных "
            f"данных и адреса"
        )
    change_status(prize, "signed", user_id, f"скан подписанного договора {agreement.number}")
    sha = hashlib.sha256(scan).hexdigest()
    rel = f"signed/{agreement.number}-{sha[:12]}{suffix}"
    path = Path(current_app.config["SOVA_DOCUMENTS_PATH"]) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(scan)
    doc = Document(
        key=f"signed_scan:prize:{prize.id}:{sha[:16]}",
        kind="signed_scan",
        game_id=prize.game_id,
        prize_id=prize.id,
        version=1,
        status="ready",
        sha256=sha,
        path=rel,
        created_at=utcnow(),
        rendered_at=utcnow(),
    )
    db.session.add(doc)
    db.session.flush()
    agreement.signed_document_id = doc.id
    agreement.status = "signed"
    return doc


def mark_paid(prize: Prize, paid_on: date, reference: str, user_id: int | None) -> Prize:
    """Record the payment (``paid_on``: the bank's date; ``reference``: the payment order's
    number, 1–100 characters) and mark the prize ``paid``. Paying a paid prize again with
    the same reference does nothing. Raises PrizeError."""
    reference = " ".join((reference or "").split())
    if not reference or len(reference) > 100:
        raise PrizeError("номер платёжного поручения: от 1 до 100 символов")
    if prize.amount is None:
        raise PrizeError(f"приз {prize.id} без денежной суммы: выплачивать нечего")
    if prize.status in ("paid", "closed") and prize.payment_reference == reference:
        return prize
    change_status(prize, "paid", user_id, f"оплачен {paid_on.isoformat()}, п/п {reference}")
    prize.paid_on = paid_on
    prize.payment_reference = reference
    return prize


def close_prize(prize: Prize, user_id: int | None) -> Prize:
    """Close a paid prize (or a prize without cash). Raises PrizeError."""
    change_status(prize, "closed", user_id, "закрыт")
    return prize
