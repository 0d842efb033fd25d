"""API error bodies speak the client's language (``Accept-Language``; Russian by default):
Werkzeug's English descriptions and marshmallow's English messages never reach a client.
Each request runs in its own app context, as in production (the locale is chosen once per
request)."""

from __future__ import annotations

import pytest

#: (status, message) of each case in ru (no header), be and en.
HTTP = {
    400: (
        "Запрос не понят: его тело или заголовки повреждены.",
        "Запыт не зразумелы: яго цела або загалоўкі пашкоджаныя.",
        "The request could not be understood: its body or headers are malformed.",
    ),
    401: (
        "Нужен действующий API-токен: заголовок «Authorization: Bearer <токен>».",
        "Патрэбны дзейны API-токен: загаловак «Authorization: Bearer <токен>».",
        "A valid API token is required: the header “Authorization: Bearer <token>”.",
    ),
    403: (
        "Недостаточно прав: этой роли запрос не разрешён.",
        "Не хапае правоў: гэтай ролі запыт не дазволены.",
        "Forbidden: this role may not make this request.",
    ),
    404: (
        "Не найдено: такого адреса или объекта нет.",
        "Не знойдзена: такога адраса або аб'екта няма.",
        "Not found: no such address or object.",
    ),
    405: (
        "Этот метод для этого адреса не разрешён.",
        "Гэты метад для гэтага адраса не дазволены.",
        "This method is not allowed for this address.",
    ),
}
LANGS = (None, "be", "en")
#: a browser's header: the best of ru/be/en is chosen
HEADER = {"be": "be-BY,be;q=0.9,en;q=0.5", "en": "en-GB,en;q=0.8"}

GAME_422 = {
    None: {
        "date": ["Ожидается дата в формате ГГГГ-ММ-ДД."],
        "kind": ["Обязательное поле."],
        "season_id": ["Должно быть не меньше 1 и не больше 2147483647."],
        "table.blitz": ["Номер сектора от 1 до 13 или null."],
        "table.sector13": ["Ожидается целое число."],
    },
    "be": {
        "date": ["Чакаецца дата ў фармаце ГГГГ-ММ-ДД."],
        "kind": ["Абавязковае поле."],
        "season_id": ["Павінна быць не менш за 1 і не больш за 2147483647."],
        "table.blitz": ["Нумар сектара ад 1 да 13 або null."],
        "table.sector13": ["Чакаецца цэлы лік."],
    },
    "en": {
        "date": ["Not a valid date: YYYY-MM-DD."],
        "kind": ["Missing data for required field."],
        "season_id": ["Must be greater than or equal to 1 and less than or equal to 2147483647."],
        "table.blitz": ["A sector number 1 to 13, or null."],
        "table.sector13": ["Not a valid integer."],
    },
}
SUBMISSION_422 = {
    None: {
        "answer": ["Обязательное поле."],
        "consent": ["Ожидается true или false."],
        "language": ["Допустимые значения: ru, be, en."],
        "question": ["Ожидается строка."],
    },
    "be": {
        "answer": ["Абавязковае поле."],
        "consent": ["Чакаецца true або false."],
        "language": ["Дапушчальныя значэнні: ru, be, en."],
        "question": ["Чакаецца радок."],
    },
    "en": {
        "answer": ["Missing data for required field."],
        "consent": ["Not a valid boolean: true or false."],
        "language": ["Must be one of: ru, be, en."],
        "question": ["Not a valid string."],
    },
}


@pytest.fixture
def api_app(make_app):
    """An app whose requests each push their own app context (no test-wide context), and
    the bearer tokens of an editor and a producer."""
    from webapp.accounts.operations import create_user
    from webapp.tasks.outbox import commit

    app = make_app(WTF_CSRF_ENABLED=False)
    with app.app_context():
        tokens = {
            role: create_user(f"{role}@test.local", role, with_token=True)[1]
            for role in ("editor", "producer")
        }
        commit()
    return app, tokens


def _call(app, lang, method, path, token=None, **kwargs):
    headers = kwargs.pop("headers", {})
    if lang:
        headers["Accept-Language"] = HEADER[lang]
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return getattr(app.test_client(), method)(path, headers=headers, **kwargs)


@pytest.mark.parametrize("lang", LANGS)
def test_http_errors_in_the_clients_language(api_app, lang):
    app, tokens = api_app
    i = LANGS.index(lang)
    utf16 = '{"question": "?"}'.encode("utf-16")
    cases = {
        400: ("post", "/api/v1/submissions", None,
              {"data": utf16, "headers": {"Content-Type": "application/json; charset=utf-16"}}),
        401: ("get", "/api/v1/questions", None, {}),
        403: ("post", "/api/v1/seasons", tokens["editor"], {"json": {}}),
        404: ("get", "/api/v1/games/999999", tokens["producer"], {}),
        405: ("delete", "/api/v1/submissions", None, {}),
    }  # fmt: skip
    for code, (method, path, token, kwargs) in cases.items():
        r = _call(app, lang, method, path, token, **kwargs)
        assert (r.status_code, r.json) == (
            code,
            {"error": {"code": code, "message": HTTP[code][i]}},
        ), (lang, code)


@pytest.mark.parametrize("lang", LANGS)
def test_validation_messages_in_the_clients_language(api_app, lang):
    app, tokens = api_app
    r = _call(
        app,
        lang,
        "post",
        "/api/v1/games",
        tokens["producer"],
        json={"date": "30.12.2023", "season_id": 0, "table": {"blitz": 14, "sector13": "x"}},
    )
    assert (r.status_code, r.json) == (422, {"errors": GAME_422[lang]})
    body = {
        "question": 5,
        "authors": [{"name": "Анна", "city": "Минск"}],
        "email": "a@example.com",
        "consent": "да",
        "language": "xx",
    }
    r = _call(app, lang, "post", "/api/v1/submissions", json=body)
    assert (r.status_code, r.json) == (422, {"errors": SUBMISSION_422[lang]})


@pytest.mark.parametrize("lang", LANGS)
def test_a_json_body_sent_as_text_plain_is_said_not_to_be_json(api_app, lang):
    """A JSON body under ``Content-Type: text/plain``: 422 saying the body was not read as
    JSON (not «Обязательное поле.» for every field)."""
    app, tokens = api_app
    message = {
        "ru": "Тело запроса не прочитано как JSON: укажите заголовок "
        "Content-Type: application/json.",
        "be": "Цела запыту не прачытана як JSON: пазначце загаловак "
        "Content-Type: application/json.",
        "en": "The request body was not read as JSON: send the header "
        "Content-Type: application/json.",
    }
    r = _call(
        app,
        lang,
        "post",
        "/api/v1/seasons",
        tokens["producer"],
        data='{"name": "Сезон 2027", "ruleset": "2023"}'.encode(),
        content_type="text/plain",
    )
    assert (r.status_code, r.json) == (422, {"errors": {"_schema": [message[lang or "ru"]]}})


def test_an_unknown_prize_status_is_a_422(api):
    """``GET /api/v1/prizes?status=…`` takes only the prize statuses (it answered an empty
    200 list for a typo)."""
    r = api("get", "/api/v1/prizes?status=zzz", role="accountant")
    assert r.status_code == 422
    assert r.json == {
        "errors": {
            "status": [
                "Допустимые значения: owed, details_requested, details_received, "
                "agreement_issued, signed, paid, closed."
            ]
        }
    }
    assert api("get", "/api/v1/prizes?status=owed", role="accountant").json == {"items": []}
