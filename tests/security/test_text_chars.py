"""Text that can never be valid in XML or on paper — noncharacters (U+FFFE, U+FFFF), lone
surrogates, C0/C1 controls — and the bidi embedding/override/isolate controls are refused
at every text input: every form of Sova (``webapp.core.fields.SovaForm``) and every string
of an API body; a password holds no control character at all. The Atom feed never writes
one, whatever was stored before (``webapp.core.chars.xml_safe``)."""

from __future__ import annotations

import pytest
from flask_babel import refresh

from tests.forms import page_forms
from webapp.core.chars import all_forbidden, forbidden, forbidden_in_password, xml_safe

REFUSED = [
    "\x00",
    "\x07",
    "\x1b",
    "\x7f",
    "\x85",
    "\x9f",
    "\ud800",
    "\udfff",
    "\ufdd0",
    "\ufdef",
    "\ufffe",
    "\uffff",
    "\U0001fffe",
    "\U0010ffff",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
]
KEPT = [
    "\t",
    "\n",
    "\r",
    " ",
    "\u00a0",
    "ё",
    "\u200e",
    "\u200f",
    "\ufeff",
    "\ufffd",
    "😀",
    "\u2028",
]


@pytest.mark.parametrize("c", REFUSED)
def test_what_user_text_may_not_hold(c):
    assert forbidden(f"Знатоки{c}клуба") == c
    assert forbidden_in_password(f"пароль{c}пароль") == c
    assert xml_safe(f"Знатоки{c}клуба") == "Знатокиклуба"


@pytest.mark.parametrize("c", KEPT)
def test_what_user_text_may_hold(c):
    assert forbidden(f"Знатоки{c}клуба") is None
    assert xml_safe(f"Знатоки{c}клуба") == f"Знатоки{c}клуба"


def test_the_scan_refuses_exactly_the_rule_on_every_code_point():
    """``forbidden`` scans by one regular expression (a packet file is megabytes): on every
    code point it answers as the rule written character by character (``refused``), also
    with the character behind harmless text."""
    from webapp.core.chars import refused

    for n in range(0x110000):
        c = chr(n)
        assert (forbidden(f"Вопрос {c}") == c) is refused(c), hex(n)
    assert all_forbidden("a\x00b\ufffe c\x00") == ["\x00", "\ufffe"]
    assert xml_safe("a\x00b\u202ec") == "abc"


def test_a_password_holds_no_control_character():
    for c in ("\t", "\n", "\r", "\x07"):
        assert forbidden_in_password(f"совсем-новый{c}пароль") == c
    assert forbidden_in_password("совсем новый пароль ё 😀") is None


def test_every_form_of_sova_checks_its_text(app):
    """Every WTForms form class declared in ``webapp`` derives from ``SovaForm`` (a page
    form) or ``TextForm`` (a form nested in one), so each of its text fields is checked."""
    from wtforms import Form

    from webapp.core.fields import SovaForm, TextForm

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    ours = {c for c in subclasses(Form) if c.__module__.startswith("webapp.")}
    assert len(ours) > 50
    unchecked = sorted(
        f"{c.__module__}.{c.__qualname__}"
        for c in ours
        if not issubclass(c, (SovaForm, TextForm)) and c not in (SovaForm, TextForm)
    )
    assert unchecked == []


def test_the_api_refuses_a_team_name_with_a_noncharacter(api):
    """A team name with U+FFFE (the API refused only control characters) would make the
    Atom feed invalid XML once the game aired: now 422, naming the field and the character;
    the same for a co-author with a right-to-left override and a key of the body."""
    experts = ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"]
    resp = api(
        "post",
        "/api/v1/teams",
        role="producer",
        json={"name": "Знатоки\ufffe", "captain": "Анна", "experts": experts},
    )
    assert resp.status_code == 422
    assert resp.get_json() == {"errors": {"name": ["Недопустимый символ U+FFFE: удалите его."]}}
    refresh()  # the test's requests share one app context: forget the last locale
    resp = api(
        "post",
        "/api/v1/submissions",
        json={
            "question": "\u202eВопрос о северной столице России, достаточно длинный.",
            "answer": "Петербург",
            "email": "rlo@example.com",
            "consent": True,
            "authors": [{"name": "Иван", "city\u0085": "Минск"}],
        },
        headers={"Accept-Language": "en"},
    )
    assert resp.status_code == 422
    assert resp.get_json() == {
        "errors": {
            "question": ["Invalid character U+202E: please remove it."],
            "authors.0.city\u0085": ["Invalid character U+0085: please remove it."],
        }
    }
    ok = api(
        "post",
        "/api/v1/teams",
        role="producer",
        json={"name": "Знатоки клуба", "captain": "Анна", "experts": experts},
    )
    assert ok.status_code == 201


