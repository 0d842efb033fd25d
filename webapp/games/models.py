"""Seasons, games, the game table (envelopes in sectors) and the recorded events."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal
from zoneinfo import ZoneInfo

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy import true as sa_true
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.core.filenames import file_name
from webapp.core.formats import when
from webapp.core.models import UTCDateTime, money_column, utcnow
from webapp.domain.books import Book, book
from webapp.domain.donor import quoted
from webapp.domain.game_states import STATES
from webapp.domain.text import isolate
from webapp.extensions import Model
from webapp.submissions.models import Question

SERIES_PARTS = ("spring", "summer", "autumn", "winter")
SERIES_LABELS = {"spring": "Весенняя", "summer": "Летняя", "autumn": "Осенняя", "winter": "Зимняя"}
TEAM_SIZE = 6
GAME_KINDS = ("qualifying", "series_final", "year_final", "special")
GAME_KIND_LABELS = {
    "qualifying": "отборочная",
    "series_final": "финал серии",
    "year_final": "финал года",
    "special": "специальная игра",
}
#: A game's statuses, in the order of its life; the changes allowed between them are
#: the state machine's (:mod:`webapp.domain.game_states`).
GAME_STATUSES = STATES
SECTOR_KINDS = ("single", "blitz", "superblitz", "sector13")


class Season(Model):
    """A season plays by one rule set (``"2023"`` → 000_90d7c8192601ed3a.txt, ``"2009"`` →
    002_e025d5ded135c1c4.txt) in its currency (BYN / RUB) and time zone.
    ``unanswered_prize``: Decimal, the season's currency, paid per unanswered question
    (2023 §4.11.1 default 300.00; 2009 §1.2.2 names no amount: the producer sets it).
    The amounts of the book's individual prizes are rows of :class:`SeasonAmount`, one per
    key of ``book.amounts`` (:meth:`prize_amount`): a book's new prize needs no column."""

    __tablename__ = "season"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    ruleset: Mapped[str] = mapped_column(String(4))
    currency: Mapped[str] = mapped_column(String(3))
    timezone: Mapped[str] = mapped_column(String(64))
    unanswered_prize: Mapped[Decimal | None] = money_column(nullable=True)
    # The donor of the season's prizes (webapp.domain.donor): named «Даритель» on its gift
    # agreements, minutes and vote result. NULL name: the rule set's default
    # (webapp.games.season.queries.season_donor), for the seasons made before it was kept.
    donor_name: Mapped[str | None] = mapped_column(String(300))
    donor_city: Mapped[str | None] = mapped_column(String(100))
    donor_details: Mapped[str | None] = mapped_column(Text)
    donor_representative: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    amount_rows: Mapped[list[SeasonAmount]] = relationship(
        lazy="selectin", cascade="all, delete-orphan", order_by="SeasonAmount.key"
    )

    @property
    def book(self) -> Book:
        """The rule book the season plays by: what pages and operations ask, never its name."""
        return book(self.ruleset)

    def prize_amount(self, key: str) -> Decimal | None:
        """The season's amount ``key`` of its book's individual prizes (``"series_final"``),
        None when not set. A season made before its book gave a prize paying ``key`` has no
        row of it: the book's default then, so a new prize needs no migration of old seasons."""
        row = next((r for r in self.amount_rows if r.key == key), None)
        if row is not None:
            return row.amount
        amount = self.book.amounts.get(key)
        return amount.default if amount is not None else None

    def set_prize_amount(self, key: str, amount: Decimal | None) -> None:
        """Set the amount ``key`` (a row of :class:`SeasonAmount`, made when missing)."""
        row = next((r for r in self.amount_rows if r.key == key), None)
        if row is None:
            self.amount_rows.append(SeasonAmount(key=key, amount=amount))
        else:
            row.amount = amount

    @property
    def prize_amounts(self) -> list[tuple[str, Decimal | None]]:
        """``[(key, amount)]`` of every amount the season's book sets, in the book's order."""
        return [(key, self.prize_amount(key)) for key in self.book.amounts]


class SeasonAmount(Model):
    """One amount of a season's individual prizes: ``key`` is the book's
    (:attr:`webapp.domain.books.Book.amounts`, e.g. ``"series_final"``), ``amount`` a
    Decimal in the season's currency (None: not set, the prize cannot be paid)."""

    __tablename__ = "season_amount"

    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"), primary_key=True)
    key: Mapped[str] = mapped_column("amount_key", String(40), primary_key=True)
    amount: Mapped[Decimal | None] = money_column(nullable=True)


