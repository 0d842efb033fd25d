"""Reads for editors: the queue and one question with its report."""

from __future__ import annotations

from webapp.extensions import db
from webapp.moderation.models import ModerationReport
from webapp.submissions.models import Question

PAGE_SIZE = 50


def queue(status: str | None = "in_review", channel: str | None = None, page: int = 1,
          per_page: int = PAGE_SIZE) -> tuple[list[Question], int]:
    """Questions for editors, oldest first. Returns (items, pages). ``status`` None: every
    status except ``archived``."""
    stmt = db.select(Question)
    if status:
        stmt = stmt.where(Question.status == status)
    else:
        stmt = stmt.where(Question.status != "archived")
    if channel:
        stmt = stmt.where(Question.channel == channel)
    total = db.session.scalar(db.select(db.func.count()).select_from(stmt.subquery()))
    pages = max(1, -(-total // per_page))
    page = min(max(1, page), pages)
    items = db.session.scalars(stmt.order_by(Question.created_at, Question.id)
                               .offset((page - 1) * per_page).limit(per_page)).all()
    return list(items), pages


def latest_report(question_id: int) -> ModerationReport | None:
    return db.session.scalar(db.select(ModerationReport).filter_by(question_id=question_id)
                             .order_by(ModerationReport.version.desc()))


def reports_for(ids: list[int]) -> dict[int, ModerationReport]:
    """The newest report per question id (one query)."""
    if not ids:
        return {}
    rows = db.session.scalars(db.select(ModerationReport)
                              .where(ModerationReport.question_id.in_(ids))
                              .order_by(ModerationReport.version)).all()
    return {r.question_id: r for r in rows}


def question(question_id: int) -> Question | None:
    return db.session.get(Question, question_id)
