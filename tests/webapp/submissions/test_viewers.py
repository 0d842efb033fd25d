"""Viewers: languages, tricky input stored exactly, images, double clicks,
honeypot, rate limit, expired CSRF, "my questions" links and withdrawal, e-mail."""

from __future__ import annotations

import io
import re
import unicodedata

import pytest
from PIL import Image

from webapp.extensions import db
from webapp.submissions.models import Author, Question, QuestionAuthor

FORM = {
    "question": "Какой город называют северной столицей России? Назовите его.",
    "answer": "Санкт-Петербург",
    "name": "Пётр Иванов",
    "city": "Минск",
    "email": "petr@example.com",
    "consent": "y",
    "age_confirmed": "y",
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
    assert "Адправіць пытанне" in client.get("/submit", headers={"Accept-Language": "en"}).get_data(
        as_text=True
    )  # the choice wins


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
    client.post(
        "/submit", data=dict(FORM, email="ivan@почта.рф", question=FORM["question"] + " Второй.")
    )
    assert count(Question) == 2 and count(Author) == 1
    from webapp.core.crypto import decrypt

    assert decrypt(db.session.scalars(db.select(Author)).one().email_encrypted) == "ivan@почта.рф"


def test_double_click_gives_one_question(client):
    data = dict(FORM, idempotency_key="k" * 32)
    first = client.post("/submit", data=data)
    second = client.post("/submit", data=data)
    assert first.status_code == second.status_code == 302
    # a double click is the one question the viewer sent: both land on «received»
    assert first.headers["Location"] == second.headers["Location"]
    assert first.headers["Location"].endswith("?new=1")
    assert count() == 1
    # the repeat wrote nothing: one author, one status record, two outbox messages
    from webapp.core.models import OutboxMessage
    from webapp.submissions.models import QuestionStatusChange

    for model, n in ((Author, 1), (QuestionStatusChange, 1), (OutboxMessage, 2)):
        assert db.session.scalar(db.select(db.func.count()).select_from(model)) == n, model


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("ru", "Форма устарела: обновите страницу и отправьте вопрос ещё раз."),
        ("be", "Форма састарэла: абнавіце старонку і адпраўце пытанне яшчэ раз."),
    ],
)
def test_a_spoilt_form_key_reads_as_the_form_in_the_page_language(client, lang, said):
    """The rendered form with its hidden key cut short (a browser extension, a form kept
    open across a deploy): nothing stored, and the summary says in the page's language what
    to do, naming no box (the key is no field the viewer sees), never in English."""
    import html

    from tests.forms import page_forms

    page = client.get(f"/submit?lang={lang}").get_data(as_text=True)
    (form,) = [f for f in page_forms(page) if f.action.startswith("/submit")]
    spoilt = {**form.fields, **FORM, "idempotency_key": "short"}
    answer = client.post(form.action, data=spoilt)
    assert answer.status_code == 422  # the form again, with its messages
    text = html.unescape(answer.get_data(as_text=True))
    summary = text.split('id="error-summary"', 1)[1].split("</div>", 1)[0]
    assert f"<li>{said}</li>" in summary
    assert "Idempotency" not in text and "characters" not in text
    assert count() == 0


def test_a_resend_of_the_same_form_is_the_same_question(client):
    """The back button after sending can bring the form back fetched anew (a new
    idempotency key) with the viewer's text kept by the browser: sending it again is the
    question already received (the same status page), not a second one. A changed answer
    or another author is another question."""
    from tests.forms import page_forms

    def form_page() -> dict:
        page = client.get("/submit").get_data(as_text=True)
        (form,) = [f for f in page_forms(page) if f.action == "/submit"]
        return form.fields

    first_page, back_page = form_page(), form_page()
    assert first_page["idempotency_key"] != back_page["idempotency_key"]
    first = client.post("/submit", data={**first_page, **FORM})
    again = client.post("/submit", data={**back_page, **FORM})
    assert first.status_code == again.status_code == 302
    # the same status page, told as a resend: «received» would read as a second question
    assert first.headers["Location"].endswith("?new=1")
    assert again.headers["Location"] == first.headers["Location"].replace("new=1", "again=1")
    told = client.get(again.headers["Location"]).get_data(as_text=True)
    assert "Этот вопрос вы уже отправили — второй раз он не сохранён." in told
    assert "Спасибо! Вопрос получен." not in told
    assert count() == 1
    from webapp.core.models import OutboxMessage

    assert count(OutboxMessage) == 2  # the resend queued nothing (no second e-mail)
    other = client.post("/submit", data={**form_page(), **FORM, "answer": "Петербург"})
    assert other.status_code == 302 and other.headers["Location"] != first.headers["Location"]
    coauthor = client.post("/submit", data={**form_page(), **FORM, "name": "Анна Иванова"})
    assert coauthor.headers["Location"].endswith("?new=1")
    assert coauthor.headers["Location"] not in (
        first.headers["Location"],
        other.headers["Location"],
    )
    assert count() == 3


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