class Team(Model):
    """A team of experts: a captain and six experts (the captain is one of the six;
    000_90d7c8192601ed3a.txt §3.4.3 speaks of «шесть Знатоков»). ``experts``: list of six
    names, in seating order. Sector-13 options are counted per team (§3.4.3)."""

    __tablename__ = "team"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    captain: Mapped[str] = mapped_column(String(100))
    experts: Mapped[list] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Series(Model):
    """One series of a season: spring, summer, autumn or winter (000_90d7c8192601ed3a.txt
    §4.1). The best result of its earlier qualifying games decides the decisive round (§3.6)."""

    __tablename__ = "series"
    __table_args__ = (UniqueConstraint("season_id", "part"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"), index=True)
    part: Mapped[str] = mapped_column(String(10))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    season: Mapped[Season] = relationship(lazy="joined")

    @property
    def display_name(self) -> str:
        """«Весенняя серия — Сезон 2023», the season's name isolated as in
        :attr:`Game.label`."""
        return f"{SERIES_LABELS.get(self.part, self.part)} серия — {isolate(self.season.name)}"


class Game(Model):
    """One game of a season. ``table_*``: the sector (1..13) holding the blitz, the
    superblitz and sector 13, or None (``contracts/game-protocol.md`` ``table``)."""

    __tablename__ = "game"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"), index=True)
    kind: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(200), default="")
    air_date: Mapped[date] = mapped_column(Date)
    # When the game airs (aware, stored UTC; entered and shown in the season's zone): the
    # game is public once it is closed and this time has passed
    # (:func:`webapp.games.publication.is_published`). A game created without one holds
    # ``air_date`` at 00:00 in the season's zone (:func:`default_air_at`; the rule books
    # name no air hour) with ``air_time_given`` false, and nothing of it is published until
    # the producer gives the time: games are often recorded ahead of an evening broadcast.
    air_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    air_time_given: Mapped[bool] = mapped_column(Boolean, default=True, server_default=sa_true())
    team: Mapped[str | None] = mapped_column(String(200))
    team_id: Mapped[int | None] = mapped_column(ForeignKey("team.id"), index=True)
    series_id: Mapped[int | None] = mapped_column(ForeignKey("series.id"), index=True)
    table_blitz: Mapped[int | None] = mapped_column(Integer)
    table_superblitz: Mapped[int | None] = mapped_column(Integer)
    table_sector13: Mapped[int | None] = mapped_column(Integer)
    # 2023 §4.12.1: the amended parameters the game took from its season when its first event
    # was recorded ({parameter: value}, only those that differ from the book's; {} = the
    # book's rules); NULL until then (``webapp.games.operations.play.game_rules``).
    rules: Mapped[dict | None] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(20), default="draft")
    # The table is locked (completeness checked) before envelopes are printed.
    table_locked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # the producer's budget for reading the episode's questions aloud, whole seconds
    # (None: no budget); the table builder sets the estimate against it
    reading_budget_seconds: Mapped[int | None] = mapped_column(Integer)
    # who hosts the episode (a «host» user, named by the producer): the reading time is
    # estimated at that host's pace, calibrated from their recorded games
    host_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    table_locked_by: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    season: Mapped[Season] = relationship(lazy="joined")
    team_row: Mapped[Team | None] = relationship(lazy="joined")
    series: Mapped[Series | None] = relationship(lazy="joined")
    envelopes: Mapped[list[Envelope]] = relationship(
        order_by="Envelope.sector", cascade="all, delete-orphan", lazy="selectin"
    )
    events: Mapped[list[GameEvent]] = relationship(
        order_by="GameEvent.seq", cascade="all, delete-orphan", lazy="selectin"
    )

    @property
    def table(self) -> dict:
        """The ``table`` object of ``sova.game-protocol/1``."""
        return {
            "blitz": self.table_blitz,
            "superblitz": self.table_superblitz,
            "sector13": self.table_sector13,
        }

    def sector_kind(self, sector: int) -> str:
        """``single``, ``blitz``, ``superblitz`` or ``sector13`` for sector 1..13."""
        for kind, at in (
            ("blitz", self.table_blitz),
            ("superblitz", self.table_superblitz),
            ("sector13", self.table_sector13),
        ):
            if at == sector:
                return kind
        return "single"

    @property
    def display_title(self) -> str:
        """The title, or «Игра 30.11.2026» (the air date in the house format,
        :func:`webapp.core.formats.when`)."""
        return self.title or f"Игра {when(self.air_date)}"

    @property
    def team_name(self) -> str:
        """The team's name (the season's team, else the name typed on the game), or ""."""
        return self.team_row.name if self.team_row else (self.team or "")

    @property
    def distinction(self) -> str:
        """What tells the game from another of the same day: its kind, team, season and
        number, «отборочная, Команда Анны, сезон «2026», № 12» (no team: left out; a name with
        «» of its own prints them as „“: сезон «Сезон „Весна“»). The team's and the season's
        names are isolated (:func:`webapp.domain.text.isolate`): a right-to-left name would
        otherwise carry «», № 12» into its run and hide which game it is."""
        parts = [GAME_KIND_LABELS.get(self.kind, self.kind), isolate(self.team_name)]
        parts.append(f"сезон {quoted(isolate(self.season.name))}" if self.season else "")
        return ", ".join(p for p in parts if p) + f", № {self.id}"

    @property
    def label(self) -> str:
        """The game as staff pages name it in lists, selects and titles: the title, then
        :attr:`distinction` — «Игра 05.12.2026 — отборочная, Команда Анны, сезон «2026»,
        № 12», every name in it isolated as in :attr:`distinction`. For the staff's pages and
        papers only: an export or a file name takes the names as typed."""
        return f"{isolate(self.display_title)} — {self.distinction}"

    def file_name(self, what: str, ext: str) -> str:
        """A downloaded file's name for this game: «Конверты — игра 12 — 2026-12-05.pdf»
        (``what`` says what the file is; :func:`webapp.core.filenames.file_name`)."""
        return file_name(what, f"игра {self.id}", self.air_date.isoformat(), ext=ext)


