"""webapp.domain.text: storage normalisation and duplicate-search folding."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.domain.text import (
    FSI,
    PDI,
    fold_stress,
    has_control_chars,
    isolate,
    matching_key,
    normalise,
    stress_caps_to_acute,
)

ACUTE = "\u0301"

# --- normalise ---------------------------------------------------------------


@pytest.mark.parametrize(
    "char",
    ["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060", "\ufeff"]
    + ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"],
)
def test_normalise_removes_format_characters(char):
    assert normalise(f"Мо{char}сква") == "Москва"


def test_normalise_nfc_composes_letters():
    decomposed = "е\u0308лка и\u0306од"  # ё and й typed as base + combining mark
    assert normalise(decomposed) == "ёлка йод"
    assert all(
        len(w) == len(unicodedata.normalize("NFC", w)) for w in normalise(decomposed).split()
    )


def test_normalise_line_ends_and_trailing_spaces():
    assert normalise("Вопрос  \r\nОтвет\t \rКонец ") == "Вопрос\nОтвет\nКонец"


def test_normalise_keeps_stress_quotes_and_leading_space():
    s = "  Свентови\u0301т — «бог»\n   абзац"
    assert normalise(s) == s


def test_normalise_idempotent_example():
    s = "\ufeffА\u200bб  \r\n"
    assert normalise(normalise(s)) == normalise(s) == "Аб\n"


# --- control characters --------------------------------------------------------


@pytest.mark.parametrize("s", ["a\x00b", "\x1b[0m", "x\x7f", "x\x85y", "a\rb", "\x0c"])
def test_has_control_chars_true(s):
    assert has_control_chars(s)


@pytest.mark.parametrize("s", ["", "строка\nи\tтаб", "«ёлка»\u00a0—", "Свентови\u0301т"])
def test_has_control_chars_false(s):
    assert not has_control_chars(s)


# --- stress --------------------------------------------------------------------


def test_fold_stress():
    assert fold_stress("Свентови\u0301т и О\u0301му") == "Свентовит и Ому"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("СвентовИт", "Свентови" + ACUTE + "т"),
        ("императора ОттОна", "императора Отто" + ACUTE + "на"),
        ("Та-СЕти", "Та-Се" + ACUTE + "ти"),
        ("лимузЕнский епископ АдуЭн", "лимузе" + ACUTE + "нский епископ Адуэ" + ACUTE + "н"),
        ("назовите ИКС", "назовите ИКС"),  # all-caps word: a replacement, not stress
        ("ОН и ЕГО", "ОН и ЕГО"),
        ("МакАртур", "МакАртур"),  # a name, not stress
        ("ДНКа", "ДНКа"),  # capital next to a capital
        ("Москва", "Москва"),
        ("фЕта", "фе" + ACUTE + "та"),
    ],
)
def test_stress_caps_to_acute(raw, expected):
    assert stress_caps_to_acute(raw) == expected


# --- matching_key --------------------------------------------------------------


def test_matching_key_basic_shape():
    assert matching_key("  Назовите, ЕГО!  ") == "назовите его"


def test_matching_key_yo():
    assert matching_key("Ёлка, всё") == matching_key("елка, все") == "елка все"


@pytest.mark.parametrize(
    "quoted",
    [
        '"Начало"',
        "«Начало»",
        "„Начало“",
        "“Начало”",
        "'Начало'",
        "&quot;Начало&quot;",
        "&laquo;Начало&raquo;",
    ],
)
def test_matching_key_quotes_and_entities(quoted):
    assert matching_key(f"фильм {quoted}.") == "фильм начало"


def test_matching_key_double_escaped_entity():
    assert matching_key("&amp;quot;Начало&amp;quot;") == "начало"


@pytest.mark.parametrize("dash", ["-", "—", "–", "--", "\u2011"])
def test_matching_key_dashes(dash):
    assert matching_key(f"Ростов {dash} на Дону") == "ростов на дону"


def test_matching_key_homoglyphs_in_cyrillic_word():
    latin_a_o = "Мoсквa"  # Latin "o" and "a" inside a Cyrillic word
    assert any("a" <= c <= "z" for c in latin_a_o)
    assert matching_key(latin_a_o) == matching_key("Москва") == "москва"
    assert matching_key("КOРAБЛЬ") == matching_key("корабль")  # Latin O and A in capitals
    assert matching_key("Moscow") == "moscow"  # a Latin word stays Latin


def test_matching_key_homoglyphs_fold_into_the_majority_script():
    assert matching_key("Тоkyo") == "tokyo"  # 2 Cyrillic vs 3 Latin: Cyrillic ones to Latin
    assert matching_key("сaxар") == "сахар"  # 3 Cyrillic vs 2 Latin: Latin ones to Cyrillic
    assert matching_key("сaхa") == "саха"  # 2 and 2: a tie counts as Cyrillic
    assert matching_key("Пkyo") == "пkyo"  # "П" has no Latin twin: stays


def test_matching_key_cyrillic_homoglyph_in_latin_word():
    cyrillic_es = "\u0421losed"  # "Сlosed" typed with a Cyrillic "С"
    assert unicodedata.name(cyrillic_es[0]) == "CYRILLIC CAPITAL LETTER ES"
    assert matching_key(cyrillic_es) == matching_key("Closed") == "closed"
    assert matching_key("Тhe Вeatles, \u0421\u041eVID") == "the beatles covid"
    assert matching_key("сlosed and Сlosed") == "closed and closed"
    assert matching_key("Ѕtar Јazz іnternet") == "star jazz internet"  # і ј ѕ
    assert matching_key("Сlosed Москва") == "closed москва"  # each word on its own


def test_matching_key_latin_i_in_belarusian_word():
    assert matching_key("Мiнск") == matching_key("Мінск") == "мінск"  # Latin i → "і"


@pytest.mark.parametrize(
    "variant",
    ["Свентовит", "СвентовИт", "Свентови\u0301т", "свентовит", "СВЕНТОВИТ"],
)
def test_matching_key_stress(variant):
    assert matching_key(variant) == "свентовит"


def test_matching_key_latin_accented_vowel_as_stress():
    # the older Kubok canon typed stress as a Latin "á"
    assert matching_key("Хáральд") == matching_key("Ха\u0301ральд") == "харальд"


def test_matching_key_markdown_escapes():
    assert matching_key(r"Корабль\_Тесея") == matching_key("Корабль_Тесея") == "корабль тесея"
    assert matching_key(r"\*Важно\*") == "важно"


def test_matching_key_whitespace_and_invisibles():
    assert matching_key("Москва\u00a0—\u200b  столица\n\tРоссии") == "москва столица россии"


def test_matching_key_does_not_touch_argument():
    s = "«Свентови\u0301т»"
    matching_key(s)
    assert s == "«Свентови\u0301т»"


@pytest.mark.parametrize(
    "s",
    [
        "&amp;amp;quot;x&amp;quot;",
        r"\\_\_",
        "Хáральд СвентовИт «Мoсквa» — ёж",
        "Сlosed іi Тоkyo Мiнск",
        "ﬁ ＡＢＣ ①",
        "İstanbul ß",
        "\\&quot;",
    ],
)
def test_matching_key_idempotent_examples(s):
    once = matching_key(s)
    assert matching_key(once) == once


@given(st.text())
def test_matching_key_idempotent_property(s):
    once = matching_key(s)
    assert matching_key(once) == once


@given(st.text())
def test_normalise_idempotent_property(s):
    once = normalise(s)
    assert normalise(once) == once


def test_has_control_chars_is_the_category_rule_on_every_code_point():
    """The regular expression equals «category Cc or Cs, but \\n and \\t» everywhere."""
    import sys

    rule = [
        c
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) in ("Cc", "Cs") and chr(c) not in "\n\t"
    ]
    assert [c for c in range(sys.maxunicode + 1) if has_control_chars(chr(c))] == rule


def _matching_key_per_character(s: str) -> str:
    """:func:`matching_key` as it was written first, one Python step per character: the
    fast paths (a look-up per distinct character, texts without a capital vowel inside a
    word or without both scripts returned early) must give the same keys."""
    import html

    from webapp.domain import text as t

    for _ in range(5):
        unescaped = html.unescape(s)
        if unescaped == s:
            break
        s = unescaped
    s = t.MD_ESCAPE.sub(r"\1", s)
    s = unicodedata.normalize("NFKC", s)
    s = "".join(c for c in s if unicodedata.category(c) != "Cf")
    s = t.CYR_WORD.sub(lambda m: t.stress_word(m.group(0)), s)
    s = unicodedata.normalize("NFD", s)
    s = "".join(c for c in s if c not in t.STRESS_MARKS)
    s = unicodedata.normalize("NFC", s)
    s = s.casefold().replace("ё", "е")
    s = unicodedata.normalize("NFKC", s)
    s = "".join(" " if t.drop_char(c) else c for c in s)
    s = t.WORD.sub(lambda m: t.fold_homoglyphs(m.group(0)), s)
    return " ".join(s.split())


@given(
    st.text(
        alphabet=st.sampled_from(
            list("аАеЕоОиИыЫёЁяЯxХaAkKсCcйЙэтТ-«»—.,!? ’'&;\\_$€№Мак")
            + ["\u0301", "\u0300", "\u00ad", "\u200b", "\u00a0", "é", "ﬁ", "Ａ"]
        ),
        max_size=40,
    )
    | st.text(max_size=20)
)
def test_matching_key_equals_the_per_character_rules(s):
    assert matching_key(s) == _matching_key_per_character(s)


# --- isolate -----------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "Сезон 2023 🦉 שלום",  # Hebrew (R)
        "فريق 7",  # Arabic (AL)
        "Сезон ٢٠٢٣",  # Arabic-Indic digits (AN) draw what follows as Hebrew does
        "Сезон\u200f 7",  # RIGHT-TO-LEFT MARK (R)
    ],
)
def test_isolate_sets_a_right_to_left_name_off(name):
    assert isolate(name) == FSI + name + PDI == "\u2068" + name + "\u2069"


@pytest.mark.parametrize("name", ["", "Сезон 2023", "Season 7", "Сезон 2023 🦉", "Сезон „Весна“"])
def test_isolate_leaves_a_left_to_right_name_as_typed(name):
    assert isolate(name) == name
