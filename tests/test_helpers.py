"""The test suite's own helpers that change how an app is built (``tests/helpers.py``)."""

from __future__ import annotations

from flask import Flask
from werkzeug.routing import Rule
from werkzeug.routing.converters import IntegerConverter

from tests.helpers import CachedBuilderRule


def _urls(app: Flask) -> dict[tuple[str, str], tuple[str, str]]:
    """Every rule of ``app`` built with sample values, without and with a query argument."""
    adapter = app.url_map.bind("sova.test")
    built = {}
    for rule in app.url_map.iter_rules():
        values = {
            name: 7 if isinstance(rule._converters[name], IntegerConverter) else "a b/ё"
            for name in rule.arguments
            if name not in (rule.defaults or {})
        }
        built[(rule.endpoint, rule.rule)] = (
            adapter.build(rule.endpoint, values, method=next(iter(rule.methods or {"GET"}))),
            adapter.build(rule.endpoint, {**values, "q": "x y"}, force_external=True),
        )
    return built


def test_cached_builders_build_every_url_as_werkzeug_does(make_app, monkeypatch):
    assert Flask.url_rule_class is CachedBuilderRule
    cached = _urls(make_app())
    monkeypatch.setattr(Flask, "url_rule_class", Rule)
    plain_app = make_app()
    assert not any(isinstance(r, CachedBuilderRule) for r in plain_app.url_map.iter_rules())
    plain = _urls(plain_app)
    assert len(plain) > 100
    assert cached == plain
    # and every built URL matches the same rule with the same values in both maps
    assert _matches(make_app(), plain) == _matches(plain_app, plain)


def _matches(app: Flask, built: dict) -> dict[str, object]:
    """``{path: (endpoint, values) or the refusal's class name}`` of ``app``'s URL map."""
    adapter = app.url_map.bind("sova.test")
    out: dict[str, object] = {}
    for path, _external in built.values():
        try:
            out[path] = adapter.match(path.split("?")[0], method="GET")
        except Exception as exc:  # a POST-only rule (405), a redirect for a slash (308)
            out[path] = type(exc).__name__
    return out
