"""An editor attaches an image to a question: the file of one of its
``(img name)`` references, or an image handout of its own.

The image is verified and re-encoded by :func:`webapp.submissions.images.store_image`
(size, type sniffed by Pillow, pixel budget); the pre-check's ``images_missing`` row is
re-run (:func:`webapp.moderation.operations.refresh_images_check`); the attachment is kept
in the question's history (who, when, which name).
"""

from __future__ import annotations

from pathlib import Path

from flask_babel import gettext as _

from webapp.core.errors import OperationError
from webapp.core.models import utcnow
from webapp.domain.handouts import image_refs
from webapp.extensions import db
from webapp.moderation.operations import EDITABLE_STATUSES, refresh_images_check, status_label
from webapp.submissions.images import ImageError, store_image
from webapp.submissions.models import Question, QuestionImage, QuestionStatusChange

__all__ = ["ATTACH_STATUSES", "HANDOUT", "ImageAttachError", "attach_image", "image_choices"]

#: The ``ref`` that attaches the question's own handout image (``Question.handout_image``).
HANDOUT = ""
#: Statuses in which a missing image may be attached; one that has a file is replaced
#: only while the question may be edited (``EDITABLE_STATUSES``): a question on a table
#: may already be printed.
ATTACH_STATUSES = (*EDITABLE_STATUSES, "assigned")


class ImageAttachError(OperationError, ValueError):
    """An image that cannot be attached (HTTP 422); the message is for the editor."""

    status = 422


def image_choices(question: Question) -> list[tuple[str, str]]:
    """``[(ref, label)]`` for the attach form: each referenced image (missing ones say so),
    then the question's own handout image."""
    have = question.image_files
    choices = [
        (ref, ref if ref in have else _("%(name)s (нет файла)", name=ref))
        for ref in image_refs(question.text, question.handout, question.comment)
    ]
    choices.append((HANDOUT, _("Раздаточный материал (изображение без ссылки в тексте)")))
    return choices


def attach_image(
    question: Question, ref: str, data: bytes, uploads: Path, user_id: int | None
) -> str:
    """Store ``data`` under ``uploads`` and attach it to ``question`` as the file of
    reference ``ref`` (a name of :func:`image_choices`) or, with ``ref`` = :data:`HANDOUT`,
    as its handout image. Returns the stored file name. Raises :class:`ImageAttachError`
    (nothing written, nothing stored) for a name the question does not refer to, a status
    that does not allow it (see :data:`ATTACH_STATUSES`) or a file that is not an acceptable
    image. Flushes only."""
    refs = image_refs(question.text, question.handout, question.comment)
    if ref != HANDOUT and ref not in refs:
        raise ImageAttachError(_("В вопросе нет ссылки на изображение %(name)s.", name=ref))
    replaces = question.handout_image if ref == HANDOUT else question.image_files.get(ref)
    allowed = EDITABLE_STATUSES if replaces else ATTACH_STATUSES
    if question.status not in allowed:
        raise ImageAttachError(
            _(
                "Вопрос в статусе «%(status)s»: изображение не прикладывается.",
                status=status_label(question.status),
            )
        )
    try:
        stored = store_image(data, uploads)
    except ImageError as exc:
        raise ImageAttachError(str(exc)) from exc
    if ref == HANDOUT:
        question.handout_image = stored
    else:
        row = next((img for img in question.images if img.name == ref), None)
        if row is None:
            question.images.append(QuestionImage(name=ref, file=stored))
        else:
            row.file, row.created_at = stored, utcnow()
    question.history.append(
        QuestionStatusChange(
            from_status=question.status,
            to_status=question.status,
            by_user_id=user_id,
            reason=f"изображение {ref or 'раздаточного материала'} приложено редактором",
            at=utcnow(),
        )
    )
    db.session.flush()
    refresh_images_check(question)
    return stored
