"""Payee details: validated, encrypted at rest, one-time links, accountants only, audited,
absent from logs and from other roles' pages, deleted after payment; key rotation."""

from __future__ import annotations

import logging
from datetime import date, timedelta

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import text

from tests.helpers import BY_FORM, VIEWERS_WIN, scan_pdf
from webapp.core.models import Document
from webapp.extensions import db
from webapp.prizes import payee
from webapp.prizes.models import DetailsLink, PayeeDetails, PersonalDataAccess, Prize
from webapp.prizes.operations import mark_paid, mark_signed
from webapp.tasks.outbox import commit

SECRETS = [
    "Сапего Иван Петрович",
    "7654321",
    "3010190A001PB9",
    "Тайная",
    "BY13NBRB3600900000002Z00AB00",
    "Первомайский",
]


def payee_input(**over) -> payee.PayeeInput:
    return payee.PayeeInput(**{**BY_FORM, **over})


def test_validation_by_and_ru():
    clean = payee.validate(payee_input())
    assert (clean["passport_series"], clean["personal_number"], clean["iban"]) == (
        "MP",
        "3010190A001PB9",
        "BY13NBRB3600900000002Z00AB00",
    )
    with pytest.raises(payee.PayeeError) as exc:
        payee.validate(
            payee_input(
                personal_number="3010190A001PB5",
                iban="BY14NBRB3600900000002Z00AB00",
                passport_series="12",
                passport_number="12",
                tax_status="x",
                address="",
            )
        )
    assert sorted(exc.value.errors) == [
        "address",
        "iban",
        "passport_number",
        "passport_series",
        "personal_number",
        "tax_status",
    ]
    assert exc.value.errors["iban"] == ["Неверный IBAN (проверьте контрольные цифры)."]
    with pytest.raises(payee.PayeeError) as exc:
        payee.validate(payee_input(iban="DE89370400440532013000"))
    assert exc.value.errors == {"iban": ["Счёт в банке Беларуси: IBAN начинается с BY."]}
    ru = payee.validate(
        payee_input(
            country="RU",
            passport_series="4510",
            passport_number="123456",
            account="40702810938000000001",
            bik="044525225",
            iban="",
            personal_number="",
        )
    )
    assert (ru["account"], ru["bik"], ru["iban"]) == ("40702810938000000001", "044525225", "")
    with pytest.raises(payee.PayeeError) as exc:
        payee.validate(
            payee_input(
                country="RU",
                passport_series="MP",
                passport_number="7654321",
                account="40702810938000000002",
                bik="044525225",
                inn="7707083894",
            )
        )
    assert sorted(exc.value.errors) == ["account", "inn", "passport_number", "passport_series"]
    assert payee.by_personal_number_valid("0000000A000PB2")
    assert not payee.by_personal_number_valid("0000000A000PB3")


@pytest.fixture
def owed(app, api, played, drain):
    """A closed 2023 game; returns the first prize (an author's 150,00 share)."""
    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    drain()
    return db.session.scalar(db.select(Prize).order_by(Prize.id))


