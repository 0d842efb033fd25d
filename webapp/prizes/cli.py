"""``sova keys …``: encryption keys of personal data (see ``webapp.core.crypto``)."""

from __future__ import annotations

import json

import click
from flask.cli import with_appcontext
from sqlalchemy.exc import IntegrityError

from webapp.core.crypto import (
    InvalidToken,
    decrypt,
    generate_key,
    lookup_hash,
    needs_rotation,
    rotate,
)
from webapp.core.transaction import transactional
from webapp.extensions import db
from webapp.prizes.models import PayeeDetails
from webapp.prizes.payee import lookup_hashes
from webapp.submissions.models import Author

#: Every encrypted column: (model, attribute). A new encrypted column belongs here.
ENCRYPTED_COLUMNS = ((Author, "email_encrypted"), (PayeeDetails, "encrypted"))


@click.group("keys")
def keys():
    """Encryption keys of personal data (SOVA_ENCRYPTION_KEYS, newest first)."""


@keys.command("generate")
def generate():
    """Print a new Fernet key: put it FIRST in SOVA_ENCRYPTION_KEYS, then `sova keys rotate`."""
    click.echo(generate_key())


@keys.command("rotate")
@with_appcontext
@transactional()
def rotate_cmd():
    """Re-encrypt every stored token under the first key of SOVA_ENCRYPTION_KEYS.

    All or nothing: a token no configured key can read stops the command (exit 2) and
    nothing is written. Prints how many tokens were re-encrypted per column; afterwards
    the old keys may be removed from the environment.
    """
    counts = {}
    try:
        for model, attr in ENCRYPTED_COLUMNS:
            column = getattr(model, attr)
            n = 0
            for row in db.session.scalars(db.select(model).where(column.is_not(None))):
                token = getattr(row, attr)
                if needs_rotation(token):
                    setattr(row, attr, rotate(token))
                    n += 1
            counts[f"{model.__tablename__}.{attr}"] = n
        db.session.flush()
    except InvalidToken:
        click.echo(
            f"error: a token in {model.__tablename__}.{attr} (id {row.id}) cannot be "
            "decrypted with any key of SOVA_ENCRYPTION_KEYS; nothing was changed",
            err=True,
        )
        raise SystemExit(2) from None
    for name, n in counts.items():
        click.echo(f"{name}: {n} re-encrypted")


@keys.command("rehash")
@with_appcontext
@transactional()
def rehash_cmd():
    """Recompute the keyed look-up hashes under the current SOVA_SECRET_KEY.

    Run it after changing SOVA_SECRET_KEY: the hashes that find an author by e-mail
    (``author.email_hash``) and payee details by personal number or account are keyed from
    that secret, so until then a returning viewer would become a second author. Each hash
    is recomputed from the encrypted value itself (decrypted with SOVA_ENCRYPTION_KEYS).
    All or nothing: a token no key can read, or two rows that turn out to share a hash,
    stop the command (exit 2) and nothing is written. ``mail_log.recipient_hash`` cannot
    be recomputed (the address is never stored) and keeps the old key's hashes.
    """
    counts = {"author.email_hash": 0, "payee_details.personal_number_hash/account_hash": 0}
    row = None
    try:
        for row in db.session.scalars(db.select(Author).where(Author.email_encrypted.is_not(None))):
            new = lookup_hash(decrypt(row.email_encrypted))
            if row.email_hash != new:
                row.email_hash = new
                counts["author.email_hash"] += 1
        for row in db.session.scalars(db.select(PayeeDetails)):
            new = lookup_hashes(json.loads(decrypt(row.encrypted)))
            if (row.personal_number_hash, row.account_hash) != new:
                row.personal_number_hash, row.account_hash = new
                counts["payee_details.personal_number_hash/account_hash"] += 1
        db.session.flush()
    except (InvalidToken, IntegrityError) as exc:
        db.session.rollback()  # before reading ``row`` below: the flush failed
        what = (
            "cannot be decrypted with any key of SOVA_ENCRYPTION_KEYS"
            if isinstance(exc, InvalidToken)
            else "gives a hash another row already has"
        )
        where = (
            f" ({type(row).__tablename__} id {row.id})"
            if isinstance(exc, InvalidToken) and row is not None
            else ""
        )
        click.echo(f"error: a stored value{where} {what}; nothing was changed", err=True)
        raise SystemExit(2) from None
    for name, n in counts.items():
        click.echo(f"{name}: {n} rehashed")
