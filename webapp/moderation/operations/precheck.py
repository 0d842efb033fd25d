"""The pre-check: duplicate candidates, the content checks, the stored report."""

from __future__ import annotations

from webapp.core.models import utcnow
from webapp.domain.handouts import image_refs, missing_images
from webapp.domain.languages import text_language
from webapp.domain.reading import reading_seconds, seconds_label
from webapp.extensions import db
from webapp.moderation import aids
from webapp.moderation import checks as content_checks
from webapp.moderation.duplicates import (
    MAX_CANDIDATES,
    ensure_indexed,
    find_duplicates,
)
from webapp.moderation.models import (
    PRECHECK_VERSION,
    LeakMark,
    ModerationReport,
    StressEntry,
)
from webapp.submissions.models import Question, set_status
from webapp.submissions.operations import LIMITS, MIN_QUESTION


def duplicate_candidates(question: Question, limit: int = MAX_CANDIDATES) -> list[dict]:
    """Ranked duplicates of ``question`` among the archive, the intake and the pool.

    Returns ``[{"question_id": int, "score": float 0..100 (1 place), "status": str}]``,
    best first, scores ≥ ``DUPLICATE_THRESHOLD``. Uses the persisted MinHash LSH index
    re-ranked with rapidfuzz (``webapp.moderation.duplicates``; figures in
    docs/performance-history.md, «Duplicate detection»).
    """
    if not question.matching_key:
        return []
    return find_duplicates(question.matching_key, exclude_id=question.id, limit=limit)


