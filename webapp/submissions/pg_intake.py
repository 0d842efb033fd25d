"""PostgreSQL: a viewer's new question written in one statement (for the load target).

The ORM writes a submission as five statements (author upsert, question, author link,
status record, outbox rows), each a round trip with the unit of work's bookkeeping around
it. Here the same rows are written by one data-modifying ``WITH`` statement: PostgreSQL
runs the inserts together and returns the new question's id and its outbox ids. The
statement is built from the tables' SQLAlchemy Core objects, and the question's column
values come from :func:`webapp.submissions.operations.question_values`, the one column
list the ORM path uses too; ``tests/webapp/submissions/test_pg_intake.py``
compares both paths column by column. SQLite (the embedded default) keeps the ORM path:
it has no data-modifying ``WITH`` and its full-text table is kept in step by the ORM flush
hook.

A repeated idempotency key inserts nothing (``ON CONFLICT (idempotency_key) DO NOTHING``,
which also waits for a first click still being committed) and the statement returns no row.
The author found by e-mail is never renamed: ``ON CONFLICT (email_hash)``
only returns its id; the name and city as given go on the question's author link.

Why a second path is kept beside the ORM's: measured with the two alternated, the ORM path
costs about twice the web process's CPU per submission on PostgreSQL, and the web
process's CPU is what bounds the viewers' form at the broadcast, the load the deployment
is sized for (docs/performance.md, «One intake path or two»).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import cast

from flask import current_app
from sqlalchemy import (
    Date,
    Integer,
    String,
    Table,
    bindparam,
    func,
    literal_column,
    null,
    select,
    true,
    union_all,
)
from sqlalchemy import cast as cast_
from sqlalchemy.dialects.postgresql import ARRAY, aggregate_order_by, insert

from webapp.core.crypto import encrypt, lookup_hash
from webapp.core.models import OutboxMessage, utcnow
from webapp.core.request_id import current_request_id
from webapp.domain.question_states import check_transition
from webapp.extensions import db
from webapp.submissions.models import (
    Author,
    Question,
    QuestionAuthor,
    QuestionCityCount,
    QuestionStatusChange,
    ViewerIntakeDay,
    ViewerQuestionDay,
    ViewerQuestionMonth,
    author_keys,
)


def _table(model: type) -> Table:
    """A mapped class's Core table (``__table__`` is typed as a plain FromClause)."""
    return cast(Table, model.__table__)  # type: ignore[attr-defined]


INTAKE_STATUS = "received"


def _param(column, name: str | None = None):
    """A bind parameter typed as ``column`` (so JSON, booleans and UTC times convert as
    they do in the ORM)."""
    return bindparam(name or column.key, type_=column.type)


