"""PDF documents of Sova: envelopes, host cards, gift agreements (договоры дарения).

This is the ONLY module of the project that imports WeasyPrint (``shared/DESIGN.md``, "Documents").

Public API
==========
``render_pdf(template, context, *, allowed_files=None) -> bytes``
    Render ``templates/pdf/<template>`` (e.g. ``"envelope.html"``) to PDF bytes.
    Same template + same context + same allowed files -> byte-identical PDF (no creation
    date unless the template takes it from the context, content-derived PDF /ID, no random
    ids). Raises ``TypeError`` if the context holds anything but primitives (see below),
    ``jinja2.UndefinedError`` if a key a template needs is missing (``StrictUndefined``),
    ``jinja2.TemplateNotFound`` for unknown or ``_private`` templates, ``ResourceRefused``
    if the document references a resource the fetcher does not allow (rendering stops: a
    document silently missing its stylesheet or handout image is a wrong document),
    ``DocumentRenderError`` if an allowed resource cannot be read.
``render_html(template, context) -> str``
    The HTML that ``render_pdf`` feeds to WeasyPrint (same validation); for debugging.
    With several ``copies``, ``render_pdf`` feeds one such HTML per copy (``copies`` of
    one serial each), so that each copy's pages count from 1.
``SafeURLFetcher(allowed_files=None)`` / ``safe_url_fetcher(url)``
    The only URL fetcher WeasyPrint gets; see "Resources" below.
``amount_in_words(amount, currency) -> str``
    ``Decimal("2000.00"), "BYN"`` -> ``"2 000,00 (Две тысячи) рублей 00 копеек"``, exactly as
    the rule book writes amounts (000_90d7c8192601ed3a.txt §4.11).
``amount_figures(amount) -> str``
    ``Decimal("2000")`` -> ``"2 000,00"`` (Babel's ru pattern via ``webapp.core.formats``).
    Templates also have ``money(currency)``: ``"1 800,00 BYN"`` with U+00A0 spaces, exactly
    as the web pages print it.

Context values
==============
Exact types only (subclasses are refused, so ``markupsafe.Markup`` cannot smuggle raw HTML
past autoescaping, and ORM rows, enums, floats cannot sneak in): ``str``, ``int``, ``bool``,
``None``, ``decimal.Decimal``, ``datetime.date``, ``datetime.datetime``, and ``list`` /
``tuple`` / ``dict`` (``str`` keys) of those, nested at most 32 levels. Money is a
``Decimal``, never a float. Dates may be ISO strings (``"2023-03-04"``) or ``date`` objects;
templates print them as ``4 марта 2023 г.``. All text is escaped: user text containing
``<script>``, ``<img src=...>`` etc. is printed literally.

Template context shapes
=======================
``envelope.html`` -- one A4 page per sector, handed to the host in an envelope::

    {
      "game": {"title": str, "date": "2023-03-04" | date, "season": str},
      "serial": str,                      # copy number printed in every page footer
      "sectors": [{
        "sector": int,                    # 1..13
        "kind": "single" | "blitz" | "superblitz" | "sector13",
        "questions": [{                   # 1 for single/sector13, 3 for blitz, ...
          "slot": int,                    # order inside the sector (sorted by the caller)
          "text": str,                    # as the host reads it; newlines kept
          "handout": str | None,          # handout text, printed in a box
          "authors": [{"name": str, "city": str | None}],
        }],
      }],
    }

  Page label: «Сектор 4 — Блиц» (kinds: single «Вопрос», blitz «Блиц», superblitz
  «Суперблиц», sector13 «13 сектор»); several questions are numbered 1., 2., 3. (by
  position, not by ``slot``); author line «Автор: Иван Сапего, Брест — Минск», several
  authors «Авторы: A, Город; B» (joined with «; »; a missing city is omitted).

``host_card.html`` -- one page per sector, same shape as ``envelope.html``; every question
dict additionally carries::

    "answer": str, "accepted": str | None,   # «Зачёт»
    "rejected": str | None,                  # «Незачёт»
    "comment": str | None, "sources": [str], # «Источники», numbered list
  (a None / empty field prints no line).

``gift_agreement.html`` -- договор дарения of a prize (2023 §4.11, 2009 §1.2.2, §3)::

    {
      "number": "2023-0001",
      "date": "2023-03-10" | date,          # also the PDF creation date (determinism)
      "donor": {                            # the season's donor (webapp.domain.donor)
        "name": str,                        # ЗАО «Второй национальный телеканал»
        "place": str,                       # «г. Минск»: place of the agreement
        "details": str,                     # address, УНП/ИНН, bank: lines; "" -> a blank
        "representative": str,              # «генерального директора …»; "" -> no «в лице»
        # any other key (e.g. "city") is ignored
      },
      "author": {"name": str, "city": str | None, "address": str | None,
                 "gender": "masc" | "femn" | None,   # None: «(далее — «Одаряемый»)»
                 # optional keys, from the payee's details (webapp.prizes.payee):
                 "document": {"series", "number", "issued_by", "issued_on"} | None,
                 "personal_number": str, "inn": str, "account": str},
      # "" / None in author address, document, account -> a blank line to fill
      "question": {"text": str,             # cut to 300 characters + «…»; plain (the
                   "place": str},           # caller's agreement_text); «сектор 7», "" ok
      "award": None | {"label": str, "trophy": str},  # an individual prize (question None)
      "game": {"title": str, "date": "2023-03-04" | date, "season": str},
      "amount": Decimal,                    # 2 places max, >= 0
      "currency": "BYN" | "RUB",
      "rule": "п. 4.11.1 …",
      "version": int,                       # document version, printed in the footer
    }

  Quotes inside quotes print as „…“ (the ``quoted`` filter, webapp.domain.donor.quoted).

``commission_minutes.html`` (prize commission minutes) and ``payment_register.html`` (the
payment register for a period, landscape A4): shapes in
``webapp/prizes/queries.py::minutes_context`` and
``webapp/prizes/register.py::register_pdf_context``.

Resources
=========
WeasyPrint gets ``base_url`` = ``templates/pdf/`` (a ``file:`` URL) and a ``SafeURLFetcher``
that serves only:

* ``file:`` URLs whose real path (symlinks resolved) is a file inside ``templates/pdf/``
  with an asset suffix (``.css``, fonts, ``.png``, ``.svg``) -- never the templates;
* ``sova-file:<name>`` URLs where ``<name>`` is a key of the caller's ``allowed_files``
  (``{"handout-17.png": Path(...)}``; raster images only): handout images from the
  instance folder, used in a template as ``<img src="sova-file:handout-17.png">``.

Everything else -- ``http:``, ``https:``, ``ftp:``, ``data:``, ``file:`` outside the assets
folder, queries, remote hosts -- is refused, logged on ``logging.getLogger("sova.documents")``
(WARNING) and raises ``ResourceRefused``; no network access happens, so no redirects.
Fonts come from fontconfig (system ``fonts-dejavu-core``): nothing is downloaded.

Layout and determinism
======================
Plain A4 (210×297 mm) for the papers an office printer prints and people sign
(agreements, minutes, registers, vote results); envelopes and host cards (the printer's
sheets, ``@page trim`` in ``pdf.css``) keep 3 mm bleed and crop/cross marks (MediaBox = A4
+ bleed, 216×303 mm; TrimBox = A4). "DejaVu Serif" text and "DejaVu Sans" headings,
footer: copy serial / season (or agreement number, version / rule), «Стр. N из M». Every
page of the vote result also carries, at its top, the game, the totals and the control
code (the running element ``paper``), and its signatures print on the sheet of the totals. ``overflow-wrap: anywhere`` everywhere, no automatic
hyphenation (hosts read the text aloud; amounts and names must extract exactly). Runs of
more than 60 non-space characters get an invisible U+200B every 2 characters (see
``_break_long_runs``): WeasyPrint is quadratic on unbreakable words. Amount figures in the
PDFs use U+00A0 as thousands separator. Fonts are subset by fontTools unless
libharfbuzz-subset is installed; fontTools stamps the time into each subset, so renders run
with ``SOURCE_DATE_EPOCH`` fixed (see ``_fixed_font_timestamps``; renders in one process are
serialised by a lock). The PDF /ID is pydyf's MD5 of the serialised objects (a re-render has
the same, another document another); ``_serialise_once`` spares pydyf serialising them a
second time to take it. One ``FontConfiguration`` serves every render of a process
(``_font_config``; the templates declare no ``@font-face``); the bytes are the same as with
a fresh one per render.

Envelopes and host cards keep each question block (``<div class="question" id="q-S-N">``)
on one sheet: ``break-inside: avoid`` in ``pdf.css``, and a block still taller than its
page gets its images scaled down and is laid out again (``_keep_questions_whole``); a
sector that runs on to a second sheet repeats its header there (running element
``sector``). Emoji print from fontconfig's fallback to ``fonts-noto-color-emoji``.

The only module that imports WeasyPrint: the template context check, the fetcher that
refuses outside resources, the fonts and the render itself stay behind that one boundary.
"""

