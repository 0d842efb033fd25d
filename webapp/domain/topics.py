"""The controlled vocabulary of question topics (pure: standard library only).

The table fill asks for «varied cities and topics»: a question may carry one topic
code from :data:`TOPICS` (or none — imported and freshly received questions have none until
an editor sets it). Codes are stored in ``question.topic``; labels are the Russian names the
staff pages show.
"""

from __future__ import annotations

__all__ = ["TOPICS", "topic_label"]

#: code → Russian label, in the order the select lists show them.
TOPICS: dict[str, str] = {
    "history": "История",
    "literature": "Литература",
    "science": "Наука и техника",
    "art": "Изобразительное искусство",
    "music": "Музыка",
    "cinema": "Кино и театр",
    "sport": "Спорт",
    "geography": "География",
    "language": "Язык",
    "religion": "Религия и мифология",
    "everyday": "Быт",
    "other": "Другое",
}


def topic_label(code: str | None) -> str:
    """The Russian label of ``code`` (``"history"`` → ``"История"``); ``""`` for None; an
    unknown code is returned as it is."""
    if code is None:
        return ""
    return TOPICS.get(code, code)
