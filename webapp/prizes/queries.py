"""Reads for producers and accountants: prizes, PDF contexts, the dashboard."""

from __future__ import annotations

import os

from blinker import Namespace
from flask import current_app

from webapp.accounts.models import ROLE_LABELS, User
from webapp.core.models import Document
from webapp.domain.handouts import plain_text
from webapp.domain.prizes import AWARD_RULES, TROPHY_LABELS
from webapp.domain.rules import cite
from webapp.extensions import db
from webapp.prizes.models import CommissionMinutes, Prize, PrizeStatusChange
from webapp.submissions.names import name_gender

# The 2009 §3.1 best player is chosen by the audience vote, a later feature (votes depend on
# prizes, not the other way round: DESIGN, a back-edge uses a signal).
# ``best_player_vote.send(game)``: a receiver returns the game's vote as
# ``{"vote_id": int, "status": "open" | "closed", "candidates": [names], "winner": n | None}``
# or None (no vote held). ``best_player_awarded.send(game, prize=, vote_id=, winner_name=,
# chosen=, overridden=, reason=, user_id=)``: a new best_player_of_game prize was made
# (the votes feature keeps the decision for the audit, ``VoteAward``), in the same
# transaction.
_signals = Namespace()
best_player_vote = _signals.signal("sova.best-player-vote")
best_player_awarded = _signals.signal("sova.best-player-awarded")


def vote_for_best_player(game) -> dict | None:
    """The game's audience vote as :data:`best_player_vote`'s receiver gives it, or None."""
    for _receiver, vote in best_player_vote.send(game):
        if vote is not None:
            return vote
    return None


def prizes(game_id: int | None = None, status: str | None = None) -> list[Prize]:
    """Prizes in id order, optionally of one game and/or one status."""
    stmt = db.select(Prize).order_by(Prize.id)
    if game_id is not None:
        stmt = stmt.where(Prize.game_id == game_id)
    if status:
        stmt = stmt.where(Prize.status == status)
    return list(db.session.scalars(stmt).all())


def history(prize_id: int) -> list[PrizeStatusChange]:
    """The prize's status changes, oldest first."""
    return list(
        db.session.scalars(
            db.select(PrizeStatusChange)
            .where(PrizeStatusChange.prize_id == prize_id)
            .order_by(PrizeStatusChange.id)
        ).all()
    )


def user_names(user_ids) -> dict[int, str]:
    """Who made a status change, for the prize's history: ``{user id: str}`` — a person's
    name and role in Russian, ``"Ирина Ковалёва, бухгалтер (irina@example.org)"``; a user
    without a name of their own (none, or the e-mail's local part that
    :func:`webapp.accounts.operations.create_user` puts there) by role:
    ``"бухгалтер (accountant@sova.local)"``. Unknown ids are left out."""
    ids = {i for i in user_ids if i is not None}
    if not ids:
        return {}
    users = db.session.scalars(db.select(User).where(User.id.in_(ids))).all()
    out = {}
    for u in users:
        role = ROLE_LABELS.get(u.role, u.role)
        named = u.name and u.name != u.email.split("@")[0]
        out[u.id] = f"{u.name}, {role} ({u.email})" if named else f"{role} ({u.email})"
    return out


#: Russian names of the prize's documents (``Document.kind``) on the prize page.
DOCUMENT_LABELS = {
    "gift_agreement": "Договор дарения",
    "commission_minutes": "Протокол комиссии по денежным выигрышам",
    "signed_scan": "Скан подписанного договора",
    "payment_register": "Реестр выплат",
}
#: Russian names of a document's rendering status (``Document.status``).
DOCUMENT_STATUS_LABELS = {"pending": "готовится", "ready": "готов", "failed": "ошибка"}


def rule_for_print(rule: str) -> str:
    """``"000_90d7c8192601ed3a.txt §4.11.1"`` → ``"п. 4.11.1 Положения о … 2023 года"``
    (:func:`webapp.domain.rules.cite`, the paper style)."""
    return cite(rule, style="paper")


