"""Producer and accountant pages: close a game, award prizes, a prize's paperwork."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from wtforms import SelectChoice

from webapp.app_lang import LANGUAGES
from webapp.core import keyset
from webapp.core.access import access, current_staff
from webapp.core.edge import discard, on_refusal
from webapp.core.fields import errors_line
from webapp.core.filenames import file_name, send_bytes, send_path
from webapp.core.links import public_url
from webapp.core.models import Document
from webapp.domain.authors import payee_may_be_author
from webapp.domain.books import rule_reference, trophy_label
from webapp.domain.money import COUNTRY_OF_CURRENCY
from webapp.domain.prizes import awards_available
from webapp.extensions import db, limiter
from webapp.games.close import close_game
from webapp.games.forms import CloseGameForm
from webapp.games.models import Game
from webapp.games.operations import game_state
from webapp.games.season.queries import final_of_game
from webapp.prizes import payee as payee_ops
from webapp.prizes import queries
from webapp.prizes import register as reg
from webapp.prizes.forms import (
    COUNTRY_FIELDS,
    ActionForm,
    AwardForm,
    PaidForm,
    PaidListForm,
    PayeeForm,
    RegisterForm,
    RegisterPdfForm,
    SignedForm,
)
from webapp.prizes.models import STATUS_LABELS, Prize
from webapp.prizes.operations import (
    PrizeError,
    award_prize,
    close_prize,
    mark_paid,
    mark_signed,
    owed_on_close,
    reissue_agreement,
    reissue_minutes,
    unanswered_questions,
)
from webapp.prizes.tasks import SEND_DETAILS_LINK
from webapp.submissions.models import Question
from webapp.tasks.outbox import enqueue

bp = Blueprint("prizes", __name__, url_prefix="/prizes")

#: Who may download which prize document. A gift agreement carries the payee's address
#: once the details are received: accountants only (personal data).
PRIZE_DOCUMENT_ROLES = {
    "gift_agreement": {"accountant", "admin"},
    "commission_minutes": {"producer", "accountant", "admin"},
    "signed_scan": {"accountant", "admin"},
    "payment_register": {"accountant", "admin"},
}


@bp.app_context_processor
def _labels():
    return {
        "prize_status_labels": STATUS_LABELS,
        "prize_kind_label": queries.kind_label,
        "trophy_label": trophy_label,
    }


@bp.route("/")
@access("producer|accountant")
def index():
    game_id = keyset.id_arg(request.args, "game_id")
    page = queries.prizes_page(game_id=game_id, **keyset.args(request.args))
    keep = {} if game_id is None else {"game_id": game_id}
    return render_template("prizes/index.html", prizes=page, keep=keep)


@bp.route("/close/<int:game_id>", methods=["POST"])
@access("producer")
def close(game_id: int):
    """Close a finished game after the producer ticked the confirmation box
    (:class:`CloseGameForm`); without it nothing is closed and the page says why."""
    game = db.get_or_404(Game, game_id)
    form = CloseGameForm()
    if form.validate_on_submit():
        on_refusal("Игра не закрыта: ", url_for("games.game", game_id=game_id))
        prizes = close_game(game, current_staff().id, owed_on_close)
        flash(f"Игра закрыта. Призов: {len(prizes)}.", "success")
    else:
        flash("Игра не закрыта: " + "; ".join(e for v in form.errors.values() for e in v), "error")
    return redirect(url_for("games.game", game_id=game_id))


def _author_choices(game) -> list[SelectChoice]:
    if game.status not in ("finished", "closed"):
        return []
    choices: dict[int, str] = {}
    for question_id, _authors in unanswered_questions(game, game_state(game)):
        question = db.session.get(Question, question_id)
        for byline in question.author_list if question else []:
            choices.setdefault(byline.id, byline.display)  # as given on the question
    return [SelectChoice(i, label) for i, label in choices.items()]


@bp.route("/games/<int:game_id>/award", methods=["GET", "POST"])
@access("producer")
def award(game_id: int):
    """Individual prizes of the season's rule book after a finished game. The 2009 §3.1
    best player of the game is pre-filled with the audience vote's winner; another player
    (or no vote held) needs the sponsor's representative's reason (the rules:
    ``award_prize``)."""
    game = db.get_or_404(Game, game_id)
    winner = game_state(game)["winner"] if game.status in ("finished", "closed") else None
    available = awards_available(game.season.book, game.kind, winner)
    form = AwardForm()
    form.kind.choices = [
        SelectChoice(r.kind, f"{r.label} ({rule_reference(r.rule)})") for r in available
    ]
    form.author_id.choices = [SelectChoice(0, "—")] + _author_choices(game)
    # 2009 §3.1: the best player of the game is the audience vote's winner — pre-filled
    # the votes feature's read, handed by the app (webapp.app.register_handovers)
    vote = (
        current_app.extensions["sova_best_player_vote"](game)
        if game.season.book.audience_vote
        else None
    )
    vote_winner = vote["candidates"][vote["winner"] - 1] if vote and vote["winner"] else None
    if request.method == "GET" and vote and vote["status"] == "closed":
        voted = next((r for r in available if r.decided_by_vote), None)
        if voted is not None:
            form.kind.data = voted.kind
        form.recipient.data = vote_winner or ""
        form.team.data = "\n".join(vote["candidates"])

    def page(status: int):
        awarded = [p for p in queries.prizes(game_id=game.id) if p.kind in game.season.book.awards]

        final = final_of_game(game, form)  # the season's word: which final, which team won it
        return render_template(
            "prizes/award.html",
            game=game,
            form=form,
            winner=winner,
            available=available,
            awarded=awarded,
            final=final,
            vote=vote,
            vote_winner=vote_winner,
        ), status

    def refused(exc):
        flash(
            f"Приз не присуждён: {exc.message}"
            + (f" ({rule_reference(exc.rule)})" if getattr(exc, "rule", None) else ""),
            "error",
        )
        return page(409)

    if form.validate_on_submit():
        team = [line for line in (form.team.data or "").splitlines() if line.strip()]
        on_refusal(respond=refused)
        made = award_prize(
            game,
            form.kind.data,
            current_staff().id,
            recipient=form.recipient.data or "",
            team=team,
            author_id=form.author_id.data or None,
            reason=form.reason.data or "",
            vote=vote,
        )
        flash(f"Присуждено призов: {len(made)}.", "success")
        return redirect(url_for("prizes.award", game_id=game.id))
    return page(422 if request.method == "POST" else 200)


def _prize_or_404(prize_id: int) -> Prize:
    return db.get_or_404(Prize, prize_id)


@bp.route("/<int:prize_id>")
@access("producer|accountant")
def prize(prize_id: int):
    p = _prize_or_404(prize_id)
    docs = db.session.scalars(
        db.select(Document).where(Document.prize_id == p.id).order_by(Document.id)
    ).all()
    # every document is listed; one the role may not open (personal data: the agreement
    # and the signed scan are the accountants') says who opens it instead of a link
    role = current_staff().role
    openable = {d.id for d in docs if role in PRIZE_DOCUMENT_ROLES.get(d.kind, {"admin"})}
    history = queries.history(p.id)
    # the declared full name is personal data: compared and shown to accountants only
    declared_name = payee_ops.declared(p)[0] if role in ("accountant", "admin") else ""
    return render_template(
        "prizes/prize.html",
        prize=p,
        declared_name=declared_name,
        payee_mismatch=not payee_may_be_author(p.payee, declared_name),
        history=history,
        who=queries.user_names(h.by_user_id for h in history),
        document_labels=queries.DOCUMENT_LABELS,
        document_status_labels=queries.DOCUMENT_STATUS_LABELS,
        documents=docs,
        openable=openable,
        minutes=queries.minutes_of(p.id),
        action_form=ActionForm(),
        signed_form=SignedForm(),
        paid_form=PaidForm(),
    )


def _done(p: Prize, message: str):
    """Back to the prize's page with ``message``; the page of a refusal is the same, with
    «Не выполнено: …» (declared by :func:`_on_refusal`)."""
    flash(message, "success")
    return redirect(url_for("prizes.prize", prize_id=p.id))


def _on_refusal(p: Prize) -> None:
    on_refusal("Не выполнено: ", url_for("prizes.prize", prize_id=p.id))


@bp.route("/<int:prize_id>/reissue", methods=["POST"])
@access("producer|accountant")
def reissue(prize_id: int):
    p = _prize_or_404(prize_id)
    if not ActionForm().validate_on_submit():
        abort(400)
    _on_refusal(p)
    reissue_agreement(p, current_staff().id)
    return _done(p, "Новая версия договора поставлена в очередь.")


@bp.route("/<int:prize_id>/reissue-minutes", methods=["POST"])
@access("producer|accountant")
def reissue_minutes_view(prize_id: int):
    """A new version of the prize commission's minutes: same number, next version."""
    p = _prize_or_404(prize_id)
    if not ActionForm().validate_on_submit():
        abort(400)
    _on_refusal(p)
    reissue_minutes(p, current_staff().id)
    return _done(p, "Новая версия протокола поставлена в очередь.")


