"""Payee details (passport, bank, address, tax status): validation, encrypted storage,
one-time links, the accountants' audited view, and deletion after payment.

Personal data never leaves this module in clear text except through :func:`reveal`
(audited) and the payment register export (audited). Nothing here logs field values.

Formats validated (country ``BY`` or ``RU``):

* passport — BY: series of 2 Latin letters + 7 digits (``MP1234567``); RU: series of 4
  digits + number of 6 digits (``4510 123456``);
* BY personal (identification) number — 14 characters ``7 digits, letter, 3 digits,
  2 letters, check digit``; the check digit is the sum of the values (digits as such,
  letters A=10 … Z=35) weighted 7, 3, 1, … modulo 10;
* BY bank account — an IBAN ``BY..`` with its check digits (``schwifty``);
* RU bank account — 20 digits and the BIK (9 digits ``04…``); the account's control key
  (Bank of Russia rules: weights 7 1 3 over the last 3 digits of the BIK + the account,
  sum modulo 10 = 0; for a settlement centre BIK ``…000``–``…002`` the prefix is
  ``0`` + BIK digits 5–6);
* RU INN (optional) — ``python-stdnum`` (``stdnum.ru.inn``).

This module is the boundary of the payees' personal data: their validation, encryption,
one-time links, audited reading and deletion live here, so that no other module ever holds
a decrypted value.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from zoneinfo import ZoneInfo

from flask import current_app
from flask_babel import gettext as _
from itsdangerous import BadSignature, URLSafeTimedSerializer
from schwifty import IBAN
from schwifty.exceptions import SchwiftyException
from sqlalchemy import update
from stdnum.exceptions import ValidationError as StdnumError
from stdnum.ru import inn as ru_inn

from webapp.app_lang import LANGUAGES
from webapp.core.crypto import decrypt, encrypt, lookup_hash
from webapp.core.errors import OperationError
from webapp.core.models import utcnow
from webapp.domain.text import has_control_chars, normalise, quantity
from webapp.extensions import db
from webapp.games.publication import is_published
from webapp.prizes.forms import PAYEE_LABELS
from webapp.prizes.models import (
    STATUS_LABELS,
    DetailsLink,
    PayeeDetails,
    PersonalDataAccess,
    Prize,
)
from webapp.prizes.operations import PrizeError, change_status, reissue_agreement
from webapp.submissions.queries import latest_language

TAX_STATUSES = {
    "resident": "налоговый резидент страны выплаты",
    "non_resident": "не является налоговым резидентом страны выплаты",
}
_LINK_SALT = "sova-payee-details"
#: Days as a count (:func:`webapp.domain.text.quantity`).
DAYS = ("день", "дня", "дней")


class PayeeError(OperationError, ValueError):
    """Invalid payee details: ``errors`` maps a field name to a list of messages in the
    payee's page language (Russian by default; Belarusian, English)."""

    status = 422

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(
            "; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()), errors=errors
        )
        self.errors = errors


@dataclass(frozen=True)
class PayeeInput:
    """What the payee types in the form (str values; ``issued_on`` ISO date or date)."""

    full_name: str
    country: str  # "BY" | "RU"
    passport_series: str
    passport_number: str
    issued_by: str
    issued_on: str
    personal_number: str  # BY only
    inn: str  # RU, optional
    address: str
    iban: str  # BY
    account: str  # RU
    bik: str  # RU
    tax_status: str


def _clean(value: str | None) -> str:
    """NFC, bidi/zero-width format characters removed (``domain.text.normalise``), runs of
    whitespace collapsed to one space. Control characters are kept (and refused)."""
    return " ".join(normalise(value or "").split())


def by_personal_number_valid(value: str) -> bool:
    """BY identification number: format and check digit (weights 7, 3, 1; A=10 … Z=35)."""
    if not re.fullmatch(r"\d{7}[A-Z]\d{3}[A-Z]{2}\d", value):
        return False
    weights = (7, 3, 1)
    total = sum(
        (int(c) if c.isdigit() else ord(c) - 55) * weights[i % 3] for i, c in enumerate(value[:13])
    )
    return total % 10 == int(value[13])


