"""Imports every task module so that the worker registers them by name, and the process
signals (``workers.lifecycle``: heartbeat, broker-restart check)."""

from workers import games, lifecycle, moderation, notify, outbox, prizes, votes  # noqa: F401