@bp.route("/<int:prize_id>/signed", methods=["POST"])
@access("accountant")
def signed(prize_id: int):
    p = _prize_or_404(prize_id)
    form = SignedForm()
    if not form.validate_on_submit():
        flash("Скан не принят: " + errors_line(form), "error")
        return redirect(url_for("prizes.prize", prize_id=p.id))
    upload = form.scan.data
    _on_refusal(p)
    mark_signed(p, upload.read(), upload.filename or "", current_staff().id)
    return _done(p, "Договор отмечен подписанным.")


@bp.route("/<int:prize_id>/paid", methods=["POST"])
@access("accountant")
def paid(prize_id: int):
    p = _prize_or_404(prize_id)
    form = PaidForm()
    if not form.validate_on_submit():
        flash("Оплата не отмечена: " + errors_line(form), "error")
        return redirect(url_for("prizes.prize", prize_id=p.id))
    on_refusal("Оплата не отмечена: ", url_for("prizes.prize", prize_id=p.id))
    mark_paid(p, form.paid_on.data, form.reference.data, current_staff().id)
    return _done(p, "Оплата отмечена.")


@bp.route("/<int:prize_id>/close", methods=["POST"])
@access("accountant")
def close_one(prize_id: int):
    p = _prize_or_404(prize_id)
    if not ActionForm().validate_on_submit():
        abort(400)
    _on_refusal(p)
    close_prize(p, current_staff().id)
    return _done(p, "Приз закрыт.")