def ru_account_valid(account: str, bik: str) -> bool:
    """RU account (20 digits) against its BIK (9 digits) by the control key."""
    if not (re.fullmatch(r"\d{20}", account) and re.fullmatch(r"\d{9}", bik)):
        return False
    prefix = ("0" + bik[4:6]) if bik[6:9] in ("000", "001", "002") else bik[6:9]
    digits = prefix + account
    weights = (7, 1, 3)
    return sum(int(d) * weights[i % 3] for i, d in enumerate(digits)) % 10 == 0


def validate(data: PayeeInput) -> dict:
    """Validated, normalised details (a JSON-able dict of str), or PayeeError listing
    every bad field. A field with a control character (``\x00``, ``\x07`` …) is refused,
    as on the viewer's question form; bidi overrides are removed."""
    errors: dict[str, list[str]] = {}
    out = {k: _clean(v) if isinstance(v, str) else v for k, v in asdict(data).items()}

    def bad(field: str, message: str) -> None:
        errors.setdefault(field, []).append(message)

    for field, value in out.items():
        if isinstance(value, str) and has_control_chars(value):
            bad(
                field,
                _(
                    "Поле «%(field)s» содержит недопустимые управляющие символы.",
                    field=PAYEE_LABELS[field],
                ),
            )
    for field, empty, too_long in (
        (
            "full_name",
            _("Укажите фамилию, имя и отчество."),
            _("Фамилия, имя, отчество: не длиннее 300 символов."),
        ),
        (
            "address",
            _("Укажите адрес регистрации."),
            _("Адрес регистрации: не длиннее 300 символов."),
        ),
        (
            "issued_by",
            _("Укажите, кем выдан паспорт."),
            _("Кем выдан паспорт: не длиннее 300 символов."),
        ),
    ):
        if not out[field]:
            bad(field, empty)
        elif len(out[field]) > 300:
            bad(field, too_long)
    country = out["country"]
    if country not in ("BY", "RU"):
        bad("country", _("Выберите страну: Беларусь или Россия."))
    series = out["passport_series"].replace(" ", "").upper()
    number = out["passport_number"].replace(" ", "")
    try:
        issued = (
            out["issued_on"]
            if isinstance(out["issued_on"], date)
            else date.fromisoformat(out["issued_on"])
        )
        if issued > date.today() or issued.year < 1950:
            bad("issued_on", _("Неверная дата выдачи паспорта."))
        out["issued_on"] = issued.isoformat()
    except (TypeError, ValueError):
        bad("issued_on", _("Дата выдачи паспорта: ГГГГ-ММ-ДД."))
    if out["tax_status"] not in TAX_STATUSES:
        bad("tax_status", _("Выберите налоговый статус."))
    if country == "BY":
        if not re.fullmatch(r"[A-Z]{2}", series):
            bad("passport_series", _("Серия паспорта РБ: две латинские буквы (например, MP)."))
        if not re.fullmatch(r"\d{7}", number):
            bad("passport_number", _("Номер паспорта РБ: 7 цифр."))
        pn = out["personal_number"].replace(" ", "").upper()
        if not by_personal_number_valid(pn):
            bad(
                "personal_number",
                _(
                    "Идентификационный номер: 14 знаков (например, "
                    "3010190A001PB9) с верной контрольной цифрой."
                ),
            )
        out["personal_number"] = pn
        try:
            iban = IBAN(out["iban"])
            if iban.country_code != "BY":
                bad("iban", _("Счёт в банке Беларуси: IBAN начинается с BY."))
            out["iban"] = iban.compact
        except SchwiftyException:
            bad("iban", _("Неверный IBAN (проверьте контрольные цифры)."))
        out["account"] = out["bik"] = out["inn"] = ""
    elif country == "RU":
        if not re.fullmatch(r"\d{4}", series):
            bad("passport_series", _("Серия паспорта РФ: 4 цифры."))
        if not re.fullmatch(r"\d{6}", number):
            bad("passport_number", _("Номер паспорта РФ: 6 цифр."))
        account = out["account"].replace(" ", "")
        bik = out["bik"].replace(" ", "")
        if not re.fullmatch(r"04\d{7}", bik):
            bad("bik", _("БИК: 9 цифр, начинается с 04."))
        elif not ru_account_valid(account, bik):
            bad("account", _("Расчётный счёт: 20 цифр, контрольный ключ не сходится с БИК."))
        out["account"], out["bik"] = account, bik
        if out["inn"]:
            try:
                out["inn"] = ru_inn.validate(out["inn"])
            except StdnumError:
                bad("inn", _("Неверный ИНН."))
        out["personal_number"] = out["iban"] = ""
    out["passport_series"], out["passport_number"] = series, number
    if errors:
        raise PayeeError(errors)
    return out


