"""Which peers may speak for the client: forwarded headers believed only from the
configured reverse proxies (``docs/operations.md`` "Reverse proxy", ``docs/security.md``).

``SOVA_TRUSTED_PROXIES``: comma-separated addresses or networks
(``"127.0.0.1, 10.0.0.0/24, ::1"``) of the proxies in front of Sova; default: loopback
(``127.0.0.0/8, ::1``), nginx on the same host. ``SOVA_PROXY_COUNT``: how many proxy hops
write ``X-Forwarded-*`` (nginx alone: 1; when only ``SOVA_TRUSTED_PROXIES`` is set, 1).

A request whose direct peer (``REMOTE_ADDR``, the TCP connection's address) is one of the
trusted proxies gets the forwarded client address, scheme and host (Werkzeug's
``ProxyFix`` with ``SOVA_PROXY_COUNT`` hops); any other request is judged by its own
address, and its ``X-Forwarded-*`` and ``Forwarded`` headers are removed before the app
sees them, so neither ``/metrics`` (loopback only), the rate limits (per address) nor the
HTTPS redirect can be talked round with a forged header.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from werkzeug.middleware.proxy_fix import ProxyFix

#: The proxies trusted when ``SOVA_TRUSTED_PROXIES`` is not set: this host.
DEFAULT_TRUSTED = "127.0.0.0/8, ::1"

#: WSGI environ keys of the headers only a trusted proxy may send.
FORWARDED_KEYS = (
    "HTTP_FORWARDED",
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_FORWARDED_PREFIX",
)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(text: str | Iterable[str | Network]) -> tuple[Network, ...]:
    """``"127.0.0.1, 10.0.0.0/24"`` (or a list of such parts, or of networks) → the
    networks (an address is a network of one). Raises ValueError naming a part that is neither."""
    parts = text.split(",") if isinstance(text, str) else list(text)
    out = []
    for part in (str(p).strip() for p in parts):
        if not part:
            continue
        try:
            out.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(
                f"SOVA_TRUSTED_PROXIES: {part!r} is not an IP address or network"
            ) from None
    return tuple(out)


def is_trusted(address: str | None, networks: tuple[Network, ...]) -> bool:
    """True when ``address`` (a peer's IP, IPv4-mapped IPv6 included) is in ``networks``."""
    try:
        ip = ipaddress.ip_address((address or "").split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in net for net in networks)


class TrustedProxies:
    """WSGI middleware: ``ProxyFix(app, x_for=count, x_proto=count, x_host=count)`` for a
    request from a trusted proxy, the app itself without the forwarded headers for any
    other (see the module doc)."""

    def __init__(self, app, networks: tuple[Network, ...], count: int):
        self.app = app
        self.networks = networks
        self.fix = ProxyFix(app, x_for=count, x_proto=count, x_host=count) if count else None

    def __call__(self, environ, start_response):
        if self.fix is not None and is_trusted(environ.get("REMOTE_ADDR"), self.networks):
            return self.fix(environ, start_response)
        for key in FORWARDED_KEYS:
            environ.pop(key, None)
        return self.app(environ, start_response)