def test_an_error_page_does_not_restart_the_minimum_fill_time(make_app):
    """The minimum counts from the form's first opening: a viewer who fixes a mistake
    within the minimum of the error page, but after it from the first page, is not a
    robot (the error page's own start time does not count)."""
    import time

    from tests.forms import page_forms

    app = make_app(WTF_CSRF_ENABLED=False, SOVA_MIN_FILL_SECONDS=2)
    client = app.test_client()
    with app.app_context():
        first = page_forms(client.get("/submit").get_data(as_text=True))[-1]
        opened = time.monotonic()
        time.sleep(1.2)
        refused = client.post(first.action, data={**first.fields, **FORM, "answer": ""})
        assert refused.status_code == 422
        again = page_forms(refused.get_data(as_text=True))[-1]
        assert again.fields["started"] == first.fields["started"]
        time.sleep(max(0.0, 2.1 - (time.monotonic() - opened)))
        sent = client.post(again.action, data={**again.fields, **FORM})
        assert sent.status_code == 302, sent.get_data(as_text=True)[:300]
        assert count() == 1


def test_text_past_the_limit_is_refused_with_a_message_never_cut(client):
    """No field carries ``maxlength`` (a browser cuts a pasted text there without a word);
    the limit is the counter's (``data-max``) and the server's: a question of 3 096
    characters comes back whole, with the message."""
    from tests.forms import page_forms

    page = client.get("/submit").get_data(as_text=True)
    tags = re.findall(r"<(?:textarea|input)\b[^>]*>", page)
    assert tags and not [t for t in tags if "maxlength" in t]
    (question,) = [t for t in tags if 'name="question"' in t]
    assert 'data-max="3000"' in question and 'data-counter="1"' in question
    (form,) = [f for f in page_forms(page) if f.action == "/submit"]
    long = "Очень длинный вопрос про северную столицу. " * 72
    assert len(long) == 3096
    resp = client.post(form.action, data={**form.fields, **FORM, "question": long})
    assert resp.status_code == 422
    page = resp.get_data(as_text=True)
    assert "Вопрос: Допускается от 20 до 3000 символов." in page
    (again,) = [f for f in page_forms(page) if f.action == "/submit"]
    assert again.fields["question"] == long
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
    resp = client.post(
        "/submit",
        data=dict(FORM, handout_image=(io.BytesIO(raw), "map.png")),
        content_type="multipart/form-data",
    )
    assert resp.status_code == 302
    q = only_question()
    stored = (tmp_path / "instance" / "uploads" / q.handout_image).read_bytes()
    assert b"PhoneMaker" not in stored
    with Image.open(io.BytesIO(stored)) as img:
        assert img.format == "PNG" and img.size == (40, 30)
        assert not img.getexif()
    assert client.get(f"/uploads/{q.handout_image}").status_code == 302  # staff only


def test_image_over_5_mb_is_refused_and_text_kept(client):
    _assert_image_refused_text_kept(client, b"\x89PNG\r\n\x1a\n" + b"0" * (5 * 1024 * 1024 + 1 - 8))


def _assert_image_refused_text_kept(client, image: bytes, **fields) -> None:
    """POST the form with ``image`` as its handout: the over-5 MB field error, the text
    kept, nothing stored."""
    resp = client.post(
        "/submit",
        data=dict(FORM, **fields, handout_image=(io.BytesIO(image), "big.png")),
        content_type="multipart/form-data",
    )
    assert resp.status_code == 422
    page = resp.get_data(as_text=True)
    assert "Изображение больше 5 МБ." in page and FORM["question"] in page
    assert count() == 0


def test_not_an_image_is_refused(client):
    resp = client.post(
        "/submit",
        data=dict(FORM, handout_image=(io.BytesIO(b"GIF89a..."), "x.png")),
        content_type="multipart/form-data",
    )
    assert resp.status_code == 422 and count() == 0


def _token(page: str) -> str:
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)


def test_with_csrf_and_limits_on_an_image_of_8_to_64_mb_keeps_the_text(make_app):
    """The rate limit's e-mail key and the CSRF check read the form before the view, so the
    body limit is raised before them: a 9 MB image (JavaScript off, over the app's
    ``MAX_CONTENT_LENGTH``) is the field error of any image over 5 MB, text kept, not a 413."""
    app = make_app(RATELIMIT_ENABLED=True)  # CSRF on, as deployed
    client = app.test_client()
    with app.app_context():
        token = _token(client.get("/submit").get_data(as_text=True))
        big = b"\x89PNG\r\n\x1a\n" + b"\0" * (9 * 1024 * 1024)
        assert len(big) > app.config["MAX_CONTENT_LENGTH"]
        _assert_image_refused_text_kept(client, big, csrf_token=token)


