"""Prizes owed after a game, their status history and the gift agreements that pay them."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Date, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.core.models import UTCDateTime, money_column, utcnow
from webapp.extensions import Model, db
from webapp.games.models import Game
from webapp.submissions.models import Author, Byline, Question

#: owed → details_requested → details_received → agreement_issued → signed → paid → closed.
PRIZE_STATUSES = (
    "owed",
    "details_requested",
    "details_received",
    "agreement_issued",
    "signed",
    "paid",
    "closed",
)
STATUS_LABELS = {
    "owed": "причитается",
    "details_requested": "реквизиты запрошены",
    "details_received": "реквизиты получены",
    "agreement_issued": "договор выписан",
    "signed": "договор подписан",
    "paid": "выплачен",
    "closed": "закрыт",
}


class Prize(Model):
    """A prize owed to one person after one game.

    ``kind``: ``unanswered_question`` (2023 §4.11.1, 2009 §1.2.2) or an individual prize of
    the season's book (``Book.awards``: 2023 §4.11.2–§4.11.6, 2009 §3.1–§3.3).
    ``author_id``: the author (question prizes and best-author prizes), else None;
    ``recipient_name``: the person's name for individual prizes (experts have no table of
    their own here). ``amount``: Decimal in ``currency`` (the season's), None for a prize
    without cash (2009 §3.1); ``trophy``: the key of the book's trophy (a Crystal or Diamond Owl) or None.
    Unique per (game, question, author, kind) for question prizes and per ``award_key``
    (``"<game>:<kind>[:<name>]"``) for individual ones: closing or awarding twice makes
    nothing new. ``paid_on``/``payment_reference``: set when paid.
    """

    __tablename__ = "prize"
    __table_args__ = (UniqueConstraint("game_id", "question_id", "author_id", "kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), index=True)
    question_id: Mapped[int | None] = mapped_column(ForeignKey("question.id"))
    author_id: Mapped[int | None] = mapped_column(ForeignKey("author.id"), index=True)
    recipient_name: Mapped[str | None] = mapped_column(String(200))
    #: The full name the payee declared with their details (clear text, kept after the
    #: details are deleted: the signed agreement names the payee so); None before.
    payee_name: Mapped[str | None] = mapped_column(String(300))
    kind: Mapped[str] = mapped_column(String(40))
    amount: Mapped[Decimal | None] = money_column(nullable=True)
    currency: Mapped[str] = mapped_column(String(3))
    trophy: Mapped[str | None] = mapped_column(String(40))
    rule: Mapped[str] = mapped_column(String(80))
    award_key: Mapped[str | None] = mapped_column(String(300), unique=True)
    status: Mapped[str] = mapped_column(String(20), default="owed")
    paid_on: Mapped[date | None] = mapped_column(Date)
    payment_reference: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    status_changed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    @property
    def payment_order(self) -> str | None:
        """The payment order as staff write it: «п/п 17»; a reference typed with its own
        «п/п» as typed («п/п 17», not «п/п п/п 17»); None before the payment."""
        ref = self.payment_reference
        if ref is None:
            return None
        return ref if ref.lower().startswith("п/п") else f"п/п {ref}"

    game: Mapped[Game] = relationship(lazy="joined")
    author: Mapped[Author | None] = relationship(lazy="joined")
    question: Mapped[Question | None] = relationship(lazy="joined")
    agreement: Mapped[GiftAgreement | None] = relationship(
        back_populates="prize", uselist=False, lazy="selectin"
    )

    @property
    def byline(self) -> Byline | None:
        """The author as given on the prize's question (a later submission with
        the same e-mail changes nothing here); for a best-author prize (no question) the
        author as first given; None for a prize without an author."""
        if self.author is None:
            return None
        if self.question is not None:
            for qa in self.question.authors:
                if qa.author_id == self.author_id:
                    return qa.byline
        return Byline(
            self.author.id, self.author.name, self.author.city, self.author.email_encrypted
        )

    @property
    def payee(self) -> str:
        """The person paid as the question gave them (:attr:`byline`), else
        ``recipient_name``. The agreement and the register name the payee as declared in
        the payee details once they are received."""
        byline = self.byline
        return byline.name if byline is not None else self.recipient_name or ""

    @property
    def paper_payee(self) -> str:
        """The payee as every paper of the prize names them (the agreement, the minutes,
        the register in every format): the name declared with the details
        (:attr:`payee_name`), else :attr:`payee`."""
        return self.payee_name or self.payee


class PrizeStatusChange(Model):
    """One change of a prize's status: ``from_status`` (None at creation) → ``to_status``,
    by ``by_user_id`` (None: the system), at ``created_at`` (UTC), with a ``note``."""

    __tablename__ = "prize_status_change"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    prize_id: Mapped[int] = mapped_column(ForeignKey("prize.id", ondelete="CASCADE"), index=True)
    from_status: Mapped[str | None] = mapped_column(String(20))
    to_status: Mapped[str] = mapped_column(String(20))
    by_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    note: Mapped[str] = mapped_column(String(300), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class GiftAgreement(Model):
    """Договор дарения for one prize: ``2023-0001``, the series of the season's year,
    numbered without gaps across the seasons whose names hold that year
    (:func:`webapp.prizes.operations.common.next_agreement_seq`); a number is unique for
    ever (``uq_gift_agreement_number``).

    The number is taken in the closing (or awarding) transaction, so a re-render keeps it; ``document_id`` points to the rendered PDF (the
    latest version); ``signed_document_id`` to the uploaded scan of the signed copy.
    """

    __tablename__ = "gift_agreement"
    __table_args__ = (
        UniqueConstraint("season_id", "seq"),
        UniqueConstraint("season_id", "number"),
        Index("uq_gift_agreement_number", "number", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    prize_id: Mapped[int] = mapped_column(ForeignKey("prize.id"), unique=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"))
    seq: Mapped[int] = mapped_column(Integer)
    number: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), default="pending")
    document_id: Mapped[int | None] = mapped_column(ForeignKey("document.id"))
    signed_document_id: Mapped[int | None] = mapped_column(ForeignKey("document.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    prize: Mapped[Prize] = relationship(back_populates="agreement")


class CommissionMinutes(Model):
    """Number of the prize commission's minutes (протокол комиссии по денежным выигрышам)
    of one Crystal Owl prize (000_90d7c8192601ed3a.txt §4.11.2–§4.11.5), numbered without
    gaps in the series of the season's year prefix, shared by the seasons whose names hold
    that year: ``2023-К-0001`` (``<season prefix>-К-<seq:04d>``), unique for ever.

    Taken once, in the transaction that first issues the minutes (the season row is locked,
    as for :class:`GiftAgreement`); every later render or version of the minutes prints the
    same number. ``seq`` and ``number`` are unique per season, ``prize_id`` is unique.
    """

    __tablename__ = "commission_minutes"
    __table_args__ = (
        UniqueConstraint("season_id", "seq", name="uq_commission_minutes_seq"),
        UniqueConstraint("season_id", "number", name="uq_commission_minutes_number"),
        Index("uq_commission_minutes_number_ever", "number", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    prize_id: Mapped[int] = mapped_column(ForeignKey("prize.id", ondelete="CASCADE"), unique=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"))
    seq: Mapped[int] = mapped_column(Integer)
    number: Mapped[str] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PayeeDetails(Model):
    """Passport, bank details, address and tax status of a prize's payee (personal data).

    ``encrypted``: a Fernet token (``webapp.core.crypto``) of the JSON of the form's fields;
    never stored in clear. ``personal_number_hash`` / ``account_hash``: keyed hashes
    (``crypto.lookup_hash``) for equality searches. Deleted by the retention job
    ``SOVA_PAYEE_RETENTION_DAYS`` days after payment (the agreement is kept).
    """

    __tablename__ = "payee_details"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    prize_id: Mapped[int] = mapped_column(ForeignKey("prize.id", ondelete="CASCADE"), unique=True)
    encrypted: Mapped[str] = mapped_column(db.Text)
    personal_number_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    account_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class DetailsLink(Model):
    """A one-time, expiring link to the payee form: only the SHA-256 of the signed token is
    stored; ``used_at`` set on the first successful submission."""

    __tablename__ = "details_link"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    prize_id: Mapped[int] = mapped_column(ForeignKey("prize.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    reminded_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PersonalDataAccess(Model):
    """Audit of every view and export of payee details: who (``user_id``), what
    (``action``: ``view`` | ``export`` | ``delete``), which prize (None for an export of
    many), when."""

    __tablename__ = "personal_data_access"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    prize_id: Mapped[int | None] = mapped_column(Integer, index=True)
    action: Mapped[str] = mapped_column(String(20))
    detail: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