@cache
def _statement(upsert_first: bool):
    """The one ``WITH q AS (INSERT question …), a AS (author), qa, sc, ob SELECT …``.

    ``upsert_first``: the first author is found or made by e-mail inside the statement
    (its row is never updated: ``DO UPDATE`` sets ``email_hash`` to itself only so that
    ``RETURNING`` gives the id of an existing row too); else ``:a_id`` is that author's id.
    Parameters: the question's columns (by column name), ``at``, ``a_name``, ``a_city``,
    ``a_email_hash``, ``a_email_encrypted``, ``a_name_key``, ``a_city_key``
    (:func:`~webapp.submissions.models.author_keys`) or ``a_id``, ``more_ids``/
    ``more_names``/``more_cities`` (co-authors, in order) and ``tasks``.
    """
    qt, at_, qat = _table(Question), _table(Author), _table(QuestionAuthor)
    sct, obt = _table(QuestionStatusChange), _table(OutboxMessage)
    at = _param(qt.c.created_at, "at")
    columns = [c for c in qt.c if c.key not in ("id", "created_at")]
    q = (
        insert(qt)
        .values({**{c.key: _param(c) for c in columns}, "created_at": at})
        .on_conflict_do_nothing(index_elements=[qt.c.idempotency_key])
        .returning(qt.c.id)
        .cte("q")
    )
    if upsert_first:
        new = insert(at_).from_select(
            [
                "name",
                "city",
                "email_hash",
                "email_encrypted",
                "link_version",
                "created_at",
                "name_key",
                "city_key",
            ],
            select(
                _param(at_.c.name, "a_name"),
                _param(at_.c.city, "a_city"),
                _param(at_.c.email_hash, "a_email_hash"),
                _param(at_.c.email_encrypted, "a_email_encrypted"),
                literal_column("0", Integer),
                at,
                _param(at_.c.name_key, "a_name_key"),
                _param(at_.c.city_key, "a_city_key"),
            ).select_from(q),
        )
        a = (
            new.on_conflict_do_update(
                index_elements=[at_.c.email_hash], set_={"email_hash": new.excluded.email_hash}
            )
            .returning(at_.c.id)
            .cte("a")
        )
        first = select(
            q.c.id,
            a.c.id,
            literal_column("0", Integer),
            _param(qat.c.name, "a_name"),
            _param(qat.c.city, "a_city"),
        ).select_from(q.join(a, true()))
    else:
        first = select(
            q.c.id,
            bindparam("a_id", type_=Integer),
            literal_column("0", Integer),
            _param(qat.c.name, "a_name"),
            _param(qat.c.city, "a_city"),
        ).select_from(q)
    more = (
        func.unnest(
            bindparam("more_ids", type_=ARRAY(Integer)),
            bindparam("more_names", type_=ARRAY(String)),
            bindparam("more_cities", type_=ARRAY(String)),
        )
        .table_valued("author_id", "name", "city", with_ordinality="position")
        .render_derived(name="more")
    )
    qa = (
        insert(qat)
        .from_select(
            ["question_id", "author_id", "position", "name", "city"],
            union_all(
                first,
                select(
                    q.c.id, more.c.author_id, more.c.position, more.c.name, more.c.city
                ).select_from(q.join(more, true())),
            ),
        )
        .returning(qat.c.city)
        .cte("qa")
    )
    sc = (
        insert(sct)
        .from_select(
            ["question_id", "from_status", "to_status", "at"],
            select(q.c.id, null(), _param(sct.c.to_status, "status"), at),
        )
        .cte("sc")
    )
    t = (
        func.unnest(bindparam("tasks", type_=ARRAY(String)))
        .table_valued("task", with_ordinality="n")
        .render_derived(name="t")
    )
    ob = (
        insert(obt)
        .from_select(
            ["task", "args", "created_at", "attempts", "request_id"],
            select(
                t.c.task,
                func.json_build_array(q.c.id),
                at,
                literal_column("0", Integer),
                _param(obt.c.request_id, "request_id"),
            )
            .select_from(q.join(t, true()))
            .order_by(t.c.n),
        )
        .returning(obt.c.id)
        .cte("ob")
    )
    # the statistics' counts, in the same statement: + 1 on the question's local day,
    # channel, status and first author's city (:class:`ViewerQuestionDay`), its day and
    # channel (:class:`ViewerIntakeDay`), its month, status and city
    # (:class:`ViewerQuestionMonth`); a new question has no decision yet
    channel = _param(qt.c.channel)
    local = func.timezone(bindparam("zone", type_=String), at)  # without a zone
    local_day = cast_(local, Date)
    city = func.coalesce(_param(qat.c.city, "a_city"), "")
    status = _param(qt.c.status)
    counts = []
    for model, keyed in (
        (ViewerQuestionDay, {"day": local_day, "channel": channel, "status": status, "city": city}),
        (ViewerIntakeDay, {"day": local_day, "channel": channel}),
        (
            ViewerQuestionMonth,
            {
                "month": cast_(func.date_trunc("month", local), Date),
                "status": status,
                "city": city,
            },
        ),
    ):
        table = _table(model)
        count = insert(table).from_select(
            [*keyed, "count"],
            select(*keyed.values(), literal_column("1", Integer))
            .select_from(q)
            .where(channel != "archive"),
        )
        counts.append(
            count.on_conflict_do_update(
                index_elements=[table.c[k] for k in keyed],
                set_={"count": table.c.count + count.excluded.count},
            ).cte(f"counted_{table.name}")
        )
    # the queue's counts by status and author's city (:class:`QuestionCityCount`): + 1 for
    # each city the new links give, once however many links give it
    cct = _table(QuestionCityCount)
    by_city = insert(cct).from_select(
        ["status", "city", "count"],
        select(status, qa.c.city, literal_column("1", Integer))
        .where(qa.c.city.is_not(None))
        .distinct(),
    )
    counts.append(
        by_city.on_conflict_do_update(
            index_elements=[cct.c.status, cct.c.city],
            set_={"count": cct.c.count + by_city.excluded.count},
        ).cte("counted_question_city_count")
    )
    outbox_ids = select(func.array_agg(aggregate_order_by(ob.c.id, ob.c.id))).scalar_subquery()
    return select(q.c.id, outbox_ids.label("outbox_ids")).add_cte(qa, sc, *counts)