def test_the_429_page_can_be_sent_again(make_app):
    """The 429 page carries a CSRF token, so sending it again once the limit has passed is
    not a 400 («Страница была открыта слишком долго»): sent from another address (whose
    limit is not used up), the same page is stored."""
    app = make_app(RATELIMIT_ENABLED=True)  # CSRF on
    client = app.test_client()
    with app.app_context():
        token = _token(client.get("/submit").get_data(as_text=True))
        for i in range(5):
            data = dict(FORM, csrf_token=token, question=FORM["question"] + f" №{i}")
            assert client.post("/submit", data=data).status_code == 302
        refused = client.post(
            "/submit",
            data=dict(
                FORM, csrf_token=token, question="Шестой вопрос, который ещё не отправлен никуда."
            ),
        )
        assert refused.status_code == 429
        page = refused.get_data(as_text=True)
        assert "Шестой вопрос, который ещё не отправлен никуда." in page
        again = client.post(
            "/submit",
            environ_base={"REMOTE_ADDR": "10.9.0.1"},
            data=dict(
                FORM,
                csrf_token=_token(page),
                question="Шестой вопрос, который ещё не отправлен никуда.",
            ),
        )
        assert again.status_code == 302
        assert count() == 6


def test_expired_csrf_keeps_the_text(make_app):
    app = make_app()  # CSRF on
    client = app.test_client()
    with app.app_context():
        client.get("/submit")
        resp = client.post("/submit", data=dict(FORM, csrf_token="expired-or-forged"))
        assert resp.status_code == 400
        page = resp.get_data(as_text=True)
        assert "Страница была открыта слишком долго" in page and FORM["question"] in page
        assert client.post("/submit", data=dict(FORM, csrf_token=_token(page))).status_code == 302
        assert count() == 1


def test_rate_limit_keeps_the_text(make_app):
    app = make_app(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=True)
    client = app.test_client()
    with app.app_context():
        codes = [
            client.post(
                "/submit", data=dict(FORM, question=FORM["question"] + f" №{i}")
            ).status_code
            for i in range(7)
        ]
        assert codes == [302] * 5 + [429] * 2
        page = client.post(
            "/submit", data=dict(FORM, question="Мой длинный текст вопроса")
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
    # an address typed into the form proves nothing; the question shows only
    # once its e-mailed confirmation link was opened
    page = client.get("/my/questions").get_data(as_text=True)
    assert FORM["question"] not in page and "Вопросов пока нет." in page
    q = only_question()
    assert client.post(f"/my/questions/{q.id}/withdraw").status_code == 302
    assert db.session.get(Question, q.id).status != "withdrawn"
    from webapp.submissions.links import confirm_token

    with app.test_request_context():
        confirm = confirm_token(q.id, author.id)
    assert (
        client.get(f"/confirm/{confirm}").headers["Location"].endswith(f"/status/{q.public_token}")
    )
    page = client.get("/my/questions").get_data(as_text=True)
    assert FORM["question"] in page and "Отозвать вопрос" in page
    assert client.get(f"/my/{token}").status_code == 410  # used once
    assert client.post(f"/my/questions/{q.id}/withdraw").status_code == 302
    db.session.expire_all()
    assert db.session.get(Question, q.id).status == "withdrawn"


def test_withdrawing_asks_for_confirmation_first(client, app):
    """«Отозвать вопрос» cannot be undone: the list's button opens «Отозвать вопрос?»
    (the question and what withdrawing means); only its own button withdraws."""
    from tests.forms import page_forms
    from webapp.submissions.links import confirm_token
    from webapp.submissions.views import my_link_token

    client.post("/submit", data=FORM)
    q = only_question()
    author = db.session.scalars(db.select(Author)).one()
    with app.test_request_context():
        confirm, link = confirm_token(q.id, author.id), my_link_token(author)
    assert client.get(f"/confirm/{confirm}").status_code == 302
    assert client.get(f"/my/{link}").status_code == 302
    listed = page_forms(client.get("/my/questions").get_data(as_text=True))
    button = next(f for f in listed if f.action == f"/my/questions/{q.id}/withdraw")
    assert button.method == "get"
    asked = client.get(button.action, query_string=button.fields)
    assert asked.status_code == 200
    page = asked.get_data(as_text=True)
    assert "<h1>Отозвать вопрос?</h1>" in page and FORM["question"] in page
    assert (
        "Отозванный вопрос редакция больше не рассматривает, и в игру он не попадёт. "
        "Отменить это нельзя: чтобы предложить вопрос снова, пришлите его заново."
    ) in page
    assert "Нет, вернуться к моим вопросам" in page
    db.session.expire_all()
    assert db.session.get(Question, q.id).status == "received"  # nothing withdrawn yet
    (sure,) = [f for f in page_forms(page) if f.method == "post" and "withdraw" in f.action]
    done = client.post(sure.action, data=sure.fields, follow_redirects=True)
    assert "Вопрос отозван." in done.get_data(as_text=True)
    db.session.expire_all()
    assert db.session.get(Question, q.id).status == "withdrawn"
    # withdrawn: the page is not offered again (back to the list)
    assert client.get(button.action).status_code == 302


def test_unknown_address_gets_the_same_answer(client, drain):
    resp = client.post("/my", data={"email": "nobody@example.com"}, follow_redirects=True)
    assert "Если этот адрес есть у нас" in resp.get_data(as_text=True)
    assert drain() == []
    for typo in ("x", "a\x00@b.c", "petr@"):  # a typo is refused, not «sent»
        page = client.post("/my", data={"email": typo}).get_data(as_text=True)
        assert "Неверный адрес электронной почты." in page
        assert "Если этот адрес есть у нас" not in page
    assert drain() == []


def test_confirmation_email_via_real_smtp(make_app, smtp_sink):
    url, received = smtp_sink
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMTP_URL=url)
    client = app.test_client()
    with app.app_context():
        resp = client.post("/submit", data=FORM)
        token = resp.headers["Location"].split("/status/")[1].split("?")[0]
        from tests.helpers import drain_outbox

        assert drain_outbox(app) == ["moderation.precheck", "notify.received"]
    assert len(received) == 1
    mail = received[0]
    assert mail["To"] == "petr@example.com"
    body = mail.get_payload(decode=True).decode()
    # the link confirms the address and opens the status page
    link = next(w for w in body.split() if "/confirm/" in w)
    resp = client.get(link[link.index("/confirm/") :])
    assert resp.status_code == 302
    assert resp.headers["Location"].endswith(f"/status/{token}?lang=ru")  # the e-mail's language
    with app.app_context():
        assert db.session.scalar(db.select(QuestionAuthor.confirmed_at)) is not None


