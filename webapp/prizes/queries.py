"""Reads for producers and accountants: prizes, PDF contexts, the dashboard."""

from __future__ import annotations

import os
from datetime import date
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy.orm import defaultload

from webapp.accounts.models import ROLE_LABELS, User
from webapp.core import keyset
from webapp.core.filenames import file_name
from webapp.core.keyset import Key, Page
from webapp.core.models import Document, utcnow
from webapp.domain.books import award_label, cite, trophy_label
from webapp.domain.donor import place
from webapp.domain.handouts import plain_text
from webapp.domain.text import isolate
from webapp.extensions import db
from webapp.games.models import Envelope, EnvelopeQuestion, Game, Sector13Draw
from webapp.games.queries import game_document_file_name
from webapp.games.season.queries import season_donor
from webapp.prizes.models import CommissionMinutes, GiftAgreement, Prize, PrizeStatusChange
from webapp.submissions.models import Question
from webapp.submissions.names import name_gender


def prizes(game_id: int | None = None, status: str | None = None) -> list[Prize]:
    """Prizes in id order, optionally of one game and/or one status."""
    stmt = db.select(Prize).order_by(Prize.id)
    if game_id is not None:
        stmt = stmt.where(Prize.game_id == game_id)
    if status:
        stmt = stmt.where(Prize.status == status)
    return list(db.session.scalars(stmt).all())


#: Prizes a page of the prizes' list.
PRIZES_PAGE = 50
#: The prizes' list: in id order (the order they were awarded).
PRIZE_ORDER = (Key(Prize.id),)


def prizes_page(
    game_id: int | None = None,
    after: int | None = None,
    before: int | None = None,
    per_page: int | None = None,
) -> Page:
    """A page of the prizes (of one game), in id order (keyset: ``webapp.core.keyset.page``).
    Loads what the list prints — the game with its season and team, the author, the
    question with its authors (the payee's byline), the agreement — and not the games'
    events and envelopes nor the questions' history and images: a fixed number of
    statements whatever the number of prizes."""
    stmt = db.select(Prize).options(
        defaultload(Prize.game).lazyload(Game.events),
        defaultload(Prize.game).lazyload(Game.envelopes),
        defaultload(Prize.question).lazyload(Question.history),
        defaultload(Prize.question).lazyload(Question.images),
    )
    if game_id is not None:
        stmt = stmt.where(Prize.game_id == game_id)
    key_of = keyset.key_of_columns(PRIZE_ORDER, Prize.id)
    return keyset.page(
        stmt, PRIZE_ORDER, Prize.id, key_of, per_page or PRIZES_PAGE, after=after, before=before
    )


def history(prize_id: int) -> list[PrizeStatusChange]:
    """The prize's status changes, oldest first."""
    return list(
        db.session.scalars(
            db.select(PrizeStatusChange)
            .where(PrizeStatusChange.prize_id == prize_id)
            .order_by(PrizeStatusChange.id)
        ).all()
    )


def user_names(user_ids) -> dict[int, str]:
    """Who made a status change, for the prize's history: ``{user id: str}`` — a person's
    name and role in Russian, ``"Ирина Ковалёва, бухгалтер (irina@example.org)"``; a user
    without a name of their own (none, or the e-mail's local part that
    :func:`webapp.accounts.operations.create_user` puts there) by role:
    ``"бухгалтер (accountant@sova.local)"``. Unknown ids are left out."""
    ids = {i for i in user_ids if i is not None}
    if not ids:
        return {}
    users = db.session.scalars(db.select(User).where(User.id.in_(ids))).all()
    out = {}
    for u in users:
        role = ROLE_LABELS.get(u.role, u.role)
        named = u.name and u.name != u.email.split("@")[0]
        out[u.id] = f"{u.name}, {role} ({u.email})" if named else f"{role} ({u.email})"
    return out


#: Russian names of the prize's documents (``Document.kind``) on the prize page.
DOCUMENT_LABELS = {
    "gift_agreement": "Договор дарения",
    "commission_minutes": "Протокол комиссии по денежным выигрышам",
    "signed_scan": "Скан подписанного договора",
    "payment_register": "Реестр выплат",
}
#: Russian names of a document's rendering status (``Document.status``).
DOCUMENT_STATUS_LABELS = {
    "pending": "готовится",
    "ready": "готов",
    "failed": "ошибка",
    "superseded": "заменён новой версией",
}