# --------------------------------------------------------------------------- links


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_LINK_SALT)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def link_hours() -> int:
    """Validity of a details link: ``SOVA_DETAILS_LINK_HOURS`` (default 168 h = 7 days)."""
    return int(current_app.config.get("SOVA_DETAILS_LINK_HOURS", 168))


def payee_language(prize: Prize) -> str:
    """The language to write to the payee in (``ru``/``be``/``en``), as the earlier e-mails
    chose it: the prize's question's stored language, else that of the author's latest
    question that has one (``submissions.queries.latest_language``, as ``notify.my_link``);
    Russian by default (an older row's unknown code too)."""
    language = prize.question.language if prize.question is not None else None
    if not language and prize.author_id is not None:
        language = latest_language(prize.author_id)
    return language if language in LANGUAGES else "ru"


def new_link(prize: Prize) -> str:
    """A fresh one-time link token for ``prize`` (≥128 random bits, signed with
    itsdangerous); only its SHA-256 is stored. Earlier unused links of the prize expire
    now. Returns the token (to be mailed or shown once)."""
    now = utcnow()
    db.session.execute(
        update(DetailsLink)
        .where(
            DetailsLink.prize_id == prize.id,
            DetailsLink.used_at.is_(None),
            DetailsLink.expires_at > now,
        )
        .values(expires_at=now)
    )
    token = _serializer().dumps({"p": prize.id, "n": secrets.token_urlsafe(24)})
    db.session.add(
        DetailsLink(
            prize_id=prize.id,
            token_hash=_token_hash(token),
            expires_at=now + timedelta(hours=link_hours()),
            created_at=now,
        )
    )
    db.session.flush()
    return token


def request_details(prize: Prize, user_id: int | None) -> str:
    """Ask the payee for details: status ``details_requested`` (recorded) and a new link
    token (returned). Raises PrizeError if the prize has no cash or is paid already, or
    its game is not published yet (the e-mail would tell the author, before the broadcast,
    that the question was not answered: ``webapp.games.publication``)."""
    if not prize.game.air_time_given:
        raise PrizeError(
            "время эфира игры не задано: пока продюсер не задаст его на странице игры, игра "
            "не публикуется, а реквизиты запрашиваются только после эфира"
        )
    if not is_published(prize.game):
        at = prize.game.air_at.astimezone(ZoneInfo(prize.game.season.timezone))
        raise PrizeError(
            f"игра ещё не вышла в эфир (эфир {at:%d.%m.%Y %H:%M}): реквизиты запрашиваются "
            "после эфира"
        )
    if prize.amount is None:
        raise PrizeError(f"приз {prize.id} без денежной суммы: реквизиты не нужны")
    if prize.status not in ("owed", "details_requested", "agreement_issued"):
        label = STATUS_LABELS.get(prize.status, prize.status)
        raise PrizeError(f"приз {prize.id} в статусе «{label}»: реквизиты не запрашиваются")
    token = new_link(prize)
    change_status(prize, "details_requested", user_id, "запрошены реквизиты")
    return token


def open_link(token: str) -> DetailsLink | None:
    """The valid (signed, unexpired, unused) link of ``token``, else None."""
    try:
        data = _serializer().loads(token, max_age=link_hours() * 3600)
    except BadSignature:
        return None
    link = db.session.scalar(
        db.select(DetailsLink).where(DetailsLink.token_hash == _token_hash(token))
    )
    if (
        link is None
        or link.used_at is not None
        or link.expires_at <= utcnow()
        or not isinstance(data, dict)
        or data.get("p") != link.prize_id
    ):
        return None
    return link


