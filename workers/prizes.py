"""Prize tasks: gift agreements, prize commission minutes, the payment register PDF (rendered
here, never in web)."""

import smtplib

from flask import current_app, url_for
from flask_babel import force_locale, gettext

from webapp.core.crypto import decrypt
from webapp.core.mail import already_sent
from webapp.domain.text import quantity
from webapp.extensions import db
from webapp.prizes import tasks
from webapp.prizes.models import Prize
from webapp.prizes.operations import change_status
from webapp.prizes.payee import link_hours, new_link, payee_language, purge_paid_details
from webapp.prizes.queries import agreement_context, minutes_context
from webapp.tasks.outbox import commit
from webapp.tasks.registry import task
from workers.notify import outbox_key, send_mail
from workers.rendering import render_document

#: Days as the e-mail's language counts them (:func:`webapp.domain.text.quantity`).
DAYS = {"ru": ("день", "дня", "дней"), "be": ("дзень", "дні", "дзён"), "en": ("day", "days")}


@task(
    tasks.ISSUE_AGREEMENT,
    acks_late=True,
    soft_time_limit=120,
    time_limit=180,
)
def issue_agreement(prize_id: int) -> int | None:
    """Render the current version of the gift agreement of Prize ``prize_id`` (number fixed
    at close; idempotent: a ready file is not rendered again). Marks the agreement
    ``issued`` and the prize ``agreement_issued`` (recorded, by the system) unless it is
    already further on. Returns the document id."""
    prize = db.session.get(Prize, prize_id)
    if prize is None or prize.agreement is None:
        return None
    agreement = prize.agreement
    payee = _payee(prize)
    render_document(
        agreement.document_id,
        lambda _doc: ("gift_agreement.html", agreement_context(prize, payee), None),
    )
    if agreement.status == "pending":
        agreement.status = "issued"
    if prize.status in ("owed", "details_requested", "details_received"):
        change_status(prize, "agreement_issued", None, f"договор {agreement.number} выписан")
    return agreement.document_id


def _payee(prize: Prize) -> dict:
    """The payee as they declared their details (``{}`` before):
    :func:`webapp.prizes.payee.agreement_payee`."""
    from webapp.prizes.payee import agreement_payee

    return agreement_payee(prize)


@task(
    tasks.RENDER_MINUTES,
    acks_late=True,
    soft_time_limit=120,
    time_limit=180,
)
def render_minutes(prize_id: int) -> int | None:
    """Render the latest version of the prize commission minutes of a Crystal Owl prize
    (2023 §4.11.2–§4.11.5) with the number taken when they were first issued (idempotent: a
    ready file is not rendered again). Returns the document id, None if the prize has none."""
    from webapp.core.models import Document

    doc = db.session.scalar(
        db.select(Document)
        .where(Document.prize_id == prize_id, Document.kind == "commission_minutes")
        .order_by(Document.version.desc())
    )
    prize = db.session.get(Prize, prize_id)
    if doc is None or prize is None:
        return None
    render_document(
        doc.id, lambda d: ("commission_minutes.html", minutes_context(prize, d.version), None)
    )
    return doc.id


@task(
    tasks.RENDER_REGISTER,
    acks_late=True,
    soft_time_limit=300,
    time_limit=360,
)
def render_register(document_id: int) -> int | None:
    """Render the payment register PDF ``Document`` ``document_id`` (kind
    ``payment_register``; period from its key) with ``payment_register.html``: the rows and
    totals per currency at the time of rendering (idempotent: a ready file is not rendered
    again). Returns the document id, None if there is no such register document."""
    from webapp.core.models import Document
    from webapp.prizes.register import REGISTER_PDF, register_pdf_context

    doc = db.session.get(Document, document_id)
    if doc is None or doc.kind != REGISTER_PDF:
        return None
    render_document(doc.id, lambda d: ("payment_register.html", register_pdf_context(d), None))
    return doc.id


@task(
    tasks.SEND_DETAILS_LINK,
    acks_late=True,
    autoretry_for=(smtplib.SMTPException, OSError),
    retry_backoff=30,
    max_retries=8,
)
def send_details_link(prize_id: int) -> bool:
    """E-mail the payee (an author with an e-mail) a fresh one-time link to the details
    form, in the payee's language (:func:`webapp.prizes.payee.payee_language`; the link's
    ``?lang=`` opens the form in it). The token exists only in this e-mail (its hash is stored); an earlier unused link
    expires. Does nothing once the details are received (idempotent). Ledger key
    ``details_link:<prize id>:outbox:<outbox id>``: a re-run of the same request sends
    nothing more (checked before a new link is made)."""
    key = outbox_key(f"details_link:{prize_id}")
    if key and already_sent(key):
        return False
    prize = db.session.get(Prize, prize_id)
    if (
        prize is None
        or prize.status != "details_requested"
        or prize.author is None
        or not prize.author.email_encrypted
    ):
        return False
    token = new_link(prize)
    # Kept on purpose: the link must be in the database before the e-mail that carries
    # its token leaves (a link e-mailed and then rolled back would not open). A retry
    # after a failed send makes a fresh link and expires this one.
    commit()
    base = current_app.config.get("SOVA_PUBLIC_URL")
    language = payee_language(prize)
    with current_app.test_request_context(base_url=base), force_locale(language):
        link = url_for("prizes.details_form", token=token, lang=language, _external=True)
        subject = gettext("Реквизиты для выплаты приза — «Что? Где? Когда?»")
        body = gettext(
            "Здравствуйте!\n\nВам причитается денежный приз телевизионной игры "
            "«Что? Где? Когда?». Чтобы мы подготовили договор дарения и перевели приз, "
            "заполните форму: %(link)s\nСсылка действует %(days)s и один раз."
            "\n\nРедакция",
            link=link,
            days=quantity(link_hours() // 24, DAYS.get(language, DAYS["ru"])),
        )
    return send_mail(decrypt(prize.author.email_encrypted), subject, body, key=key)


@task(tasks.REMIND_DETAILS)
def remind_details() -> int:
    """Beat: every prize waiting for details longer than ``SOVA_DETAILS_REMIND_DAYS``
    (default 3) since its last link gets a new link by e-mail (``prizes.send_details_link``
    queued by id). Returns how many were queued."""
    from datetime import timedelta

    from webapp.core.models import utcnow
    from webapp.prizes.models import DetailsLink
    from webapp.tasks.outbox import enqueue

    days = int(current_app.config.get("SOVA_DETAILS_REMIND_DAYS", 3))
    limit = utcnow() - timedelta(days=days)
    queued = 0
    for prize in db.session.scalars(db.select(Prize).where(Prize.status == "details_requested")):
        last = db.session.scalar(
            db.select(db.func.max(DetailsLink.created_at)).where(DetailsLink.prize_id == prize.id)
        )
        if last is None or last < limit:
            enqueue(tasks.SEND_DETAILS_LINK, prize.id)
            queued += 1
    return queued


@task(tasks.PURGE_PAYEE_DETAILS)
def purge_payee_details() -> int:
    """Beat: delete payee details ``SOVA_PAYEE_RETENTION_DAYS`` days after payment (the
    agreement is kept). Returns how many were deleted."""
    return purge_paid_details()
