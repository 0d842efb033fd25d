"""The editor's desk: the authors revealed and corrected, edits and comments."""

from __future__ import annotations

from webapp.core.crypto import decrypt
from webapp.core.models import utcnow
from webapp.domain.text import has_control_chars, matching_key, normalise
from webapp.extensions import db
from webapp.moderation import aids
from webapp.moderation.models import (
    LeakMark,
    ModerationAudit,
    QuestionComment,
    QuestionRevision,
    StressEntry,
)
from webapp.moderation.operations.common import FIELD_LABELS, ModerationError, status_label
from webapp.moderation.operations.decisions import drop_signoff
from webapp.moderation.operations.precheck import (
    leak_check,
    refresh_images_check,
    refresh_leak_check,
    refresh_reading_check,
    refresh_stress_check,
)
from webapp.submissions.models import Question
from webapp.submissions.operations import LIMITS, MIN_QUESTION, upsert_author


def reveal_authors(question: Question, user_id: int) -> list[dict]:
    """The question's authors for a chief editor: ``[{"name", "city", "email", "credit",
    "position", "author_id", "confirmed"}]`` (e-mail decrypted, None when unknown;
    ``credit``: a credited co-author's phrase as written in the packet, else None;
    ``confirmed``: the link to the author row is confirmed). Blind moderation hides them from editors; every reveal
    writes a ModerationAudit row (``reveal_authors``). Flushes only."""
    db.session.add(
        ModerationAudit(
            question_id=question.id, user_id=user_id, action="reveal_authors", at=utcnow()
        )
    )
    db.session.flush()
    return [
        {
            "name": qa.name,
            "city": qa.city,  # as given on this question
            "email": decrypt(qa.author.email_encrypted) if qa.author.email_encrypted else None,
            "credit": qa.credit,
            "position": qa.position,
            "author_id": qa.author_id,
            "confirmed": qa.confirmed_at is not None,
        }
        for qa in question.authors
    ]


def open_letter_scan(question: Question, user_id: int) -> str:
    """The path (under the uploads folder) of the question's letter scan, for a chief
    editor: the scan shows the author's name and address, so blind moderation keeps it from
    editors and every download writes a ModerationAudit row (``letter_scan``). ModerationError
    when the question has no scan. Flushes only."""
    if not question.letter_scan:
        raise ModerationError(f"у вопроса № {question.id} нет скана письма")
    db.session.add(
        ModerationAudit(question_id=question.id, user_id=user_id, action="letter_scan", at=utcnow())
    )
    db.session.flush()
    return question.letter_scan


def correct_author(
    question: Question, position: int, name: str, city: str | None, user_id: int
) -> bool:
    """A chief editor corrects an author read from a packet or a letter: e.g. a
    credited co-author's name put in the nominative wrongly by pymorphy3, or a city.

    ``position``: the author's place on the question (``QuestionAuthor.position``).
    The question is linked to the author ``(name, city)`` without e-mail (found or made,
    :func:`webapp.submissions.operations.upsert_author`), so other questions of the old
    author row keep it; the credit phrase as written and the author line stay as they
    were. Writes a ModerationAudit row ``correct_author``. Returns False when nothing
    changed. Raises ModerationError (nothing written) when the question is past approval
    (its authors may be owed a prize), the author gave an e-mail (a viewer names
    themselves), the name is empty, too long or has control characters, or the corrected
    author is already another author of the question. Flushes only."""
    if question.status not in EDITABLE_STATUSES + ("archived",):
        raise ModerationError(
            f"вопрос в статусе «{status_label(question.status)}»: авторов не исправить"
        )
    link = next((qa for qa in question.authors if qa.position == position), None)
    if link is None:
        raise ModerationError("такого автора у вопроса нет")
    if link.author.email_hash is not None:
        raise ModerationError("автор с адресом электронной почты сам указал имя и город")
    name = " ".join(normalise(name or "").split())
    city = " ".join(normalise(city or "").split()) or None
    if not name:
        raise ModerationError("имя автора: обязательно")
    for label, value in (("имя", name), ("город", city or "")):
        if len(value) > LIMITS["name"] or has_control_chars(value):
            raise ModerationError(
                f"{label}: не длиннее {LIMITS['name']} символов, без управляющих символов"
            )
    if (name, city) == (link.name, link.city):
        return False
    others = [qa for qa in question.authors if qa is not link]
    if any((qa.name, qa.city, qa.author.email_hash) == (name, city, None) for qa in others):
        raise ModerationError("этот автор уже указан в вопросе")
    link.author_id = upsert_author(name, city, None)
    link.name, link.city = name, city  # the byline printed on envelopes
    db.session.add(
        ModerationAudit(
            question_id=question.id, user_id=user_id, action="correct_author", at=utcnow()
        )
    )
    db.session.flush()
    db.session.refresh(link)
    return True


