"""Reads for game day, including the primitive contexts the PDF templates receive."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

from sqlalchemy.orm import lazyload

from webapp.core import keyset
from webapp.core.keyset import Key, Page
from webapp.core.models import Document
from webapp.domain.books import book, cite
from webapp.domain.handouts import image_refs, strip_images, without_leading_handout
from webapp.domain.money import Money
from webapp.domain.prizes import unanswered_question_prizes
from webapp.domain.reading import (
    DEFAULT_SYLLABLES_PER_SECOND,
    HANDOUT_NOTE,
    reading_seconds,
    seconds_label,
    syllables,
)
from webapp.domain.text import isolate
from webapp.extensions import db
from webapp.games.models import (
    Game,
    GameEvent,
    GameEventAudit,
    PrintedCopy,
    Season,
    Sector13Draw,
    Series,
    Team,
)
from webapp.moderation.checks import has_handout
from webapp.moderation.queries import signed_off_ids
from webapp.submissions.models import Question
from webapp.submissions.names import name_gender

#: The console's audit actions that change a game's events (the audit keeps others too,
#: such as the producer's permission to start without envelopes).
CHANGES = ("record", "undo")


def event_changes(game_id: int):
    """SELECT of the count of the game's recorded and undone events (its console audit
    rows, never deleted: an undo counts up too, so the count only grows)."""
    return (
        db.select(db.func.count())
        .select_from(GameEventAudit)
        .where(GameEventAudit.game_id == game_id, GameEventAudit.action.in_(CHANGES))
    )


def events_revision(game_id: int) -> int:
    """The revision of the game's events: how many were recorded and undone
    (:func:`event_changes`). A console names the one it shows with each press
    (``record_event``'s ``after``); the on-air feed's revision counts the same."""
    return int(db.session.scalar(event_changes(game_id)) or 0)


def seasons(limit: int | None = None) -> list[Season]:
    """The seasons, the newest first (``limit``: only that many)."""
    return list(db.session.scalars(db.select(Season).order_by(Season.id.desc()).limit(limit)))


#: The seasons the games' index offers in its forms (a new game, a new series): the
#: newest ones, so the page does not grow with the years (the forms' POST accepts any).
SEASON_CHOICES = 20


#: Seasons a page of the games' index.
SEASONS_PAGE = 20
#: The seasons' list: the newest first.
SEASONS_ORDER = (Key(Season.id, desc=True),)


def seasons_page(
    after: int | None = None, before: int | None = None, per_page: int | None = None
) -> Page:
    """A page of the seasons, the newest first (keyset: ``webapp.core.keyset.page``): two
    statements at most, whatever the number of seasons."""
    key_of = keyset.key_of_columns(SEASONS_ORDER, Season.id)
    return keyset.page(
        db.select(Season),
        SEASONS_ORDER,
        Season.id,
        key_of,
        per_page or SEASONS_PAGE,
        after=after,
        before=before,
    )


#: Games a page of a list (the games' index, a season's page).
GAMES_PAGE = 50
#: The games' index: the newest air date first.
NEWEST_FIRST = (Key(Game.air_date, desc=True), Key(Game.id, desc=True))
#: A season's page: in the order they air.
AIR_ORDER = (Key(Game.air_date), Key(Game.id))


def games_page(
    season_id: int | None = None,
    after: int | None = None,
    before: int | None = None,
    per_page: int | None = None,
) -> Page:
    """A page of the games (keyset: ``webapp.core.keyset.page``), newest air date first; of
    one season: in the order they air. Neither the events nor the envelopes are loaded (a
    list shows neither): two statements at most, whatever the number of games."""
    stmt = db.select(Game).options(lazyload(Game.events), lazyload(Game.envelopes))
    keys = NEWEST_FIRST
    if season_id is not None:
        stmt, keys = stmt.where(Game.season_id == season_id), AIR_ORDER
    key_of = keyset.key_of_columns(keys, Game.id)
    return keyset.page(
        stmt, keys, Game.id, key_of, per_page or GAMES_PAGE, after=after, before=before
    )


def season_has_closed_game(season_id: int) -> bool:
    """Whether a game of the season is closed (its prizes are awarded)."""
    stmt = db.select(Game.id).where(Game.season_id == season_id, Game.status == "closed")
    return db.session.scalar(stmt.limit(1)) is not None


def game(game_id: int) -> Game | None:
    return db.session.get(Game, game_id)


def documents(game_id: int) -> list[Document]:
    """The game's envelope/host-card documents and its prizes' agreements."""
    return list(
        db.session.scalars(
            db.select(Document).where(Document.game_id == game_id).order_by(Document.id)
        ).all()
    )


HANDOUT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def handout_files(game: Game, uploads: Path) -> dict[str, Path]:
    """``{name: path}`` of the handout images and packet images (``Question.images``) of
    the game's envelope questions that exist under ``uploads`` (the ``allowed_files`` of
    ``workers.documents.render_pdf``)."""
    files = {}
    for env in game.envelopes:
        for eq in env.questions:
            names = [eq.question.handout_image, *eq.question.image_files.values()]
            for name in names:
                if name and HANDOUT_NAME.match(name) and (uploads / name).is_file():
                    files[name] = uploads / name
    return files


#: The props list's line for a question's uploaded handout image (``Question.handout_image``).
UPLOADED_HANDOUT = "раздаточный материал (изображение)"


def _handout_images(q: Question, images: dict[str, Path] | None) -> list[str]:
    """What the props list says of a question's handout images: each image the question
    or its handout refers to, by the packet's name of it («изображение Kubok_004.jpeg», «…
    — файла нет»), then its uploaded handout image, described, never by its stored file
    name (a random name under instance/uploads means nothing to the studio)."""
    files = q.image_files
    out = []
    for ref in image_refs(q.text, q.handout):
        there = ref in files and (images is None or files[ref] in images)
        out.append(
            f"раздаточный материал (изображение {ref})"
            if there
            else f"раздаточный материал (изображение {ref} — файла нет)"
        )
    if q.handout_image and (images is None or q.handout_image in images):
        out.append(UPLOADED_HANDOUT)
    return out


def props_list(game: Game, images: dict[str, Path] | None = None) -> list[dict]:
    """The props list of the game: what the studio must prepare, per question in table
    order — handout text or image (``[{"sector", "number", "what"}]``; ``number`` is the
    question's position in a blitz, else None). A handout that is only an image reference
    is an image, not a text."""
    items = []
    for env in game.envelopes:
        many = len(env.questions) > 1
        for n, eq in enumerate(sorted(env.questions, key=lambda x: x.slot), start=1):
            q = eq.question
            parts = []
            handout_text = strip_images(q.handout)
            if handout_text:
                parts.append(f"раздаточный материал (текст): {handout_text}")
            parts.extend(_handout_images(q, images))
            if parts:
                items.append(
                    {"sector": env.sector, "number": n if many else None, "what": "; ".join(parts)}
                )
    return items


#: Channels whose questions carry the author's consent to be named on air by themselves:
#: a paper letter or a partner's question is the consent (``LetterForm``'s docstring), and
#: a packet an editor imports names its authors publicly already (tournament packets). The
#: web form and the live form record it per question (``Question.consent_on_air``); the API
#: has no such field (contracts/api.md), so its questions are never named.
CONSENT_CHANNELS = ("mail", "partner", "import")
#: The note printed instead of the names when consent is missing: one author by the
#: gender of the name (:func:`webapp.submissions.names.name_gender`; neutral when unknown),
#: or several authors.
NO_CONSENT_NOTE: dict[str | None, str] = {
    "masc": "Имя автора в эфире не называть: нет его согласия.",
    "femn": "Имя автора в эфире не называть: нет её согласия.",
    None: "Имя автора в эфире не называть: нет согласия автора.",
    "many": "Имена авторов в эфире не называть: нет их согласия.",
}


def no_consent_note(names: list[str]) -> str:
    """The host's note for a question whose authors (``names``, as stored) did not consent
    to be named on air: «… нет его согласия.» / «… нет её согласия.» / «… нет согласия
    автора.» (gender unknown) for one author, «… нет их согласия.» for several."""
    if len(names) > 1:
        return NO_CONSENT_NOTE["many"]
    return NO_CONSENT_NOTE[name_gender(names[0]) if names else None]


def named_on_air(q) -> bool:
    """True if the host may read the authors' names and cities of question ``q`` on air:
    the viewer ticked «Даю согласие, чтобы моё имя и город назвали в эфире»
    (``consent_on_air``) or the question came by letter, from a partner or in an imported
    packet."""
    return bool(q.consent_on_air) or q.channel in CONSENT_CHANNELS


def sector13_note(ruleset: str) -> str:
    """What the envelope and host card of sector 13 say when its question is drawn live:
    2009, «Вопрос 13 сектора выбирает компьютер …» with the clause
    (002_e025d5ded135c1c4.txt §1.4.1, read as people cite it); "" for a season whose
    sector 13 holds a question from the packet (2023)."""
    rules = book(ruleset).rules
    if not rules.sector13_drawn_at_spin:
        return ""
    return (
        "Вопрос 13 сектора выбирает компьютер среди вопросов, присланных телезрителями "
        f"во время прямого эфира, в момент раскрутки волчка ({cite(rules.cite('sector13'))})."
    )


def envelope_context(
    game: Game,
    with_answers: bool,
    serial: str,
    copies: list[str] | None = None,
    images: dict[str, Path] | None = None,
    only_sectors: set[int] | None = None,
    reading_rate: Decimal = DEFAULT_SYLLABLES_PER_SECOND,
) -> dict:
    """Context of ``templates/pdf/envelope.html`` (``with_answers`` False) or
    ``host_card.html`` (True): primitives only, see ``workers/documents.py``. With
    ``copies`` (serials), the set is rendered once per copy; ``images`` (:func:`handout_files`)
    adds each question's handout ``image`` name. Host cards also show the question
    (``show_text``, stress marks kept) and start with the props list (``props``).
    ``only_sectors``: render just these sectors (the 2009 sector-13 card made at the draw);
    the props list then covers only them. A question whose authors did not consent to be
    named on air (:func:`named_on_air`) has no ``authors`` and an ``authors_note`` instead
    («Имя автора в эфире не называть: нет её согласия.», :func:`no_consent_note`). ``text`` is
    the question without a leading ``[Раздаточный материал: …]`` block that repeats ``handout``
    (printed once, in the handout box); ``images`` maps each image reference of the question
    to its allowed file (the templates print the image in place of ``(img name)``). Host
    cards print each question's ``reading`` time at ``reading_rate`` (the game's host's
    pace)."""
    sectors = []
    images = images or {}
    for env in game.envelopes:
        if only_sectors is not None and env.sector not in only_sectors:
            continue
        questions = []
        for eq in sorted(env.questions, key=lambda x: x.slot):
            q = eq.question
            item = {
                "slot": eq.slot,
                # the handout prints once, in its box
                "text": without_leading_handout(q.text, q.handout),
                "handout": q.handout,
                "image": q.handout_image if q.handout_image in images else None,
                "images": {name: f for name, f in q.image_files.items() if f in images},
                # a co-author typed into a viewer form: the name only (QuestionAuthor.typed_in)
                "authors": [{"name": a.name, "city": a.public_city} for a in q.authors],
            }
            if not named_on_air(q):  # no consent: no name or city, a note for the host
                item["authors"] = []
                item["authors_note"] = no_consent_note([a.name for a in q.author_list])
            if with_answers:
                item.update(
                    answer=q.answer,
                    accepted=q.accepted,
                    rejected=q.rejected,
                    comment=q.comment,
                    sources=list(q.sources or []),
                    show_text=True,
                    reading=seconds_label(question_reading(q, reading_rate)),
                )
            questions.append(item)
        sector: dict = {"sector": env.sector, "kind": env.kind, "questions": questions}
        note = sector13_note(game.season.ruleset) if env.kind == "sector13" else ""
        if note and not questions:
            sector["note"] = note
        sectors.append(sector)
    context = {
        "game": {
            # the names isolated as in Game.label: the header and the running lines put
            # them in a sentence, where a right-to-left name would carry its neighbours
            "title": isolate(game.display_title),
            # kind, team, season and number: two games of one day are told apart
            "distinction": game.distinction,
            "date": game.air_date.isoformat(),
            "season": isolate(game.season.name),
        },
        "serial": serial,
        "sectors": sectors,
    }
    if copies:
        context["copies"] = list(copies)
    if with_answers:
        context["props"] = [
            p
            for p in props_list(game, images)
            if only_sectors is None or p["sector"] in only_sectors
        ]
    return context


def printed_copies(document_id: int) -> list[PrintedCopy]:
    """The printed copies (serials) of one envelopes / host-cards Document, by copy number."""
    return list(
        db.session.scalars(
            db.select(PrintedCopy)
            .where(PrintedCopy.document_id == document_id)
            .order_by(PrintedCopy.copy_no)
        ).all()
    )


def copy_by_serial(serial: str) -> PrintedCopy | None:
    """Trace a leaked sheet: the printed copy whose serial is ``serial``."""
    return db.session.scalar(db.select(PrintedCopy).filter_by(serial=serial.strip()))


def teams() -> list[Team]:
    """Every team of experts, by name."""
    return list(db.session.scalars(db.select(Team).order_by(Team.name)).all())


def series_of(season_ids: list[int]) -> list[Series]:
    """The series of these seasons, newest season first (one statement; a page lists the
    series of the seasons it shows, not every series there is)."""
    if not season_ids:
        return []
    return list(
        db.session.scalars(
            db.select(Series)
            .where(Series.season_id.in_(season_ids))
            .order_by(Series.season_id.desc(), Series.id)
        ).all()
    )


def game_copies(game_id: int) -> list[PrintedCopy]:
    """Every printed copy of the game's documents (serials), by document and copy."""
    return list(
        db.session.scalars(
            db.select(PrintedCopy)
            .where(PrintedCopy.game_id == game_id)
            .order_by(PrintedCopy.document_id, PrintedCopy.copy_no)
        ).all()
    )