def test_the_viewer_form_refuses_a_question_starting_with_a_bidi_override(client):
    """The form as the page renders it, posted with a question that starts with U+202E
    (right-to-left override): 422, the message under the field, nothing stored."""
    from webapp.extensions import db
    from webapp.submissions.models import Question

    for lang, message in (
        ("ru", "Недопустимый символ U+202E: удалите его."),
        ("en", "Invalid character U+202E: please remove it."),
        ("be", "Недапушчальны сімвал U+202E: выдаліце яго."),
    ):
        refresh()  # the test's requests share one app context: forget the last locale
        page = client.get(f"/submit?lang={lang}").get_data(as_text=True)
        (form,) = [f for f in page_forms(page) if f.method == "post"]
        data = {
            **form.fields,
            "question": "\u202eКакой город называют северной столицей России?",
            "answer": "Санкт-Петербург",
            "name": "Пётр\ufffeИванов",
            "email": "petr@example.com",
            "consent": "y",
            "age_confirmed": "y",
        }
        refresh()
        resp = client.post(form.action, data=data)
        text = resp.get_data(as_text=True)
        assert resp.status_code == 422, lang
        assert message in text
        assert message.replace("U+202E", "U+FFFE") in text
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0


def test_the_viewer_form_names_every_bad_character_and_the_comments_maximum(client):
    """The form as the page renders it, posted with a question holding U+202E, BEL twice and
    U+FFFE and a comment of 3001 characters: one message under the question names each bad
    character once, in the order typed; the comment's says only its maximum (it has no
    minimum); in Russian, Belarusian and English; nothing stored."""
    import re

    from markupsafe import escape

    from webapp.extensions import db
    from webapp.submissions.models import Question

    for lang, chars, longest in (
        (
            "ru",
            "Недопустимые символы U+202E, U+0007, U+FFFE: удалите их.",
            "Не длиннее 3000 символов.",
        ),
        (
            "be",
            "Недапушчальныя сімвалы U+202E, U+0007, U+FFFE: выдаліце іх.",
            "Не даўжэй за 3000 сімвалаў.",
        ),
        (
            "en",
            "Invalid characters U+202E, U+0007, U+FFFE: please remove them.",
            "No longer than 3000 characters.",
        ),
    ):
        refresh()  # the test's requests share one app context: forget the last locale
        page = client.get(f"/submit?lang={lang}").get_data(as_text=True)
        (form,) = [f for f in page_forms(page) if f.method == "post"]
        data = {
            **form.fields,
            "question": "\u202eКакой город\x07 называют северной\x07 столицей\ufffe России?",
            "answer": "Санкт-Петербург",
            "comment": "к" * 3001,
            "name": "Пётр Иванов",
            "email": "petr@example.com",
            "consent": "y",
            "age_confirmed": "y",
        }
        refresh()
        resp = client.post(form.action, data=data)
        text = resp.get_data(as_text=True)
        assert resp.status_code == 422, lang
        under = dict(re.findall(r'<p class="error" id="(\w+)-error">([^<]*)</p>', text))
        assert under == {"question": str(escape(chars)), "comment": longest}, lang
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0


def test_a_password_with_a_control_character_is_refused(app, login):
    """The own-password form refuses a new password with BEL (U+0007); the command
    ``sova users create`` exits 2 for one, and creates nobody."""
    from webapp.accounts.models import User
    from webapp.extensions import db

    client = login("editor")
    page = client.get("/account/password").get_data(as_text=True)
    (form,) = [f for f in page_forms(page) if f.attrs.get("id") == "password-form"]
    new = "совсем-новый\x07пароль"
    data = {**form.fields, "current": "editor-pw", "new": new, "repeat": new}
    resp = client.post(form.action or "/account/password", data=data)
    assert resp.status_code == 422
    assert "Пароль не может содержать символ U+0007 (управляющий)." in resp.get_data(as_text=True)
    result = app.test_cli_runner().invoke(
        args=["users", "create", "--email", "bel@test.local", "--role", "editor"]
        + ["--password", "совсем-новый\x07пароль"]
    )
    assert result.exit_code == 2
    assert "пароль содержит недопустимый символ U+0007" in result.output
    result = app.test_cli_runner().invoke(
        args=["users", "create", "--email", "bel@test.local", "--role", "editor"]
        + ["--name", "Анна\ufffe"]
    )
    assert result.exit_code == 2
    assert "недопустимый символ U+FFFE в имени или адресе" in result.output
    assert db.session.scalar(db.select(User).filter_by(email="bel@test.local")) is None


def test_a_form_built_again_keeps_one_character_check_per_field(app):
    """The character check is added to a declared text field once per process
    (``webapp.core.fields.checked_field``: the same field for the same declaration), and
    every form built from it refuses a forbidden character, the hundredth as the first."""
    from werkzeug.datastructures import MultiDict

    from webapp.core.fields import checked_field, text_chars
    from webapp.submissions.forms import CoauthorForm, SubmitForm

    declared = SubmitForm.answer
    assert checked_field(declared) is checked_field(declared)
    assert checked_field(SubmitForm.consent) is SubmitForm.consent  # not a text field
    with app.test_request_context():
        for _ in range(3):
            form = CoauthorForm(MultiDict({"name": "Анна\u202eПетрова"}))
            assert not form.validate()
            assert form.errors == {"name": ["Недопустимый символ U+202E: удалите его."]}
            assert form.name.validators.count(text_chars) == 1
        submit = SubmitForm(meta={"csrf": False})
        assert submit.answer.validators.count(text_chars) == 1
        assert text_chars not in submit.consent.validators
