"""What ``tools/check_imports.py`` (run by ``make lint``) calls a private name crossing a
module, and what it lets a module do with its own."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _checker():
    spec = importlib.util.spec_from_file_location("check_imports", ROOT / "tools/check_imports.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SOURCE = """
from webapp.moderation.duplicates import _WORD_LOCK, scores
from webapp.moderation import duplicates
import webapp.accounts.operations as accounts
from . import _sibling
from .helpers import _shared


def test_x(monkeypatch):
    monkeypatch.setattr(accounts, "_x", 1)
    monkeypatch.setattr(accounts, "PASSWORD_HASHER", 1)
    duplicates._WORD_LOCK
    duplicates.scores
    own = object()
    own._anything
"""


def test_every_kind_of_crossing_is_named_with_its_line():
    found = list(
        _checker().crossings_in(SOURCE, "tests.webapp.games.test_probe", False, "probe.py")
    )
    assert found == [
        "probe.py:2: from webapp.moderation.duplicates import _WORD_LOCK",
        "probe.py:5: from tests.webapp.games import _sibling",
        "probe.py:6: from tests.webapp.games.helpers import _shared",
        "probe.py:10: setattr webapp.accounts.operations._x",
        "probe.py:12: webapp.moderation.duplicates._WORD_LOCK",
    ]


def test_a_module_may_use_its_own_privates():
    source = "from webapp.moderation.duplicates import _WORD_LOCK\n"
    assert list(_checker().crossings_in(source, "webapp.moderation.duplicates", False, "d")) == []