def lookup_hashes(clean: dict) -> tuple[str, str]:
    """``(personal_number_hash, account_hash)`` of validated payee fields (the dict of
    :func:`validate`, also what ``PayeeDetails.encrypted`` holds): keyed hashes (64 hex
    chars, ``crypto.lookup_hash``) of the personal number (or passport series and number)
    with the country, and of the IBAN (or account)."""
    key = clean["personal_number"] or f"{clean['passport_series']}{clean['passport_number']}"
    return (
        lookup_hash(f"person:{clean['country']}:{key}"),
        lookup_hash(f"account:{clean['iban'] or clean['account']}"),
    )


def submit_details(token: str, data: PayeeInput) -> Prize:
    """Store the payee's details from the one-time link ``token``: validated, encrypted,
    the link used up (a conditional UPDATE: two concurrent submissions cannot both win),
    the prize ``details_received`` and its ``payee_name`` the declared full name (what every
    paper of the prize names); the agreement is re-issued with the address.
    Raises PayeeError (bad fields; the link stays usable) or PrizeError (bad or used link).
    """
    link = open_link(token)
    if link is None:
        raise PrizeError("Ссылка недействительна: она устарела или уже использована.")
    clean = validate(data)
    used = db.session.execute(
        update(DetailsLink)
        .where(DetailsLink.id == link.id, DetailsLink.used_at.is_(None))
        .values(used_at=utcnow())
    )
    if used.rowcount != 1:  # type: ignore[attr-defined]  # a CursorResult at run time
        raise PrizeError("Ссылка недействительна: она устарела или уже использована.")
    prize = db.session.get_one(Prize, link.prize_id)
    details = db.session.scalar(db.select(PayeeDetails).where(PayeeDetails.prize_id == prize.id))
    if details is None:
        details = PayeeDetails(prize_id=prize.id)
        db.session.add(details)
    details.encrypted = encrypt(json.dumps(clean, ensure_ascii=False, sort_keys=True))
    details.personal_number_hash, details.account_hash = lookup_hashes(clean)
    details.received_at = utcnow()
    # the name every paper of the prize prints, kept after the details are deleted
    prize.payee_name = clean["full_name"]
    db.session.flush()
    if prize.status in ("owed", "details_requested", "agreement_issued"):
        change_status(prize, "details_received", None, "реквизиты получены по ссылке")
    if prize.agreement is not None and prize.status == "details_received":
        reissue_agreement(prize, None)
    return prize


# --------------------------------------------------------------------------- reading


def audit(user_id: int | None, action: str, prize_id: int | None = None, detail: str = "") -> None:
    """Record one access to personal data (``action``: view | export | delete)."""
    db.session.add(
        PersonalDataAccess(
            user_id=user_id,
            prize_id=prize_id,
            action=action,
            detail=detail[:200],
            created_at=utcnow(),
        )
    )
    db.session.flush()


def _load(details: PayeeDetails) -> dict:
    return json.loads(decrypt(details.encrypted))


def reveal(prize: Prize, user_id: int) -> dict | None:
    """The prize's payee details in clear text for an accountant (audited ``view``), or
    None when none were received."""
    details = db.session.scalar(db.select(PayeeDetails).where(PayeeDetails.prize_id == prize.id))
    if details is None:
        return None
    audit(user_id, "view", prize.id)
    return _load(details)


def declared(prize: Prize) -> tuple[str, str]:
    """``(full name, address)`` as the payee declared them with their details, for the
    gift agreement (not audited: printed on the document the payee signs, rendered by the
    worker), or ``("", "")`` before."""
    details = db.session.scalar(db.select(PayeeDetails).where(PayeeDetails.prize_id == prize.id))
    if details is None:
        return "", ""
    data = _load(details)
    return data.get("full_name") or "", data.get("address") or ""