def run_checks(question: Question) -> list[dict]:
    """Every pre-check of one question: ``[{"name", "ok", "message"}]`` in this order.

    Completeness and lengths (``question_present``, ``answer_present``, ``question_length``,
    ``answer_length``, ``author_present``, ``sources_present``), then the content checks of
    ``webapp.moderation.checks`` (the pre-checks):

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
      attached (:func:`images_check`);

    then the editors' aids of ``webapp.moderation.aids``:

    * ``answer_leak`` — the main answer's words found in the question or its handout
      (:func:`leak_check`; ``words``: ``[{"word", "found", "where", "intended"}]``);
    * ``reading_time`` — never fails: the estimated seconds the host reads the question
      aloud (:func:`reading_check`; ``seconds``);
    * ``names_to_stress`` — proper names, foreign words and homographs in the question
      without a stress mark (:func:`stress_check`; ``words``: ``[{"word", "suggestion"}]``).

    ``message`` is ``""`` for a passed check, except ``language``, ``reading_time`` and an
    ``answer_leak`` whose hits are all marked intended.
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
    checks.append(handout_check(question))
    checks.append(images_check(question))
    checks.append(leak_check(question))
    checks.append(reading_check(question))
    checks.append(stress_check(question))
    return checks


def stress_check(question: Question) -> dict:
    """The ``names_to_stress`` row of :func:`run_checks`: the question's words the host may
    stress wrongly (``webapp.moderation.aids.names_to_stress``), each ``{"word": as written,
    "suggestion": the stress dictionary's marked form or None}``; failed while there is one:
    «без ударения: Деннис, Муррен (в словаре: Му́ррен)»."""
    words: list[dict] = [
        {"word": w, "suggestion": stress_suggestion(w)} for w in aids.names_to_stress(question.text)
    ]
    message = ""
    if words:
        message = "без ударения: " + ", ".join(
            f"{w['word']}" + (f" (в словаре: {w['suggestion']})" if w["suggestion"] else "")
            for w in words
        )
    return {"name": "names_to_stress", "ok": not words, "message": message, "words": words}


def stress_suggestion(word: str) -> str | None:
    """The stress dictionary's form of ``word``: its own entry («Муррен» → «Му́ррен»), else
    the entry of the longest start of it of at least four letters that leaves at most three
    letters of ending and is stressed within that start («Муррена» → «Му́ррена»), the
    mark put on the same vowel; None without one."""
    key = aids.word_key(word)
    starts = [key[:n] for n in range(max(4, len(key) - 3), len(key) + 1)]
    entries = {
        e.key: e.marked
        for e in db.session.scalars(db.select(StressEntry).where(StressEntry.key.in_(starts)))
    }
    for start in reversed(starts):
        marked = entries.get(start)
        if marked is None:
            continue
        vowel = aids.stress_vowel(marked)
        if (
            vowel is not None
            and aids.vowels(word)[vowel : vowel + 1]
            and (aids.vowels(word)[vowel] < len(start))
        ):
            return aids.with_stress(word, vowel)
    return None


def refresh_stress_check(question: Question) -> None:
    """Re-run :func:`stress_check` in the question's latest report (after an edit of the
    text or a stress mark added). No report yet: nothing to do."""
    report = _latest_report(question.id)
    if report is not None:
        _replace_rows(report, [stress_check(question)])


def reading_check(question: Question) -> dict:
    """The ``reading_time`` row of :func:`run_checks`: ``seconds`` (float, one decimal) the
    host takes to read the question aloud, and the handout's note when it has one
    (``webapp.domain.reading.reading_seconds`` at the default pace); always passed, with
    the note «≈ 23 с»."""
    seconds = reading_seconds(question.text, handout=_has_handout(question))
    return {
        "name": "reading_time",
        "ok": True,
        "message": f"≈ {seconds_label(seconds)}",
        "seconds": float(seconds),
    }


def _has_handout(question: Question) -> bool:
    return content_checks.has_handout(question.handout, question.handout_image, [question.text])


def refresh_reading_check(question: Question) -> None:
    """Re-run :func:`reading_check` (after an edit of the question or its handout): the
    question's ``reading_seconds`` and its latest report's row."""
    row = reading_check(question)
    question.reading_seconds = row["seconds"]
    report = _latest_report(question.id)
    if report is not None:
        _replace_rows(report, [row])
    db.session.flush()


def leak_check(question: Question) -> dict:
    """The ``answer_leak`` row of :func:`run_checks`: the words of the main answer found in
    the question's text or handout (``webapp.moderation.aids.answer_leaks``), each
    ``{"word": folded answer word, "found": the text's word as written, "where": "вопрос" |
    "раздаточный материал", "intended": bool}``. Failed while a hit is not marked intended
    by an editor (:class:`LeakMark`): «слова ответа в тексте: «кошки» (вопрос)»; passed with
    the note «так задумано: кошки» when every hit is."""
    hits = aids.answer_leaks(
        question.answer,
        {"вопрос": question.text, "раздаточный материал": question.handout},
    )
    intended = set(
        db.session.scalars(db.select(LeakMark.word).filter_by(question_id=question.id))
        if question.id is not None
        else ()
    )
    words: list[dict] = [{**h.as_dict(), "intended": h.word in intended} for h in hits]
    open_hits = [w for w in words if not w["intended"]]
    if open_hits:
        message = "слова ответа в тексте: " + ", ".join(
            f"«{w['found']}» ({w['where']})" for w in open_hits
        )
    elif words:
        message = "так задумано: " + ", ".join(dict.fromkeys(str(w["found"]) for w in words))
    else:
        message = ""
    return {"name": "answer_leak", "ok": not open_hits, "message": message, "words": words}


def refresh_leak_check(question: Question) -> None:
    """Re-run :func:`leak_check` in the question's latest report, its ``flags`` too
    (after an edit of the question, answer or handout, or a hit marked intended). No
    report yet: nothing to do."""
    report = _latest_report(question.id)
    if report is None:
        return
    _replace_rows(report, [leak_check(question)])


def _latest_report(question_id: int) -> ModerationReport | None:
    return db.session.scalar(
        db.select(ModerationReport)
        .filter_by(question_id=question_id)
        .order_by(ModerationReport.version.desc())
        .limit(1)
    )


def _report_language(report: ModerationReport) -> str | None:
    flags = report.flags or ""
    return "ru" if " lang_ru " in flags else "be" if " lang_be " in flags else None


def images_check(question: Question) -> dict:
    """The ``images_missing`` row of :func:`run_checks`: failed with «нет файла
    изображения: a.jpg, b.png» when a referenced image has no file."""
    missing = missing_images(
        image_refs(question.text, question.handout, question.comment), question.image_files
    )
    message = "нет файла изображения: " + ", ".join(missing) if missing else ""
    return {"name": "images_missing", "ok": not missing, "message": message}


def handout_check(question: Question) -> dict:
    """The ``handout_missing`` row of :func:`run_checks`: failed when the text refers to a
    handout («перед вами», «на фото»…) the question does not carry."""
    reference = content_checks.handout_reference(question.text)
    ok = reference is None or content_checks.has_handout(
        question.handout, question.handout_image, [question.text, question.comment]
    )
    message = f"текст ссылается на раздаточный материал («{reference}»), но его нет"
    return {"name": "handout_missing", "ok": bool(ok), "message": "" if ok else message}


def refresh_images_check(question: Question) -> None:
    """Re-run :func:`images_check` and :func:`handout_check` in the question's latest
    report (after an image was attached or the text edited: the table check reads the
    report's handout row), its ``flags`` too. No report yet: nothing to do."""
    report = _latest_report(question.id)
    if report is None:
        return
    _replace_rows(report, [handout_check(question), images_check(question)])


def _replace_rows(report: ModerationReport, rows: list[dict]) -> None:
    """Put ``rows`` in place of the report's rows of the same names (a row the report lacks,
    from an older check version, is added at the end) and recompute ``flags``."""
    new = {r["name"]: r for r in rows}
    checks = [new.pop(c["name"], c) for c in report.checks] + list(new.values())
    report.checks = checks  # a new list: the JSON column sees the change
    report.flags = _flags(checks, _report_language(report))
    db.session.flush()


def question_language(question: Question) -> str | None:
    """The language of the question as read from its text, answer and handout: ``"ru"``,
    ``"be"``, ``"uk"``, ``"en"`` or None when they do not tell
    (:func:`webapp.domain.languages.text_language`). The pre-check and the table fill both
    read it here, so that an editor and a producer are told the same language."""
    return text_language(question.text, question.answer, question.handout)


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
    (``SELECT … FOR NO KEY UPDATE`` on PostgreSQL; SQLite has one writer anyway): the second
    waits for the first to commit, then finds its report and changes nothing. Not ``FOR
    UPDATE``: that would also block the ``FOR KEY SHARE`` another transaction takes on the
    question before it writes its duplicate-index rows (:func:`ensure_indexed`) and
    deadlock with it.
    """
    question = db.session.get(
        Question, question_id, with_for_update={"key_share": True}, populate_existing=True
    )
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
    # the queue's «по повторам» order reads the score from the question (its index)
    question.duplicate_score = report.top_score or 0.0
    question.reading_seconds = next(
        (c["seconds"] for c in report.checks if c["name"] == "reading_time"), 0.0
    )
    if question.status == "received":
        set_status(question, "prechecked")
    if question.status == "prechecked":
        set_status(question, "in_review")
    db.session.flush()
    return report
