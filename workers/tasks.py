"""Imports every task module so that the worker registers them by name."""

from workers import games, moderation, notify, outbox, prizes, votes  # noqa: F401
