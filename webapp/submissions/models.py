"""Authors and their questions (``shared/DESIGN.md``: one question's life)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    event,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.core.models import UTCDateTime, utcnow
from webapp.domain.authors import fold_name
from webapp.domain.handouts import split_images
from webapp.domain.question_states import STATES as QUESTION_STATES
from webapp.domain.question_states import check_transition
from webapp.extensions import Model

# Question.status values, in the order of a question's life (webapp.domain.question_states).
STATUSES = QUESTION_STATES
CHANNELS = ("web", "api", "mail", "import", "live", "partner", "archive")
#: How the staff pages name each channel.
CHANNEL_LABELS = {
    "web": "сайт",
    "api": "приложение",
    "mail": "письмо",
    "import": "импорт пакета",
    "live": "во время игры",
    "partner": "партнёр (13 сектор)",
    "archive": "архив",
}


class Author(Model):
    """A viewer who sends questions. ``email_hash`` (keyed hash of the normalised address)
    makes one author per address; the address itself is stored encrypted
    (``email_encrypted``, Fernet). ``name``/``city``: as given the first time; a later
    submission never changes them, and nothing printed reads them: envelopes,
    prizes and documents read the per-question byline (:class:`QuestionAuthor`)."""

    __tablename__ = "author"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    city: Mapped[str | None] = mapped_column(String(200))
    email_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    email_encrypted: Mapped[str | None] = mapped_column(Text)
    # Bumped when a "my questions" link is used: each link works once.
    link_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Set when an editor merged this row into another (the same person): its
    # questions and prizes moved there; the row stays (the audit, a later submission with
    # its address), and "no author twice in one game" counts it as the surviving author.
    merged_into_id: Mapped[int | None] = mapped_column(ForeignKey("author.id"), index=True)
    # The name and the city folded (webapp.domain.authors.fold_name): the chief editor's
    # likely pairs are rows with the same name_key (an index), not a fold of every row.
    # Set from name/city on every insert and update (author_keys; a Core insert passes
    # **author_keys(name, city) itself).
    name_key: Mapped[str] = mapped_column(String(200), default="", server_default="", index=True)
    city_key: Mapped[str] = mapped_column(String(200), default="", server_default="")

    @property
    def display(self) -> str:
        """``"Name, City"`` as printed (city omitted when unknown)."""
        return f"{self.name}, {self.city}" if self.city else self.name

    @property
    def person_id(self) -> int:
        """The person behind this row: the author it was merged into, else itself (a merge
        always points at a row that is not merged itself: ``webapp.authors.operations``)."""
        return self.merged_into_id or self.id


class Question(Model):
    """A quiz question in the players' own fields (glossary: question, answer, accepted,
    rejected, comment, sources, handout). ``matching_key`` is the folded text used only for
    duplicate search; the original text is never changed by it. ``public_token``: 192-bit
    random token of the author's status page."""

    __tablename__ = "question"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    public_token: Mapped[str] = mapped_column(String(64), unique=True)
    text: Mapped[str] = mapped_column(Text)
    answer: Mapped[str] = mapped_column(Text)
    accepted: Mapped[str | None] = mapped_column(Text)
    rejected: Mapped[str | None] = mapped_column(Text)
    comment: Mapped[str | None] = mapped_column(Text)
    sources: Mapped[list] = mapped_column(JSON, default=list)
    handout: Mapped[str | None] = mapped_column(Text)
    channel: Mapped[str] = mapped_column(String(20), index=True)
    status: Mapped[str] = mapped_column(String(20), index=True)
    matching_key: Mapped[str] = mapped_column(Text, default="")
    language: Mapped[str | None] = mapped_column(String(5))
    origin: Mapped[str | None] = mapped_column(String(300))  # packet file and number
    rejection_reason: Mapped[str | None] = mapped_column(Text)
    consent_version: Mapped[str | None] = mapped_column(String(20))
    # Set by games when the question is played (the game's date). What the author sees is
    # decided by the game's publication (closed and aired: webapp.games.publication).
    aired_on: Mapped[date | None] = mapped_column(Date)
    # Viewer intake: consents, handout image, idempotency, paper letters.
    consent_on_air: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    age_confirmed: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    handout_image: Mapped[str | None] = mapped_column(String(200))  # file under instance/uploads
    idempotency_key: Mapped[str | None] = mapped_column(String(64), unique=True)
    postmark_date: Mapped[date | None] = mapped_column(Date)
    letter_scan: Mapped[str | None] = mapped_column(String(200))
    # Topic code of webapp.domain.topics.TOPICS (varied topics); None = not set.
    topic: Mapped[str | None] = mapped_column(String(20))
    # The author line of an imported packet exactly as written (``@`` / ``Автор:``),
    # kept beside the parsed ``authors``; None when the authors were given as fields.
    author_line: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    # The time of the question's first decision: the earliest of its status changes to
    # ``approved`` or ``rejected`` (None before one), kept by the flush hook below in the
    # transaction of each such change (migration 0044), so that the statistics' time to
    # decision reads one index of the viewer questions (``ix_question_viewer_decided``)
    # instead of every question's history.
    first_decision_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The best similarity (0..100) of a likely duplicate found by the question's pre-check
    # of the current version (``ModerationReport.top_score``; 0 before its pre-check or
    # without candidates), copied here by the pre-check so that the queue's «по повторам»
    # order reads an index of the question table (migration 0027): (status, this
    # descending, id) and the same of the questions not archived.
    duplicate_score: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    # the pre-check's reading_time (seconds, one decimal; 0 before the pre-check), for the
    # queue's «по времени чтения» order
    reading_seconds: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    # A live question (channel ``live``, the ``/live`` form): the game that was live when it
    # arrived (2009 sector 13, 002_e025d5ded135c1c4.txt §1.3); None for every other question.
    live_game_id: Mapped[int | None] = mapped_column(ForeignKey("game.id"), index=True)
    # An editor held the question back after its game aired (a legal complaint, say): it
    # never appears on a public surface (``webapp.games.publication``); who, when, why.
    # Audited as ``ModerationAudit`` action ``hold_back``.
    held_back_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    held_back_by: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    held_back_reason: Mapped[str | None] = mapped_column(Text)

    authors: Mapped[list[QuestionAuthor]] = relationship(
        order_by="QuestionAuthor.position", cascade="all, delete-orphan", lazy="selectin"
    )
    # Loaded when read (one question's page, its API record, a decision's undo): every
    # question a list, a game or a render loaded used to bring its whole history along.
    history: Mapped[list[QuestionStatusChange]] = relationship(
        order_by="QuestionStatusChange.id", cascade="all, delete-orphan", lazy="select"
    )
    images: Mapped[list[QuestionImage]] = relationship(
        order_by="QuestionImage.id", cascade="all, delete-orphan", lazy="selectin"
    )

    @property
    def image_files(self) -> dict[str, str]:
        """``{name as referenced in the text: stored file under instance/uploads}``."""
        return {img.name: img.file for img in self.images}

    def image_parts(self, text: str | None) -> list[dict]:
        """``text`` cut at its image references, for a page: ``{"text": str}`` or
        ``{"image": name as referenced, "file": stored file or None}``
        (:func:`webapp.domain.handouts.split_images`)."""
        files = self.image_files
        return [
            {"text": p.text} if p.image is None else {"image": p.image, "file": files.get(p.image)}
            for p in split_images(text)
        ]

    @property
    def author_list(self) -> list[Byline]:
        """The authors as given on this question: ``[Byline(id=author id, name, city)]``."""
        return [qa.byline for qa in self.authors]

    @property
    def authors_display(self) -> str:
        return "; ".join(a.display for a in self.author_list)


