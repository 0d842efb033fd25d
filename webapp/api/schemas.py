"""Marshmallow schemas of API v1 (``shared/contracts/api.md``); they also make the
OpenAPI document at ``/api/v1/openapi.json``."""

from collections.abc import Callable, Iterable, Mapping

from marshmallow import EXCLUDE, Schema, ValidationError, fields, pre_load, validate

from webapp.api.body import NumberLiteral
from webapp.api.messages import NUL, Message
from webapp.domain.books import BOOKS
from webapp.prizes.models import PRIZE_STATUSES

#: Ids in requests: a database Integer primary key (larger values cannot name a row and
#: overflow SQLite).
ID = validate.Range(min=1, max=2**31 - 1)


def _has_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_nul(v) for v in value)
    return False


class OneOfLive(validate.OneOf):
    """``OneOf`` whose choices are read when a value is checked (and when the OpenAPI
    document is built), so a rule book registered after import is one of them."""

    def __init__(self, values: Callable[[], Iterable[str]]) -> None:
        self._values = values
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self._values()))

    @choices.setter
    def choices(self, _: object) -> None:
        """The choices are always read from ``values``."""

    @property
    def choices_text(self) -> str:
        return ", ".join(self.choices)

    @choices_text.setter
    def choices_text(self, _: object) -> None:
        """Built from :attr:`choices`."""


def book_names() -> Iterable[str]:
    """Every registered rule book's ``ruleset`` name."""
    return BOOKS.keys()


def book_currencies() -> Iterable[str]:
    """The currencies the registered rule books pay prizes in."""
    return (b.currency for b in BOOKS.values())


class Strict(Schema):
    """Base of every input schema: unknown fields are dropped; a NUL character anywhere is a
    422 (PostgreSQL text cannot hold it and SQLite cuts SQL at it)."""

    class Meta:
        unknown = EXCLUDE

    @pre_load
    def _refuse_nul(self, data, **_kwargs):
        if isinstance(data, Mapping):  # a JSON object, or webargs' query MultiDictProxy
            bad = sorted({str(k) for k, v in data.items() if _has_nul(v) or _has_nul(k)})
            if bad:
                raise ValidationError({k: [NUL] for k in bad})
        return data


class AuthorIn(Strict):
    name = fields.String(required=True)
    city = fields.String(load_default=None, allow_none=True)
    email = fields.String(load_default=None, allow_none=True)