def default_air_at(air_date: date, zone: str) -> datetime:
    """A game's air time when none is given: ``air_date`` at 00:00 in the season's time
    zone ``zone``, as an aware UTC datetime (neither rule book names an air hour)."""
    return datetime.combine(air_date, time(0), tzinfo=ZoneInfo(zone)).astimezone(UTC)


class Envelope(Model):
    """What lies in one sector of a game's table: one question, or three for a blitz."""

    __tablename__ = "envelope"
    __table_args__ = (UniqueConstraint("game_id", "sector"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"))
    sector: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20))
    questions: Mapped[list[EnvelopeQuestion]] = relationship(
        order_by="EnvelopeQuestion.slot", cascade="all, delete-orphan", lazy="selectin"
    )
    reserve: Mapped[EnvelopeReserve | None] = relationship(
        cascade="all, delete-orphan", lazy="selectin", uselist=False
    )


class EnvelopeReserve(Model):
    """The one reserve question of a sector («one reserve per sector»), put in when
    a question of the sector has to be replaced. It stays ``approved`` in the pool (it is
    not in an envelope) but no other open game's fill takes it."""

    __tablename__ = "envelope_reserve"
    __table_args__ = (UniqueConstraint("envelope_id"), UniqueConstraint("game_id", "question_id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    envelope_id: Mapped[int] = mapped_column(ForeignKey("envelope.id", ondelete="CASCADE"))
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"), index=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id"), index=True)
    question: Mapped[Question] = relationship(lazy="joined")


class EnvelopeQuestion(Model):
    """A question in an envelope slot (1..3). ``outcome`` after close: answered /
    unanswered / unasked. A question is in at most one slot of a game."""

    __tablename__ = "envelope_question"
    __table_args__ = (
        UniqueConstraint("envelope_id", "slot"),
        UniqueConstraint("game_id", "question_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    envelope_id: Mapped[int] = mapped_column(ForeignKey("envelope.id", ondelete="CASCADE"))
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"))
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id"), index=True)
    slot: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str | None] = mapped_column(String(20))
    question: Mapped[Question] = relationship(lazy="joined")


class GameEvent(Model):
    """One event of ``sova.game-protocol/1``, in order (``seq`` from 1)."""

    __tablename__ = "game_event"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    payload: Mapped[dict] = mapped_column(JSON)
    by_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class GameEventAudit(Model):
    """Audit of the host console: every recorded and every undone event (who, when, what).
    ``action``: ``record`` | ``undo``; ``seq`` and ``payload`` are the event's. Rows stay
    when the event itself is removed by an undo."""

    __tablename__ = "game_event_audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"), index=True)
    action: Mapped[str] = mapped_column(String(10))
    seq: Mapped[int] = mapped_column(Integer)
    payload: Mapped[dict] = mapped_column(JSON)
    by_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Sector13Draw(Model):
    """A 2009 sector-13 draw (002_e025d5ded135c1c4.txt §1.4.1: «компьютер выбирает» an
    Internet question): made when the spin of event ``seq`` lands on sector 13. ``candidates``:
    ids of the live questions that arrived before ``spun_at`` (sorted); ``seed``: the random
    seed, so anyone can repeat the draw with :func:`webapp.games.operations.repeat_draw`.
    ``cancelled_at``: the spin was undone (the row stays, for the audit; a new spin makes a
    new row)."""

    __tablename__ = "sector13_draw"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    spun_at: Mapped[datetime] = mapped_column(UTCDateTime)
    seed: Mapped[str] = mapped_column(String(64))
    candidates: Mapped[list] = mapped_column(JSON)
    question_id: Mapped[int | None] = mapped_column(ForeignKey("question.id"))
    by_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    cancelled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    question: Mapped[Question | None] = relationship(lazy="joined")


class PrintedCopy(Model):
    """One printed copy of a game's envelopes or host cards: its serial is printed in every
    page footer, so a leaked sheet is traced to its copy. ``serial``:
    ``"<game>-E<nn>"`` (envelopes) or ``"<game>-H<nn>"`` (host cards)."""

    __tablename__ = "printed_copy"
    __table_args__ = (UniqueConstraint("document_id", "copy_no"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("document.id", ondelete="CASCADE"), index=True
    )
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"), index=True)
    copy_no: Mapped[int] = mapped_column(Integer)
    serial: Mapped[str] = mapped_column(String(40), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
