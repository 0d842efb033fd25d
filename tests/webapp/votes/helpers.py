"""The audience vote opened and closed through the API, as the host does it."""

from __future__ import annotations


def open_vote(api, game_id, candidates=None, role="host"):
    body = {"action": "open"}
    if candidates is not None:
        body["candidates"] = candidates
    return api("post", f"/api/v1/games/{game_id}/vote", role=role, json=body)


def close_vote(api, game_id, role="host"):
    return api("post", f"/api/v1/games/{game_id}/vote", role=role, json={"action": "close"})
