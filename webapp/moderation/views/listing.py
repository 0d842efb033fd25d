"""The queue (filters, search, claims), bulk decisions, the exports (CSV, XLSX, approved
4s) and the statistics."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from webapp.core import keyset
from webapp.core.access import access, current_staff
from webapp.core.edge import discard
from webapp.core.filenames import file_name, send_bytes, send_stream
from webapp.core.formats import number
from webapp.domain.text import quantity
from webapp.moderation import export, export_jobs, queries, stats
from webapp.moderation.forms import STATUS_LABELS, BulkForm, ExportForm, QueueFilterForm
from webapp.moderation.operations import (
    ModerationError,
    bulk_decide,
    bulk_preview,
    full_reason,
)
from webapp.moderation.views.common import SHORTCUTS, bp, sees_authors


def queue_filter(form: QueueFilterForm) -> queries.QueueFilter:
    """The validated filters of the GET form (invalid fields are ignored; the author's
    city only for those who may see author data)."""
    form.validate()
    if not sees_authors():
        form.city.data = None

    def ok(field):
        return None if field.errors or field.data in (None, "") else field.data

    # an unknown status (a hand-edited link) is the default «На рассмотрении», as with none;
    # only the empty one means «Все, кроме архива»
    status = "in_review" if form.status.errors else ok(form.status)
    return queries.QueueFilter(
        status=status,
        channel=ok(form.channel),
        city=(form.city.data or "").strip() or None if not form.city.errors else None,
        flag=ok(form.flag),
        min_score=ok(form.min_score),
        older_than_days=ok(form.older_than_days),
        newer_than_days=ok(form.newer_than_days),
        search=(form.q.data or "").strip() or None if not form.q.errors else None,
        origin=(form.origin.data or "").strip() or None if not form.origin.errors else None,
        signoff=ok(form.signoff),
        sort=ok(form.sort) or "oldest",
    )


#: The query arguments that say which page, not what is listed (``page``: the numbered
#: pages of old links, now ignored).
PAGING = ("page", "after", "before")


def queue_request() -> tuple[QueueFilterForm, queries.QueueFilter, dict[str, str]]:
    """The queue's filters as the request gives them, for the screen and its exports alike:
    (the filter form, the filter, the query arguments that repeat the filter in a link —
    pages, CSV, XLSX). No ``status`` means the default «На рассмотрении»; an empty
    ``status`` is «Все, кроме архива» and is kept in the links (dropped, it turned back into
    the default: an export of «Все, кроме архива» listed nothing but its header)."""
    args = request.args.copy()
    if "status" not in args:
        args["status"] = "in_review"
    form = QueueFilterForm(formdata=args)
    keep = {k: v for k, v in args.items() if k not in PAGING and (v != "" or k == "status")}
    return form, queue_filter(form), keep


#: A count of questions (:func:`webapp.domain.text.quantity`).
QUESTIONS = ("вопрос", "вопроса", "вопросов")


@bp.route("/queue")
@access("editor+")
def queue():
    form, f, keep = queue_request()
    page = queries.queue_page(f, **keyset.args(request.args))
    items = page.items
    ids = [q.id for q in items]
    # filters the editor set (not the defaults): the folded filters open then
    defaults = {"status": "in_review", "sort": "oldest"}
    filters_set = sum(
        1 for k, v in request.args.items() if k not in PAGING and v not in ("", defaults.get(k, ""))
    )
    total = queries.queue_count(f)
    # more rows than a request streams: the page offers the worker's export instead. The
    # count above is exact up to its cap; past it and below the limit, the page does not
    # count again (up to the limit: tens of thousands of rows on every page) but offers
    # both, and the streamed export decides at the click (export_queue, too_big)
    limit = export_jobs.inline_rows()
    big: bool | None = total > limit
    if total > queries.COUNT_CAP and limit > queries.COUNT_CAP:
        big = None
    return render_template(
        "moderation/queue.html",
        filters_set=filters_set,
        big_export=big,
        inline_rows=limit,
        export_form=ExportForm(formdata=None),
        items=items,
        page=page,
        total=total,
        cap=queries.COUNT_CAP,
        form=form,
        reports=queries.reports_for(ids),
        claims=queries.claims_for(ids),
        keep=keep,
        shortcuts=SHORTCUTS,
        sees_authors=sees_authors(),
        me=current_staff().id,
        bulk=BulkForm(formdata=None),
    )


def parse_ids(raw: str) -> list[int] | None:
    """The question ids of a bulk form (separated by spaces or commas), or None when a token
    is not a number, none is given, or more than 1000 are: the bulk pages' one reading."""
    try:
        ids = [int(x) for x in raw.replace(",", " ").split()]
    except ValueError:
        return None
    return ids if ids and len(ids) <= 1000 else None


