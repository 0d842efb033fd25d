"""Producer and accountant pages: close a game, award prizes, a prize's paperwork."""

from __future__ import annotations

from pathlib import Path

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)

from webapp.core.access import access, current_staff
from webapp.core.models import Document
from webapp.domain.prizes import AWARD_RULES, TROPHY_LABELS, awards_available
from webapp.extensions import db
from webapp.games import queries as game_queries
from webapp.games.operations import GameConflict, game_state
from webapp.jobs import commit
from webapp.prizes import queries
from webapp.prizes.forms import ActionForm, AwardForm, PaidForm, SignedForm
from webapp.prizes.models import STATUS_LABELS, Prize
from webapp.prizes.operations import (
    PrizeError,
    _unanswered,
    award_prize,
    close_game,
    close_prize,
    mark_paid,
    mark_signed,
    reissue_agreement,
)
from webapp.submissions.models import Author

bp = Blueprint("prizes", __name__, url_prefix="/prizes")

#: Who may download which prize document.
PRIZE_DOCUMENT_ROLES = {
    "gift_agreement": {"producer", "accountant", "admin"},
    "commission_minutes": {"producer", "accountant", "admin"},
    "signed_scan": {"accountant", "admin"},
}


@bp.app_context_processor
def _labels():
    return {"prize_status_labels": STATUS_LABELS, "prize_kind_label": queries.kind_label,
            "trophy_labels": TROPHY_LABELS}


@bp.route("/")
@access("producer|accountant")
def index():
    game_id = request.args.get("game_id", type=int)
    return render_template("prizes/index.html", prizes=queries.prizes(game_id=game_id))


@bp.route("/close/<int:game_id>", methods=["POST"])
@access("producer")
def close(game_id: int):
    game = game_queries.game(game_id)
    if game is None:
        abort(404)
    if ActionForm().validate_on_submit():
        try:
            prizes = close_game(game, current_staff().id)
        except GameConflict as exc:
            db.session.rollback()
            flash(f"Игра не закрыта: {exc}", "error")
        else:
            commit()
            flash(f"Игра закрыта. Призов: {len(prizes)}.", "success")
    return redirect(url_for("games.game", game_id=game_id))


def _author_choices(game) -> list[tuple[int, str]]:
    if game.status not in ("finished", "closed"):
        return []
    ids = []
    for _q, authors in _unanswered(game, game_state(game)):
        ids.extend(a for a in authors if a not in ids)
    return [(a.id, a.display) for a in (db.session.get(Author, i) for i in ids) if a]


@bp.route("/games/<int:game_id>/award", methods=["GET", "POST"])
@access("producer")
def award(game_id: int):
    """Individual prizes of the season's rule book after a finished game."""
    game = game_queries.game(game_id)
    if game is None:
        abort(404)
    winner = game_state(game)["winner"] if game.status in ("finished", "closed") else None
    available = awards_available(game.season.ruleset, game.kind, winner)
    form = AwardForm()
    form.kind.choices = [(r.kind, f"{r.label} ({r.rule})") for r in available]
    form.author_id.choices = [(0, "—")] + _author_choices(game)
    status = 200
    if form.validate_on_submit():
        team = [line for line in (form.team.data or "").splitlines() if line.strip()]
        try:
            made = award_prize(game, form.kind.data, current_staff().id,
                               recipient=form.recipient.data or "", team=team,
                               author_id=form.author_id.data or None)
        except PrizeError as exc:
            db.session.rollback()
            status = 409
            flash(f"Приз не присуждён: {exc.message}"
                  + (f" ({exc.rule})" if exc.rule else ""), "error")
        else:
            commit()
            flash(f"Присуждено призов: {len(made)}.", "success")
            return redirect(url_for("prizes.award", game_id=game.id))
    elif request.method == "POST":
        status = 422
    awarded = [p for p in queries.prizes(game_id=game.id) if p.kind in AWARD_RULES]
    return render_template("prizes/award.html", game=game, form=form, winner=winner,
                           available=available, awarded=awarded), status


