"""The host names an author on air only with consent: envelopes and host cards
print the name and city for ``consent_on_air`` or a letter / partner question, and a note for
the host otherwise (pypdf text of the real PDFs)."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf
import pytest
from flask import current_app

from tests.webapp.games import helpers as h
from webapp.core.models import Document
from webapp.extensions import db
from webapp.games.operations import assign_envelopes, lock_table, request_envelopes
from webapp.games.queries import envelope_context, no_consent_note
from webapp.submissions.models import Author, QuestionAuthor

NOTE_ONE = "Имя автора в эфире не называть: нет согласия автора."  # gender unknown
NOTE_MANY = "Имена авторов в эфире не называть: нет их согласия."


@pytest.fixture
def game(app):
    """A locked 2023 table of 13 single sectors; sector 1: a web question without consent,
    sector 2: with consent, sector 3: a paper letter, sector 4: an API question of two
    authors (no consent field in the API)."""
    h.approved_questions(13)
    g = h.game(
        h.season(), table={"blitz": None, "superblitz": None, "sector13": None}, status="draft"
    )
    assign_envelopes(g)
    envs = {e.sector: e.questions[0].question for e in g.envelopes}
    envs[1].consent_on_air = False
    envs[2].consent_on_air = True
    envs[3].channel = "mail"
    envs[4].channel = "api"
    envs[4].authors.append(
        QuestionAuthor(author=Author(name="Второй Автор", city="Пинск"), position=1)
    )
    for sector in range(5, 14):
        envs[sector].consent_on_air = True
    lock_table(g, None)
    h.commit()
    return g, envs


def _line(q) -> str:
    a = q.author_list[0]
    return f"Автор: {a.name}, {a.city}"


def test_context_leaves_out_the_names_without_consent(game):
    g, qs = game
    ctx = envelope_context(g, with_answers=False, serial="x")
    by_sector = {s["sector"]: s["questions"][0] for s in ctx["sectors"]}
    assert (by_sector[1]["authors"], by_sector[1]["authors_note"]) == ([], NOTE_ONE)
    assert by_sector[2]["authors"] == [
        {"name": qs[2].author_list[0].name, "city": qs[2].author_list[0].city}
    ]
    assert "authors_note" not in by_sector[2]
    assert by_sector[3]["authors"] == [
        {"name": qs[3].author_list[0].name, "city": qs[3].author_list[0].city}
    ]
    assert (by_sector[4]["authors"], by_sector[4]["authors_note"]) == ([], NOTE_MANY)


def test_envelopes_and_host_cards_print_the_note_not_the_name(game, drain):
    g, qs = game
    docs = request_envelopes(g, copies=1)
    h.commit()
    drain()
    db.session.expire_all()
    base = Path(current_app.config["SOVA_DOCUMENTS_PATH"])
    for d in docs:
        d = db.session.get(Document, d.id)
        assert d.status == "ready", d.error
        reader = pypdf.PdfReader(io.BytesIO((base / d.path).read_bytes()))
        pages = [" ".join(p.extract_text().split()) for p in reader.pages]
        if d.kind == "host_cards":  # no props needed: no props page before the sectors
            assert not any("Реквизит" in p for p in pages)
        assert len(pages) == 13
        no_consent = qs[1].author_list[0]
        assert NOTE_ONE in pages[0]
        assert no_consent.name not in pages[0] and no_consent.city not in pages[0]
        assert "Автор:" not in pages[0]
        assert _line(qs[2]) in pages[1] and NOTE_ONE not in pages[1]
        assert _line(qs[3]) in pages[2]
        assert NOTE_MANY in pages[3]
        assert "Второй Автор" not in pages[3] and "Пинск" not in pages[3]
        assert sum(NOTE_ONE in p for p in pages) == 1
        assert sum(NOTE_MANY in p for p in pages) == 1


def test_the_note_agrees_with_the_author_gender(game):
    """«нет её согласия» for a woman, «нет его согласия» for a man, neutral
    wording when the name does not tell (pymorphy3 reads the given name)."""
    g, qs = game
    qs[1].authors[0].name = "Анна Лысенко"  # the name as given on this question
    h.commit()
    ctx = envelope_context(g, with_answers=False, serial="x")
    note = {s["sector"]: s["questions"][0].get("authors_note") for s in ctx["sectors"]}[1]
    assert note == "Имя автора в эфире не называть: нет её согласия."
    assert no_consent_note(["Иван Сапего"]) == "Имя автора в эфире не называть: нет его согласия."
    assert no_consent_note(["Женя Пак"]) == NOTE_ONE
    assert no_consent_note(["Анна Лысенко", "Иван Сапего"]) == NOTE_MANY
