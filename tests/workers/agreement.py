"""A gift agreement's rendering context as the worker builds it (a 2023 question prize of
300,00 BYN for sector 7 of a spring series game), for the tests that render one."""

from __future__ import annotations

from decimal import Decimal

#: The clause a question prize's agreement cites.
RULE = "000_90d7c8192601ed3a.txt §4.11.1"


def agreement_context() -> dict:
    return {
        "number": "2023-0001",
        "date": "2023-03-10",
        "donor": {
            "name": "ЗАО «Второй национальный телеканал»",
            "city": "Минск",
            "place": "г.\u00a0Минск",
            "details": "Адрес: 220029, г. Минск, ул. Коммунистическая, 6\nУНП: 100000000\n"
            "р/с BY00 AAAA 0000 0000 0000 0000 0000 в ОАО «Банк», БИК AAAABY2X",
            "representative": "генерального директора Петрова П. П., действующего на "
            "основании Устава",
        },
        "author": {
            "name": "Иван Сапего",
            "city": "Брест — Минск",
            "address": None,
            "gender": "masc",
        },
        "question": {"text": "Внимание, в вопросе есть замены. Что это?", "place": "сектор 7"},
        "award": None,
        "game": {"title": "Весенняя серия, игра 2", "date": "2023-03-04", "season": "Сезон 2023"},
        "amount": Decimal("300.00"),
        "currency": "BYN",
        "rule": RULE,
        "version": 1,
    }
