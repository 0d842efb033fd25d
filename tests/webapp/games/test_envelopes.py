"""Envelope and host-card PDFs of a game: serials per copy, handout images, props list,
stress marks, the question on the host card, and no text outside the page (pypdf)."""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

import pypdf
import pytest
from PIL import Image, ImageFont

from tests.webapp.games import helpers as h
from webapp.core.models import Document
from webapp.extensions import db
from webapp.games.operations import GameError, assign_envelopes, lock_table, request_envelopes
from webapp.games.queries import copy_by_serial
from webapp.submissions.images import store_image

STRESS = "Назови\u0301те го\u0301род"  # combining acute accents: stress marks
A4_W, A4_H = 595.28, 841.89
MM = 72 / 25.4


FONTS = Path("/usr/share/fonts/truetype/dejavu")


@cache
def _font(base_font: str) -> ImageFont.FreeTypeFont:
    """The system DejaVu file of a PDF font name (``ABCDEF+DejaVuSerif-Bold``)."""
    name = base_font.lstrip("/").split("+", 1)[-1]  # "DejaVu-Sans-Bold"
    family, _, style = name.removeprefix("DejaVu-").partition("-")
    name = f"DejaVu{family}" + (f"-{style.replace('-', '')}" if style else "")
    return ImageFont.truetype(str(FONTS / f"{name}.ttf"), 1000)


def fragments(page) -> list[tuple[float, float, float, str]]:
    """(x, right, y, text) of every text run in trim-box coordinates; the
    run's width is measured with the very DejaVu font the PDF embeds (advance widths)."""
    out = []

    def visit(text, cm, tm, font_dict, font_size):
        text = text.rstrip("\n")
        if not text.strip() or font_dict is None:
            return
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        size = font_size * (tm[0] ** 2 + tm[1] ** 2) ** 0.5 * (cm[0] ** 2 + cm[1] ** 2) ** 0.5
        width = _font(str(font_dict["/BaseFont"])).getlength(text.replace("\u200b", "")) / 1000
        out.append((x, x + width * size, y, text))

    page.extract_text(visitor_text=visit)
    return out


