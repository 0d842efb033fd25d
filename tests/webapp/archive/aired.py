"""The archive tests' aired game (played, closed, its first two authors named on air and
confirmed) and «Мои вопросы» as an author opens it from the e-mailed links."""

from __future__ import annotations

from tests.helpers import VIEWERS_WIN
from webapp.extensions import db
from webapp.games.models import EnvelopeQuestion
from webapp.submissions.models import Question


def aired_game(api, played) -> tuple[int, list[Question]]:
    """A game the viewers won 0:6 (six unanswered questions, sectors 1..6), closed: it
    aired on 30.12.2023. The authors of its first two questions agreed to be named (the
    box «Даю согласие, чтобы моё имя и город назвали в эфире») and confirmed that they
    wrote them (the e-mailed confirmation link). Returns the game's id and its asked
    questions in the order asked."""
    from flask import current_app

    from webapp.submissions.links import confirm_token

    game_id = played("qualifying", VIEWERS_WIN)
    assert api("post", f"/api/v1/games/{game_id}/close", role="producer").status_code == 200
    asked = db.session.scalars(
        db.select(Question)
        .join(EnvelopeQuestion, EnvelopeQuestion.question_id == Question.id)
        .where(EnvelopeQuestion.game_id == game_id, EnvelopeQuestion.outcome == "unanswered")
        .order_by(Question.id)
    ).all()
    for q in asked[:2]:
        q.consent_on_air = True
    db.session.commit()
    author = current_app.test_client()
    for q in asked[:2]:
        link = f"/confirm/{confirm_token(q.id, q.authors[0].author_id)}"
        assert author.get(link).status_code == 302
    return game_id, list(asked)


def my_questions(app, question: Question, author_id: int) -> str:
    """«Мои вопросы» of ``author_id``, opened by the e-mailed links (the confirmation
    link puts the question there, then the one-time «my» link)."""
    from webapp.submissions.links import confirm_token, my_link_token
    from webapp.submissions.models import Author

    viewer = app.test_client()
    assert viewer.get(f"/confirm/{confirm_token(question.id, author_id)}").status_code == 302
    link = my_link_token(db.session.get(Author, author_id))
    assert viewer.get(f"/my/{link}").status_code == 302
    return viewer.get("/my/questions").get_data(as_text=True)
