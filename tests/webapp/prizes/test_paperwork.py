"""Paperwork beyond the gift agreement, rendered for real and read back with pypdf line by
line: the prize commission minutes with their gapless per-season number
(000_90d7c8192601ed3a.txt §4.11.2–§4.11.5), the migration that numbers minutes issued
before it, and the payment register as a PDF (totals per currency). The checks that run again
on PostgreSQL (test_paperwork_postgres.py) are tests/webapp/prizes/paperwork.py's."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from tests.helpers import EXPERTS_WIN, VIEWERS_WIN, give_details, scan_pdf, setup_prizes
from tests.webapp.prizes.paperwork import (
    TEAM,
    doc_bytes,
    migration_numbers_minutes_issued_before_it,
    minutes_numbered_per_season_without_gaps_and_kept,
    minutes_numbers,
    pdf_lines,
    register_pdf_rows_and_totals_per_currency,
    ru_date,
)
from webapp.core.models import Document, OutboxMessage
from webapp.extensions import db
from webapp.games.models import Game
from webapp.prizes import payee
from webapp.prizes.models import (
    CommissionMinutes,
    GiftAgreement,
    Prize,
    PrizeStatusChange,
)
from webapp.prizes.operations import mark_paid, mark_signed
from webapp.tasks.outbox import commit
from workers.prizes import issue_agreement


def test_minutes_numbered_per_season_without_gaps_and_kept(app, api, played, drain, login):
    minutes_numbered_per_season_without_gaps_and_kept(app, api, played, drain, login)


def test_migration_numbers_minutes_issued_before_it(app, api, played, drain):
    migration_numbers_minutes_issued_before_it(app, api, played, drain)


def test_register_pdf_rows_and_totals_per_currency(app, api, played, drain, login):
    register_pdf_rows_and_totals_per_currency(app, api, played, drain, login)


def test_the_register_says_the_day_it_was_made_in_sovas_zone(app, login, drain):
    """A register requested at 01:30 in Minsk (22:30 UTC the day before) was made that
    Minsk day."""
    from webapp.prizes.register import register_pdf_context

    client = login("accountant")
    client.post("/prizes/register/pdf", data={"start": "2020-01-01", "end": "2020-01-31"})
    doc = db.session.scalar(db.select(Document).where(Document.kind == "payment_register"))
    doc.created_at = datetime(2024, 2, 29, 22, 30, tzinfo=UTC)
    assert app.config["SOVA_TIMEZONE"] == "Europe/Minsk"
    assert register_pdf_context(doc)["generated"] == "2024-03-01"


def test_register_pdf_of_an_empty_period(app, login, drain):
    client = login("accountant")
    client.post("/prizes/register/pdf", data={"start": "2020-01-01", "end": "2020-01-31"})
    drain()
    doc = db.session.scalar(db.select(Document).where(Document.kind == "payment_register"))
    made = ru_date(doc.created_at.astimezone(ZoneInfo(app.config["SOVA_TIMEZONE"])).date())
    assert pdf_lines(doc_bytes(app, doc.id)) == [
        "Реестр выплат призов за период с 1 января 2020 г. по 31 января 2020 г.",
        f"Сформирован {made} Призы, оплаченные за период, и подписанные, ожидающие оплаты.",
        "За период нет выплат и подписанных договоров, ожидающих оплаты.",
        f"Реестр выплат, версия 1 Сформирован {made} Стр. 1 из 1",
    ]


def counts() -> dict[str, int]:
    return {
        m.__name__: db.session.scalar(db.select(db.func.count()).select_from(m))
        for m in (
            Prize,
            GiftAgreement,
            Document,
            PrizeStatusChange,
            OutboxMessage,
            CommissionMinutes,
        )
    }


def test_closing_and_issuing_twice_creates_nothing_twice(app, api, played, drain):
    game = played("series_final", VIEWERS_WIN)
    first = api("post", f"/api/v1/games/{game}/close", role="producer")
    drain()
    made = counts()
    # 6 unanswered questions, question 1 with two co-authors: 7 prizes, 7 agreements, 7
    # PDFs; each prize: owed, then agreement issued.
    assert {k: made[k] for k in ("Prize", "GiftAgreement", "Document", "PrizeStatusChange")} == {
        "Prize": 7,
        "GiftAgreement": 7,
        "Document": 7,
        "PrizeStatusChange": 14,
    }
    again = api("post", f"/api/v1/games/{game}/close", role="producer")
    assert (again.status_code, again.json) == (200, first.json)
    for prize in db.session.scalars(db.select(Prize)):
        issue_agreement(prize.id)
    assert drain() == []
    assert counts() == made
    numbers = db.session.scalars(db.select(GiftAgreement.number).order_by(GiftAgreement.seq))
    assert list(numbers) == [f"2023-{n:04d}" for n in range(1, 8)]


def test_the_agreement_bears_the_day_of_the_close_in_the_seasons_zone(app, api, played, drain):
    """A game closed at 01:30 in Minsk (22:30 UTC the day before): its agreements bear the
    Minsk day, as the producer who closed it and the author who signs read their calendar."""
    from webapp.prizes.queries import agreement_context

    game_id = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game_id}/close", role="producer")
    game = db.session.get(Game, game_id)
    game.closed_at = datetime(2023, 12, 30, 22, 30, tzinfo=UTC)
    commit()
    drain()
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    assert agreement_context(prize)["date"] == "2023-12-31"
    doc = db.session.scalar(
        db.select(Document).where(Document.prize_id == prize.id, Document.kind == "gift_agreement")
    )
    assert pdf_lines(doc_bytes(app, doc.id))[1] == "г. Минск 31 декабря 2023 г."


def test_agreement_exact_text_then_a_version_with_the_payee_address(app, api, played, drain):
    from tests.helpers import BY_FORM as FORM

    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    drain()
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    token = payee.request_details(prize, None)
    commit()
    with app.test_request_context():  # the details form's messages are translated
        payee.submit_details(token, payee.PayeeInput(**FORM))
    commit()
    assert drain() == ["prizes.issue_agreement"]  # the details re-issue the agreement
    db.session.expire_all()
    prize = db.session.get(Prize, prize.id)
    v1, v2 = db.session.scalars(
        db.select(Document)
        .where(Document.prize_id == prize.id, Document.kind == "gift_agreement")
        .order_by(Document.version)
    ).all()
    # the agreement's date: the day the game was closed, in the season's zone
    closed = ru_date(prize.game.closed_at.astimezone(ZoneInfo("Europe/Minsk")).date())
    # Version 1 (before the details): the author as the question gave them (neutral
    # wording: no gender known), the season's donor (the 2023 default: the
    # SOVA_BROADCASTER_* settings) with no «в лице» (none is set), the question named by its
    # sector, game, season and air date; the payee's lines left blank (no data yet).
    assert pdf_lines(doc_bytes(app, v1.id)) == [
        "ДОГОВОР ДАРЕНИЯ № 2023-0001",
        f"г. Минск {closed}",
        "ЗАО «Второй национальный телеканал» (далее — «Даритель»), с одной стороны, и Автор",
        "1 (Минск; далее — «Одаряемый»), с другой стороны, вместе именуемые «Стороны»,",
        "заключили настоящий договор о нижеследующем.",
        "1. Предмет договора",
        "1.1. Даритель безвозмездно передаёт Одаряемому денежный приз в размере 150,00",
        "(Сто пятьдесят) рублей 00 копеек за вопрос «Назовите город, где прошёл фестиваль",
        "номер 1: слово» (сектор 1, игра сезона «Сезон 2023», эфир 30 декабря 2023 г.), на",
        "который Команда знатоков не дала правильного ответа.",
        "1.2. Приз выплачивается на основании п. 4.11.1 Положения о телевизионном проекте",
        "(правила сезона 2023 года).",
        "2. Права и обязанности сторон",
        "2.1. Одаряемый принимает дар. Приз передаётся после подписания настоящего договора",
        "обеими Сторонами.",
        "2.2. Сумма приза: 150,00 BYN.",
        "3. Заключительные положения",
        "3.1. Договор составлен в двух экземплярах, имеющих одинаковую юридическую силу, по",
        "одному для каждой из Сторон, и вступает в силу с момента подписания.",
        "4. Реквизиты и подписи сторон",
        "Даритель Одаряемый",
        "ЗАО «Второй национальный телеканал»",
        "г. Минск",
        "Адрес: г. Минск",
        "Автор 1",
        "Город: Минск",
        "Паспорт:",
        "Адрес регистрации:",
        "Счёт:",
        # each signer named under their signature line
        "ЗАО «Второй национальный телеканал»",
        "подпись представителя Дарителя, М. П.",
        "Автор 1",
        "подпись Одаряемого",
        # the serial on one line, never «версия» and its number apart (the clause between)
        "Договор № 2023-0001, версия 1 п. 4.11.1 Положения",
        "о телевизионном проекте",  # a one-letter word stays with the next
        "(правила сезона 2023 года)",
        "Стр. 1 из 1",
    ]
    # Version 2 names the payee as they declared themselves with their details, every
    # line of the payee form printed (no line to fill by pen but the signatures), and
    # «именуемый» from the identification number.
    assert pdf_lines(doc_bytes(app, v2.id)) == [
        "ДОГОВОР ДАРЕНИЯ № 2023-0001",
        f"г. Минск {closed}",
        "ЗАО «Второй национальный телеканал» (далее — «Даритель»), с одной стороны, и",
        "Сапего Иван Петрович (Минск), именуемый в дальнейшем «Одаряемый», с другой",
        "стороны, вместе именуемые «Стороны», заключили настоящий договор о",
        "нижеследующем.",
        "1. Предмет договора",
        "1.1. Даритель безвозмездно передаёт Одаряемому денежный приз в размере 150,00",
        "(Сто пятьдесят) рублей 00 копеек за вопрос «Назовите город, где прошёл фестиваль",
        "номер 1: слово» (сектор 1, игра сезона «Сезон 2023», эфир 30 декабря 2023 г.), на",
        "который Команда знатоков не дала правильного ответа.",
        "1.2. Приз выплачивается на основании п. 4.11.1 Положения о телевизионном проекте",
        "(правила сезона 2023 года).",
        "2. Права и обязанности сторон",
        "2.1. Одаряемый принимает дар. Приз передаётся после подписания настоящего договора",
        "обеими Сторонами переводом на счёт Одаряемого, указанный в разделе 4.",
        "2.2. Сумма приза: 150,00 BYN.",
        "3. Заключительные положения",
        "3.1. Договор составлен в двух экземплярах, имеющих одинаковую юридическую силу, по",
        "одному для каждой из Сторон, и вступает в силу с момента подписания.",
        "4. Реквизиты и подписи сторон",
        "Даритель Одаряемый",
        "ЗАО «Второй национальный телеканал»",
        "г. Минск",
        "Адрес: г. Минск",
        "Сапего Иван Петрович",
        "Город: Минск",
        "Паспорт: серия MP № 7654321, выдан",
        "Первомайский РУВД г. Минска 1 июня",
        "2015 г.",
        "Идентификационный номер:",
        "3010190A001PB9",
        # «д. 17» on one line (a no-break space after «д.»)
        "Адрес регистрации: г. Брест, ул. Тайная,",
        "д. 17, кв. 42",
        "Счёт: IBAN BY13 NBRB 3600 9000 0000",
        "2Z00 AB00",
        "ЗАО «Второй национальный телеканал»",
        "подпись представителя Дарителя, М. П.",
        # the payee's name whole, on a line of its own under the signature line
        "Сапего Иван Петрович",
        "подпись Одаряемого",
        # the serial on one line, never «версия» and its number apart (the clause between)
        "Договор № 2023-0001, версия 2 п. 4.11.1 Положения",
        "о телевизионном проекте",
        "(правила сезона 2023 года)",
        "Стр. 1 из 1",
    ]


def test_agreement_quotes_a_packet_question_without_its_handout_markup(app, api, played, drain):
    """The Kubok packet's Prague question keeps a leading handout block with an image
    reference in its text; clause 1.1 quotes the question's words with «(раздаточный
    материал)» in place of the block and «(изображение)» in place of another reference."""
    from webapp.submissions.models import Question

    game = played("qualifying", VIEWERS_WIN)
    sector1 = next(e for e in db.session.get(Game, game).envelopes if e.sector == 1)
    q = db.session.get(Question, sector1.questions[0].question_id)  # the prize's question
    q.text = (
        "[Раздаточный материал:\n(img Kubok_knyagini_Olgi-2015_001.png)]\n"
        "Автор вопроса сравнил Прагу с глазом. Вот (img Kubok_knyagini_Olgi-2015_009.png) он."
    )
    q.handout = "(img Kubok_knyagini_Olgi-2015_001.png)"
    commit()
    api("post", f"/api/v1/games/{game}/close", role="producer")
    drain()
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    assert prize.question_id == q.id
    doc = db.session.scalar(
        db.select(Document).where(Document.prize_id == prize.id, Document.kind == "gift_agreement")
    )
    text = " ".join(pdf_lines(doc_bytes(app, doc.id)))
    assert (
        "за вопрос «(раздаточный материал) Автор вопроса сравнил Прагу с глазом. "
        "Вот (изображение) он.» (сектор 1, игра"
    ) in text
    assert f"№ {q.id}" not in text
    assert "Раздаточный материал" not in text
    assert "(img" not in text and "Kubok" not in text


def test_a_superseded_pending_agreement_leaves_the_owed_counts(app, api, played, drain, login):
    """An agreement replaced by a new version while its first version was still owed (never
    rendered): the first version is marked superseded, ``sova outbox status`` stops counting
    it as pending once the new version is rendered, and its page says it was replaced."""
    import json

    from bs4 import BeautifulSoup

    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    # the seven agreements are numbered and owed; nothing rendered them yet
    runner = app.test_cli_runner()

    def pending() -> int:
        out = runner.invoke(args=["outbox", "status"])
        assert out.exit_code == 0, out.output
        return json.loads(out.output)["documents_pending"]

    assert pending() == 7
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    v1 = prize.agreement.document_id
    client = login("producer")
    page = BeautifulSoup(client.get(f"/prizes/{prize.id}").text, "html.parser")
    form = page.find("form", action=f"/prizes/{prize.id}/reissue")
    fields = {i["name"]: i.get("value", "") for i in form.find_all("input") if i.get("name")}
    r = client.post(form["action"], data=fields, follow_redirects=True)
    assert "Новая версия договора поставлена в очередь." in r.text
    db.session.expire_all()
    assert db.session.get(Document, v1).status == "superseded"
    assert pending() == 7  # six first versions and the new second one
    drain()
    assert pending() == 0
    db.session.expire_all()
    assert db.session.get(Document, v1).status == "superseded"  # never rendered
    page = login("accountant").get(f"/prizes/{prize.id}").text
    assert "Договор дарения, версия 1 — заменён новой версией" in " ".join(page.split())


def test_migration_marks_the_superseded_pending_documents_already_there(app, api, played):
    """An instance upgraded with earlier versions still pending under a newer one (made
    before documents could be superseded): the migration marks exactly those superseded,
    and ``sova outbox status`` no longer counts them."""
    import json

    from flask_migrate import downgrade, upgrade

    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    first = prize.agreement.document_id
    db.session.remove()
    downgrade(revision="0019_question_live_game")  # just below 0020_heartbeat
    db.session.execute(  # what re-issuing did before: a second version, the first left pending
        db.insert(Document).values(
            key=f"gift_agreement:prize:{prize.id}:v2",
            kind="gift_agreement",
            game_id=game,
            prize_id=prize.id,
            version=2,
            status="pending",
        )
    )
    db.session.commit()
    upgrade(revision="heads")
    statuses = db.session.execute(
        db.select(Document.id, Document.version, Document.status)
        .where(Document.prize_id == prize.id, Document.kind == "gift_agreement")
        .order_by(Document.version)
    ).all()
    assert [(v, s) for _, v, s in statuses] == [(1, "superseded"), (2, "pending")]
    assert statuses[0][0] == first
    out = app.test_cli_runner().invoke(args=["outbox", "status"])
    assert json.loads(out.output)["documents_pending"] == 7  # six first versions, one second


def test_a_new_air_date_issues_the_unsigned_agreements_again(app, api, played, drain, login):
    """The agreements print the game's air date. The producer moves the air time to another
    day on the game page: every agreement not yet signed gets a new version with the new
    date; a signed one keeps the date it was signed with, and the page says so."""
    from tests.forms import page_forms

    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    drain()
    signed, *unsigned = db.session.scalars(db.select(Prize).order_by(Prize.id)).all()
    give_details(signed, drain)
    mark_signed(db.session.get(Prize, signed.id), scan_pdf(), "s.pdf", None)
    commit()
    client = login("producer")
    page = client.get(f"/games/{game}").get_data(as_text=True)
    form = next(f for f in page_forms(page) if f.action == f"/games/{game}/air-time")
    # the same day at another hour: the agreements' date stays, nothing is issued again
    r = client.post(form.action, data={**form.fields, "air_at": "2023-12-30T22:00"})
    assert r.status_code == 302 and drain() == []
    r = client.post(
        form.action, data={**form.fields, "air_at": "2024-01-06T21:00"}, follow_redirects=True
    )
    text = r.get_data(as_text=True)
    assert (
        f"Время эфира сохранено. Договоров дарения выписано заново с новой датой эфира: "
        f"{len(unsigned)}." in text
    )
    assert (
        "Подписанные договоры дарения (1) называют прежнюю дату эфира: подписанный договор "
        "не переписывается." in text
    )
    assert set(drain()) == {"prizes.issue_agreement"}
    db.session.expire_all()
    for prize in unsigned:
        doc = db.session.get(Prize, prize.id).agreement.document_id
        lines = " ".join(pdf_lines(doc_bytes(app, doc)))
        assert "эфир 6 января 2024 г.)" in lines and "30 декабря 2023" not in lines
    kept = db.session.get(Prize, signed.id).agreement.document_id
    assert "эфир 30 декабря 2023 г.)" in " ".join(pdf_lines(doc_bytes(app, kept)))


def test_every_paper_of_a_prize_names_the_declared_payee(app, api, played, drain, login):
    """The question credits «Автор 1»; the payee declares «Купалович Иван Доминикович». The
    agreement, the register's PDF, XLSX and CSV all name the declared payee, and the PDF
    still does after the details are deleted by the retention job."""
    import csv

    import openpyxl

    prizes = setup_prizes(api, played, drain)
    give_details(prizes[0], drain, full_name="Купалович Иван Доминикович")
    db.session.expire_all()
    prize = db.session.get(Prize, prizes[0].id)
    assert (prize.payee, prize.payee_name) == ("Автор 1", "Купалович Иван Доминикович")
    agreement = " ".join(pdf_lines(doc_bytes(app, prize.agreement.document_id)))
    assert "Купалович Иван Доминикович (" in agreement and "Автор 1" not in agreement
    mark_signed(prize, scan_pdf(), "s.pdf", None)
    mark_paid(prize, date(2024, 2, 1), "п/п 1", None)
    commit()
    client = login("accountant")
    period = "start=2024-02-01&end=2024-02-29"
    sheet = openpyxl.load_workbook(
        io.BytesIO(client.get(f"/prizes/register?{period}&format=xlsx").data)
    ).active
    assert [r[2] for r in sheet.iter_rows(min_row=3, max_row=3, values_only=True)] == [
        "Купалович Иван Доминикович"
    ]
    lines = list(
        csv.reader(
            io.StringIO(client.get(f"/prizes/register?{period}&format=csv").text.lstrip("\ufeff")),
            delimiter=";",
        )
    )
    assert lines[1][2] == "Купалович Иван Доминикович"

    def register_pdf_text() -> str:
        client.post("/prizes/register/pdf", data={"start": "2024-02-01", "end": "2024-02-29"})
        drain()
        doc = db.session.scalars(
            db.select(Document)
            .where(Document.kind == "payment_register")
            .order_by(Document.id.desc())
        ).first()
        return " ".join(pdf_lines(doc_bytes(app, doc.id)))

    text = register_pdf_text()
    assert "1 2023-0001 Купалович Иван Доминикович Приз автору" in text
    assert "Автор 1" not in text
    assert payee.purge_paid_details(date(2025, 1, 1)) == 1
    commit()
    text = register_pdf_text()
    assert "1 2023-0001 Купалович Иван Доминикович Приз автору" in text
    assert "Автор 1" not in text


def test_agreement_numbers_are_unique_across_seasons_of_one_year(app, api, played, drain):
    """«Сезон 2023» and «Сезон 2023 №2» share the series 2023: the second season's
    agreements go on from the first's, never 2023-0001 again; the database refuses a
    number twice whatever the season."""
    import pytest
    from sqlalchemy.exc import IntegrityError

    first = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{first}/close", role="producer")
    second = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{second}/close", role="producer")
    drain()
    seasons = [db.session.get(Game, g).season for g in (first, second)]
    assert [s.name for s in seasons] == ["Сезон 2023", "Сезон 2023 №2"]
    numbers = {
        s.name: db.session.scalars(
            db.select(GiftAgreement.number)
            .where(GiftAgreement.season_id == s.id)
            .order_by(GiftAgreement.id)
        ).all()
        for s in seasons
    }
    count = len(numbers["Сезон 2023"])
    assert count and numbers["Сезон 2023"] == [f"2023-{n:04d}" for n in range(1, count + 1)]
    assert numbers["Сезон 2023 №2"] == [
        f"2023-{n:04d}" for n in range(count + 1, count + 1 + len(numbers["Сезон 2023 №2"]))
    ]
    taken = db.session.scalars(db.select(GiftAgreement).order_by(GiftAgreement.id)).first()
    other = db.session.scalars(
        db.select(Prize).where(Prize.game_id == second).order_by(Prize.id)
    ).first()
    db.session.delete(other.agreement)
    db.session.flush()
    db.session.add(
        GiftAgreement(prize_id=other.id, season_id=seasons[1].id, seq=1, number=taken.number)
    )
    with pytest.raises(IntegrityError):
        db.session.flush()
    db.session.rollback()


def test_minutes_numbers_are_unique_across_seasons_of_one_year(app, api, played, drain):
    """The prize commission minutes of «Сезон 2023» and «Сезон 2023, осень» share the
    series 2023-К: the second season's minutes are 2023-К-0002, never 2023-К-0001 again."""
    spring = played("series_final", EXPERTS_WIN)
    autumn = played("year_final", EXPERTS_WIN, name="Сезон 2023, осень")
    for game, kind in ((spring, "best_participant_of_series"), (autumn, "best_expert_of_year")):
        r = api(
            "post",
            f"/api/v1/games/{game}/prizes",
            role="producer",
            json={"kind": kind, "recipient": "Илья Новиков", "team": TEAM},
        )
        assert r.status_code == 201, r.json
    assert [(n, s) for _prize, n, s in minutes_numbers()] == [
        ("2023-К-0001", 1),
        ("2023-К-0002", 2),
    ]