def rule_for_print(rule: str) -> str:
    """``"000_90d7c8192601ed3a.txt §4.11.1"`` → ``"п. 4.11.1 Положения о … 2023 года"``
    (:func:`webapp.domain.books.cite`, the paper style)."""
    return cite(rule, style="paper")


def kind_label(kind: str) -> str:
    """Russian name of a prize kind."""
    if kind == "unanswered_question":
        return "Приз автору неотвеченного вопроса"
    return award_label(kind)


def document_version(document_id: int | None) -> int:
    doc = db.session.get(Document, document_id) if document_id else None
    return doc.version if doc else 1


#: What the gift agreement quotes in place of a question's handout block and of an image.
AGREEMENT_HANDOUT_MARK = "(раздаточный материал)"
AGREEMENT_IMAGE_MARK = "(изображение)"


def agreement_text(text: str) -> str:
    """The question's text as clause 1.1 of the gift agreement quotes it: the words of the
    question, with its leading ``[Раздаточный материал: …]`` block replaced by «(раздаточный
    материал)» and any other ``(img …)`` reference by «(изображение)»
    (:func:`webapp.domain.handouts.plain_text`).

    Replaced rather than removed: the quotation identifies the question the prize is for, so
    it says that the question came with material the agreement does not reproduce (and a
    question that is mostly a picture is not quoted as an empty or misleading text); the
    markup and the packet's file names mean nothing to the parties and are left out."""
    return plain_text(text, handout_mark=AGREEMENT_HANDOUT_MARK, image_mark=AGREEMENT_IMAGE_MARK)


def donor_context(season) -> dict:
    """The season's donor as the PDFs print it (primitives; webapp.domain.donor):
    ``{"name", "city", "place": "г. Минск", "details": str (lines), "representative": str}``
    (:func:`webapp.games.season.queries.season_donor`)."""
    donor = season_donor(season)
    return {**donor.to_json(), "place": place(donor.city)}


_KIND_IN_SECTOR = {"blitz": "блица", "superblitz": "суперблица"}


def question_place(game, question_id: int | None) -> str:
    """Where the question was played in ``game``, as people who watched know it: «сектор 7»,
    «вопрос 2 блица, сектор 4», «13 сектор» (2009: the live question drawn for sector 13,
    002_e025d5ded135c1c4.txt §1.4.1); "" when the game's table does not hold it."""
    if question_id is None:
        return ""
    row = db.session.execute(
        db.select(Envelope.sector, Envelope.kind, EnvelopeQuestion.slot)
        .join(EnvelopeQuestion, EnvelopeQuestion.envelope_id == Envelope.id)
        .where(EnvelopeQuestion.game_id == game.id, EnvelopeQuestion.question_id == question_id)
    ).first()
    if row is None:
        drawn = db.session.scalar(
            db.select(Sector13Draw.id).where(
                Sector13Draw.game_id == game.id,
                Sector13Draw.question_id == question_id,
                Sector13Draw.cancelled_at.is_(None),
            )
        )
        return "13 сектор" if drawn is not None else ""
    sector, kind, slot = row
    if kind in _KIND_IN_SECTOR:
        return f"вопрос {slot} {_KIND_IN_SECTOR[kind]}, сектор {sector}"
    if kind == "sector13":
        return "13 сектор" if sector == 13 else f"13 сектор (сектор {sector})"
    return f"сектор {sector}"


def agreement_date(agreement: GiftAgreement) -> date:
    """The date a gift agreement bears: the day its game was closed (the agreement's own
    creation before that), in the season's time zone, so re-rendering gives the same date."""
    game = agreement.prize.game
    made = game.closed_at or agreement.created_at
    return made.astimezone(ZoneInfo(game.season.timezone)).date()


