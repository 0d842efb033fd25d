"""A new password: the staff member's own («Сменить пароль» in the header, the current
password checked as a login attempt) and the admin's for a forgotten one («Задать пароль» on
the staff page). Driven through the forms the pages render, with CSRF on; every session of
the account ends and its API tokens stop working, the browser that changed it stays in."""

from __future__ import annotations

import re

from tests.forms import fresh_request as _fresh
from tests.forms import get_page as _get
from tests.forms import signed_in as _signed_in
from tests.forms import submit_form
from webapp.accounts.operations import create_user
from webapp.tasks.outbox import commit

NEW = "совсем-новый-пароль-1"
PAGE = "/account/password"


def _submit(client, page: str, form_id: str, tick: bool = False, url: str = PAGE, **typed):
    return submit_form(client, page, form_id, url, tick, **typed)


def _api(app, token: str) -> int:
    _fresh()
    return (
        app.test_client()
        .get("/api/v1/questions", headers={"Authorization": f"Bearer {token}"})
        .status_code
    )


def test_a_staff_member_changes_their_own_password(make_app):
    app = make_app()  # CSRF on
    with app.app_context():
        _, token = create_user("editor@test.local", "editor", "editor-pw", with_token=True)
        commit()
        other = _signed_in(app, "editor@test.local", "editor-pw")  # another device
        client = _signed_in(app, "editor@test.local", "editor-pw")
        queue = _get(client, "/editor/queue")
        link = re.search(r'<a href="([^"]+)">Сменить пароль</a>', queue).group(1)
        assert link == PAGE
        page = _get(client, link)
        assert "<h1>Смена пароля</h1>" in page

        wrong = _submit(client, page, "password-form", current="не тот", new=NEW, repeat=NEW)
        assert wrong.status_code == 401
        assert "Пароль не изменён: текущий пароль неверен." in wrong.get_data(as_text=True)
        short = _submit(
            client, page, "password-form", current="editor-pw", new="коротко", repeat="коротко"
        )
        assert short.status_code == 422
        assert "Новый пароль — от 12 до 200 символов." in short.get_data(as_text=True)
        differ = _submit(
            client, page, "password-form", current="editor-pw", new=NEW, repeat=NEW + "!"
        )
        assert differ.status_code == 422 and "Пароли не совпадают." in differ.get_data(as_text=True)
        same = _submit(
            client,
            page,
            "password-form",
            current="editor-pw",
            new="editor-pw",
            repeat="editor-pw",
        )
        assert same.status_code == 422  # 9 characters: the length refuses it first
        email = _submit(
            client,
            page,
            "password-form",
            current="editor-pw",
            new="Editor@test.local",
            repeat="Editor@test.local",
        )
        assert email.status_code == 401
        assert "пароль не может совпадать с адресом почты" in email.get_data(as_text=True)
        assert _api(app, token) == 200  # nothing changed yet

        done = _submit(client, page, "password-form", current="editor-pw", new=NEW, repeat=NEW)
        assert done.status_code == 302
        _fresh()
        home = client.get(done.headers["Location"]).get_data(as_text=True)
        assert "Пароль изменён. Другие сеансы завершены, токены доступа отозваны: 1." in home
        assert _api(app, token) == 401
        _fresh()
        assert other.get("/editor/queue").status_code == 302  # the other device is out
        assert _signed_in(app, "editor@test.local", "editor-pw") is None
        assert _signed_in(app, "editor@test.local", NEW) is not None


def test_guessing_the_current_password_locks_as_the_login_does(make_app):
    app = make_app()
    with app.app_context():
        create_user("host@test.local", "host", "host-pw")
        commit()
        client = _signed_in(app, "host@test.local", "host-pw")
        page = _get(client, PAGE)
        codes = [
            _submit(
                client, page, "password-form", current=f"guess-{i}", new=NEW, repeat=NEW
            ).status_code
            for i in range(6)
        ]
        assert codes == [401, 401, 401, 401, 401, 429]  # as the login: the 5th failure locks
        locked = _submit(client, page, "password-form", current="host-pw", new=NEW, repeat=NEW)
        assert locked.status_code == 429
        assert "Смена пароля временно заблокирована" in locked.get_data(as_text=True)


def test_the_admin_sets_a_forgotten_password(make_app):
    app = make_app()
    with app.app_context():
        create_user("admin@test.local", "admin", "admin-pw")
        editor, token = create_user("editor@test.local", "editor", "editor-pw", with_token=True)
        commit()
        editor_id = editor.id
        editors_browser = _signed_in(app, "editor@test.local", "editor-pw")
        admin = _signed_in(app, "admin@test.local", "admin-pw")
        page = _get(admin, "/admin/users")
        form_id = f"set-password-{editor_id}"
        assert 'id="set-password-' + str(editor_id) in page
        assert "set-password-" + str(db_admin_id(app)) not in page  # not one's own

        unticked = _submit(admin, page, form_id, new=NEW, repeat=NEW)
        _fresh()
        after = admin.get(unticked.headers["Location"]).get_data(as_text=True)
        assert "Пароль editor@test.local не задан: Подтвердите: отметьте галочку." in after
        assert _api(app, token) == 200

        done = _submit(admin, page, form_id, tick=True, new=NEW, repeat=NEW)
        _fresh()
        after = admin.get(done.headers["Location"]).get_data(as_text=True)
        assert (
            "Пароль editor@test.local задан, его сеансы завершены, токены доступа отозваны: 1."
            in after
        )
        assert _api(app, token) == 401
        _fresh()
        assert editors_browser.get("/editor/queue").status_code == 302
        assert _signed_in(app, "editor@test.local", NEW) is not None


def db_admin_id(app) -> int:
    from webapp.accounts.models import User
    from webapp.extensions import db

    return db.session.scalar(db.select(User.id).filter_by(email="admin@test.local"))
