"""A benchmark's own PostgreSQL database: made fresh, dropped afterwards."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def scratch_postgres(base: str, label: str) -> Iterator[str]:
    """A new, empty database ``sova_bench_<label>_<8 hex>`` on the server of ``base`` (a
    SQLAlchemy URL of any database there, e.g. ``…/postgres``); yields its URL and drops it
    (``WITH (FORCE)``) afterwards, whatever happened."""
    import sqlalchemy as sa

    name = f"sova_bench_{label}_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield sa.engine.make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
