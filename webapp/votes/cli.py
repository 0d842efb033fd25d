"""``sova vote simulate``: the SMS gateway simulator (see ``webapp.votes.simulate``)."""

from __future__ import annotations

import json
import sys

import click

from webapp.votes.simulate import endpoint, percentile, plan, send


@click.group("vote")
def vote():
    """The 2009 §3.1 audience vote."""


#: Printed on stderr when every accepted message was answered ``late``.
NO_OPEN_VOTE = (
    "Голосование в этой игре не открыто: все сообщения засчитаны как поздние (late). "
    "Откройте голосование и повторите."
)


def all_late(answers) -> bool:
    """True when the server answered ``late`` to every message it accepted (refused
    forged ones, ``"401"``/``"429"``, aside) and to at least one: no vote was open."""
    accepted = {k: n for k, n in answers.items() if k not in ("401", "429") and n}
    return bool(accepted) and set(accepted) == {"late"}


@vote.command("simulate")
@click.option(
    "--url",
    required=True,
    help="Sova's base URL (or the callback URL); the only address contacted.",
)
@click.option(
    "--secret",
    required=True,
    envvar="SOVA_SMS_SECRET",
    help="The gateway's shared secret (default: $SOVA_SMS_SECRET).",
)
@click.option(
    "--rate",
    type=click.FloatRange(min=0),
    default=100.0,
    show_default=True,
    help="Messages per second overall (0: as fast as answered).",
)
@click.option(
    "--total",
    type=click.IntRange(1, 10_000_000),
    required=True,
    help="Messages to send; the run stops by itself after them.",
)
@click.option("--repeats", type=click.FloatRange(0, 1), default=0.1, show_default=True)
@click.option("--invalid", type=click.FloatRange(0, 1), default=0.01, show_default=True)
@click.option("--resent", type=click.FloatRange(0, 1), default=0.01, show_default=True)
@click.option("--badsig", type=click.FloatRange(0, 1), default=0.01, show_default=True)
@click.option(
    "--candidates",
    type=click.IntRange(1, 50),
    default=6,
    show_default=True,
    help="Candidates of the open vote (texts are their numbers 1..K).",
)
@click.option("--concurrency", type=click.IntRange(1, 512), default=64, show_default=True)
@click.option("--seed", type=int, default=None, help="Random seed (repeatable plan).")
@click.option("--max-seconds", type=click.FloatRange(min=1), default=3600.0, show_default=True)
def simulate(
    url,
    secret,
    rate,
    total,
    repeats,
    invalid,
    resent,
    badsig,
    candidates,
    concurrency,
    seed,
    max_seconds,
):
    """Send TOTAL signed SMS votes to the open vote at URL at RATE/s and print, as JSON,
    the tally the server must show (``expected``) and what the senders saw (``seen``:
    ``failures`` counts the messages given up by reason — a wrong secret, no secret on the
    server, nothing listening at URL, …; each reason is also printed on stderr). Exit 2 for
    bad arguments, 1 if a message was given up or an answer was unexpected — among them
    every answer ``late``: no vote is open for the game (:data:`NO_OPEN_VOTE` on stderr)."""
    try:
        endpoint(url)
        p = plan(
            total,
            secret,
            candidates=candidates,
            repeats=repeats,
            invalid=invalid,
            resent=resent,
            badsig=badsig,
            seed=seed,
        )
    except ValueError as exc:
        click.echo(f"Ошибка: {exc}", err=True)
        sys.exit(2)
    click.echo(json.dumps({"expected": p.expected()}, ensure_ascii=False))
    report = send(url, p.messages, rate=rate, concurrency=concurrency, max_seconds=max_seconds)
    seen = {
        "answers": dict(report.answers),
        "retries": report.retries,
        "failed": report.failed,
        "failures": dict(report.failures),
        "seconds": round(report.seconds, 2),
        "p99_ms": round(percentile(report.latencies_ms, 99) or 0, 2),
    }
    click.echo(json.dumps({"seen": seen}, ensure_ascii=False))
    for reason, count in report.failures.most_common():
        click.echo(f"Не доставлено {count}: {reason}", err=True)
    refused = report.answers.get("401", 0) + report.answers.get("429", 0)
    ok = report.failed == 0 and refused == p.badsig
    if all_late(report.answers):
        click.echo(NO_OPEN_VOTE, err=True)
        ok = False
    sys.exit(0 if ok else 1)
