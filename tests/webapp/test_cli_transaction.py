"""The command edge (``webapp.core.transaction.transactional``): a CLI command that writes
is one transaction, committed when it ends well; a refusal is rolled back and ends with its
message and exit code 2, nothing written."""

from __future__ import annotations

import click
import pytest
from flask.cli import with_appcontext
from sqlalchemy import func, select

from webapp.accounts.models import User
from webapp.cli import fail
from webapp.core.models import OutboxMessage
from webapp.core.transaction import transactional
from webapp.extensions import db
from webapp.tasks.outbox import enqueue


class Refused(ValueError):
    """What an operation raises to say no."""


def committed(model) -> int:
    """Rows of ``model`` another connection sees (only committed ones)."""
    with db.engine.connect() as conn:
        return conn.scalar(select(func.count()).select_from(model))


@click.command("write")
@click.option("--end", type=click.Choice(["return", "refuse", "fail", "error"]))
@with_appcontext
@transactional(Refused)
def write(end):
    """Queue a task, then end as told."""
    enqueue("moderation.reindex")
    db.session.flush()  # written in the transaction, as an operation would
    if end == "refuse":
        raise Refused("the producer said no")
    if end == "fail":
        fail("the command's own refusal")
    if end == "error":
        raise RuntimeError("a bug")
    click.echo("queued")


def test_a_command_that_ends_well_commits(app):
    result = app.test_cli_runner().invoke(write, ["--end", "return"])
    assert (result.exit_code, result.output) == (0, "queued\n")
    db.session.remove()
    assert committed(OutboxMessage) == 1


@pytest.mark.parametrize(
    ("end", "message"),
    [("refuse", "the producer said no"), ("fail", "the command's own refusal")],
)
def test_a_refusal_exits_2_with_its_message_and_writes_nothing(app, end, message):
    result = app.test_cli_runner().invoke(write, ["--end", end])
    assert result.exit_code == 2
    assert (result.stdout, result.stderr) == ("", f"Error: {message}\n")
    db.session.remove()
    assert committed(OutboxMessage) == 0


def test_an_error_is_rolled_back_and_goes_on(app):
    result = app.test_cli_runner().invoke(write, ["--end", "error"])
    assert isinstance(result.exception, RuntimeError)
    db.session.remove()
    assert committed(OutboxMessage) == 0


def test_users_create_refused_exits_2_and_writes_nothing(app):
    runner = app.test_cli_runner()
    made = runner.invoke(args=["users", "create", "--email", "a@test.local", "--role", "editor"])
    assert (made.exit_code, made.stdout) == (0, "created user a@test.local (editor)\n")
    again = runner.invoke(
        args=["users", "create", "--email", "a@test.local", "--role", "producer", "--token"]
    )
    assert (again.exit_code, again.stdout) == (2, "")
    assert again.stderr == "Error: a user with e-mail a@test.local exists already\n"
    db.session.remove()
    assert committed(User) == 1
    assert db.session.scalar(select(User.role).where(User.email == "a@test.local")) == "editor"
