"""The translation catalogs against the code: every string ``pybabel extract`` finds with the
command of ``webapp/translations/README.md`` is in the ``be`` and ``en`` catalogs and
translated there, and each compiled ``.mo`` says what its ``.po`` says. A new string marked
for translation and not translated fails here, not on a Belarusian viewer's screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "webapp" / "translations"
LANGUAGES = ("be", "en")


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> set[str]:
    """The msgids the README's extraction command finds now."""
    pot = tmp_path_factory.mktemp("catalogs") / "messages.pot"
    CommandLineInterface().run(
        [
            "pybabel",
            "--quiet",
            "extract",
            "-F",
            str(TRANSLATIONS / "babel.cfg"),
            "-k",
            "_l",
            "-k",
            "Message",
            "-o",
            str(pot),
            str(ROOT),
        ]
    )
    with pot.open("rb") as f:
        return {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}


def catalog(language: str):
    with (TRANSLATIONS / language / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f)


def test_the_extraction_finds_the_api_and_e_mail_strings(extracted):
    """The strings the README's command used to miss: the API's (a plain dict of HTTP
    texts, marshmallow's ``Message``s), the prize e-mail's, the game page's air time."""
    assert "Не найдено: такого адреса или объекта нет." in extracted  # N_ in a dict
    assert "Ожидается целое число." in extracted  # Message(...)
    assert "Реквизиты для выплаты приза — «Что? Где? Когда?»" in extracted  # workers/prizes.py
    assert "Сохранить время эфира" in extracted  # templates/games/game.html


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_extracted_string_is_translated(extracted, language):
    entries = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalog(language) if m.id}
    missing = sorted(extracted - entries.keys())
    assert missing == [], f"not in the {language} catalog: {missing[:10]}"
    untranslated = sorted(i for i in extracted if not all(entries[i].string) or entries[i].fuzzy)
    assert untranslated == [], f"untranslated or fuzzy in {language}: {untranslated[:10]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalog_is_the_po(language):
    """``pybabel compile`` was run after the last edit of the ``.po``."""
    with (TRANSLATIONS / language / "LC_MESSAGES" / "messages.mo").open("rb") as f:
        compiled = {m.id: m.string for m in read_mo(f) if m.id}
    written = {m.id: m.string for m in catalog(language) if m.id and not m.fuzzy}
    assert compiled == written
