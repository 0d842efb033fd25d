"""The queue's CSV and XLSX exports list exactly what the screen lists: the editor sets the
filters in the form the queue page renders, follows the page's own export links and opens
the downloaded files."""

from __future__ import annotations

import csv
import io
from datetime import datetime

import pytest
from openpyxl import load_workbook

from tests.scale_data import add_questions
from tests.webapp.moderation import pages
from tests.webapp.moderation.queue_data import make, pg_editor_queue
from webapp.core.formats import when
from webapp.core.spreadsheet import decimal_comma, safe_cell
from webapp.extensions import db
from webapp.moderation.models import ModerationReport
from webapp.moderation.operations import decide
from webapp.moderation.operations.common import status_label
from webapp.submissions.models import CHANNEL_LABELS, Question
from webapp.submissions.operations import create_question
from webapp.tasks.outbox import commit

BELARUSIAN = (
    "Які беларускі горад стаіць на беразе Дзвіны і лічыцца найстаражытнейшым у краіне?",
    "Полацк",
)


@pytest.fixture
def varied(app, staff):
    """Nine questions: in review, approved and rejected ones, channels web, mail and import,
    authors from Гомель, Минск and Брест, one in Belarusian, one archived."""
    chief = staff("chief_editor")[0]
    made = {
        "yaroslavl": make(
            "Какой город основал Ярослав Мудрый на Волге в XI веке?",
            "Ярославль",
            "Гомель",
            "web",
            9,
        ),
        "polotsk": make(
            "Назовите реку, на которой стоит Полоцк, древнейший город Беларуси.",
            "Западная Двина",
            "Минск",
            "mail",
            8,
        ),
        "igor": make(
            "Какой композитор написал оперу «Князь Игорь», оставшуюся незаконченной?",
            "Бородин",
            "Брест",
            "web",
            7,
        ),
        "polatsk": make(*BELARUSIAN, "Минск", "web", 6),
        "volga": make(
            "Какая река Европы длиннее всех и впадает в Каспийское море у Астрахани?",
            "Волга",
            "Гомель",
            "import",
            5,
        ),
        "kremlin": make(
            "В каком городе на Волге стоит кремль, построенный при Иване Грозном?",
            "Казань",
            "Брест",
            "mail",
            4,
        ),
        "nesvizh": make(
            "Замок какого рода стоит в Несвиже и внесён в список ЮНЕСКО?",
            "Радзивиллов",
            "Минск",
            "import",
            3,
        ),
        "mir": make(
            "Какой замок под Кореличами тоже внесён в список ЮНЕСКО вместе с Несвижем?",
            "Мирский",
            "Гомель",
            "web",
            2,
        ),
    }
    for key in ("polotsk", "volga", "nesvizh"):
        decide(made[key], "approve", chief)
    decide(made["kremlin"], "reject", chief, "Повтор")
    made["archived"] = create_question(
        {
            "question": "Старый вопрос из архива про Волгу и Каспийское море, сыгранный давно.",
            "answer": "Волга",
            "authors": [("Архив", "Гомель", None)],
        },
        "archive",
        status="archived",
    )
    commit()
    return {k: q.id for k, q in made.items()}


def _downloads(client, page: str) -> tuple[list[list[str]], list[list]]:
    """The CSV's and the XLSX's rows (header first) behind the page's own export links."""
    resp = client.get(pages.link(page, "CSV"))
    assert resp.status_code == 200
    csv_rows = list(csv.reader(io.StringIO(resp.get_data().decode("utf-8-sig")), delimiter=";"))
    resp = client.get(pages.link(page, "XLSX"))
    assert resp.status_code == 200
    ws = load_workbook(io.BytesIO(resp.get_data()))["Очередь"]
    return csv_rows, [[c.value for c in row] for row in ws.iter_rows()]


