"""Moderation on PostgreSQL: migration, full-text search with the ``russian`` configuration,
the duplicate index and claiming by two editors at once (skipped without
SOVA_TEST_DATABASE_URL; fails under CI=true)."""

from __future__ import annotations

from webapp.extensions import db
from webapp.jobs import commit


def test_search_duplicates_and_claims_on_postgresql(pg_app):
    from tests.webapp.moderation.claims import claim_race
    from webapp.accounts.operations import create_user
    from webapp.domain.text import matching_key
    from webapp.moderation import duplicates, queries
    from webapp.moderation.operations import precheck
    from webapp.submissions.operations import create_question

    texts = [
        "Назовите реку, на которой стоит Полоцк, древнейший город Беларуси.",
        "Какой композитор написал оперу «Князь Игорь», оставшуюся незаконченной?",
    ]
    made = []
    for t in texts:
        q = create_question(
            {"question": t, "answer": "—", "authors": [("Иван", "Минск", None)]}, "web"
        )
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

    # with these questions, reports and claims stored, the migration goes down cleanly
    from flask_migrate import downgrade, upgrade

    downgrade(revision="0002_moderation@-1")
    upgrade(revision="heads")
