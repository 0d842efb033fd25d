"""Intake channels besides the web form: paper letters, partner questions, packet upload,
live questions during a 2009 game."""

from __future__ import annotations

import io
from datetime import date

from tests.webapp.games.helpers import api_game_2009
from webapp.extensions import db
from webapp.submissions.models import Question

LETTER = {
    "channel": "mail",
    "question": "В письме из Гродно спрашивают: какой замок стоит на Нёмане?",
    "answer": "Старый замок",
    "name": "Анна Ковальчук",
    "city": "Гродно",
    "postmark_date": "2023-02-14",
}


def test_editor_types_in_a_letter(login, client, drain):
    login("editor")
    resp = client.post("/editor/letters/new", data=LETTER)
    assert resp.status_code == 302
    q = db.session.scalars(db.select(Question)).one()
    assert (q.channel, q.status, q.postmark_date) == ("mail", "received", date(2023, 2, 14))
    assert q.authors[0].author.display == "Анна Ковальчук, Гродно"
    assert drain() == ["moderation.precheck"]  # no e-mail on a letter without an address


def test_partner_question_and_bad_letter(login, client):
    login("chief_editor")
    assert (
        client.post("/editor/letters/new", data=dict(LETTER, channel="partner")).status_code == 302
    )
    assert db.session.scalars(db.select(Question)).one().channel == "partner"
    resp = client.post("/editor/letters/new", data=dict(LETTER, answer=""))
    assert resp.status_code == 422 and "Заполните это поле." in resp.get_data(as_text=True)
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 1


def test_a_refused_letter_leaves_no_scan(login, client, app, tmp_path):
    """The scan is written before the letter is checked; a letter the operation refuses
    (a question of 19 characters once its zero-width spaces are removed: the form, which
    counts them, let it through) removes it again, a stored one keeps it."""
    from PIL import Image

    def jpeg() -> tuple[io.BytesIO, str]:
        out = io.BytesIO()
        Image.new("RGB", (20, 10), (10, 120, 30)).save(out, format="JPEG")
        out.seek(0)
        return out, "scan.jpg"

    login("editor")
    letters = tmp_path / "instance" / "uploads" / "letters"
    resp = client.post(
        "/editor/letters/new",
        data=dict(LETTER, question="Какой замок в Лиде?\u200b\u200b", scan=jpeg()),
        content_type="multipart/form-data",
    )
    assert resp.status_code == 422
    assert "вопрос должен быть не короче 20 символов" in resp.get_data(as_text=True)
    assert list(letters.iterdir()) == []
    resp = client.post(
        "/editor/letters/new", data=dict(LETTER, scan=jpeg()), content_type="multipart/form-data"
    )
    assert resp.status_code == 302
    q = db.session.scalars(db.select(Question)).one()
    assert [f"letters/{p.name}" for p in letters.iterdir()] == [q.letter_scan]


def test_letters_are_for_editors_only(login, client):
    login("host")
    assert client.post("/editor/letters/new", data=LETTER).status_code == 403


def test_packet_upload_koi8r(login, client, shared_dir):
    login("editor")
    raw = (shared_dir / "data/chgk/alexander-pecheny__chgksuite/balt09-1.txt").read_bytes()
    resp = client.post(
        "/editor/import",
        data={"packet": (io.BytesIO(raw), "balt09-1.txt"), "as_": "archive", "channel": "import"},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert "balt09-1.txt: импортировано вопросов — 36." in resp.get_data(as_text=True)
    assert (
        db.session.scalar(
            db.select(db.func.count()).select_from(Question).where(Question.status == "archived")
        )
        == 36
    )


def test_broken_packet_upload_writes_nothing(login, client):
    login("editor")
    resp = client.post(
        "/editor/import",
        data={
            "packet": (io.BytesIO("? Вопрос без ответа\n".encode()), "bad.4s"),
            "as_": "submissions",
            "channel": "import",
        },
        content_type="multipart/form-data",
    )
    assert resp.status_code == 422
    assert "bad.4s: строка 1 — у вопроса нет ответа (строки, начинающейся с «!»)." in resp.get_data(
        as_text=True
    )
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0


def test_packet_parse_error_is_russian_with_the_file_named_once(login, client):
    """Newcomer's report: «bad.4s: bad.4s, line 1: text outside any field: …» in English."""
    login("editor")
    resp = client.post(
        "/editor/import",
        data={
            "packet": (io.BytesIO("Просто текст без метки\n".encode()), "bad.4s"),
            "as_": "submissions",
            "channel": "import",
        },
        content_type="multipart/form-data",
    )
    page = resp.get_data(as_text=True)
    assert resp.status_code == 422
    assert (
        "bad.4s: строка 1 — текст вне полей вопроса: строка пакета 4s должна начинаться "
        "с метки, например «?» (вопрос), «!» (ответ), «/» (комментарий), «^» (источник), "
        "«@» (автор) или «#» (заголовок)." in page
    )
    assert "bad.4s, " not in page and "line 1" not in page and "outside" not in page
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0


def test_cli_import_names_a_bad_file_once(app, tmp_path):
    bad = tmp_path / "bad.4s"
    bad.write_text("Просто текст без метки\n", encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["import", str(bad), "--as", "submissions"])
    assert result.exit_code == 2
    assert (
        f"Error: {bad}, line 1: text outside any field: a 4s line must start with a marker "
        "such as '?', '!', '/', '^', '@' or '#'\n"
    ) in result.output
    assert result.output.count("bad.4s") == 1


def test_live_questions_only_while_a_2009_game_is_live(client, api):
    form = {
        "question": "Вопрос из интернета во время эфира: что светит ночью?",
        "answer": "Луна",
        "name": "Зритель",
        "city": "Тверь",
        "email": "tv@example.com",
        "consent": "y",
        "age_confirmed": "y",
    }
    page = client.get("/live").get_data(as_text=True)
    assert "Сейчас игра не идёт" in page
    game_id = api_game_2009(api)
    from webapp.games.models import Game

    game = db.session.get(Game, game_id)
    game.status = "live"
    db.session.commit()
    resp = client.post("/live", data=form)
    assert resp.status_code == 302
    q = db.session.scalars(db.select(Question)).one()
    assert q.channel == "live" and q.created_at.tzinfo is not None
