"""The moderation blueprint and what its pages share: the template filters, the keyboard
shortcuts, the marked diff, whether the viewer sees authors."""

from __future__ import annotations

import difflib
from collections.abc import Callable

from flask import Blueprint
from markupsafe import Markup, escape

from webapp.core.access import current_staff
from webapp.moderation.operations import status_label
from webapp.submissions.models import CHANNEL_LABELS

bp = Blueprint("moderation", __name__, url_prefix="/editor")


@bp.app_template_filter("question_status")
def question_status_filter(status: str) -> str:
    """One question's status as the staff pages name it (``"rejected"`` → ``"отклонён"``;
    ``STATUS_LABELS`` are the plural filter labels: «Отклонены»)."""
    return status_label(status)


@bp.app_template_filter("channel_label")
def channel_label_filter(channel: str) -> str:
    """A channel code as the staff pages name it (``"mail"`` → ``"письмо"``)."""
    return CHANNEL_LABELS.get(channel, channel)


# (key, what it does) — listed on the pages and handled by static/moderation.js.
SHORTCUTS = [
    ("j", "следующий вопрос"),
    ("k", "предыдущий вопрос"),
    ("c", "взять в работу"),
    ("a", "одобрить"),
    ("r", "отклонить"),
    ("q", "к очереди"),
]


def marked_diff(a: str, b: str, same: Callable[[str], str] | None = None) -> tuple[Markup, Markup]:
    """Both texts, escaped, with word differences wrapped in <del>/<ins>.

    ``same``: what a word is compared by (each text keeps its own spelling); words with
    equal ``same(word)`` are not marked. None: the words as written (an edit that only
    adds a stress mark is a difference of the revision)."""
    wa, wb = a.split(), b.split()
    ka, kb = (wa, wb) if same is None else ([same(w) for w in wa], [same(w) for w in wb])
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=ka, b=kb, autojunk=False).get_opcodes():
        ta, tb = escape(" ".join(wa[i1:i2])), escape(" ".join(wb[j1:j2]))
        if op == "equal":
            left.append(ta)
            right.append(tb)
        else:
            if ta:
                left.append(Markup("<del>%s</del>") % ta)
            if tb:
                right.append(Markup("<ins>%s</ins>") % tb)
    return Markup(" ").join(left), Markup(" ").join(right)


def sees_authors() -> bool:
    """Blind moderation: only a chief editor (and an admin) may see author data, including
    how many questions each city sent (the city filter and the statistics by
    city told an editor that)."""
    user = current_staff()
    return user is not None and user.role in ("chief_editor", "admin")