@bp.route("/documents/<int:document_id>")
@access("producer|accountant")
def document(document_id: int):
    """A prize's PDF (gift agreement, commission minutes) or the signed scan."""
    doc = db.get_or_404(Document, document_id)
    if doc.kind not in PRIZE_DOCUMENT_ROLES:
        abort(404)
    if current_staff().role not in PRIZE_DOCUMENT_ROLES[doc.kind]:
        abort(403)
    if doc.status != "ready" or not doc.path:
        abort(409, description="Документ ещё готовится. Обновите страницу через минуту.")
    path = Path(current_app.config["SOVA_DOCUMENTS_PATH"]) / doc.path
    if not path.is_file():
        abort(404)
    name = queries.document_file_name(doc, path.suffix.lstrip(".") or "pdf")
    return send_path(path, name, attachment=False)


@bp.route("/dashboard")
@access("producer|accountant")
def dashboard():
    """Owed, issued, signed and paid per season and game, and the overdue list."""
    days = int(current_app.config.get("SOVA_PRIZE_OVERDUE_DAYS", 30))
    return render_template(
        "prizes/dashboard.html", rows=queries.dashboard(), overdue=queries.overdue(days), days=days
    )


@bp.route("/<int:prize_id>/request-details", methods=["POST"])
@access("accountant")
def request_details(prize_id: int):
    """A one-time link for the payee's details: mailed to an author with an e-mail, else
    shown once on this page to hand over."""
    p = _prize_or_404(prize_id)
    if not ActionForm().validate_on_submit():
        abort(400)
    _on_refusal(p)
    token = payee_ops.request_details(p, current_staff().id)
    mailed = p.author is not None and bool(p.author.email_encrypted)
    if mailed:
        enqueue(SEND_DETAILS_LINK, p.id)
    link = public_url("prizes.details_form", token=token, lang=payee_ops.payee_language(p))
    return render_template("prizes/link.html", prize=p, link=None if mailed else link)


