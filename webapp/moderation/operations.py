"""Writes for moderation: the pre-check report and the editor's decision."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from webapp.core.crypto import decrypt
from webapp.core.errors import OperationError
from webapp.core.models import utcnow
from webapp.domain.handouts import image_refs, missing_images
from webapp.domain.question_states import can_transition
from webapp.domain.text import matching_key, normalise
from webapp.extensions import db
from webapp.jobs import enqueue
from webapp.moderation import checks as content_checks
from webapp.moderation.duplicates import (  # noqa: F401  (re-exported for callers)
    COMPARED_STATUSES,
    DUPLICATE_THRESHOLD,
    MAX_CANDIDATES,
    ensure_indexed,
    find_duplicates,
)
from webapp.moderation.models import (
    PRECHECK_VERSION,
    ModerationAudit,
    ModerationReport,
    QuestionClaim,
    QuestionComment,
    QuestionRevision,
    QuestionSignoff,
)
from webapp.moderation.reasons import REJECTION_REASONS, reason_text
from webapp.submissions.models import Question, set_status
from webapp.submissions.operations import LIMITS, MIN_QUESTION

#: Russian names of a question's statuses (``webapp.domain.question_states.STATES``) in
#: messages to staff: «вопрос в статусе «в архиве»».
STATUS_NAMES = {
    "received": "получен",
    "prechecked": "проверен автоматически",
    "in_review": "на рассмотрении",
    "approved": "одобрен",
    "rejected": "отклонён",
    "assigned": "в игре",
    "played": "сыгран",
    "answered": "отвечен знатоками",
    "unanswered": "не отвечен",
    "withdrawn": "отозван автором",
    "archived": "в архиве",
}
#: Russian names of the editable fields (``EDITABLE``) in messages to staff.
FIELD_LABELS = {
    "question": "Вопрос",
    "answer": "Ответ",
    "accepted": "Зачёт",
    "rejected": "Незачёт",
    "comment": "Комментарий",
    "sources": "Источники",
    "handout": "Раздаточный материал",
}
#: Russian names of the pre-check rows (``run_checks``), shown on the question page.
CHECK_LABELS = {
    "question_present": "текст вопроса",
    "answer_present": "ответ",
    "question_length": "длина вопроса",
    "answer_length": "длина ответа",
    "author_present": "автор",
    "sources_present": "источники",
    "language": "язык вопроса",
    "obscene_words": "нецензурные слова",
    "author_in_text": "анонимность",
    "handout_missing": "раздаточный материал",
    "images_missing": "изображения",
}


def status_label(status: str | None) -> str:
    """The Russian name of a question status (:data:`STATUS_NAMES`); unknown → as is."""
    return STATUS_NAMES.get(status or "", status or "—")


# An editor's claim on a question lapses after this long without renewal (issue 4).
CLAIM_TTL = timedelta(minutes=15)


class ModerationError(OperationError, ValueError):
    """A decision the question's status does not allow (HTTP 409, ``{"message": …}``)."""

    status = 409


class ClaimConflict(ModerationError):
    """Another editor holds a live claim on the question (HTTP 409)."""


def claim_holder(question_id: int) -> int | None:
    """The user id holding a live (unexpired) claim on the question, or None."""
    return db.session.scalar(
        select(QuestionClaim.user_id).where(
            QuestionClaim.question_id == question_id, QuestionClaim.expires_at > utcnow()
        )
    )


def claim(question_id: int, user_id: int, ttl: timedelta = CLAIM_TTL) -> QuestionClaim:
    """Claim a question for ``user_id`` until now + ``ttl`` (renews the caller's own claim;
    takes over an expired one). One editor per question: the row's primary key is the
    question id, so of two editors claiming at once exactly one insert or conditional
    update succeeds; the other gets ClaimConflict. Flushes only."""
    now = utcnow()
    values = {"user_id": user_id, "claimed_at": now, "expires_at": now + ttl}
    taken = db.session.execute(
        update(QuestionClaim)
        .where(
            QuestionClaim.question_id == question_id,
            or_(QuestionClaim.user_id == user_id, QuestionClaim.expires_at <= now),
        )
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]  # a CursorResult at run time
        try:
            with db.session.begin_nested():
                db.session.execute(insert(QuestionClaim).values(question_id=question_id, **values))
        except IntegrityError:
            raise ClaimConflict(f"вопрос № {question_id} взят другим редактором") from None
    db.session.expire_all()
    return db.session.get_one(QuestionClaim, question_id)


