"""Intake channels besides the web form: paper letters, partner questions, packet upload,
live questions during a 2009 game."""

from __future__ import annotations

import io
from datetime import date

import pytest

from tests.forms import page_forms
from tests.webapp.games.helpers import api_game_2009
from webapp.extensions import db
from webapp.submissions.models import Question
from webapp.tasks.outbox import commit

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


def upload_packet(client, text: str, name: str, as_: str = "submissions"):
    """The editors' import form as the page renders it (its fields, its action: none, so its
    page), sent with ``text`` as the file ``name`` and ``as_`` chosen."""
    url = "/editor/import"
    (form,) = [f for f in page_forms(client.get(url).text) if f.attrs.get("enctype")]
    data = {**form.fields, "as_": as_, "packet": (io.BytesIO(text.encode()), name)}
    return client.post(form.action or url, data=data, content_type="multipart/form-data")


def test_broken_packet_upload_writes_nothing(login, client):
    login("editor")
    resp = upload_packet(client, "? Вопрос без ответа\n", "bad.4s")
    assert resp.status_code == 422
    assert "bad.4s: строка 1 — у вопроса нет ответа (строки, начинающейся с «!»)." in resp.get_data(
        as_text=True
    )
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0


DB_WITHOUT_ANSWER = (
    "Вопрос 1:\nПервый вопрос пакета.\n\nОтвет:\nДа\n\n"
    "Вопрос 2:\nВторой вопрос пакета.\n\nКомментарий:\nОтвет забыли.\n"
)


def test_a_db_question_without_an_answer_is_told_in_the_files_own_terms(
    app, login, client, tmp_path
):
    """A db.chgk.info file is told of its missing «Ответ:» block, not of a 4s «!» line."""
    login("editor")
    resp = upload_packet(client, DB_WITHOUT_ANSWER, "bad.txt", as_="archive")
    assert resp.status_code == 422
    assert "bad.txt: строка 7 — у вопроса нет ответа (блока «Ответ:»)." in resp.get_data(
        as_text=True
    )
    bad = tmp_path / "bad.txt"
    bad.write_text(DB_WITHOUT_ANSWER, encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["import", str(bad), "--as", "archive"])
    assert result.exit_code == 2
    assert f"Error: {bad}, line 7: question has no answer ('Ответ:' block)\n" in result.output
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0


def test_packet_parse_error_is_russian_with_the_file_named_once(login, client):
    """A packet's parse error is said in Russian, not as «bad.4s: bad.4s, line 1: text
    outside any field: …»."""
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


