"""Packet images. The real Kubok packet (../shared/data/chgk) refers to
seven image files by ``(img …)``; they come with it in a folder or a zip (``sova import``,
the editors' import page), a missing one fails the pre-check and blocks the table's lock, the
editor attaches it on the question page, and the envelopes and host cards print the images
(image XObjects) instead of the references, and an inline handout once."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pypdf
import pytest
from PIL import Image

from tests.helpers import KUBOK, KUBOK_IMAGES, KUBOK_PREFIX, image_bytes, kubok_images
from tests.webapp.games import helpers as h
from webapp.core.models import Document
from webapp.extensions import db
from webapp.games.operations import GameConflict, assign_envelopes, lock_table, request_envelopes
from webapp.games.operations.table import check_table, replace_slot
from webapp.moderation.images import HANDOUT, ImageAttachError, attach_image
from webapp.moderation.models import ModerationReport, QuestionSignoff
from webapp.moderation.operations import decide, precheck
from webapp.submissions.models import Question, QuestionImage
from webapp.tasks.outbox import commit

PREFIX = KUBOK_PREFIX
REFS = KUBOK_IMAGES
MISSING = f"{PREFIX}004.jpeg"


def images_folder(tmp_path: Path, skip: str | None = MISSING) -> Path:
    return kubok_images(tmp_path / "kubok-images", skip)


def uploads(app) -> Path:
    return Path(app.config["SOVA_INSTANCE_PATH"]) / "uploads"


def by_text(start: str) -> Question:
    """The imported question whose text (without its handout block) starts like this."""
    return next(
        q for q in db.session.scalars(db.select(Question)) if start in q.text.split("\n", 3)[-1]
    )


def checks_of(q: Question) -> dict[str, dict]:
    report = db.session.scalar(db.select(ModerationReport).filter_by(question_id=q.id))
    return {c["name"]: c for c in report.checks}


@pytest.fixture
def kubok(app, shared_dir, tmp_path, drain, saved_state):
    """The Kubok packet imported with ``sova import --images FOLDER`` (every file but
    …_004.jpeg), pre-checked by the queued tasks; the command's output. Imported once per
    session, a copy of the database and files for each later test (``saved_state``)."""

    def build() -> str:
        result = app.test_cli_runner().invoke(
            args=[
                "import",
                str(shared_dir / KUBOK),
                "--as",
                "submissions",
                "--images",
                str(images_folder(tmp_path)),
            ]
        )
        assert result.exit_code == 0, result.output
        drain()
        return result.output

    output = saved_state("kubok", build)
    assert "Kubok_knyagini_Olgi-2015.docx.canon: 6 image(s) attached" in output
    assert f"no file for 1 image(s): {MISSING}" in output
    return output


# --- import and pre-check -------------------------------------------------------------------


def test_import_with_a_folder_attaches_the_images_and_the_missing_one_fails_the_precheck(
    app, kubok
):
    altar = by_text("Перед вами створки алтаря")
    assert altar.handout == f"(img {MISSING})"
    assert altar.images == []
    assert checks_of(altar)["images_missing"] == {
        "name": "images_missing",
        "ok": False,
        "message": f"нет файла изображения: {MISSING}",
    }
    report = db.session.scalar(db.select(ModerationReport).filter_by(question_id=altar.id))
    assert " images_missing " in report.flags
    # the Prague question: its handout image and the one in its comment, both stored
    prague = by_text("Автор вопроса сравнил Прагу")
    assert sorted(prague.image_files) == [f"{PREFIX}001.jpeg", f"{PREFIX}001.png"]
    for name, stored in prague.image_files.items():
        with Image.open(uploads(app) / stored) as img:
            assert img.size == REFS[name]
    assert checks_of(prague)["images_missing"] == {
        "name": "images_missing",
        "ok": True,
        "message": "",
    }
    # a question without references passes too; 6 rows for 6 references with files
    assert db.session.scalar(db.select(db.func.count()).select_from(QuestionImage)) == 6


def test_import_a_zip_with_the_packet_and_its_images(app, shared_dir, tmp_path):
    bundle = tmp_path / "kubok.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        zf.write(shared_dir / KUBOK, "kubok/Kubok_knyagini_Olgi-2015.docx.canon")
        for name in REFS:
            zf.writestr(f"kubok/images/{name}", image_bytes(name))
        zf.writestr("__MACOSX/kubok/._x.png", b"resource fork")
    result = app.test_cli_runner().invoke(args=["import", str(bundle), "--as", "submissions"])
    assert result.exit_code == 0, result.output
    assert "kubok.zip: imported 75 questions as submissions" in result.output
    assert "kubok.zip: 7 image(s) attached" in result.output
    assert "no file for" not in result.output
    assert by_text("Перед вами створки алтаря").image_files.keys() == {MISSING}


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


PACKET = (
    "? [Раздаточный материал:\n(img altar.jpg)]\nПеред вами створки алтаря. Назовите "
    "символическую ЕЁ.\n! Ампутация.\n^ Источник.\n@ Максим Мерзляков (Воронеж)\n"
).encode()


@pytest.mark.parametrize(
    ("members", "message"),
    [
        (
            {"p.4s": PACKET, "../altar.jpg": b"x"},
            "Недопустимое имя файла в архиве: ../altar.jpg",
        ),
        (
            {"p.4s": PACKET, "/etc/altar.jpg": b"x"},
            "Недопустимое имя файла в архиве: /etc/altar.jpg",
        ),
        (
            {"p.4s": PACKET, **{f"{n}.png": b"x" for n in range(501)}},
            "Слишком много файлов: не более 500.",
        ),
        (
            {"p.4s": PACKET, "a/altar.jpg": b"1", "b/altar.jpg": b"2"},
            "Два файла с именем altar.jpg.",
        ),
        ({"p.4s": PACKET, "q.txt": PACKET}, "В архиве больше одного файла пакета: p.4s и q.txt."),
        ({"altar.jpg": b"x"}, "В архиве нет файла пакета (.4s или .txt)."),
        (
            {"p.4s": PACKET, "altar.jpg": b"not an image at all"},
            "altar.jpg: Файл не является изображением JPEG, PNG или WebP.",
        ),
    ],
    ids=["traversal", "absolute", "members", "same-name", "two-packets", "no-packet", "not-image"],
)
def test_import_page_refuses_a_bad_zip_and_writes_nothing(app, login, client, members, message):
    login("editor")
    resp = client.post(
        "/editor/import",
        data={
            "packet": (io.BytesIO(_zip(members)), "p.zip"),
            "as_": "submissions",
            "channel": "import",
        },
        content_type="multipart/form-data",
    )
    assert resp.status_code == 422
    assert f"p.zip: {message}" in resp.get_data(as_text=True)
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0
    assert not uploads(app).is_dir() or list(uploads(app).iterdir()) == []


def test_a_zip_bomb_stops_at_the_uncompressed_limit(app, login, client):
    """One member of 100 MB + 1 byte of zeros (about 100 KB compressed)."""
    from webapp.submissions.packet_images import MAX_TOTAL_BYTES

    bomb = _zip({"p.4s": PACKET, "altar.png": bytes(MAX_TOTAL_BYTES + 1)})
    assert len(bomb) < 1024 * 1024
    login("editor")
    resp = client.post(
        "/editor/import",
        data={"packet": (io.BytesIO(bomb), "p.zip"), "as_": "submissions", "channel": "import"},
        content_type="multipart/form-data",
    )
    assert resp.status_code == 422
    assert "p.zip: Файлы пакета слишком велики: не более 100 МБ в распакованном виде." in (
        resp.get_data(as_text=True)
    )
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0


def test_import_page_takes_a_packet_and_a_zip_of_images(app, login, client, drain):
    login("editor")
    resp = client.post(
        "/editor/import",
        data={
            "packet": (io.BytesIO(PACKET), "altar.4s"),
            "images": (
                io.BytesIO(_zip({"img/ALTAR.JPG": image_bytes("a.jpeg", (50, 40))})),
                "i.zip",
            ),
            "as_": "submissions",
            "channel": "import",
        },
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert "altar.4s: импортировано вопросов — 1. Изображений приложено: 1." in resp.get_data(
        as_text=True
    )
    q = db.session.scalars(db.select(Question)).one()
    assert list(q.image_files) == ["altar.jpg"]  # the reference's name; the file differs in case
    drain()
    assert checks_of(q)["images_missing"]["ok"] is True


def test_import_page_names_the_missing_images(login, client):
    login("editor")
    resp = client.post(
        "/editor/import",
        data={
            "packet": (io.BytesIO(PACKET), "altar.4s"),
            "as_": "submissions",
            "channel": "import",
        },
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert (
        "altar.4s: импортировано вопросов — 1. Нет файлов изображений (1): altar.jpg — "
        "приложите их к вопросам." in resp.get_data(as_text=True)
    )


# --- the editor attaches an image -----------------------------------------------------------


def test_editor_attaches_the_missing_image_and_the_precheck_passes(app, kubok, login, client):
    altar = by_text("Перед вами створки алтаря")
    login("editor")
    resp = client.post(
        f"/editor/questions/{altar.id}/images",
        data={"ref": MISSING, "image": (io.BytesIO(image_bytes(MISSING)), "altar.jpeg")},
        content_type="multipart/form-data",
    )
    assert resp.status_code == 302
    db.session.expire_all()
    assert list(altar.image_files) == [MISSING]
    assert checks_of(altar)["images_missing"] == {
        "name": "images_missing",
        "ok": True,
        "message": "",
    }
    assert altar.history[-1].reason == f"изображение {MISSING} приложено редактором"
    page = client.get(f"/editor/questions/{altar.id}").get_data(as_text=True)
    assert f"Изображение {MISSING} приложено." in page
    shown = page.split('<blockquote class="question-text">', 1)[1].split("<h2>")[0]
    assert shown.count(f'src="/uploads/{altar.image_files[MISSING]}"') == 1  # the handout
    assert "(img" not in shown  # the edit form still has the text as written


def test_attach_refuses_a_name_the_question_does_not_use_and_a_non_image(app, kubok, login, client):
    altar = by_text("Перед вами створки алтаря")
    with pytest.raises(ImageAttachError, match="^В вопросе нет ссылки на изображение x.png.$"):
        attach_image(altar, "x.png", image_bytes("x.png", (5, 5)), uploads(app), None)
    login("editor")
    resp = client.post(
        f"/editor/questions/{altar.id}/images",
        data={"ref": MISSING, "image": (io.BytesIO(b"GIF89a not really"), "altar.jpeg")},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert (
        "Изображение не приложено: Файл не является изображением JPEG, PNG или WebP."
        in resp.get_data(as_text=True)
    )
    db.session.expire_all()
    assert altar.images == []
    # the handout image of a question without references
    other = by_text("Рассказывая об упорной борьбе биатлонистов")
    attach_image(other, HANDOUT, image_bytes("h.png", (9, 9)), uploads(app), None)
    assert other.handout_image and (uploads(app) / other.handout_image).is_file()


def test_only_editors_attach_images(app, kubok, login, client):
    altar = by_text("Перед вами створки алтаря")
    login("host")
    resp = client.post(
        f"/editor/questions/{altar.id}/images",
        data={"ref": MISSING, "image": (io.BytesIO(image_bytes(MISSING)), "a.jpeg")},
        content_type="multipart/form-data",
    )
    assert resp.status_code == 403


# --- the table's lock and the printed documents -----------------------------------------------


def _approve(questions: list[Question]) -> None:
    """Approve and sign off (two editors) the imported, pre-checked questions."""
    from tests.webapp.games.helpers import signer_id
    from webapp.accounts.operations import create_user

    approver, _ = create_user("approver@test.local", "editor", password="approver-pw")
    db.session.flush()
    for q in questions:
        decide(q, "approve", approver.id, None)
        db.session.add(QuestionSignoff(question_id=q.id, user_id=signer_id()))
    db.session.flush()


@pytest.fixture
def kubok_game(app, kubok):
    """A 2023 table whose sectors 2, 3, 5, 6 hold Kubok questions: the inline text handout
    «IO(OH)5» (2), the altar whose image is missing (3), the Rathergate text + image handout
    (5) and the Lausanne monument (6)."""
    picks = {
        2: by_text("В статье англоязычной Википедии, посвящённой этой кислоте"),
        3: by_text("Перед вами створки алтаря"),
        5: by_text("В 2004 году телеканал CBS"),
        6: by_text("В каком европейском городе находится памятник"),
    }
    h.approved_questions(17)
    g = h.game(h.season(), table={"blitz": 4, "superblitz": None, "sector13": None}, status="draft")
    assign_envelopes(g)
    for q in picks.values():
        precheck(q.id)
    _approve(list(picks.values()))
    for sector, q in picks.items():
        replace_slot(g, sector, 1, q.id)
    commit()
    return g, picks


def test_a_missing_image_blocks_the_lock(app, kubok_game):
    g, picks = kubok_game
    altar = picks[3]
    problem = f"сектор 3, вопрос 1: у вопроса №{altar.id} нет файла изображения {MISSING}"
    assert check_table(g)["problems"] == [problem]
    with pytest.raises(GameConflict) as refused:
        lock_table(g, None)
    assert str(refused.value) == f"стол не готов: {problem}"
    assert g.table_locked_at is None
    attach_image(altar, MISSING, image_bytes(MISSING), uploads(app), None)
    assert lock_table(g, None)["complete"] is True


def _pdfs(app, drain, g) -> dict[str, pypdf.PdfReader]:
    docs = request_envelopes(g, copies=1)
    commit()
    drain()
    out = {}
    root = Path(app.config["SOVA_DOCUMENTS_PATH"])
    for d in docs:
        d = db.session.get(Document, d.id)
        assert d.status == "ready", d.error
        out[d.kind] = pypdf.PdfReader(io.BytesIO((root / d.path).read_bytes()))
    return out


def _page(reader: pypdf.PdfReader, words: str):
    (page,) = [p for p in reader.pages if words in " ".join(p.extract_text().split())]
    return page


def _image_sizes(reader: pypdf.PdfReader) -> set[tuple[int, int]]:
    """(width, height) of every image XObject of the document (WeasyPrint draws each page
    as a form whose resources hold the images)."""
    sizes = set()
    for page in reader.pages:
        for img in page.images:
            sizes.add(img.image.size)
    return sizes


def test_envelopes_and_host_cards_print_the_images_and_the_handout_once(app, kubok_game, drain):
    g, picks = kubok_game
    attach_image(picks[3], MISSING, image_bytes(MISSING), uploads(app), None)
    lock_table(g, None)
    commit()
    pdfs = _pdfs(app, drain, g)
    env, host = pdfs["envelopes"], pdfs["host_cards"]
    env_text = " ".join(" ".join(p.extract_text().split()) for p in env.pages)
    host_text = " ".join(" ".join(p.extract_text().split()) for p in host.pages)
    cards_text = " ".join(" ".join(p.extract_text().split()) for p in host.pages[1:])
    assert "(img" not in env_text and "(img" not in host_text
    assert PREFIX not in env_text and PREFIX not in cards_text  # only the props list names files
    # the inline text handout once, in the handout box
    assert env_text.count("IO(OH)5") == 1
    assert "Раздаточный материал: IO(OH)5 В статье англоязычной Википедии" not in env_text
    io_page = " ".join(_page(env, "IO(OH)5").extract_text().split())
    assert "В статье англоязычной Википедии" in io_page
    assert io_page.index("В статье") < io_page.index("Раздаточный материал: IO(OH)5")
    # the images, embedded (image XObjects of the files' own sizes): the altar's (attached
    # by the editor), the Lausanne monument's and the Rathergate excerpt's
    handouts = {REFS[MISSING], REFS[f"{PREFIX}002.jpeg"], REFS[f"{PREFIX}002.png"]}
    assert _image_sizes(env) == handouts
    assert _image_sizes(host) == handouts
    assert env_text.count("Выдержка из документов скандала Rathergate:") == 1
    # the props list: an image, not a text handout
    props = " ".join(host.pages[0].extract_text().split())
    assert f"Сектор 3: раздаточный материал (изображение {MISSING})" in props
    assert "Сектор 2: раздаточный материал (текст): IO(OH)5" in props
    assert (
        "Сектор 5: раздаточный материал (текст): Выдержка из документов скандала Rathergate:; "
        f"раздаточный материал (изображение {PREFIX}002.png)" in props
    )
    assert "(текст): (img" not in props


def test_a_comment_image_prints_on_the_host_card_only(app, kubok_game, drain):
    """The Prague question: its handout image …_001.png on both, the photo of its comment
    (…_001.jpeg) on the host card only."""
    g, picks = kubok_game
    _prague_in_sector_2(app, g, picks)
    commit()
    pdfs = _pdfs(app, drain, g)
    env, host = pdfs["envelopes"], pdfs["host_cards"]
    handouts = {REFS[MISSING], REFS[f"{PREFIX}002.jpeg"], REFS[f"{PREFIX}002.png"]}
    assert _image_sizes(env) == handouts | {REFS[f"{PREFIX}001.png"]}
    assert _image_sizes(host) == handouts | {REFS[f"{PREFIX}001.png"], REFS[f"{PREFIX}001.jpeg"]}
    card = " ".join(_page(host, "Рыбий глаз").extract_text().split())
    assert "Комментарий: Чехия напоминает силуэтом рыбу" in card
    assert "Вот этот снимок на фишай:" in card and "(img" not in card


def _editor(email: str) -> int:
    from webapp.accounts.operations import create_user

    user, _ = create_user(email, "editor", password="pw-" + email)
    db.session.flush()
    return user.id


def _prague_in_sector_2(app, g, picks) -> Question:
    """The Prague question (handout block with …_001.png, the photo …_001.jpeg in its
    comment) approved into sector 2 of the Kubok table, which is then locked."""
    from tests.webapp.games.helpers import signer_id

    prague = by_text("Автор вопроса сравнил Прагу")
    precheck(prague.id)
    decide(prague, "approve", _editor("approver2@test.local"), None)
    db.session.add(QuestionSignoff(question_id=prague.id, user_id=signer_id()))
    replace_slot(g, 2, 1, prague.id)
    attach_image(picks[3], MISSING, image_bytes(MISSING), uploads(app), None)
    lock_table(g, None)
    return prague


def test_the_console_shows_the_handout_once_with_its_image(app, kubok_game, login, client):
    g, picks = kubok_game
    prague = _prague_in_sector_2(app, g, picks)
    h.startable(g)
    commit()
    login("host")
    assert (
        client.post(f"/games/{g.id}/console", data={"type": "spin", "sector": "2"}).status_code
        == 302
    )
    page = client.get(f"/games/{g.id}/console").get_data(as_text=True)
    shown = page.split('<section id="console-question"', 1)[1].split("</section>")[0]
    stored = prague.image_files[f"{PREFIX}001.png"]
    assert shown.count("Раздаточный материал") == 1
    assert shown.count(f'src="/uploads/{stored}"') == 1  # in the handout box
    assert "(img" not in shown and PREFIX not in shown
    text = shown.split('<blockquote class="question-text">', 1)[1].split("</blockquote>")[0]
    assert text.startswith("Автор вопроса сравнил Прагу")
    # the console's JSON state: the text without the block, the handout as an image
    c = client.get(f"/games/{g.id}/console", headers={"Accept": "application/json"}).json
    current = c["console"]["current"]
    assert current["text"].startswith("Автор вопроса сравнил Прагу")
    assert current["parts"]["handout"] == [{"image": f"{PREFIX}001.png", "file": stored}]
    assert current["parts"]["text"] == [{"text": current["text"]}]


# --- question previews on staff pages --------------------------------------------------------


def _previews(page: str, start: str) -> list[str]:
    """The page's lines (tags dropped) that show the Prague question's preview."""
    import re

    plain = re.sub(r"<[^>]+>", "", page)
    return [" ".join(line.split()) for line in plain.splitlines() if start in line]


def test_staff_previews_mark_the_handout_and_show_no_image_reference(
    app, kubok_game, login, client, drain
):
    """The editors' queue, the bulk-approve preview, the table page and the page of the
    played game show the Prague question as «[раздаточный материал] Автор вопроса…»."""
    g, picks = kubok_game
    prague = by_text("Автор вопроса сравнил Прагу")
    expected = "[раздаточный материал] Автор вопроса сравнил Прагу"
    login("editor")
    queue = client.get("/editor/queue", query_string={"q": "сравнил Прагу"})
    assert queue.status_code == 200
    (line,) = _previews(queue.get_data(as_text=True), "сравнил Прагу")
    assert line.startswith(expected)
    bulk = client.post("/editor/bulk", data={"decision": "approve", "ids": str(prague.id)})
    (line,) = _previews(bulk.get_data(as_text=True), "сравнил Прагу")
    assert line.startswith(f"№ {prague.id} (на рассмотрении): {expected}")
    _prague_in_sector_2(app, g, picks)
    commit()
    login("producer")
    for url, shown in (
        (f"/games/{g.id}/table", f"2.1 — №{prague.id}: {expected}"),
        (f"/games/{g.id}", f"1. {expected}"),
    ):
        page = client.get(url).get_data(as_text=True)
        lines = _previews(page, "сравнил Прагу")
        assert len(lines) == 1 and lines[0].startswith(shown), (url, lines)
        assert "(img" not in page and "Раздаточный материал:" not in page


def test_the_duplicate_comparison_marks_the_handout_and_shows_no_image_reference(
    app, kubok, login, client
):
    """The question page's «Возможные повторы» compared the raw
    texts, «[Раздаточный материал: (img …)] Автор вопроса…» on both sides."""
    from webapp.moderation.operations import precheck
    from webapp.submissions.operations import create_question

    prague = by_text("Автор вопроса сравнил Прагу")
    copy = create_question(
        {
            "question": prague.text,
            "answer": prague.answer,
            "authors": [("Мария Лис", "Гомель", "lis@example.com")],
        },
        "web",
    )
    commit()
    precheck(copy.id)
    commit()
    login("editor")
    page = client.get(f"/editor/questions/{copy.id}").get_data(as_text=True)
    section = page.split("<h3>Возможные повторы</h3>", 1)[1].split("</div></div>", 1)[0]
    assert "Сходство <strong>100\u00a0%</strong> с вопросом № " in section
    assert section.count("[раздаточный материал] Автор вопроса сравнил Прагу") == 2
    assert "(img" not in section and "Раздаточный материал:" not in section
