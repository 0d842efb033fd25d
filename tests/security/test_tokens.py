"""API tokens end with the trust that made them: «Выйти везде» on the staff page, a new
password and switching an account off revoke the user's tokens, and the page says so; the
admin sees each token's creation and last use and revokes one (CSRF, a confirmation box,
recorded on the token: when, by whom, why). Driven through the forms the staff page renders,
with CSRF on."""

from __future__ import annotations

import re
from datetime import timedelta

from flask import g

from tests.forms import page_forms
from webapp.accounts.models import ApiToken, User
from webapp.accounts.operations import (
    create_user,
    issue_token,
    set_password,
    sign_out_everywhere,
    user_by_token,
)
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.tasks.outbox import commit


def forms(page: str, tick: bool = True) -> dict[str, dict[str, str]]:
    """``{action: {field: value}}`` of a page's POST forms, as a browser submits them with
    every checkbox ticked (``tick``) or none."""
    return {
        f.action: {k: v for k, v in f.fields.items() if k not in f.checkboxes}
        | (f.when_ticked if tick else {})
        for f in page_forms(page)
        if f.method == "post" and f.action
    }


def _api(app, token: str) -> int:
    g.pop("_login_user", None)
    return (
        app.test_client()
        .get("/api/v1/questions", headers={"Authorization": f"Bearer {token}"})
        .status_code
    )


def _admin_client(app):
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    data = {"email": "admin@test.local", "password": "admin-pw", "csrf_token": csrf}
    assert client.post("/login", data=data).status_code == 302
    return client


def _page(client) -> str:
    g.pop("_login_user", None)
    resp = client.get("/admin/users")
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def _post(client, page: str, action: str, tick: bool = True) -> str:
    """Submit the form ``action`` of ``page`` with its rendered fields; the page after."""
    g.pop("_login_user", None)
    resp = client.post(action, data=forms(page, tick)[action], follow_redirects=True)
    assert resp.status_code == 200, resp.status_code
    return resp.get_data(as_text=True)


def _row(page: str, token_id: int) -> str:
    row = re.search(rf'<tr id="token-{token_id}">(.*?)</tr>', page, re.S).group(1)
    return " ".join(re.sub(r"<[^>]+>", " ", row).split())


def test_sign_out_everywhere_revokes_the_api_tokens_and_says_so(make_app):
    app = make_app()  # CSRF on
    with app.app_context():
        admin, _ = create_user("admin@test.local", "admin", password="admin-pw")
        editor, token = create_user("editor@test.local", "editor", "editor-pw", with_token=True)
        commit()
        editor_id, admin_id = editor.id, admin.id
        assert _api(app, token) == 200
        row = db.session.scalar(db.select(ApiToken).filter_by(user_id=editor_id))
        db.session.refresh(row)
        created, used = row.created_at, row.last_used_at
        assert used is not None and abs(used - utcnow()) < timedelta(minutes=1)
        client = _admin_client(app)
        page = _page(client)
        zone = app.config["SOVA_TIMEZONE"]
        from webapp.core.formats import when

        assert _row(page, row.id) == (
            f"№ {row.id} {when(created, zone)} {when(used, zone)} действует "
            "Да, отозвать этот токен Отозвать"
        )
        after = _post(client, page, f"/admin/users/{editor_id}/sign-out")
        assert "Все сеансы editor@test.local завершены, токены доступа отозваны: 1." in after
        assert _api(app, token) == 401
        db.session.expire_all()
        row = db.session.get(ApiToken, row.id)
        assert (row.revoked_by_id, row.revoked_reason) == (admin_id, "sign_out")
        assert _row(after, row.id) == (
            f"№ {row.id} {when(created, zone)} {when(used, zone)} отозван "
            f"{when(row.revoked_at, zone)} (admin@test.local): выход везде"
        )
        # a second «Выйти везде» says there was nothing left to revoke
        again = _post(client, after, f"/admin/users/{editor_id}/sign-out")
        assert "Все сеансы editor@test.local завершены, токенов доступа не было." in again


def test_the_admin_revokes_one_token_after_confirming(make_app):
    app = make_app()  # CSRF on
    with app.app_context():
        create_user("admin@test.local", "admin", password="admin-pw")
        editor, first = create_user("editor@test.local", "editor", "editor-pw", with_token=True)
        second = issue_token(editor)
        commit()
        ids = [t.id for t in db.session.scalars(db.select(ApiToken).order_by(ApiToken.id))]
        client = _admin_client(app)
        page = _page(client)
        action = f"/admin/tokens/{ids[0]}/revoke"
        assert forms(page, tick=False)[action].keys() == {"csrf_token"}
        # the box not ticked: nothing revoked
        unconfirmed = _post(client, page, action, tick=False)
        assert "Подтвердите отзыв токена: отметьте галочку." in unconfirmed
        assert _api(app, first) == 200
        # without the CSRF token: refused
        g.pop("_login_user", None)
        assert client.post(action, data={"confirm": "y"}).status_code == 400
        assert _api(app, first) == 200
        done = _post(client, unconfirmed, action)
        assert f"Токен № {ids[0]} (editor@test.local) отозван." in done
        assert (_api(app, first), _api(app, second)) == (401, 200)
        assert _row(done, ids[0]).endswith("(admin@test.local): отозван администратором")
        assert f"/admin/tokens/{ids[0]}/revoke" not in forms(done)  # nothing left to revoke
        assert f"/admin/tokens/{ids[1]}/revoke" in forms(done)