class JsonBoolean(fields.Boolean):
    """JSON ``true`` or ``false`` only (marshmallow's Boolean also takes 1, "yes", "on"…);
    anything else is the field's "Not a valid boolean." error."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class SubmissionIn(Strict):
    question = fields.String(required=True)
    answer = fields.String(required=True)
    accepted = fields.String(load_default=None, allow_none=True)
    rejected = fields.String(load_default=None, allow_none=True)
    comment = fields.String(load_default=None, allow_none=True)
    sources = fields.List(fields.String(), load_default=list)
    handout = fields.String(load_default=None, allow_none=True)
    authors = fields.List(
        fields.Nested(AuthorIn), required=True, validate=validate.Length(min=1, max=10)
    )
    email = fields.String(required=True)
    # JSON true or false only: "yes", 1 or "on" are not a viewer's consent
    consent = JsonBoolean(required=True)
    language = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf(["ru", "be", "en"])
    )


class SubmissionCreated(Schema):
    id = fields.Integer(required=True)
    token = fields.String(required=True)
    status_url = fields.String(required=True)


class HistoryItem(Schema):
    status = fields.String(required=True)
    at = fields.DateTime(required=True)


class SubmissionStatus(Schema):
    status = fields.String(required=True)
    history = fields.List(fields.Nested(HistoryItem), required=True)


class CheckWord(Schema):
    """One word an editors' aid lists: ``answer_leak``'s ``{word, found, where, intended}``
    (the answer's folded word, the text's word as written, the field, marked intended)."""

    word = fields.String()
    found = fields.String()
    where = fields.String()
    intended = fields.Boolean()
    suggestion = fields.String(allow_none=True)  # names_to_stress: the dictionary's form


class Check(Schema):
    name = fields.String()
    ok = fields.Boolean()
    message = fields.String()
    words = fields.List(fields.Nested(CheckWord))  # answer_leak, names_to_stress
    seconds = fields.Float()  # reading_time: the host's estimated reading, seconds


class Duplicate(Schema):
    question_id = fields.Integer()
    score = fields.Float()
    status = fields.String()


class Precheck(Schema):
    checks = fields.List(fields.Nested(Check))
    duplicates = fields.List(fields.Nested(Duplicate))


class QuestionOut(Schema):
    id = fields.Integer(required=True)
    status = fields.String(required=True)
    channel = fields.String(required=True)
    question = fields.String(required=True)
    answer = fields.String(required=True)
    precheck = fields.Nested(Precheck, allow_none=True)


class StatusChange(Schema):
    from_status = fields.String(allow_none=True)
    to_status = fields.String()
    at = fields.DateTime()
    by_user_id = fields.Integer(allow_none=True)
    reason = fields.String(allow_none=True)


class QuestionDetail(QuestionOut):
    accepted = fields.String(allow_none=True)
    rejected = fields.String(allow_none=True)
    comment = fields.String(allow_none=True)
    sources = fields.List(fields.String())
    handout = fields.String(allow_none=True)
    #: read-only topic code (``webapp.domain.topics.TOPICS``) or null; set on the table page
    topic = fields.String(allow_none=True)
    revisions = fields.List(fields.Dict())
    history = fields.List(fields.Nested(StatusChange))


class QuestionPage(Schema):
    items = fields.List(fields.Nested(QuestionOut))
    page = fields.Integer()
    pages = fields.Integer()


class QuestionQuery(Strict):
    """Queue filters: as on the editor's queue page."""

    status = fields.String(load_default=None)
    channel = fields.String(load_default=None)
    city = fields.String(load_default=None, validate=validate.Length(max=200))
    flag = fields.String(load_default=None, validate=validate.Length(max=60))
    min_score = fields.Float(load_default=None, validate=validate.Range(min=0, max=100))
    older_than_days = fields.Integer(load_default=None, validate=validate.Range(min=0, max=3650))
    newer_than_days = fields.Integer(load_default=None, validate=validate.Range(min=0, max=3650))
    q = fields.String(load_default=None, validate=validate.Length(max=200))
    sort = fields.String(
        load_default="oldest", validate=validate.OneOf(["oldest", "newest", "duplicate", "id"])
    )
    page = fields.Integer(load_default=1, validate=validate.Range(min=1, max=100000))


class DecisionIn(Strict):
    decision = fields.String(
        required=True, validate=validate.OneOf(["approve", "reject", "sign_off"])
    )
    reason = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=1000))


class DecisionOut(Schema):
    id = fields.Integer()
    status = fields.String()


class PrizeAmount(fields.Field):
    """A prize amount as a string (``"300.00"``) or a JSON number; passed through as is and
    checked by :func:`webapp.domain.money.parse_amount` in the operation (the same rules as
    the web form: finite, ≥ 0, at most 2 decimals and 10 integer digits), whose message
    comes back as 422 ``{"errors": {"unanswered_prize": [...]}}``. A JSON number is passed
    on as the client wrote it (``webapp.api.body.NumberLiteral``), so ``1e5`` is refused
    like the string ``"1e5"``."""

    def __init__(self, **kwargs):
        kwargs.setdefault("metadata", {}).update(
            {"type": ["string", "number"], "example": "300.00"}
        )
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        return value.literal if isinstance(value, NumberLiteral) else value


