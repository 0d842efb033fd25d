"""Reads for game day, including the primitive contexts the PDF templates receive."""

from __future__ import annotations

import re
from pathlib import Path

from webapp.core.models import Document
from webapp.extensions import db
from webapp.games.models import Game, PrintedCopy, Season, Series, Team


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


HANDOUT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def handout_files(game: Game, uploads: Path) -> dict[str, Path]:
    """``{name: path}`` of the handout images of the game's envelope questions that exist
    under ``uploads`` (the ``allowed_files`` of ``workers.documents.render_pdf``)."""
    files = {}
    for env in game.envelopes:
        for eq in env.questions:
            name = eq.question.handout_image
            if name and HANDOUT_NAME.match(name) and (uploads / name).is_file():
                files[name] = uploads / name
    return files


def props_list(game: Game, images: dict[str, Path] | None = None) -> list[dict]:
    """The props list of the game: what the studio must prepare, per question in table
    order — handout text or image (``[{"sector", "number", "what"}]``; ``number`` is the
    question's position in a blitz, else None)."""
    items = []
    for env in game.envelopes:
        many = len(env.questions) > 1
        for n, eq in enumerate(sorted(env.questions, key=lambda x: x.slot), start=1):
            q = eq.question
            parts = []
            if q.handout:
                parts.append(f"раздаточный материал (текст): {q.handout}")
            if q.handout_image and (images is None or q.handout_image in images):
                parts.append(f"раздаточный материал (изображение {q.handout_image})")
            if parts:
                items.append({"sector": env.sector, "number": n if many else None,
                              "what": "; ".join(parts)})
    return items


#: Channels whose questions carry the author's consent to be named on air by themselves:
#: a paper letter or a partner's question is the consent (``LetterForm``'s docstring), and
#: a packet an editor imports names its authors publicly already (tournament packets). The
#: web form and the live form record it per question (``Question.consent_on_air``); the API
#: has no such field (contracts/api.md), so its questions are never named.
CONSENT_CHANNELS = ("mail", "partner", "import")
#: The note printed instead of the names when consent is missing.
NO_CONSENT_NOTE = {1: "Имя автора в эфире не называть: нет его согласия.",
                   2: "Имена авторов в эфире не называть: нет их согласия."}


def named_on_air(q) -> bool:
    """True if the host may read the authors' names and cities of question ``q`` on air:
    the viewer ticked «Я согласен(на), чтобы моё имя и город назвали в эфире»
    (``consent_on_air``) or the question came by letter, from a partner or in an imported
    packet."""
    return bool(q.consent_on_air) or q.channel in CONSENT_CHANNELS


def envelope_context(game: Game, with_answers: bool, serial: str,
                     copies: list[str] | None = None,
                     images: dict[str, Path] | None = None,
                     only_sectors: set[int] | None = None) -> dict:
    """Context of ``templates/pdf/envelope.html`` (``with_answers`` False) or
    ``host_card.html`` (True): primitives only, see ``workers/documents.py``. With
    ``copies`` (serials), the set is rendered once per copy; ``images`` (:func:`handout_files`)
    adds each question's handout ``image`` name. Host cards also show the question
    (``show_text``, stress marks kept) and start with the props list (``props``).
    ``only_sectors``: render just these sectors (the 2009 sector-13 card made at the draw);
    the props list then covers only them. A question whose authors did not consent to be
    named on air (:func:`named_on_air`) has no ``authors`` and an ``authors_note`` instead
    («Имя автора в эфире не называть: нет его согласия.»)."""
    sectors = []
    images = images or {}
    for env in game.envelopes:
        if only_sectors is not None and env.sector not in only_sectors:
            continue
        questions = []
        for eq in sorted(env.questions, key=lambda x: x.slot):
            q = eq.question
            item = {
                "slot": eq.slot, "text": q.text, "handout": q.handout,
                "image": q.handout_image if q.handout_image in images else None,
                "authors": [{"name": a.name, "city": a.city} for a in q.author_list],
            }
            if not named_on_air(q):  # no consent: no name or city, a note for the host
                item["authors"] = []
                item["authors_note"] = NO_CONSENT_NOTE[min(len(q.author_list), 2) or 1]
            if with_answers:
                item.update(answer=q.answer, accepted=q.accepted, rejected=q.rejected,
                            comment=q.comment, sources=list(q.sources or []), show_text=True)
            questions.append(item)
        sectors.append({"sector": env.sector, "kind": env.kind, "questions": questions})
    context = {
        "game": {"title": game.display_title, "date": game.air_date.isoformat(),
                 "season": game.season.name},
        "serial": serial,
        "sectors": sectors,
    }
    if copies:
        context["copies"] = list(copies)
    if with_answers:
        context["props"] = [p for p in props_list(game, images)
                            if only_sectors is None or p["sector"] in only_sectors]
    return context


def printed_copies(document_id: int) -> list[PrintedCopy]:
    """The printed copies (serials) of one envelopes / host-cards Document, by copy number."""
    return list(db.session.scalars(db.select(PrintedCopy).where(
        PrintedCopy.document_id == document_id).order_by(PrintedCopy.copy_no)).all())


def copy_by_serial(serial: str) -> PrintedCopy | None:
    """Trace a leaked sheet: the printed copy whose serial is ``serial``."""
    return db.session.scalar(db.select(PrintedCopy).filter_by(serial=serial.strip()))


def teams() -> list[Team]:
    """Every team of experts, by name."""
    return list(db.session.scalars(db.select(Team).order_by(Team.name)).all())


def all_series() -> list[Series]:
    """Every series, newest season first."""
    return list(db.session.scalars(db.select(Series).order_by(Series.season_id.desc(),
                                                              Series.id)).all())


def game_copies(game_id: int) -> list[PrintedCopy]:
    """Every printed copy of the game's documents (serials), by document and copy."""
    return list(db.session.scalars(db.select(PrintedCopy).where(PrintedCopy.game_id == game_id)
                                   .order_by(PrintedCopy.document_id, PrintedCopy.copy_no)).all())