# --- reads of the game rooms (webapp.games.operations) ------------------------------------


def played_before(game: Game):
    """SQL condition: games played before ``game`` (air date, then id)."""
    return db.or_(
        Game.air_date < game.air_date, db.and_(Game.air_date == game.air_date, Game.id < game.id)
    )


def chronological(query) -> list[Game]:
    return list(db.session.scalars(query.order_by(Game.air_date, Game.id)).all())


def team_payloads_before(game: Game) -> list[dict]:
    """The recorded events' payloads (``contracts/game-protocol.md`` event objects) of the
    games of ``game``'s team in its season played before it (:func:`played_before`), in
    play order: air date, game id, then ``seq``. One statement that loads no game (a
    game brings its envelopes and their questions with it). ``[]`` without a team."""
    if game.team_id is None:
        return []
    return list(
        db.session.scalars(
            db.select(GameEvent.payload)
            .join(Game, GameEvent.game_id == Game.id)
            .where(
                Game.team_id == game.team_id,
                Game.season_id == game.season_id,
                Game.id != game.id,
                played_before(game),
            )
            .order_by(Game.air_date, Game.id, GameEvent.seq)
        ).all()
    )


def live_candidates(spun_at, since=None, game_id: int | None = None) -> list[int]:
    """Ids of the live questions (channel ``live``) that arrived strictly before ``spun_at``
    and, when ``since`` is given, not before ``since`` (their server timestamp
    ``created_at``, UTC; 002_e025d5ded135c1c4.txt §1.4.1 «поступивших … к этому моменту»,
    §1.3 «поступившие по Интернету во время игры») and passed the fast lane: ``approved`` by
    an editor with the sources signed off — the same bar as every envelope question
    (``signed_off_ids``). A question still in moderation, rejected, withdrawn or already in a
    game (``assigned`` and later) is not a candidate. With ``game_id``, a question the
    ``/live`` form recorded as sent during another game (``live_game_id``) is not one
    either. Sorted."""
    query = db.select(Question.id).where(
        Question.channel == "live",
        Question.created_at < spun_at,
        Question.status == "approved",
        Question.id.in_(signed_off_ids()),
    )
    if since is not None:
        query = query.where(Question.created_at >= since)
    if game_id is not None:
        query = query.where(
            db.or_(Question.live_game_id.is_(None), Question.live_game_id == game_id)
        )
    return list(db.session.scalars(query.order_by(Question.id)).all())