from __future__ import annotations

import atexit
import datetime as dt
import gc
import hashlib
import logging
import mimetypes
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

import jinja2
import pydyf
from num2words import num2words
from weasyprint import HTML
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import FatalURLFetchingError, URLFetcher, URLFetcherResponse, path2url

from webapp.core.formats import money
from webapp.domain.donor import quoted
from webapp.domain.handouts import split_images
from webapp.domain.text import ru_plural
from webapp.domain.typography import typeset
from webapp.resources import templates_dir

_T = TypeVar("_T")

__all__ = [
    "ALLOWED_FILE_SCHEME",
    "ASSETS_DIR",
    "DocumentRenderError",
    "ResourceRefused",
    "SafeURLFetcher",
    "amount_figures",
    "amount_in_words",
    "render_html",
    "render_pdf",
    "safe_url_fetcher",
]

log = logging.getLogger("sova.documents")

#: ``pdf/`` of the installed templates (the repository's ``templates/pdf/``): templates,
#: ``pdf.css`` and any bundled assets.
ASSETS_DIR = templates_dir() / "pdf"
#: Scheme of caller-allowed local files: ``sova-file:<name>``.
ALLOWED_FILE_SCHEME = "sova-file"

NBSP = "\u00a0"
_ASSET_SUFFIXES = frozenset({".css", ".ttf", ".otf", ".woff", ".woff2", ".png", ".svg"})
_ALLOWED_FILE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
_ALLOWED_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_MAX_CONTEXT_DEPTH = 32
_LOGGED_URL_CHARS = 200


