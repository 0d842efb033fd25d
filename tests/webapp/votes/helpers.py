"""The audience vote opened and closed through the API, as the host does it; the SMS
gateway's callback as the gateway sends it (the shared secret, the body's HMAC signature, the
JSON body); the 2009 experts' team; a rendered document's PDF read back as one line of text."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pypdf

SECRET = "gateway-secret-for-tests"
EXPERTS = [
    "Александр Друзь",
    "Инна Друзь",
    "Ровшан Аскеров",
    "Алёна Повышева",
    "Максим Поташёв",
    "Елизавета Овдеенко",
]


def sign(body: bytes, secret: str = SECRET) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def sms_body(message_id: str, msisdn: str, text: str, received_at: datetime | None = None):
    return json.dumps(
        {
            "message_id": message_id,
            "msisdn": msisdn,
            "text": text,
            "received_at": (received_at or datetime.now(UTC)).isoformat(),
        },
        ensure_ascii=False,
    ).encode()


def open_vote(api, game_id, candidates=None, role="host"):
    body = {"action": "open"}
    if candidates is not None:
        body["candidates"] = candidates
    return api("post", f"/api/v1/games/{game_id}/vote", role=role, json=body)


def close_vote(api, game_id, role="host"):
    return api("post", f"/api/v1/games/{game_id}/vote", role=role, json={"action": "close"})


def pdf_text(app, doc_id: int) -> str:
    from webapp.core.models import Document
    from webapp.extensions import db

    doc = db.session.get(Document, doc_id)
    assert doc.status == "ready", (doc.status, doc.error)
    data = (Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).read_bytes()
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)
    # long runs (the SHA-256) carry invisible U+200B break points (workers/documents.py)
    return " ".join(text.replace("\u200b", "").replace("\u00a0", " ").split())
