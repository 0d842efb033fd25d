"""Storing a parsed packet (:class:`webapp.domain.packets.Packet`) as archive questions or
submissions, its authors and images, and the editors' upload of a packet file or zip
(:func:`import_upload`). Flushes only; the caller commits once per file. Reading a packet's
files and images is below, in :mod:`webapp.submissions.packet_files` and
:mod:`webapp.submissions.packet_images`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from flask_babel import gettext as _

from webapp.domain.packets import PacketError
from webapp.domain.text import normalise
from webapp.extensions import db
from webapp.submissions.models import Question
from webapp.submissions.names import nominative_authors
from webapp.submissions.operations.intake import create_question
from webapp.submissions.operations.validation import LIMITS
from webapp.submissions.packet_files import read_packet_bytes
from webapp.submissions.packet_images import (
    BundleError,
    attach_packet_images,
    missing_refs,
    packet_error_text,
    read_bundle,
)
from webapp.submissions.queries import texts_present
from webapp.submissions.tasks import PRECHECK
from webapp.tasks.outbox import enqueue


def import_authors(authors) -> list[tuple[str, str | None, None, str | None]]:
    """The parsed authors of a packet question (:class:`webapp.domain.packets.AuthorRef`)
    as ``(name, city, None, credit)`` rows for :func:`create_question`: a credited
    co-author's genitive name in the nominative (:mod:`webapp.submissions.names`), names
    and cities cut to the form's limits, and one person named twice on a line (same name
    and city) kept once, at the first place."""
    rows: list[tuple[str, str | None, None, str | None]] = []
    seen = set()
    for a in nominative_authors(authors):
        name, city = a.name[: LIMITS["name"]], (a.city or "")[: LIMITS["city"]] or None
        if (name, city) not in seen:
            seen.add((name, city))
            rows.append((name, city, None, a.credit))
    return rows


def clean_fields(pq) -> dict:
    """A parsed packet question (:class:`webapp.domain.packets.ParsedQuestion`) as the
    validated fields :func:`create_question` takes: texts normalised and stripped, the
    authors as :func:`import_authors` gives them, the author line as written. Shared by
    the ORM path and the archive's bulk path (:mod:`webapp.moderation.bulk_import`)."""
    return {
        "question": stored_text(pq),
        "answer": normalise(pq.answer).strip(),
        "accepted": normalise(pq.accepted).strip() if pq.accepted else None,
        "rejected": normalise(pq.rejected).strip() if pq.rejected else None,
        "comment": normalise(pq.comment).strip() if pq.comment else None,
        "handout": normalise(pq.handout).strip() if pq.handout else None,
        "sources": [normalise(s).strip() for s in pq.sources],
        "authors": import_authors(pq.authors),
        "author_line": pq.author_text,
    }


def stored_text(pq) -> str:
    """The question text a parsed packet question is stored with (:func:`clean_fields`'
    ``question``): what :func:`already_there` compares."""
    return normalise(pq.question).strip()


def import_packet(
    packet,
    as_: str,
    channel: str | None = None,
    origin: str = "",
    progress=None,
    images: dict[str, bytes] | None = None,
    uploads: Path | None = None,
) -> list[Question]:
    """Store a parsed packet (:class:`webapp.domain.packets.Packet`).

    ``images`` (``{file name: bytes}``, :func:`webapp.submissions.packet_images.read_bundle`)
    are the packet's image files: each one a question refers to is stored under ``uploads``
    and attached (:func:`~webapp.submissions.packet_images.attach_packet_images`; raises
    its ``BundleError`` for a bad image, nothing stored then). A reference without a file
    stays missing: its question fails the pre-check (``images_missing``).

    Each question keeps its author line as written (``author_line``) beside the parsed
    authors (:func:`import_authors`).
    ``as_``: ``"archive"`` (status ``archived``, duplicate detection only) or
    ``"submissions"`` (status ``received``, pre-check queued, channel ``import`` or the
    given one, e.g. ``mail``). ``progress``: optional callable(n) after each question.
    Returns the new questions; the caller commits once per file (``contracts/api.md``).
    """
    if as_ not in ("archive", "submissions"):
        raise ValueError("as_ must be 'archive' or 'submissions'")
    status = "archived" if as_ == "archive" else "received"
    channel = channel or ("archive" if as_ == "archive" else "import")
    made = []
    for pq in packet.questions:
        q = create_question(
            clean_fields(pq), channel=channel, status=status, origin=f"{origin}#{pq.number}"[:300]
        )
        if as_ == "submissions":
            enqueue(PRECHECK, q.id)
        made.append(q)
        if progress:
            progress(1)
    if images:
        assert uploads is not None  # images need the uploads folder
        attach_packet_images(made, images, uploads)
        db.session.flush()
    return made


