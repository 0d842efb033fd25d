"""Viewers (issue 3): languages, tricky input stored exactly, images, double clicks,
honeypot, rate limit, expired CSRF, "my questions" links and withdrawal, e-mail."""

from __future__ import annotations

import io
import re
import unicodedata

from PIL import Image

from webapp.extensions import db
from webapp.submissions.models import Author, Question

FORM = {
    "question": "Какой город называют северной столицей России? Назовите его.",
    "answer": "Санкт-Петербург", "name": "Пётр Иванов", "city": "Минск",
    "email": "petr@example.com", "consent": "y", "age_confirmed": "y",
}


def count(model=Question):
    return db.session.scalar(db.select(db.func.count()).select_from(model))


def only_question() -> Question:
    return db.session.scalars(db.select(Question)).one()


def test_belarusian_page_and_remembered_choice(client):
    page = client.get("/submit?lang=be").get_data(as_text=True)
    assert "Даслаць пытанне знаўцам" in page and 'lang="be"' in page
    resp = client.get("/lang/be?next=/submit")
    assert resp.status_code == 302 and "sova_lang=be" in resp.headers["Set-Cookie"]
    page = client.get("/submit").get_data(as_text=True)
    assert "Адправіць пытанне" in page
    assert "Адправіць пытанне" in client.get("/submit", headers={"Accept-Language": "en"}
                                             ).get_data(as_text=True)  # the choice wins


def test_browser_language_when_nothing_chosen(make_app):
    client = make_app(WTF_CSRF_ENABLED=False).test_client()
    page = client.get("/submit", headers={"Accept-Language": "en-GB,en;q=0.9"})
    assert "Send the question" in page.get_data(as_text=True)

def test_russian_is_the_default(make_app):
    client = make_app(WTF_CSRF_ENABLED=False).test_client()
    assert "Прислать вопрос знатокам" in client.get("/submit").get_data(as_text=True)


def test_errors_in_belarusian(client):
    resp = client.post("/submit?lang=be", data=dict(FORM, consent=""))
    assert resp.status_code == 422
    assert "Без згоды на апрацоўку персанальных даных" in resp.get_data(as_text=True)


def test_tricky_text_is_stored_exactly(client):
    nfd = unicodedata.normalize("NFD", "Йошкар-Ола и ёлка")
    question = f"Где\u200b растёт {nfd}? Москва с латинской a: Moсквa\u2060 — назовите."
    resp = client.post("/submit", data=dict(FORM, question=question))
    assert resp.status_code == 302
    q = only_question()
    assert q.text == "Где растёт Йошкар-Ола и ёлка? Москва с латинской a: Moсквa — назовите."
    assert unicodedata.is_normalized("NFC", q.text)
    assert "ёлка" in q.text  # ё is kept in the text; folded only in the matching key
    assert "елка" in q.matching_key and "москва" in q.matching_key


def test_idn_email_is_one_author(client):
    client.post("/submit", data=dict(FORM, email="Ivan@ПОЧТА.РФ"))
    client.post("/submit", data=dict(FORM, email="ivan@почта.рф",
                                     question=FORM["question"] + " Второй."))
    assert count(Question) == 2 and count(Author) == 1
    from webapp.core.crypto import decrypt

    assert decrypt(db.session.scalars(db.select(Author)).one().email_encrypted) == "ivan@почта.рф"


def test_double_click_gives_one_question(client):
    data = dict(FORM, idempotency_key="k" * 32)
    first = client.post("/submit", data=data)
    second = client.post("/submit", data=data)
    assert first.status_code == second.status_code == 302
    assert first.headers["Location"] == second.headers["Location"]
    assert count() == 1
    # the repeat wrote nothing: one author, one status record, two outbox messages
    from webapp.core.models import OutboxMessage
    from webapp.submissions.models import QuestionStatusChange

    for model, n in ((Author, 1), (QuestionStatusChange, 1), (OutboxMessage, 2)):
        assert db.session.scalar(db.select(db.func.count()).select_from(model)) == n, model


def test_honeypot_stores_nothing(client):
    resp = client.post("/submit", data=dict(FORM, website="http://spam.example"))
    assert resp.status_code == 200 and count() == 0


def test_minimum_fill_time(make_app):
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_MIN_FILL_SECONDS=60)
    client = app.test_client()
    with app.app_context():
        page = client.get("/submit").get_data(as_text=True)
        started = re.search(r'name="started" type="hidden" value="([^"]+)"', page).group(1)
        resp = client.post("/submit", data=dict(FORM, started=started))
        assert resp.status_code == 422
        assert FORM["question"] in resp.get_data(as_text=True)
        assert count() == 0


def png_with_gps(size=(40, 30)) -> bytes:
    img = Image.new("RGB", size, (200, 30, 30))
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x8825] = {1: "N", 2: (53.0, 54.0, 0.0), 3: "E", 4: (27.0, 33.0, 0.0)}  # GPS
    out = io.BytesIO()
    img.save(out, format="PNG", exif=exif)
    return out.getvalue()


