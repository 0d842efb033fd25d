"""Schemas of the 2009 §3.1 audience vote endpoints (``contracts/api.md``)."""

from marshmallow import Schema, fields, validate

from webapp.api.schemas import Strict


class SmsIn(Strict):
    """The SMS gateway's callback body."""

    message_id = fields.String(required=True, validate=validate.Length(min=1, max=100))
    msisdn = fields.String(required=True, validate=validate.Length(min=1, max=32))
    text = fields.String(required=True, validate=validate.Length(max=1000))
    received_at = fields.AwareDateTime(required=True)


class SmsResult(Schema):
    result = fields.String(metadata={"enum": ["counted", "repeat", "invalid", "late"]})


class VoteControlIn(Strict):
    action = fields.String(required=True, validate=validate.OneOf(["open", "close"]))
    candidates = fields.List(
        fields.String(validate=validate.Length(min=1, max=200)),
        load_default=None,
        allow_none=True,
        validate=validate.Length(max=50),
    )


class CandidateOut(Schema):
    n = fields.Integer()
    name = fields.String()
    votes = fields.Integer()


class VoteDocument(Schema):
    id = fields.Integer()
    status = fields.String()


class VoteBody(Schema):
    id = fields.Integer()
    game_id = fields.Integer()
    status = fields.String(metadata={"enum": ["open", "closed"]})
    candidates = fields.List(fields.Nested(CandidateOut))
    counted = fields.Integer()
    repeats = fields.Integer()
    invalid = fields.Integer()
    late = fields.Integer()
    opened_at = fields.String(allow_none=True)
    closed_at = fields.String(allow_none=True)
    winner = fields.Integer(allow_none=True)
    log_sha256 = fields.String(allow_none=True)
    document = fields.Nested(VoteDocument, allow_none=True)


class VoteOut(Schema):
    vote = fields.Nested(VoteBody)
