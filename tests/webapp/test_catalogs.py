"""The translation catalogs against the code: every string the code marks for translation
(what ``make messages`` extracts: pyproject.toml's ``[tool.babel.extract_messages]`` and
``webapp/translations/babel.cfg``) is in the ``be`` and ``en`` catalogs and translated there,
every catalog entry is still marked somewhere in the code, and each compiled ``.mo`` says what
its ``.po`` says. A new string marked and not translated fails here, not on a Belarusian
viewer's screen; a string changed or no longer marked leaves an entry that ``make messages``
drops. Russian is the source language: the msgids are the Russian text, no ``ru`` catalog."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, check_and_call_extract_file
from babel.messages.frontend import CommandLineInterface, parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "webapp" / "translations"
LANGUAGES = ("be", "en")
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["babel"]["extract_messages"]


def msgid(message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def extract() -> set[str]:
    """The msgids ``pybabel extract`` finds with the project's configuration, in well under a
    second: only the files that hold a keyword call (or a ``{% trans %}`` block) go through
    Babel's extractors, the same ones with the same options; a file without one has no
    message to give (``test_the_fast_extraction_is_pybabels`` holds the two equal)."""
    keywords = dict(DEFAULT_KEYWORDS)
    keywords.update(dict.fromkeys(CONFIG["keywords"]))
    calls = "|".join(map(re.escape, keywords))
    marked = re.compile(rf"\b(?:{calls})\s*\(|\{{%-?\s*trans\b")
    with (ROOT / CONFIG["mapping-file"]).open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    tops = {pattern.split("/")[0] for pattern, _method in method_map}
    found: set[str] = set()
    for top in sorted(tops):
        for dirpath, dirnames, filenames in os.walk(ROOT / top):
            # pybabel's walk skips these too (__pycache__, hidden folders)
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "_"))]
            for name in filenames:
                path = os.path.join(dirpath, name)
                try:
                    text = Path(path).read_text(encoding="utf-8")
                except (UnicodeDecodeError, OSError):
                    continue
                if not marked.search(text):
                    continue
                for _file, _lineno, message, _comments, _context in check_and_call_extract_file(
                    path, method_map, options_map, None, keywords, (), False, str(ROOT)
                ):
                    found.add(message if isinstance(message, str) else message[0])
    found.discard("")
    return found


@pytest.fixture(scope="module")
def extracted() -> set[str]:
    return extract()


def catalog(language: str):
    with (TRANSLATIONS / language / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f)


def test_the_extraction_finds_the_strings_reached_through_variables(extracted):
    """The strings marked where they are defined and translated where they are shown: the
    API's (``N_`` in a dict of HTTP texts, marshmallow's ``Message``s), the broadcast feed's
    refusal (an ``N_`` constant), the forms' labels (``_l``), the prize e-mail's, the game
    page's air time."""
    assert "Не найдено: такого адреса или объекта нет." in extracted  # N_ in a dict
    assert "Ожидается целое число." in extracted  # Message(...)
    assert (
        "Нужен действующий ключ эфира этой игры: ?key=<ключ> в адресе или заголовок "
        "«Authorization: Bearer <ключ>»."
    ) in extracted  # webapp.onair.views.KEY_REFUSED
    assert "Дата выдачи паспорта" in extracted  # _l in a dict of labels
    assert "Реквизиты для выплаты приза — «Что? Где? Когда?»" in extracted  # workers/prizes.py
    assert "Сохранить время эфира" in extracted  # templates/games/game.html


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_marked_string_is_translated(extracted, language):
    entries = {msgid(m): m for m in catalog(language) if m.id}
    missing = sorted(extracted - entries.keys())
    assert missing == [], (
        f"not in the {language} catalog (make messages, then translate): {missing[:10]}"
    )
    untranslated = sorted(
        i
        for i in extracted
        if entries[i].fuzzy
        or not all(
            entries[i].string if isinstance(entries[i].string, tuple) else [entries[i].string]
        )
    )
    assert untranslated == [], f"untranslated or fuzzy in {language}: {untranslated[:10]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_catalog_entry_is_marked_in_the_code(extracted, language):
    """An entry no code marks is dead weight that hides a changed string (its old text stays
    translated while the new one is not): ``make messages`` drops it."""
    read = catalog(language)
    unmarked = sorted({msgid(m) for m in read if m.id} - extracted)
    assert unmarked == [], (
        f"in the {language} catalog, marked nowhere (mark it where it is defined, N_ or _l, or make messages drops it): {unmarked[:10]}"
    )
    assert list(read.obsolete) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_translations_keep_the_placeholders(language):
    """A ``%(name)s`` of the msgid is in the msgstr too (Babel's catalog checks)."""
    problems = [(msgid(m), [str(e) for e in errors]) for m, errors in catalog(language).check()]
    assert problems == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalog_is_the_po(language):
    """``pybabel compile`` was run after the last edit of the ``.po``."""
    with (TRANSLATIONS / language / "LC_MESSAGES" / "messages.mo").open("rb") as f:
        compiled = {m.id: m.string for m in read_mo(f) if m.id}
    written = {m.id: m.string for m in catalog(language) if m.id and not m.fuzzy}
    assert compiled == written


@pytest.mark.slow
def test_the_fast_extraction_is_pybabels(extracted, tmp_path, monkeypatch):
    """``pybabel extract`` itself (what ``make messages`` runs, every file read) finds what
    :func:`extract` finds."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("BABEL_PYPROJECT_TOML", str(ROOT / "pyproject.toml"))
    pot = tmp_path / "messages.pot"
    CommandLineInterface().run(["pybabel", "--quiet", "extract", "-o", str(pot)])
    with pot.open("rb") as f:
        assert {msgid(m) for m in read_po(f) if m.id} == extracted
