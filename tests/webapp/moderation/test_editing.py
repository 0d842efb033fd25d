"""Revisions, comments, the second editor's sign-off, rejection templates with the e-mail
preview, bulk decisions, exports (CSV, XLSX, 4s round trip) and statistics."""

from __future__ import annotations

import csv
import io
import logging
import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from openpyxl import load_workbook
from werkzeug.datastructures import MultiDict
from werkzeug.http import parse_options_header

from tests.webapp.moderation import pages
from tests.webapp.moderation.editing_data import make, prechecked
from webapp.domain.packets import parse_4s
from webapp.extensions import db
from webapp.moderation import export, stats
from webapp.moderation.models import ModerationReport, QuestionRevision, QuestionSignoff
from webapp.moderation.operations import (
    ModerationError,
    bulk_decide,
    bulk_preview,
    decide,
    edit_question,
    full_reason,
    precheck,
    sign_off,
)
from webapp.moderation.queries import signed_off_ids
from webapp.submissions.models import Question
from webapp.submissions.operations import create_question
from webapp.tasks.outbox import commit

SAMPLE = Path(__file__).resolve().parents[3] / "webapp" / "submissions" / "sample_packet.4s"


def test_edit_keeps_revision_and_reindexes(app, staff):
    ed = staff("editor")[0]
    q = make()
    rev = edit_question(q, ed, {"answer": "Новогрудок (Навагрудак)", "question": q.text})
    commit()
    assert (rev.before, rev.after) == (
        {"answer": "Новогрудок"},
        {"answer": "Новогрудок (Навагрудак)"},
    )
    assert edit_question(q, ed, {"answer": "Новогрудок (Навагрудак)"}) is None
    edit_question(q, ed, {"sources": "https://a.example\n\nhttps://b.example "})
    assert q.sources == ["https://a.example", "https://b.example"]
    with pytest.raises(ModerationError, match="^Вопрос: не короче 20 символов$"):
        edit_question(q, ed, {"question": "Коротко"})
    with pytest.raises(ModerationError, match="^неизвестные поля: status$"):
        edit_question(q, ed, {"status": "approved"})
    assert db.session.scalar(db.select(db.func.count()).select_from(QuestionRevision)) == 2


def test_edit_comment_and_diff_on_the_page(app, login, client):
    q = make()
    login("editor")
    resp = client.post(
        f"/editor/questions/{q.id}/edit",
        data={
            "question": q.text.replace("Миндовг", "Міндоўг"),
            "answer": "Новогрудок",
            "sources": "https://example.org/m",
        },
    )
    assert resp.status_code == 302
    client.post(f"/editor/questions/{q.id}/comments", data={"text": "Проверить <b>дату</b>"})
    page = client.get(f"/editor/questions/{q.id}").get_data(as_text=True)
    assert "<del>Миндовг.</del>" in page and "<ins>Міндоўг.</ins>" in page
    assert "Проверить &lt;b&gt;дату&lt;/b&gt;" in page


def test_a_duplicate_is_compared_as_the_check_compares_it(app, login, client):
    """The possible duplicate beside the question: words that differ only by a stress mark,
    «ё» or case are not marked, the word that differs is."""

    def submitted(text: str) -> Question:
        author = ("Автор", "Гродно", "a@example.com")
        fields = {"question": text, "answer": "Часы", "authors": [author]}
        return prechecked({**fields, "sources": ["https://example.org/w"]})

    first = submitted("Дороте́я Ви́манн подарила ЁЛКУ внуку и заметила на ней часы с кукушкой.")
    second = submitted("Доротея Виманн подарила ёлку внучке и заметила на ней часы с кукушкой.")
    login("editor")
    page = client.get(f"/editor/questions/{second.id}").get_data(as_text=True)
    assert f'с вопросом № <a href="/editor/questions/{first.id}">{first.id}</a>' in page
    (pair,) = re.findall(r'<div class="side-by-side">(.*?)</div></div>', page)
    assert pair == (
        "<div>Доротея Виманн подарила ёлку <del>внучке</del> и заметила на ней часы с "
        "кукушкой.</div><div>Дороте́я Ви́манн подарила ЁЛКУ <ins>внуку</ins> и заметила на "
        "ней часы с кукушкой."
    )