def test_one_time_link_encrypted_storage_audit_and_retention(
    app, client, owed, login, staff, drain, caplog
):
    caplog.set_level(logging.DEBUG)
    accountant = login("accountant")
    r = accountant.post(f"/prizes/{owed.id}/request-details", data={})
    assert r.status_code == 200
    db.session.expire_all()
    assert db.session.get(Prize, owed.id).status == "details_requested"
    # The author has an e-mail: the link goes by mail (the task makes the token).
    assert "Ссылка на форму отправлена" in r.text
    assert drain() == ["prizes.send_details_link"]
    token = payee.new_link(db.session.get(Prize, owed.id))  # as the task does
    commit()
    client.get("/logout")
    form = client.get(f"/prizes/details/{token}")
    assert form.status_code == 200 and form.headers["Cache-Control"] == "no-store"
    bad = client.post(f"/prizes/details/{token}", data={**BY_FORM, "iban": "BY00"})
    assert bad.status_code == 422 and "Неверный IBAN" in bad.text
    ok = client.post(f"/prizes/details/{token}", data=BY_FORM)
    assert ok.status_code == 200 and "реквизиты получены" in ok.text
    assert client.post(f"/prizes/details/{token}", data=BY_FORM).status_code == 410
    assert client.get(f"/prizes/details/{token}").status_code == 410
    assert client.get("/prizes/details/forged-token").status_code == 410
    db.session.expire_all()
    prize = db.session.get(Prize, owed.id)
    assert prize.status == "details_received"
    # The agreement is re-issued with the address: same number, version 2.
    assert drain() == ["prizes.issue_agreement"]
    db.session.expire_all()
    prize = db.session.get(Prize, owed.id)
    doc = db.session.get(Document, prize.agreement.document_id)
    assert (doc.version, prize.agreement.number, prize.status) == (
        2,
        "2023-0001",
        "agreement_issued",
    )
    # Raw rows: no clear text anywhere in the table.
    rows = db.session.execute(text("SELECT * FROM payee_details")).all()
    assert len(rows) == 1
    raw = " ".join(str(v) for v in rows[0])
    for secret in SECRETS:
        assert secret not in raw
    links = db.session.execute(text("SELECT token_hash FROM details_link")).scalars().all()
    assert token not in links
    # Searchable by the keyed hash.
    assert payee.find_by_personal_number("BY", "3010190a001pb9") == [owed.id]
    # Accountants see it, audited.
    accountant = login("accountant")
    page = accountant.get(f"/prizes/{owed.id}/payee")
    assert page.status_code == 200 and "BY13NBRB3600900000002Z00AB00" in page.text
    assert "<tr><th>Страна</th><td>Беларусь</td></tr>" in page.text  # not the code «BY»
    audit = db.session.scalars(db.select(PersonalDataAccess)).all()
    assert [(a.user_id, a.prize_id, a.action) for a in audit] == [
        (staff("accountant")[0], owed.id, "view")
    ]
    # Never in the logs.
    for secret in SECRETS:
        assert secret not in caplog.text
    # Paid long ago → the retention job deletes the details, the agreement stays.
    from workers.prizes import purge_payee_details

    mark_signed(prize, scan_pdf(), "scan.pdf", None)
    mark_paid(prize, date.today() - timedelta(days=91), "77", None)
    commit()
    assert purge_payee_details() == 1
    assert db.session.scalar(db.select(db.func.count()).select_from(PayeeDetails)) == 0
    assert db.session.get(Prize, owed.id).agreement.number == "2023-0001"
    assert db.session.scalars(db.select(PersonalDataAccess.action)).all() == ["view", "delete"]
    assert "не получены или удалены" in accountant.get(f"/prizes/{owed.id}/payee").text


def test_payee_absent_from_other_roles_pages(app, client, owed, login, api):
    token = payee.request_details(owed, None)
    commit()
    assert client.post(f"/prizes/details/{token}", data=BY_FORM).status_code == 200
    for role in ("producer", "host", "editor", "chief_editor", "viewer"):
        c = login(role) if role != "viewer" else client
        for url in (
            "/prizes/",
            f"/prizes/{owed.id}",
            "/prizes/dashboard",
            f"/prizes/{owed.id}/payee",
            f"/prizes/games/{owed.game_id}/award",
        ):
            body = c.get(url).get_data(as_text=True)
            for secret in SECRETS:
                assert secret not in body, (role, url)
        assert c.get(f"/prizes/{owed.id}/payee").status_code in (302, 403)
        # The agreement (with the address) is an accountant's document.
        doc_id = db.session.get(Prize, owed.id).agreement.document_id
        assert c.get(f"/prizes/documents/{doc_id}").status_code in (302, 403)
        if role != "viewer":
            assert api("get", f"/api/v1/documents/{doc_id}", role=role).status_code == 403
        for path in ("/api/v1/prizes",):
            body = api("get", path, role=role).get_data(as_text=True) if role != "viewer" else ""
            for secret in SECRETS:
                assert secret not in body
        client.get("/logout")


