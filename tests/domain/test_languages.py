"""The one reading of a question's language (``webapp.domain.languages.text_language``):
the moderation pre-check names it and the table fill passes a question over by it.

Real Belarusian: Kupala's «А хто там ідзе?», the opening of the Belarusian Wikipedia article
on Minsk, questions in the style of the Belarusian championship. The texts under
«a statistical detector disagreed» are those a trigram model restricted to eleven
languages (lingua, low-accuracy mode) reads otherwise: a Russian question quoting a
Belarusian phrase as Ukrainian, short Belarusian without «і» or «ў» as Russian, a short
English question as German."""

from __future__ import annotations

import pytest

from webapp.domain.books import BOOKS
from webapp.domain.languages import fits_game, text_language

BELARUSIAN = [
    ("А хто там ідзе, а хто там ідзе ў агромністай такой грамадзе? — Беларусы.",),
    ("Мінск — сталіца Рэспублікі Беларусь, палітычны, эканамічны і культурны цэнтр краіны.",),
    ("У 1517 годзе Францыск Скарына выдаў у Празе «Псалтыр». Назавіце горад, дзе ён нарадзіўся.",),
    ("Паводле легенды, гэты горад заснаваў князь Барыс. Як ён называецца?",),
    ("Які горад называюць сталіцай Беларусі?", "Мінск"),
    # a statistical detector disagreed: no «і» or «ў», told by the words
    ("Што гэта?", "Гэта — кубак"),
]
RUSSIAN = [
    ("По легенде, этот город основал князь Борис. Как он называется?",),
    ("В 1517 году Франциск Скорина издал в Праге «Псалтирь». Назовите город, где он родился.",),
    ("Назовите реку, на которой стоит Полоцк, древнейший город Беларуси.",),
    # short, with capitalised replacement words
    ("ОН порекомендовал Роберту Фицрою пригласить Чарльза Дарвина на «Бигль».",),
    ("Одно из ЕЕ прозвищ — графиня Дракула.",),
    ("ОНА — дура.",),
    ("Какой город называют столицей? Назовите его.",),
    # a statistical detector disagreed: a Belarusian phrase quoted in a Russian question
    ("Что значит «Перад вамі» на белорусском?",),
]


@pytest.mark.parametrize("texts", BELARUSIAN)
def test_belarusian_is_told_from_russian(texts):
    assert text_language(*texts) == "be"


@pytest.mark.parametrize("texts", RUSSIAN)
def test_russian(texts):
    assert text_language(*texts) == "ru"


def test_ukrainian_by_its_own_letters():
    assert text_language("За легендою, це місто заснував князь Борис. Як воно називається?") == "uk"
    assert text_language("Що це таке?", "Їжак") == "uk"
    # a Russian question quoting a Ukrainian word keeps the letters Ukrainian lacks
    assert text_language("Что значит украинское слово «їжак»? Назовите этого зверя.") == "ru"


def test_latin_script_is_english_and_no_sign_is_unknown():
    # a statistical detector disagreed: German
    assert text_language("What is the capital?") == "en"
    assert text_language("Według legendy to miasto założył książę Borys.") == "en"
    assert text_language("Вопрос номер 1?", "Ответ 1") is None
    assert text_language("1517 — 2026?") is None
    assert text_language("", None) is None


def test_which_languages_fit_a_game():
    belarusian, russian = BOOKS["2023"].game_languages, BOOKS["2009"].game_languages
    assert fits_game("be", belarusian) and fits_game("ru", belarusian)
    assert fits_game("ru", russian) and not fits_game("be", russian)
    assert not fits_game("uk", belarusian) and not fits_game("en", russian)
    assert fits_game(None, russian)  # unknown: the producer decides