def test_a_control_character_is_a_field_error_in_the_edit_and_ignored_in_the_search(
    app, login, client
):
    """A NUL (PostgreSQL refuses it in text; SQLite's full-text search fails on it): the
    edit is refused with the field's error and the text kept; `?q=%00` in the queue's
    search is ignored, and the page says why. CRLF line ends, as browsers post them, are fine."""
    q = make()
    login("editor")
    edited = "Правка с NUL \x00 внутри: назовите столицу, где правил король Миндовг."
    resp = client.post(
        f"/editor/questions/{q.id}/edit",
        data={"question": edited, "answer": "Новогрудок", "sources": "https://example.org/m"},
    )
    assert resp.status_code == 200  # the page again, as for any refused edit
    page = resp.get_data(as_text=True)
    assert "Правка не сохранена: проверьте поля." in page
    assert "Поле содержит недопустимые управляющие символы." in page
    assert "Правка с NUL" in page  # the editor's text kept in the form
    db.session.expire_all()
    assert "\x00" not in db.session.get(Question, q.id).text
    resp = client.post(
        f"/editor/questions/{q.id}/edit",
        data={
            "question": q.text,
            "answer": "Новогрудок",
            "sources": "https://example.org/m\r\nhttps://example.org/n",
        },
    )
    assert resp.status_code == 302
    for url in ("/editor/queue?q=%00", "/editor/export.csv?q=%00", "/editor/queue?city=%07"):
        assert client.get(url).status_code == 200, url
    page = client.get("/editor/queue?q=%00").get_data(as_text=True)
    assert "Поле содержит недопустимые управляющие символы." in page


def test_sign_off_needs_a_second_editor_and_gates_the_pool(app, staff):
    ed1, ed2 = staff("editor")[0], staff("chief_editor")[0]
    q = make()
    with pytest.raises(
        ModerationError, match="^источники подтверждаются только у одобренного вопроса$"
    ):
        sign_off(q, ed2)
    decide(q, "approve", ed1)
    with pytest.raises(
        ModerationError,
        match="^источники должен подтвердить второй редактор, а не тот, кто одобрил вопрос$",
    ):
        sign_off(q, ed1)
    assert list(db.session.scalars(signed_off_ids())) == []
    sign_off(q, ed2)
    commit()
    assert list(db.session.scalars(signed_off_ids())) == [q.id]
    edit_question(q, ed1, {"comment": "Уточнён комментарий"})  # an edit needs a new check
    commit()
    assert db.session.get(QuestionSignoff, q.id) is None


def test_rejection_templates_in_the_authors_language_and_preview(app, login, client):
    ru, be = make(1), make(2, language="be")
    assert full_reason(ru, "too_easy", "Слишком известный факт.") == (
        "Ответ на вопрос слишком очевиден для знатоков. Слишком известный факт."
    )
    assert full_reason(be, "too_easy", None) == "Адказ на пытанне занадта відавочны для знаўцаў."
    with pytest.raises(ModerationError, match="^неизвестный шаблон причины 'x'$"):
        full_reason(ru, "x", None)
    login("editor")
    page = client.post(
        f"/editor/questions/{be.id}",
        data={"decision": "reject", "reason_key": "duplicate", "preview": "1"},
    ).get_data(as_text=True)
    assert "Ваша пытанне не прынята — «Што? Дзе? Калі?»" in page
    assert "Прычына: Пытанне з такім жа фактам ужо гулялася або ўжо ёсць у нашай базе." in page
    assert db.session.get(Question, be.id).status == "in_review"  # preview decides nothing


def test_reject_sends_the_previewed_email(app, login, client, drain, caplog):
    q = make(3)
    login("editor")
    client.post(
        f"/editor/questions/{q.id}", data={"decision": "reject", "reason_key": "not_for_tv"}
    )
    with caplog.at_level(logging.INFO, logger="sova.notify"):
        assert "moderation.notify_decision" in drain()
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "to=a3@example.com subject=Ваш вопрос не принят — «Что? Где? Когда?»" in text
    assert "Причина: Вопрос не подходит для телевизионного эфира." in text


