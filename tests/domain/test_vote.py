"""The pure rules of the 2009 §3.1 audience vote (webapp.domain.vote)."""

import random
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from webapp.domain.vote import (
    VoteRuleError,
    award_choice,
    best_player_award,
    candidate_names,
    classify,
    e164,
    fold,
    gateway_order,
    log_digest,
    log_line,
    match_candidate,
    normalise_msisdn,
    region_of,
    tally,
    winner,
)

C = ["Александр Друзь", "Инна Друзь", "Ровшан Аскеров", "Алёна Повышева"]


def test_fold_case_spaces_and_yo():
    assert fold("Ровшан  АСКЕРОВ") == fold("ровшанаскеров") == "ровшанаскеров"
    assert fold("Алёна Повышева") == fold("алена повышева")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("3", 3),
        (" 3. ", 3),
        ("№4", 4),
        ("#1", 1),
        ("0", None),
        ("5", None),
        ("12", None),
        ("Ровшан Аскеров", 3),
        ("  ровшан   аскёров ", 3),
        ("АСКЕРОВ", 3),
        ("Ровшан", 3),
        ("Алена", 4),
        ("повышёва", 4),
        ("Друзь", None),  # fits two candidates: ambiguous, invalid
        ("Инна Друзь", 2),
        ("александр", 1),
        ("", None),
        ("   ", None),
        ("Вассерман", None),
        ("3 Аскеров", None),
    ],
)
def test_match_candidate(text, expected):
    assert match_candidate(text, C) == expected


def test_candidate_names_numbered_in_order_and_distinct():
    assert candidate_names([" Анна  Петрова ", "", "Борис"]) == ["Анна Петрова", "Борис"]
    with pytest.raises(VoteRuleError):
        candidate_names(["Анна", "АННА"])
    with pytest.raises(VoteRuleError):
        candidate_names(["", "  "])


def test_classify_order_of_rules():
    assert classify(is_open=False, before_open=False, candidate=1, already_counted=False) == "late"
    assert classify(is_open=True, before_open=True, candidate=1, already_counted=False) == "late"
    assert (
        classify(is_open=True, before_open=False, candidate=None, already_counted=True) == "invalid"
    )
    assert classify(is_open=True, before_open=False, candidate=2, already_counted=True) == "repeat"
    assert (
        classify(is_open=True, before_open=False, candidate=2, already_counted=False) == "counted"
    )


T0 = datetime(2009, 3, 1, 20, 0, tzinfo=UTC)


def m(mid, msisdn, text, minutes=1, received=None):
    at = T0 + timedelta(minutes=minutes)
    return {
        "message_id": mid,
        "msisdn": msisdn,
        "text": text,
        "arrived_at": at,
        "received_at": received or at,
    }


def test_tally_every_rule_exact():
    msgs = [
        m("a1", "A", "3"),  # counted for 3
        m("a2", "A", "1"),  # repeat
        m("a1", "A", "1"),  # resent: ignored
        m("b1", "B", "Друзь"),  # invalid (two Друзь)
        m("b2", "B", "инна друзь"),  # counted for 2: invalid did not use the vote
        m("c1", "C", "9"),  # invalid (no candidate 9)
        m("d1", "D", "1", minutes=-1),  # arrived before opening: late
        m("e1", "E", "1", received=T0 - timedelta(seconds=1)),  # sent before opening: late
        m("f1", "F", "1", minutes=11),  # after closing: late
        m("g1", "G", "Аскёров"),  # counted for 3
    ]
    t = tally(C, msgs, opened_at=T0, closed_at=T0 + timedelta(minutes=10))
    assert t.votes == {3: 2, 2: 1}
    assert (t.counted, t.repeats, t.invalid, t.late) == (3, 1, 2, 3)
    assert t.answers == {
        "a1": "counted",
        "a2": "repeat",
        "b1": "invalid",
        "b2": "counted",
        "c1": "invalid",
        "d1": "late",
        "e1": "late",
        "f1": "late",
        "g1": "counted",
    }
    assert t.as_json()["candidates"][2] == {"n": 3, "name": "Ровшан Аскеров", "votes": 2}
    assert winner(t.votes) == 3


def test_winner_tie_and_empty():
    assert winner({}) is None
    assert winner({1: 5, 2: 5}) is None
    assert winner({1: 5, 2: 4}) == 1


def test_award_choice_winner_or_representative_with_reason():
    assert award_choice(C, 3, "ровшан аскёров", "") == ("Ровшан Аскеров", False)
    with pytest.raises(VoteRuleError, match="основание"):
        award_choice(C, 3, "Инна Друзь", "  ")
    assert award_choice(C, 3, "Инна Друзь", "решение спонсора") == ("Инна Друзь", True)
    with pytest.raises(VoteRuleError, match="основание"):
        award_choice(C, None, "Инна Друзь", "")  # a tie: the representative decides
    with pytest.raises(VoteRuleError, match="не среди кандидатов"):
        award_choice(C, 3, "Вассерман", "x")


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("+7 (916) 123-45-67", "79161234567"),
        ("8 916 123 45 67", "79161234567"),
        ("79161234567", "79161234567"),
        ("+375 29 1234567", "375291234567"),
        ("12", None),
        ("", None),
        ("1234567890123456", None),
    ],
)
def test_normalise_msisdn(raw, expected):
    assert normalise_msisdn(raw) == expected


