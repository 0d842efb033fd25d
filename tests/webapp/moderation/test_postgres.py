"""Moderation on PostgreSQL: migration, full-text search with the ``russian`` configuration,
the duplicate index and claiming by two editors at once (skipped without
SOVA_TEST_DATABASE_URL; fails under CI=true)."""

from __future__ import annotations

from webapp.extensions import db
from webapp.tasks.outbox import commit


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


def test_a_search_in_the_queue_reads_the_full_text_index_of_the_submissions(pg_app):
    """Nine questions in ten archived: a search among the questions not archived takes the
    partial full-text index of the questions not archived (``ix_question_fulltext_live``,
    migration 0025), also in the generic plan of a prepared statement (the statement's
    literal ``status <> 'archived'`` proves the index's predicate), and a search within one
    status never reads the whole table's index; both find what they should."""
    import sqlalchemy as sa

    from tests.scale_data import add_questions
    from webapp.moderation import queries

    add_questions(400, seed=4)
    db.session.execute(sa.text("UPDATE question SET status = 'archived' WHERE id % 10 <> 0"))
    commit()
    db.session.connection().exec_driver_sql("ANALYZE question")
    commit()
    # «… основан в 1040 году?»: question 40 only, in review (tests.scale_data.MIX)
    for f, index in (
        (queries.QueueFilter(status=None, search="1040"), "ix_question_fulltext_live"),
        (queries.QueueFilter(status="in_review", search="1040"), None),
    ):
        plan = generic_plan(queries.queue_statement(f).limit(51))
        assert index is None or index in plan, plan
        assert "ix_question_fulltext " not in plan.replace("\n", " ") + " ", plan
        assert [q.id for q in queries.queue_items(f)] == [40]


def test_a_search_sends_its_words_in_the_statement(pg_app):
    """The queue's search writes its words into the statement it sends (quoted), not as a
    parameter: a driver prepares a statement run often on one connection, and the generic
    plan of a bound search, which cannot know how many questions hold the words, may read
    the queue in its order computing each question's document. Quotes, backslashes
    and percent signs in the words stay words: nothing but the search changes."""
    import sqlalchemy as sa

    from webapp.moderation import queries
    from webapp.submissions.operations import create_question

    made = create_question(
        {
            "question": "Кто из мушкетёров, д'Артаньян или Атос, носил фамилию «100%\\»?",
            "answer": "—",
            "authors": [("Иван", "Минск", None)],
        },
        "web",
    )
    commit()
    sent: list[tuple[str, object]] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        sent.append((statement, parameters))

    sa.event.listen(db.engine, "before_cursor_execute", record)
    try:
        for words in ("д'Артаньян", "100%\\", "'); DROP TABLE question; --"):
            f = queries.QueueFilter(status=None, search=words)
            sent.clear()
            found = [q.id for q in queries.queue_page(f).items]
            assert found == ([] if "DROP" in words else [made.id]), words
            assert queries.queue_count(f) == len(found)
            searches = [(s, p) for s, p in sent if "plainto_tsquery" in s]
            assert len(searches) == 2
            for statement, parameters in searches:
                assert "plainto_tsquery('russian', '" in statement
                assert words not in repr(parameters)
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", record)
    assert db.session.scalar(sa.select(sa.func.count()).select_from(sa.text("question"))) == 1


def generic_plan(stmt) -> str:
    """EXPLAIN of ``stmt`` as a prepared statement with its parameters, in the plan
    PostgreSQL gives once it stops planning each call anew (``force_generic_plan``; a
    driver prepares a statement run often): a partial index serves it only when the
    statement writes out the index's predicate, not when a parameter stands in it. Scans
    other than by index are turned off (on a few hundred rows a plain scan is cheaper)."""
    import sqlalchemy as sa
    from sqlalchemy.dialects import postgresql

    dialect = postgresql.dialect(paramstyle="numeric_dollar")
    # the values a statement writes into its text (``literal_execute``) written as it sends
    # them, the rest left parameters
    compiled = stmt.compile(dialect=dialect, compile_kwargs={"render_postcompile": True})
    values = [compiled.params[name] for name in compiled.positiontup]
    literals = [
        str(sa.literal(v).compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
        for v in values
    ]
    connection = db.session.connection()
    for setting in ("enable_seqscan = off", "enable_indexscan = off"):
        connection.exec_driver_sql(f"SET LOCAL {setting}")
    connection.exec_driver_sql("SET LOCAL plan_cache_mode = force_generic_plan")
    connection.exec_driver_sql(f"PREPARE queue_search AS {compiled}")
    rows = connection.exec_driver_sql(f"EXPLAIN EXECUTE queue_search({', '.join(literals)})")
    plan = "\n".join(r[0] for r in rows)
    connection.exec_driver_sql("DEALLOCATE queue_search")
    commit()
    return plan