def test_status_page_reveals_no_game_without_a_published_game(client):
    """A question marked played but asked in no published game (closed, its air time
    passed: webapp.games.publication) shows «accepted», never «used»; the full embargo
    is tested in tests/webapp/games/test_embargo.py."""
    from webapp.submissions.models import set_status

    client.post("/submit", data=FORM)
    q = only_question()
    for status in ("prechecked", "in_review", "approved", "assigned", "played", "unanswered"):
        set_status(q, status)
    db.session.commit()
    page = client.get(f"/status/{q.public_token}").get_data(as_text=True)
    assert "Сыгран в игре" not in page and "Принят редакцией" in page


def test_email_in_the_viewers_language(make_app, smtp_sink):
    url, received = smtp_sink
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMTP_URL=url)
    with app.app_context():
        app.test_client().post("/submit?lang=be", data=FORM)
        from tests.helpers import drain_outbox

        drain_outbox(app)
    from email.header import decode_header, make_header

    assert (
        str(make_header(decode_header(received[0]["Subject"])))
        == "Ваша пытанне атрымана — «Што? Дзе? Калі?»"
    )
    body = received[0].get_payload(decode=True).decode()
    assert body.startswith("Добры дзень!\n\nМы атрымалі ваша пытанне")


def test_belarusian_email_links_open_in_belarusian_in_a_ru_by_browser(make_app, smtp_sink):
    """The links of a Belarusian viewer's e-mails (the confirmation, «Мои вопросы») carry
    the language, as the payee's link does: opened in a browser that asks for ``ru-BY``
    (Accept-Language alone picked Russian), the pages are Belarusian. The confirmation
    says so, each time the link is opened (it works many times)."""
    from urllib.parse import urlsplit

    from tests.helpers import drain_outbox

    url, received = smtp_sink
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMTP_URL=url)
    viewer = app.test_client()
    assert viewer.post("/submit?lang=be", data=FORM).status_code == 302
    assert viewer.post("/my?lang=be", data={"email": FORM["email"]}).status_code == 302
    with app.app_context():
        assert drain_outbox(app) == ["moderation.precheck", "notify.received", "notify.my_link"]
    links = [
        urlsplit(re.search(r"http://\S+", m.get_payload(decode=True).decode()).group(0))
        for m in received
    ]
    assert [(u.path.split("/")[1], u.query) for u in links] == [
        ("confirm", "lang=be"),
        ("my", "lang=be"),
    ]
    ru_by = {"Accept-Language": "ru-BY,ru;q=0.9,en;q=0.5"}
    confirmed = "Адрас пацверджаны: гэтае пытанне цяпер ёсць у раздзеле «Мае пытанні»."
    for _ in range(2):
        browser = app.test_client()  # another browser: no language chosen before
        page = browser.get(
            f"{links[0].path}?{links[0].query}", headers=ru_by, follow_redirects=True
        )
        text = page.get_data(as_text=True)
        assert page.status_code == 200 and 'lang="be"' in text
        assert confirmed in text and "Ваша пытанне" in text
    browser = app.test_client()
    page = browser.get(f"{links[1].path}?{links[1].query}", headers=ru_by, follow_redirects=True)
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and 'lang="be"' in text
    assert "<h1>Мае пытанні</h1>" in text and FORM["question"] in text