def test_log_digest_is_sha256_of_lines():
    import hashlib

    line = log_line(1, "a1", "h", "Друзь", None, "2009-03-01T20:00:00+00:00", "invalid", None)
    assert line == (
        '{"arrived_at":"2009-03-01T20:00:00+00:00","candidate":null,'
        '"message_id":"a1","msisdn":"h","received_at":null,"result":"invalid",'
        '"seq":1,"text":"Друзь"}'
    )
    assert log_digest([line]) == hashlib.sha256((line + "\n").encode()).hexdigest()
    assert log_digest([]) == hashlib.sha256(b"").hexdigest()


def test_best_player_award_after_a_closed_vote_is_the_vote_s_choice():
    assert best_player_award("closed", C, 3, "ровшан аскёров", "") == ("Ровшан Аскеров", False)
    assert best_player_award("closed", C, 3, "Инна Друзь", "травма") == ("Инна Друзь", True)
    with pytest.raises(VoteRuleError) as exc:
        best_player_award("closed", C, 3, "Инна Друзь", "  ")
    assert exc.value.message == (
        "лучшего игрока не по итогам голосования определяет представитель "
        "Генерального спонсора: укажите основание"
    )
    assert exc.value.rule == "002_e025d5ded135c1c4.txt §3.1"
    with pytest.raises(VoteRuleError) as exc:
        best_player_award("closed", C, 3, "Вассерман", "причина")
    assert exc.value.message == "«Вассерман» не среди кандидатов голосования"


def test_best_player_award_refused_while_the_vote_is_open():
    with pytest.raises(VoteRuleError) as exc:
        best_player_award("open", C, None, "Ровшан Аскеров", "причина")
    assert exc.value.message == (
        "идёт зрительское голосование: лучшего игрока определяют его итоги — "
        "сначала закройте голосование"
    )


def test_best_player_award_without_a_vote_needs_the_representative_s_reason():
    assert best_player_award(None, [], None, " Ровшан  Аскеров ", "решение спонсора") == (
        "Ровшан Аскеров",
        True,
    )
    with pytest.raises(VoteRuleError) as exc:
        best_player_award(None, [], None, "Ровшан Аскеров", "")
    assert exc.value.message == (
        "зрительского голосования по этой игре не было: лучшего игрока определяет "
        "представитель Генерального спонсора — укажите основание"
    )
    with pytest.raises(VoteRuleError) as exc:
        best_player_award(None, [], None, "  ", "причина")
    assert exc.value.message == "не указан лучший игрок"


# --- E.164 and the gateway's order --------------------------------------------------------


@pytest.mark.parametrize(
    "spelling",
    ["+7 916 111-22-33", "89161112233", "9161112233", "007 916 111 22 33", "8 10 7 916 111 22 33"],
)
def test_e164_one_russian_voter_whatever_the_spelling(spelling):
    assert e164(spelling, "RU") == "+79161112233"
    assert normalise_msisdn(spelling, "RU") == "79161112233"


@pytest.mark.parametrize(
    "spelling", ["+375 29 123-45-67", "80291234567", "291234567", "00375291234567"]
)
def test_e164_belarusian_numbers_in_a_belarusian_season(spelling):
    assert e164(spelling, "BY") == "+375291234567"


def test_e164_region_is_the_season_s_country():
    assert (region_of("RUB"), region_of("BYN"), region_of(None)) == ("RU", "BY", "RU")
    # a national number means another subscriber in each country
    assert e164("80291234567", "BY") == "+375291234567"
    assert e164("80291234567", "RU") != "+375291234567"
    # a gateway's MSISDN (international, without +) is read as such in either country
    assert e164("79161112233", "BY") == "+79161112233"
    assert e164("375291234567", "RU") == "+375291234567"


@pytest.mark.parametrize("raw", ["", "not a phone", "12", "+7916", "1234567890123456", "9" * 80])
def test_e164_no_phone_number(raw):
    assert e164(raw, "RU") is None


def test_gateway_order_received_at_then_message_id():
    t = T0
    assert gateway_order(t, "b") < gateway_order(t + timedelta(microseconds=1), "a")
    assert gateway_order(t, "a") < gateway_order(t, "b")
    assert gateway_order(t, "Z") < gateway_order(t, "a")  # code points, not locale
    # the same instant in another zone is the same moment
    msk = t.astimezone(ZoneInfo("Europe/Moscow"))
    assert gateway_order(msk, "a") == gateway_order(t, "a")
    assert gateway_order(None, "a") > gateway_order(t, "z")


def test_tally_first_is_the_gateway_s_order_in_any_arrival_order():
    """A number's messages reach Sova out of the gateway's order: the counted one is the
    first the gateway received (then by message id), and every arrival order gives the
    same tally."""
    r = T0 + timedelta(minutes=1)
    msgs = [
        m("x2", "A", "1", received=r + timedelta(seconds=5)),  # arrives first, sent later
        m("x1", "A", "3", received=r),  # the gateway's first of A: counted for 3
        m("y-b", "B", "2", received=r),  # same instant: message id decides
        m("y-a", "B", "4", received=r),  # "y-a" < "y-b": counted for 4
        m("z1", "C", "Друзь", received=r - timedelta(seconds=1)),  # invalid: no vote used
        m("z2", "C", "2", received=r),  # counted for 2
    ]
    expected = {
        "x1": "counted",
        "x2": "repeat",
        "y-a": "counted",
        "y-b": "repeat",
        "z1": "invalid",
        "z2": "counted",
    }
    rng = random.Random(7)
    for _ in range(20):
        order = msgs[:]
        rng.shuffle(order)
        t = tally(C, order, opened_at=T0, closed_at=T0 + timedelta(minutes=10))
        assert t.answers == expected
        assert t.votes == {2: 1, 3: 1, 4: 1}
        assert (t.counted, t.repeats, t.invalid, t.late) == (3, 2, 1, 0)
