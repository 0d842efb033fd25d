"""A viewer's question typed into a form as the page renders it: the page's post form
(:class:`RenderedForm`: its action and what a browser sends), the question the viewer
typed, and the one question the viewer sent, read back."""

from __future__ import annotations

from tests.forms import Form, page_forms
from webapp.extensions import db
from webapp.submissions.models import Question

QUESTION = "Вопрос из интернета во время эфира: что светит ночью, но не греет?"
TYPED = {
    "question": QUESTION,
    "answer": "Луна",
    "name": "Зритель Петров",
    "city": "Тверь",
    "email": "tv@example.com",
}
TICKED = ("consent", "age_confirmed")


class RenderedForm:
    """The page's first ``<form method="post">`` with an ``action`` (with ``action=None``:
    the first one, with or without; never the header's logout): ``action`` and what a browser sends
    (``fields``: every named input's value — hidden ones included — and every textarea's
    text; ``checkboxes``: names of the checkboxes, sent only when ticked)."""

    def __init__(self, page: str, action: str | None = ""):
        found = [
            f
            for f in page_forms(page)
            if f.method == "post"
            and f.action != "/logout"
            and (action is None or f.action is not None)
        ]
        form = found[0] if found else Form({})
        self.action = form.action
        self.fields = {k: v for k, v in form.fields.items() if k not in form.checkboxes}
        self.checkboxes = set(form.checkboxes)

    def filled(self, typed: dict[str, str], ticked=TICKED) -> dict[str, str]:
        """What the browser sends after the viewer typed ``typed`` and ticked ``ticked``:
        only fields the form has (a field it lacks is a test failure)."""
        assert set(typed) <= set(self.fields), set(typed) - set(self.fields)
        assert set(ticked) <= self.checkboxes
        return {**self.fields, **typed, **dict.fromkeys(ticked, "y")}


def viewer_question() -> Question:
    """The one question a viewer sent in the test (the table's own are «Вопрос номер k?»)."""
    return db.session.scalars(db.select(Question).where(Question.text.startswith(QUESTION))).one()


def rendered(resp) -> RenderedForm:
    return RenderedForm(resp.get_data(as_text=True))