@pytest.mark.parametrize(
    ("role", "values", "expected"),
    [
        ("editor", {}, ["yaroslavl", "igor", "polatsk", "mir"]),  # the default: in review
        (
            "editor",
            {"status": ""},  # «Все, кроме архива»
            ["yaroslavl", "polotsk", "igor", "polatsk", "volga", "kremlin", "nesvizh", "mir"],
        ),
        ("editor", {"status": "", "sort": "newest"}, None),
        ("editor", {"status": "", "channel": "import"}, ["volga", "nesvizh"]),
        ("editor", {"status": "approved", "channel": "mail"}, ["polotsk"]),
        ("editor", {"status": "", "q": "Волге"}, ["yaroslavl", "kremlin"]),
        ("editor", {"status": "", "flag": "lang_be"}, ["polatsk"]),
        ("editor", {"status": "rejected"}, ["kremlin"]),
        (
            "editor",
            {"status": "", "older_than_days": "5", "channel": "web"},
            ["yaroslavl", "igor", "polatsk"],
        ),
        ("chief_editor", {"status": "", "city": "минск"}, ["polotsk", "polatsk", "nesvizh"]),
        ("chief_editor", {"status": "", "city": "Гомель", "q": "ЮНЕСКО"}, ["mir"]),
        ("editor", {"status": "archived"}, ["archived"]),
        ("editor", {"status": "played"}, []),
    ],
)
def test_export_lists_what_the_screen_lists(varied, login, client, role, values, expected):
    client = login(role)
    search = pages.form(client.get("/editor/queue").get_data(as_text=True), role="search")
    assert search["method"] == "get"
    shown, page = pages.screen(client, pages.filled(search["fields"], **values))
    if expected is None:  # newest first
        expected = ["mir", "nesvizh", "kremlin", "volga", "polatsk", "igor", "polotsk", "yaroslavl"]
    assert shown == [varied[k] for k in expected]
    csv_rows, xlsx_rows = _downloads(client, page)
    assert [int(r[0]) for r in csv_rows[1:]] == shown
    assert [r[0] for r in xlsx_rows[1:]] == shown
    assert csv_rows[0] == [str(v) for v in xlsx_rows[0]] and csv_rows[0][0] == "№"
    for row in csv_rows[1:]:
        q = db.session.get(Question, int(row[0]))
        assert row[4] == q.text and row[5] == q.answer


def test_an_editor_cannot_export_by_city(varied, login, client):
    """Blind moderation: an editor's screen and export ignore the author's city alike."""
    client = login("editor")
    shown, page = pages.screen(client, "status=&city=Минск")
    assert len(shown) == 8
    csv_rows, xlsx_rows = _downloads(client, page)
    assert [int(r[0]) for r in csv_rows[1:]] == shown == [r[0] for r in xlsx_rows[1:]]


PACKET = """### Пакет для проверки

? Какой город основал Ярослав Мудрый на Волге в XI веке, по летописи?
! Ярославль
@ Мария Лис (Гомель)

? Назовите реку, на которой стоит Полоцк, древнейший город Беларуси.
! Западная Двина
@ Мария Лис (Гомель)
"""


@pytest.mark.parametrize(("as_", "status"), [("submissions", "in_review"), ("archive", "archived")])
def test_after_an_import_the_page_links_to_the_imported_questions(
    varied, login, client, as_, status
):
    """The import page's form, then its link to the queue: exactly the packet's questions
    (one of them has the text of a question in the queue already: the page says so first,
    and the packet goes in once «again» is ticked)."""
    client = login("editor")
    page = client.get("/editor/import").get_data(as_text=True)
    fields = dict(pages.form(page, enctype="multipart/form-data")["fields"])
    fields.update(packet=(io.BytesIO(PACKET.encode()), "kubok.4s"), as_=as_)
    resp = client.post("/editor/import", data=fields, content_type="multipart/form-data")
    assert resp.status_code == 409
    page = resp.get_data(as_text=True)
    assert "Вопросов файла «kubok.4s» уже в базе: 1 из 2 (тот же текст вопроса)." in page
    fields = dict(pages.form(page, enctype="multipart/form-data")["fields"])
    fields.update(packet=(io.BytesIO(PACKET.encode()), "kubok.4s"), as_=as_, again="y")
    resp = client.post("/editor/import", data=fields, content_type="multipart/form-data")
    assert resp.status_code == 302
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "kubok.4s: импортировано вопросов — 2." in page
    href = pages.link(page, "Открыть импортированные вопросы в очереди")
    queue = client.get(href).get_data(as_text=True)
    made = db.session.scalars(
        db.select(Question.id).where(Question.origin.like("kubok.4s#%")).order_by(Question.id)
    ).all()
    assert len(made) == 2 and pages.listed(queue) == made
    assert [db.session.get(Question, i).status for i in made] in (
        ["received"] * 2,  # the pre-check is queued, not run yet
        [status] * 2,
    )
    assert 'name="origin" type="text" value="kubok.4s"' in queue
    csv_rows, _ = _downloads(client, queue)
    assert [int(r[0]) for r in csv_rows[1:]] == made


