"""Storing a parsed packet (:class:`webapp.domain.packets.Packet`) as archive questions or
submissions, its authors and images. Flushes only; the caller commits once per file."""

from __future__ import annotations

from pathlib import Path

from webapp.domain.text import normalise
from webapp.extensions import db
from webapp.jobs import enqueue
from webapp.submissions.models import Question
from webapp.submissions.operations.intake import create_question
from webapp.submissions.operations.validation import LIMITS


def import_authors(authors) -> list[tuple[str, str | None, None, str | None]]:
    """The parsed authors of a packet question (:class:`webapp.domain.packets.AuthorRef`)
    as ``(name, city, None, credit)`` rows for :func:`create_question`: a credited
    co-author's genitive name in the nominative (:mod:`webapp.submissions.names`), names
    and cities cut to the form's limits, and one person named twice on a line (same name
    and city) kept once, at the first place."""
    from webapp.submissions.names import nominative_authors

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
        "question": normalise(pq.question).strip(),
        "answer": normalise(pq.answer).strip(),
        "accepted": normalise(pq.accepted).strip() if pq.accepted else None,
        "rejected": normalise(pq.rejected).strip() if pq.rejected else None,
        "comment": normalise(pq.comment).strip() if pq.comment else None,
        "handout": normalise(pq.handout).strip() if pq.handout else None,
        "sources": [normalise(s).strip() for s in pq.sources],
        "authors": import_authors(pq.authors),
        "author_line": pq.author_text,
    }


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
            enqueue("moderation.precheck", q.id)
        made.append(q)
        if progress:
            progress(1)
    if images:
        from webapp.submissions.packet_images import attach_packet_images

        assert uploads is not None  # images need the uploads folder
        attach_packet_images(made, images, uploads)
        db.session.flush()
    return made