def test_a_bad_confirmation_link_says_how_long_it_works(make_app):
    """A bad or too old confirmation link says what that link is: 90 days, any number of
    times (it said «действует сутки и только один раз», the «Мои вопросы» link's terms)."""
    client = make_app(WTF_CSRF_ENABLED=False).test_client()
    resp = client.get("/confirm/not-a-signed-token")
    assert resp.status_code == 410
    page = resp.get_data(as_text=True)
    assert "<h1>Ссылка подтверждения не действует</h1>" in page
    assert (
        "Ссылка из письма «Ваш вопрос получен» действует 90 дней, и открывать её можно "
        "сколько угодно раз. Эта ссылка неполная или устарела: скопируйте её из письма "
        "целиком."
    ) in page
    assert "сутки" not in page
    page = client.get("/confirm/not-a-signed-token?lang=be").get_data(as_text=True)
    assert "дзейнічае 90 дзён" in page


# --- the viewer pages: languages, messages and refusals -----------------------------------


def languages_stored(app) -> list[str]:
    with app.app_context():
        return list(db.session.scalars(db.select(Question.language).order_by(Question.id)))


# These tests make requests outside a pushed app context: Flask-Babel caches the locale on
# ``g``, which a test-wide app context would share between requests.


def test_unknown_language_code_is_never_stored(make_app):
    """?lang=zz or an edited cookie falls back to the page's real language."""
    app = make_app(WTF_CSRF_ENABLED=False)
    client = app.test_client()
    assert client.post("/submit?lang=zz", data=FORM).status_code == 302
    client.set_cookie("sova_lang", "zz")
    assert (
        client.post(
            "/submit",
            data=dict(FORM, question=FORM["question"] + " Два."),
            headers={"Accept-Language": "en"},
        ).status_code
        == 302
    )
    assert languages_stored(app) == ["ru", "en"]


def test_lang_choice_survives_the_post(make_app):
    """/submit?lang=be in an English browser: errors, status page and the stored
    question stay Belarusian (cookie remembered; the form posts back with ?lang=be)."""
    app = make_app(WTF_CSRF_ENABLED=False)
    client = app.test_client()
    english = {"Accept-Language": "en"}
    resp = client.get("/submit?lang=be", headers=english)
    assert "sova_lang=be" in resp.headers["Set-Cookie"]
    assert 'action="/submit?lang=be"' in resp.get_data(as_text=True)
    page = client.post("/submit", data=dict(FORM, consent=""), headers=english)  # plain URL
    assert "Без згоды на апрацоўку персанальных даных" in page.get_data(as_text=True)
    resp = client.post("/submit", data=FORM, headers=english, follow_redirects=True)
    page = resp.get_data(as_text=True)
    assert 'lang="be"' in page and "Received" not in page
    assert languages_stored(app) == ["be"]


def test_my_link_mail_in_the_page_language(make_app, smtp_sink):
    """/my asked from a Belarusian page sends the link e-mail in Belarusian, though
    the author's question was sent in Russian."""
    url, received = smtp_sink
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMTP_URL=url)
    client = app.test_client()
    client.post("/submit", data=FORM)
    client.post("/my?lang=be", data={"email": "petr@example.com"})
    with app.app_context():
        from tests.helpers import drain_outbox

        assert drain_outbox(app) == ["moderation.precheck", "notify.received", "notify.my_link"]
    from email.header import decode_header, make_header

    subjects = [str(make_header(decode_header(m["Subject"]))) for m in received]
    assert subjects == [
        "Ваш вопрос получен — «Что? Где? Когда?»",
        "Вашы пытанні — «Што? Дзе? Калі?»",
    ]


def test_too_fast_says_why(make_app):
    """The minimum-fill-time refusal explains itself."""
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_MIN_FILL_SECONDS=60)
    with app.app_context():
        client = app.test_client()
        page = client.get("/submit").get_data(as_text=True)
        started = re.search(r'name="started" type="hidden" value="([^"]+)"', page).group(1)
        resp = client.post("/submit", data=dict(FORM, started=started))
        assert resp.status_code == 422
        assert (
            "Форма отправлена слишком быстро после открытия страницы (меньше 60 с) — так "
            "делают программы-роботы, поэтому вопрос не сохранён. Проверьте вопрос ещё "
            "раз и отправьте его."
        ) in resp.get_data(as_text=True)


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares ``width`` × ``height`` pixels in a few bytes (a pixel bomb)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def test_image_errors_in_belarusian_and_pixel_bomb(client):
    """Image errors follow the page's language; a pixel bomb is «too big»."""

    def post(raw: bytes, name: str) -> str:
        resp = client.post(
            "/submit?lang=be",
            data=dict(FORM, handout_image=(io.BytesIO(raw), name)),
            content_type="multipart/form-data",
        )
        assert resp.status_code == 422
        return resp.get_data(as_text=True)

    assert "Файл не з’яўляецца выявай JPEG, PNG або WebP." in post(b"just text", "x.jpg")
    page = post(png_header_only(30000, 30000), "bomb.png")
    assert "Занадта вялікая выява: не больш за 40 мегапікселяў." in page
    assert count() == 0