# --- revisions, comments, sign-off -------------------------------------------------------

EDITABLE = ("question", "answer", "accepted", "rejected", "comment", "sources", "handout")
EDITABLE_STATUSES = ("received", "prechecked", "in_review", "approved", "rejected")
_ATTR = {"question": "text"}


def _field_text(question: Question, name: str) -> str:
    value = getattr(question, _ATTR.get(name, name))
    if name == "sources":
        return "\n".join(value or [])
    return value or ""


def edit_question(
    question: Question, user_id: int | None, fields: dict[str, str]
) -> QuestionRevision | None:
    """Edit a question's fields (``fields``: name in EDITABLE → text; ``sources`` one per
    line) and keep a QuestionRevision with the changed fields before and after. Returns
    None when nothing changed. Text is normalised (``webapp.domain.text.normalise``), the
    matching key recomputed (the duplicate index follows). Raises ModerationError for an
    unknown field, a status past approval, or a length limit (``LIMITS``); nothing is
    written then. An edit drops the sources sign-off. Flushes only."""
    if question.status not in EDITABLE_STATUSES:
        raise ModerationError(
            f"вопрос в статусе «{status_label(question.status)}» не редактируется"
        )
    unknown = set(fields) - set(EDITABLE)
    if unknown:
        raise ModerationError(f"неизвестные поля: {', '.join(sorted(unknown))}")
    new = {k: normalise(v or "").strip() for k, v in fields.items()}
    for name, value in new.items():
        if len(value) > LIMITS[name]:
            raise ModerationError(f"{FIELD_LABELS[name]}: не длиннее {LIMITS[name]} символов")
    if "question" in new and len(new["question"]) < MIN_QUESTION:
        raise ModerationError(f"{FIELD_LABELS['question']}: не короче {MIN_QUESTION} символов")
    if "answer" in new and not new["answer"]:
        raise ModerationError(f"{FIELD_LABELS['answer']}: обязателен")
    before = {k: _field_text(question, k) for k in new if _field_text(question, k) != new[k]}
    if not before:
        return None
    after = {k: new[k] for k in before}
    for name, value in after.items():
        if name == "sources":
            question.sources = [line.strip() for line in value.split("\n") if line.strip()]
        else:
            setattr(
                question,
                _ATTR.get(name, name),
                value or (None if name not in ("question", "answer") else ""),
            )
    if "question" in after:
        question.matching_key = matching_key(question.text)
    revision = QuestionRevision(
        question_id=question.id, user_id=user_id, at=utcnow(), before=before, after=after
    )
    db.session.add(revision)
    drop_signoff(question.id)
    db.session.flush()
    if {"question", "handout", "comment"} & set(after):
        refresh_images_check(question)  # a reference may have come or gone
    if {"question", "answer", "handout"} & set(after):
        refresh_leak_check(question)  # the answer's words may have come or gone
    if {"question", "handout"} & set(after):
        refresh_reading_check(question)
    if "question" in after:
        refresh_stress_check(question)
    return revision


