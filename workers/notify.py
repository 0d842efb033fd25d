"""E-mails to authors, each sent at most once per logical e-mail (the sent-mail ledger).

Without ``SOVA_SMTP_URL`` the message is written to the log (and recorded as sent).

The send protocol (:func:`send_mail` with a ``key``; ledger in :mod:`webapp.core.mail`):
claim the key in its own committed transaction (status ``sending``, a Message-ID made once
and reused by every later attempt) → SMTP up to the last body line → commit
``end_of_data_at`` for this attempt (compare-and-set: an attempt whose claim was taken over
stops here and drops the connection, so the server discards the message, RFC 5321 §3.3/§3.8)
→ write the end-of-data indicator → on ``250`` commit ``sent`` at once, before ``QUIT``.
A re-run finds ``sent`` and does nothing; finds ``sending`` without ``end_of_data_at`` (the
previous attempt died before the server could accept anything) and sends; finds
``sending`` *with* ``end_of_data_at`` (died between the indicator and the commit of ``sent``:
the RFC 1047 window) and sends nothing, leaving the row to ``sova mail stuck``. So a message
is never delivered twice by a re-run, and is lost only if the worker dies inside that
window *and* the server had not accepted it — then an operator sees it and resends.
"""

from __future__ import annotations

import logging
import re
import smtplib
import time
from email.message import EmailMessage
from email.utils import formatdate
from urllib.parse import unquote, urlsplit

from celery import current_task
from flask import current_app, render_template, url_for
from flask_babel import force_locale, gettext

from webapp.app_lang import LANGUAGES
from webapp.core import mail as ledger
from webapp.core.crypto import decrypt
from webapp.extensions import db
from webapp.submissions import tasks
from webapp.submissions.models import Question
from webapp.tasks.registry import task

log = logging.getLogger("sova.notify")

SMTP_TIMEOUT = 30  # seconds per SMTP operation
_OUTBOX_TASK_ID = re.compile(r"^outbox-(\d+)-\d+$")


class Fenced(Exception):
    """This attempt lost its claim before the end of data (another attempt took over)."""


class _Transport(smtplib.SMTP):
    """:class:`smtplib.SMTP` whose DATA phase pauses after the message body: the
    end-of-data indicator is written only if ``before_end_of_data()`` returns True (else
    :class:`Fenced` is raised and the caller drops the connection). Records
    ``end_of_data_sent`` (the indicator may have reached the server) and ``final_reply``
    (``(code, text)`` of the server's answer to it)."""

    def __init__(self, *args, before_end_of_data=None, **kwargs):
        self.before_end_of_data = before_end_of_data
        self.end_of_data_sent = False
        self.final_reply: tuple[int, bytes] | None = None
        super().__init__(*args, **kwargs)

    def data(self, msg):
        """SMTP DATA as in :meth:`smtplib.SMTP.data` (``msg``: bytes with CRLF line ends,
        as :meth:`sendmail` passes it), with the pause described in the class doc."""
        self.putcmd("data")
        code, repl = self.getreply()
        if code != 354:
            raise smtplib.SMTPDataError(code, repl)
        body = re.sub(rb"(?m)^\.", b"..", msg)  # dot-stuffing, RFC 5321 §4.5.2
        if not body.endswith(b"\r\n"):
            body += b"\r\n"
        self.send(body)
        if self.before_end_of_data is not None and not self.before_end_of_data():
            raise Fenced
        self.end_of_data_sent = True
        self.send(b".\r\n")
        self.final_reply = self.getreply()
        return self.final_reply


def build_message(to: str, subject: str, body: str, message_id: str | None) -> EmailMessage:
    """The plain-text e-mail to ``to`` from ``SOVA_MAIL_FROM``, dated now, with
    ``message_id`` when given (the id the sent-mail ledger claimed for it)."""
    msg = EmailMessage()
    msg["From"] = current_app.config.get("SOVA_MAIL_FROM", "sova@localhost")
    msg["To"], msg["Subject"] = to, subject
    msg["Date"] = formatdate(localtime=False)
    if message_id:
        msg["Message-ID"] = message_id
    msg.set_content(body)
    return msg


def smtp_connect(url: str, **kwargs) -> _Transport:
    """A connection to the SMTP server of ``url`` (``smtp://user:password@host:port``),
    logged in when the URL names a user; ``kwargs`` go to the transport."""
    parts = urlsplit(url)
    smtp = _Transport(parts.hostname, parts.port or 25, timeout=SMTP_TIMEOUT, **kwargs)
    if parts.username:
        try:
            smtp.login(unquote(parts.username), unquote(parts.password or ""))
        except BaseException:
            smtp.close()
            raise
    return smtp


def _quit(smtp: smtplib.SMTP) -> None:
    try:
        smtp.quit()
    except (smtplib.SMTPException, OSError):
        smtp.close()