def test_expired_link_and_single_winner(app, client, owed):
    token = payee.request_details(owed, None)
    commit()
    link = db.session.scalar(db.select(DetailsLink))
    link.expires_at = link.created_at - timedelta(seconds=1)
    commit()
    assert client.get(f"/prizes/details/{token}").status_code == 410
    token2 = payee.new_link(owed)
    commit()
    assert payee.open_link(token2) is not None
    payee.submit_details(token2, payee_input())
    commit()
    with pytest.raises(Exception, match="уже использована"):
        payee.submit_details(token2, payee_input())


def test_keys_rotate(make_app, tmp_path):
    from webapp.prizes.cli import keys

    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    app = make_app(SOVA_ENCRYPTION_KEYS=old)
    with app.app_context():
        from webapp.core.crypto import encrypt

        db.session.execute(
            text(
                "INSERT INTO author (name, city, email_hash, email_encrypted, "
                "created_at) VALUES ('A', 'B', 'h', :t, '2024-01-01')"
            ),
            {"t": encrypt("a@example.com")},
        )
        db.session.commit()
    app2 = make_app(SOVA_ENCRYPTION_KEYS=f"{new},{old}")
    result = app2.test_cli_runner().invoke(keys, ["rotate"])
    assert result.exit_code == 0, result.output
    assert "author.email_encrypted: 1 re-encrypted" in result.output
    with app2.app_context():
        token = db.session.execute(text("SELECT email_encrypted FROM author")).scalar()
        assert Fernet(new).decrypt(token.encode()) == b"a@example.com"
    again = app2.test_cli_runner().invoke(keys, ["rotate"])
    assert "author.email_encrypted: 0 re-encrypted" in again.output
    app3 = make_app(SOVA_ENCRYPTION_KEYS=Fernet.generate_key().decode())
    bad = app3.test_cli_runner().invoke(keys, ["rotate"])
    assert bad.exit_code == 2


def test_reminders_by_beat_send_a_fresh_link_by_mail(app, owed, drain, caplog):
    from webapp.core.models import OutboxMessage
    from workers.prizes import remind_details

    caplog.set_level(logging.INFO, logger="sova.notify")
    payee.request_details(owed, None)
    commit()
    assert remind_details() == 0  # the link is fresh
    link = db.session.scalar(db.select(DetailsLink))
    link.created_at = link.created_at - timedelta(days=4)
    commit()
    assert remind_details() == 1
    assert db.session.scalars(
        db.select(OutboxMessage.task).where(OutboxMessage.sent_at.is_(None))
    ).all() == ["prizes.send_details_link"]
    assert drain() == ["prizes.send_details_link"]
    assert "Реквизиты для выплаты приза" in caplog.text and "/prizes/details/" in caplog.text
    assert "Ссылка действует 7 дней и один раз." in caplog.text  # 168 h: one plural helper
    links = db.session.scalars(db.select(DetailsLink).order_by(DetailsLink.id)).all()
    assert len(links) == 2 and links[0].expires_at <= links[1].created_at
    assert remind_details() == 0


def test_details_link_mailed_once_per_request(app, owed, login, drain):
    """``prizes.send_details_link`` is keyed by its outbox message: delivered twice (a
    redelivery, or the sweeper's resend as attempt 1) it mails once and makes no second
    link; another request (a new outbox message) mails a fresh link."""
    from tests.helpers import drain_outbox
    from webapp.core.mail import MailLog

    login("accountant").post(f"/prizes/{owed.id}/request-details", data={})
    drain_outbox(app, skip=("prizes.send_details_link",))
    task = app.extensions["celery"].tasks["prizes.send_details_link"]
    results = [
        task.apply(args=[owed.id], task_id=tid, throw=True).get()
        for tid in ("outbox-91-0", "outbox-91-0", "outbox-91-1", "outbox-92-0")
    ]
    assert results == [True, False, False, True]
    db.session.expire_all()
    assert (
        db.session.scalar(
            db.select(db.func.count())
            .select_from(DetailsLink)
            .where(DetailsLink.prize_id == owed.id)
        )
        == 3
    )  # the request's own + one per mailed request
    assert [
        (m.key, m.status) for m in db.session.scalars(db.select(MailLog).order_by(MailLog.key))
    ] == [
        (f"details_link:{owed.id}:outbox:91", "sent"),
        (f"details_link:{owed.id}:outbox:92", "sent"),
    ]


