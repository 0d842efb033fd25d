"""No rule book's file name reaches a person: a played season of each book (2023 and 2009,
with their games closed, prizes awarded and their papers rendered, a 2009 audience vote
closed) is walked as every staff role and as a viewer — every GET page of the URL map with
real arguments (HTML as served, PDFs read back as text, CSV exports) — and every e-mail the
season's submissions sent is read at a real SMTP server. None may show ``.txt`` or the hash of
a rule book's file name: a person reads «п. 3.1 Правил сезона 2009 г.»
(:func:`webapp.domain.rules.cite`); only the machine-readable ``rule`` fields of the JSON
contracts keep the file's name."""

from __future__ import annotations

import io
import re

import pytest

from tests.helpers import EXPERTS_WIN, PRIZE_APP, VIEWERS_WIN, drain_outbox
from tests.security.access import log_in, page_urls
from tests.webapp.games.season_driver import SeasonRun, experts_of
from webapp.accounts.models import ROLES
from webapp.domain.books import BOOKS

#: What must never be read: the extension and each book's file name without it.
FORBIDDEN = re.compile(
    r"\.txt\b|" + "|".join(re.escape(r.file.removesuffix(".txt")) for r in BOOKS.values())
)

SEASON_2023 = {
    "teams": ["Антипов", "Мудрый", "Буян", "Королёва"],
    "events": [
        {"type": "game", "kind": "qualifying", "team": "Антипов", "score": "6:2"},
        {"type": "game", "kind": "qualifying", "team": "Мудрый", "score": "2:6"},
        {"type": "game", "kind": "qualifying", "team": "Мудрый", "score": "3:6"},
    ],
}


@pytest.fixture
def sink(smtp_sink):
    return smtp_sink


@pytest.fixture
def app(make_app, sink):
    app = make_app(**PRIZE_APP, SOVA_SMS_SECRET="walk-secret", SOVA_SMTP_URL=sink[0])
    with app.app_context():
        yield app


@pytest.fixture
def drain(app):
    return lambda: drain_outbox(app)


def _leaks(text: str) -> list[str]:
    return sorted({text[max(0, m.start() - 40) : m.end() + 10] for m in FORBIDDEN.finditer(text)})


def _pdf_text(data: bytes) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)


@pytest.fixture
def seasons(app, api, played, drain):
    """Both books played: a 2023 game closed with its prizes (minutes, agreements), a 2009
    game with its audience vote closed (the result PDF); then the spring series of a 2023
    and of a 2009 season, every game closed, and the prize of the 2009 final."""
    import json
    from pathlib import Path

    from webapp.core.models import Document
    from webapp.extensions import db
    from webapp.games.models import Game
    from webapp.prizes.models import Prize
    from webapp.tasks.outbox import commit
    from webapp.votes.operations import close_vote, open_vote

    closed = played("qualifying", VIEWERS_WIN, name="Сезон 2023")
    r = api("post", f"/api/v1/games/{closed}/close", role="producer")
    assert r.status_code == 200, r.json
    game_2009 = played("qualifying", EXPERTS_WIN, ruleset="2009", name="Сезон 2009")
    game = db.session.get(Game, game_2009)
    open_vote(game, None, ["Анна Лис", "Борис Кот"])
    close_vote(game, None)
    commit()
    data = Path(__file__).resolve().parents[1] / "domain" / "data"
    runs = []
    # the spring series of each book, to its final (2009: a team withdrawn, §2.3)
    for ruleset, name, prize, upto in (("2023", "Весь сезон 2023", "300.00", 7), ("2009", "Весь сезон 2009", "1000.00", 6)):  # fmt: skip
        doc = json.loads((data / f"season_{ruleset}.json").read_text(encoding="utf-8"))
        run = SeasonRun(api, ruleset, name, prize)
        run.add_teams(doc["teams"])
        run.run(doc["events"][:upto])
        runs.append(run)
    # the prize of the 2009 spring final's winner: its agreement and the commission's minutes
    final, event = runs[1].games[-1]
    assert event["kind"] == "series_final", event
    r = api(
        "post",
        f"/api/v1/games/{final}/prizes",
        role="producer",
        json={
            "kind": "best_player_of_series",
            "recipient": experts_of(event["team"])[1],
            "team": experts_of(event["team"]),
        },
    )
    assert r.status_code == 201, r.json
    drain()
    commit()
    games = [closed, game_2009] + [g for run in runs for g in (run.games[0][0], run.games[-1][0])]
    documents = {}
    for doc_id, kind in db.session.execute(db.select(Document.id, Document.kind)):
        documents.setdefault(kind, doc_id)
    assert "vote_result" in documents, documents
    return {
        "game_id": games,
        "season_id": sorted({db.session.get(Game, g).season_id for g in games}),
        "prize_id": list(db.session.scalars(db.select(Prize.id).order_by(Prize.id)))[:4],
        "document_id": list(documents.values()),
        "position": [0],
    }


@pytest.mark.slow
@pytest.mark.timeout(600)  # two seasons played, then ~120 pages × 7 clients: ~1 min alone
def test_no_rule_file_name_on_any_page_pdf_or_email(app, seasons, staff, sink):
    from webapp.extensions import db
    from webapp.submissions.models import Question

    values = {
        **seasons,
        "question_id": list(db.session.scalars(db.select(Question.id).order_by(Question.id)))[:2],
    }
    urls = page_urls(app, values)
    found: dict[str, set[str]] = {}
    read = {"html": 0, "pdf": 0, "csv": 0}
    for role in ROLES:
        staff(role)
    pdfs: dict[str, str] = {}  # a document reads the same for every role: read it once
    for role in (*ROLES, None):
        client = app.test_client()
        if role:
            log_in(client, role)
        todo = list(urls)  # a viewer's pages are read in be and en too (appended below)
        for url in todo:
            resp = client.get(url)
            if 300 <= resp.status_code < 400:
                continue
            if role is None and resp.status_code == 200 and "?" not in url:
                todo += [f"{url}?lang=be", f"{url}?lang=en"]
            if resp.mimetype == "text/html":
                text, kind = resp.get_data(as_text=True), "html"
            elif resp.mimetype == "application/pdf":
                if url not in pdfs:
                    pdfs[url] = _pdf_text(resp.data)
                text, kind = pdfs[url], "pdf"
            elif resp.mimetype == "text/csv":
                text, kind = resp.get_data(as_text=True), "csv"
            else:
                continue
            read[kind] += 1
            for leak in _leaks(text):
                found.setdefault(leak, set()).add(f"{url} ({role}, {resp.status_code})")
    mails = sink[1]
    for message in mails:
        body = message.get_payload(decode=True)
        text = f"{message['Subject']}\n" + (body.decode("utf-8") if body else str(message))
        for leak in _leaks(text):
            found.setdefault(leak, set()).add(f"e-mail {message['Subject']}")
    report = [f"{w!r}: {sorted(where)[:3]}" for w, where in sorted(found.items())]
    assert report == [], "\n".join(report)
    assert read["html"] > 300 and read["pdf"] >= 3 and mails, (read, len(mails))