@bp.route("/bulk", methods=["POST"])
@access("editor+")
def bulk():
    """Bulk approve / reject: first a preview (how many and which), then the commit."""
    form = BulkForm()
    raw = " ".join(request.form.getlist("ids"))
    ids = parse_ids(raw) if form.validate_on_submit() else None
    if form.reason_key.errors:
        flash(form.reason_key.errors[0], "error")
        return redirect(url_for("moderation.queue"))
    if ids is None:
        flash("Отметьте вопросы (номера через запятую, не больше 1000).", "error")
        return redirect(url_for("moderation.queue"))
    ok, refused = bulk_preview(ids, form.decision.data, current_staff().id)
    if form.confirm.data == "1" and not refused:
        try:
            bulk_decide(ids, form.decision.data, current_staff().id, form.reason_key.data or None)
        except ModerationError as exc:
            discard()  # the preview below is shown again; nothing of the refused run is kept
            flash(str(exc), "error")
        else:
            flash(f"Готово: {quantity(len(ok), QUESTIONS)}.", "success")
            return redirect(url_for("moderation.queue"))
    form.confirm.data = "1"
    return render_template(
        "moderation/bulk.html",
        form=form,
        ok=ok,
        refused=refused,
        ids=" ".join(str(q.id) for q in ok),
        reasons=bulk_reasons(ok, form.reason_key.data) if form.decision.data == "reject" else [],
    )


#: How the bulk preview names the language of a reason's text.
REASON_LANGUAGES = {"ru": "по-русски", "be": "по-белорусски"}


def bulk_reasons(questions: list, reason_key: str | None) -> list[tuple[str, str, str]]:
    """The reason the authors of ``questions`` will read in their rejection e-mail
    (``operations.full_reason``: the template's text in each question's language), one
    entry per distinct text: ``[(language label, text, «3 вопроса»)]`` in the order
    first met. Empty without a (known) template key."""
    if not reason_key:
        return []
    found: dict[str, tuple[str, int]] = {}
    for q in questions:
        try:
            text = full_reason(q, reason_key, None)
        except ModerationError:
            return []
        if text:
            lang = "be" if q.language == "be" else "ru"
            found[text] = (lang, found.get(text, (lang, 0))[1] + 1)
    return [
        (REASON_LANGUAGES[lang], text, quantity(n, QUESTIONS)) for text, (lang, n) in found.items()
    ]


@bp.route("/export.<fmt>")
@access("editor+")
def export_queue(fmt: str):
    """The queue as CSV or XLSX, exactly the questions the screen lists for the same query
    arguments (every filter, the search, the order; all pages), no author data (blind
    moderation). Streamed: the rows are read in batches (``queries.queue_batches``) and
    written as they come, so the time and memory grow linearly with the rows."""
    if fmt not in ("csv", "xlsx"):
        abort(404)
    _form, f, keep = queue_request()
    if export_jobs.too_big(f):
        flash(
            _(
                "В выгрузке больше %(n)s строк: подготовьте файл в фоне кнопкой на странице"
                " очереди.",
                n=number(export_jobs.inline_rows(), 0),
            ),
            "error",
        )
        back: dict[str, Any] = dict(keep)
        return redirect(url_for("moderation.queue", **back))
    zone = current_app.config["SOVA_TIMEZONE"]
    name = export_name(f, fmt)
    # XLSX: the time received is a date cell (in the pages' zone); CSV: the pages' text
    received = export.local_minute(zone) if fmt == "xlsx" else None

    def batches():
        for items in queries.queue_batches(f):
            ids = [q.id for q in items]
            yield export.queue_rows(items, queries.export_reports(ids), zone, received)

    if fmt == "csv":  # Werkzeug adds the charset
        return send_stream(export.csv_chunks(batches(), export.TYPED_COLUMNS), name, "text/csv")
    return send_stream(
        export.xlsx_chunks(batches()),
        name,
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    )


def export_name(f: queries.QueueFilter, fmt: str) -> str:
    """The file name of an export of the queue of ``f``: «Очередь вопросов», the status as
    the filter names it, today's date."""
    status = "все, кроме архива" if f.status is None else STATUS_LABELS.get(f.status, f.status)
    return file_name("Очередь вопросов", status.lower(), _today(), ext=fmt)


def _today() -> str:
    """Today's date in ``SOVA_TIMEZONE``, ISO (``2026-12-02``), for a file name."""
    return datetime.now(ZoneInfo(current_app.config["SOVA_TIMEZONE"])).date().isoformat()


@bp.route("/export/approved.4s")
@access("chief_editor")
def export_4s():
    """Approved questions as a 4s packet with authors (so chief editors only: blind
    moderation hides authors from editors)."""
    items, _ = queries.queue(filters=queries.QueueFilter(status="approved"), per_page=100_000)
    name = file_name("Одобренные вопросы", _today(), ext="4s")
    return send_bytes(export.to_4s(items).encode("utf-8"), name, "text/plain")


@bp.route("/stats")
@access("editor+")
def statistics():
    """Intake per day and channel, acceptance rate, by city, time to decision."""
    try:
        days: int | None = int(request.args.get("days", "30"))
    except ValueError:
        days = None
    if days is None or not 1 <= days <= 366:
        # an address typed by hand: the page says which period it shows instead
        days = 30 if days is None else min(max(days, 1), 366)
        flash(f"Период — от 1 до 366 дней; показано за {days}.", "warning")
    summary = stats.summary(days)
    if not sees_authors():
        summary.pop("cities", None)
    return render_template(
        "moderation/stats.html", s=summary, intake=stats.intake_table(summary), days=days
    )