def test_every_page_of_all_but_the_archive(app, login, client):
    """«Все, кроме архива» over two pages: «следующая →» keeps the filter, and the export lists
    both pages."""
    for n in range(53):
        create_question(
            {
                "question": f"Вопрос номер {n} о том, что было на Волге в древности?",
                "answer": f"Ответ {n}",
                "authors": [("Мария Лис", "Минск", None)],
            },
            "web",
        )
    commit()
    client = login("editor")
    shown, page = pages.screen(client, "status=&sort=id")
    made = db.session.scalars(db.select(Question.id).order_by(Question.id)).all()
    assert len(made) == 53 and shown == made  # 50 on the first page, 3 on the second
    assert pages.listed(page) == made[:50]
    csv_rows, xlsx_rows = _downloads(client, page)
    assert [int(r[0]) for r in csv_rows[1:]] == made == [r[0] for r in xlsx_rows[1:]]


@pytest.mark.slow
def test_an_export_of_thousands_is_the_screen_row_for_row(app, login, client):
    """2 625 questions listed (3 000 made, the archived eighth left out), sorted by duplicate
    score: the streamed CSV and XLSX hold the screen's questions in the screen's order
    (every page followed), each cell the question's own value, a text that looks like a
    formula or an error code a string cell in XLSX."""
    add_questions(3000, seed=3)
    client = login("editor")
    shown, page = pages.screen(client, "status=&sort=duplicate")
    assert len(shown) == 2625
    csv_rows, xlsx_rows = _downloads(client, page)
    assert [int(r[0]) for r in csv_rows[1:]] == shown == [r[0] for r in xlsx_rows[1:]]
    questions = {q.id: q for q in db.session.scalars(db.select(Question))}
    reports = {
        r.question_id: r
        for r in db.session.scalars(db.select(ModerationReport).order_by(ModerationReport.version))
    }
    for row, cells in zip(csv_rows[1:], xlsx_rows[1:], strict=True):
        q, r = questions[int(row[0])], reports.get(int(row[0]))
        assert row[1:4] == [
            status_label(q.status),
            CHANNEL_LABELS[q.channel],
            when(q.created_at, app.config["SOVA_TIMEZONE"]),
        ]
        assert row[4:11] == [
            safe_cell(q.text),
            safe_cell(q.answer),
            q.accepted or "",
            "",
            q.comment or "",
            "\n".join(q.sources),
            q.handout or "",
        ]
        failed = r is not None and not r.checks[0]["ok"]
        assert row[11] == ("источники" if failed else "")
        score = r.duplicates[0]["score"] if r and r.duplicates else ""
        assert row[12] == decimal_comma(score)  # the register's CSV dialect: «87,5»
        assert isinstance(cells[3], datetime)  # a date cell, the minute the page shows
        assert [
            v.strftime("%d.%m.%Y %H:%M")
            if isinstance(v, datetime)
            else decimal_comma(v)
            if isinstance(v, float)
            else str(v)
            for v in (v if v is not None else "" for v in cells)
        ] == row
    ws = load_workbook(io.BytesIO(client.get(pages.link(page, "XLSX")).get_data()))["Очередь"]
    tricky = [c for row in ws.iter_rows(min_row=2) for c in row[4:6] if c.value[:1] in "'#"]
    assert {c.value for c in tricky} >= {"'=1+1", "#N/A", "'+7 029 123", "'@SUM(A1)"}
    assert {c.data_type for c in tricky} == {"s"}


@pytest.mark.integration
def test_a_streamed_export_on_postgresql_reads_every_batch(pg_app):
    """On PostgreSQL the export reads a server-side cursor in batches of 1 000, with each
    batch's reports read in between: 1 313 of 1 500 questions listed, every one once, in
    the queue's order, the same in CSV and XLSX."""
    client, expected = pg_editor_queue(pg_app)
    page = client.get("/editor/queue?status=").get_data(as_text=True)
    csv_rows, xlsx_rows = _downloads(client, page)
    assert [int(r[0]) for r in csv_rows[1:]] == expected == [r[0] for r in xlsx_rows[1:]]
