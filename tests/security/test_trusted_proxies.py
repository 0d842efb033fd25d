"""Forwarded headers are believed only from the configured proxies (``webapp.core.proxies``):
with ``SOVA_PROXY_COUNT=1`` a client connecting directly with ``X-Forwarded-For: 127.0.0.1``
used to read ``/metrics``; now a direct connection is judged by its own address. In-process
(the Flask test client's ``REMOTE_ADDR``); over real sockets between two network namespaces:
tests/cluster/test_trusted_proxies_netns.py."""

from __future__ import annotations

import pytest

from webapp.config import ConfigError
from webapp.core.proxies import is_trusted, parse_networks


def _metrics(client, peer: str, forwarded: str | None = None) -> int:
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    return client.get("/metrics", headers=headers, environ_base={"REMOTE_ADDR": peer}).status_code


def watched(app):
    """``app`` with a probe recording what each request saw (before its first request)."""
    from flask import request

    seen = app.extensions.setdefault("test_seen", {})

    @app.after_request
    def _look(response):
        seen["addr"], seen["scheme"] = request.remote_addr, request.scheme
        return response

    return app


def _seen(app, peer: str, **headers) -> tuple[str, str]:
    """``(remote_addr, scheme)`` the app sees for a request from ``peer`` with ``headers``."""
    app.test_client().get("/healthz", headers=headers, environ_base={"REMOTE_ADDR": peer})
    seen = app.extensions["test_seen"]
    return seen["addr"], seen["scheme"]


def test_a_forged_forwarded_for_from_a_direct_client_is_ignored(make_app):
    app = watched(make_app(SOVA_PROXY_COUNT=1))  # nginx on this host: loopback is the proxy
    client = app.test_client()
    # straight to gunicorn from the network, claiming to be local: judged by its own address
    assert _metrics(client, "10.1.2.3", "127.0.0.1") == 403
    assert _metrics(client, "10.1.2.3", "10.9.9.9, 127.0.0.1") == 403
    assert _seen(app, "10.1.2.3", **{"X-Forwarded-For": "127.0.0.1"}) == ("10.1.2.3", "http")
    assert _seen(app, "10.1.2.3", **{"X-Forwarded-Proto": "https"}) == ("10.1.2.3", "http")
    # through the proxy: the visitor's address counts, never "local"
    assert _metrics(client, "127.0.0.1", "10.1.2.3") == 403
    assert _seen(app, "127.0.0.1", **{"X-Forwarded-For": "10.1.2.3"}) == ("10.1.2.3", "http")
    assert _seen(app, "127.0.0.1", **{"X-Forwarded-Proto": "https"})[1] == "https"
    # a scraper on this host, with or without the proxy
    assert _metrics(client, "127.0.0.1") == 200
    assert _metrics(client, "127.0.0.1", "127.0.0.1") == 200


def test_the_trusted_proxies_are_configured_by_address_or_network(make_app):
    app = watched(make_app(SOVA_TRUSTED_PROXIES="10.0.0.0/29, 2001:db8::5"))  # one hop by default
    assert app.config["SOVA_PROXY_COUNT"] == 1
    client = app.test_client()
    assert _seen(app, "10.0.0.5", **{"X-Forwarded-For": "198.51.100.7"})[0] == "198.51.100.7"
    assert _seen(app, "2001:db8::5", **{"X-Forwarded-For": "198.51.100.7"})[0] == "198.51.100.7"
    assert _seen(app, "10.0.0.9", **{"X-Forwarded-For": "198.51.100.7"})[0] == "10.0.0.9"
    # loopback is no longer a proxy: a local request is judged by its own address
    assert _seen(app, "127.0.0.1", **{"X-Forwarded-For": "198.51.100.7"})[0] == "127.0.0.1"
    assert _metrics(client, "10.0.0.9", "127.0.0.1") == 403
    assert _metrics(client, "10.0.0.5", "127.0.0.1") == 200  # the proxy vouches for it
    # two hops (a CDN, then the trusted nginx): the address the outer proxy saw
    two = watched(make_app(SOVA_TRUSTED_PROXIES="10.0.0.5", SOVA_PROXY_COUNT=2))
    assert _seen(two, "10.0.0.5", **{"X-Forwarded-For": "1.2.3.4, 198.51.100.7, 203.0.113.9"})[
        0
    ] == ("198.51.100.7")


def test_without_a_proxy_count_nothing_forwarded_is_believed(make_app):
    app = watched(make_app())
    assert app.config["SOVA_PROXY_COUNT"] == 0
    assert _seen(app, "127.0.0.1", **{"X-Forwarded-For": "10.1.2.3"})[0] == "127.0.0.1"
    assert _metrics(app.test_client(), "10.1.2.3", "127.0.0.1") == 403


def test_a_malformed_trusted_proxies_setting_stops_start_up(make_app):
    with pytest.raises(ConfigError, match="SOVA_TRUSTED_PROXIES: 'nginx' is not an IP"):
        make_app(SOVA_TRUSTED_PROXIES="127.0.0.1, nginx")


def test_parse_and_match():
    nets = parse_networks(" 127.0.0.1 ,10.0.0.0/24,, ::1")
    assert [str(n) for n in nets] == ["127.0.0.1/32", "10.0.0.0/24", "::1/128"]
    assert is_trusted("10.0.0.200", nets) and is_trusted("::ffff:127.0.0.1", nets)
    assert not is_trusted("10.0.1.1", nets) and not is_trusted("", nets)
    assert not is_trusted("not-an-address", nets) and not is_trusted(None, nets)