class ResourceRefused(PermissionError):
    """A document referenced a URL that ``SafeURLFetcher`` does not serve."""


class DocumentRenderError(RuntimeError):
    """An allowed resource could not be loaded; the PDF was not produced."""


# --------------------------------------------------------------------------- fetcher


class SafeURLFetcher(URLFetcher):
    """WeasyPrint 70 URL fetcher serving only our assets and an explicit allow-list.

    WeasyPrint >= 68 wants a ``weasyprint.urls.URLFetcher`` *instance* (its ``fetch()``
    helper reads ``url_fetcher._fail_on_errors``), whose ``fetch(url, headers=None)``
    returns a ``URLFetcherResponse``; a bare function no longer works. The network
    machinery of the base class is never used: ``fetch`` is fully overridden.

    allowed_files: ``{name: Path}``; ``name`` matches ``[A-Za-z0-9][A-Za-z0-9._-]*``, the
    file must exist and be a raster image (png, jpg, gif, webp); it is served for
    ``sova-file:<name>``. Raises ``ValueError`` on a bad name / missing file / other suffix.

    ``fetched`` and ``refused`` list the URLs served and refused (in order), for audits
    and tests. Every refusal is logged (WARNING, logger ``sova.documents``) and raises
    ``ResourceRefused``.
    """

    def __init__(
        self,
        allowed_files: Mapping[str, Path] | None = None,
        *,
        assets_dir: Path = ASSETS_DIR,
    ) -> None:
        # fail_on_errors: any refusal stops the rendering (WeasyPrint wraps it in
        # FatalURLFetchingError, render_pdf unwraps it). No protocols, no redirects.
        super().__init__(
            timeout=1, allowed_protocols=(), allow_redirects=False, fail_on_errors=True
        )
        self._assets_dir = Path(assets_dir).resolve(strict=True)
        self._allowed: dict[str, Path] = {}
        for name, path in (allowed_files or {}).items():
            if not isinstance(name, str) or not _ALLOWED_NAME_RE.fullmatch(name):
                raise ValueError(f"allowed_files: bad name {name!r}")
            real = Path(path).resolve(strict=True)
            if not real.is_file():
                raise ValueError(f"allowed_files: {name!r} is not a regular file")
            if real.suffix.lower() not in _ALLOWED_FILE_SUFFIXES:
                raise ValueError(f"allowed_files: {name!r} is not a raster image")
            self._allowed[name] = real
        self.fetched: list[str] = []
        self.refused: list[str] = []

    # WeasyPrint calls fetcher(url) and, through open(), fetch(url, headers).
    def fetch(self, url: str, headers: Mapping[str, str] | None = None) -> URLFetcherResponse:
        path = self._resolve(url)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise DocumentRenderError(f"cannot read {path.name}: {exc}") from exc
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        self.fetched.append(url)
        log.debug("served %s from %s", _short(url), path)
        return URLFetcherResponse(url, data, {"Content-Type": mime}, 200)

    def _refuse(self, url: str, reason: str) -> ResourceRefused:
        self.refused.append(url)
        log.warning("refused to fetch %s: %s", _short(url), reason)
        return ResourceRefused(f"refused to fetch {_short(url)}: {reason}")

    def _resolve(self, url: str) -> Path:
        if not isinstance(url, str):
            raise self._refuse(repr(url), "not a string")
        scheme, sep, rest = url.partition(":")
        scheme = scheme.lower()
        if not sep:
            raise self._refuse(url, "not an absolute URL")
        if scheme == ALLOWED_FILE_SCHEME:
            name = unquote(rest)
            if name not in self._allowed:
                raise self._refuse(url, "name not in allowed_files")
            return self._allowed[name]
        if scheme != "file":
            raise self._refuse(url, f"scheme {scheme!r} not allowed")
        try:
            parts = urlsplit(url)
        except ValueError:
            raise self._refuse(url, "malformed URL") from None
        if parts.netloc not in ("", "localhost"):
            raise self._refuse(url, "remote file host")
        if parts.query:
            raise self._refuse(url, "query string in file URL")
        raw = url2pathname(parts.path)
        if "\x00" in raw:
            raise self._refuse(url, "NUL in path")
        try:
            real = Path(raw).resolve(strict=True)
        except (OSError, RuntimeError):
            raise self._refuse(url, "no such file") from None
        if not real.is_relative_to(self._assets_dir):
            raise self._refuse(url, "outside the assets folder")
        if not real.is_file() or real.suffix.lower() not in _ASSET_SUFFIXES:
            raise self._refuse(url, "not an asset (css, font, png, svg)")
        return real