def kind_label(kind: str) -> str:
    """Russian name of a prize kind."""
    if kind == "unanswered_question":
        return "Приз автору неотвеченного вопроса"
    rule = AWARD_RULES.get(kind)
    return rule.label if rule else kind


def document_version(document_id: int | None) -> int:
    doc = db.session.get(Document, document_id) if document_id else None
    return doc.version if doc else 1


#: What the gift agreement quotes in place of a question's handout block and of an image.
AGREEMENT_HANDOUT_MARK = "(раздаточный материал)"
AGREEMENT_IMAGE_MARK = "(изображение)"


def agreement_text(text: str) -> str:
    """The question's text as clause 1.1 of the gift agreement quotes it: the words of the
    question, with its leading ``[Раздаточный материал: …]`` block replaced by «(раздаточный
    материал)» and any other ``(img …)`` reference by «(изображение)»
    (:func:`webapp.domain.handouts.plain_text`).

    Replaced rather than removed: the quotation identifies the question the prize is for, so
    it says that the question came with material the agreement does not reproduce (and a
    question that is mostly a picture is not quoted as an empty or misleading text); the
    markup and the packet's file names mean nothing to the parties and are left out."""
    return plain_text(text, handout_mark=AGREEMENT_HANDOUT_MARK, image_mark=AGREEMENT_IMAGE_MARK)


def agreement_context(prize: Prize, address: str = "", declared_name: str = "") -> dict:
    """Context of ``templates/pdf/gift_agreement.html`` (primitives only).

    The shape of ``workers/documents.py`` (``gift_agreement.html``) plus ``award``: None
    for a question's prize, else ``{"label": str, "trophy": str}`` for an individual prize
    (then ``question`` is None). ``address``: the payee's address when known (from the
    payee details), else "" (a blank line to fill in). ``declared_name``: the full name the
    payee declared with their details (it names «Одаряемый»), else "" and the name as
    given on the question (issue 13). ``author.gender``: ``"masc"`` | ``"femn"`` | None
    (:func:`webapp.submissions.names.name_gender`; the preamble agrees with it). The date is the game's closing
    date, so re-rendering gives the same text.

    ``question.text`` is the question as a legal document quotes it (:func:`agreement_text`):
    no handout markup, no image reference.
    """
    agreement = prize.agreement
    assert agreement is not None  # only an issued prize's agreement is rendered
    broadcaster = dict(current_app.config["SOVA_BROADCASTER"])
    game = prize.game
    byline = prize.byline
    award = None
    if prize.kind != "unanswered_question":
        award = {
            "label": kind_label(prize.kind),
            "trophy": TROPHY_LABELS.get(prize.trophy or "", ""),
        }
    return {
        "number": agreement.number,
        "date": (game.closed_at or agreement.created_at).date().isoformat(),
        "place": broadcaster.pop("place", ""),
        "broadcaster": broadcaster,
        "author": {
            "name": declared_name or prize.payee,
            "city": (byline.city or "") if byline else "",
            "address": address,
            "gender": name_gender(declared_name or prize.payee),
        },
        "question": (
            {"id": prize.question_id, "text": agreement_text(prize.question.text)}
            if prize.question is not None
            else None
        ),
        "award": award,
        "game": {"title": game.display_title, "date": game.air_date.isoformat()},
        "amount": prize.amount,
        "currency": prize.currency,
        "rule": rule_for_print(prize.rule),
        "version": document_version(agreement.document_id),
    }


def commission_members() -> list[str]:
    """Members of the prize commission: ``SOVA_PRIZE_COMMISSION`` from the configuration (a
    list, or a string with members separated by ``;``), else the environment variable of
    the same name. Each member: «Фамилия И. О., должность»."""
    value = current_app.config.get("SOVA_PRIZE_COMMISSION")
    if value is None:
        value = os.environ.get("SOVA_PRIZE_COMMISSION", "")
    if isinstance(value, str):
        value = value.split(";")
    return [" ".join(str(m).split()) for m in value if str(m).strip()]


