"""Drive a whole season through the API: teams, the producer's events, and every game
played for real on the console path (``POST /api/v1/games/{id}/events``) and closed
(``POST /api/v1/games/{id}/close``), whose closing adds the result to the season."""

from __future__ import annotations

from datetime import date, timedelta

from tests.webapp.games import helpers as h

#: Table of every game: blitz in 11, superblitz in 12, sector 13 in 13 (2009 §1.3: the 13th
#: sector holds the Internet questions; §1.4.2–1.4.3: blitz and superblitz among the others).
TABLE = {"blitz": 11, "superblitz": 12, "sector13": 13}
MULTI = (11, 12)

#: The season pages' spring series: five teams, and the producer's event that opens it.
SPRING = ["Орлова", "Буян", "Стишенок", "Потапова", "Королёва"]
OPEN = {"type": "series", "part": "spring", "qualifying": 5, "closing": "series_final"}


def experts_of(team: str) -> list[str]:
    return [f"{team} {k}" for k in range(1, 7)]


def game_events(score: str, decisive: bool = False) -> list[dict]:
    """Console events of a game that ends ``score`` (experts:viewers): rounds on sectors 1, 2,
    3… (sector 11 is a blitz: three right answers win it, one wrong loses it); the loser's
    points first, the winner's last. ``decisive``: at 5:3 the team asks for the decisive round
    (2023 §3.6), whose one round ends the game 6:0 or 0:6."""
    experts, viewers = (int(x) for x in score.split(":"))
    if decisive:
        points = ["V"] * 3 + ["E"] * 5
    elif experts > viewers:  # the winner's points last (6, or an amended target)
        points = ["V"] * viewers + ["E"] * experts
    else:
        points = ["E"] * experts + ["V"] * viewers
    events: list[dict] = []
    sector = 0

    def round_(side: str) -> None:
        nonlocal sector
        sector += 1
        events.append({"type": "spin", "sector": sector})
        if side == "E":
            events.extend(
                {"type": "answer", "correct": True} for _ in range(3 if sector in MULTI else 1)
            )
        else:
            events.append({"type": "answer", "correct": False})

    for side in points:
        round_(side)
    if decisive:
        events.append({"type": "decisive_round"})
        round_("E" if experts == 6 else "V")
    return events


class SeasonRun:
    """One season through the API (``api``: the conftest fixture)."""

    def __init__(self, api, ruleset: str, name: str, prize: str):
        self.api = api
        self.ruleset = ruleset
        r = api(
            "post",
            "/api/v1/seasons",
            role="producer",
            json={"name": name, "ruleset": ruleset, "unanswered_prize": prize},
        )
        assert r.status_code == 201, r.json
        self.id = r.json["id"]
        self.team_ids: dict[str, int] = {}
        self.games: list[tuple[int, dict]] = []  # (game id, season event)
        self.day = date(int(name[-4:]), 1, 10)

    def new_team(self, name: str) -> int:
        r = self.api(
            "post",
            "/api/v1/teams",
            role="producer",
            json={"name": name, "captain": experts_of(name)[0], "experts": experts_of(name)},
        )
        assert r.status_code == 201, r.json
        self.team_ids[name] = r.json["team_id"]
        return r.json["team_id"]

    def add_teams(self, names: list[str]) -> None:
        for name in names:
            r = self.api(
                "post",
                f"/api/v1/seasons/{self.id}/teams",
                role="producer",
                json={"team_id": self.new_team(name)},
            )
            assert r.status_code == 201, r.json

    def event(self, event: dict):
        return self.api("post", f"/api/v1/seasons/{self.id}/events", role="producer", json=event)

    def state(self) -> dict:
        r = self.api("get", f"/api/v1/seasons/{self.id}", role="host")
        assert r.status_code == 200
        return r.json

    def create_game(self, kind: str, team: str):
        self.day += timedelta(days=7)
        return self.api(
            "post",
            "/api/v1/games",
            role="producer",
            json={
                "season_id": self.id,
                "kind": kind,
                "date": self.day.isoformat(),
                "air_at": f"{self.day.isoformat()}T00:00:00",  # given: public once closed
                "team_id": self.team_ids[team],
                "table": TABLE,
            },
        )

    def play(self, event: dict) -> int:
        """Create, fill, play and close the game of the season ``game`` event ``event``;
        returns the game id."""
        kind = "qualifying" if event["kind"] == "rematch" else event["kind"]
        r = self.create_game(kind, event["team"])
        assert r.status_code == 201, (event, r.json)
        gid = r.json["id"]
        h.approved_questions_more(17)
        r = self.api("post", f"/api/v1/games/{gid}/assign", role="producer")
        assert r.status_code == 200, r.json
        state = None
        for ev in game_events(event["score"], event.get("decisive_round", False)):
            r = self.api("post", f"/api/v1/games/{gid}/events", role="host", json=ev)
            assert r.status_code == 201, (event, ev, r.json)
            state = r.json["state"]
        assert state["finished"] and state["score"] == event["score"]
        r = self.api("post", f"/api/v1/games/{gid}/close", role="producer")
        assert r.status_code == 200, (event, r.json)
        self.games.append((gid, event))
        return gid

    def run(self, events: list[dict]) -> None:
        for event in events:
            if event["type"] == "game":
                self.play(event)
            else:
                if event["type"] == "enter":
                    self.new_team(event["team"])
                r = self.event(event)
                assert r.status_code == 201, (event, r.json)