def release(question_id: int, user_id: int | None) -> bool:
    """Drop ``user_id``'s claim on the question (True if there was one). Flushes only."""
    if user_id is None:
        return False
    gone = db.session.execute(
        delete(QuestionClaim)
        .where(QuestionClaim.question_id == question_id, QuestionClaim.user_id == user_id)
        .execution_options(synchronize_session=False)
    )
    return gone.rowcount == 1  # type: ignore[attr-defined]  # a CursorResult at run time


def reveal_authors(question: Question, user_id: int) -> list[dict]:
    """The question's authors for a chief editor: ``[{"name", "city", "email", "credit",
    "position", "author_id", "confirmed"}]`` (e-mail decrypted, None when unknown;
    ``credit``: a credited co-author's phrase as written in the packet, else None;
    ``confirmed``: the link to the author row is confirmed, issue 13). Blind moderation hides them from editors; every reveal
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
            "city": qa.city,  # as given on this question (issue 13)
            "email": decrypt(qa.author.email_encrypted) if qa.author.email_encrypted else None,
            "credit": qa.credit,
            "position": qa.position,
            "author_id": qa.author_id,
            "confirmed": qa.confirmed_at is not None,
        }
        for qa in question.authors
    ]


def correct_author(
    question: Question, position: int, name: str, city: str | None, user_id: int
) -> bool:
    """A chief editor corrects an author read from a packet or a letter (issue 20): e.g. a
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
    from webapp.domain.text import has_control_chars
    from webapp.submissions.operations import upsert_author

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
    link.name, link.city = name, city  # the byline printed on envelopes (issue 13)
    db.session.add(
        ModerationAudit(
            question_id=question.id, user_id=user_id, action="correct_author", at=utcnow()
        )
    )
    db.session.flush()
    db.session.refresh(link)
    return True


def duplicate_candidates(question: Question, limit: int = MAX_CANDIDATES) -> list[dict]:
    """Ranked duplicates of ``question`` among the archive, the intake and the pool.

    Returns ``[{"question_id": int, "score": float 0..100 (1 place), "status": str}]``,
    best first, scores ≥ ``DUPLICATE_THRESHOLD``. Uses the persisted MinHash LSH index
    re-ranked with rapidfuzz (``webapp.moderation.duplicates``; figures in
    docs/performance.md, «Duplicate detection»).
    """
    if not question.matching_key:
        return []
    return find_duplicates(question.matching_key, exclude_id=question.id, limit=limit)


def run_checks(question: Question) -> list[dict]:
    """Every pre-check of one question: ``[{"name", "ok", "message"}]`` in this order.

    Completeness and lengths (``question_present``, ``answer_present``, ``question_length``,
    ``answer_length``, ``author_present``, ``sources_present``), then the content checks of
    ``webapp.moderation.checks`` (issue 4, «Pre-checks»):

    * ``language`` — fails unless the question (text and answer) is Russian or Belarusian;
      the message always names the detected language («язык: белорусский»);
    * ``obscene_words`` — мат in the question, answers, comment or handout; the message
      lists the words;
    * ``author_in_text`` — an author's own surname or city in the question, comment or
      handout (blind moderation); the message names the fields, not the words;
    * ``handout_missing`` — the text refers to a handout («раздаточный материал», «перед
      вами», «на фото»…) but the question has no handout text, image or inline handout;
    * ``images_missing`` — the question, handout or comment refers to an image file
      (``(img name)`` / ``(pic: name)``) that was neither imported with the packet nor
      attached (:func:`images_check`).

    ``message`` is ``""`` for a passed check, except ``language``.
    """
    checks = []

    def check(name: str, ok: bool, message: str, note: str = "") -> None:
        checks.append({"name": name, "ok": bool(ok), "message": note if ok else message})

    check("question_present", bool(question.text.strip()), "нет текста вопроса")
    check("answer_present", bool(question.answer.strip()), "нет ответа")
    check(
        "question_length",
        MIN_QUESTION <= len(question.text) <= LIMITS["question"],
        f"длина вопроса {len(question.text)} вне {MIN_QUESTION}..{LIMITS['question']}",
    )
    check(
        "answer_length",
        len(question.answer) <= LIMITS["answer"],
        f"ответ длиннее {LIMITS['answer']} символов",
    )
    check("author_present", bool(question.authors), "автор не указан")
    check("sources_present", bool(question.sources), "источники не указаны")

    language = question_language(question)
    said = f"язык: {content_checks.language_name(language)}"
    check("language", language in content_checks.LANGUAGES_OK, said, note=said)
    words = content_checks.obscene_words(
        "\n".join(
            t or ""
            for t in (
                question.text,
                question.answer,
                question.accepted,
                question.rejected,
                question.comment,
                question.handout,
            )
        )
    )
    check("obscene_words", not words, "нецензурные слова: " + ", ".join(words))
    leaks = content_checks.author_leaks(
        {
            "вопрос": question.text,
            "комментарий": question.comment,
            "раздаточный материал": question.handout,
        },
        [(a.name, a.city) for a in question.author_list],
    )
    check(
        "author_in_text",
        not leaks,
        "фамилия или город автора в тексте: "
        + ", ".join(f"{field} ({kind})" for field, kind in leaks),
    )
    reference = content_checks.handout_reference(question.text)
    check(
        "handout_missing",
        reference is None
        or content_checks.has_handout(
            question.handout, question.handout_image, [question.text, question.comment]
        ),
        f"текст ссылается на раздаточный материал («{reference}»), но его нет",
    )
    checks.append(images_check(question))
    return checks