class DonorIn(Strict):
    """The donor of the season's prizes («Даритель» on its gift agreements, minutes and vote
    result; ``webapp.domain.donor``)."""

    name = fields.String(
        required=True,
        validate=validate.Length(min=1, max=300),
        metadata={"description": "legal name", "example": "ЗАО «Второй национальный телеканал»"},
    )
    city = fields.String(
        required=True,
        validate=validate.Length(min=1, max=100),
        metadata={"description": "where its agreements are signed", "example": "Минск"},
    )
    details = fields.String(
        load_default="",
        allow_none=True,
        validate=validate.Length(max=2000),
        metadata={"description": "address, tax number and bank details (lines)"},
    )
    representative = fields.String(
        load_default="",
        allow_none=True,
        validate=validate.Length(max=300),
        metadata={
            "description": "who signs, in the genitive, printed after «в лице» (optional)",
            "example": "генерального директора Иванова Ивана Ивановича, действующего на "
            "основании Устава",
        },
    )


class SeasonIn(Strict):
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    ruleset = fields.String(required=True, validate=OneOfLive(book_names))
    currency = fields.String(load_default=None, validate=OneOfLive(book_currencies))
    timezone = fields.String(load_default=None)
    unanswered_prize = PrizeAmount(load_default=None, allow_none=True)
    donor = fields.Nested(
        DonorIn,
        load_default=None,
        allow_none=True,
        metadata={
            "description": "default: the SOVA_BROADCASTER_* settings for 2023; for 2009 the "
            "neutral «Генеральный спонсор сезона», Москва (never the 2023 broadcaster)"
        },
    )


class Created(Schema):
    id = fields.Integer(required=True)


SECTOR = validate.Range(min=1, max=13, error=Message("Номер сектора от 1 до 13 или null."))


class TableIn(Strict):
    # strict: a JSON number with a fraction (7.5) is an error, not sector 7
    blitz = fields.Integer(load_default=None, allow_none=True, strict=True, validate=SECTOR)
    superblitz = fields.Integer(load_default=None, allow_none=True, strict=True, validate=SECTOR)
    sector13 = fields.Integer(load_default=None, allow_none=True, strict=True, validate=SECTOR)


class GameIn(Strict):
    season_id = fields.Integer(required=True, strict=True, validate=ID)  # 1.5: not season 1
    kind = fields.String(
        required=True,
        validate=validate.OneOf(["qualifying", "series_final", "year_final", "special"]),
    )
    date = fields.Date(required=True)
    air_at = fields.DateTime(
        format="iso",
        load_default=None,
        allow_none=True,
        metadata={
            "description": "when the game airs, ISO 8601; without an offset it is read in the "
            "season's time zone (Europe/Minsk for 2023, Europe/Moscow for 2009); default: "
            "`date` at 00:00 in that zone",
            "example": "2023-12-30T21:00:00+03:00",
        },
    )
    team = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=200))
    title = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=200))
    table = fields.Nested(TableIn, required=True)
    series_id = fields.Integer(load_default=None, allow_none=True, strict=True, validate=ID)
    team_id = fields.Integer(load_default=None, allow_none=True, strict=True, validate=ID)


class SectorOut(Schema):
    sector = fields.Integer()
    kind = fields.String()
    question_ids = fields.List(fields.Integer())


class PassedOver(Schema):
    """Approved questions the fill did not place, for one reason."""

    reason = fields.String(metadata={"enum": ["missing_image", "language"]})
    count = fields.Integer()
    question_ids = fields.List(fields.Integer())
    message = fields.String()


class AssignOut(Schema):
    sectors = fields.List(fields.Nested(SectorOut))
    passed_over = fields.List(fields.Nested(PassedOver))
    warnings = fields.List(fields.String())


class DrawOut(Schema):
    """The 2009 sector-13 draw: the drawn question, the seed and the pool drawn from
    (``random.Random(seed).choice(sorted(pool))`` repeats it)."""

    question_id = fields.Integer()
    seed = fields.String()
    pool = fields.List(fields.Integer())


class EnvelopesIn(Strict):
    """Optional body of ``POST /games/{id}/envelopes``: ``copies``, the printed copies of
    each document (1..20, default 1), each with its own serial printed on every sheet —
    as on the game page (``webapp.games.operations.request_envelopes``). The contract names
    no body; an empty body keeps the default."""

    copies = fields.Integer(
        load_default=1,
        strict=True,
        validate=validate.Range(min=1, max=20, error=Message("Целое число от 1 до 20.")),
    )