def test_withdrawing_twice_says_already_withdrawn(client, app):
    """A second withdrawal is «already withdrawn», not «already in a game»."""
    from webapp.submissions.operations import SubmissionError, withdraw

    client.post("/submit", data=FORM)
    q = only_question()
    author_id = q.authors[0].author_id
    from webapp.submissions.operations import confirm_authorship

    assert confirm_authorship(q, author_id)  # the e-mailed link
    withdraw(q, author_id)
    db.session.commit()
    try:
        withdraw(q, author_id)
    except SubmissionError as exc:
        assert exc.errors == {"question": ["Вопрос уже отозван."]}
    else:
        raise AssertionError("no error")


def test_bad_email_listed_with_the_other_errors(client):
    """A bad address shows in the first round, with every other mistake."""
    resp = client.post(
        "/submit?lang=be",
        data=dict(
            FORM, question="Коратка", answer="", email="not-an-email", consent="", age_confirmed=""
        ),
    )
    assert resp.status_code == 422
    page = resp.get_data(as_text=True)
    for text in (
        "Няправільны адрас электроннай пошты.",
        "Без згоды на апрацоўку",
        "Пацвердзіце, што вам споўнілася 16 гадоў",
    ):
        assert text in page, text
    assert count() == 0


def test_rate_limit_counts_only_stored_questions(make_app):
    """Failed validations cost nothing; an empty e-mail is not a shared bucket."""
    app = make_app(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=True)
    client = app.test_client()
    with app.app_context():
        failed = [client.post("/submit", data=dict(FORM, answer="")).status_code for _ in range(8)]
        assert failed == [422] * 8
        stored = [
            client.post(
                "/submit", data=dict(FORM, question=FORM["question"] + f" №{i}")
            ).status_code
            for i in range(6)
        ]
        assert stored == [302] * 5 + [429]
        from webapp.submissions.views import email_key

        with app.test_request_context(
            "/submit", method="POST", data={"email": ""}, environ_base={"REMOTE_ADDR": "10.0.0.7"}
        ):
            assert email_key() == "email-ip:10.0.0.7"
        with app.test_request_context(
            "/submit", method="POST", data={"email": " Petr@Example.com"}
        ):
            assert email_key() == "email:petr@example.com"


def test_messages_outside_a_request_are_russian(app):
    """A worker or CLI command (app context, no request) gets Russian messages instead of
    a "Working outside of request context" crash (payee details checked by a task)."""
    from webapp.prizes import payee

    try:
        payee.validate(
            payee.PayeeInput(
                full_name="",
                country="BY",
                passport_series="MP",
                passport_number="7654321",
                issued_by="РУВД",
                issued_on="2015-06-01",
                personal_number="3010190A001PB9",
                inn="",
                address="г. Брест",
                iban="BY13NBRB3600900000002Z00AB00",
                account="",
                bik="",
                tax_status="resident",
            )
        )
    except payee.PayeeError as exc:
        assert exc.errors == {"full_name": ["Укажите фамилию, имя и отчество."]}
    else:
        raise AssertionError("no error")


def test_one_co_author_twice_is_refused_not_a_500(client, api):
    """The same co-author row typed twice (web) or a co-author with the first author's
    address (API) would link one author to the question twice: a clear 422, nothing
    stored (found when the PostgreSQL intake became one statement)."""
    message = "Гэты аўтар ужо пазначаны ў пытанні (тое ж імя і горад або той жа адрас)."
    resp = client.post(
        "/submit?lang=be",
        data=dict(
            FORM,
            **{
                "coauthors-0-name": "Анна",
                "coauthors-0-city": "Брест",
                "coauthors-1-name": "Анна",
                "coauthors-1-city": "Брест",
            },
        ),
    )
    assert resp.status_code == 422
    page = resp.get_data(as_text=True)
    assert message in page
    assert 'name="coauthors-1-name" type="text" value="Анна"' in page  # the text is kept
    resp = api(
        "post",
        "/api/v1/submissions",
        json={  # Belarusian: the remembered choice
            "question": FORM["question"],
            "answer": "Петроград",
            "email": "same@example.org",
            "consent": True,
            "authors": [
                {"name": "Иван", "city": "Минск"},
                {"name": "Пётр", "email": "SAME@example.org"},
            ],
        },
    )
    assert resp.status_code == 422
    assert resp.get_json()["errors"] == {"authors.1.name": [message]}
    assert (count(), count(Author)) == (0, 0)