@pytest.fixture
def game(app, tmp_path):
    """A locked 2023 table: stress marks in sector 1, a handout image in sector 2, a long
    text list in sector 3."""
    qs = h.approved_questions(17)
    g = h.game(h.season(), table={"blitz": 4, "superblitz": None, "sector13": None}, status="draft")
    assign_envelopes(g)
    envs = {e.sector: e for e in g.envelopes}
    envs[1].questions[0].question.text = f"{STRESS}, где родилась сова?"
    buf = io.BytesIO()
    Image.new("RGB", (40, 20), (200, 30, 30)).save(buf, format="PNG")
    uploads = Path(app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    q2 = envs[2].questions[0].question
    q2.handout_image = store_image(buf.getvalue(), uploads)
    q3 = envs[3].questions[0].question
    q3.handout = "\n".join(f"— пункт списка {n}: " + "длинное слово" * 8 for n in range(5))
    lock_table(g, None)
    h.commit()
    assert len(qs) == 17
    return g


@pytest.fixture
def long_game(game):
    """``game`` with sector 3's question a 900-letter word and five long source addresses:
    long enough to wrap over many lines (never past the margins), short enough that the
    block fits its sheet."""
    q3 = next(e for e in game.envelopes if e.sector == 3).questions[0].question
    q3.text = "Начало " + "Щ" * 900 + " конец"
    q3.sources = [f"https://example.org/{'путь/' * 30}{n}" for n in range(5)]
    h.commit()
    return game


def rendered(drain, game, copies=2):
    docs = request_envelopes(game, copies=copies)
    h.commit()
    drain()
    db.session.expire_all()
    root = Path(db.get_app().config["SOVA_DOCUMENTS_PATH"]) if hasattr(db, "get_app") else None
    out = {}
    for d in docs:
        d = db.session.get(Document, d.id)
        assert d.status == "ready", d.error
        base = root or Path(__import__("flask").current_app.config["SOVA_DOCUMENTS_PATH"])
        out[d.kind] = pypdf.PdfReader(io.BytesIO((base / d.path).read_bytes()))
    return out


def text_of(reader, index):
    return " ".join(reader.pages[index].extract_text().split())


def test_copies_serials_images_props_and_stress_marks(game, drain):
    """One render of two copies for every check of the printed set."""
    pdfs = rendered(drain, game, copies=2)
    no_text_outside_the_trim_box(pdfs)
    env, host = pdfs["envelopes"], pdfs["host_cards"]
    assert len(env.pages) >= 26  # 13 sectors per copy (the long sector may take more)
    per_copy = len(env.pages) // 2
    assert f"Экземпляр № {game.id}-E01" in text_of(env, 0)
    assert f"Экземпляр № {game.id}-E01" in text_of(env, per_copy - 1)
    assert f"Экземпляр № {game.id}-E02" in text_of(env, per_copy)
    assert f"Экземпляр № {game.id}-E02" in text_of(env, len(env.pages) - 1)
    # each copy counts its own pages, from «Стр. 1» of its first
    for index in (0, per_copy):
        assert f"Стр. 1 из {per_copy}" in text_of(env, index)
    for index in (per_copy - 1, len(env.pages) - 1):
        assert f"Стр. {per_copy} из {per_copy}" in text_of(env, index)
    host_copy = len(host.pages) // 2
    assert f"Стр. 1 из {host_copy}" in text_of(host, host_copy)
    # the handout image is in the envelope of sector 2 (one image per copy)
    assert {img.image.size for img in env.pages[1].images} == {(40, 20)}
    assert "Раздаточный материал:" in text_of(env, 1)
    assert "Раздаточный материал:" in text_of(env, per_copy + 1)
    # host cards: the props list first, then the question with its stress marks and the card
    props = text_of(host, 0)
    assert props.startswith(f"{game.display_title}") and "Реквизит игры" in props
    q2 = next(e for e in game.envelopes if e.sector == 2).questions[0].question
    assert "Сектор 2: раздаточный материал (изображение) Сектор 3:" in props  # not named
    assert q2.handout_image not in props
    assert "Сектор 3: раздаточный материал (текст): — пункт списка 0" in props
    first = host.pages[1].extract_text()
    assert "Назови\u0301те" in first  # the stress mark is kept for the host
    answer = next(e for e in game.envelopes if e.sector == 1).questions[0].question.answer
    assert f"Ответ: {answer}" in " ".join(first.split())
    assert f"Экземпляр № {game.id}-H01" in text_of(host, 0)
    assert f"Экземпляр № {game.id}-H02" in text_of(host, len(host.pages) - 1)
    # serials are recorded: a leaked sheet is traced to its copy
    copy = copy_by_serial(f"{game.id}-H02")
    assert (copy.copy_no, db.session.get(Document, copy.document_id).kind) == (2, "host_cards")


@pytest.mark.slow  # a few seconds of WeasyPrint; the trim box is checked above on a short game
def test_a_long_word_and_long_sources_stay_inside_the_trim_box(long_game, drain):
    pdfs = rendered(drain, long_game, copies=1)
    no_text_outside_the_trim_box(pdfs)
    long_word = "".join(page.extract_text() for page in pdfs["envelopes"].pages)
    assert long_word.count("Щ") == 900


def no_text_outside_the_trim_box(pdfs) -> None:
    for reader in pdfs.values():
        for page in reader.pages:
            for x, right, y, text in fragments(page):
                # trim-box coordinates (WeasyPrint draws each page as a form placed at
                # the bleed): inside the margins, left 22 mm and right 18 mm
                assert 22 * MM - 0.5 <= x, (x, text[:40])
                assert right <= A4_W - 18 * MM + 0.5, (right, text[:40])
                assert 0 <= y <= A4_H, (y, text[:40])


def test_copies_are_checked(game):
    with pytest.raises(GameError) as exc:
        request_envelopes(game, copies=0)
    assert exc.value.errors == {"copies": ["от 1 до 20"]}