def test_bulk_preview_then_commit(app, login, client, staff):
    a, b, c = make(1), make(2), make(3)
    decide(c, "approve", staff("editor")[0])
    commit()
    ok, refused = bulk_preview([a.id, b.id, 999], "reject")
    assert [q.id for q in ok] == [a.id, b.id] and refused == [(999, "нет такого вопроса")]
    with pytest.raises(
        ModerationError, match=r"^не применено к вопросам: № 999 \(нет такого вопроса\)$"
    ):
        bulk_decide([a.id, 999], "reject", staff("editor")[0])
    assert db.session.get(Question, a.id).status == "in_review"
    login("editor")
    page = client.post("/editor/bulk", data={"decision": "approve", "ids": [str(a.id), str(b.id)]})
    text = page.get_data(as_text=True)
    assert "Одобрить: 2 вопроса</h1>" in text and "Подтвердить для 2 вопросов</button>" in text
    one = client.post("/editor/bulk", data={"decision": "approve", "ids": [str(a.id)]}).text
    assert "Одобрить: 1 вопрос</h1>" in one and "Подтвердить для 1 вопроса</button>" in one
    assert "вопр." not in text + one
    assert db.session.get(Question, a.id).status == "in_review"
    resp = client.post(
        "/editor/bulk", data={"decision": "approve", "ids": f"{a.id} {b.id}", "confirm": "1"}
    )
    assert resp.status_code == 302
    assert "Готово: 2 вопроса." in client.get(resp.headers["Location"]).text
    db.session.expire_all()
    assert [db.session.get(Question, i).status for i in (a.id, b.id)] == ["approved"] * 2


def test_csv_and_xlsx_exports(app, login, client):
    q = make(1)
    q.comment = '=HYPERLINK("http://evil")'
    commit()
    login("editor")
    resp = client.get("/editor/export.csv?status=in_review")
    disposition, name = parse_options_header(resp.headers["Content-Disposition"])
    today = datetime.now(ZoneInfo(app.config["SOVA_TIMEZONE"])).date().isoformat()
    assert (disposition, name) == (
        "attachment",
        {"filename": f"Очередь вопросов — на рассмотрении — {today}.csv"},
    )
    assert (
        "filename*=UTF-8''%D0%9E%D1%87%D0%B5%D1%80%D0%B5%D0%B4%D1%8C%20"
        in (resp.headers["Content-Disposition"])
    )
    assert resp.headers["Content-Type"] == "text/csv; charset=utf-8"  # one charset
    rows = list(csv.reader(io.StringIO(resp.get_data().decode("utf-8-sig")), delimiter=";"))
    assert rows[0] == [
        "№",
        "Статус",
        "Канал",
        "Получен",
        "Вопрос",
        "Ответ",
        "Зачёт",
        "Незачёт",
        "Комментарий",
        "Источники",
        "Раздаточный материал",
        "Замечания проверки",
        "Сходство с повтором, %",
    ]
    assert rows[1][:3] == [str(q.id), "на рассмотрении", "сайт"] and rows[1][5] == "Новогрудок"
    assert re.fullmatch(r"\d\d\.\d\d\.20\d\d \d\d:\d\d", rows[1][3])
    assert rows[1][8] == '\'=HYPERLINK("http://evil")'
    assert "Автор 1" not in resp.get_data(as_text=True)  # blind: no author data
    wb = load_workbook(io.BytesIO(client.get("/editor/export.xlsx").get_data()))
    ws = wb["Очередь"]
    assert [c.value for c in ws[1]] == list(export.QUEUE_COLUMNS)
    assert ws.cell(2, 1).value == q.id and ws.cell(2, 6).value == "Новогрудок"
    assert client.get("/editor/export.pdf").status_code == 404
    assert client.get("/editor/export/approved.4s").status_code == 403


def test_4s_export_round_trips_through_our_importer(app, login, client, staff):
    packet = parse_4s(SAMPLE.read_text(encoding="utf-8"))
    ed = staff("editor")[0]
    made = []
    for pq in packet.questions:
        q = create_question(
            {
                "question": pq.question,
                "answer": pq.answer,
                "accepted": pq.accepted,
                "rejected": pq.rejected,
                "comment": pq.comment,
                "sources": pq.sources,
                "handout": pq.handout,
                "authors": [(a.name, a.city, None) for a in pq.authors],
            },
            "mail",
        )
        commit()
        precheck(q.id)
        decide(q, "approve", ed)
        made.append(q)
    commit()
    login("chief_editor")
    text = client.get("/editor/export/approved.4s").get_data(as_text=True)
    back = parse_4s(text).questions
    assert len(back) == len(made) == 10
    for q, b in zip(made, back, strict=True):
        assert (b.question, b.answer, b.accepted, b.rejected, b.comment, b.sources, b.handout) == (
            q.text,
            q.answer,
            q.accepted,
            q.rejected,
            q.comment,
            q.sources,
            q.handout,
        )
        assert [(a.name, a.city) for a in b.authors] == [(a.name, a.city) for a in q.author_list]


