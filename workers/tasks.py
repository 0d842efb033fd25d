"""Imports every task module so that the worker registers them by name (the features' and
the outbox's own, ``webapp.tasks.sweeps``), and the process
signals (``webapp.tasks.lifecycle``: heartbeat, broker-restart check)."""

from webapp.tasks import lifecycle, sweeps  # noqa: F401
from workers import games, moderation, notify, prizes, votes  # noqa: F401