@dataclass(frozen=True)
class Byline:
    """One author as given on one question: ``id`` (the Author row: identity for "no
    author twice in a game"), ``name``/``city`` as typed with that question,
    ``email_encrypted`` of the address given (None without one)."""

    id: int
    name: str
    city: str | None
    email_encrypted: str | None = None

    @property
    def display(self) -> str:
        """``"Name, City"`` as printed (city omitted when unknown)."""
        return f"{self.name}, {self.city}" if self.city else self.name


def author_keys(name: str | None, city: str | None) -> dict[str, str]:
    """``{"name_key", "city_key"}``: ``name`` and ``city`` folded
    (:func:`webapp.domain.authors.fold_name`), at most 200 characters each."""
    return {"name_key": fold_name(name)[:200], "city_key": fold_name(city)[:200]}


@event.listens_for(Author, "before_insert")
@event.listens_for(Author, "before_update")
def _fold_keys(_mapper, _connection, target: Author) -> None:
    for key, value in author_keys(target.name, target.city).items():
        setattr(target, key, value)


#: Channels where the person who sends a question types its other authors in (the web
#: form, the API, the live form): a co-author's name and city there are the sender's word,
#: not the co-author's consent (:attr:`QuestionAuthor.typed_in`).
TYPED_IN_CHANNELS = ("web", "api", "live")