def test_no_orphan_image_when_the_write_fails(app, tmp_path):
    """The image is written before the database write; when that write fails (here a
    trigger refuses every question, as a full disk would) the image is removed again, and
    nothing is stored."""
    from sqlalchemy import text

    from webapp.submissions.operations import AuthorInput, SubmissionInput, receive

    db.session.execute(
        text(
            "CREATE TRIGGER refuse BEFORE INSERT ON question "
            "BEGIN SELECT RAISE(ABORT, 'disk full'); END"
        )
    )
    db.session.commit()
    uploads = tmp_path / "instance" / "uploads"
    data = SubmissionInput(
        question=FORM["question"],
        answer="Минск",
        email="a@example.com",
        authors=[AuthorInput("Пётр Иванов", "Минск")],
        consent=True,
        age_confirmed=True,
        handout_image=png_with_gps(),
    )
    with pytest.raises(Exception, match="disk full"):
        receive(data, uploads=uploads)
    db.session.rollback()
    assert list(uploads.iterdir()) == [] and count() == 0


def test_uploads_orphans_lists_and_removes_only_old_unreferenced_files(client, app, tmp_path):
    import os
    import time

    from webapp.submissions.cli import uploads

    resp = client.post(
        "/submit",
        data=dict(FORM, handout_image=(io.BytesIO(png_with_gps()), "map.png")),
        content_type="multipart/form-data",
    )
    assert resp.status_code == 302
    folder = tmp_path / "instance" / "uploads"
    kept = folder / only_question().handout_image
    (folder / "letters").mkdir()
    old_orphan, young_orphan = folder / "letters" / "lost.jpg", folder / "fresh.png"
    for path in (old_orphan, young_orphan):
        path.write_bytes(b"x")
    two_hours_ago = time.time() - 7200
    for path in (kept, old_orphan):
        os.utime(path, (two_hours_ago, two_hours_ago))
    runner = app.test_cli_runner()
    listed = runner.invoke(uploads, ["orphans"])
    assert listed.exit_code == 0 and listed.stdout == "letters/lost.jpg\n"
    assert old_orphan.exists()
    removed = runner.invoke(uploads, ["orphans", "--delete"])
    assert removed.stdout == "letters/lost.jpg\n" and "1 orphan file(s) removed" in removed.output
    assert not old_orphan.exists() and kept.exists() and young_orphan.exists()
    assert runner.invoke(uploads, ["orphans", "--older-than-hours", "0"]).stdout == "fresh.png\n"


def test_limits_count_new_questions_and_one_mailbox_however_spelt(make_app):
    """The repeats of a double click do not count toward the limit; the per-address
    limit (10/hour) keys on the normalised address, so three spellings of one mailbox are
    one bucket; the JSON API has the same limits (5/minute per address of the client)."""
    app = make_app(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=True)
    client = app.test_client()
    with app.app_context():
        clicks = [
            client.post("/submit", data=dict(FORM, idempotency_key="double-click-1")).status_code
            for _ in range(6)
        ]
        assert clicks == [302] * 6 and count() == 1
        answers = [
            client.post("/submit", data=dict(FORM, question=FORM["question"] + f" №{i}"))
            for i in range(5)
        ]
        new = [r.status_code for r in answers]
        assert new == [302] * 4 + [429]  # the double click counted once
        # The 429 says when the 5/minute window lets the viewer in again (no
        # X-RateLimit-* headers on the other answers, a Redis round trip per limit).
        assert 1 <= int(answers[-1].headers["Retry-After"]) <= 61
        assert not [h for h in answers[0].headers.keys() if h.lower().startswith("x-ratelimit")]

        spellings = ["rl@почта.рф", "RL@ПОЧТА.РФ", "rl@xn--80a1acny.xn--p1ai"]
        codes = [
            client.post(
                "/submit",
                environ_base={"REMOTE_ADDR": f"10.1.0.{i}"},
                data=dict(FORM, email=spellings[i % 3], question=FORM["question"] + f" ({i})"),
            ).status_code
            for i in range(11)
        ]
        assert codes == [302] * 10 + [429]

        body = {
            "question": FORM["question"],
            "answer": "Минск",
            "email": "api@example.org",
            "consent": True,
            "authors": [{"name": "Иван"}],
        }
        api = [
            client.post(
                "/api/v1/submissions",
                environ_base={"REMOTE_ADDR": "10.2.0.1"},
                json=dict(body, question=f"{body['question']} api {i}"),
            )
            for i in range(6)
        ]
        assert [r.status_code for r in api] == [201] * 5 + [429]
        assert api[-1].get_json()["error"] == {
            "code": 429,
            "message": "Слишком много запросов: повторите позже.",
        }
        assert 1 <= int(api[-1].headers["Retry-After"]) <= 61