def outbox_key(prefix: str) -> str | None:
    """``"<prefix>:outbox:<outbox message id>"`` when the running task was sent by the
    outbox relay (task id ``outbox-<id>-<attempt>``, stable across redeliveries and sweeper
    resends), else None (called directly, e.g. in unit tests)."""
    task_id = getattr(getattr(current_task, "request", None), "id", None) or ""
    match = _OUTBOX_TASK_ID.match(task_id)
    return f"{prefix}{ledger.OUTBOX_KEY_PART}{match.group(1)}" if match else None


def _current_task() -> tuple[str | None, list | None]:
    request = getattr(current_task, "request", None)
    if current_task is None or request is None or request.id is None:
        return None, None
    return current_task.name, list(request.args or [])


def _claim(key: str, to: str, task: str | None, args: list | None) -> ledger.Claim | None:
    """:func:`webapp.core.mail.claim`, waiting while another attempt's lease is live
    (bounded: a dead attempt's lease expires; raises MailBusy after 3 leases)."""
    lease = float(current_app.config.get("SOVA_MAIL_LEASE_SECONDS", ledger.DEFAULT_LEASE_SECONDS))
    deadline = time.monotonic() + 3 * lease + 5
    while True:
        try:
            return ledger.claim(key, to, task, args)
        except ledger.MailBusy as busy:
            if time.monotonic() + busy.retry_in > deadline:
                raise
            log.info("mail %s: another attempt holds it; waiting %.1f s", key, busy.retry_in)
            time.sleep(busy.retry_in + 0.1)


def send_mail(
    to: str,
    subject: str,
    body: str,
    *,
    key: str | None = None,
    task: str | None = None,
    args: list | None = None,
) -> bool:
    """Send one plain-text e-mail via ``SOVA_SMTP_URL`` (``smtp://user:pass@host:port``).

    ``key`` (≤ 120 chars, e.g. ``"received:42"``) names the logical e-mail in the sent-mail
    ledger; the protocol in the module doc then guarantees no second delivery by a re-run
    of the task. Commits the current session (call it after the task's own writes are
    committed). ``task``/``args`` (default: the running Celery task) are recorded for
    ``sova mail resend``. Returns True if the message was handed over now, False if the
    ledger says it is sent already or in doubt (nothing sent). Without ``key`` the e-mail is
    sent at least once (a re-run sends it again) — only for callers not yet converted.

    Raises smtplib.SMTPException / OSError when the server refuses or cannot be reached
    before the end of data (the claim is released, so the task's retry sends at once).
    """
    if key is None:
        return _send_unrecorded(to, subject, body)
    if task is None:
        task, args = _current_task()
    claimed = _claim(key, to, task, args)
    if claimed is None:
        log.info("mail %s: already sent (or in doubt, see `sova mail stuck`); not sent", key)
        return False
    msg = build_message(to, subject, body, claimed.message_id)
    url = current_app.config.get("SOVA_SMTP_URL")
    if not url:
        log.info(
            "e-mail (no SMTP configured) message-id=%s to=%s subject=%s\n%s",
            claimed.message_id,
            to,
            subject,
            body,
        )
        ledger.mark_sent(claimed, "written to the log (no SMTP configured)")
        return True
    smtp = None
    try:
        smtp = smtp_connect(url, before_end_of_data=lambda: ledger.mark_end_of_data(claimed))
        smtp.send_message(msg)
    except Fenced:
        assert smtp is not None  # fenced at the end of data, after the connection
        smtp.close()  # no end of data: the server drops the transaction
        log.warning(
            "mail %s: attempt %d was taken over before the end of data; dropped",
            key,
            claimed.attempt,
        )
        return False
    except BaseException as exc:
        if smtp is not None:
            smtp.close()
        if smtp is not None and smtp.end_of_data_sent and smtp.final_reply is None:
            log.error(
                "mail %s (Message-ID %s): connection lost after the end of data (%r); "
                "delivery in doubt, not re-sent automatically: `sova mail stuck`",
                key,
                claimed.message_id,
                exc,
            )
            if isinstance(exc, Exception):
                return False
            raise
        rejected = smtp is not None and smtp.final_reply is not None  # 4xx/5xx to the end of data
        try:
            ledger.release(claimed, not_delivered=rejected)
        except Exception:  # the lease expires by itself
            db.session.rollback()
            log.warning("mail %s: could not release the claim", key, exc_info=True)
        raise
    assert smtp.final_reply is not None  # send_message returned: the server answered
    code, reply = smtp.final_reply
    ledger.mark_sent(claimed, f"{code} {reply.decode(errors='replace')}")
    _quit(smtp)
    return True


