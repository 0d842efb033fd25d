"""Making and revoking a game's broadcast tokens (they only flush; the edge commits)."""

from __future__ import annotations

import secrets

from webapp.accounts.models import token_digest
from webapp.core.errors import OperationError
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.games.models import Game
from webapp.onair.models import BroadcastToken

#: The longest label a producer may give a token.
LABEL_MAX = 100


class TokenRefused(OperationError):
    """A broadcast token cannot be made or revoked (409: a closed game, a token of another
    game; 422: a bad label)."""


def create_token(game: Game, label: str | None, user_id: int | None) -> tuple[BroadcastToken, str]:
    """A new read-only broadcast token of ``game``; returns the row and the secret, which is
    shown once (only its SHA-256 is kept). ``label``: the producer's name for it (≤ 100
    characters, stripped). Refused (409) for a closed game: its feed is closed."""
    label = (label or "").strip()
    if len(label) > LABEL_MAX:
        raise TokenRefused(
            f"Название ключа — не длиннее {LABEL_MAX} символов.",
            errors={"label": [f"Не длиннее {LABEL_MAX} символов."]},
        )
    if game.status == "closed":
        raise TokenRefused(
            f"Игра {game.id} закрыта: её эфирная графика закрыта, ключ не нужен.", status=409
        )
    secret = secrets.token_urlsafe(32)
    token = BroadcastToken(
        game_id=game.id, label=label, token_hash=token_digest(secret), created_by_id=user_id
    )
    db.session.add(token)
    db.session.flush()
    return token, secret


def revoke_token(game: Game, token_id: int, user_id: int | None) -> BroadcastToken:
    """Revoke the broadcast token ``token_id`` of ``game``: every read with it fails from the
    commit on. Revoking a revoked token changes nothing. Refused (409) for an id that is not
    this game's token."""
    token = db.session.get(BroadcastToken, token_id)
    if token is None or token.game_id != game.id:
        raise TokenRefused(f"У игры {game.id} нет ключа эфира № {token_id}.", status=409)
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        token.revoked_by_id = user_id
        db.session.flush()
    return token
