"""`sova import` of a folder (every packet file in it, in the order of their names, one
transaction per file) and of a file over the web upload's size cap (contracts/api.md: a
bad file is named with its line, exit 2, nothing of it kept)."""

from __future__ import annotations

import shutil

import sqlalchemy as sa

from tests.scale_data import archive_packet
from webapp.extensions import db
from webapp.submissions.models import Author, Question
from webapp.submissions.operations import import_upload
from webapp.submissions.packet_files import MAX_PACKET_BYTES

SAMPLE = "webapp/submissions/sample_packet.4s"


def origins() -> dict[str, int]:
    """Stored questions per file (the part of ``origin`` before ``#``)."""
    rows = db.session.execute(sa.select(Question.origin)).scalars()
    found: dict[str, int] = {}
    for origin in rows:
        name = origin.split("#")[0]
        found[name] = found.get(name, 0) + 1
    return found


def test_a_folder_is_imported_file_by_file_in_the_order_of_names(app, tmp_path):
    folder = tmp_path / "dump"
    folder.mkdir()
    (folder / "b.4s").write_text(archive_packet(5, seed=2), encoding="utf-8")
    shutil.copy(SAMPLE, folder / "a.4s")
    (folder / "c.txt").write_text(archive_packet(3, seed=4), encoding="utf-8")
    (folder / "README.md").write_text("not a packet", encoding="utf-8")
    (folder / "inner").mkdir()  # a subfolder is not read
    (folder / "inner" / "d.4s").write_text(archive_packet(4, seed=5), encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["import", str(folder), "--as", "archive"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "a.4s: imported 10 questions as archive",
        "b.4s: imported 5 questions as archive",
        "c.txt: imported 3 questions as archive",
        "total: 18 questions from 3 file(s); 0 file(s) failed",
    ]
    assert origins() == {"a.4s": 10, "b.4s": 5, "c.txt": 3}
    first = db.session.scalars(sa.select(Question.origin).order_by(Question.id)).first()
    assert first == "a.4s#1"


def test_a_bad_file_in_a_folder_is_named_with_its_line_and_nothing_of_it_is_kept(app, tmp_path):
    """One transaction per file: the good files before and after it stay; of the bad one
    not a question, and not the author only it names."""
    folder = tmp_path / "dump"
    folder.mkdir()
    (folder / "1-good.4s").write_text(archive_packet(4, seed=2), encoding="utf-8")
    bad = archive_packet(3, seed=3) + "\n? Вопрос без ответа от нового автора\n@ Новый Автор\n"
    line = bad.splitlines().index("? Вопрос без ответа от нового автора") + 1
    (folder / "2-bad.4s").write_text(bad, encoding="utf-8")
    (folder / "3-good.4s").write_text(archive_packet(2, seed=4), encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["import", str(folder), "--as", "archive"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: {folder / '2-bad.4s'}, line {line}: question has no answer ('!' line)\n"
    )
    assert "total: 6 questions from 2 file(s); 1 file(s) failed" in result.stdout
    assert origins() == {"1-good.4s": 4, "3-good.4s": 2}
    assert db.session.scalar(sa.select(sa.func.count()).where(Author.name == "Новый Автор")) == 0


def test_a_folder_without_a_packet_file_is_an_error(app, tmp_path):
    (tmp_path / "notes.md").write_text("nothing here", encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["import", str(tmp_path), "--as", "archive"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: {tmp_path}: no packet file (.4s, .canon, .txt, .zip) in this folder\n"
    )
    assert origins() == {}


def test_the_progress_bar_of_a_folder_counts_its_files(app, tmp_path):
    for name, n in (("x.4s", 3), ("y.4s", 2)):
        (tmp_path / name).write_text(archive_packet(n, seed=len(name) + n), encoding="utf-8")
    result = app.test_cli_runner().invoke(
        args=["import", str(tmp_path), "--as", "archive", "--progress"]
    )
    assert result.exit_code == 0, result.output
    bar = result.stderr.replace("\r", "\n")
    assert "[1/2] x.4s: 100%" in bar and "3/3" in bar
    assert "[2/2] y.4s: 100%" in bar and "2/2" in bar


def test_a_file_over_the_upload_cap_is_taken_from_the_command_line(app, tmp_path):
    """10.7 MB (20 questions with long sources): the web upload refuses it, ``sova import``
    stores it whole."""
    text = archive_packet(20, seed=6).replace(
        "^ https://example.org/", "^ https://example.org/" + "источник " * 33000 + " "
    )
    data = text.encode("utf-8")
    assert len(data) > MAX_PACKET_BYTES
    big = tmp_path / "big.4s"
    big.write_bytes(data)
    refused = import_upload(
        "big.4s", data, None, as_="archive", channel=None, uploads=tmp_path / "uploads"
    )
    assert refused.error is not None and "10" in refused.error
    db.session.rollback()
    result = app.test_cli_runner().invoke(args=["import", str(big), "--as", "archive"])
    assert result.exit_code == 0, result.output
    assert "big.4s: imported 20 questions as archive" in result.stdout
    lengths = db.session.execute(sa.select(Question.sources)).scalars().all()
    assert len(lengths) == 20 and all(len(s[0]) > 290_000 for s in lengths)


def test_a_real_folder_of_packets(app, shared_dir):
    """The chgksuite folder of the shared data in one command: its 4s («.canon») and
    db.chgk.info («.txt») packets are stored, file by file; two of its «.txt» files are
    chgksuite's own source texts, not packets: each is named with its line, nothing of it
    kept, exit 2."""
    folder = shared_dir / "data/chgk/alexander-pecheny__chgksuite"
    result = app.test_cli_runner().invoke(args=["import", str(folder), "--as", "archive"])
    assert result.exit_code == 2
    assert result.stdout.splitlines()[-1] == (
        "total: 1937 questions from 14 file(s); 2 file(s) failed"
    )
    outside = "text outside any field: a 4s line must start with a marker such as"
    assert f"Error: {folder / 'bkd_2021_all.txt'}, line 2: {outside}" in result.stderr
    assert f"Error: {folder / 'borromeo.txt'}, line 1: {outside}" in result.stderr
    stored = origins()
    assert sum(stored.values()) == 1937
    assert stored["balt09-1.txt"] == 36 and stored["schr18_otbor_ssi_all.docx.canon"] == 538
    assert "bkd_2021_all.txt" not in stored and "borromeo.txt" not in stored