def test_a_new_password_and_switching_off_revoke_the_tokens(make_app):
    app = make_app()  # CSRF on
    with app.app_context():
        create_user("admin@test.local", "admin", password="admin-pw")
        editor, token = create_user("editor@test.local", "editor", "editor-pw", with_token=True)
        commit()
        assert _api(app, token) == 200
        assert set_password(editor, "a new long passphrase") == 1
        commit()
        assert _api(app, token) == 401
        fresh = issue_token(editor)
        commit()
        assert _api(app, fresh) == 200
        client = _admin_client(app)
        page = _page(client)
        off = _post(client, page, f"/admin/users/{editor.id}/deactivate")
        assert (
            "Учётная запись editor@test.local отключена, сеансы завершены, "
            "токены доступа отозваны: 1." in off
        )
        assert _api(app, fresh) == 401
        db.session.expire_all()
        reasons = db.session.scalars(db.select(ApiToken.revoked_reason).order_by(ApiToken.id)).all()
        assert reasons == ["password", "deactivated"]
        # switched on again (a direct database fix): no token comes back
        db.session.get(User, editor.id).active = True
        commit()
        assert _api(app, token) == _api(app, fresh) == 401
        # the admin cannot switch himself off: no such form, and a forged post is refused
        admin_id = db.session.scalar(db.select(User.id).filter_by(email="admin@test.local"))
        assert f"/admin/users/{admin_id}/deactivate" not in forms(off)
        fields = forms(off)[f"/admin/users/{editor.id}/sign-out"] | {"confirm": "y"}
        g.pop("_login_user", None)
        refused = client.post(
            f"/admin/users/{admin_id}/deactivate", data=fields, follow_redirects=True
        )
        assert "Свою учётную запись отключить нельзя." in refused.get_data(as_text=True)
        assert db.session.get(User, admin_id).active


def test_last_use_is_written_at_most_once_a_minute(app, staff):
    _, token = staff("editor")
    now = utcnow()
    user_by_token(token, now=now)
    commit()
    row = db.session.scalar(db.select(ApiToken))
    assert row.last_used_at == now
    user_by_token(token, now=now + timedelta(seconds=59))
    commit()
    db.session.refresh(row)
    assert row.last_used_at == now
    user_by_token(token, now=now + timedelta(seconds=61))
    commit()
    db.session.refresh(row)
    assert row.last_used_at == now + timedelta(seconds=61)


def _round_trip(token: str) -> None:
    """Down to 0018 (the token back in ``user.token_hash``) and up again (moved to
    ``api_token``): the token works before and after, and ``user.token_hash`` is cleared."""
    from flask_migrate import downgrade, upgrade
    from sqlalchemy import text

    assert user_by_token(token) is not None
    commit()
    db.session.remove()
    downgrade(revision="0018_season_prize")
    held = text('SELECT count(*) FROM "user" WHERE token_hash IS NOT NULL')
    assert db.session.execute(held).scalar_one() == 1
    db.session.remove()
    upgrade(revision="heads")
    assert db.session.execute(held).scalar_one() == 0
    assert db.session.scalar(db.select(db.func.count()).select_from(ApiToken)) == 1
    assert user_by_token(token).email == "editor@test.local"


def test_the_migration_moves_each_users_token_sqlite(app, staff):
    _round_trip(staff("editor")[1])


def test_the_migration_moves_each_users_token_postgres(pg_app):
    with pg_app.app_context():
        _, token = create_user("editor@test.local", "editor", "pw", with_token=True)
        commit()
        _round_trip(token)


def test_a_revoked_user_gets_a_new_token_from_the_command_line(app, staff):
    editor_id, old = staff("editor")
    assert sign_out_everywhere(db.session.get(User, editor_id)) == 1
    commit()
    runner = app.test_cli_runner()
    result = runner.invoke(args=["users", "token", "--email", "Editor@test.local"])
    assert result.exit_code == 0, result.output
    # the token alone on stdout (`TOKEN=$(sova users token --email E)`), what it is on stderr
    (new,) = result.stdout.splitlines()
    assert result.stderr == "new API token for editor@test.local (editor)\n"
    assert _api(app, old) == 401 and _api(app, new) == 200
    unknown = runner.invoke(args=["users", "token", "--email", "nobody@test.local"])
    assert (unknown.exit_code, unknown.output) == (
        2,
        "Error: no active user with e-mail nobody@test.local\n",
    )


def test_a_presented_token_that_is_not_valid_is_401_on_public_endpoints_too(app, staff, client):
    """A revoked, unknown or malformed credential is refused (401 and the API's message),
    also where an anonymous caller is admitted (a submission's status, a new submission):
    it was served as anonymous. Without a header the public endpoint still answers."""
    from webapp.accounts.operations import revoke_tokens

    user_id, token = staff("editor")
    revoke_tokens(db.session.get(User, user_id), "sign_out")
    commit()
    message = "Нужен действующий API-токен: заголовок «Authorization: Bearer <токен>»."
    for header in (f"Bearer {token}", "Bearer not-a-token", "Bearer ", "Basic ZWRpdG9yOnB3"):
        for method, path in (
            ("get", "/api/v1/submissions/no-such"),
            ("post", "/api/v1/submissions"),
        ):
            resp = getattr(client, method)(path, headers={"Authorization": header}, json={})
            assert resp.status_code == 401, (header, path)
            assert resp.get_json() == {"error": {"code": 401, "message": message}}
    assert client.get("/api/v1/submissions/no-such").status_code == 404
    assert client.post("/api/v1/submissions", json={}).status_code == 422
