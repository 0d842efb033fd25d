"""Rejection reasons the editors pick from, in Russian and Belarusian, and the
decision e-mail the author receives (previewed before it is sent)."""

from __future__ import annotations

# key → {"ru": text, "be": text}; the author reads the one of the question's language
# (Belarusian for "be", Russian otherwise).
REJECTION_REASONS: dict[str, dict[str, str]] = {
    "duplicate": {
        "ru": "Вопрос с таким же фактом уже был сыгран или уже есть в нашей базе.",
        "be": "Пытанне з такім жа фактам ужо гулялася або ўжо ёсць у нашай базе.",
    },
    "too_easy": {
        "ru": "Ответ на вопрос слишком очевиден для знатоков.",
        "be": "Адказ на пытанне занадта відавочны для знаўцаў.",
    },
    "not_solvable": {
        "ru": "К ответу нельзя прийти рассуждением: вопрос проверяет только эрудицию.",
        "be": "Да адказу нельга дайсці развагамі: пытанне правярае толькі эрудыцыю.",
    },
    "fact_unverified": {
        "ru": "Мы не смогли подтвердить факт, на котором построен вопрос, по надёжным источникам.",
        "be": "Мы не змаглі пацвердзіць факт, на якім пабудавана пытанне, па надзейных крыніцах.",
    },
    "several_answers": {
        "ru": "У вопроса несколько равноправных ответов.",
        "be": "У пытання некалькі раўнапраўных адказаў.",
    },
    "not_for_tv": {
        "ru": "Вопрос не подходит для телевизионного эфира.",
        "be": "Пытанне не падыходзіць для тэлевізійнага эфіру.",
    },
}
REASON_LABELS = {
    "duplicate": "Повтор",
    "too_easy": "Слишком простой",
    "not_solvable": "Не берётся",
    "fact_unverified": "Факт не подтверждён",
    "several_answers": "Несколько ответов",
    "not_for_tv": "Не для эфира",
}


def reason_text(key: str, language: str | None) -> str:
    """The template's text in the author's language. KeyError for an unknown key."""
    texts = REJECTION_REASONS[key]
    return texts["be"] if language == "be" else texts["ru"]


def decision_email(
    decision: str, language: str | None, question_text: str, reason: str | None
) -> tuple[str, str]:
    """``(subject, body)`` of the e-mail the author gets after a decision (plain text,
    in Belarusian for ``language == "be"``, Russian otherwise)."""
    be = language == "be"
    excerpt = question_text if len(question_text) <= 200 else question_text[:199] + "…"
    if decision == "approve":
        subject = (
            "Ваша пытанне прынята — «Што? Дзе? Калі?»"
            if be
            else "Ваш вопрос принят — «Что? Где? Когда?»"
        )
        body = (
            "Дзякуй! Рэдакцыя адабрала ваша пытанне:\n\n{q}\n\nКалі яно прагучыць у "
            "гульні, мы напішам."
            if be
            else "Спасибо! Редакция отобрала ваш вопрос:\n\n{q}\n\nКогда он прозвучит в "
            "игре, мы напишем."
        ).format(q=excerpt)
    else:
        subject = (
            "Ваша пытанне не прынята — «Што? Дзе? Калі?»"
            if be
            else "Ваш вопрос не принят — «Что? Где? Когда?»"
        )
        body = (
            "Дзякуй за пытанне:\n\n{q}\n\nНа жаль, рэдакцыя яго не прыняла."
            if be
            else "Спасибо за вопрос:\n\n{q}\n\nК сожалению, редакция его не приняла."
        ).format(q=excerpt)
        if reason:
            body += ("\nПрычына: " if be else "\nПричина: ") + reason
    return subject, body + (
        "\n\nРэдакцыя «Што? Дзе? Калі?»" if be else "\n\nРедакция «Что? Где? Когда?»"
    )