def safe_url_fetcher(url: str) -> URLFetcherResponse:
    """Fetch ``url`` with a default ``SafeURLFetcher`` (assets only, no allowed files).

    Raises ``ResourceRefused`` for anything else. Pass a ``SafeURLFetcher`` instance, not
    this function, as WeasyPrint's ``url_fetcher``.
    """
    return SafeURLFetcher().fetch(url)


def _short(url: str) -> str:
    return url if len(url) <= _LOGGED_URL_CHARS else url[:_LOGGED_URL_CHARS] + "…"


# --------------------------------------------------------------------------- amounts

_CURRENCIES = {
    # Both are «рубль» in Russian: (1, 2-4, 5+) forms of the unit and of its 1/100.
    "BYN": (("рубль", "рубля", "рублей"), ("копейка", "копейки", "копеек")),
    "RUB": (("рубль", "рубля", "рублей"), ("копейка", "копейки", "копеек")),
}
_CENT = Decimal("0.01")


def _split_amount(amount: Decimal) -> tuple[int, int]:
    """(rubles, kopecks) of a non-negative Decimal with at most 2 decimal places."""
    if type(amount) is not Decimal:
        raise TypeError(f"amount must be a Decimal, not {type(amount).__name__}")
    if not amount.is_finite():
        raise ValueError(f"amount must be finite, got {amount}")
    if amount < 0:
        raise ValueError(f"amount must not be negative, got {amount}")
    try:
        cents = amount.quantize(_CENT)
    except InvalidOperation:
        raise ValueError(f"amount too large: {amount}") from None
    if cents != amount:
        raise ValueError(f"amount has more than 2 decimal places: {amount}")
    total = int(cents * 100)
    return divmod(total, 100)


def _figures(rubles: int, kopecks: int, sep: str) -> str:
    # the pages' money format (webapp.core.formats, Babel's ru pattern), grouped by ``sep``
    return money(Decimal(rubles) + Decimal(kopecks) / 100).replace(NBSP, sep)


def amount_figures(amount: Decimal, *, thousands_sep: str = " ") -> str:
    """``Decimal("2000")`` -> ``"2 000,00"`` (thousands by ``thousands_sep``, comma, 2 places).

    amount: Decimal, >= 0, at most 2 significant decimal places (``1.500`` is fine,
    ``1.505`` is not). Raises TypeError (not a Decimal) or ValueError.
    """
    rubles, kopecks = _split_amount(amount)
    return _figures(rubles, kopecks, thousands_sep)


def amount_in_words(amount: Decimal, currency: str, *, thousands_sep: str = " ") -> str:
    """The amount as the rule books write it (000_90d7c8192601ed3a.txt §4.11).

    ``Decimal("300.00"), "BYN"`` -> ``"300,00 (Триста) рублей 00 копеек"``;
    ``Decimal("2000")`` -> ``"2 000,00 (Две тысячи) рублей 00 копеек"``;
    ``Decimal("1.01")`` -> ``"1,01 (Один) рубль 01 копейка"``.

    amount: Decimal, >= 0, at most 2 significant decimal places; currency: "BYN" | "RUB"
    (both «рубль»); the words spell the rubles only (num2words, lang="ru", fed the integer
    part as an int), first letter capitalised; kopecks as two digits. Plain spaces, unless
    ``thousands_sep`` is given (the PDFs use U+00A0). Raises TypeError / ValueError.
    """
    if not isinstance(currency, str) or currency not in _CURRENCIES:
        raise ValueError(f"currency must be 'BYN' or 'RUB', got {currency!r}")
    rubles, kopecks = _split_amount(amount)
    rub_forms, kop_forms = _CURRENCIES[currency]
    words = num2words(rubles, lang="ru")
    words = words[:1].upper() + words[1:]
    return (
        f"{_figures(rubles, kopecks, thousands_sep)} ({words}) "
        f"{ru_plural(rubles, rub_forms)} {kopecks:02d} {ru_plural(kopecks, kop_forms)}"
    )