@bp.route("/<int:prize_id>/payee")
@access("accountant")
def payee(prize_id: int):
    """The payee's details in clear text (accountants only; every view audited)."""
    p = _prize_or_404(prize_id)
    details = payee_ops.reveal(p, current_staff().id)
    resp = current_app.make_response(
        render_template(
            "prizes/payee.html", prize=p, details=details, tax_labels=payee_ops.TAX_STATUSES
        )
    )
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.route("/details/<token>", methods=["GET", "POST"])
@limiter.limit("20/hour", methods=["POST"])
@access("public")
def details_form(token: str):
    """The payee's one-time form (link from an e-mail or handed over by the accountant).

    The link carries the payee's language (``?lang=be``): it is remembered in the language
    cookie (``remember_language``) and the form opens at its address without it, so the
    language links at the top still switch it."""
    if request.method == "GET" and request.args.get("lang") in LANGUAGES:
        resp = redirect(url_for("prizes.details_form", token=token))
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["Referrer-Policy"] = "no-referrer"
        return resp
    link = payee_ops.open_link(token)
    if link is None:
        return render_template("prizes/details_done.html", ok=False), 410
    # the country opens on the season's: a RUB prize (2009 rules) is paid in Russia
    prize = db.session.get(Prize, link.prize_id)
    form = PayeeForm(country=COUNTRY_OF_CURRENCY.get(prize.currency, "BY") if prize else "BY")
    if form.validate_on_submit():
        # a refusal answers 422 (the form again) or 410: the edge rolls back either way
        try:
            payee_ops.submit_details(token, _payee_input(form))
        except payee_ops.PayeeError as exc:
            _show_payee_errors(form, exc.errors)
        except PrizeError:
            return render_template("prizes/details_done.html", ok=False), 410
        else:
            return render_template("prizes/details_done.html", ok=True)
    elif form.is_submitted():
        # the form's own checks (characters, lengths) refused some fields: the details'
        # checks still run on the rest, so that one answer names every bad field
        try:
            payee_ops.validate(_payee_input(form))
        except payee_ops.PayeeError as exc:
            _show_payee_errors(form, exc.errors)
    resp = current_app.make_response(
        (
            render_template("prizes/details_form.html", form=form, country_fields=COUNTRY_FIELDS),
            422 if form.errors else 200,
        )
    )
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


def _payee_input(form: PayeeForm) -> payee_ops.PayeeInput:
    """What the payee typed in ``form``, as ``payee.validate`` takes it (a field left out of
    the request, e.g. the other country's, is ``""``)."""
    return payee_ops.PayeeInput(
        **{f.name: form[f.name].data or "" for f in dataclasses.fields(payee_ops.PayeeInput)}
    )


def _show_payee_errors(form: PayeeForm, errors: dict[str, list[str]]) -> None:
    """Put the messages of ``payee.validate`` (field name → messages) on their fields, under
    which the page shows them. A field the form's own checks refused already keeps only
    their message: its bad character or length is what the payee must fix first (the details'
    check would say the same character again)."""
    for name, messages in errors.items():
        field = form._fields.get(name)
        if field is None:
            form.form_errors.extend(messages)
        elif not field.errors:
            field.errors = list(messages)


@bp.route("/register")
@access("accountant")
def register():
    """The payment register for a period: the form, or the XLSX / CSV download (audited
    export of the payees' accounts)."""
    form = RegisterForm(request.args)
    if request.args and form.validate():
        try:
            if form.format.data == "csv":
                data = reg.register_csv(form.start.data, form.end.data, current_staff().id)
                mime, ext = "text/csv", "csv"  # Werkzeug adds "; charset=utf-8"
            else:
                data = reg.register_xlsx(form.start.data, form.end.data, current_staff().id)
                mime = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
                ext = "xlsx"
        except reg.RegisterError as exc:
            discard()
            flash(str(exc), "error")
        else:
            name = file_name(
                "Реестр выплат", form.start.data.isoformat(), form.end.data.isoformat(), ext=ext
            )
            resp = send_bytes(data, name, mime)
            resp.headers["Cache-Control"] = "no-store"
            return resp
    return render_template(
        "prizes/register.html",
        form=form,
        import_form=PaidListForm(),
        pdf_form=RegisterPdfForm(formdata=None, start=form.start.data, end=form.end.data),
        pdfs=reg.recent_register_pdfs(),
        errors=form.errors if request.args else {},
    )


@bp.route("/register/pdf", methods=["POST"])
@access("accountant")
def register_pdf():
    """Queue the PDF of the payment register for a period (rendered by the worker; listed
    on the register page with a download link once ready)."""
    form = RegisterPdfForm()
    if not form.validate_on_submit():
        flash("PDF не заказан: " + errors_line(form), "error")
        return redirect(url_for("prizes.register"))
    on_refusal("PDF не заказан: ", url_for("prizes.register"))
    doc = reg.request_register_pdf(form.start.data, form.end.data)
    flash(
        f"PDF реестра (версия {doc.version}) готовится. Обновите страницу через минуту.", "success"
    )
    return redirect(url_for("prizes.register"))


@bp.route("/register/import", methods=["POST"])
@access("accountant")
def import_paid():
    """Import a bank's paid list (CSV): all lines or none."""

    form = PaidListForm()
    if not form.validate_on_submit():
        flash("Файл не принят: " + errors_line(form), "error")
        return redirect(url_for("prizes.register"))
    on_refusal("Ничего не отмечено: ", url_for("prizes.register"))
    marked = reg.import_paid_list(form.paid_list.data.read(), current_staff().id)
    flash(f"Отмечено оплаченными: {marked}.", "success")
    return redirect(url_for("prizes.register"))
