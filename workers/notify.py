"""E-mails to authors. Without ``SOVA_SMTP_URL`` the message is written to the log."""

from __future__ import annotations

import logging
import smtplib
from email.message import EmailMessage
from urllib.parse import unquote, urlsplit

from celery import shared_task
from flask import current_app, render_template, url_for
from flask_babel import force_locale, gettext

from webapp.core.crypto import decrypt
from webapp.extensions import db
from webapp.submissions.models import Question

log = logging.getLogger("sova.notify")


def send_mail(to: str, subject: str, body: str) -> None:
    """Send one plain-text e-mail via ``SOVA_SMTP_URL`` (smtp://user:pass@host:port)."""
    msg = EmailMessage()
    msg["From"] = current_app.config.get("SOVA_MAIL_FROM", "sova@localhost")
    msg["To"], msg["Subject"] = to, subject
    msg.set_content(body)
    url = current_app.config.get("SOVA_SMTP_URL")
    if not url:
        log.info("e-mail (no SMTP configured) to=%s subject=%s\n%s", to, subject, body)
        return
    parts = urlsplit(url)
    with smtplib.SMTP(parts.hostname, parts.port or 25, timeout=30) as smtp:
        if parts.username:
            smtp.login(unquote(parts.username), unquote(parts.password or ""))
        smtp.send_message(msg)


@shared_task(name="notify.received", ignore_result=True, acks_late=True,
             autoretry_for=(smtplib.SMTPException, OSError), retry_backoff=30, max_retries=8)
def received(question_id: int) -> bool:
    """Tell the first author the question arrived, with the status link."""
    q = db.session.get(Question, question_id)
    if q is None or not q.authors or not q.authors[0].author.email_encrypted:
        return False
    to = decrypt(q.authors[0].author.email_encrypted)
    base = current_app.config.get("SOVA_PUBLIC_URL")
    with current_app.test_request_context(base_url=base), force_locale(q.language or "ru"):
        link = url_for("submissions.status", token=q.public_token, _external=True)
        subject = gettext("Ваш вопрос получен — «Что? Где? Когда?»")
        body = render_template("emails/received.txt", link=link)
    send_mail(to, subject, body)
    return True


@shared_task(name="notify.my_link", ignore_result=True, acks_late=True,
             autoretry_for=(smtplib.SMTPException, OSError), retry_backoff=30, max_retries=8)
def my_link(author_id: int) -> bool:
    """E-mail an author the one-time "my questions" link (valid 24 h)."""
    from webapp.submissions.models import Author, QuestionAuthor
    from webapp.submissions.views import my_link_token

    author = db.session.get(Author, author_id)
    if author is None or not author.email_encrypted:
        return False
    base = current_app.config.get("SOVA_PUBLIC_URL")
    latest = db.session.scalar(
        db.select(Question.language).join(Question.authors)
        .where(QuestionAuthor.author_id == author.id).order_by(Question.id.desc()))
    with current_app.test_request_context(base_url=base), force_locale(latest or "ru"):
        link = url_for("submissions.my_open", token=my_link_token(author), _external=True)
        subject = gettext("Ваши вопросы — «Что? Где? Когда?»")
        body = render_template("emails/my_link.txt", link=link)
    send_mail(decrypt(author.email_encrypted), subject, body)
    return True