# --------------------------------------------------------------------------- context

_SCALARS = (str, int, bool, Decimal, dt.date, dt.datetime, type(None))


def _check_context(value: object, where: str, depth: int = 0) -> None:
    """Raise TypeError unless ``value`` is made of primitives only (exact types)."""
    if depth > _MAX_CONTEXT_DEPTH:
        raise TypeError(f"context too deep at {where}")
    kind = type(value)
    if kind in _SCALARS:
        return
    if kind is dict:
        for key, item in value.items():  # type: ignore[attr-defined]
            if type(key) is not str:
                raise TypeError(f"context key {key!r} at {where} is not a str")
            _check_context(item, f"{where}.{key}", depth + 1)
        return
    if kind in (list, tuple):
        for index, item in enumerate(value):  # type: ignore[arg-type]
            _check_context(item, f"{where}[{index}]", depth + 1)
        return
    raise TypeError(
        f"context value at {where} has type {kind.__module__}.{kind.__qualname__}; "
        "only str, int, bool, None, Decimal, date, datetime, list, tuple, dict are allowed"
    )


# --------------------------------------------------------------------------- jinja

_MONTHS_GENITIVE = (
    "января", "февраля", "марта", "апреля", "мая", "июня",
    "июля", "августа", "сентября", "октября", "ноября", "декабря",
)  # fmt: skip


def _as_date(value: object) -> dt.date:
    if type(value) is dt.datetime:
        return value.date()
    if type(value) is dt.date:
        return value
    if type(value) is str:
        return dt.date.fromisoformat(value)
    raise TypeError(f"not a date: {value!r}")


def _ru_date(value: object) -> str:
    """``"2023-03-04"`` / ``date(2023, 3, 4)`` -> ``"4 марта 2023 г."``."""
    day = _as_date(value)
    return f"{day.day} {_MONTHS_GENITIVE[day.month - 1]} {day.year}{NBSP}г."


def _iso_date(value: object) -> str:
    return _as_date(value).isoformat()


