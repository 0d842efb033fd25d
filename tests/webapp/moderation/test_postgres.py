"""Moderation on PostgreSQL: migration, full-text search with the ``russian`` configuration,
the duplicate index and claiming by two editors at once (skipped without
SOVA_TEST_DATABASE_URL; fails under CI=true)."""

from __future__ import annotations

import os
import uuid

import pytest
import sqlalchemy as sa

from webapp.extensions import db
from webapp.jobs import commit


@pytest.fixture
def pg_app(tmp_path):
    base = os.environ.get("SOVA_TEST_DATABASE_URL")
    if not base:
        if os.environ.get("CI") == "true":
            pytest.fail("SOVA_TEST_DATABASE_URL is not set (required when CI=true)")
        pytest.skip("SOVA_TEST_DATABASE_URL is not set: PostgreSQL test")
    from flask_migrate import downgrade, upgrade

    from webapp.app import create_app

    name = f"sova_mod_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.engine.make_url(base).set(database=name).render_as_string(hide_password=False)
    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "SOVA_DATABASE_URL": url,
                      "SOVA_INSTANCE_PATH": str(tmp_path / "instance"),
                      "SOVA_BROKER_URL": "memory://", "SOVA_OUTBOX_AUTOSEND": False})
    try:
        with app.app_context():
            upgrade(revision="heads")
            yield app
            db.session.remove()
            downgrade(revision="0002_moderation@-1")  # the migration goes down cleanly
            upgrade(revision="heads")
            db.session.remove()
            db.engine.dispose()
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_search_duplicates_and_claims_on_postgresql(pg_app):
    from tests.webapp.moderation.claims import claim_race
    from webapp.accounts.operations import create_user
    from webapp.domain.text import matching_key
    from webapp.moderation import duplicates, queries
    from webapp.moderation.operations import precheck
    from webapp.submissions.operations import create_question

    texts = ["Назовите реку, на которой стоит Полоцк, древнейший город Беларуси.",
             "Какой композитор написал оперу «Князь Игорь», оставшуюся незаконченной?"]
    made = []
    for t in texts:
        q = create_question({"question": t, "answer": "—",
                             "authors": [("Иван", "Минск", None)]}, "web")
        commit()
        precheck(q.id)
        commit()
        made.append(q.id)
    f = queries.QueueFilter(search="композиторы написали")  # russian stemming
    assert [q.id for q in queries.queue(filters=f)[0]] == [made[1]]
    found = duplicates.find_duplicates(matching_key(texts[0].replace("Полоцк", "Пoлоцк")))
    assert found == [{"question_id": made[0], "score": 100.0, "status": "in_review"}]

    users = [create_user(f"e{i}@test.local", "editor")[0].id for i in range(2)]
    commit()
    db.session.remove()
    assert claim_race(pg_app, made[0], users) == ["conflict", "won"]