@pytest.mark.parametrize("path", ["/api/v1/submissions", "/api/v1/games"])
def test_deeply_nested_or_broken_json_is_a_422_never_a_500(client, path):
    """5 000 nested arrays were a RecursionError in the API's body check and a 500 on
    every POST; 33 levels are already refused, 32 get past the check (to the schema). (The
    SMS callback checks its body the same way, once it is signed: tests/webapp/votes.)"""
    message = "Слишком глубокая вложенность JSON: больше 32 уровней."
    for depth in (5000, 1500, 33):
        resp = client.post(path, data="[" * depth + "]" * depth, content_type="application/json")
        assert resp.status_code == 422, (depth, resp.get_data(as_text=True))
        assert resp.get_json() == {"errors": {"_schema": [message]}}
    for broken in ('{"question": "обрыв', b'{"q": "\xff"}'):  # truncated; not UTF-8
        resp = client.post(path, data=broken, content_type="application/json")
        assert resp.status_code == 422, broken  # invalid input, not Werkzeug's bare 400
        assert resp.get_json() == {"errors": {"_schema": ["Тело запроса — не JSON в UTF-8."]}}
    resp = client.post(path, data="[" * 32 + "]" * 32, content_type="application/json")
    assert resp.get_json() != {"errors": {"_schema": [message]}}
    assert resp.status_code != 500


def test_bad_unicode_and_nul_are_4xx_never_500(client, api):
    """A lone surrogate escape in the API's JSON (\\ud800) and a NUL in a status link
    reached the database driver (a 500 on PostgreSQL): now a 422 naming the field, a 404."""
    resp = api(
        "post",
        "/api/v1/submissions",
        json={
            "question": "\ud800 Вопрос о северной столице России, достаточно длинный.",
            "answer": "a",
            "email": "sur@example.com",
            "consent": True,
            "authors": [{"name": "\udfff"}],
        },
    )
    assert resp.status_code == 422
    message = "Недопустимый символ: одиночный суррогат UTF-16 (\\ud800–\\udfff)."
    assert resp.get_json() == {"errors": {"question": [message], "authors.0.name": [message]}}
    for consent in ("yes", 1, "on", "true"):
        resp = api(
            "post",
            "/api/v1/submissions",
            json={
                "question": "Вопрос о северной столице России, достаточно длинный.",
                "answer": "a",
                "email": "c@example.com",
                "consent": consent,
                "authors": [{"name": "Иван"}],
            },
        )
        assert resp.status_code == 422 and list(resp.get_json()["errors"]) == ["consent"]
    for path in ("/status/%00", "/status/a%00b", "/api/v1/submissions/%00"):
        assert client.get(path).status_code == 404, path
    assert count() == 0


def test_latest_language_skips_questions_without_one(make_app):
    """What Sova writes to an author in when nothing else says (the "my questions" link,
    the payee's e-mails): the language of the latest question that has one."""
    from webapp.submissions.queries import latest_language

    app = make_app(WTF_CSRF_ENABLED=False)
    client = app.test_client()
    assert client.post("/submit?lang=be", data=FORM).status_code == 302
    second = dict(FORM, question=FORM["question"] + " Два.")
    assert client.post("/submit?lang=en", data=second).status_code == 302
    with app.app_context():
        first, latest = db.session.scalars(db.select(Question).order_by(Question.id)).all()
        author_id = first.authors[0].author_id
        assert latest.authors[0].author_id == author_id  # one author by e-mail
        assert latest_language(author_id) == "en"
        latest.language = None  # e.g. typed in by an editor from a letter
        db.session.commit()
        assert latest_language(author_id) == "be"
        first.language = None
        db.session.commit()
        assert latest_language(author_id) is None


def test_the_status_page_names_its_time_zone(make_app):
    """The history's times are Sova's zone's (``SOVA_TIMEZONE``); the page says which, by
    its city in the page's language."""
    app = make_app(WTF_CSRF_ENABLED=False)  # no app context held: each page its language
    client = app.test_client()
    location = client.post("/submit", data=FORM).headers["Location"]
    assert app.config["SOVA_TIMEZONE"] == "Europe/Minsk"
    assert "Часовой пояс: Минск." in client.get(location).get_data(as_text=True)
    assert "Гадзінны пояс: Мінск." in client.get(location + "&lang=be").get_data(as_text=True)
    app.config["SOVA_TIMEZONE"] = "Europe/Moscow"
    assert "Time zone: Moscow." in client.get(location + "&lang=en").get_data(as_text=True)