def _excerpt(text: str, limit: int = 300) -> str:
    """First ``limit`` characters of ``text`` (whitespace collapsed) plus «…» if cut."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit].rstrip() + "…"


# WeasyPrint breaks an over-long word with overflow-wrap in time quadratic in the word's
# length (a 100 000-character word took ~4 minutes). Every run of more than
# _LONG_RUN non-space characters gets an invisible break opportunity (U+200B ZERO WIDTH
# SPACE) every _RUN_CHUNK characters: rendering stays linear, nothing changes visually, and
# pypdf's extracted text does not show the U+200B.
ZWSP = "\u200b"
_LONG_RUN = 60
_RUN_CHUNK = 2
_LONG_RUN_RE = re.compile(rf"[^\s\u200b]{{{_LONG_RUN + 1},}}")


def _break_long_runs(text: str) -> str:
    def chop(match: re.Match[str]) -> str:
        run = match.group(0)
        return ZWSP.join(run[i : i + _RUN_CHUNK] for i in range(0, len(run), _RUN_CHUNK))

    return _LONG_RUN_RE.sub(chop, text)


def _finalize(value: object) -> object:
    """Applied by Jinja to every ``{{ expression }}`` before escaping: Russian typesetting
    (:func:`webapp.domain.typography.typeset`: quotation marks, dashes, no-break spaces
    after «№», «д.», one-letter words and before units), break points in long runs."""
    if type(value) is str:  # not Markup: template-made HTML is left alone
        return _break_long_runs(typeset(value))
    return value


def _amount_words_pdf(amount: Decimal, currency: str) -> str:
    return amount_in_words(amount, currency, thousands_sep=NBSP)


def _money_pdf(amount: Decimal, currency: str) -> str:
    """``Decimal("1800"), "BYN"`` → ``"1 800,00 BYN"`` (U+00A0 spaces), as on the pages."""
    amount_figures(amount)  # the same checks: Decimal, ≥ 0, at most 2 places
    return money(amount, currency)


def _authors_line(authors: list[dict]) -> str:
    """«Автор: Иван Сапего, Брест — Минск» / «Авторы: A, Город; B»."""
    parts = [a["name"] if not a.get("city") else f"{a['name']}, {a['city']}" for a in authors]
    if not parts:
        return ""
    return ("Автор: " if len(parts) == 1 else "Авторы: ") + "; ".join(parts)


_KIND_LABELS = {
    "single": "Вопрос",
    "blitz": "Блиц",
    "superblitz": "Суперблиц",
    "sector13": "13 сектор",
}


def _kind_label(kind: str) -> str:
    try:
        return _KIND_LABELS[kind]
    except KeyError:
        raise ValueError(f"unknown sector kind {kind!r}") from None


def _image_parts(value: str | None) -> list[dict]:
    """A text cut at its ``(img name)`` references (``webapp.domain.handouts``):
    ``[{"text": str | None, "image": name | None}]``; the templates print the allowed file
    of each image (``question.images``) in its place, never the reference."""
    return [{"text": p.text, "image": p.image} for p in split_images(value)]


def _make_env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(ASSETS_DIR)),
        autoescape=True,  # forced for every template, whatever the extension
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        auto_reload=False,
        finalize=_finalize,
    )
    env.filters.update(
        ru_date=_ru_date,
        iso_date=_iso_date,
        excerpt=_excerpt,
        amount_words=_amount_words_pdf,
        amount_figures=lambda a: amount_figures(a, thousands_sep=NBSP),
        money=_money_pdf,
        authors_line=_authors_line,
        kind_label=_kind_label,
        image_parts=_image_parts,
        quoted=quoted,
    )
    return env


#: The one Jinja environment of the printed documents (autoescape forced on every template).
TEMPLATE_ENV = _make_env()


def render_html(template: str, context: dict) -> str:
    """Render ``templates/pdf/<template>`` with ``context`` to an HTML string.

    template: a file name in ``templates/pdf/`` not starting with ``_`` (partials).
    context: dict of primitives (see module docstring). Raises TypeError on non-primitive
    values, jinja2.UndefinedError on missing keys, jinja2.TemplateNotFound.
    """
    if type(template) is not str or template.startswith("_") or "/" in template:
        raise jinja2.TemplateNotFound(str(template))
    if type(context) is not dict:
        raise TypeError(f"context must be a dict, not {type(context).__name__}")
    _check_context(context, "context")
    return TEMPLATE_ENV.get_template(template).render(context)


# Without libharfbuzz-subset, WeasyPrint subsets fonts with fontTools, which stamps the
# current time into each embedded font's 'head' table (second resolution): two renders a
# second apart differ. fontTools honours SOURCE_DATE_EPOCH (reproducible builds), so it is
# set to a fixed value around each render unless the process already sets it. The lock
# keeps threads from racing on os.environ.
FONT_EPOCH = "946684800"  # 2000-01-01T00:00:00Z
_RENDER_LOCK = threading.Lock()


@contextmanager
def _fixed_font_timestamps() -> Iterator[None]:
    with _RENDER_LOCK:
        if "SOURCE_DATE_EPOCH" in os.environ:
            yield
            return
        os.environ["SOURCE_DATE_EPOCH"] = FONT_EPOCH
        try:
            yield
        finally:
            os.environ.pop("SOURCE_DATE_EPOCH", None)


def with_frame_room(fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)``, its frames on a frame-stack chunk of their own.

    CPython 3.11 keeps Python frames on per-thread chunks of 16 KiB, each mapped from the
    OS when a call goes past the end of the last one and unmapped as soon as that call
    returns (``Python/pystate.c``: ``push_chunk``, ``_PyThreadState_PopFrame``). WeasyPrint's
    style lookups recurse up and down the box tree thousands of times per render; when a
    chunk's end falls inside that recursion, every crossing costs an ``mmap``, up to 4 page
    faults and a ``munmap``. Where the end falls depends only on how deep the caller's
    stack is: the same render of the envelopes took 1 700 to 5 500 page faults and up to
    10 % more CPU from one caller depth to the next (measured: docs/performance-history.md).
    This frame declares a value stack of ``_FRAME_ROOM_SLOTS`` pointers it never uses (the
    code object's ``co_stacksize``, raised below; the interpreter only reserves the
    slots): its frame gets a 128 KiB chunk of its own and ``fn``'s frames fill the untouched
    rest, whatever the caller's depth. Pages are mapped as they are touched, so the unused
    room costs address space, not memory. Errors: whatever ``fn`` raises.
    """
    return fn(*args)


_FRAME_ROOM_SLOTS = 8192  # 64 KiB of pointers; a render's deepest recursion needs < 32 KiB
with_frame_room.__code__ = with_frame_room.__code__.replace(co_stacksize=_FRAME_ROOM_SLOTS)


