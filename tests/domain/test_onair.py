"""The on-air row (webapp.domain.onair): derived from the replay and the events, with the
discussion time of each kind of question, and nothing of a question the viewers must not
see yet."""

from __future__ import annotations

from webapp.domain.books import BOOKS
from webapp.domain.onair import Asked, GameCard, discussion_seconds, onair_row
from webapp.domain.rules import replay

TABLE = {"blitz": 4, "superblitz": None, "sector13": 13}
CARD = GameCard(
    status="live",
    game="Игра 01.03.2023",
    season="Сезон 2023",
    language="be",
    team="Команда Анны",
    captain="Анна",
    prize="300.00 BYN",
    zone="Europe/Minsk",
)
# sector 4 is the blitz: three questions by three authors; sector 2 has no consent
QUESTIONS = {
    (2, 1): Asked(("Тайный Автор",), ("Гродно",), named=False),
    (3, 1): Asked(("Автор 3", "Соавтор 3"), ("Минск", "Минск"), named=True),
    (4, 1): Asked(("Автор Блица 1",), ("Брест",), named=True),
    (4, 2): Asked(("Автор Блица 2",), ("Пинск",), named=True),
    (4, 3): Asked(("Автор Блица 3",), ("",), named=True),
}


def _row(events, status="live"):
    state = replay(BOOKS["2023"], TABLE, None, events)
    card = GameCard(**{**CARD.__dict__, "status": status})
    return onair_row(card, state, events, QUESTIONS, revision=len(events))


def test_before_the_first_spin_the_row_is_the_envelope_only():
    row = _row([], status="ready")
    assert row == {
        "revision": 0,
        "status": "waiting",
        "game": "Игра 01.03.2023",
        "season": "Сезон 2023",
        "language": "be",
        "team": "Команда Анны",
        "captain": "Анна",
        "score_experts": 0,
        "score_viewers": 0,
        "round": 0,
        "sector_spun": 0,
        "sector": 0,
        "sector_kind": "",
        "author": "",
        "city": "",
        "prize": "",
        "expert": "",
        "result": "",
        "minute_running": False,
        "minute_ends_at": "",
    }


def test_a_round_with_its_minute_its_expert_and_its_result():
    events = [
        {"type": "spin", "sector": 3},
        {"type": "minute", "action": "start", "at": "2023-03-01T17:00:00+00:00"},
    ]
    row = _row(events)
    assert {k: row[k] for k in ("round", "sector_spun", "sector", "sector_kind")} == {
        "round": 1,
        "sector_spun": 3,
        "sector": 3,
        "sector_kind": "regular",
    }
    assert (row["author"], row["city"], row["prize"]) == (
        "Автор 3, Соавтор 3",
        "Минск",
        "300.00 BYN",
    )
    # one minute (2023 §3.2), written in the season's zone
    assert (row["minute_running"], row["minute_ends_at"]) == (True, "2023-03-01T20:01:00+03:00")
    events.append({"type": "answer", "correct": True, "expert": "Борис"})
    row = _row(events)
    assert (row["score_experts"], row["expert"], row["result"]) == (1, "Борис", "experts")
    assert (row["minute_running"], row["minute_ends_at"]) == (False, "")


def test_a_stop_tap_ends_the_countdown():
    events = [
        {"type": "spin", "sector": 3},
        {"type": "minute", "action": "start", "at": "2023-03-01T17:00:00+00:00"},
        {"type": "minute", "action": "stop", "at": "2023-03-01T17:00:30+00:00"},
    ]
    assert _row(events)["minute_running"] is False


def test_an_author_without_consent_is_never_named():
    """2023 §4.11 as the archive reads consent: no consent, no name, no city."""
    row = _row([{"type": "spin", "sector": 2}])
    assert (row["sector"], row["author"], row["city"]) == (2, "", "")
    assert row["prize"] == "300.00 BYN"


def test_the_blitz_names_only_the_question_being_asked():
    """A blitz question's author appears when that question is asked, never before; each
    question has 20 seconds (2023 §3.4.1)."""
    events = [{"type": "spin", "sector": 4}]
    row = _row(events)
    assert (row["sector_kind"], row["author"], row["city"]) == ("blitz", "Автор Блица 1", "Брест")
    assert "Автор Блица 2" not in repr(row) and "Автор Блица 3" not in repr(row)
    events += [
        {"type": "answer", "correct": True, "early": True},
        {"type": "minute", "action": "start", "at": "2023-03-01T17:05:00+00:00"},
    ]
    row = _row(events)
    assert (row["author"], row["result"]) == ("Автор Блица 2", "")
    assert "Автор Блица 3" not in repr(row)
    assert row["minute_ends_at"] == "2023-03-01T20:05:20+03:00"
    events.append({"type": "answer", "correct": False})
    row = _row(events)
    # lost at its first wrong answer: the round's result names the question just asked
    assert (row["author"], row["result"], row["score_viewers"]) == ("Автор Блица 2", "viewers", 1)


def test_a_red_card_gives_the_round_to_the_viewers():
    events = [{"type": "spin", "sector": 3}, {"type": "red_card", "expert": "Глеб"}]
    row = _row(events)
    assert (row["result"], row["score_viewers"], row["expert"]) == ("viewers", 1, "")


def test_the_arrow_and_the_sector_played_differ_when_the_sector_was_played():
    """2023 §3.4: a played sector passes the question to the next one clockwise."""
    events = [
        {"type": "spin", "sector": 3},
        {"type": "answer", "correct": True},
        {"type": "spin", "sector": 3},
    ]
    row = _row(events)
    assert (row["round"], row["sector_spun"], row["sector"]) == (2, 3, 4)


def test_discussion_times_by_the_rule_books():
    assert discussion_seconds("single", None, None) == 60  # 2023 §3.2, 2009 §1.2
    assert discussion_seconds("blitz", None, None) == 20  # 2023 §3.4.1, 2009 §1.4.3
    assert discussion_seconds("superblitz", None, None) == 20  # 2023 §3.4.2, 2009 §1.4.2
    assert [discussion_seconds("sector13", o, None) for o in ("six", "three", "one")] == [
        10,
        20,
        60,
    ]  # 2023 §3.4.3
    assert discussion_seconds("single", None, "club_help") == 20  # 2023 §3.7.1, 2009 §1.7
    assert discussion_seconds("single", None, "extra_minute") == 60  # 2023 §3.5
