"""Reads for producers and accountants: prizes and the agreement PDF context."""

from __future__ import annotations

from flask import current_app

from webapp.extensions import db
from webapp.prizes.models import Prize


def prizes(game_id: int | None = None, status: str | None = None) -> list[Prize]:
    stmt = db.select(Prize).order_by(Prize.id)
    if game_id is not None:
        stmt = stmt.where(Prize.game_id == game_id)
    if status:
        stmt = stmt.where(Prize.status == status)
    return list(db.session.scalars(stmt).all())


RULE_BOOKS = {
    "000_90d7c8192601ed3a.txt": "Положения о телевизионном проекте (правила сезона 2023 года)",
    "002_e025d5ded135c1c4.txt": "Правил игры «Что? Где? Когда?» 2009 года",
}


def rule_for_print(rule: str) -> str:
    """``"000_90d7c8192601ed3a.txt §4.11.1"`` → ``"п. 4.11.1 Положения о … 2023 года"``."""
    source, _, clause = rule.partition(" §")
    return f"п. {clause} {RULE_BOOKS.get(source, source)}" if clause else rule


def agreement_context(prize: Prize) -> dict:
    """Context of ``templates/pdf/gift_agreement.html`` (primitives only)."""
    agreement = prize.agreement
    broadcaster = dict(current_app.config["SOVA_BROADCASTER"])
    game = prize.game
    return {
        "number": agreement.number,
        "date": (game.closed_at or agreement.created_at).date().isoformat(),
        "place": broadcaster.pop("place", ""),
        "broadcaster": broadcaster,
        "author": {"name": prize.author.name, "city": prize.author.city or "", "address": ""},
        "question": {"id": prize.question_id, "text": prize.question.text if prize.question else ""},
        "game": {"title": game.display_title, "date": game.air_date.isoformat()},
        "amount": prize.amount,
        "currency": prize.currency,
        "rule": rule_for_print(prize.rule),
        "version": 1,
    }