def render_pdf(
    template: str,
    context: dict,
    *,
    allowed_files: Mapping[str, Path] | None = None,
) -> bytes:
    """Render ``templates/pdf/<template>`` with ``context`` to PDF bytes.

    template: "envelope.html" | "host_card.html" | "gift_agreement.html";
    context: primitives only, shapes in the module docstring; allowed_files: optional
    ``{name: Path}`` of raster images the template may show as ``sova-file:<name>``.
    Deterministic: the same inputs give the same bytes (PDF /ID is a hash of the content,
    the creation date, if any, comes from the context).
    Raises TypeError, jinja2.UndefinedError, jinja2.TemplateNotFound, ResourceRefused,
    DocumentRenderError.
    """
    copies = context.get("copies") or []
    if len(copies) > 1:
        # each printed copy laid out as a document of its own, then their pages joined: each
        # copy's pages count from 1 to its own total, not on from the copy before
        html: str | tuple[str, ...] = tuple(
            render_html(template, {**context, "copies": [serial], "serial": serial})
            for serial in copies
        )
    else:
        html = render_html(template, context)
    pdf = with_frame_room(html_to_pdf, html, allowed_files)
    log.info(
        "rendered %s: %d bytes, sha256 %s", template, len(pdf), hashlib.sha256(pdf).hexdigest()
    )
    return pdf


def html_to_pdf(
    html: str | tuple[str, ...], allowed_files: Mapping[str, Path] | None = None
) -> bytes:
    """WeasyPrint step of ``render_pdf``: trusted HTML (already escaped) -> PDF bytes.

    For one HTML, the same bytes as ``HTML(string=html, base_url=<assets>,
    url_fetcher=<ours>).write_pdf(pdf_identifier=True)`` with a fresh ``FontConfiguration``
    and ``SOURCE_DATE_EPOCH`` fixed (a test holds this), at less cost: the process's shared
    font configuration (:func:`_font_config`) and each PDF object serialised once
    (:func:`_serialise_once`). For a tuple of HTMLs (the printed copies), each is laid out
    as a document of its own and their pages are written as one PDF (WeasyPrint's
    ``Document.copy``): page counters restart with each.
    """
    fetcher = SafeURLFetcher(allowed_files)
    htmls = (html,) if isinstance(html, str) else html

    def layout(h: str) -> Any:
        return HTML(string=h, base_url=path2url(ASSETS_DIR), url_fetcher=fetcher).render(
            font_config=_font_config(), pdf_identifier=True, custom_metadata=False
        )

    try:
        with _fixed_font_timestamps():
            documents = [_keep_questions_whole(h, layout) for h in htmls]
            document = documents[0].copy([page for d in documents for page in d.pages])
            pdf = document.write_pdf(
                pdf_identifier=True, custom_metadata=False, finisher=_serialise_once
            )
    except FatalURLFetchingError as exc:
        cause = exc.__cause__
        if isinstance(cause, ResourceRefused | DocumentRenderError):
            raise cause from None
        raise DocumentRenderError(str(exc)) from cause
    log.debug("fetched %s", fetcher.fetched)
    return pdf


# A question block of the envelopes and host cards (``<div class="question" id=…>``: its
# number, text, handout, images, answer and author) is never split across sheets. pdf.css
# asks for it (break-inside: avoid) and caps the images' height, which WeasyPrint honours
# whenever the block fits a page; a block taller than its page (a long text with a big
# image) is split all the same. Such a block gets its images scaled down until it fits:
# each round measures how far the block runs over and lowers the max-height of its
# images (a style rule by the block's id) by that much, then lays the document out again.
_PX_PER_MM = 96 / 25.4  # WeasyPrint lays out in CSS pixels
_MIN_IMAGE_PX = 15 * _PX_PER_MM  # an image is never scaled below 15 mm
_FIT_SLACK_PX = 3 * _PX_PER_MM
_FIT_ROUNDS = 6


def _fragments(document: Any, tag: str, cls: str) -> dict[str, list[tuple[int, Any]]]:
    """``{element id: [(page index, box)]}`` of the ``<tag class=cls id=…>`` elements of a
    laid-out document, one box per page (the element's own, not an anonymous one inside)."""
    found: dict[str, list[tuple[int, Any]]] = {}
    for index, page in enumerate(document.pages):
        seen_here: set[str] = set()
        for box in page._page_box.descendants():
            element = box.element
            if element is None or box.element_tag != tag:
                continue
            ident = element.get("id")
            if not ident or cls not in (element.get("class") or "").split():
                continue
            if ident not in seen_here:
                seen_here.add(ident)
                found.setdefault(ident, []).append((index, box))
    return found


