"""``sova keys …``: encryption keys of personal data (see ``webapp.core.crypto``)."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from webapp.core.crypto import InvalidToken, generate_key, needs_rotation, rotate
from webapp.extensions import db
from webapp.jobs import commit
from webapp.prizes.models import PayeeDetails
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
        db.session.rollback()
        click.echo(f"error: a token in {model.__tablename__}.{attr} (id {row.id}) cannot be "
                   "decrypted with any key of SOVA_ENCRYPTION_KEYS; nothing was changed",
                   err=True)
        raise SystemExit(2) from None
    commit()
    for name, n in counts.items():
        click.echo(f"{name}: {n} re-encrypted")


COMMANDS = (keys,)