def by_personal_number_gender(value: str) -> str | None:
    """The sex a BY identification number records in its first digit (1, 3, 5: a man born
    in the 19th, 20th, 21st century; 2, 4, 6: a woman) as a grammatical gender:
    ``"masc"`` | ``"femn"``; None for any other value."""
    first = (value or "")[:1]
    return {"1": "masc", "3": "masc", "5": "masc", "2": "femn", "4": "femn", "6": "femn"}.get(first)


def agreement_payee(prize: Prize) -> dict:
    """The payee as the gift agreement names them, from the details they declared (not
    audited, as :func:`declared`: printed on the document the payee signs; rendered by the
    worker). ``{}`` before the details; else::

        {"name": str, "address": str,
         "document": {"series": str, "number": str, "issued_by": str,
                      "issued_on": "2015-02-01"},
         "personal_number": str,   # BY identification number, "" for RU
         "inn": str,               # RU INN when given, else ""
         "account": str,           # «IBAN BY13 NBRB …» (BY) / «р/с 40817… в банке с БИК 04…»
         "gender": "masc" | "femn" | None}   # from the BY identification number

    (the fields of the payee form, :class:`webapp.prizes.forms.PayeeForm`)."""
    details = db.session.scalar(db.select(PayeeDetails).where(PayeeDetails.prize_id == prize.id))
    if details is None:
        return {}
    data = _load(details)
    if data.get("iban"):
        try:
            account = f"IBAN {IBAN(data['iban']).formatted}"
        except SchwiftyException:
            account = f"IBAN {data['iban']}"
    elif data.get("account"):
        account = f"р/с {data['account']} в банке с БИК {data.get('bik') or ''}".strip()
    else:
        account = ""
    personal = data.get("personal_number") or ""
    return {
        "name": data.get("full_name") or "",
        "address": data.get("address") or "",
        "document": {
            "series": data.get("passport_series") or "",
            "number": data.get("passport_number") or "",
            "issued_by": data.get("issued_by") or "",
            "issued_on": data.get("issued_on") or "",
        },
        "personal_number": personal,
        "inn": data.get("inn") or "",
        "account": account,
        "gender": by_personal_number_gender(personal),
    }


def details_for_export(prize_ids: list[int], user_id: int | None, what: str) -> dict[int, dict]:
    """Clear-text details of several prizes for the payment register (audited ``export``
    once per prize)."""
    rows = (
        db.session.scalars(
            db.select(PayeeDetails).where(PayeeDetails.prize_id.in_(prize_ids))
        ).all()
        if prize_ids
        else []
    )
    out = {}
    for details in rows:
        audit(user_id, "export", details.prize_id, what)
        out[details.prize_id] = _load(details)
    return out


def find_by_personal_number(country: str, value: str) -> list[int]:
    """Prize ids whose payee has this personal number (BY) or passport series+number (RU),
    by the keyed hash (no decryption)."""
    value = value.replace(" ", "").upper()
    h = lookup_hash(f"person:{country}:{value}")
    return list(
        db.session.scalars(
            db.select(PayeeDetails.prize_id).where(PayeeDetails.personal_number_hash == h)
        ).all()
    )


def retention_days() -> int:
    """``SOVA_PAYEE_RETENTION_DAYS`` (default 90): days after payment the details are kept."""
    return int(current_app.config.get("SOVA_PAYEE_RETENTION_DAYS", 90))


def purge_paid_details(today: date | None = None) -> int:
    """Delete the payee details of prizes paid more than :func:`retention_days` days ago
    (the prize, its agreement and history are kept); each deletion audited. Returns how
    many were deleted."""
    limit = (today or utcnow().date()) - timedelta(days=retention_days())
    rows = db.session.scalars(
        db.select(PayeeDetails)
        .join(Prize, Prize.id == PayeeDetails.prize_id)
        .where(Prize.paid_on.is_not(None), Prize.paid_on <= limit)
    ).all()
    for details in rows:
        audit(
            None,
            "delete",
            details.prize_id,
            f"срок хранения истёк ({quantity(retention_days(), DAYS)})",
        )
        db.session.delete(details)
    db.session.flush()
    return len(rows)