def current_draw(game: Game) -> Sector13Draw | None:
    """The game's draw in force (not cancelled), if any (2009 plays sector 13 at most once,
    002 §1.4.1)."""
    return db.session.scalar(
        db.select(Sector13Draw).where(
            Sector13Draw.game_id == game.id, Sector13Draw.cancelled_at.is_(None)
        )
    )


#: What each of a game's documents is, as its downloaded file is named.
GAME_DOCUMENT_NAMES = {
    "envelopes": "Конверты",
    "host_cards": "Карточки ведущего",
    "sector13_card": "Карточка 13 сектора",
    "vote_result": "Итоги голосования",
}


def game_document_file_name(doc: Document, ext: str = "pdf") -> str | None:
    """The downloaded name of a game's document: «Конверты — игра 12 — 2026-12-05.pdf»,
    «Итоги голосования — игра 12 — 2026-12-05.pdf»; later versions say «версия 2». None
    for a kind that is not a game's or a document without its game."""
    what = GAME_DOCUMENT_NAMES.get(doc.kind)
    game = db.session.get(Game, doc.game_id) if doc.game_id else None
    if what is None or game is None:
        return None
    if doc.version and doc.version > 1:
        what = f"{what} (версия {doc.version})"
    return game.file_name(what, ext)


#: A question's outcome when its game closes, as the producer reads it before closing.
OUTCOME_LABELS = {
    "answered": "взят знатоками",
    "unanswered": "не взят: автору положен приз",
    "unasked": "не сыгран: вернётся в пул",
}