def test_statistics(app, login, client, staff):
    a, b, c = make(1, city="Гродно"), make(2, city="Гродно"), make(3, city="Брест")
    decide(a, "approve", staff("editor")[0])
    decide(b, "reject", staff("editor")[0])
    commit()
    a.created_at = a.history[-1].at - timedelta(hours=4)
    b.created_at = b.history[-1].at - timedelta(hours=2)
    commit()
    s = stats.summary(30)
    assert s["accepted"] == 1 and s["rejected"] == 1 and s["acceptance_rate"] == 0.5
    assert s["cities"] == [
        {"city": "Гродно", "received": 2, "accepted": 1},
        {"city": "Брест", "received": 1, "accepted": 0},
    ]
    assert s["decision_hours"] == {"count": 2, "median": 3.0, "mean": 3.0}
    assert sum(r["count"] for r in s["intake"]) == 3 and s["channels"] == ["web"]
    login("editor")
    page = client.get("/editor/stats").get_data(as_text=True)
    assert "доля принятых:\n  50\u00a0%." in page
    assert "медиана 3,0,\n  среднее 3,0 (решений: 2)." in page
    assert c.id


def test_signoff_switch_for_legacy_fixtures(make_app):
    app = make_app(SOVA_REQUIRE_SIGNOFF=False)
    with app.app_context():
        q = make()
        assert list(db.session.scalars(signed_off_ids())) == [q.id]


def test_bulk_skips_questions_claimed_by_another_editor(app, staff):
    from webapp.moderation.operations import claim

    ed1, ed2 = staff("editor")[0], staff("chief_editor")[0]
    a, b = make(1), make(2)
    claim(a.id, ed1)
    claim(b.id, ed2)
    commit()
    ok, refused = bulk_preview([a.id, b.id], "approve", ed1)
    assert [q.id for q in ok] == [a.id] and refused == [(b.id, "взят редактором")]


def test_sign_off_refusal_and_check_rows_are_russian_on_the_page(app, login, client):
    """The approving editor's own sign-off is refused in Russian; the pre-check rows
    are named in Russian, not by their codes."""
    q = make(4)
    login("editor")
    client.post(f"/editor/questions/{q.id}", data={"decision": "approve"})
    assert db.session.get(Question, q.id).status == "approved"
    page = client.post(f"/editor/questions/{q.id}/sign-off", follow_redirects=True).get_data(
        as_text=True
    )
    assert "источники должен подтвердить второй редактор, а не тот, кто одобрил вопрос" in page
    assert "second editor" not in page
    rows = re.findall(r'<li class="(?:ok|bad)">([^:<]+):', page)
    assert rows == [
        "текст вопроса",
        "ответ",
        "длина вопроса",
        "длина ответа",
        "автор",
        "источники",
        "язык вопроса",
        "нецензурные слова",
        "анонимность",
        "раздаточный материал",
        "изображения",
        "слова ответа в вопросе",
        "время чтения",
        "ударения",
    ]
    assert "question_present" not in page


def _history(q: Question) -> list[tuple[str, str | None]]:
    db.session.expire_all()
    return [(h.to_status, h.reason) for h in db.session.get(Question, q.id).history]


def test_a_rejection_from_the_page_needs_a_reason(app, login, client, drain):
    """A rejection without a reason is refused: the author's e-mail must carry one
    (docs/guide.md: authors are told the editors' reason)."""
    q = make(4)
    login("editor")
    resp = client.post(f"/editor/questions/{q.id}", data={"decision": "reject", "reason": "  "})
    assert resp.status_code == 422
    assert (
        "Укажите причину отклонения (шаблон или свои слова): автор прочтёт её в письме."
        in resp.get_data(as_text=True)
    )
    assert db.session.get(Question, q.id).status == "in_review"
    assert "moderation.notify_decision" not in drain()