def agreement_context(prize: Prize, payee: dict | None = None) -> dict:
    """Context of ``templates/pdf/gift_agreement.html`` (primitives only)::

        {"number": "2023-0001", "date": "2023-03-10", "version": int,
         "donor": {"name", "city", "place", "details", "representative"},  # the season's
         "author": {"name", "city", "address", "gender": "masc" | "femn" | None,
                    "document": {...} | None, "personal_number", "inn", "account"},
         "question": {"text": str, "place": "вопрос 2 блица, сектор 4"} | None,
         "award": {"label", "trophy"} | None,   # an individual prize (then question None)
         "game": {"title", "named", "date", "season"}, "amount": Decimal, "currency": "BYN" | "RUB",
         "rule": "п. 4.11.1 …"}

    ``payee``: :func:`webapp.prizes.payee.agreement_payee` (``{}`` before the details: the
    name as given on the question, the byline's city, and the lines the payee fills). The
    donor is the season's (:func:`donor_context`), never a global setting. ``author.gender``
    comes from the payee's identification number, else from the declared name
    (:func:`webapp.submissions.names.name_gender`), else None (neutral wording). The
    question is named as people know it: its place on the table (:func:`question_place`),
    the game and its air date, and its text as a legal document quotes it
    (:func:`agreement_text`). The date is the game's closing date, so re-rendering gives the
    same text.
    """
    agreement = prize.agreement
    assert agreement is not None  # only an issued prize's agreement is rendered
    payee = payee or {}
    game = prize.game
    byline = prize.byline
    award = None
    if prize.kind != "unanswered_question":
        award = {
            "label": kind_label(prize.kind),
            "trophy": trophy_label(prize.trophy),
        }
    name = payee.get("name") or prize.paper_payee
    document = payee.get("document")
    return {
        "number": agreement.number,
        "date": agreement_date(agreement).isoformat(),
        "donor": donor_context(game.season),
        "author": {
            "name": name,
            "city": (byline.city or "") if byline else "",
            "address": payee.get("address") or "",
            "gender": payee.get("gender") or name_gender(name),
            "document": dict(document) if document else None,
            "personal_number": payee.get("personal_number") or "",
            "inn": payee.get("inn") or "",
            "account": payee.get("account") or "",
        },
        "question": (
            {
                "text": agreement_text(prize.question.text),
                "place": question_place(game, prize.question_id),
            }
            if prize.question is not None
            else None
        ),
        "award": award,
        "game": {
            # names isolated as in Game.label: the agreement puts them in a sentence
            "title": isolate(game.display_title),
            "named": isolate(game.title or ""),
            "date": game.air_date.isoformat(),
            "season": isolate(game.season.name),
        },
        "amount": prize.amount,
        "currency": prize.currency,
        "rule": rule_for_print(prize.rule),
        "version": document_version(agreement.document_id),
    }


def commission_members() -> list[str]:
    """Members of the prize commission: ``SOVA_PRIZE_COMMISSION`` from the configuration (a
    list, or a string with members separated by ``;``), else the environment variable of
    the same name. Each member: «Фамилия И. О., должность»."""
    value = current_app.config.get("SOVA_PRIZE_COMMISSION")
    if value is None:
        value = os.environ.get("SOVA_PRIZE_COMMISSION", "")
    if isinstance(value, str):
        value = value.split(";")
    return [" ".join(str(m).split()) for m in value if str(m).strip()]


def minutes_of(prize_id: int) -> CommissionMinutes | None:
    """The numbered prize commission minutes of a prize, None if it has none."""
    return db.session.scalar(
        db.select(CommissionMinutes).where(CommissionMinutes.prize_id == prize_id)
    )


def minutes_context(prize: Prize, version: int | None = None) -> dict:
    """Context of ``templates/pdf/commission_minutes.html`` (primitives only)::

        {"number": "2023-К-0001", "version": 1, "date": "2023-12-30", "place": str,
         "broadcaster": {"name": str}, "prize": {"label": str, "trophy": str,
         "amount": Decimal | None, "currency": "BYN" | "RUB"}, "winner": str,
         "game": {"title": str, "named": str, "date": "2023-12-30"}, "rule": "п. 4.11.4 …",
         "members": [str]}

    ``number``: the season's gapless number taken when the minutes were first issued
    (:class:`webapp.prizes.models.CommissionMinutes`), the same on every render;
    ``version``: the document version printed in the footer (default: the latest).
    Raises ValueError when the prize has no numbered minutes, or when
    ``SOVA_PRIZE_COMMISSION`` is empty (minutes without members are not minutes).
    """
    minutes = minutes_of(prize.id)
    if minutes is None:
        raise ValueError(f"prize {prize.id} has no commission minutes")
    members = commission_members()
    if not members:
        raise ValueError("SOVA_PRIZE_COMMISSION is empty: the prize commission has no members")
    if version is None:
        version = (
            db.session.scalar(
                db.select(db.func.max(Document.version)).where(
                    Document.prize_id == prize.id, Document.kind == "commission_minutes"
                )
            )
            or 1
        )
    game = prize.game
    donor = donor_context(game.season)
    return {
        "number": minutes.number,
        "version": version,
        "date": game.air_date.isoformat(),
        "place": donor["place"],
        "broadcaster": {"name": donor["name"]},
        "prize": {
            "label": kind_label(prize.kind),
            "trophy": trophy_label(prize.trophy),
            "amount": prize.amount,
            "currency": prize.currency,
        },
        "winner": prize.paper_payee,
        "game": {
            "title": isolate(game.display_title),
            "named": isolate(game.title or ""),
            "date": game.air_date.isoformat(),
        },
        "rule": rule_for_print(prize.rule),
        "members": members,
    }