def _send_unrecorded(to: str, subject: str, body: str) -> bool:
    msg = build_message(to, subject, body, None)
    url = current_app.config.get("SOVA_SMTP_URL")
    if not url:
        log.info("e-mail (no SMTP configured) to=%s subject=%s\n%s", to, subject, body)
        return True
    smtp = smtp_connect(url)
    try:
        smtp.send_message(msg)
    finally:
        _quit(smtp)
    return True


def _locale(language: str | None) -> str:
    """A stored language code usable for the e-mail: ru/be/en, anything else → "ru"
    (older rows may hold an unchecked code)."""
    return language if language in LANGUAGES else "ru"


@task(
    tasks.RECEIVED,
    acks_late=True,
    autoretry_for=(smtplib.SMTPException, OSError),
    retry_backoff=30,
    max_retries=8,
)
def received(question_id: int) -> bool:
    """Tell the first author the question arrived, with the link that confirms the
    address and opens the status page (``/confirm/<token>``: only the address's owner
    gets it, so only they can put the question in their «Мои вопросы»). A co-author the
    sender typed in with an address of their own (the API) gets their own link: opening
    it is their consent to be credited with their name and city
    (:attr:`webapp.submissions.models.QuestionAuthor.typed_in`). Ledger keys
    ``received:<question id>`` and ``received:<question id>:<author id>``: each once per
    question, however often the task runs. True when anything was sent now."""
    from webapp.submissions.models import TYPED_IN_CHANNELS

    q = db.session.get(Question, question_id)
    if q is None or not q.authors:
        return False
    sent = False
    first = q.authors[0]
    if first.author.email_encrypted:
        sent |= _confirm_mail(
            q,
            first,
            f"received:{question_id}",
            lambda: gettext("Ваш вопрос получен — «Что? Где? Когда?»"),
            "emails/received.txt",
        )
    if q.channel in TYPED_IN_CHANNELS:
        for qa in q.authors[1:]:
            if qa.author.email_encrypted:
                sent |= _confirm_mail(
                    q,
                    qa,
                    f"received:{question_id}:{qa.author_id}",
                    lambda: gettext("Вас назвали соавтором вопроса — «Что? Где? Когда?»"),
                    "emails/coauthor.txt",
                    sender=first.name,
                )
    return sent


def _confirm_mail(q, qa, key: str, subject, template: str, sender: str = "") -> bool:
    """E-mail ``qa``'s author the link that confirms ``q`` is theirs (``/confirm/…``, in
    the question's language), once per ``key``; ``subject``: a callable that says it in
    the e-mail's language."""
    from webapp.submissions.links import confirm_token

    if ledger.already_sent(key):
        log.info("mail %s: already sent (or in doubt, see `sova mail stuck`); not sent", key)
        return False
    to = decrypt(qa.author.email_encrypted)
    base = current_app.config.get("SOVA_PUBLIC_URL")
    language = _locale(q.language)
    with current_app.test_request_context(base_url=base), force_locale(language):
        # the link carries the e-mail's language: the page opens in it whatever the
        # browser's Accept-Language says (a ru-BY browser would get Russian)
        link = url_for(
            "submissions.confirm",
            _external=True,
            token=confirm_token(q.id, qa.author_id),
            lang=language,
        )
        body = render_template(template, link=link, sender=sender)
        said = subject()
    return send_mail(to, said, body, key=key, task=tasks.RECEIVED, args=[q.id])


@task(
    tasks.MY_LINK,
    acks_late=True,
    autoretry_for=(smtplib.SMTPException, OSError),
    retry_backoff=30,
    max_retries=8,
)
def my_link(author_id: int, language: int | None = None) -> bool:
    """E-mail an author the one-time "my questions" link (valid 24 h), in the language of
    the page it was requested from (``language``: index into ``LANGUAGES``; without it the
    language of the author's latest question that has one; Russian by default). Ledger key
    ``my_link:<author id>:outbox:<outbox id>``: once per request (each request is its own
    outbox message); run directly (no outbox task id) it is sent unrecorded."""
    from webapp.submissions.links import my_link_token
    from webapp.submissions.models import Author
    from webapp.submissions.queries import latest_language

    author = db.session.get(Author, author_id)
    if author is None or not author.email_encrypted:
        return False
    base = current_app.config.get("SOVA_PUBLIC_URL")
    latest = latest_language(author.id)
    if language is not None and 0 <= language < len(LANGUAGES):
        latest = LANGUAGES[language]
    locale = _locale(latest)
    with current_app.test_request_context(base_url=base), force_locale(locale):
        link = url_for("viewer.my_open", token=my_link_token(author), lang=locale, _external=True)
        subject = gettext("Ваши вопросы — «Что? Где? Когда?»")
        body = render_template("emails/my_link.txt", link=link)
    return send_mail(
        decrypt(author.email_encrypted), subject, body, key=outbox_key(f"my_link:{author_id}")
    )
