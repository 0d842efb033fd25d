"""The producer's forms of a game's broadcast tokens (on the game page)."""

from __future__ import annotations

from wtforms import StringField
from wtforms.validators import Length, Optional

from webapp.core.fields import SovaForm
from webapp.onair.operations import LABEL_MAX


class TokenForm(SovaForm):
    """A new broadcast token: ``label``, the producer's name for it (optional)."""

    label = StringField(
        "Для кого ключ (например, «аппаратная, титры»)",
        validators=[Optional(), Length(max=LABEL_MAX, message=f"Не длиннее {LABEL_MAX} символов.")],
    )


class RevokeForm(SovaForm):
    """Revoke one broadcast token (the token is in the URL; the form carries the CSRF token)."""
