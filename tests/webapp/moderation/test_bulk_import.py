"""The archive's bulk import (``webapp.moderation.bulk_import``, ``sova import --as
archive``) writes exactly the rows of the ORM path (``import_packet(…, as_="archive")``):
one set of packets imported both ways, every table compared (ids, the random token and the
clock aside), on SQLite and on PostgreSQL (skipped without SOVA_TEST_DATABASE_URL). Then
what a person sees at the command line: the progress bar, and a bad file that leaves
nothing."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import sqlalchemy as sa

from tests.helpers import KUBOK, KUBOK_PREFIX, kubok_images
from tests.scale_data import archive_packet
from webapp.extensions import db
from webapp.moderation import bulk_import
from webapp.submissions.models import Author, Question
from webapp.submissions.operations.packet_import import import_packet
from webapp.submissions.packet_files import read_packet_bytes, read_packet_file
from webapp.submissions.packet_images import read_bundle

SAMPLE = Path("webapp/submissions/sample_packet.4s")
#: Credited co-authors (the nominative is made from the genitive and the instrumental),
#: a name on two questions, one without a city.
CREDITS = """? Первый вопрос архива о Минске и его улицах, достаточно длинный для ключа.
! Ответ.
@ Анна Смирнова (Казань), при активном участии Евгения Миротина (Горки, Белоруссия)

? Второй вопрос архива: в соавторстве с Ольгой Ким, и снова Анна Смирнова.
! Другой ответ.
= Зачёт.
/ Комментарий.
^ https://example.org/1
@ Анна Смирнова (Казань), в соавторстве с Ольгой Ким