class Accepted(Schema):
    status = fields.String()
    documents = fields.List(fields.Integer())
    copies = fields.Integer()


class DocumentOut(Schema):
    id = fields.Integer()
    kind = fields.String()
    status = fields.String()
    sha256 = fields.String(allow_none=True)
    url = fields.String()


class DocumentList(Schema):
    items = fields.List(fields.Nested(DocumentOut))


class EventIn(Schema):
    """One event of ``sova.game-protocol/1``; the rules engine checks the fields."""

    class Meta:
        unknown = "include"

    type = fields.String(required=True)


class StateOut(Schema):
    state = fields.Dict()


class AirIn(Strict):
    air_at = fields.DateTime(
        format="iso",
        required=True,
        metadata={
            "description": "when the game airs, ISO 8601; without an offset it is read in the "
            "season's time zone",
            "example": "2023-12-30T21:00:00+03:00",
        },
    )


class AirOut(Schema):
    id = fields.Integer(required=True)
    air_at = fields.String(
        required=True,
        metadata={"description": "ISO 8601 in the season's time zone, with its offset"},
    )


class GameOut(Schema):
    id = fields.Integer()
    status = fields.String()
    air_at = fields.String(
        metadata={"description": "when the game airs: ISO 8601 in the season's time zone"}
    )
    air_time_given = fields.Boolean(
        metadata={
            "description": "false: no air time was given (air_at is 00:00 of the game's day, "
            "a placeholder) and nothing of the game is published until one is"
        }
    )
    state = fields.Dict()
    protocol = fields.Dict()


class AuthorOut(Schema):
    name = fields.String()
    city = fields.String(allow_none=True)


class PrizeOut(Schema):
    id = fields.Integer()
    kind = fields.String()
    amount = fields.String(allow_none=True)
    currency = fields.String()
    author = fields.String()
    question_id = fields.Integer(allow_none=True)
    trophy = fields.String(allow_none=True)
    rule = fields.String()


class AwardIn(Strict):
    """An individual prize: ``kind`` (a key of the season's ``book.awards``), the
    expert's ``recipient`` name and the ``team`` roster, or the best author's ``author_id``;
    ``reason``: the sponsor's representative's reason when the 2009 §3.1 best player is not
    the audience vote's winner (or no vote was held)."""

    kind = fields.String(required=True, validate=validate.Length(min=1, max=40))
    recipient = fields.String(load_default="", validate=validate.Length(max=200))
    team = fields.List(
        fields.String(validate=validate.Length(max=200)),
        load_default=list,
        validate=validate.Length(max=20),
    )
    author_id = fields.Integer(load_default=None, allow_none=True, strict=True, validate=ID)
    reason = fields.String(load_default="", validate=validate.Length(max=1000))


class CloseOut(Schema):
    prizes = fields.List(fields.Nested(PrizeOut))


class AgreementOut(Schema):
    number = fields.String()
    document_id = fields.Integer(allow_none=True)
    status = fields.String()


class PrizeItem(Schema):
    id = fields.Integer()
    kind = fields.String()
    amount = fields.String(allow_none=True)
    currency = fields.String()
    status = fields.String()
    author = fields.Nested(AuthorOut)
    question_id = fields.Integer(allow_none=True)
    trophy = fields.String(allow_none=True)
    rule = fields.String()
    agreement = fields.Nested(AgreementOut, allow_none=True)


class PrizeList(Schema):
    items = fields.List(fields.Nested(PrizeItem))


class PrizeQuery(Strict):
    game_id = fields.Integer(load_default=None, validate=ID)
    status = fields.String(load_default=None, validate=validate.OneOf(PRIZE_STATUSES))


class ErrorBody(Schema):
    error = fields.Dict()


class ValidationErrors(Schema):
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))


class ApiError(Schema):
    """Every API error body (the default error response of the OpenAPI document):
    ``{"error": {"code": int, "message": str, …}}`` (401/403/404/409/429/503; a rule refusal
    carries the game-protocol error object) or 422 ``{"errors": {field: [message]}}``."""

    error = fields.Dict()
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))
