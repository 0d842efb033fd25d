"""The 2009 rule book (``002_e025d5ded135c1c4.txt``, the Russian edition) as one
:class:`~webapp.domain.books.base.Book`: its game (:mod:`.rules`), its season (:mod:`.season`),
its prizes, donor, languages and names."""

from __future__ import annotations

from types import MappingProxyType

from webapp.domain.donor import Donor

from ..base import Book
from .prizes import AWARDS
from .rules import RULESET_2009
from .season import Book2009

NEUTRAL_DONOR = Donor(name="Генеральный спонсор сезона", city="Москва")
"""The donor before the producer names one (§3.1–§3.3: the prizes come «от Генерального
спонсора»). The book names no legal entity and the 2023 broadcaster, a Belarusian company, is
not the Russian edition's donor: a neutral placeholder the season page flags, never the
broadcaster."""

BOOK = Book(
    name="2009",
    file=RULESET_2009.file,
    rules=RULESET_2009,
    season=Book2009,
    # neither book names a language: the Russian edition's games are in Russian
    game_languages=("ru",),
    donor_rule=f"{RULESET_2009.file} §3.1",
    default_donor=NEUTRAL_DONOR,
    unanswered_rule=f"{RULESET_2009.file} §1.2.2",
    unanswered_prize=None,
    awards=MappingProxyType(AWARDS),
    names=MappingProxyType(
        {
            "ru": "Правил сезона 2009 г.",
            "be": "Правілаў сезона 2009 г.",
            "en": "of the 2009 season rules",
        }
    ),
    title_ru="Правил игры «Что? Где? Когда?» 2009 года",
)