class QuestionAuthor(Model):
    """Authorship, ordered: position 0 is the first author (who gets the odd kopeck).

    ``name``/``city``: the author as given with THIS question: no later
    submission changes what this question, its envelopes, prizes and agreement say.
    ``confirmed_at``: when the link to the author (the person behind an e-mail address)
    was confirmed, by the e-mailed confirmation link or by an editor; None = unconfirmed.
    Only confirmed links put a question in the author's «Мои вопросы»: anyone can type
    someone's address into the form."""

    __tablename__ = "question_author"
    __table_args__ = (
        UniqueConstraint("question_id", "author_id"),
        # an author's links by question id, a page at a time (the author's page)
        Index("ix_question_author_author_id", "author_id", "question_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id", ondelete="CASCADE"))
    author_id: Mapped[int] = mapped_column(ForeignKey("author.id"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    name: Mapped[str] = mapped_column(String(200))
    city: Mapped[str | None] = mapped_column(String(200))
    confirmed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # A credited co-author's phrase as written («при активном участии Евгения Миротина
    # (Горки)»); the author row holds the nominative name. None for the other authors.
    credit: Mapped[str | None] = mapped_column(Text)
    author: Mapped[Author] = relationship(lazy="joined")
    # the question is in the session whenever its authors are (a many-to-one by primary
    # key is taken from the identity map, no query)
    question: Mapped[Question] = relationship(viewonly=True, lazy="select")

    def __init__(self, **kwargs):
        """``author=`` without ``name``/``city`` takes the author row's (letters, imports,
        fixtures: one row per name and city)."""
        author = kwargs.get("author")
        if author is not None:
            kwargs.setdefault("name", author.name)
            kwargs.setdefault("city", author.city)
        super().__init__(**kwargs)

    @property
    def byline(self) -> Byline:
        return Byline(self.author_id, self.name, self.city, self.author.email_encrypted)

    @property
    def credited(self) -> bool:
        """Whether this question counts as the author row's own in public (the archive's
        author page and its links): the link was confirmed (the e-mailed link, or an
        editor), or the row has no address (a co-author, a letter, an import: a row found
        by its own name and city, so the name as given is the row's). An unconfirmed link
        to a row with an address is only what someone typed into the form: anyone can
        type another person's address; nor is a co-author typed into a viewer form
        (:attr:`typed_in`) until they confirm (the same test in SQL:
        ``webapp.archive.queries.author_questions``)."""
        return self.confirmed_at is not None or (
            self.author.email_hash is None and not self.typed_in
        )

    @property
    def typed_in(self) -> bool:
        """A co-author the sender typed into a viewer form (:data:`TYPED_IN_CHANNELS`, not
        the first author) who has not confirmed the question through their own e-mailed
        link: only the sender ticked the consents, so in public such a co-author is
        credited by name only, as the sender wrote it — no city, no author page."""
        return (
            self.position > 0
            and self.confirmed_at is None
            and self.question.channel in TYPED_IN_CHANNELS
        )

    @property
    def public_city(self) -> str | None:
        """The city to publish with this author's name (the archive, the packet, the host
        card): none for a :attr:`typed_in` co-author."""
        return None if self.typed_in else self.city


class QuestionImage(Model):
    """An image a question's text refers to by file name (``(img name)`` / ``(pic: name)``,
    :mod:`webapp.domain.handouts`), brought with its packet or attached by an editor.

    ``name``: the file name as written in the reference; ``file``: the stored re-encoding
    under ``<instance>/uploads`` (:func:`webapp.submissions.images.store_image`; random
    name, one file may serve several questions of one packet). One row per referenced name.
    """

    __tablename__ = "question_image"
    __table_args__ = (UniqueConstraint("question_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(200))
    file: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class QuestionStatusChange(Model):
    """Who moved a question from which status to which, when, and why."""

    __tablename__ = "question_status_change"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    from_status: Mapped[str | None] = mapped_column(String(20))
    to_status: Mapped[str] = mapped_column(String(20))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    by_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    reason: Mapped[str | None] = mapped_column(Text)


def set_status(
    question: Question, to_status: str, by_user_id: int | None = None, reason: str | None = None
) -> None:
    """Change ``question.status`` and record the change (who, when, from, to, why).

    Only the changes of ``webapp.domain.question_states.TRANSITIONS`` are allowed (an
    explicit state machine); anything else raises ``ForbiddenTransition`` (a ValueError)
    and nothing is changed.
    """
    check_transition(question.status, to_status)
    question.history.append(
        QuestionStatusChange(
            from_status=question.status,
            to_status=to_status,
            by_user_id=by_user_id,
            reason=reason,
            at=utcnow(),
        )
    )
    question.status = to_status


class ViewerQuestionDay(Model):
    """How many viewer questions (``channel <> 'archive'``) were received on a local day
    (in ``SOVA_TIMEZONE``) by channel, present status and first author's city (the city of
    the latest link at position 0; ``""`` without one): the statistics page's long windows
    read these few rows instead of every question of the window and its first author.

    Kept exact in the transaction of every change: the flush hooks below (any question or
    author link written through the ORM: a new question, a status change, a city edited, a
    merge), the one-statement intake (:mod:`webapp.submissions.pg_intake`, its own CTE) and
    the Core writers, which call :func:`count_questions` with the ids they wrote. Rows are
    changed by ``count + delta`` upserts (concurrent transactions add up; none rewrites a
    day), so a row may hold 0 once its questions moved on; readers skip those. The page
    reads these rows only for its window's first, partial month: the whole months from
    :class:`ViewerQuestionMonth`, the intake chart from :class:`ViewerIntakeDay`."""

    __tablename__ = "viewer_question_day"

    day: Mapped[date] = mapped_column(Date, primary_key=True)
    channel: Mapped[str] = mapped_column(String(20), primary_key=True)
    status: Mapped[str] = mapped_column(String(20), primary_key=True)
    city: Mapped[str] = mapped_column(String(200), primary_key=True)
    count: Mapped[int] = mapped_column(Integer)


class ViewerIntakeDay(Model):
    """How many viewer questions were received on a local day (in ``SOVA_TIMEZONE``) by
    channel: the statistics page's intake chart, a row per day and channel however many
    statuses and cities the day's questions have (a year's window reads at most 366 ×
    channels rows). Kept with :class:`ViewerQuestionDay`, by the same writers and the same
    ``count + delta`` upserts; a row may hold 0, readers skip those."""

    __tablename__ = "viewer_intake_day"

    day: Mapped[date] = mapped_column(Date, primary_key=True)
    channel: Mapped[str] = mapped_column(String(20), primary_key=True)
    count: Mapped[int] = mapped_column(Integer)


class ViewerQuestionMonth(Model):
    """How many viewer questions were received in a local month (``month``: its first day)
    by present status and first author's city: the statistics' acceptance and cities for
    the whole months of a window (the rows do not multiply with the days; the window's
    first, partial month is read from :class:`ViewerQuestionDay`). Kept with
    :class:`ViewerQuestionDay`, by the same writers and upserts; a row may hold 0."""

    __tablename__ = "viewer_question_month"

    month: Mapped[date] = mapped_column(Date, primary_key=True)
    status: Mapped[str] = mapped_column(String(20), primary_key=True)
    city: Mapped[str] = mapped_column(String(200), primary_key=True)
    count: Mapped[int] = mapped_column(Integer)


class ViewerDecisionMonth(Model):
    """The decided viewer questions (``first_decision_at`` set) received in a local month,
    by whole hours from receipt to first decision (``hour``: the floor, negative for a
    decision stamped before the receipt): how many (``count``) and the sum of their exact
    times in microseconds (``micros``). The statistics' time to decision takes the count and
    the mean of a window's whole months from these rows, and the median's bin: only that
    hour's questions of the window are read, through ``ix_question_viewer_decision_time``.
    Kept with :class:`ViewerQuestionDay` (a decision changes the question's key) by the same
    writers and upserts; a row may hold 0."""

    __tablename__ = "viewer_decision_month"

    month: Mapped[date] = mapped_column(Date, primary_key=True)
    hour: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    count: Mapped[int] = mapped_column(Integer)
    micros: Mapped[int] = mapped_column(BigInteger)


class QuestionCityCount(Model):
    """How many questions of a status (``archived`` aside) have at least one author link
    whose city is ``city``, exactly as written (a question with two such links counts
    once; one whose links give two spellings counts once in each): the editors' queue
    filtered by the author's city counts its questions from these rows
    (``webapp.moderation.queries.queue_count``) instead of reading them, whatever the
    archive. Kept with :class:`ViewerQuestionDay`, by the same writers (the flush hooks,
    the one-statement intake's CTE, the Core writers' ``count_questions``) and the same
    ``count + delta`` upserts; a row may hold 0, readers skip those."""

    __tablename__ = "question_city_count"

    status: Mapped[str] = mapped_column(String(20), primary_key=True)
    city: Mapped[str] = mapped_column(String(200), primary_key=True)
    count: Mapped[int] = mapped_column(Integer)


class ViewerDecisionDay(Model):
    """:class:`ViewerDecisionMonth` by local day: the decided viewer questions received on
    a local day, by whole hours from receipt to first decision, how many and the sum of
    their exact times in microseconds. The statistics' time to decision reads the whole
    days of a window's first, partial month from these rows (at most one per hour of
    decision time and day) instead of that month's questions. Kept with
    :class:`ViewerQuestionDay` by the same writers and upserts; a row may hold 0."""

    __tablename__ = "viewer_decision_day"

    day: Mapped[date] = mapped_column(Date, primary_key=True)
    hour: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    count: Mapped[int] = mapped_column(Integer)
    micros: Mapped[int] = mapped_column(BigInteger)
