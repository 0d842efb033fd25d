"""The host's reading time (``webapp.domain.reading``): syllables counted by hand on real
question texts, Russian and Belarusian, numbers read as numerals, exact estimates."""

from __future__ import annotations

from decimal import Decimal

import pytest

from webapp.domain.reading import (
    DEFAULT_SYLLABLES_PER_SECOND,
    HANDOUT_NOTE,
    Reading,
    calibrated_rate,
    mean_absolute_error,
    number_syllables,
    reading_seconds,
    seconds_label,
    syllables,
)

# Counted by hand, syllable by syllable.
SKORINA_RU = "Назовите город, где родился Франциск Скорина."  # На-зо-ви-те го-род где ро-дил-ся Фран-циск Ско-ри-на
SKORINA_BE = "Назавіце горад, дзе нарадзіўся Францыск Скарына."  # На-за-ві-це го-рад дзе на-ра-дзіў-ся Фран-цыск Ска-ры-на


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Что? Где? Когда?", 4),
        (SKORINA_RU, 15),
        (SKORINA_BE, 16),  # «ў» is no vowel
        ("Назови\u0301те го\u0301род.", 6),  # stress marks change nothing
        ("Rathergate", 4),  # Ra-the-rga-te: Latin vowel groups
        (HANDOUT_NOTE, 12),  # Вни-ма-ни-е раз-да-точ-ный ма-те-ри-ал
        ("В 1999 году", 14),  # В ты-ся-ча де-вять-сот де-вя-но-сто де-вять го-ду
        ("", 0),
    ],
)
def test_syllables(text, count):
    assert syllables(text) == count


@pytest.mark.parametrize(
    ("digits", "count"),
    [("0", 2), ("7", 1), ("13", 3), ("40", 2), ("100", 1), ("1999", 12), ("2023", 7)],
)
def test_numbers_are_read_as_numerals(digits, count):
    # ноль; семь; три-над-цать; со-рок; сто; ты-ся-ча де-вять-сот де-вя-но-сто де-вять;
    # две ты-ся-чи двад-цать три
    assert number_syllables(digits) == count


def test_exact_estimates_at_the_default_pace():
    assert DEFAULT_SYLLABLES_PER_SECOND == Decimal("4.5")
    assert reading_seconds(SKORINA_RU) == Decimal("3.3")  # 15 / 4.5 = 3.33…
    assert reading_seconds(SKORINA_BE) == Decimal("3.6")  # 16 / 4.5 = 3.55…
    assert reading_seconds(" ".join([SKORINA_RU] * 3)) == Decimal("10.0")  # 45 / 4.5
    # a handout adds the host's note: (4 + 12) / 4.5 = 3.55…
    assert reading_seconds("Что? Где? Когда?", handout=True) == Decimal("3.6")
    assert reading_seconds(SKORINA_RU, rate=Decimal("5")) == Decimal("3.0")
    with pytest.raises(ValueError, match="above zero"):
        reading_seconds(SKORINA_RU, rate=Decimal(0))


@pytest.mark.parametrize(
    ("seconds", "label"),
    [(Decimal("23.4"), "23 с"), (Decimal("0.5"), "1 с"), (310, "5 мин 10 с"), (300, "5 мин")],
)
def test_seconds_label(seconds, label):
    assert seconds_label(seconds) == label


def test_a_hosts_pace_is_calibrated_from_five_readings_on():
    readings = [Reading(45, Decimal("9.0"))] * 4
    assert calibrated_rate(readings) == DEFAULT_SYLLABLES_PER_SECOND  # four: not yet
    readings = [*readings, Reading(90, Decimal("18.0")), Reading(30, Decimal("0"))]
    assert calibrated_rate(readings) == Decimal("5.00")  # 270 syllables in 54 s
    assert calibrated_rate([Reading(100, Decimal("30"))] * 5) == Decimal("3.33")
    # the estimate's error on the recorded readings: 45 / 4.5 = 10 s against 9 s four times,
    # 90 / 4.5 = 20 s against 18 s once: (4 × 1 + 2) / 5
    assert mean_absolute_error(readings[:5], DEFAULT_SYLLABLES_PER_SECOND) == Decimal("1.2")
    assert mean_absolute_error(readings[:5], Decimal("5.00")) == Decimal("0.0")
    assert mean_absolute_error([], Decimal("5")) is None
