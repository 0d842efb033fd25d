"""The whole pipeline on a real packet against PostgreSQL, Redis and a real Celery worker.

Kills nothing; asserts counts and texts from the database and the PDFs. Needs
SOVA_TEST_DATABASE_URL and SOVA_TEST_REDIS_URL (skipped without them, failed under CI=true).
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.game_data import LOSE_3_6_WITH_LOST_BLITZ
from tests.helpers import celery_worker, kubok_images, wait_for

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PACKET = "data/chgk/alexander-pecheny__chgksuite/Kubok_knyagini_Olgi-2015.docx.canon"
EVENTS = LOSE_3_6_WITH_LOST_BLITZ


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


@pytest.fixture
def live(pg_url, redis_url, tmp_path):
    """An app and a real worker process sharing PostgreSQL, Redis and an instance folder."""
    from flask_migrate import upgrade

    from webapp.app import create_app

    env = dict(
        os.environ,
        SOVA_DATABASE_URL=pg_url,
        SOVA_BROKER_URL=redis_url,
        SOVA_REDIS_URL=redis_url,
        SOVA_INSTANCE_PATH=str(tmp_path / "instance"),
    )
    app = create_app(
        {k: v for k, v in env.items() if k.startswith("SOVA_")}
        | {"TESTING": True, "WTF_CSRF_ENABLED": False}
    )
    with app.app_context():
        upgrade(revision="heads")
    log = open(tmp_path / "worker.log", "w")  # closed in the finally below
    worker = celery_worker(env, log)
    try:
        with app.app_context():
            yield app
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        log.close()
        from webapp.extensions import db

        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def test_import_precheck_approve_game_close_and_pdfs(live, shared_dir, tmp_path):
    from webapp.accounts.operations import create_user
    from webapp.core.models import Document
    from webapp.extensions import db
    from webapp.games.models import EnvelopeQuestion
    from webapp.moderation.models import ModerationReport
    from webapp.prizes.models import Prize
    from webapp.submissions.models import Question
    from webapp.tasks.outbox import commit

    app = live
    tokens = {}
    for role in ("editor", "chief_editor", "producer", "host", "accountant"):
        tokens[role] = create_user(f"{role}@it.local", role, with_token=True)[1]
    commit()
    client = app.test_client()

    def call(method, path, role, **kw):
        return getattr(client, method)(
            path, headers={"Authorization": f"Bearer {tokens[role]}"}, **kw
        )

    # 1. import a real packet as submissions with its images: 75 questions, one transaction
    # (without the images a question that refers to one would block the table's lock)
    images = kubok_images(tmp_path / "images")
    result = app.test_cli_runner().invoke(
        args=["import", str(shared_dir / PACKET), "--as", "submissions", "--images", str(images)]
    )
    assert result.exit_code == 0, result.output
    assert "imported 75 questions as submissions" in result.output
    assert "7 image(s) attached" in result.output

    # 2. the real worker pre-checks every one (through the outbox and Redis)
    def prechecked():
        db.session.rollback()
        return db.session.scalar(db.select(db.func.count()).select_from(ModerationReport)) == 75

    wait_for(prechecked, 120, what="75 pre-check reports")
    assert (
        db.session.scalar(
            db.select(db.func.count()).select_from(Question).where(Question.status == "in_review")
        )
        == 75
    )

    # 3. approve all through the API
    page, ids = 1, []
    while True:
        body = call("get", f"/api/v1/questions?status=in_review&page={page}", "editor").json
        ids += [item["id"] for item in body["items"]]
        if page >= body["pages"]:
            break
        page += 1
    assert len(ids) == 75
    for qid in ids:
        assert (
            call(
                "post", f"/api/v1/questions/{qid}/decision", "editor", json={"decision": "approve"}
            ).status_code
            == 200
        )
        assert (
            call(
                "post",
                f"/api/v1/questions/{qid}/decision",
                "chief_editor",
                json={"decision": "sign_off"},
            ).status_code
            == 200
        )

    # 4. season, game with a blitz in sector 4, assignment
    season = call(
        "post",
        "/api/v1/seasons",
        "producer",
        json={"name": "Сезон 2023", "ruleset": "2023", "currency": "BYN"},
    ).json["id"]
    game = call(
        "post",
        "/api/v1/games",
        "producer",
        json={
            "season_id": season,
            "kind": "qualifying",
            "date": "2023-03-04",
            "team": "Команда",
            "table": {"blitz": 4, "superblitz": None, "sector13": None},
        },
    ).json["id"]
    resp = call("post", f"/api/v1/games/{game}/assign", "producer")
    assert resp.status_code == 200, resp.json
    sectors = {s["sector"]: s["question_ids"] for s in resp.json["sectors"]}
    assert [len(sectors[n]) for n in range(1, 14)] == [1, 1, 1, 3] + [1] * 9

    # 5. envelopes and host cards rendered by the worker
    assert call("post", f"/api/v1/games/{game}/envelopes", "producer").status_code == 202

    def docs_ready():
        items = call("get", f"/api/v1/games/{game}/documents", "host").json["items"]
        return items if len(items) == 2 and all(d["status"] == "ready" for d in items) else None

    docs = {d["kind"]: d for d in wait_for(docs_ready, 120, what="envelope PDFs")}
    envelope_pdf = call("get", docs["envelopes"]["url"], "host")
    assert envelope_pdf.status_code == 200 and envelope_pdf.mimetype == "application/pdf"
    first = db.session.get(Question, sectors[1][0])
    text = pdf_text(envelope_pdf.data)
    assert len(PdfReader(io.BytesIO(envelope_pdf.data)).pages) == 13
    assert "Сектор 4 — Блиц" in text
    assert first.authors[0].author.display in text.replace("\n", " ")
    host_card = pdf_text(call("get", docs["host_cards"]["url"], "producer").data)
    assert first.answer.split()[0] in host_card
    assert call("get", docs["envelopes"]["url"], "accountant").status_code == 403

    # 6. the game: experts lose 3:6, one blitz lost
    for event in EVENTS:
        resp = call("post", f"/api/v1/games/{game}/events", "host", json=event)
        assert resp.status_code == 201, (event, resp.json)
    state = call("get", f"/api/v1/games/{game}", "producer").json["state"]
    assert state["score"] == "3:6" and state["winner"] == "viewers"
    assert state["unanswered"] == [
        {"sector": 1, "slot": 1},
        {"sector": 4, "slot": 2},
        {"sector": 13, "slot": 1},
        {"sector": 6, "slot": 1},
        {"sector": 8, "slot": 1},
        {"sector": 9, "slot": 1},
    ]
    assert state["unasked"] == [{"sector": 4, "slot": 3}]

    # 7. close: prizes for the six unanswered questions, unasked ones back to the pool
    closed = call("post", f"/api/v1/games/{game}/close", "producer")
    assert closed.status_code == 200, closed.json
    unanswered_ids = [
        sectors[1][0],
        sectors[4][1],
        sectors[13][0],
        sectors[6][0],
        sectors[8][0],
        sectors[9][0],
    ]
    expected_shares = sum(len(db.session.get(Question, q).authors) for q in unanswered_ids)
    prizes = closed.json["prizes"]
    assert len(prizes) == expected_shares
    assert {p["question_id"] for p in prizes} == set(unanswered_ids)
    assert call("post", f"/api/v1/games/{game}/close", "producer").json["prizes"] == prizes
    back = {sectors[4][2], sectors[3][0], sectors[10][0], sectors[11][0], sectors[12][0]}
    db.session.rollback()
    assert {
        q.id
        for q in db.session.scalars(
            db.select(Question).where(
                Question.id.in_([i for v in sectors.values() for i in v]),
                Question.status == "approved",
            )
        )
    } == back
    outcomes = dict(
        db.session.execute(db.select(EnvelopeQuestion.question_id, EnvelopeQuestion.outcome)).all()
    )
    assert sorted(q for q, o in outcomes.items() if o == "unanswered") == sorted(unanswered_ids)

    # 8. gift agreements rendered by the worker, numbered without gaps
    def agreements_ready():
        items = call("get", f"/api/v1/prizes?game_id={game}", "accountant").json["items"]
        return items if items and all(p["agreement"]["status"] == "ready" for p in items) else None

    items = wait_for(agreements_ready, 120, what="gift agreements")
    numbers = sorted(p["agreement"]["number"] for p in items)
    assert numbers == [f"2023-{n:04d}" for n in range(1, len(items) + 1)]
    solo = next(p for p in items if p["amount"] == "300.00")
    pdf = call("get", f"/api/v1/documents/{solo['agreement']['document_id']}", "accountant")
    text = " ".join(pdf_text(pdf.data).split())
    assert "300,00 (Триста) рублей 00 копеек" in text
    assert solo["author"]["name"] in text
    assert solo["agreement"]["number"] in text
    assert db.session.scalar(db.select(db.func.count()).select_from(Prize)) == expected_shares
    assert (
        db.session.scalar(
            db.select(db.func.count()).select_from(Document).where(Document.status == "ready")
        )
        == 2 + expected_shares
    )
