"""What a submission is and the checks on it: the field limits, the inputs
(:class:`SubmissionInput`), one field's cleaning, the e-mail, :func:`validate`;
:class:`SubmissionError` (422)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from email_validator import EmailNotValidError, validate_email
from flask_babel import get_locale
from flask_babel import gettext as _

from webapp.core.chars import code_point, forbidden
from webapp.core.errors import OperationError
from webapp.domain.text import has_control_chars, normalise, quantity

# Field limits in characters (after normalisation). The form, the API and imports share them.
LIMITS = {
    "question": 3000,
    "answer": 500,
    "accepted": 1000,
    "rejected": 1000,
    "comment": 3000,
    "sources": 3000,
    "handout": 2000,
    "name": 200,
    "city": 200,
}

#: Characters as each language counts them (:func:`webapp.domain.text.quantity`).
CHARACTERS = {
    "ru": ("символ", "символа", "символов"),
    "be": ("сімвал", "сімвалы", "сімвалаў"),
    "en": ("character", "characters"),
}


MIN_QUESTION = 20


CONSENT_VERSION = "2023-1"


class SubmissionError(OperationError, ValueError):
    """Invalid submission. ``errors``: ``{field: [message, …]}`` (messages in Russian,
    shown to the viewer; the same dict is the API's 422 body)."""

    status = 422

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(
            "; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()), errors=errors
        )
        self.errors = errors


@dataclass
class AuthorInput:
    name: str
    city: str | None = None
    email: str | None = None


@dataclass
class SubmissionInput:
    """What a viewer (or an editor for a paper letter) sends. Text fields are raw."""

    question: str
    answer: str
    authors: list[AuthorInput]
    email: str | None = None
    consent: bool = False
    accepted: str | None = None
    rejected: str | None = None
    comment: str | None = None
    sources: list[str] = field(default_factory=list)
    handout: str | None = None
    language: str | None = None
    channel: str = "web"
    consent_on_air: bool = False
    age_confirmed: bool = False
    idempotency_key: str | None = None
    handout_image: bytes | None = None  # raw upload; verified and re-encoded
    # or: a viewer's image kept while the form was corrected (a name under uploads/pending,
    # already verified and re-encoded: webapp.submissions.images.keep_image)
    handout_image_kept: str | None = None
    postmark_date: date | None = None  # paper letters (channel "mail")
    letter_scan: str | None = None  # the stored scan of a paper letter, under uploads/
    live_game_id: int | None = None  # channel "live": the game live when it was sent


def clean_text(
    value: str | None, name: str, errors: dict, required: bool = False, limit_key: str | None = None
) -> str | None:
    """Normalise one text field (NFC, format characters removed); record errors for
    control characters and anything else :func:`webapp.core.chars.forbidden` refuses
    (noncharacters: every intake path, packets included), emptiness and length. Returns the clean text or None."""
    text = normalise(value or "").strip()
    if has_control_chars(text):
        errors.setdefault(name, []).append(_("Поле содержит недопустимые управляющие символы."))
    elif (c := forbidden(text)) is not None:  # a noncharacter (U+FFFE), a C1 control …
        errors.setdefault(name, []).append(
            _("Недопустимый символ %(code)s: удалите его.", code=code_point(c))
        )
    if required and not text:
        errors.setdefault(name, []).append(_("Заполните это поле."))
    limit = LIMITS.get(limit_key or name)
    if limit and len(text) > limit:
        errors.setdefault(name, []).append(
            _(
                "Слишком длинно: %(n)s, допускается не более %(limit)s.",
                n=quantity(len(text), CHARACTERS.get(str(get_locale()), CHARACTERS["ru"])),
                limit=limit,
            )
        )
    return text or None


def normalise_email(value: str | None, name: str, errors: dict, required: bool) -> str | None:
    """Validate and normalise an e-mail with email-validator (no DNS look-up)."""
    value = (value or "").strip()
    if not value:
        if required:
            errors.setdefault(name, []).append(_("Укажите адрес электронной почты."))
        return None
    try:
        info = validate_email(value, check_deliverability=False)
    except EmailNotValidError:
        errors.setdefault(name, []).append(_("Неверный адрес электронной почты."))
        return None
    return info.normalized.lower()


def validate(data: SubmissionInput, require_email: bool = True) -> dict:
    """Check and clean a submission. Returns the clean fields; raises SubmissionError."""
    errors: dict[str, list[str]] = {}
    clean: dict[str, Any] = {
        name: clean_text(getattr(data, name), name, errors, required=name in ("question", "answer"))
        for name in ("question", "answer", "accepted", "rejected", "comment", "handout")
    }
    if clean["question"] and len(clean["question"]) < MIN_QUESTION:
        errors.setdefault("question", []).append(
            _("Слишком коротко: вопрос должен быть не короче %(n)s символов.", n=MIN_QUESTION)
        )
    sources = [s for s in (clean_text(x, "sources", errors) for x in data.sources or []) if s]
    if sum(len(s) for s in sources) > LIMITS["sources"]:
        errors.setdefault("sources", []).append(
            _("Источники слишком длинные: не более %(n)s символов.", n=LIMITS["sources"])
        )
    clean["sources"] = sources
    email = normalise_email(data.email, "email", errors, required=require_email)
    authors: list[tuple[str | None, str | None, str | None]] = []
    if not data.authors:
        errors.setdefault("name", []).append(_("Укажите имя автора."))
    for i, a in enumerate(data.authors):
        prefix = "" if i == 0 else f"authors.{i}."
        aname = clean_text(a.name, f"{prefix}name", errors, required=True, limit_key="name")
        city = clean_text(a.city, f"{prefix}city", errors, limit_key="city")
        aemail = email if i == 0 else normalise_email(a.email, f"{prefix}email", errors, False)
        if (aname, city, aemail) in authors or (aemail and aemail in {e for *_, e in authors}):
            # one author twice would be two links of one question to one author row
            errors.setdefault(f"{prefix}name", []).append(
                _("Этот автор уже указан в вопросе (то же имя и город или тот же адрес).")
            )
        authors.append((aname, city, aemail))
    if require_email and not data.age_confirmed and data.channel == "web":
        errors.setdefault("age_confirmed", []).append(
            _("Подтвердите, что вам исполнилось 16 лет или у вас есть согласие родителей.")
        )
    if data.idempotency_key is not None and not (8 <= len(data.idempotency_key) <= 64):
        # the key is the page's, not the person's: a reload makes a good one
        errors.setdefault("idempotency_key", []).append(
            _("Форма устарела: обновите страницу и отправьте вопрос ещё раз.")
        )
    if require_email and not data.consent:
        errors.setdefault("consent", []).append(
            _("Без согласия на обработку персональных данных мы не можем принять вопрос.")
        )
    if errors:
        raise SubmissionError(errors)
    clean["authors"] = authors
    return clean
