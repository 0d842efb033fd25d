"""Games played to the end through the API, for the prizes tests."""

from __future__ import annotations

import pytest

# 6 right answers: the experts win 6:0. 6 wrong: the viewers win 0:6 (6 unanswered).
EXPERTS_WIN = [e for s in range(1, 7) for e in ({"type": "spin", "sector": s},
                                                {"type": "answer", "correct": True})]
VIEWERS_WIN = [e for s in range(1, 7) for e in ({"type": "spin", "sector": s},
                                                {"type": "answer", "correct": False})]


def submit(api, n: int, authors: list[dict] | None = None) -> int:
    body = {
        "question": f"Назовите город, где прошёл фестиваль номер {n}: {'слово ' * n}",
        "answer": "Ленинград",
        "authors": authors or [{"name": f"Автор {n}", "city": "Минск"}],
        "email": f"author{n}@example.com",
        "consent": True,
        "sources": ["https://example.org/a"],
    }
    resp = api("post", "/api/v1/submissions", json=body)
    assert resp.status_code == 201, resp.json
    return resp.json["id"]


COMMISSION = ["Иванов И. И., председатель комиссии", "Петрова А. А., главный бухгалтер",
              "Сидоров П. П., юрист"]


@pytest.fixture
def app(make_app):
    """The shared ``app`` fixture plus the prize commission's members."""
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_PRIZE_COMMISSION=COMMISSION,
                   SOVA_REQUIRE_SIGNOFF=False)  # sources sign-off: issue 4, not tested here
    with app.app_context():
        yield app


@pytest.fixture
def drain(app):
    """``tests/conftest.py::drain_outbox`` without the authors' notification e-mails
    (``notify.*``: not this feature's; marked sent)."""
    from tests.conftest import drain_outbox

    return lambda: drain_outbox(app, skip=("notify.",))


@pytest.fixture
def played(api, drain):
    """``played(kind, events, ruleset="2023", season_id=None)`` → game id of a finished game
    whose 13 single sectors hold questions 1..13 (question 1 has two co-authors); a new
    season unless ``season_id`` is given."""
    made = {"n": 0}

    def play(kind: str, events: list[dict], ruleset: str = "2023", name: str | None = None,
             season_id: int | None = None, **season_extra) -> int:
        base = made["n"]
        for n in range(base + 1, base + 14):
            authors = ([{"name": f"Автор {n}", "city": "Минск"},
                        {"name": f"Соавтор {n}", "city": "Брест"}] if n == base + 1 else None)
            submit(api, n, authors)
        made["n"] = base + 13
        drain()
        while True:  # the queue is paginated: approve page after page until empty
            items = api("get", "/api/v1/questions?status=in_review",
                        role="editor").json["items"]
            if not items:
                break
            for item in items:
                r = api("post", f"/api/v1/questions/{item['id']}/decision", role="editor",
                        json={"decision": "approve"})
                assert r.status_code == 200, r.json
                r = api("post", f"/api/v1/questions/{item['id']}/decision",
                        role="chief_editor", json={"decision": "sign_off"})
                assert r.status_code == 200, r.json
        currency = "BYN" if ruleset == "2023" else "RUB"
        season = season_id or api("post", "/api/v1/seasons", role="producer", json={
            "name": name or f"Сезон {ruleset}", "ruleset": ruleset, "currency": currency,
            **season_extra}).json["id"]
        game = api("post", "/api/v1/games", role="producer", json={
            "season_id": season, "kind": kind, "date": "2023-12-30",
            "table": {"blitz": None, "superblitz": None, "sector13": None}}).json["id"]
        r = api("post", f"/api/v1/games/{game}/assign", role="producer")
        assert r.status_code == 200, r.json
        for ev in events:
            r = api("post", f"/api/v1/games/{game}/events", role="host", json=ev)
            assert r.status_code == 201, (ev, r.json)
        assert r.json["state"]["finished"]
        return game

    return play


def scan_pdf() -> bytes:
    """A real one-page PDF (pypdf), standing in for the signed agreement's scan."""
    import io

    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def give_details(prize, drain, **over) -> None:
    """The payee of ``prize`` sends their details through the one-time link (the
    agreement is re-issued with the address; ``drain`` renders it)."""
    from flask import current_app

    from webapp.jobs import commit
    from webapp.prizes import payee

    from .test_payee import BY_FORM

    token = payee.request_details(prize, None)
    commit()
    with current_app.test_request_context():  # the form's messages are translated
        payee.submit_details(token, payee.PayeeInput(**{**BY_FORM, **over}))
    commit()
    drain()
