"""A copied session cookie must not survive logout, a password change or
an admin's "sign out everywhere"; staff sessions end after a working day idle."""

from __future__ import annotations

from datetime import timedelta

from flask import g

from webapp.accounts.models import User
from webapp.accounts.operations import set_password
from webapp.extensions import db
from webapp.tasks.outbox import commit


def copy_cookie(app, source, name="session"):
    """A second client carrying a copy of ``source``'s session cookie (the attacker)."""
    thief = app.test_client()
    thief.set_cookie(name, source.get_cookie(name).value)
    return thief


def assert_signed_out(client):
    # the test's app context is shared by its requests (the ``app`` fixture pushes it), and
    # Flask-Login caches the user on ``g``; a real request starts with a fresh ``g``
    g.pop("_login_user", None)
    r = client.get("/editor/queue")
    assert r.status_code == 302 and "/login" in r.headers["Location"]


def test_a_copied_cookie_is_refused_after_logout(app, login):
    client = login("editor")
    thief = copy_cookie(app, client)
    assert thief.get("/editor/queue").status_code == 200
    assert client.post("/logout").status_code == 302
    assert_signed_out(thief)
    assert_signed_out(client)


def test_a_password_change_ends_every_session(app, login):
    client = login("editor")
    thief = copy_cookie(app, client)
    user = db.session.scalar(db.select(User).filter_by(email="editor@test.local"))
    set_password(user, "a new long passphrase")
    commit()
    assert_signed_out(thief)
    r = client.post(
        "/login", data={"email": "editor@test.local", "password": "a new long passphrase"}
    )
    assert r.status_code == 302


def test_an_admin_signs_a_user_out_everywhere(app, make_app, staff):
    editor = app.test_client()
    staff("editor")
    assert (
        editor.post(
            "/login", data={"email": "editor@test.local", "password": "editor-pw"}
        ).status_code
        == 302
    )
    thief = copy_cookie(app, editor)
    admin = app.test_client()
    staff("admin")
    g.pop("_login_user", None)
    admin.post("/login", data={"email": "admin@test.local", "password": "admin-pw"})
    page = admin.get("/admin/users").get_data(as_text=True)
    assert "editor@test.local" in page and "Выйти везде" in page
    user_id = staff("editor")[0]
    r = admin.post(f"/admin/users/{user_id}/sign-out", follow_redirects=True)
    assert "Все сеансы editor@test.local завершены, токены доступа отозваны: 1." in r.get_data(
        as_text=True
    )
    assert_signed_out(thief)
    assert_signed_out(editor)
    g.pop("_login_user", None)
    assert admin.get("/admin/users").status_code == 200  # the admin's own session stays
    g.pop("_login_user", None)
    assert (
        editor.post(
            "/login", data={"email": "editor@test.local", "password": "editor-pw"}
        ).status_code
        == 302
    )
    g.pop("_login_user", None)
    assert editor.post(f"/admin/users/{user_id}/sign-out").status_code == 403


def test_the_sign_out_form_needs_its_csrf_token(make_app):
    from webapp.accounts.operations import create_user

    app = make_app()  # CSRF on
    with app.app_context():
        admin, _ = create_user("admin@test.local", "admin", password="admin-pw")
        editor, _ = create_user("editor@test.local", "editor", password="editor-pw")
        commit()
        client = app.test_client()
        page = client.get("/login").get_data(as_text=True)
        token = page.split('name="csrf_token" type="hidden" value="')[1].split('"')[0]
        r = client.post(
            "/login",
            data={"email": "admin@test.local", "password": "admin-pw", "csrf_token": token},
        )
        assert r.status_code == 302
        assert client.post(f"/admin/users/{editor.id}/sign-out").status_code == 400
        db.session.expire_all()
        assert db.session.get(User, editor.id).session_version == 0


def test_staff_sessions_end_after_a_working_day_idle(app, login):
    assert app.permanent_session_lifetime == timedelta(hours=10)
    client = login("editor")
    assert client.get_cookie("session").expires is not None  # not a 31-day browser default
    app.permanent_session_lifetime = timedelta(seconds=-1)  # the day has passed
    assert_signed_out(client)
