"""Reads for game day, including the primitive contexts the PDF templates receive."""

from __future__ import annotations

from webapp.core.models import Document
from webapp.extensions import db
from webapp.games.models import Game, Season, Series, Team


def seasons() -> list[Season]:
    return list(db.session.scalars(db.select(Season).order_by(Season.id.desc())).all())


def games(limit: int = 200) -> list[Game]:
    return list(db.session.scalars(db.select(Game).order_by(Game.air_date.desc(), Game.id.desc())
                                   .limit(limit)).all())


def game(game_id: int) -> Game | None:
    return db.session.get(Game, game_id)


def documents(game_id: int) -> list[Document]:
    """The game's envelope/host-card documents and its prizes' agreements."""
    return list(db.session.scalars(db.select(Document).where(Document.game_id == game_id)
                                   .order_by(Document.id)).all())


def envelope_context(game: Game, with_answers: bool, serial: str) -> dict:
    """Context of ``templates/pdf/envelope.html`` (``with_answers`` False) or
    ``host_card.html`` (True): primitives only, see ``workers/documents.py``."""
    sectors = []
    for env in game.envelopes:
        questions = []
        for eq in env.questions:
            q = eq.question
            item = {
                "slot": eq.slot, "text": q.text, "handout": q.handout,
                "authors": [{"name": a.name, "city": a.city} for a in q.author_list],
            }
            if with_answers:
                item.update(answer=q.answer, accepted=q.accepted, rejected=q.rejected,
                            comment=q.comment, sources=list(q.sources or []))
            questions.append(item)
        sectors.append({"sector": env.sector, "kind": env.kind, "questions": questions})
    return {
        "game": {"title": game.display_title, "date": game.air_date.isoformat(),
                 "season": game.season.name},
        "serial": serial,
        "sectors": sectors,
    }


def teams() -> list[Team]:
    return list(db.session.scalars(db.select(Team).order_by(Team.name)).all())


def all_series() -> list[Series]:
    return list(db.session.scalars(db.select(Series).order_by(Series.season_id.desc(),
                                                              Series.id)).all())
