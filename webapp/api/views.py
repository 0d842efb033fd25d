"""API v1: the ``api`` blueprint, the submissions and the questions (games, their prizes and
documents: :mod:`.game_views`; the season: :mod:`.season_views`; the vote: :mod:`.votes`).
Each endpoint declares its access (``@access``) like every page."""

from __future__ import annotations

from flask import abort, g
from werkzeug.exceptions import HTTPException

from webapp.api import schemas as s
from webapp.api.body import Blueprint
from webapp.archive.history import public_history
from webapp.core.access import access, current_staff
from webapp.core.links import public_url
from webapp.extensions import limiter
from webapp.moderation import queries as mod_queries
from webapp.moderation.operations import decide, sign_off
from webapp.submissions.operations import AuthorInput, SubmissionInput, receive
from webapp.submissions.queries import by_token
from webapp.submissions.views import api_email_limit_key, counts_toward_limit

blp = Blueprint("api", __name__, url_prefix="/api/v1", description="Sova API v1")
SECURE: list[dict[str, list[str]]] = [{"bearer": []}]


# An operation's refusal (webapp.core.errors.OperationError) is answered by the request
# edge (webapp.core.edge): 422 {"errors": {field: [message]}} or 409 {"error": {...}}.


class ApiError(HTTPException):
    """An HTTP error whose JSON body the API error handler takes from ``data``."""

    def __init__(self, code: int, **data):
        super().__init__()
        self.code = code
        self.data = data


def conflict(error: dict):
    """409 ``{"error": {...}}`` for a refusal that is no operation's (a pending document)."""
    raise ApiError(409, error=error)


# --- submissions -------------------------------------------------------------------------


@blp.route("/submissions", methods=["POST"])
@limiter.limit("30/hour;5/minute", methods=["POST"], deduct_when=lambda r: counts_toward_limit(r))
@limiter.limit(
    "10/hour",
    methods=["POST"],
    key_func=lambda: api_email_limit_key(),
    deduct_when=lambda r: counts_toward_limit(r),
)
@access("public", api=True)
@blp.arguments(s.SubmissionIn)
@blp.response(201, s.SubmissionCreated)
@blp.alt_response(422, schema=s.ValidationErrors)
def submit(data):
    """Submit a viewer question (public, rate-limited)."""
    first = data["authors"][0]
    authors = [
        AuthorInput(name=a["name"], city=a.get("city"), email=a.get("email"))
        for a in data["authors"]
    ]
    authors[0].email = data["email"] or first.get("email")
    q = receive(
        SubmissionInput(
            question=data["question"],
            answer=data["answer"],
            accepted=data.get("accepted"),
            rejected=data.get("rejected"),
            comment=data.get("comment"),
            sources=data.get("sources") or [],
            handout=data.get("handout"),
            authors=authors,
            email=data["email"],
            consent=data["consent"],
            language=data.get("language"),
            channel="api",
        )
    )
    g.sova_new_question = q.created
    qid, token = q.id, q.public_token
    return {
        "id": qid,
        "token": token,
        "status_url": public_url("viewer.status", token=token),
    }


@blp.route("/submissions/<token>")
@access("public", api=True)
@blp.response(200, s.SubmissionStatus)
def submission_status(token):
    """The author's view of a question's status; never reveals the game before it airs."""
    q = by_token(token)
    if q is None:
        abort(404)
    history = public_history(q)
    return {"status": history[-1]["status"] if history else "received", "history": history}


# --- moderation --------------------------------------------------------------------------


def _question_out(q, report) -> dict:
    return {
        "id": q.id,
        "status": q.status,
        "channel": q.channel,
        "question": q.text,
        "answer": q.answer,
        "precheck": {"checks": report.checks, "duplicates": report.duplicates} if report else None,
    }


@blp.route("/questions")
@access("editor+", api=True)
@blp.arguments(s.QuestionQuery, location="query")
@blp.response(200, s.QuestionPage)
@blp.doc(security=SECURE)
def questions(args):
    """The moderation queue (status defaults to every status except archived), with the
    filters, full-text search and sorting of the editors' queue page."""
    f = mod_queries.QueueFilter(
        status=args.get("status"),
        channel=args.get("channel"),
        city=args.get("city"),
        flag=args.get("flag"),
        min_score=args.get("min_score"),
        older_than_days=args.get("older_than_days"),
        newer_than_days=args.get("newer_than_days"),
        search=args.get("q"),
        sort=args["sort"],
    )
    items, pages = mod_queries.queue(page=args["page"], filters=f)
    reports = mod_queries.reports_for([q.id for q in items])
    return {
        "items": [_question_out(q, reports.get(q.id)) for q in items],
        "page": min(args["page"], pages),
        "pages": pages,
    }


@blp.route("/questions/<int:question_id>")
@access("editor+", api=True)
@blp.response(200, s.QuestionDetail)
@blp.doc(security=SECURE)
def question(question_id):
    """One question with its pre-check report and status history."""
    q = mod_queries.question(question_id)
    if q is None:
        abort(404)
    out = _question_out(q, mod_queries.latest_report(q.id))
    out.update(
        accepted=q.accepted,
        rejected=q.rejected,
        comment=q.comment,
        sources=q.sources or [],
        handout=q.handout,
        topic=q.topic,
        revisions=[
            {
                "id": r.id,
                "user_id": r.user_id,
                "at": r.at.isoformat(),
                "before": r.before,
                "after": r.after,
            }
            for r in mod_queries.revisions(q.id)
        ],
        history=[
            {
                "from_status": h.from_status,
                "to_status": h.to_status,
                "at": h.at,
                "by_user_id": h.by_user_id,
                "reason": h.reason,
            }
            for h in q.history
        ],
    )
    return out


@blp.route("/questions/<int:question_id>/decision", methods=["POST"])
@access("editor+", api=True)
@blp.arguments(s.DecisionIn)
@blp.response(200, s.DecisionOut)
@blp.alt_response(409, schema=s.ErrorBody)
@blp.doc(security=SECURE)
def decision(data, question_id):
    """Approve or reject a question, or (``sign_off``) record the second editor's
    «источники проверены» that an approved question needs before it can enter an envelope."""
    q = mod_queries.question(question_id)
    if q is None:
        abort(404)
    if data["decision"] == "sign_off":
        sign_off(q, current_staff().id)
    else:
        decide(q, data["decision"], current_staff().id, data.get("reason"))
    return {"id": q.id, "status": q.status}
