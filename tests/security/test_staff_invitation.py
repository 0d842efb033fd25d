"""Staff accounts made on the admin's «Сотрудники» page: «Новый сотрудник» makes an account
without a password and shows its one-time invitation link once; the invitee chooses a
password there and is signed in; the link is spent after that, and a new link stops the
older one. The demo accounts are refused in production. Driven through the forms the pages
render, with CSRF on."""

from __future__ import annotations

import re
from html import unescape

from tests.forms import fresh_request, get_page, page_forms, signed_in, submit_form
from webapp.accounts.models import User
from webapp.accounts.operations import create_user
from webapp.extensions import db
from webapp.tasks.outbox import commit

USERS = "/admin/users"
PASSWORD = "пароль-нового-редактора"


def _link(page: str) -> str:
    """The invitation link the page shows (its path; the page shows it absolute)."""
    link = unescape(re.search(r'value="([^"]+)" aria-label="Ссылка-приглашение"', page).group(1))
    assert link.startswith("http://127.0.0.1:5000/account/invitation/"), link
    return link.removeprefix("http://127.0.0.1:5000")


def _admin(app):
    with app.app_context():
        create_user("admin@ctv.by", "admin", "admin-password")
        commit()
    return signed_in(app, "admin@ctv.by", "admin-password")


def test_the_admin_invites_an_editor_who_sets_a_password_once(make_app):
    app = make_app(SOVA_PUBLIC_URL="http://127.0.0.1:5000")
    with app.app_context():
        admin = _admin(app)
        page = get_page(admin, USERS)
        made = submit_form(
            admin,
            page,
            "invite-form",
            USERS,
            email="New.Editor@Ctv.by",
            name="Алеся Новая",
            role="editor",
        )
        # post/redirect/get: the staff page shows the link once; a reload shows it no more
        assert made.status_code == 302 and made.headers["Location"] == "/admin/users#invitation"
        shown = get_page(admin, USERS)
        assert "Приглашение для new.editor@ctv.by" in shown
        assert "<td>Алеся Новая</td><td>new.editor@ctv.by</td>" in shown
        link = _link(shown)
        user = db.session.scalar(db.select(User).filter_by(email="new.editor@ctv.by"))
        assert (user.role, user.name, user.password_hash) == ("editor", "Алеся Новая", None)
        assert signed_in(app, "new.editor@ctv.by", "") is None
        # the staff page, read again, never shows the link: it was shown once
        again = get_page(admin, USERS)
        assert "/account/invitation/" not in again
        assert "пароль ещё не задан" in again

        invitee = app.test_client()
        fresh_request()
        form_page = invitee.get(link).get_data(as_text=True)
        assert "Алеся Новая (new.editor@ctv.by), роль: редактор." in form_page
        short = submit_form(
            invitee, form_page, "invitation-form", link, new="короткий", repeat="короткий"
        )
        assert short.status_code == 422
        assert "Новый пароль — от 12 до 200 символов." in short.get_data(as_text=True)
        done = submit_form(
            invitee, form_page, "invitation-form", link, new=PASSWORD, repeat=PASSWORD
        )
        assert done.status_code == 302 and done.headers["Location"] == "/editor/queue"
        fresh_request()
        assert invitee.get("/editor/queue").status_code == 200  # signed in
        assert signed_in(app, "new.editor@ctv.by", PASSWORD) is not None

        fresh_request()
        spent = app.test_client().get(link)
        assert spent.status_code == 404
        assert "Приглашение недействительно" in spent.get_data(as_text=True)


def test_a_new_link_stops_the_older_and_bad_input_creates_nothing(make_app):
    app = make_app(SOVA_PUBLIC_URL="http://127.0.0.1:5000")
    with app.app_context():
        admin = _admin(app)
        page = get_page(admin, USERS)
        bad = submit_form(admin, page, "invite-form", USERS, email="не почта", name="", role="host")
        assert bad.status_code == 422
        said = unescape(bad.get_data(as_text=True))
        assert (
            "Сотрудник не добавлен: Электронная почта: это не адрес электронной почты; "
            "Укажите имя и фамилию." in said
        )
        taken = submit_form(
            admin, page, "invite-form", USERS, email="admin@ctv.by", name="Двойник", role="host"
        )
        assert taken.status_code == 422
        assert "Сотрудник не добавлен: сотрудник с почтой admin@ctv.by уже есть." in unescape(
            taken.get_data(as_text=True)
        )
        assert db.session.scalar(db.select(db.func.count()).select_from(User)) == 1

        made = submit_form(
            admin, page, "invite-form", USERS, email="host@ctv.by", name="Ведущий", role="host"
        )
        assert made.status_code == 302
        first = _link(get_page(admin, USERS))

        staff = get_page(admin, USERS)
        user_id = db.session.scalar(db.select(User.id).filter_by(email="host@ctv.by"))
        renew = [f for f in page_forms(staff) if f.action == f"/admin/users/{user_id}/invitation"]
        assert len(renew) == 1
        fresh_request()
        assert admin.post(renew[0].action, data=renew[0].fields).status_code == 302
        second = _link(get_page(admin, USERS))
        assert second != first
        fresh_request()
        assert app.test_client().get(first).status_code == 404
        fresh_request()
        assert app.test_client().get(second).status_code == 200
        fresh_request()
        assert app.test_client().get("/account/invitation/forged.token").status_code == 404


def test_demo_accounts_are_refused_in_production(make_app):
    development = make_app()
    with development.app_context():
        create_user("editor@sova.local", "editor", "editor-demo")
        commit()
        assert signed_in(development, "editor@sova.local", "editor-demo") is not None

    from cryptography.fernet import Fernet

    app = make_app(
        SOVA_ENV="production",
        SOVA_SECRET_KEY="k" * 64,
        SOVA_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        SOVA_PROXY_COUNT=1,  # behind nginx, which says the request came over HTTPS
    )
    with app.app_context():
        create_user("admin@ctv.by", "admin", "admin-password")
        commit()
        assert signed_in(app, "editor@sova.local", "editor-demo", https=True) is None
        admin = signed_in(app, "admin@ctv.by", "admin-password", https=True)
        page = get_page(admin, USERS)
        refused = submit_form(
            admin, page, "invite-form", USERS, email="host@sova.local", name="Демо", role="host"
        )
        assert refused.status_code == 422
        assert (
            "Сотрудник не добавлен: Электронная почта: это не адрес электронной почты."
            in unescape(refused.get_data(as_text=True))
        )