def test_handout_image_is_reencoded_without_exif(client, app, tmp_path):
    raw = png_with_gps()
    assert b"PhoneMaker" in raw
    resp = client.post("/submit", data=dict(FORM, handout_image=(io.BytesIO(raw), "map.png")),
                       content_type="multipart/form-data")
    assert resp.status_code == 302
    q = only_question()
    stored = (tmp_path / "instance" / "uploads" / q.handout_image).read_bytes()
    assert b"PhoneMaker" not in stored
    with Image.open(io.BytesIO(stored)) as img:
        assert img.format == "PNG" and img.size == (40, 30)
        assert not img.getexif()
    assert client.get(f"/uploads/{q.handout_image}").status_code == 302  # staff only


def test_image_over_5_mb_is_refused_and_text_kept(client):
    big = b"\x89PNG\r\n\x1a\n" + b"0" * (5 * 1024 * 1024 + 1 - 8)
    resp = client.post("/submit", data=dict(FORM, handout_image=(io.BytesIO(big), "big.png")),
                       content_type="multipart/form-data")
    assert resp.status_code == 422
    page = resp.get_data(as_text=True)
    assert "Изображение больше 5 МБ." in page and FORM["question"] in page
    assert count() == 0


def test_not_an_image_is_refused(client):
    resp = client.post("/submit", data=dict(FORM, handout_image=(io.BytesIO(b"GIF89a..."),
                                                                 "x.png")),
                       content_type="multipart/form-data")
    assert resp.status_code == 422 and count() == 0


def test_expired_csrf_keeps_the_text(make_app):
    app = make_app()  # CSRF on
    client = app.test_client()
    with app.app_context():
        client.get("/submit")
        resp = client.post("/submit", data=dict(FORM, csrf_token="expired-or-forged"))
        assert resp.status_code == 400
        page = resp.get_data(as_text=True)
        assert "Страница была открыта слишком долго" in page and FORM["question"] in page
        token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
        assert client.post("/submit", data=dict(FORM, csrf_token=token)).status_code == 302
        assert count() == 1


def test_rate_limit_keeps_the_text(make_app):
    app = make_app(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=True)
    client = app.test_client()
    with app.app_context():
        codes = [client.post("/submit", data=dict(FORM, question=FORM["question"] + f" №{i}"))
                 .status_code for i in range(7)]
        assert codes == [302] * 5 + [429] * 2
        page = client.post("/submit", data=dict(FORM, question="Мой длинный текст вопроса")
                           ).get_data(as_text=True)
        assert "Слишком много отправок" in page and "Мой длинный текст вопроса" in page
        assert count() == 5


def test_my_questions_link_is_one_time_and_withdraws(client, app, drain):
    client.post("/submit", data=FORM)
    drain()
    resp = client.post("/my", data={"email": "PETR@example.com"})
    assert resp.status_code == 302
    assert drain() == ["notify.my_link"]
    author = db.session.scalars(db.select(Author)).one()
    from webapp.submissions.views import my_link_token

    with app.test_request_context():
        token = my_link_token(author)
    assert client.get(f"/my/{token}").status_code == 302
    page = client.get("/my/questions").get_data(as_text=True)
    assert FORM["question"] in page and "Отозвать вопрос" in page
    assert client.get(f"/my/{token}").status_code == 410  # used once
    q = only_question()
    assert client.post(f"/my/questions/{q.id}/withdraw").status_code == 302
    db.session.expire_all()
    assert db.session.get(Question, q.id).status == "withdrawn"


def test_unknown_address_gets_the_same_answer(client, drain):
    resp = client.post("/my", data={"email": "nobody@example.com"}, follow_redirects=True)
    assert "Если этот адрес есть у нас" in resp.get_data(as_text=True)
    assert drain() == []


def test_confirmation_email_via_real_smtp(make_app, smtp_sink):
    url, received = smtp_sink
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMTP_URL=url)
    client = app.test_client()
    with app.app_context():
        resp = client.post("/submit", data=FORM)
        token = resp.headers["Location"].split("/status/")[1].split("?")[0]
        from tests.conftest import drain_outbox

        assert drain_outbox(app) == ["moderation.precheck", "notify.received"]
    assert len(received) == 1
    mail = received[0]
    assert mail["To"] == "petr@example.com"
    body = mail.get_payload(decode=True).decode()
    assert f"/status/{token}" in body


def test_status_page_reveals_no_game_before_air_date(client):
    from datetime import date, timedelta

    from webapp.submissions.models import set_status

    client.post("/submit", data=FORM)
    q = only_question()
    q.aired_on = date.today() + timedelta(days=3)
    for status in ("prechecked", "in_review", "approved", "assigned", "played", "unanswered"):
        set_status(q, status)
    db.session.commit()
    page = client.get(f"/status/{q.public_token}").get_data(as_text=True)
    assert "Сыгран в игре" not in page and "Принят редакцией" in page
    q.aired_on = date.today() - timedelta(days=1)
    db.session.commit()
    assert "Сыгран в игре" in client.get(f"/status/{q.public_token}").get_data(as_text=True)


def test_email_in_the_viewers_language(make_app, smtp_sink):
    url, received = smtp_sink
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMTP_URL=url)
    with app.app_context():
        app.test_client().post("/submit?lang=be", data=FORM)
        from tests.conftest import drain_outbox

        drain_outbox(app)
    from email.header import decode_header, make_header

    assert str(make_header(decode_header(received[0]["Subject"]))) == \
        "Ваша пытанне атрымана — «Што? Дзе? Калі?»"
    body = received[0].get_payload(decode=True).decode()
    assert body.startswith("Добры дзень!\n\nМы атрымалі ваша пытанне")