DASHBOARD_COLUMNS = ("owed", "issued", "signed", "paid")
_BUCKET = {
    "owed": "owed",
    "details_requested": "owed",
    "details_received": "owed",
    "agreement_issued": "issued",
    "signed": "signed",
    "paid": "paid",
    "closed": "paid",
}


def dashboard() -> list[dict]:
    """Per season and game: ``{"season", "game_id", "game", "owed", "issued", "signed",
    "paid"}`` counts (owed: owed/details_*; issued: agreement_issued; paid: paid/closed)
    and ``totals``: ``{currency: Decimal}`` of the amounts not yet paid."""
    rows: dict[int, dict] = {}
    for p in db.session.scalars(db.select(Prize).join(Game).order_by(Game.air_date, Prize.id)):
        row = rows.setdefault(
            p.game_id,
            {
                "season": p.game.season.name,
                "game_id": p.game_id,
                "game": p.game.label,
                **{c: 0 for c in DASHBOARD_COLUMNS},
                "unpaid": {},
            },
        )
        bucket = _BUCKET[p.status]
        row[bucket] += 1
        if bucket != "paid" and p.amount is not None:
            row["unpaid"][p.currency] = row["unpaid"].get(p.currency, 0) + p.amount
    return list(rows.values())


def overdue(days: int, now=None) -> list[Prize]:
    """Cash prizes not paid ``days`` days after they became owed (oldest first)."""
    from datetime import timedelta

    limit = (now or utcnow()) - timedelta(days=days)
    return list(
        db.session.scalars(
            db.select(Prize)
            .where(
                Prize.status.not_in(("paid", "closed")),
                Prize.amount.is_not(None),
                Prize.created_at < limit,
            )
            .order_by(Prize.created_at, Prize.id)
        ).all()
    )


#: What each prize document is, as its downloaded file is named.
PRIZE_DOCUMENT_NAMES = {
    "gift_agreement": "Договор дарения",
    "commission_minutes": "Протокол комиссии",
    "signed_scan": "Подписанный договор",
}


def document_file_name(doc: Document, ext: str = "pdf") -> str:
    """The downloaded name of any document: a prize's «Договор дарения 2023-0001 — приз 7 —
    игра 12 — 2026-12-05.pdf» (the agreement's or minutes' number when it has one; a later
    version «Договор дарения 2023-0001 (версия 2) — …»), a
    game's (:func:`webapp.games.queries.game_document_file_name`), the payment register
    «Реестр выплат — 2026-11-01 — 2026-11-30.pdf»; else «Документ 5.pdf»."""
    if doc.kind == "payment_register":
        _kind, start, end, version = (doc.key.split(":") + ["", "", ""])[:4]
        again = f"версия {version[1:]}" if version not in ("", "v1") else ""
        return file_name("Реестр выплат", start, end, again, ext=ext)
    what = PRIZE_DOCUMENT_NAMES.get(doc.kind)
    prize = db.session.get(Prize, doc.prize_id) if doc.prize_id else None
    if what is not None and prize is not None:
        number_of = {
            "gift_agreement": GiftAgreement,
            "signed_scan": GiftAgreement,
            "commission_minutes": CommissionMinutes,
        }[doc.kind]
        paper = db.session.scalar(db.select(number_of).filter_by(prize_id=prize.id))
        if paper is not None:
            what = f"{what} {paper.number}"
        if doc.kind != "signed_scan" and doc.version and doc.version > 1:
            what = f"{what} (версия {doc.version})"
        game = prize.game
        return file_name(
            what, f"приз {prize.id}", f"игра {game.id}", game.air_date.isoformat(), ext=ext
        )
    return game_document_file_name(doc, ext) or file_name(f"Документ {doc.id}", ext=ext)