def envelope_outcomes(game: Game, state: dict) -> list[tuple]:
    """Each envelope question of ``game`` with its outcome from the replayed ``state``, in
    the envelopes' order: ``[(sector, slot, EnvelopeQuestion, "answered"|"unanswered"|"unasked")]``
    — ``unanswered``: asked and not answered right (its authors are owed the prize, 2023
    §4.11.1, 2009 §1.2.2); ``answered``; ``unasked``: never asked. Closing the game stores
    these (``webapp.games.close.close_game``) and the game page previews them."""
    unanswered = {(u["sector"], u["slot"]) for u in state["unanswered"]}
    played_sectors = {r["sector"] for r in state["rounds"]}
    asked = {
        (r["sector"], q["slot"]) for r in state["rounds"] for q in r["questions"] if q.get("asked")
    }
    out = []
    for env in game.envelopes:
        for eq in env.questions:
            key = (env.sector, eq.slot)
            if key in unanswered:
                outcome = "unanswered"
            elif env.sector in played_sectors and key in asked:
                outcome = "answered"
            else:
                outcome = "unasked"
            out.append((env.sector, eq.slot, eq, outcome))
    return out


def close_preview(game: Game, state: dict) -> dict:
    """What closing the finished ``game`` will do, before the producer confirms it::

        {"questions": [{"sector", "slot", "question_id", "outcome", "label"}],
         "prizes": [{"sector", "slot", "question_id", "author": "Name, City",
                     "amount": Decimal}],
         "total": Decimal | None, "currency": "BYN" | "RUB",
         "rule": "п. 4.11.1 Правил сезона 2023 г."}

    ``prizes``: one row per author share of each unanswered question
    (:func:`webapp.domain.prizes.unanswered_question_prizes`, the computation closing
    uses), ``[]`` and ``total`` None while the season has no prize amount (closing is then
    refused)."""
    season = game.season
    rows = sorted(envelope_outcomes(game, state), key=lambda row: row[:2])  # table order
    questions = [
        {
            "sector": sector,
            "slot": slot,
            "question_id": eq.question.id,
            "outcome": outcome,
            "label": OUTCOME_LABELS[outcome],
        }
        for sector, slot, eq, outcome in rows
    ]
    prizes: list[dict] = []
    total = None
    if season.unanswered_prize is not None:
        placed = {eq.question.id: (sector, slot, eq.question) for sector, slot, eq, _ in rows}
        owed = [
            (eq.question.id, [qa.author_id for qa in eq.question.authors])
            for _s, _slot, eq, outcome in rows
            if outcome == "unanswered"
        ]
        prize = Money(season.unanswered_prize, season.currency)
        for ent in unanswered_question_prizes(season.book.unanswered_rule, owed, prize):
            sector, slot, question = placed[ent.question_key]
            byline = next((a for a in question.author_list if a.id == ent.author_key), None)
            prizes.append(
                {
                    "sector": sector,
                    "slot": slot,
                    "question_id": question.id,
                    "author": byline.display if byline else str(ent.author_key),
                    "amount": ent.money.amount,
                }
            )
        total = sum((p["amount"] for p in prizes), start=Decimal("0.00"))
    return {
        "questions": questions,
        "prizes": prizes,
        "total": total,
        "currency": season.currency,
        "rule": cite(season.book.unanswered_rule),
    }


