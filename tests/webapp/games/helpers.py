"""Game-day test data made with the real operations on the test database."""

from __future__ import annotations

import secrets
from datetime import date

from tests.helpers import api_game, api_season
from webapp.extensions import db
from webapp.games.models import Season
from webapp.games.operations import assign_envelopes, lock_table
from webapp.games.season.operations import create_game, create_season, create_series, create_team
from webapp.submissions.models import Author, Question, QuestionAuthor
from webapp.tasks.outbox import commit

EXPERTS = ["Анна", "Борис", "Вера", "Глеб", "Дина", "Ефим"]


def signer_id() -> int:
    """An editor who signs the sources off (moderation's four-eyes rule)."""
    from webapp.accounts.models import User
    from webapp.accounts.operations import create_user

    user = db.session.scalar(db.select(User).filter_by(email="signer@test.local"))
    if user is None:
        user, _ = create_user("signer@test.local", "editor", password="signer-pw")
        db.session.flush()
    return user.id


def approved_questions(n: int, channel: str = "web") -> list[Question]:
    """``n`` approved questions with the sources signed off, each by its own author
    («Автор k, Город k»)."""
    from webapp.moderation.models import QuestionSignoff

    signer = signer_id()
    out = []
    for k in range(1, n + 1):
        author = Author(name=f"Автор {k}", city=f"Город {k}")
        q = Question(
            public_token=secrets.token_urlsafe(24),
            text=f"Вопрос номер {k}?",
            answer=f"Ответ {k}",
            channel=channel,
            status="approved",
            matching_key=f"q{k}",
            sources=[],
        )
        q.authors.append(QuestionAuthor(author=author, position=0))
        db.session.add(q)
        out.append(q)
    db.session.flush()
    for q in out:
        db.session.add(QuestionSignoff(question_id=q.id, user_id=signer))
    db.session.flush()
    return out


_MADE = [0]


def approved_questions_more(n: int, channel: str = "web") -> list:
    """``n`` more approved, signed-off questions, each by a new author, numbered after the
    ones this helper made before (for many games in one test)."""
    from webapp.moderation.models import QuestionSignoff

    signer = signer_id()
    out = []
    for k in range(_MADE[0] + 1, _MADE[0] + n + 1):
        author = Author(name=f"Автор {k}", city=f"Город {k % 7}")
        q = Question(
            public_token=secrets.token_urlsafe(24),
            text=f"Вопрос номер {k}?",
            answer=f"Ответ {k}",
            channel=channel,
            status="approved",
            matching_key=f"m{k}",
            sources=[],
        )
        q.authors.append(QuestionAuthor(author=author, position=0))
        db.session.add(q)
        out.append(q)
    _MADE[0] += n
    db.session.flush()
    for q in out:
        db.session.add(QuestionSignoff(question_id=q.id, user_id=signer))
    commit()
    return out


def season(ruleset: str = "2023"):
    """A season «Сезон <ruleset>» (a second one of the same rule set: «Сезон 2023 №2»;
    season names are unique)."""
    name = f"Сезон {ruleset}"
    taken = db.session.scalar(
        db.select(db.func.count()).select_from(Season).where(Season.name.startswith(name))
    )
    return create_season(f"{name} №{taken + 1}" if taken else name, ruleset)


def team(name: str = "Команда Анны"):
    return create_team(name, "Анна", EXPERTS)


def game(
    season_, day: int = 1, *, team_=None, series=None, kind="qualifying", table=None, status="ready"
):
    """A game with the table plan ``table`` put straight into ``status`` (no envelopes)."""
    g = create_game(
        season_.id,
        kind,
        date(2023, 3, day),
        table or {"blitz": 4, "superblitz": 9, "sector13": 13},
        team_id=team_.id if team_ else None,
        series_id=series.id if series else None,
    )
    g.status = status
    db.session.flush()
    return g


def series(season_, part: str = "spring"):
    return create_series(season_.id, part)


__all__ = ["approved_questions", "commit", "game", "season", "series", "team"]


def api_game_2009(api) -> int:
    """Through the API as the producer: a 2009 season (1 000,00 RUB per unanswered
    question) and its qualifying game of 2009-03-01 (superblitz in sector 5, sector 13 in
    13, no blitz). Returns the game id."""
    season_id = api_season(api, "Сезон 2009", "2009", unanswered_prize="1000.00")
    table = {"blitz": None, "superblitz": 5, "sector13": 13}
    return api_game(api, season_id, "2009-03-01", table).json["id"]


def startable(g) -> None:
    """The producer's audited confirmation that the console may start ``g`` (a filled table)
    without a locked table or rendered envelopes (``operations.allow_start``): for tests of
    the console that do not print envelopes."""
    from webapp.games.operations import allow_start

    allow_start(g, None, "проверка пульта без печати конвертов")


def filled_game(locked: bool = False):
    """A draft game of a new season whose table (a four-question blitz) is filled from 20
    approved questions; ``locked``: its table locked too."""
    approved_questions(20)
    g = game(season(), table={"blitz": 4, "superblitz": None, "sector13": None}, status="draft")
    assign_envelopes(g)
    if locked:
        lock_table(g, None)
    commit()
    return g


def live_site(app):
    """A 2009 game that is live (its table filled from 15 approved questions, one spin
    played through the API): ``(app, client, api, game_id)``, where ``api(method, path, role,
    **kwargs)`` calls the API with a token of a user of ``role``, made on first use."""
    from webapp.accounts.operations import create_user
    from webapp.games.models import Game

    client = app.test_client()
    tokens: dict[str, str] = {}

    def api(method: str, path: str, role: str, **kwargs):
        if role not in tokens:
            _user, tokens[role] = create_user(
                f"{role}@live.local", role, password=f"{role}-pw", with_token=True
            )
            commit()
        headers = {"Authorization": f"Bearer {tokens[role]}"}
        return getattr(client, method)(path, headers=headers, **kwargs)

    game_id = api_game_2009(api)
    game = db.session.get(Game, game_id)
    approved_questions(15)
    assign_envelopes(game)
    startable(game)
    commit()
    resp = api(
        "post", f"/api/v1/games/{game_id}/events", "host", json={"type": "spin", "sector": 1}
    )
    assert resp.status_code == 201, resp.json
    assert db.session.get(Game, game_id).status == "live"
    return app, client, api, game_id
