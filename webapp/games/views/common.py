"""The games blueprint and what its pages share: the documents' labels and roles, load-or-404,
the JSON-or-HTML choice."""

from __future__ import annotations

from flask import Blueprint, request

from webapp.core.access import current_staff
from webapp.extensions import db
from webapp.games import publication as _publication  # noqa: F401  (connects the embargo)
from webapp.games import queries
from webapp.games.models import Game

bp = Blueprint("games", __name__, url_prefix="/games")


#: The game page's names of its documents (``Document.kind``).
DOCUMENT_LABELS = {
    "envelopes": "Конверты",
    "host_cards": "Карточки ведущего",
    "sector13_card": "Карточка ведущего: 13 сектор (жеребьёвка)",
    "gift_agreement": "Договор дарения",
    "vote_result": "Итог зрительского голосования за лучшего игрока (для спонсора)",
    # a prize's documents, listed for the admin (the prize page names them the same way)
    "commission_minutes": "Протокол комиссии по денежным выигрышам",
    "signed_scan": "Скан подписанного договора",
}


#: What the download link says: a signed scan is the accountant's upload (PDF or an image).
DOWNLOAD_TEXT = {"signed_scan": "скачать скан"}


def download_text(kind: str) -> str:
    """The game page's link text for a ready document of ``kind`` («скачать PDF»)."""
    return DOWNLOAD_TEXT.get(kind, "скачать PDF")


# Which roles may download which kind of document (deny anything else).
DOCUMENT_ROLES = {
    "envelopes": {"producer", "host", "admin"},
    "host_cards": {"producer", "host", "admin"},
    "sector13_card": {"producer", "host", "admin"},
    "gift_agreement": {"accountant", "admin"},
    # the signed result of the 2009 §3.1 audience vote (for the sponsor; webapp.votes)
    "vote_result": {"producer", "host", "admin"},
}


def downloadable_documents(game_id: int) -> list:
    """The game's documents (``queries.documents``) of the kinds the current staff role may
    download (``DOCUMENT_ROLES``): what the game page and its live status list."""
    role = current_staff().role
    return [d for d in queries.documents(game_id) if role in DOCUMENT_ROLES.get(d.kind, {"admin"})]


def game_or_404(game_id: int) -> Game:
    """The game or 404 (ids beyond the column's range never get here:
    ``webapp.security.ids_in_range``)."""
    return db.get_or_404(Game, game_id)


def wants_json() -> bool:
    """The console's script asks for JSON (``Accept: application/json``); forms get HTML."""
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" and "text/html" not in request.accept_mimetypes.values()
