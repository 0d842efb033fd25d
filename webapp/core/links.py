"""Absolute links Sova hands out (a status page's ``status_url``, the feed's ids and links,
a payee's one-time link): always built on ``SOVA_PUBLIC_URL``, never on the request's
``Host`` header, which a client chooses (a forged ``Host`` through a proxy that passes it on
would put another site's address into the feed every reader caches)."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import current_app


def public_url(endpoint: str, **values) -> str:
    """The absolute URL of ``endpoint`` with ``values`` on ``SOVA_PUBLIC_URL`` (its scheme,
    host, port and path prefix): ``public_url("archive.game", game_id=7)`` →
    ``"https://sova.example.org/archive/games/7"``. Works with or without a request."""
    base = urlsplit(current_app.config["SOVA_PUBLIC_URL"])
    adapter = current_app.url_map.bind(
        base.netloc, script_name=base.path or "/", url_scheme=base.scheme or "https"
    )
    return adapter.build(endpoint, values, force_external=True)


def public_root() -> str:
    """``SOVA_PUBLIC_URL`` without its trailing slash (``"https://sova.example.org"``)."""
    return str(current_app.config["SOVA_PUBLIC_URL"]).rstrip("/")