def _fit_plan(document: Any) -> dict[str, float | None]:
    """For every question block laid out on more than one page, or (the first of its
    sector) pushed off the sheet of its sector's header (``<h1 class="sector-label"
    id="h-N">``, block ``q-N-1``): ``{block id: new max-height of its images in px}``, or
    ``None`` when its images are as small as allowed already or it has none (a text longer
    than a page cannot be kept whole: it then flows on from its header)."""
    out: dict[str, float | None] = {}
    headers = _fragments(document, "h1", "sector-label")
    for ident, fragments in _fragments(document, "div", "question").items():
        first_page = document.pages[fragments[0][0]]._page_box
        room = first_page.content_box_y() + first_page.height - fragments[0][1].position_y
        header = headers.get("h-" + ident[2:].rsplit("-", 1)[0]) if ident.endswith("-1") else None
        if header and header[0][0] != fragments[0][0]:  # the header left alone on its sheet
            head_page = document.pages[header[0][0]]._page_box
            head_box = header[0][1]
            room = (
                head_page.content_box_y()
                + head_page.height
                - (head_box.position_y + head_box.margin_height())
            )
        elif len(fragments) < 2:
            continue
        total = sum(box.margin_height() for _page, box in fragments)
        images = [
            b.border_height()
            for _page, box in fragments
            for b in box.descendants()
            if b.element_tag == "img"
        ]
        largest = max(images, default=0.0)
        if largest <= _MIN_IMAGE_PX + 0.5:
            out[ident] = None
            continue
        over = total - room + _FIT_SLACK_PX
        out[ident] = max(_MIN_IMAGE_PX, largest - over, largest * 0.5)
    return out


def _keep_questions_whole(html: str, layout: Callable[[str], Any]) -> Any:
    """``layout(html)``, again with smaller images for the question blocks that ran over a
    page (see above), at most ``_FIT_ROUNDS`` times; a block that cannot be fit flows on
    from its header (``break-inside: auto``). Returns the WeasyPrint Document."""
    document = layout(html)
    # each sector (and the props list) starts a sheet: no more sheets than those, no block
    # ran over (the common case, spared the walk over every box)
    sheets = html.count('<section class="sector">') + html.count('<section class="props-page">')
    if len(document.pages) <= sheets:
        return document
    caps: dict[str, float] = {}
    flows: set[str] = set()
    for _round in range(_FIT_ROUNDS):
        changed = False
        for ident, px in _fit_plan(document).items():
            if ident in flows:
                continue
            if px is None or px >= caps.get(ident, float("inf")) - 0.5:
                flows.add(ident)
            else:
                caps[ident] = px
            changed = True
        if not changed:
            break
        rules = "".join(
            f"#{ident} img {{ max-height: {px:.1f}px; }}" for ident, px in sorted(caps.items())
        ) + "".join(f"#{ident} {{ break-inside: auto; }}" for ident in sorted(flows))
        document = layout(html.replace("</head>", f"<style>{rules}</style></head>", 1))
    return document


# WeasyPrint makes a FontConfiguration per render unless given one: fontconfig's
# configuration and a new Pango font map, so every render loads and measures its fonts
# anew (about 10 % of a render of the envelopes). One per process serves every render: the
# templates declare no @font-face (the only state a document could leave in it), the PDFs
# are byte-identical either way (tests/workers/test_documents.py), and the renders are
# serialised by _RENDER_LOCK. Made again in a forked child (Celery's prefork pool): Pango
# and fontconfig objects are not shared across a fork.
# Released at exit (atexit runs before the interpreter tears down the modules): left to the
# interpreter's final clean-up, its Pango font map was freed after the libraries it needs
# and the process ended with a segmentation fault (seen with the render task in an app).
FONT_CONFIG: tuple[int, FontConfiguration] | None = None


def _font_config() -> FontConfiguration:
    """The process's ``FontConfiguration``; call with ``_RENDER_LOCK`` held."""
    global FONT_CONFIG
    if FONT_CONFIG is None or FONT_CONFIG[0] != os.getpid():
        FONT_CONFIG = (os.getpid(), FontConfiguration())
    return FONT_CONFIG[1]


@atexit.register
def _release_font_config() -> None:
    global FONT_CONFIG
    FONT_CONFIG = None
    gc.collect()


class _Serialised(pydyf.Object):
    """A PDF object whose bytes were computed once (see :func:`_serialise_once`)."""

    def __init__(self, obj: pydyf.Object) -> None:
        super().__init__()
        self.number, self.generation, self.free = obj.number, obj.generation, obj.free
        self._data: bytes = obj.data
        self._compressible: bool = obj.compressible

    @property
    def data(self) -> bytes:
        return self._data

    @property
    def compressible(self) -> bool:
        return self._compressible


def _serialise_once(_document: object, pdf: pydyf.PDF) -> None:
    """WeasyPrint finisher: serialise every object of ``pdf`` once, before it is written.

    With ``pdf_identifier=True`` pydyf writes each object, then serialises all of them a
    second time (every stream deflated again at level 9) to take the MD5 of the content
    for the /ID. Replacing each object by its bytes makes that second pass a join of the
    same bytes: same PDF, same /ID, one serialisation. Nothing is written between the
    finisher and ``pdf.write`` (the /Info dictionary, added by ``write``, is left as is).
    """
    pdf.objects[:] = [obj if obj.free == "f" else _Serialised(obj) for obj in pdf.objects]