def mark_leak_intended(question: Question, user_id: int, word: str) -> LeakMark:
    """An editor's «так задумано» on one answer word the pre-check found in the question
    (``answer_leak``): a :class:`LeakMark` and a ModerationAudit row ``leak_intended``; the
    latest report's ``answer_leak`` row is checked again, so the hit is listed as intended
    and, once every hit is, the check passes. ``word``: the answer's folded word as the
    report lists it (``words[].word``). Raises ModerationError (nothing written) when the
    answer's words are not found in the question now, or the word is already marked.
    Flushes only."""
    row = leak_check(question)
    hit = next((w for w in row["words"] if w["word"] == word), None)
    if hit is None:
        raise ModerationError(f"слово «{word}» ответа в тексте вопроса не найдено")
    if hit["intended"]:
        raise ModerationError(f"слово «{word}» уже отмечено: так задумано")
    now = utcnow()
    mark = LeakMark(question_id=question.id, word=word, user_id=user_id, at=now)
    db.session.add(mark)
    db.session.add(
        ModerationAudit(question_id=question.id, user_id=user_id, action="leak_intended", at=now)
    )
    db.session.flush()
    refresh_leak_check(question)
    return mark


def add_comment(question: Question, user_id: int, text: str) -> QuestionComment:
    """An editors' note (1..3000 characters after trimming). Raises ModerationError."""
    text = normalise(text or "").strip()
    if not text or len(text) > 3000:
        raise ModerationError("заметка: от 1 до 3000 символов")
    comment = QuestionComment(question_id=question.id, user_id=user_id, text=text, at=utcnow())
    db.session.add(comment)
    db.session.flush()
    return comment


#: A question's statuses once it was asked on air: only such a question may be held back.
AIRED_STATUSES = ("played", "answered", "unanswered")
#: The longest reason of a hold-back.
HOLD_BACK_REASON_MAX = 1000


def hold_back(question: Question, user_id: int, reason: str) -> Question:
    """Hold back a question asked on air (a legal complaint, say): it never appears on a
    public surface again (``webapp.games.publication``), though its game does; its author's
    own pages and its prize are unchanged. Sets ``held_back_at``/``held_back_by``/
    ``held_back_reason`` and writes a ModerationAudit row ``hold_back``. Raises
    ModerationError (nothing written) when the question was not asked on air, is already
    held back, or the reason is empty or longer than 1000 characters. Flushes only."""
    reason = normalise(reason or "").strip()
    if question.status not in AIRED_STATUSES:
        raise ModerationError("Придержать можно только вопрос, заданный в эфире.")
    if question.held_back_at is not None:
        raise ModerationError("Вопрос уже придержан.")
    if not reason:
        raise ModerationError("Укажите причину.")
    if len(reason) > HOLD_BACK_REASON_MAX:
        raise ModerationError(f"Причина — не длиннее {HOLD_BACK_REASON_MAX} символов.")
    now = utcnow()
    question.held_back_at = now
    question.held_back_by = user_id
    question.held_back_reason = reason
    db.session.add(
        ModerationAudit(question_id=question.id, user_id=user_id, action="hold_back", at=now)
    )
    db.session.flush()
    return question


def add_stress(question: Question, user_id: int, word: str, vowel: int) -> str:
    """An editor's stress mark, one click per syllable: the ``vowel``-th vowel (0-based) of
    ``word`` (as written in the question, without a mark) is stressed in every occurrence of
    the word in the question's text — an edit, kept as a revision — and the marked word
    joins the shared stress dictionary (:class:`StressEntry`; the latest mark of a word
    wins), which offers it in later questions. Returns the marked word («Му́ррен»). Raises
    ModerationError (nothing written) when the word is not in the text without a mark, or
    has no such vowel. Flushes only."""
    marks = aids.vowels(word)
    if not 0 <= vowel < len(marks):
        raise ModerationError(f"в слове «{word}» нет {vowel + 1}-го слога")
    found = [m for m in aids.WORD.finditer(question.text) if m.group(0) == word]
    if not found:
        raise ModerationError(f"слова «{word}» без ударения в тексте вопроса нет")
    marked = aids.with_stress(word, vowel)
    text = question.text
    for m in reversed(found):
        text = text[: m.start()] + marked + text[m.end() :]
    edit_question(question, user_id, {"question": text})
    key = aids.word_key(word)
    entry = db.session.scalar(db.select(StressEntry).filter_by(key=key))
    if entry is None:
        entry = StressEntry(key=key)
        db.session.add(entry)
    entry.marked, entry.user_id, entry.at = marked, user_id, utcnow()
    db.session.flush()
    refresh_stress_check(question)  # the dictionary now knows the word
    return marked