? Третий вопрос — автор без города, текст с «кавычками» и ё.
! Ёж.
@ Пётр Волков
"""


def packets(shared_dir: Path) -> list[tuple[str, object]]:
    """(origin, parsed packet): our sample, the credits above, a generated 60-question
    packet, the real Kubok packet (images) and a real db.chgk.info KOI8-R packet."""
    real = shared_dir / "data/chgk/alexander-pecheny__chgksuite/balt09-1.txt"
    return [
        ("sample.4s", read_packet_file(SAMPLE)),
        ("credits.4s", read_packet_bytes(CREDITS.encode(), "credits.4s")),
        ("generated.4s", read_packet_bytes(archive_packet(60).encode(), "generated.4s")),
        ("kubok.4s", read_packet_file(shared_dir / KUBOK)),
        ("balt09-1.txt", read_packet_file(real)),
    ]


def existing_authors() -> None:
    """Authors already in the database: «Анна Смирнова (Казань)» merged into a row of its
    own person (her questions go there), «Пётр Волков» without a city twice (the first
    one is taken), and «Ольга Ким» with an e-mail only (never reused for a packet)."""
    person = Author(name="Анна Смирнова", city=None)
    db.session.add(person)
    db.session.flush()
    db.session.add(Author(name="Анна Смирнова", city="Казань", merged_into_id=person.id))
    db.session.add_all([Author(name="Пётр Волков", city=None) for _ in range(2)])
    db.session.add(Author(name="Ольга Ким", city=None, email_hash="k" * 64))
    db.session.commit()


def ordered(rows) -> list[tuple]:
    return sorted(rows, key=repr)  # None beside strings


def snapshot(first_new_author: int) -> dict:
    """Every row the import writes, ids replaced by positions (questions in id order,
    authors made by the import by their name and city), the token and the clock left out
    (only checked to be set)."""
    conn = db.session.connection()
    qids = [r[0] for r in conn.execute(sa.text("SELECT id FROM question ORDER BY id"))]
    qpos = {qid: i for i, qid in enumerate(qids)}
    authors = {
        aid: (name, city, aid < first_new_author)
        for aid, name, city in conn.execute(sa.text("SELECT id, name, city FROM author"))
    }
    skip = {"id", "public_token", "created_at"}
    columns = [c.name for c in Question.__table__.c if c.name not in skip]
    rows = conn.execute(
        sa.text(f"SELECT {', '.join(columns)}, public_token, created_at FROM question ORDER BY id")  # noqa: S608
    ).all()
    assert all(r[-2] and r[-1] for r in rows)
    assert len({r[-2] for r in rows}) == len(rows)
    out = {"question": [tuple(r[:-2]) for r in rows]}
    out["author"] = ordered(
        (*r[1:-1], None if r[-1] is None else authors[r[-1]])
        for r in conn.execute(
            sa.text(
                "SELECT id, name, city, email_hash, email_encrypted, link_version, name_key,"
                " city_key, created_at IS NOT NULL, merged_into_id FROM author"
            )
        )
    )
    out["question_author"] = ordered(
        (qpos[q], authors[a], pos, name, city, confirmed, credit)
        for q, a, pos, name, city, confirmed, credit in conn.execute(
            sa.text(
                "SELECT question_id, author_id, position, name, city, confirmed_at, credit"
                " FROM question_author"
            )
        )
    )
    out["question_status_change"] = ordered(
        (qpos[q], *rest)
        for q, *rest in conn.execute(
            sa.text(
                "SELECT question_id, from_status, to_status, at IS NOT NULL, by_user_id,"
                " reason FROM question_status_change"
            )
        )
    )
    out["duplicate_bucket"] = ordered(
        (b, qpos[q])
        for b, q in conn.execute(sa.text("SELECT bucket, question_id FROM duplicate_bucket"))
    )
    out["question_image"] = ordered(
        (qpos[q], name, bool(file))
        for q, name, file in conn.execute(
            sa.text("SELECT question_id, name, file FROM question_image")
        )
    )
    out["outbox"] = conn.execute(sa.text("SELECT count(*) FROM outbox_message")).scalar()
    if conn.dialect.name == "sqlite":
        out["question_fts"] = ordered(
            (qpos[q], text, answer)
            for q, text, answer in conn.execute(
                sa.text("SELECT rowid, text, answer FROM question_fts")
            )
        )
    return out


def both_ways(app, shared_dir, tmp_path, monkeypatch) -> tuple[dict, dict]:
    """The packets imported by the ORM path, then (rolled back) by the bulk path in
    batches of 3, then 7 questions (so authors and ids carry over from batch to batch)."""
    existing_authors()
    first_new = db.session.scalar(sa.select(sa.func.max(Author.id))) + 1
    images = read_bundle(kubok_images(tmp_path / "images", f"{KUBOK_PREFIX}004.jpeg")).images
    uploads = tmp_path / "uploads"
    monkeypatch.setattr(bulk_import, "FIRST_BATCH", 3)
    monkeypatch.setattr(bulk_import, "BATCH", 7)
    shots = []
    for bulk in (False, True):
        total = 0
        for origin, packet in packets(shared_dir):
            if bulk:
                done = bulk_import.import_archive(
                    packet, origin=origin, images=images, uploads=uploads
                )
                total += len(done.ids)
                assert done.ids == sorted(done.ids)
            else:
                made = import_packet(
                    packet, "archive", origin=origin, images=images, uploads=uploads
                )
                total += len(made)
        db.session.flush()
        shots.append(snapshot(first_new))
        assert total == 10 + 3 + 60 + 75 + 36
        db.session.rollback()
    return shots[0], shots[1]


def test_bulk_import_writes_the_rows_of_the_orm_path(app, shared_dir, tmp_path, monkeypatch):
    orm, bulk = both_ways(app, shared_dir, tmp_path, monkeypatch)
    for table in orm:
        assert bulk[table] == orm[table], table
    assert len(orm["question"]) == 184 and orm["outbox"] == 0
    assert len(orm["question_fts"]) == 184
    assert len(orm["question_image"]) == 6  # Kubok: 7 references, one file missing
    assert len(orm["duplicate_bucket"]) > 20 * 184
    # the merged spelling's questions go to her person; Ольга Ким's e-mail row is not used
    links = {(row[3], row[4]): row[1] for row in orm["question_author"]}
    assert links["Анна Смирнова", "Казань"] == ("Анна Смирнова", None, True)
    assert links["Ольга Ким", None] == ("Ольга Ким", None, False)
    assert links["Евгений Миротин", "Горки, Белоруссия"][:2] == (
        "Евгений Миротин",
        "Горки, Белоруссия",
    )


def test_bulk_import_writes_the_rows_of_the_orm_path_on_postgresql(
    pg_app, shared_dir, tmp_path, monkeypatch
):
    orm, bulk = both_ways(pg_app, shared_dir, tmp_path, monkeypatch)
    for table in orm:
        assert bulk[table] == orm[table], table
    assert len(orm["question"]) == 184 and len(orm["question_image"]) == 6


def test_import_shows_a_progress_bar_on_stderr_when_asked(app, tmp_path):
    packet = tmp_path / "archive.4s"
    packet.write_text(archive_packet(25), encoding="utf-8")
    runner = app.test_cli_runner()
    shown = runner.invoke(args=["import", str(packet), "--as", "archive", "--progress"])
    assert shown.exit_code == 0, shown.output
    assert "archive.4s: imported 25 questions as archive" in shown.stdout
    bar = shown.stderr.replace("\r", "\n")
    assert "archive.4s:   0%" in bar and "0/25" in bar
    assert "archive.4s: 100%" in bar and "25/25" in bar
    # not a terminal (as here) and not asked: no bar (the same packet again: only the
    # warning that says so)
    quiet = runner.invoke(args=["import", str(packet), "--as", "archive"])
    assert quiet.exit_code == 0 and quiet.stderr == (
        f"Warning: {packet}: 25 of 25 questions are already in the database (the same "
        "question text); importing them again.\n"
    )
    assert db.session.scalar(sa.select(sa.func.count()).select_from(Question)) == 50


def test_a_file_failing_after_some_batches_leaves_nothing(app, tmp_path, monkeypatch):
    """A zip whose packet is imported batch by batch, then its image is refused: exit 2,
    the file named, not one of its questions, authors or index rows kept; the good file
    before it stays."""
    good = tmp_path / "good.4s"
    good.write_text(archive_packet(12, seed=2), encoding="utf-8")
    text = (
        archive_packet(30, seed=3) + "\n? Что на снимке? (img photo.png)\n! Сова.\n@ Новый Автор\n"
    )
    bad = tmp_path / "bad.zip"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("bad.4s", text)
        zf.writestr("photo.png", b"\x89PNG not an image at all")
    bad.write_bytes(buf.getvalue())
    monkeypatch.setattr(bulk_import, "FIRST_BATCH", 8)
    monkeypatch.setattr(bulk_import, "BATCH", 8)
    result = app.test_cli_runner().invoke(args=["import", str(good), str(bad), "--as", "archive"])
    assert result.exit_code == 2
    assert f"Error: {bad}: photo.png:" in result.stderr
    assert "good.4s: imported 12 questions as archive" in result.stdout
    assert "total: 12 questions from 1 file(s); 1 file(s) failed" in result.stdout
    count = lambda table: db.session.scalar(sa.text(f"SELECT count(*) FROM {table}"))  # noqa: E731, S608
    assert count("question") == 12
    assert count("question_status_change") == 12
    assert count("question_fts") == 12
    assert count("duplicate_bucket") == db.session.scalar(
        sa.text("SELECT count(*) FROM duplicate_bucket WHERE question_id <= 12")
    )
    assert db.session.scalar(sa.select(sa.func.count()).where(Author.name == "Новый Автор")) == 0
    assert not list((Path(app.config["SOVA_INSTANCE_PATH"]) / "uploads").glob("*"))