def test_rejecting_a_rejected_question_is_refused_and_not_offered(app, login, client, drain):
    """A second «Отклонить» is refused and not offered, rather than saying «Вопрос
    отклонён.» while recording nothing and losing the typed reason."""
    q = make(5)
    login("editor")
    resp = client.post(
        f"/editor/questions/{q.id}", data={"decision": "reject", "reason": "Уже было в эфире."}
    )
    assert resp.status_code == 302
    drain()
    page = client.get(f"/editor/questions/{q.id}").get_data(as_text=True)
    assert "Причина отклонения: Уже было в эфире." in page
    assert 'value="reject"' not in page and ">Отклонить</button>" not in page
    assert ">Одобрить</button>" in page
    resp = client.post(
        f"/editor/questions/{q.id}", data={"decision": "reject", "reason": "Другая причина."}
    )
    text = resp.get_data(as_text=True)
    assert resp.status_code == 409
    assert (
        f"вопрос № {q.id} уже отклонён: повторное решение не принимается, новая причина не записана"
    ) in text
    assert "Вопрос отклонён." not in text
    assert _history(q)[-1] == ("rejected", "Уже было в эфире.")
    assert db.session.get(Question, q.id).rejection_reason == "Уже было в эфире."
    assert "moderation.notify_decision" not in drain()


def test_repeated_decisions_in_the_operation(app, staff):
    """The API's retry changes nothing and says so by success; a new reason for a rejected
    question is refused there too; the pages refuse every repeat (``repeat=False``)."""
    ed = staff("editor")[0]
    q = make(6)
    decide(q, "reject", ed, "Повтор.")
    decide(q, "reject", ed, "Повтор.")  # a retry of the same call
    decide(q, "reject", ed)
    with pytest.raises(
        ModerationError,
        match=f"^вопрос № {q.id} уже отклонён: повторное решение не принимается, "
        "новая причина не записана$",
    ):
        decide(q, "reject", ed, "Иная причина.")
    with pytest.raises(
        ModerationError, match=f"^вопрос № {q.id} уже отклонён: повторное решение не принимается$"
    ):
        decide(q, "reject", ed, "Повтор.", repeat=False)
    commit()
    assert [s for s, _r in _history(q)][-2:] == ["in_review", "rejected"]
    ok, refused = bulk_preview([q.id], "reject", ed)
    assert (ok, refused) == ([], [(q.id, "уже отклонён")])


def test_bulk_rejection_needs_a_template_reason(app, login, client):
    a = make(7)
    login("editor")
    resp = client.post(
        "/editor/bulk", data={"decision": "reject", "ids": str(a.id), "confirm": "1"}
    )
    assert resp.status_code == 302
    page = client.get("/editor/queue").get_data(as_text=True)
    assert "Для отклонения выберите причину из шаблона: авторы прочтут её в письме." in page
    assert db.session.get(Question, a.id).status == "in_review"


def test_one_question_has_a_singular_status_label(app, login, client, staff):
    """One question's status is singular («отклонён», not «Отклонены»); the plural labels
    are the queue filter's."""
    q = make(8)
    decide(q, "reject", staff("editor")[0], "Повтор.")
    commit()
    login("editor")
    page = client.get(f"/editor/questions/{q.id}").get_data(as_text=True)
    assert f"Вопрос № {q.id} <small>(отклонён, сайт)</small>" in page
    queue = client.get("/editor/queue?status=rejected").get_data(as_text=True)
    assert "<td>отклонён</td>" in queue and "Отклонены</option>" in queue
    assert "<td>Отклонены</td>" not in queue
    bulk = client.post("/editor/bulk", data={"decision": "approve", "ids": str(q.id)})
    assert f"№ {q.id} (отклонён):" in bulk.get_data(as_text=True)


def test_the_queue_export_speaks_russian(app, login, client):
    """The export's header and values are Russian, not ``id,status,channel,created_at,…``
    nor codes such as ``in_review``, ``import``."""
    from datetime import UTC, datetime

    q = make(9)
    q.channel = "import"
    q.created_at = datetime(2023, 3, 4, 12, 0, tzinfo=UTC)
    report = db.session.scalars(db.select(ModerationReport).filter_by(question_id=q.id)).one()
    report.checks = [*report.checks, {"name": "sources_present", "ok": False, "message": "x"}]
    commit()
    login("editor")
    text = client.get("/editor/export.csv?status=in_review").get_data().decode("utf-8-sig")
    header, row = list(csv.reader(io.StringIO(text), delimiter=";"))
    assert header[:4] == ["№", "Статус", "Канал", "Получен"]
    assert row[:4] == [str(q.id), "на рассмотрении", "импорт пакета", "04.03.2023 15:00"]
    assert row[11] == "ударения; источники"  # «Миндовг» has no stress mark
    assert "in_review" not in text and ";import;" not in text


