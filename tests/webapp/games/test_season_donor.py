"""The donor of a season's prizes (webapp.domain.donor): given with the season through the
API or the rule set's default (the SOVA_BROADCASTER_* settings for 2023, the neutral
«Генеральный спонсор сезона», Москва, for 2009 — never the 2023 broadcaster), set on the
producer's season page (the rendered form, confirmed, audited), and named with its city,
representative and details by every gift agreement of the season (unsigned ones issued
again when it changes)."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf

from tests.helpers import VIEWERS_WIN
from tests.webapp.games.donor import DONOR, page, rendered_form
from webapp.core.models import Document
from webapp.extensions import db
from webapp.games.models import Season
from webapp.games.season.models import SeasonDonorChange
from webapp.prizes.models import Prize


def pdf_text(app, doc_id: int) -> str:
    doc = db.session.get(Document, doc_id)
    assert doc.status == "ready", doc.error
    data = (Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).read_bytes()
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)
    return " ".join(text.replace("\u00a0", " ").split())


def test_the_api_takes_the_donor_and_defaults_to_the_rule_set(api):
    r = api("post", "/api/v1/seasons", role="producer", json={"name": "С 2009", "ruleset": "2009"})
    assert r.status_code == 201, r.json
    s2009 = db.session.get(Season, r.json["id"])
    # the 2009 default is neutral and Russian: never the 2023 (Belarusian) broadcaster
    assert (s2009.donor_name, s2009.donor_city, s2009.donor_representative) == (
        "Генеральный спонсор сезона",
        "Москва",
        "",
    )
    r = api("post", "/api/v1/seasons", role="producer", json={"name": "С 2023", "ruleset": "2023"})
    s2023 = db.session.get(Season, r.json["id"])
    assert (s2023.donor_name, s2023.donor_city) == ("ЗАО «Второй национальный телеканал»", "Минск")
    r = api(
        "post",
        "/api/v1/seasons",
        role="producer",
        json={"name": "С 2009 б", "ruleset": "2009", "unanswered_prize": "1000", "donor": DONOR},
    )
    assert r.status_code == 201, r.json
    season = db.session.get(Season, r.json["id"])
    assert (season.donor_name, season.donor_city, season.donor_details) == (
        "ООО «Игра-ТВ»",
        "Москва",
        DONOR["details"],
    )
    assert season.donor_representative == DONOR["representative"]
    for bad in ({"city": "Москва"}, {"name": "ООО «Игра-ТВ»", "city": ""}):
        r = api(
            "post",
            "/api/v1/seasons",
            role="producer",
            json={"name": "С плохой", "ruleset": "2009", "donor": bad},
        )
        assert r.status_code == 422, r.json
        assert any(k.startswith("donor") for k in r.json["errors"]), r.json
    assert db.session.scalar(db.select(db.func.count()).select_from(Season)) == 3
    spec = api("get", "/api/v1/openapi.json", role="producer").json
    schemas = spec["components"]["schemas"]
    assert set(schemas["DonorIn"]["properties"]) == {"name", "city", "details", "representative"}
    assert schemas["DonorIn"]["required"] == ["city", "name"]


def test_a_2009_agreement_names_the_season_donor_set_on_the_season_page(
    app, api, played, drain, login, staff
):
    game = played("qualifying", VIEWERS_WIN, ruleset="2009", unanswered_prize="1000")
    assert api("post", f"/api/v1/games/{game}/close", role="producer").status_code == 200
    drain()
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    text = pdf_text(app, prize.agreement.document_id)
    assert text.startswith("ДОГОВОР ДАРЕНИЯ № 2009-0001 г. Москва ")
    assert "Генеральный спонсор сезона (далее — «Даритель»), с одной стороны" in text
    assert "Второй национальный" not in text and "г. Минск" not in text

    client = login("producer")
    season_id = prize.game.season_id
    text = page(client.get(f"/games/seasons/{season_id}"))
    assert "Даритель не указан:" in text
    form = rendered_form(text, "donor-form")
    assert form.action == f"/games/seasons/{season_id}/donor"
    assert form.fields["donor-name"] == "Генеральный спонсор сезона"
    assert form.fields["donor-city"] == "Москва"
    assert form.checkboxes == ["donor-confirm"] and "donor-confirm" not in form.fields
    fields = {
        **form.fields,
        "donor-name": DONOR["name"],
        "donor-city": DONOR["city"],
        "donor-representative": DONOR["representative"],
        "donor-details": DONOR["details"],
    }
    r = client.post(form.action, data=fields, follow_redirects=True)
    assert "Даритель не изменён: Подтвердите смену дарителя: отметьте галочку." in page(r)
    assert db.session.get(Season, season_id).donor_name == "Генеральный спонсор сезона"
    r = client.post(form.action, data={**fields, "donor-confirm": "y"}, follow_redirects=True)
    text = page(r)
    assert "Даритель сезона: ООО «Игра-ТВ», г.\u00a0Москва. Договоров выписано заново: 7." in text
    assert "Даритель не указан:" not in text
    # the log names only what changed (the city stayed), each field with its old and new value
    assert (
        "<td>producer@test.local</td><td>Даритель: Генеральный спонсор сезона<br>"
        "В лице: не указано<br>Реквизиты: не указано</td><td>Даритель: ООО «Игра-ТВ»<br>"
        f"В лице: {DONOR['representative']}<br>Реквизиты: Адрес: 119021, г. Москва, "
        "ул. Тимура Фрунзе, 11<br>ИНН 7704000000<br>р/с 40702810900000000001 в ПАО "
        "«Сбербанк», БИК 044525225</td><td>7</td>"
    ) in text
    change = db.session.scalars(db.select(SeasonDonorChange)).one()
    assert (change.season_id, change.by_user_id, change.reissued) == (
        season_id,
        staff("producer")[0],
        7,  # 6 unanswered questions, the first of two co-authors
    )
    assert change.at.tzinfo is not None
    assert change.old["name"] == "Генеральный спонсор сезона"
    assert change.new == {
        "name": DONOR["name"],
        "city": DONOR["city"],
        "details": DONOR["details"],
        "representative": DONOR["representative"],
    }
    drain()
    db.session.expire_all()
    prize = db.session.get(Prize, prize.id)
    assert db.session.get(Document, prize.agreement.document_id).version == 2
    text = pdf_text(app, prize.agreement.document_id)
    assert text.startswith("ДОГОВОР ДАРЕНИЯ № 2009-0001 г. Москва ")
    assert (
        "ООО «Игра-ТВ» (далее — «Даритель») в лице генерального директора Козлова Бориса "
        "Петровича, действующего на основании Устава, с одной стороны, и Автор 1"
    ) in text
    assert "Адрес: 119021, г. Москва, ул. Тимура Фрунзе, 11 ИНН 7704000000" in text
    assert "р/с 40702810900000000001 в ПАО «Сбербанк», БИК 044525225" in text
    assert "Генеральный спонсор сезона" not in text
    # the same donor again changes and records nothing
    r = client.post(form.action, data={**fields, "donor-confirm": "y"}, follow_redirects=True)
    assert db.session.scalar(db.select(db.func.count()).select_from(SeasonDonorChange)) == 1
    # only the signatory changes: the log shows that, not the same name twice
    signatory = "директора Петрова Петра Петровича, действующего на основании доверенности № 5"
    r = client.post(
        form.action,
        data={**fields, "donor-representative": signatory, "donor-confirm": "y"},
        follow_redirects=True,
    )
    assert f"<td>В лице: {DONOR['representative']}</td><td>В лице: {signatory}</td>" in page(r)


def test_only_the_producer_sets_the_donor(api, login):
    r = api("post", "/api/v1/seasons", role="producer", json={"name": "С 2009", "ruleset": "2009"})
    season_id = r.json["id"]
    client = login("host")
    text = page(client.get(f"/games/seasons/{season_id}"))
    assert 'id="donor-form"' not in text
    assert "Генеральный спонсор сезона, г.\u00a0Москва" in text
    r = client.post(
        f"/games/seasons/{season_id}/donor",
        data={"donor-name": "Кто-то", "donor-city": "Тверь", "donor-confirm": "y"},
    )
    assert r.status_code == 403
    assert db.session.get(Season, season_id).donor_name == "Генеральный спонсор сезона"
    assert db.session.scalar(db.select(db.func.count()).select_from(SeasonDonorChange)) == 0


def test_a_new_donor_typed_over_the_old_one_does_not_keep_its_papers(api, login):
    """The form starts from the season's donor: a new name typed over it alone would print
    the old donor's details and signatory on the new donor's agreements. Refused, naming
    both fields; nothing changes; with them written anew (or cleared) it is taken."""
    r = api(
        "post",
        "/api/v1/seasons",
        role="producer",
        json={"name": "С 2009", "ruleset": "2009", "unanswered_prize": "1000", "donor": DONOR},
    )
    season_id = r.json["id"]
    client = login("producer")
    form = rendered_form(page(client.get(f"/games/seasons/{season_id}")), "donor-form")
    assert form.fields["donor-details"] == DONOR["details"]
    fields = {**form.fields, "donor-name": "ООО «Новый спонсор»", "donor-confirm": "y"}
    r = client.post(form.action, data=fields, follow_redirects=True)
    assert (
        "Даритель не изменён: Реквизиты дарителя: это реквизиты прежнего дарителя (ООО "
        "«Игра-ТВ»): впишите реквизиты нового дарителя или очистите поле; В лице: это "
        "представитель прежнего дарителя (ООО «Игра-ТВ»): впишите представителя нового "
        "дарителя или очистите поле"
    ) in page(r)
    season = db.session.get(Season, season_id)
    assert (season.donor_name, season.donor_details) == (DONOR["name"], DONOR["details"])
    assert db.session.scalar(db.select(db.func.count()).select_from(SeasonDonorChange)) == 0
    r = client.post(
        form.action,
        data={**fields, "donor-details": "ИНН 7700000001", "donor-representative": ""},
        follow_redirects=True,
    )
    assert "Даритель сезона: ООО «Новый спонсор», г.\u00a0Москва." in page(r)
    db.session.expire_all()
    season = db.session.get(Season, season_id)
    assert (season.donor_name, season.donor_details, season.donor_representative) == (
        "ООО «Новый спонсор»",
        "ИНН 7700000001",
        "",
    )
