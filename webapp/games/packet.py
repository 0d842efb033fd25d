"""A game's packet: the questions as they were asked, in the order asked, written in
chgksuite's 4s or the db.chgk.info text format (:func:`webapp.domain.packets.write_4s`,
:func:`~webapp.domain.packets.write_db`), with the image files beside it.

What was asked is the rules engine's replay of the recorded events (``contracts/
game-protocol.md``): its rounds in order, and in each round the questions marked ``asked``
— a blitz or superblitz round is one numbered question with the parts that were asked
(the unasked ones went back to the pool and are not published), sector 13 the question in
its envelope (2009: the drawn one). A round's ``(sector, slot)`` names the envelope
question.

Authors: an imported packet's question is signed as its packet named it (``author_line``);
a question whose authors agreed to be named on air (:func:`webapp.games.queries.named_on_air`)
by its bylines, «Имя (Город)» joined with ", " (a credited co-author by the phrase as
written); any other by :data:`~webapp.domain.packets.ANONYMOUS_AUTHOR`.

Images: every ``(img name)`` a question refers to and has a file for, and a viewer's uploaded
handout image (added to the handout as ``(img handout_<question id>.<ext>)``), go beside
the packet. A name db.chgk.info cannot write (anything but letters, digits, ``_`` and
``.``), or one already taken in this packet by another file, is written
``<question id>_<name>`` (other characters as ``_``), in the references too.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from webapp.core.filenames import file_name
from webapp.domain.donor import quoted
from webapp.domain.handouts import image_spans, leading_handout_span
from webapp.domain.packets import (
    ANONYMOUS_AUTHOR,
    AskedQuestion,
    PacketItem,
    PacketTour,
    write_4s,
    write_db,
)
from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.games.operations import GameConflict, game_state
from webapp.games.queries import HANDOUT_NAME, chronological, named_on_air
from webapp.submissions.models import Question

__all__ = [
    "FORMATS",
    "PacketFile",
    "asked_questions",
    "author_line",
    "game_packet",
    "season_packet",
]

#: ``format`` → (the packet file's extension, its writer).
FORMATS = {"4s": ("4s", write_4s), "db": ("txt", write_db)}
#: Channels whose questions came in a packet that named their authors (``author_line``).
PACKET_CHANNELS = ("import", "archive")
_SAFE_NAME = re.compile(r"[\w.]+")


@dataclass(frozen=True)
class PacketFile:
    """A packet to send or save: ``name`` (the file's name), ``mimetype``, ``data``;
    ``text`` is the packet text itself (also inside ``data`` when that is a zip)."""

    name: str
    mimetype: str
    data: bytes
    text: str


@dataclass
class PacketImages:
    """The image files of one packet: ``files`` maps a packet name to its stored path."""

    uploads: Path
    files: dict[str, Path] = field(default_factory=dict)

    def add(self, question_id: int, name: str, path: Path) -> str:
        """The packet's name of the file ``path`` referred to as ``name``."""
        candidate = name if _SAFE_NAME.fullmatch(name) else re.sub(r"[^\w.]", "_", name)
        n = 0
        while candidate in self.files and self.files[candidate] != path:
            n += 1
            prefix = f"{question_id}_" if n == 1 else f"{question_id}_{n}_"
            candidate = prefix + re.sub(r"[^\w.]", "_", name)
        self.files[candidate] = path
        return candidate

    def stored(self, file: str | None) -> Path | None:
        """The stored upload ``file`` (a name of Sova's own), if it is there."""
        if not file or not HANDOUT_NAME.match(file):
            return None
        path = self.uploads / file
        return path if path.is_file() else None


def renamed_references(text: str | None, names: dict[str, str]) -> str | None:
    """``text`` with each ``(img … name)`` reference's file name replaced by ``names[name]``."""
    if not text:
        return text
    for start, end, name in reversed(image_spans(text)):
        if names.get(name, name) != name:
            ref = text[start:end]
            i = ref.rfind(name)
            text = text[:start] + ref[:i] + names[name] + ref[i + len(name) :] + text[end:]
    return text


def author_line(q: Question) -> str | None:
    """The question's author line as the packet prints it (see the module doc); None for
    a question of no author (a packet's question without an ``@`` line)."""
    if q.author_line and q.channel in PACKET_CHANNELS:
        return q.author_line
    if not q.authors:
        return None
    if not named_on_air(q):
        return ANONYMOUS_AUTHOR
    return ", ".join(
        qa.credit or (f"{qa.name} ({qa.public_city})" if qa.public_city else qa.name)
        for qa in q.authors
    )


def _asked(q: Question, images: PacketImages) -> AskedQuestion:
    names: dict[str, str] = {}
    for ref_name, file in q.image_files.items():
        path = images.stored(file)
        if path is not None:
            names[ref_name] = images.add(q.id, ref_name, path)
    span = leading_handout_span(q.text)
    in_text = span is not None and " ".join(span[0].split()) == " ".join((q.handout or "").split())
    handout = None if in_text else (q.handout or None)
    upload = images.stored(q.handout_image)
    if upload is not None:
        name = images.add(q.id, f"handout_{q.id}{upload.suffix.lower()}", upload)
        handout = f"{handout}\n(img {name})" if handout else f"(img {name})"
    return AskedQuestion(
        text=renamed_references(q.text, names) or "",
        answer=renamed_references(q.answer, names) or "",
        accepted=renamed_references(q.accepted, names),
        rejected=renamed_references(q.rejected, names),
        comment=renamed_references(q.comment, names),
        sources=tuple(s for s in (q.sources or []) if s),
        handout=renamed_references(handout, names),
        authors=author_line(q),
    )


def asked_questions(game: Game, public: bool = False) -> list[tuple[str, list[Question]]]:
    """``[(round kind, [question asked, in slot order])]`` of ``game``, one entry per
    played round in play order (``kind``: single, blitz, superblitz, sector13). ``public``:
    without the questions an editor held back after the air (``Question.held_back_at``)."""
    by_key = {(env.sector, eq.slot): eq.question for env in game.envelopes for eq in env.questions}
    out = []
    for r in game_state(game)["rounds"]:
        asked = [
            by_key[(r["sector"], q["slot"])]
            for q in r["questions"]
            if q.get("asked") and (r["sector"], q["slot"]) in by_key
        ]
        if public:
            asked = [q for q in asked if q.held_back_at is None]
        if asked:
            out.append((r["kind"], asked))
    return out


def _tour(game: Game, images: PacketImages, title: str | None, public: bool = False) -> PacketTour:
    items = []
    for kind, questions in asked_questions(game, public):
        parts = tuple(_asked(q, images) for q in questions)
        items.append(PacketItem(parts, kind if kind in ("blitz", "superblitz") else "single"))
    return PacketTour(title, tuple(items))


def _packet_file(
    parts: tuple[str, ...], fmt: Literal["4s", "db"], text: str, images: PacketImages
) -> PacketFile:
    name = file_name(*parts, ext=FORMATS[fmt][0])
    data = text.encode("utf-8")
    if not images.files:
        return PacketFile(name, "text/plain", data, text)  # Werkzeug adds "; charset=utf-8"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(name, data)
        for image, path in sorted(images.files.items()):
            zf.write(path, image)
    return PacketFile(file_name(*parts, ext="zip"), "application/zip", buffer.getvalue(), text)


def game_packet(
    game: Game, fmt: Literal["4s", "db"], uploads: Path, public: bool = False
) -> PacketFile:
    """The packet of one game (the file's name «Пакет — игра 12 — 2026-12-05.4s», a zip of
    the same name with the images when there are any); ``public`` (a reader without a
    staff role, once the game is published): without the held-back questions. Raises
    :class:`GameConflict` when no question of the game has been asked yet."""
    images = PacketImages(uploads)
    tour = _tour(game, images, None, public)
    if not tour.items:
        raise GameConflict(f"игра {game.id}: ни один вопрос ещё не задан — пакет пуст")
    title = f"{game.season.name} — {game.display_title}"
    text = FORMATS[fmt][1](title, [tour])
    return _packet_file(("Пакет", f"игра {game.id}", game.air_date.isoformat()), fmt, text, images)


def season_packet(season: Season, fmt: Literal["4s", "db"], uploads: Path) -> PacketFile:
    """The packet of a season: its games that are over (finished or closed), in play order
    (air date, then id), each a tour headed by its title and team. Raises
    :class:`GameConflict` when no game of the season is over."""
    images = PacketImages(uploads)
    games = chronological(
        db.select(Game).where(Game.season_id == season.id, Game.status.in_(("finished", "closed")))
    )
    tours = []
    for game in games:
        heading = " — ".join(x for x in (game.display_title, game.team_name) if x)
        tour = _tour(game, images, heading)
        if tour.items:
            tours.append(tour)
    if not tours:
        raise GameConflict(f"в сезоне {quoted(season.name)} нет сыгранных игр — пакет пуст")
    text = FORMATS[fmt][1](season.name, tours)
    return _packet_file(("Пакет", f"сезон {season.name}"), fmt, text, images)