@dataclass(frozen=True)
class AlreadyThere:
    """A packet some of whose questions are stored already (:func:`already_there`):
    ``present`` of its ``total`` distinct question texts."""

    present: int
    total: int


def already_there(packet) -> AlreadyThere | None:
    """Whether the parsed ``packet``'s questions are in the database already, word for
    word as an import stores them (:func:`clean_fields`): None when none is, else how many
    of how many. Asked before importing, so that importing one packet twice is a choice
    (the import page asks again, ``sova import`` wants ``--again``), never a slip."""
    return texts_already_there([stored_text(pq) for pq in packet.questions])


def texts_already_there(texts: list[str]) -> AlreadyThere | None:
    """:func:`already_there` of a packet whose stored question texts (:func:`clean_fields`'
    ``question``) are ``texts``: the archive's bulk path has them cleaned already."""
    present = texts_present(texts)
    return AlreadyThere(present, len(set(texts))) if present else None


@dataclass
class UploadResult:
    """What :func:`import_upload` did: ``error`` (why nothing was imported; in the images
    zip when ``error_in_images``), ``already`` (nothing imported: the packet's questions
    are there already and the editor did not ask to import them again) or ``message`` for
    the editor, ``missing`` the referenced image names without a file."""

    error: str | None = None
    error_in_images: bool = False
    message: str = ""
    missing: list[str] = field(default_factory=list)
    already: AlreadyThere | None = None


def import_upload(
    name: str,
    data: bytes,
    images_zip: bytes | None,
    *,
    as_: str,
    channel: str | None,
    uploads: Path,
    again: bool = False,
) -> UploadResult:
    """The editors' import page: ``data`` is a packet text or a zip with the packet and
    its images (file ``name``), ``images_zip`` an optional zip of images. Imports in the
    caller's transaction (:func:`import_packet`); a bad
    packet, zip or image gives ``error`` and writes nothing (the caller's answer is a 4xx,
    which rolls back). Unless ``again``, a packet whose questions are stored already
    (:func:`already_there`) is not imported: ``already`` says how many are there."""
    images: dict[str, bytes] = {}
    if images_zip is not None:
        try:
            images = read_bundle(images_zip).images
        except BundleError as exc:
            return UploadResult(error=str(exc), error_in_images=True)
    try:
        if name.lower().endswith(".zip") or data[:4] == b"PK\x03\x04":
            bundle = read_bundle(data)
            if bundle.packet is None:
                raise BundleError(_("В архиве нет файла пакета (.4s или .txt)."))
            images = {**images, **bundle.images}
            packet_name, packet_data = bundle.packet
            packet = read_packet_bytes(packet_data, packet_name)
        else:
            packet = read_packet_bytes(data, name)
        already = None if again else already_there(packet)
        if already is not None:
            return UploadResult(already=already)
        made = import_packet(
            packet, as_=as_, channel=channel, origin=name, images=images, uploads=uploads
        )
    except PacketError as exc:
        return UploadResult(error=packet_error_text(exc, name))
    except (BundleError, ValueError) as exc:
        return UploadResult(error=str(exc))
    missing = missing_refs(made)
    message = _("%(name)s: импортировано вопросов — %(n)s.", name=name, n=len(made))
    attached = sum(len(q.images) for q in made)
    if attached:
        message += " " + _("Изображений приложено: %(n)s.", n=attached)
    if missing:
        message += " " + _(
            "Нет файлов изображений (%(n)s): %(names)s — приложите их к вопросам.",
            n=len(missing),
            names=", ".join(missing),
        )
    return UploadResult(message=message, missing=missing)