def test_control_characters_refused_bidi_removed():
    """Control characters are refused as on the question form; bidi marks removed."""
    with pytest.raises(payee.PayeeError) as exc:
        payee.validate(payee_input(full_name="Жанна\x07 Жукова\u202e", address="г. Минск\x00"))
    assert exc.value.errors == {
        "full_name": ["Поле «Фамилия, имя, отчество» содержит недопустимые управляющие символы."],
        "address": ["Поле «Адрес регистрации» содержит недопустимые управляющие символы."],
    }
    assert (
        payee.validate(payee_input(full_name="Жанна Жукова\u202e"))["full_name"] == "Жанна Жукова"
    )


def test_details_page_in_the_viewers_language(app, client, owed):
    """With the «be» cookie the details page, its labels and every error are
    Belarusian and name the field (no English WTForms text)."""
    from flask_babel import refresh

    token = payee.request_details(owed, None)
    commit()
    client.set_cookie("sova_lang", "be")

    def post(**over) -> str:
        refresh()  # the test's app context is shared: drop the locale cached on ``g``
        resp = client.post(f"/prizes/details/{token}", data={**BY_FORM, **over})
        assert resp.status_code == 422
        return resp.get_data(as_text=True)

    refresh()
    page = client.get(f"/prizes/details/{token}").get_data(as_text=True)
    for label in (
        "Рэквізіты для выплаты прыза",
        "Прозвішча, імя, імя па бацьку",
        "Падатковы рэзідэнт краіны выплаты",
        "Адправіць",
    ):
        assert label in page, label
    page = post(issued_by="x" * 800)
    assert "«Кім выдадзены»: не даўжэй за 300 сімвалаў." in page
    assert "Field cannot be longer" not in page
    page = post(country="XX", tax_status="x")
    assert "Выберыце краіну: Беларусь або Расія." in page
    assert "Выберыце падатковы статус." in page and "Not a valid choice" not in page
    page = post(full_name="Жанна\x07 Жукова")
    assert "Недапушчальны сімвал U+0007: выдаліце яго." in page
    assert db.session.scalar(db.select(db.func.count()).select_from(PayeeDetails)) == 0


