"""Languages of the UI: Russian (default), Belarusian, English."""

LANGUAGES = ("ru", "be", "en")
LANG_COOKIE = "sova_lang"