def _prize_or_404(prize_id: int) -> Prize:
    prize = db.session.get(Prize, prize_id)
    if prize is None:
        abort(404)
    return prize


@bp.route("/<int:prize_id>")
@access("producer|accountant")
def prize(prize_id: int):
    p = _prize_or_404(prize_id)
    docs = db.session.scalars(db.select(Document).where(Document.prize_id == p.id)
                              .order_by(Document.id)).all()
    role = current_staff().role
    docs = [d for d in docs if role in PRIZE_DOCUMENT_ROLES.get(d.kind, {"admin"})]
    return render_template("prizes/prize.html", prize=p, history=queries.history(p.id),
                           documents=docs, action_form=ActionForm(), signed_form=SignedForm(),
                           paid_form=PaidForm())


def _run(prize_id: int, action, message: str):
    try:
        action()
    except PrizeError as exc:
        db.session.rollback()
        flash(f"Не выполнено: {exc.message}", "error")
    else:
        commit()
        flash(message, "success")
    return redirect(url_for("prizes.prize", prize_id=prize_id))


@bp.route("/<int:prize_id>/reissue", methods=["POST"])
@access("producer|accountant")
def reissue(prize_id: int):
    p = _prize_or_404(prize_id)
    if not ActionForm().validate_on_submit():
        abort(400)
    return _run(p.id, lambda: reissue_agreement(p, current_staff().id),
                "Новая версия договора поставлена в очередь.")


@bp.route("/<int:prize_id>/signed", methods=["POST"])
@access("accountant")
def signed(prize_id: int):
    p = _prize_or_404(prize_id)
    form = SignedForm()
    if not form.validate_on_submit():
        flash("Скан не принят: " + "; ".join(e for es in form.errors.values() for e in es),
              "error")
        return redirect(url_for("prizes.prize", prize_id=p.id))
    upload = form.scan.data
    return _run(p.id, lambda: mark_signed(p, upload.read(), upload.filename or "",
                                          current_staff().id), "Договор отмечен подписанным.")


@bp.route("/<int:prize_id>/paid", methods=["POST"])
@access("accountant")
def paid(prize_id: int):
    p = _prize_or_404(prize_id)
    form = PaidForm()
    if not form.validate_on_submit():
        flash("Оплата не отмечена: " + "; ".join(e for es in form.errors.values() for e in es),
              "error")
        return redirect(url_for("prizes.prize", prize_id=p.id))
    return _run(p.id, lambda: mark_paid(p, form.paid_on.data, form.reference.data,
                                        current_staff().id), "Оплата отмечена.")


@bp.route("/<int:prize_id>/close", methods=["POST"])
@access("accountant")
def close_one(prize_id: int):
    p = _prize_or_404(prize_id)
    if not ActionForm().validate_on_submit():
        abort(400)
    return _run(p.id, lambda: close_prize(p, current_staff().id), "Приз закрыт.")


@bp.route("/documents/<int:document_id>")
@access("producer|accountant")
def document(document_id: int):
    """A prize's PDF (gift agreement, commission minutes) or the signed scan."""
    doc = db.session.get(Document, document_id)
    if doc is None or doc.kind not in PRIZE_DOCUMENT_ROLES:
        abort(404)
    if current_staff().role not in PRIZE_DOCUMENT_ROLES[doc.kind]:
        abort(403)
    if doc.status != "ready" or not doc.path:
        abort(409, description="Документ ещё готовится. Обновите страницу через минуту.")
    path = Path(current_app.config["SOVA_DOCUMENTS_PATH"]) / doc.path
    if not path.is_file():
        abort(404)
    return send_file(path, as_attachment=False,
                     download_name=f"{doc.kind}-{doc.id}{path.suffix}")


@bp.route("/dashboard")
@access("producer|accountant")
def dashboard():
    """Owed, issued, signed and paid per season and game, and the overdue list."""
    days = int(current_app.config.get("SOVA_PRIZE_OVERDUE_DAYS", 30))
    return render_template("prizes/dashboard.html", rows=queries.dashboard(),
                           overdue=queries.overdue(days), days=days)