def minutes_of(prize_id: int) -> CommissionMinutes | None:
    """The numbered prize commission minutes of a prize, None if it has none."""
    return db.session.scalar(
        db.select(CommissionMinutes).where(CommissionMinutes.prize_id == prize_id)
    )


def minutes_context(prize: Prize, version: int | None = None) -> dict:
    """Context of ``templates/pdf/commission_minutes.html`` (primitives only)::

        {"number": "2023-К-0001", "version": 1, "date": "2023-12-30", "place": str,
         "broadcaster": {"name": str}, "prize": {"label": str, "trophy": str,
         "amount": Decimal | None, "currency": "BYN" | "RUB"}, "winner": str,
         "game": {"title": str, "date": "2023-12-30"}, "rule": "п. 4.11.4 …",
         "members": [str]}

    ``number``: the season's gapless number taken when the minutes were first issued
    (:class:`webapp.prizes.models.CommissionMinutes`), the same on every render;
    ``version``: the document version printed in the footer (default: the latest).
    Raises ValueError when the prize has no numbered minutes, or when
    ``SOVA_PRIZE_COMMISSION`` is empty (minutes without members are not minutes).
    """
    minutes = minutes_of(prize.id)
    if minutes is None:
        raise ValueError(f"prize {prize.id} has no commission minutes")
    members = commission_members()
    if not members:
        raise ValueError("SOVA_PRIZE_COMMISSION is empty: the prize commission has no members")
    if version is None:
        version = (
            db.session.scalar(
                db.select(db.func.max(Document.version)).where(
                    Document.prize_id == prize.id, Document.kind == "commission_minutes"
                )
            )
            or 1
        )
    game = prize.game
    broadcaster = current_app.config["SOVA_BROADCASTER"]
    return {
        "number": minutes.number,
        "version": version,
        "date": game.air_date.isoformat(),
        "place": broadcaster.get("place", ""),
        "broadcaster": {"name": broadcaster["name"]},
        "prize": {
            "label": kind_label(prize.kind),
            "trophy": TROPHY_LABELS.get(prize.trophy or "", ""),
            "amount": prize.amount,
            "currency": prize.currency,
        },
        "winner": prize.payee,
        "game": {"title": game.display_title, "date": game.air_date.isoformat()},
        "rule": rule_for_print(prize.rule),
        "members": members,
    }


DASHBOARD_COLUMNS = ("owed", "issued", "signed", "paid")
_BUCKET = {
    "owed": "owed",
    "details_requested": "owed",
    "details_received": "owed",
    "agreement_issued": "issued",
    "signed": "signed",
    "paid": "paid",
    "closed": "paid",
}


def dashboard() -> list[dict]:
    """Per season and game: ``{"season", "game_id", "game", "owed", "issued", "signed",
    "paid"}`` counts (owed: owed/details_*; issued: agreement_issued; paid: paid/closed)
    and ``totals``: ``{currency: Decimal}`` of the amounts not yet paid."""
    from webapp.games.models import Game

    rows: dict[int, dict] = {}
    for p in db.session.scalars(db.select(Prize).join(Game).order_by(Game.air_date, Prize.id)):
        row = rows.setdefault(
            p.game_id,
            {
                "season": p.game.season.name,
                "game_id": p.game_id,
                "game": p.game.display_title,
                **{c: 0 for c in DASHBOARD_COLUMNS},
                "unpaid": {},
            },
        )
        bucket = _BUCKET[p.status]
        row[bucket] += 1
        if bucket != "paid" and p.amount is not None:
            row["unpaid"][p.currency] = row["unpaid"].get(p.currency, 0) + p.amount
    return list(rows.values())


def overdue(days: int, now=None) -> list[Prize]:
    """Cash prizes not paid ``days`` days after they became owed (oldest first)."""
    from datetime import timedelta

    from webapp.core.models import utcnow

    limit = (now or utcnow()) - timedelta(days=days)
    return list(
        db.session.scalars(
            db.select(Prize)
            .where(
                Prize.status.not_in(("paid", "closed")),
                Prize.amount.is_not(None),
                Prize.created_at < limit,
            )
            .order_by(Prize.created_at, Prize.id)
        ).all()
    )