def test_keys_rehash_after_a_new_secret_key(app, owed, client):
    """After SOVA_SECRET_KEY changes, `sova keys rehash` recomputes the look-up hashes from
    the encrypted values: the returning viewer is the same author again and the payee is
    found by personal number; a second run changes nothing; an unreadable token stops it
    with exit 2 and nothing written."""
    from webapp.core.crypto import decrypt, lookup_hash
    from webapp.prizes.cli import keys
    from webapp.submissions.models import Author
    from webapp.submissions.operations import author_by_email

    token = payee.request_details(owed, None)
    commit()
    assert client.post(f"/prizes/details/{token}", data=BY_FORM).status_code == 200
    authors = db.session.scalar(text("SELECT count(*) FROM author WHERE email_hash IS NOT NULL"))
    address = next(
        a for a in db.session.scalars(db.select(Author)) if a.email_encrypted is not None
    )
    email = decrypt(address.email_encrypted)
    app.config["SECRET_KEY"] = "a-new-secret-key-for-this-test-0123456789"
    db.session.expire_all()
    assert author_by_email(email) is None  # the old hashes no longer match
    result = app.test_cli_runner().invoke(keys, ["rehash"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"author.email_hash: {authors} rehashed",
        "payee_details.personal_number_hash/account_hash: 1 rehashed",
    ]
    db.session.expire_all()
    assert author_by_email(email).id == address.id
    details = db.session.scalar(db.select(PayeeDetails))
    assert details.personal_number_hash == lookup_hash("person:BY:3010190A001PB9")
    again = app.test_cli_runner().invoke(keys, ["rehash"])
    assert again.output.splitlines() == [
        "author.email_hash: 0 rehashed",
        "payee_details.personal_number_hash/account_hash: 0 rehashed",
    ]
    kept = db.session.scalar(db.select(Author.email_hash).where(Author.id == address.id))
    app.config["SECRET_KEY"] = "yet-another-secret-key-for-this-test-0123"
    app.config["SOVA_ENCRYPTION_KEYS"] = [Fernet.generate_key().decode()]
    bad = app.test_cli_runner().invoke(keys, ["rehash"])
    assert bad.exit_code == 2
    assert (
        "cannot be decrypted with any key of SOVA_ENCRYPTION_KEYS; nothing was changed"
        in bad.output
    )
    db.session.expire_all()
    assert db.session.scalar(db.select(Author.email_hash).where(Author.id == address.id)) == kept


def test_details_link_in_the_payee_language_and_the_form_switchable(
    app, client, owed, login, drain, caplog
):
    """An author who wrote in Belarusian got the details request in Russian
    and the form opened in Russian. The e-mail follows the question's stored language and
    its link (``?lang=be``) opens the form in Belarusian; the language links still switch."""
    import re

    from flask_babel import refresh

    caplog.set_level(logging.INFO, logger="sova.notify")
    owed.question.language = "be"
    commit()
    accountant = login("accountant")
    assert accountant.post(f"/prizes/{owed.id}/request-details", data={}).status_code == 200
    assert drain() == ["prizes.send_details_link"]
    assert "subject=Рэквізіты для выплаты прыза — «Што? Дзе? Калі?»" in caplog.text
    assert "Вам належыць грашовы прыз тэлевізійнай гульні «Што? Дзе? Калі?»." in caplog.text
    assert "Реквизиты" not in caplog.text
    found = re.search(r"http://[^/\s]+(/prizes/details/([^?\s]+)\?lang=be)\s", caplog.text)
    assert found, caplog.text
    url, token = found.groups()
    client.get("/logout")
    first = client.get(url)
    assert first.status_code == 302 and first.headers["Location"] == f"/prizes/details/{token}"
    refresh()  # the test's app context is shared: drop the locale cached on ``g``
    form = client.get(f"/prizes/details/{token}")
    assert form.status_code == 200
    assert '<html lang="be">' in form.text and "<h1>Рэквізіты для выплаты прыза</h1>" in form.text
    refresh()
    switched = client.get(f"/lang/ru?next=/prizes/details/{token}", follow_redirects=True)
    assert "<h1>Реквизиты для выплаты приза</h1>" in switched.text


def test_accountant_is_warned_when_the_declared_name_is_not_the_authors(app, client, owed, login):
    """A payee declared «Сапего Иван Петрович» for the prize of «Автор 1»
    and the agreement named him with no warning. The accountant now sees the mismatch (the
    declared name is personal data: the producer's page shows neither name nor warning);
    a declared name that can be the author's (another word order, a patronymic) is quiet."""
    token = payee.request_details(owed, None)
    commit()
    assert client.post(f"/prizes/details/{token}", data=BY_FORM).status_code == 200
    warning = (
        "ФИО в реквизитах получателя «Сапего Иван Петрович» не совпадает с автором вопроса "
        "«Автор 1»"
    )
    page = login("accountant").get(f"/prizes/{owed.id}").get_data(as_text=True)
    assert warning in page
    client.get("/logout")
    page = login("producer").get(f"/prizes/{owed.id}").get_data(as_text=True)
    assert "не совпадает с автором" not in page and "Сапего" not in page
    client.get("/logout")
    token = payee.new_link(db.session.get(Prize, owed.id))
    commit()
    page = client.get(f"/prizes/details/{token}")
    assert page.status_code == 200
    assert (
        client.post(
            f"/prizes/details/{token}", data={**BY_FORM, "full_name": "1 Автор Петрович"}
        ).status_code
        == 200
    )
    page = login("accountant").get(f"/prizes/{owed.id}").get_data(as_text=True)
    assert "не совпадает с автором" not in page
    # the author's words and two more names, or a spreadsheet formula: warned
    from markupsafe import escape

    for declared in ("Автор 1 Анна Победитель", '=HYPERLINK("http://x.example";"Автор 1")'):
        client.get("/logout")
        token = payee.new_link(db.session.get(Prize, owed.id))
        commit()
        form = {**BY_FORM, "full_name": declared}
        assert client.post(f"/prizes/details/{token}", data=form).status_code == 200
        page = login("accountant").get(f"/prizes/{owed.id}").get_data(as_text=True)
        shown = escape(declared)  # as the page prints it
        assert f"ФИО в реквизитах получателя «{shown}» не совпадает" in page, declared


def test_details_form_opens_on_the_seasons_country(app, api, client, played, drain):
    """A 2009 (RUB) prize's form opens on «Россия»; a 2023 (BYN) prize's on «Беларусь»."""
    import re

    from tests.helpers import setup_prizes

    prizes = setup_prizes(api, played, drain)  # a 2023 (BYN) prize first, a 2009 (RUB) last
    chosen = {}
    for prize in (prizes[0], prizes[-1]):
        token = payee.new_link(prize)
        commit()
        page = client.get(f"/prizes/details/{token}").get_data(as_text=True)
        select = re.search(r'<select[^>]*name="country".*?</select>', page, re.S).group(0)
        chosen[prize.currency] = re.findall(r'<option selected value="(\w+)">', select) or (
            re.findall(r'<option[^>]*value="(\w+)"[^>]*selected', select)
        )
    assert chosen == {"BYN": ["BY"], "RUB": ["RU"]}


def _field_box(page: str, name: str) -> str:
    """The ``<div class="field …">`` of the payee form's field ``name`` (up to the next
    field's box), as the page renders it."""
    import re

    boxes = re.split(r'(?=<div class="field)', page)
    (box,) = [b for b in boxes if re.search(rf'\sname="{name}"', b)]
    return box


def test_details_form_says_every_bad_field_at_once_under_the_field(app, client, owed):
    """Belarus details with a control character in «Кем выдан», a date to come, an
    identification number with a bad check digit and a short IBAN: one submission of the
    rendered form answers all four, each under its own field (aria-invalid, described by
    its message) and in the summary naming the field; what was typed is kept."""
    from markupsafe import escape

    from tests.forms import get_page, page_forms, submit_form

    token = payee.request_details(owed, None)
    commit()
    url = f"/prizes/details/{token}"
    typed = {
        **BY_FORM,
        "issued_by": "РУВД\x07",
        "issued_on": "2099-01-01",
        "personal_number": "1234567A001PB1",
        "iban": "BY00XXXX",
    }
    resp = submit_form(client, get_page(client, url), "payee-form", url, **typed)
    assert resp.status_code == 422
    page = resp.get_data(as_text=True)
    expected = {
        "issued_by": ("Кем выдан", "Недопустимый символ U+0007: удалите его."),
        "issued_on": ("Дата выдачи паспорта", "Неверная дата выдачи паспорта."),
        "personal_number": (
            "Идентификационный номер (Беларусь)",
            "Идентификационный номер: 14 знаков (например, 3010190A001PB9) с верной "
            "контрольной цифрой.",
        ),
        "iban": ("Счёт IBAN (Беларусь, BY…)", "Неверный IBAN (проверьте контрольные цифры)."),
    }
    summary = page.split('id="error-summary"', 1)[1].split("</div>", 1)[0]
    assert summary.count("<li>") == 4
    for name, (label, message) in expected.items():
        box = _field_box(page, name)
        assert f'<p class="error" id="{name}-error">{escape(message)}</p>' in box, name
        assert 'aria-invalid="true"' in box and f'aria-describedby="{name}-error"' in box
        assert f'<a href="#{name}">{escape(label)}: {escape(message)}</a>' in summary, name
    for name in ("full_name", "passport_series", "passport_number", "address", "tax_status"):
        assert 'class="error"' not in _field_box(page, name), name
    # what was typed comes back, the rest of the form untouched
    (form,) = [f for f in page_forms(page) if f.attrs.get("id") == "payee-form"]
    assert {k: form.fields[k] for k in typed if k in form.fields} == {
        k: v for k, v in typed.items() if k in form.fields
    }
    assert db.session.scalar(db.select(db.func.count()).select_from(PayeeDetails)) == 0