def test_the_bulk_rejection_preview_shows_the_reason_the_authors_read(app, login, client):
    """The queue's own selection form, «Отклонить» with a template reason: the preview
    quotes the text each author will read (in the question's language), and the
    confirmation stores exactly that."""
    ru, be = make(21), make(22, language="be")
    login("editor")
    queue = client.get("/editor/queue").get_data(as_text=True)
    form = pages.form(queue, id="bulk")
    fields = [(k, v) for k, v in form["fields"] if k not in ("decision", "reason_key")]
    data = [*fields, ("decision", "reject"), ("reason_key", "too_easy")]
    data += [("ids", str(ru.id)), ("ids", str(be.id))]
    assert pages.button(queue, "Показать, что изменится")["formaction"] is None
    html = client.post(form["action"], data=MultiDict(data)).get_data(as_text=True)
    assert "<h1>Отклонить: 2 вопроса</h1>" in html
    assert "<h2>Причина в письме авторам</h2>" in html
    assert (
        '<blockquote class="bulk-reason">Ответ на вопрос слишком очевиден для знатоков.'
        '</blockquote><p class="hint">по-русски: 1 вопрос</p>'
    ) in html
    assert (
        '<blockquote class="bulk-reason">Адказ на пытанне занадта відавочны для знаўцаў.'
        '</blockquote><p class="hint">по-белорусски: 1 вопрос</p>'
    ) in html
    confirm = pages.form(html, action="/editor/bulk")
    assert client.post(confirm["action"], data=MultiDict(confirm["fields"])).status_code == 302
    db.session.expire_all()
    assert [db.session.get(Question, q.id).rejection_reason for q in (ru, be)] == [
        "Ответ на вопрос слишком очевиден для знатоков.",
        "Адказ на пытанне занадта відавочны для знаўцаў.",
    ]


def test_the_bulk_rejection_preview_of_one_language_quotes_the_reason_once(app, login, client):
    a, b = make(23), make(24)
    login("editor")
    html = client.post(
        "/editor/bulk",
        data={"decision": "reject", "reason_key": "duplicate", "ids": f"{a.id} {b.id}"},
    ).get_data(as_text=True)
    assert html.count('<blockquote class="bulk-reason">') == 1
    assert (
        '<blockquote class="bulk-reason">Вопрос с таким же фактом уже был сыгран или уже есть'
        " в нашей базе.</blockquote>\n"
    ) in html
    approve = client.post(
        "/editor/bulk", data={"decision": "approve", "ids": f"{a.id} {b.id}"}
    ).get_data(as_text=True)
    assert "Причина в письме авторам" not in approve


def test_the_queue_csv_opens_in_russian_excel_as_columns(app, login, client):
    """The CSV behind the queue page's «CSV» link is the payment register's dialect: `;`
    between cells and a decimal comma in the duplicate score (with `,` and «87.5»
    Russian-locale Excel showed one column of text)."""
    from datetime import UTC

    q = make(25)
    q.created_at = datetime(2023, 3, 4, 12, 0, tzinfo=UTC)
    report = db.session.scalars(db.select(ModerationReport).filter_by(question_id=q.id)).one()
    report.duplicates = [{"question_id": 1, "score": 87.5, "status": "approved"}]
    commit()
    login("editor")
    page = client.get("/editor/queue").get_data(as_text=True)
    raw = client.get(pages.link(page, "CSV")).get_data().decode("utf-8")
    header, row, end = raw.split("\r\n")
    assert header == (
        "\ufeff№;Статус;Канал;Получен;Вопрос;Ответ;Зачёт;Незачёт;Комментарий;Источники;"
        "Раздаточный материал;Замечания проверки;Сходство с повтором, %"
    )
    assert row == (
        f"{q.id};на рассмотрении;сайт;04.03.2023 15:00;{q.text};Новогрудок;;;;"
        "https://example.org/m;;ударения;87,5"  # «Новогрудок» has no stress mark
    )
    assert end == ""
