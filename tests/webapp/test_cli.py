"""The `sova` command line: import and game replay (contracts/api.md)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers import api_game, api_season
from webapp.extensions import db
from webapp.submissions.models import Question

SAMPLE = "webapp/submissions/sample_packet.4s"


def count(status=None):
    stmt = db.select(db.func.count()).select_from(Question)
    if status:
        stmt = stmt.where(Question.status == status)
    return db.session.scalar(stmt)


def test_import_sample_as_archive_prints_exact_counts(app):
    result = app.test_cli_runner().invoke(args=["import", SAMPLE, "--as", "archive"])
    assert result.exit_code == 0, result.output
    assert "sample_packet.4s: imported 10 questions as archive" in result.output
    assert "total: 10 questions from 1 file(s); 0 file(s) failed" in result.output
    assert count("archived") == 10


def import_packet(app, path, text: str):
    """``sova import PATH --as archive`` of a packet file written with ``text``."""
    path.write_text(text, encoding="utf-8")
    return app.test_cli_runner().invoke(args=["import", str(path), "--as", "archive"])


def test_import_of_one_question_whose_image_is_missing(app, tmp_path):
    """One question is «1 question»; no «0 image(s) attached» before the missing one."""
    result = import_packet(
        app,
        tmp_path / "one.4s",
        "? (img owl.png) Какую птицу видно на этой картинке в полночь?\n! Сова\n",
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-3:] == [
        "one.4s: imported 1 question as archive",
        "one.4s: no file for 1 image(s): owl.png",
        "total: 1 question from 1 file(s); 0 file(s) failed",
    ]
    assert count("archived") == 1


def test_import_real_koi8r_db_packet(app, shared_dir):
    path = shared_dir / "data/chgk/alexander-pecheny__chgksuite/balt09-1.txt"
    result = app.test_cli_runner().invoke(
        args=["import", str(path), "--as", "submissions", "--channel", "mail"]
    )
    assert result.exit_code == 0, result.output
    assert "imported 36 questions as submissions" in result.output
    assert count("received") == 36
    q = db.session.scalars(db.select(Question).order_by(Question.id)).first()
    assert q.channel == "mail"
    assert q.authors[0].author.name == "Александр Кудрявцев"
    assert q.authors[0].author.city == "Николаев"


def test_broken_packet_exit_2_and_nothing_kept(app, tmp_path):
    bad = tmp_path / "bad.4s"
    bad.write_text(
        "? Вопрос без ответа, просто текст вопроса\n\n? Ещё один\n! Ответ\n", encoding="utf-8"
    )
    result = app.test_cli_runner().invoke(args=["import", SAMPLE, str(bad), "--as", "archive"])
    assert result.exit_code == 2
    assert "bad.4s" in result.output and "line 1" in result.output
    assert "total: 10 questions from 1 file(s); 1 file(s) failed" in result.output
    assert count() == 10  # the good file only


def test_game_replay_command(tmp_path):
    protocol = {
        "format": "sova.game-protocol/1",
        "ruleset": "2023",
        "table": {"blitz": 7, "superblitz": None, "sector13": 13},
        "events": [
            {"type": "spin", "sector": 13},
            {"type": "sector13_option", "option": "six"},
            {"type": "answer", "correct": False},
        ],
    }
    path = tmp_path / "game.json"
    path.write_text(json.dumps(protocol), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "webapp.cli_entry", "game", "replay", str(path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    state = json.loads(run.stdout)
    assert state["score"] == "0:1"
    assert state["unanswered"] == [{"sector": 13, "slot": 1}]
    protocol["events"].append({"type": "spin", "sector": 14})
    path.write_text(json.dumps(protocol), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "webapp.cli_entry", "game", "replay", str(path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    error = json.loads(run.stdout)["error"]
    assert error["event"] == 3 and error["rule"].startswith("000_90d7c8192601ed3a.txt")


def test_game_replay_prints_the_engines_english_refusal_as_the_contract_shows(tmp_path):
    """``sova game replay`` prints the refusal's error JSON byte for byte as
    ``contracts/game-protocol.md`` shows it: the engine's English ``message`` and no other
    key (a person's wording, ``webapp.domain.rules.refusal_text``, is for the pages and the
    API)."""
    protocol = {
        "format": "sova.game-protocol/1",
        "ruleset": "2023",
        "table": {"blitz": 7, "superblitz": None, "sector13": 13},
        "events": [{"type": "spin", "sector": 1}, {"type": "club_help"}],
    }
    path = tmp_path / "game.json"
    path.write_text(json.dumps(protocol), encoding="utf-8")
    run = _sova("game", "replay", str(path))
    assert run.returncode == 2
    assert run.stdout == (
        '{"error": {"event": 1, "rule": "000_90d7c8192601ed3a.txt §3.7.1", "message": '
        '"club help only while the experts are behind (score 0:0)"}}\n'
    )


def _sova(*args):
    return subprocess.run(
        [sys.executable, "-m", "webapp.cli_entry", *args], capture_output=True, text=True
    )


def test_game_replay_honours_the_protocols_rules(tmp_path):
    """A protocol's ``rules`` (2023 §4.12.1): 6:3 is not over when the game goes to 7, and a
    bad parameter is refused at load with exit 2."""
    events = []
    results = [True, False] * 3 + [True] * 3
    for sector, correct in zip((1, 2, 3, 5, 6, 8, 9, 11, 12), results, strict=True):
        events += [{"type": "spin", "sector": sector}, {"type": "answer", "correct": correct}]
    protocol = {
        "format": "sova.game-protocol/1",
        "ruleset": "2023",
        "rules": {"points_to_win": 7},
        "table": {"blitz": 7, "superblitz": 10, "sector13": None},
        "events": events,
    }
    path = tmp_path / "game.json"
    path.write_text(json.dumps(protocol), encoding="utf-8")
    run = _sova("game", "replay", str(path))
    assert run.returncode == 0, run.stderr
    state = json.loads(run.stdout)
    assert (state["score"], state["finished"], state["winner"]) == ("6:3", False, None)
    del protocol["rules"]
    path.write_text(json.dumps(protocol), encoding="utf-8")
    state = json.loads(_sova("game", "replay", str(path)).stdout)
    assert (state["score"], state["finished"], state["winner"]) == ("6:3", True, "experts")
    protocol["rules"] = {"points_to_win": 13}
    path.write_text(json.dumps(protocol), encoding="utf-8")
    run = _sova("game", "replay", str(path))
    assert run.returncode == 2
    assert json.loads(run.stdout) == {
        "error": {
            "event": None,
            "rule": None,
            "message": "rules: points_to_win must be 1..12, got 13",
        }
    }


def test_rules_show_prints_the_parameters_as_json():
    run = _sova("rules", "show", "2023")
    assert run.returncode == 0, run.stderr
    table = json.loads(run.stdout)
    assert table["ruleset"] == "2023"
    assert [
        (p["name"], p["type"], p["range"], p["default"], p["clause"]) for p in table["parameters"]
    ] == [
        ("points_to_win", "int", [1, 12], 6, "000_90d7c8192601ed3a.txt §3.2, §3.10"),
        ("club_help", "int", [0, None], 1, "000_90d7c8192601ed3a.txt §3.7"),
        ("decisive_round", "bool", [False, True], True, "000_90d7c8192601ed3a.txt §3.6"),
        ("credit_minute", "bool", [False, True], True, "000_90d7c8192601ed3a.txt §3.8"),
        ("losses_to_out", "int", [1, None], 2, "000_90d7c8192601ed3a.txt §4.4"),
    ]
    table = json.loads(_sova("rules", "show", "2009").stdout)
    assert [(p["name"], p["default"], p["clause"]) for p in table["parameters"]] == [
        ("points_to_win", 6, "002_e025d5ded135c1c4.txt §1.8"),
        ("club_help", 11, "002_e025d5ded135c1c4.txt §1.7"),
    ]
    run = _sova("rules", "show", "2011")
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == "Error: unknown ruleset '2011'; expected one of 2009, 2023\n"


def test_outbox_status_and_relay_on_sqlite(app, client):
    """`sova outbox status` counts what waits; `relay_forever` (the body of `sova outbox
    relay`) sends it to the broker and marks it sent; bad options exit with code 2."""
    import json

    from webapp.extensions import db
    from webapp.tasks.outbox import relay_forever

    resp = client.post(
        "/submit",
        data={
            "question": "Какой город называют северной столицей России? Назовите его.",
            "answer": "Петроград",
            "name": "Иван Петров",
            "city": "Минск",
            "email": "outbox@example.org",
            "consent": "y",
            "age_confirmed": "y",
        },
    )
    assert resp.status_code == 302
    runner = app.test_cli_runner()
    status = json.loads(runner.invoke(args=["outbox", "status"]).output)
    assert status["waiting"] == 2 and 0 <= status["oldest_seconds"] < 60
    assert relay_forever(interval=0.01, rounds=2) == 2
    db.session.remove()
    # handed to the broker, not done yet (no worker here): owed, in flight
    assert json.loads(runner.invoke(args=["outbox", "status"]).output) == {
        "waiting": 0,
        "oldest_seconds": 0.0,
        "in_flight": 2,
        "overdue": 0,
        "given_up": 0,
        "questions_received": 1,
        "documents_pending": 0,
        "mail_sending": 0,
        "mail_in_doubt": 0,
    }
    bad = runner.invoke(args=["outbox", "relay", "--batch", "0"])
    assert bad.exit_code == 2 and "Invalid value for '--batch'" in bad.output


def test_precheck_stale_requeues_questions_without_a_current_report(app, client, drain):
    """After the checks change (a report of an older version only), `sova precheck stale`
    queues exactly those questions in review; once pre-checked, nothing is stale."""
    from webapp.extensions import db
    from webapp.moderation.models import PRECHECK_VERSION, ModerationReport

    for i in range(3):
        assert (
            client.post(
                "/submit",
                data={
                    "question": f"Какой город называют северной столицей России? Вариант {i}.",
                    "answer": "Петроград",
                    "name": f"Автор {i}",
                    "city": "Минск",
                    "email": f"stale{i}@example.org",
                    "consent": "y",
                    "age_confirmed": "y",
                    "idempotency_key": f"stale-key-{i}",
                },
            ).status_code
            == 302
        )
    drain()
    reports = db.session.scalars(db.select(ModerationReport).order_by(ModerationReport.id)).all()
    assert len(reports) == 3
    reports[1].version = PRECHECK_VERSION - 1  # as if checked before an upgrade
    db.session.commit()
    runner = app.test_cli_runner()
    assert runner.invoke(args=["precheck", "stale", "--dry-run"]).output == (
        f"1 question(s) without a version {PRECHECK_VERSION} pre-check\n"
    )
    out = runner.invoke(args=["precheck", "stale"]).output
    assert out == f"queued the version {PRECHECK_VERSION} pre-check for 1 question(s)\n"
    assert drain() == ["moderation.precheck"]
    assert runner.invoke(args=["precheck", "stale", "--dry-run"]).output.startswith("0 ")


def test_seed_demo_gives_a_playable_pool_and_says_so_again(app, api):
    """``sova seed-demo`` (run by every ``make run``) makes a pool a 2023 table can be
    filled from — approved and signed off through the moderation operations — and a second
    run lists the demo users instead of printing nothing, and adds nothing."""
    from webapp.moderation.models import QuestionSignoff

    runner = app.test_cli_runner()
    first = runner.invoke(args=["seed-demo"])
    assert first.exit_code == 0, first.output
    lines = first.output.splitlines()
    assert lines[:3] == [
        "Demo staff users (password = role name + '-demo'):",
        "  editor        editor@sova.local            editor-demo",
        "  chief_editor  chief-editor@sova.local      chief_editor-demo",
    ]
    assert lines[-1] == (
        "Demo pool: 50 questions from demo_pool.4s approved by "
        "editor@sova.local and signed off by chief-editor@sova.local — "
        "enough for «Заполнить стол»."
    )
    pool = db.session.scalars(
        db.select(Question).where(Question.channel == "import").order_by(Question.id)
    ).all()
    assert [q.status for q in pool] == ["approved"] * 50
    assert [[h.to_status for h in q.history] for q in pool[:1]] == [
        ["received", "prechecked", "in_review", "approved"]
    ]
    assert db.session.scalar(db.select(db.func.count()).select_from(QuestionSignoff)) == 50
    archived = count("archived")

    again = runner.invoke(args=["seed-demo"])
    assert again.exit_code == 0, again.output
    assert again.output.splitlines() == [
        "Demo staff users exist already (password = role name + '-demo', unless changed):",
        "  editor        editor@sova.local            editor-demo",
        "  chief_editor  chief-editor@sova.local      chief_editor-demo",
        "  producer      producer@sova.local          producer-demo",
        "  host          host@sova.local              host-demo",
        "  accountant    accountant@sova.local        accountant-demo",
        "  admin         admin@sova.local             admin-demo",
    ]
    assert (count("approved"), count("archived")) == (50, archived)

    season = api_season(api, "Сезон 2023", "2023", currency="BYN")

    def filled_game(day: str):
        """A 2023 game on ``day``, its table filled from the pool (the answer)."""
        table = {"blitz": 3, "superblitz": 7, "sector13": 13}
        game = api_game(api, season, day, table).json["id"]
        return api("post", f"/api/v1/games/{game}/assign", role="producer")

    filled = filled_game("2023-12-30")
    assert filled.status_code == 200, filled.json
    assert sorted(len(s["question_ids"]) for s in filled.json["sectors"]) == [1] * 11 + [3, 3]
    # and a second game of the demo fills too (one author per game: the 17 of the first
    # game's table are still approved, so the second takes the other authors' questions)
    refilled = filled_game("2024-01-06")
    assert refilled.status_code == 200, refilled.json
    first_ids = {i for s in filled.json["sectors"] for i in s["question_ids"]}
    second_ids = {i for s in refilled.json["sectors"] for i in s["question_ids"]}
    assert len(second_ids) == 17 and not first_ids & second_ids


def test_a_packet_with_a_noncharacter_is_refused_and_nothing_kept(app, tmp_path):
    """A packet is an input too: a question holding U+FFFE (no XML, no paper takes it) fails
    its file with the shared message, as the form and the API refuse it."""
    result = import_packet(
        app,
        tmp_path / "nonchar.4s",
        "? Какой город называют северной столицей\ufffe России?\n! Санкт-Петербург\n",
    )
    assert result.exit_code == 2, result.output
    assert "nonchar.4s" in result.output and "line 1" in result.output and "U+FFFE" in result.output
    assert count() == 0