@dataclass(frozen=True)
class Inserted:
    """The new question: ``id``, ``public_token`` and the ids of its outbox rows (ascending,
    in the order of ``tasks``)."""

    id: int
    public_token: str
    outbox_ids: tuple[int, ...]


def insert_received(
    values: dict,
    authors: list[tuple],
    *,
    tasks: list[str],
    more_author_ids: list[int],
    first_author_id: int | None = None,
    own_transaction: bool = False,
) -> Inserted | None:
    """Write one new question (status ``received``) with its authors, status record and
    outbox rows in one statement (PostgreSQL only): in the current transaction, or in
    autocommit on a connection of its own when ``own_transaction``.

    ``values``: the question's columns (:func:`webapp.submissions.operations.
    question_values`, ``status`` ``received``). ``authors``: ``[(name, city, email), …]``
    as given; each link stores that name and city, unconfirmed. The first author is found
    or made by e-mail inside the statement (never renamed) unless ``first_author_id`` is
    given (an author without e-mail, already resolved); the others are ``more_author_ids``
    (resolved by ``operations.upsert_author``). ``tasks``: outbox task names, each called
    with the question's id. Returns :class:`Inserted`, or None when the idempotency key is
    already stored (nothing was inserted). Raises IntegrityError or another DBAPIError from
    the database; ForbiddenTransition never (new → received).
    """
    check_transition(None, INTAKE_STATUS)
    if values["status"] != INTAKE_STATUS:
        raise ValueError("the one-statement intake writes received questions only")
    name, city, email = authors[0][:3]
    params = {
        **values,
        "at": values.get("created_at") or utcnow(),
        "a_name": name,
        "a_city": city,
        "more_ids": more_author_ids,
        "more_names": [a[0] for a in authors[1:]],
        "more_cities": [a[1] for a in authors[1:]],
        "tasks": tasks,
        "request_id": current_request_id(),
        "zone": current_app.config["SOVA_TIMEZONE"],
    }
    if first_author_id is None:
        if not email:
            raise ValueError("the first author has no e-mail: pass first_author_id")
        keys = author_keys(name, city)  # the merge page's pair keys (the ORM sets them itself)
        params.update(
            a_email_hash=lookup_hash(email),
            a_email_encrypted=encrypt(email),
            a_name_key=keys["name_key"],
            a_city_key=keys["city_key"],
        )
    else:
        params["a_id"] = first_author_id
    statement = _statement(first_author_id is None)
    if own_transaction:
        with db.engine.connect() as conn:
            row = (
                conn.execution_options(isolation_level="AUTOCOMMIT")
                .execute(statement, params)
                .first()
            )
    else:
        row = db.session.execute(statement, params).first()
    if row is None:
        return None
    return Inserted(
        id=row.id, public_token=values["public_token"], outbox_ids=tuple(row.outbox_ids or ())
    )