def test_a_postmark_still_to_come_is_refused(app, login, client):
    """The letter form as the page renders it, with a postmark of tomorrow in the pages'
    zone (SOVA_TIMEZONE, Europe/Minsk): refused with a Russian message, nothing stored;
    today's postmark is taken."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    from tests.forms import page_forms

    login("editor")
    today = datetime.now(ZoneInfo(app.config["SOVA_TIMEZONE"])).date()
    tomorrow = today + timedelta(days=1)
    page = client.get("/editor/letters/new").get_data(as_text=True)
    (form,) = [f for f in page_forms(page) if "postmark_date" in f.fields]
    typed = {k: v for k, v in LETTER.items() if k in form.fields or k == "postmark_date"}
    resp = client.post(
        form.action or "/editor/letters/new",
        data={**form.fields, **typed, "postmark_date": tomorrow.isoformat()},
    )
    assert resp.status_code == 422
    assert (
        f"Дата штемпеля {tomorrow:%d.%m.%Y} ещё не наступила (сегодня {today:%d.%m.%Y}): "
        "укажите дату с конверта." in resp.get_data(as_text=True)
    )
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0
    resp = client.post(
        form.action or "/editor/letters/new",
        data={**form.fields, **typed, "postmark_date": today.isoformat()},
    )
    assert resp.status_code == 302
    assert db.session.scalars(db.select(Question.postmark_date)).one() == today


def test_a_packet_imported_again_is_a_choice(login, client, shared_dir):
    """The import page's own form, the same packet twice: the second time nothing is
    imported and the page says how many of its questions are there already, offering the
    box «import again»; ticked (the file chosen again), the packet goes in once more."""
    from tests.forms import page_forms

    login("editor")
    raw = (shared_dir / "data/chgk/alexander-pecheny__chgksuite/balt09-1.txt").read_bytes()

    def send(page: str, **extra):
        (form,) = [f for f in page_forms(page) if f.attrs.get("enctype") == "multipart/form-data"]
        data = {**form.fields, "as_": "archive", **extra}
        data["packet"] = (io.BytesIO(raw), "balt09-1.txt")
        return client.post(
            form.action or "/editor/import", data=data, content_type="multipart/form-data"
        )

    def count() -> int:
        return db.session.scalar(db.select(db.func.count()).select_from(Question))

    page = client.get("/editor/import").get_data(as_text=True)
    assert 'name="again"' not in page
    first = send(page)
    assert first.status_code == 302 and count() == 36
    page = client.get(first.headers["Location"]).get_data(as_text=True)
    again = send(page)
    html = again.get_data(as_text=True)
    assert again.status_code == 409
    assert (
        "<p>Вопросов файла «balt09-1.txt» уже в базе: 36 из 36 (тот же текст вопроса). "
        "Ничего не импортировано.</p>" in html
    )
    assert count() == 36
    (form,) = [f for f in page_forms(html) if f.attrs.get("enctype") == "multipart/form-data"]
    assert "again" in form.checkboxes and "again" not in form.fields
    assert "Импортировать ещё раз, хотя эти вопросы уже есть в базе</label>" in html
    resp = send(html, again=form.when_ticked["again"])
    assert resp.status_code == 302
    assert "balt09-1.txt: импортировано вопросов — 36." in client.get(
        resp.headers["Location"]
    ).get_data(as_text=True)
    assert count() == 72


def cli_import_of_a_packet_already_there_says_so_first(shared_dir) -> None:
    """``sova import`` of a packet already imported: a warning on stderr with how many of
    its questions are there, before it is imported again (the contract's exit 2 is for a
    bad file only)."""
    from flask import current_app

    app = current_app
    packet = str(shared_dir / "data/chgk/alexander-pecheny__chgksuite/balt09-1.txt")
    runner = app.test_cli_runner()
    first = runner.invoke(args=["import", packet, "--as", "archive"])
    assert first.exit_code == 0 and first.stderr == ""
    result = runner.invoke(args=["import", packet, "--as", "archive"])
    assert result.exit_code == 0
    assert result.stderr == (
        f"Warning: {packet}: 36 of 36 questions are already in the database (the same "
        "question text); importing them again.\n"
    )
    assert "balt09-1.txt: imported 36 questions as archive" in result.stdout
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 72


def test_cli_import_of_a_packet_already_there_says_so_first(app, shared_dir):
    cli_import_of_a_packet_already_there_says_so_first(shared_dir)


@pytest.mark.integration
def test_cli_import_of_a_packet_already_there_says_so_first_on_postgresql(pg_app, shared_dir):
    cli_import_of_a_packet_already_there_says_so_first(shared_dir)


def texts_present_counts_each_distinct_text_once() -> None:
    """More texts than one SQLite statement takes, some stored (one of them twice), some
    not, one asked twice: each distinct stored text counted once."""
    from tests.scale_data import archive_packet
    from webapp.domain.packets import parse_packet
    from webapp.moderation.bulk_import import import_archive
    from webapp.submissions.operations.packet_import import clean_fields
    from webapp.submissions.queries import TEXTS_PER_QUERY, texts_present

    packet = parse_packet(archive_packet(TEXTS_PER_QUERY + 100, seed=31))
    import_archive(packet, origin="a.4s")
    import_archive(parse_packet(archive_packet(3, seed=31)), origin="again.4s")
    commit()
    stored = [clean_fields(pq)["question"] for pq in packet.questions]
    others = [f"{text} (другой)" for text in stored[:250]]
    assert texts_present(stored + others + stored[:1]) == TEXTS_PER_QUERY + 100
    assert texts_present(others) == 0
    assert texts_present([]) == 0


def test_texts_present_counts_each_distinct_text_once(app):
    texts_present_counts_each_distinct_text_once()


@pytest.mark.integration
def test_texts_present_counts_each_distinct_text_once_on_postgresql(pg_app):
    texts_present_counts_each_distinct_text_once()


def _pdf(pages: int = 1, *, js: bool = False) -> bytes:
    """A real PDF made with pypdf; ``js``: with a document script (opened → runs), an
    attached HTML file and a link annotation running JavaScript, as a crafted file has."""
    from pypdf import PdfWriter
    from pypdf.actions import JavaScript
    from pypdf.annotations import Link
    from pypdf.generic import DictionaryObject, NameObject, TextStringObject

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=200, height=200)
    if js:
        writer.add_open_action(JavaScript("app.alert('scan');"))
        writer.add_attachment("evil.html", b"<script>alert(1)</script>")
        link = Link(rect=(10, 10, 100, 100), url="https://example.org/")
        link[NameObject("/A")] = DictionaryObject(
            {
                NameObject("/S"): NameObject("/JavaScript"),
                NameObject("/JS"): TextStringObject("app.alert('link');"),
            }
        )
        writer.add_annotation(page_number=0, annotation=link)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _send_letter(client, data: bytes, name: str):
    """The letter form as the page renders it, with the scan file ``name``."""
    from tests.forms import page_forms

    page = client.get("/editor/letters/new").get_data(as_text=True)
    (form,) = [f for f in page_forms(page) if "postmark_date" in f.fields]
    typed = {k: v for k, v in LETTER.items() if k in form.fields or k == "postmark_date"}
    return client.post(
        form.action or "/editor/letters/new",
        data={**form.fields, **typed, "scan": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
    )


def test_a_pdf_scan_is_checked_cleaned_and_stored_0600(login, client, tmp_path):
    """A PDF scan through the letter page: stored as a fresh PDF of its pages only (no
    script, attachment, annotation or open action), mode 0600, under a random name."""
    from pypdf import PdfReader

    login("editor")
    page = client.get("/editor/letters/new").get_data(as_text=True)
    assert "Скан письма (JPEG, PNG, WebP или PDF)" in page
    assert 'accept="image/jpeg,image/png,image/webp,application/pdf,.pdf"' in page
    crafted = _pdf(2, js=True)
    assert b"/JavaScript" in crafted and b"/EmbeddedFiles" in crafted
    resp = _send_letter(client, crafted, "письмо.pdf")
    assert resp.status_code == 302
    q = db.session.scalars(db.select(Question)).one()
    assert q.letter_scan.startswith("letters/") and q.letter_scan.endswith(".pdf")
    stored = tmp_path / "instance" / "uploads" / q.letter_scan
    assert stored.stat().st_mode & 0o777 == 0o600
    data = stored.read_bytes()
    assert data.startswith(b"%PDF-")
    for word in (b"/JavaScript", b"/JS", b"/EmbeddedFiles", b"/OpenAction", b"/Annots", b"/AA"):
        assert word not in data, word
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) == 2
    assert "/Names" not in reader.trailer["/Root"]


def test_a_scan_that_is_not_what_it_says_is_refused(login, client, tmp_path):
    """The content decides: HTML named .pdf, a file that only starts like a PDF, an
    encrypted PDF, a PDF over 10 MB are refused on the field; nothing is stored."""
    from pypdf import PdfWriter

    login("editor")
    locked = PdfWriter()
    locked.add_blank_page(width=100, height=100)
    locked.encrypt("secret")
    buf = io.BytesIO()
    locked.write(buf)
    cases = [
        (b"<html><script>alert(1)</script></html>", "scan.pdf", "Файл не открывается как PDF."),
        (b"%PDF-1.7\n<script>alert(1)</script>", "scan.pdf", "Файл не открывается как PDF."),
        (buf.getvalue(), "scan.pdf", "PDF зашифрован: загрузите скан без пароля."),
        (b"%PDF-1.7\n" + b"0" * (10 * 1024 * 1024), "scan.pdf", "Скан больше 10 МБ."),
        (_pdf(), "scan.html", "Допускаются только JPEG, PNG, WebP и PDF."),
    ]
    for data, name, message in cases:
        resp = _send_letter(client, data, name)
        html = resp.get_data(as_text=True)
        assert resp.status_code == 422, name
        assert f'<p class="error" id="scan-error">{message}</p>' in html, message
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0
    letters = tmp_path / "instance" / "uploads" / "letters"
    assert not letters.exists() or list(letters.iterdir()) == []


def test_the_pdf_scan_is_a_download_for_the_chief_editor_only(login, client, staff):
    """The question page's button (chief editor: the scan shows the author) downloads the
    PDF as an attachment of type application/pdf, sandboxed, never inline; audited. An
    editor sees no button and is refused."""
    from werkzeug.datastructures import MultiDict

    from tests.forms import page_forms
    from webapp.moderation.models import ModerationAudit

    login("editor")
    assert _send_letter(client, _pdf(), "письмо.pdf").status_code == 302
    q = db.session.scalars(db.select(Question)).one()
    url = f"/editor/questions/{q.id}/letter-scan"
    page = client.get(f"/editor/questions/{q.id}").get_data(as_text=True)
    assert "Скан письма" not in page and url not in page
    assert client.post(url).status_code == 403

    login("chief_editor")
    page = client.get(f"/editor/questions/{q.id}").get_data(as_text=True)
    (form,) = [f for f in page_forms(page) if f.action == url]
    assert "Скачать скан письма (PDF)</button>" in page
    resp = client.post(form.action, data=MultiDict(list(form.fields.items())))
    assert resp.status_code == 200
    assert resp.headers["Content-Type"] == "application/pdf"
    assert resp.headers["Content-Disposition"].startswith("attachment;")
    assert "filename*=UTF-8''" in resp.headers["Content-Disposition"]
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    csp = [d.strip() for d in resp.headers["Content-Security-Policy"].split(";")]
    assert csp == ["sandbox", "default-src 'none'"]
    assert resp.get_data().startswith(b"%PDF-")
    audit = db.session.scalars(db.select(ModerationAudit)).all()
    assert [(a.question_id, a.user_id, a.action) for a in audit] == [
        (q.id, staff("chief_editor")[0], "letter_scan")
    ]