def _with_handout(q: Question) -> bool:
    return has_handout(q.handout, q.handout_image, [q.text])


def question_syllables(q: Question) -> int:
    """The syllables the host reads for ``q``: its text and, with a handout, the note
    (``webapp.domain.reading``)."""
    return syllables(q.text) + (syllables(HANDOUT_NOTE) if _with_handout(q) else 0)


def question_reading(q: Question, rate: Decimal = DEFAULT_SYLLABLES_PER_SECOND) -> Decimal:
    """The seconds the host takes to read ``q`` aloud at ``rate`` syllables a second, as
    the pre-check's ``reading_time`` estimates them at the default pace
    (``webapp.domain.reading.reading_seconds``; the handout's note when it has one)."""
    return reading_seconds(q.text, handout=_with_handout(q), rate=rate)


def reading_plan(game: Game, rate: Decimal = DEFAULT_SYLLABLES_PER_SECOND) -> dict:
    """The time to read the game's placed questions aloud at ``rate`` (the game's host's
    pace: ``games.operations.pace.game_rate``), reserves not counted:
    ``{"sectors": {sector: Decimal seconds}, "total": Decimal, "budget": int | None
    (the producer's, whole seconds), "over": Decimal | None (seconds past the budget)}``."""
    sectors = {
        env.sector: sum((question_reading(eq.question, rate) for eq in env.questions), Decimal(0))
        for env in game.envelopes
    }
    total = sum(sectors.values(), Decimal(0))
    budget = game.reading_budget_seconds
    over = total - budget if budget is not None and total > budget else None
    return {"sectors": sectors, "total": total, "budget": budget, "over": over}