def images_check(question: Question) -> dict:
    """The ``images_missing`` row of :func:`run_checks`: failed with «нет файла
    изображения: a.jpg, b.png» when a referenced image has no file."""
    missing = missing_images(
        image_refs(question.text, question.handout, question.comment), question.image_files
    )
    message = "нет файла изображения: " + ", ".join(missing) if missing else ""
    return {"name": "images_missing", "ok": not missing, "message": message}


def refresh_images_check(question: Question) -> None:
    """Re-run :func:`images_check` in the question's latest report (after an image was
    attached or the text edited), its ``flags`` too. No report yet: nothing to do."""
    report = db.session.scalar(
        db.select(ModerationReport)
        .filter_by(question_id=question.id)
        .order_by(ModerationReport.version.desc())
        .limit(1)
    )
    if report is None:
        return
    row = images_check(question)
    checks = [c for c in report.checks if c["name"] != "images_missing"] + [row]
    report.checks = checks  # a new list: the JSON column sees the change
    language = (
        "ru" if " lang_ru " in report.flags else "be" if " lang_be " in report.flags else None
    )
    report.flags = _flags(checks, language)
    db.session.flush()


def question_language(question: Question) -> str | None:
    """The detected language of the question's text and answer: an ISO 639-1 code
    (``"ru"``, ``"be"``, ``"uk"``, ``"en"``, …) or None without letters
    (``webapp.moderation.checks.detect_language``)."""
    return content_checks.detect_language(f"{question.text}\n{question.answer}")


def _flags(checks: list[dict], language: str | None) -> str:
    """``ModerationReport.flags``: the failed check names, then the detected language as
    ``lang_ru`` / ``lang_be`` / ``lang_other``, each followed by a space and the whole
    led by one (``" sources_present lang_be "``), so the queue filters with one LIKE."""
    names = [c["name"] for c in checks if not c["ok"]]
    names.append("lang_" + (language if language in content_checks.LANGUAGES_OK else "other"))
    return " " + "".join(f"{n} " for n in names)


def precheck(question_id: int) -> ModerationReport | None:
    """Pre-check one question (idempotent): store one ModerationReport per check version
    and move ``received`` → ``in_review``. Returns the report, or None if the question
    no longer exists. Running it twice changes nothing.

    Two pre-checks of one question at once (the worker's and ``seed-demo``'s, or a task
    redelivered while its first run is still going) are serialised on the question's row
    (``SELECT … FOR UPDATE`` on PostgreSQL; SQLite has one writer anyway): the second waits
    for the first to commit, then finds its report and changes nothing.
    """
    question = db.session.get(Question, question_id, with_for_update=True, populate_existing=True)
    if question is None:
        return None
    ensure_indexed(question_id)  # a viewer's new question joins the duplicate index here
    report = db.session.scalar(
        db.select(ModerationReport).filter_by(question_id=question_id, version=PRECHECK_VERSION)
    )
    if report is None:
        checks = run_checks(question)
        found = duplicate_candidates(question)
        report = ModerationReport(
            question_id=question_id,
            version=PRECHECK_VERSION,
            checks=checks,
            duplicates=found,
            created_at=utcnow(),
            flags=_flags(checks, question_language(question)),
            top_score=max((d["score"] for d in found), default=0.0),
        )
        db.session.add(report)
    if question.status == "received":
        set_status(question, "prechecked")
    if question.status == "prechecked":
        set_status(question, "in_review")
    db.session.flush()
    return report


def decide(
    question: Question,
    decision: str,
    user_id: int | None,
    reason: str | None = None,
    notify: bool = False,
) -> Question:
    """Approve or reject a question. ``decision``: ``"approve"`` | ``"reject"``.

    Allowed from ``in_review``, and between ``approved`` and ``rejected`` while the question
    is not in a game (``webapp.domain.question_states``). Deciding the status the question
    already has changes nothing. Raises ModerationError otherwise (HTTP 409).
    """
    if decision not in ("approve", "reject"):
        raise ModerationError(f"неизвестное решение {decision!r}")
    target = "approved" if decision == "approve" else "rejected"
    if question.status == target:
        return question
    if not can_transition(question.status, target):
        raise ModerationError(
            f"вопрос в статусе «{status_label(question.status)}»: решение не принимается"
        )
    holder = claim_holder(question.id)
    if holder is not None and holder != user_id:
        raise ModerationError(f"вопрос № {question.id} взят другим редактором")
    release(question.id, user_id)
    _drop_signoff(question.id)
    question.rejection_reason = (reason or None) if target == "rejected" else None
    set_status(question, target, by_user_id=user_id, reason=reason or None)
    if notify:
        enqueue("moderation.notify_decision", question.id)
    db.session.flush()
    return question


def full_reason(question: Question, reason_key: str | None, reason: str | None) -> str | None:
    """The reason the author reads: the template text in the question's language
    (``reasons.REJECTION_REASONS``), then the editor's own words. ModerationError for an
    unknown template key."""
    parts = []
    if reason_key:
        if reason_key not in REJECTION_REASONS:
            raise ModerationError(f"неизвестный шаблон причины {reason_key!r}")
        parts.append(reason_text(reason_key, question.language))
    if reason and reason.strip():
        parts.append(reason.strip())
    return " ".join(parts) or None


def bulk_preview(
    ids: list[int], decision: str, user_id: int | None = None
) -> tuple[list[Question], list[tuple[int, str]]]:
    """What a bulk decision would do, without writing: ``(questions it applies to, [(id,
    why not)])`` in the order given; unknown ids and statuses that cannot take the decision
    are in the second list, and so are questions another editor has claimed."""
    target = "approved" if decision == "approve" else "rejected"
    ok, refused = [], []
    for qid in dict.fromkeys(ids):
        q = db.session.get(Question, qid)
        if q is None:
            refused.append((qid, "нет такого вопроса"))
        elif q.status != target and not can_transition(q.status, target):
            refused.append((qid, f"статус «{status_label(q.status)}»"))
        elif claim_holder(qid) not in (None, user_id):
            refused.append((qid, "взят редактором"))
        else:
            ok.append(q)
    return ok, refused


def bulk_decide(
    ids: list[int], decision: str, user_id: int, reason_key: str | None = None
) -> list[Question]:
    """Apply one decision to every question :func:`bulk_preview` accepts; all or nothing
    (ModerationError if any of ``ids`` is refused, before anything is written). Authors
    are notified. Flushes only."""
    ok, refused = bulk_preview(ids, decision, user_id)
    if refused:
        raise ModerationError(
            "не применено к вопросам: " + ", ".join(f"№ {i} ({why})" for i, why in refused)
        )
    for q in ok:
        decide(q, decision, user_id, full_reason(q, reason_key, None), notify=True)
    return ok


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
    _drop_signoff(question.id)
    db.session.flush()
    if {"question", "handout", "comment"} & set(after):
        refresh_images_check(question)  # a reference may have come or gone
    return revision


def add_comment(question: Question, user_id: int, text: str) -> QuestionComment:
    """An editors' note (1..3000 characters after trimming). Raises ModerationError."""
    text = normalise(text or "").strip()
    if not text or len(text) > 3000:
        raise ModerationError("заметка: от 1 до 3000 символов")
    comment = QuestionComment(question_id=question.id, user_id=user_id, text=text, at=utcnow())
    db.session.add(comment)
    db.session.flush()
    return comment


def approver_of(question: Question) -> int | None:
    """The user who last moved the question to ``approved`` (None if unknown)."""
    for change in reversed(question.history):
        if change.to_status == "approved":
            return change.by_user_id
    return None


def sign_off(question: Question, user_id: int) -> QuestionSignoff:
    """Record the second editor's «источники проверены». Only for an approved question and
    not by the editor who approved it (issue 4: «a second editor's sign-off»). Idempotent
    for the same signer. Raises ModerationError. Flushes only."""
    if question.status != "approved":
        raise ModerationError("источники подтверждаются только у одобренного вопроса")
    existing = db.session.get(QuestionSignoff, question.id)
    if existing is not None:
        return existing
    if approver_of(question) == user_id:
        raise ModerationError(
            "источники должен подтвердить второй редактор, а не тот, кто одобрил вопрос"
        )
    signoff = QuestionSignoff(question_id=question.id, user_id=user_id, at=utcnow())
    db.session.add(signoff)
    db.session.flush()
    return signoff


def _drop_signoff(question_id: int) -> None:
    db.session.execute(delete(QuestionSignoff).where(QuestionSignoff.question_id == question_id))
