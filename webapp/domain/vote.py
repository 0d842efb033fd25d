"""The audience vote for the best player of a game (002_e025d5ded135c1c4.txt §3.1).

§3.1: «Лучший игрок каждой игры сезона 2009 года получает приз от представителя
Генерального спонсора. Определяют Лучшего игрока абоненты МТС путем голосования с помощью
SMS-сообщений. (В отдельных случаях Лучший игрок может быть определен представителем
Генерального спонсора.)»

Pure rules (standard library only): how one SMS is classified, how a vote log is tallied,
who wins, and when the sponsor's representative may name someone else. The database layer
(``webapp.votes``) enforces the same rules with unique keys so that counting stays exact
under concurrent requests; :func:`tally` replays a stored log and must give the same counts.

Readings chosen (the clause says only «голосование с помощью SMS-сообщений»):

* one counted vote per phone number per vote — the first valid message; later valid ones
  are ``repeat`` (an SMS vote where one number could vote many times would be decided by
  whoever sends most; the contract asks for one);
* "the first" is the gateway's order — ``received_at``, then ``message_id``
  (:func:`gateway_order`) — not the order messages reach Sova: a gateway retrying in
  parallel delivers them in any order, and a recount of its own log must give the same
  tally (:func:`tally` sorts; the database layer lets an earlier message take the
  number's counted vote from a later one that arrived first);
* phone numbers are compared in E.164 (:func:`e164`, the ``phonenumbers`` library),
  read in the season's country (:func:`region_of`): ``+7 916 111-22-33``,
  ``89161112233``, ``9161112233`` and ``007 916 111 22 33`` are one voter;
* an ``invalid`` message (names no candidate, or a name fitting two candidates) does not use
  up the number's vote: the viewer may send a valid one afterwards;
* ``late``: the message reached Sova while no vote was open, or the gateway received it
  before the vote opened (``received_at`` < ``opened_at``: sent before the announcement);
  the vote closes by Sova's clock, so a message that arrives after closing is late;
* the sponsor's representative («в отдельных случаях») may choose another player of the
  candidates than the vote's winner, with a reason; a tie for first place has no vote
  winner, so the representative decides (with a reason) — see :func:`award_choice`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import phonenumbers

from webapp.domain.money import COUNTRY_OF_CURRENCY
from webapp.domain.text import matching_key

RULE = "002_e025d5ded135c1c4.txt §3.1"

COUNTED, REPEAT, INVALID, LATE = "counted", "repeat", "invalid", "late"
RESULTS = (COUNTED, REPEAT, INVALID, LATE)

#: A candidate number as announced on air: digits only, optionally with «№» or «#».
_NUMBER = re.compile(r"^\s*(?:№|#)?\s*(\d{1,3})\s*[.)]?\s*$")


class VoteRuleError(ValueError):
    """A refusal by §3.1's rules: ``message`` (Russian, for the user), ``rule`` (clause)."""

    def __init__(self, message: str, rule: str = RULE):
        super().__init__(message)
        self.message = message
        self.rule = rule


def fold(name: str) -> str:
    """A candidate's or a message's name key: :func:`webapp.domain.text.matching_key`
    (case, ё → е, punctuation, look-alike letters) with every space removed, so
    ``"Ровшан  АСКЕРОВ"``, ``"ровшан аскеров"`` and ``"РовшанАскёров"`` fold alike."""
    return matching_key(name).replace(" ", "")


def candidate_names(names: Iterable[str]) -> list[str]:
    """The candidates of a vote, numbered 1..N in the given order: each name's spaces
    collapsed, blanks dropped. Raises VoteRuleError for no candidate or two candidates
    whose names fold alike (no text could tell them apart)."""
    out: list[str] = []
    seen: set[str] = set()
    for raw in names:
        name = " ".join(str(raw).split())
        if not name:
            continue
        key = fold(name)
        if not key or key in seen:
            raise VoteRuleError(f"кандидаты не различимы по имени: «{name}»")
        seen.add(key)
        out.append(name)
    if not out:
        raise VoteRuleError("нет ни одного кандидата")
    return out


def match_candidate(text: str, candidates: Sequence[str]) -> int | None:
    """The candidate number (1..N) that an SMS ``text`` names, or None (invalid).

    A number as announced on air (``"3"``, ``"№3"``, ``" 3. "``) names candidate 3 if
    1 ≤ 3 ≤ N. Otherwise the text, folded (:func:`fold`), must equal one candidate's whole
    folded name or one word of it (``"друзь"`` for «Александр Друзь»); a text that fits two
    candidates (two Друзь) or none is None.
    """
    m = _NUMBER.match(text or "")
    if m:
        n = int(m.group(1))
        return n if 1 <= n <= len(candidates) else None
    key = fold(text or "")
    if not key:
        return None
    hits = []
    for n, name in enumerate(candidates, start=1):
        words = {fold(w) for w in name.split()}
        if key == fold(name) or key in words:
            hits.append(n)
    return hits[0] if len(hits) == 1 else None


def classify(
    *, is_open: bool, before_open: bool, candidate: int | None, already_counted: bool
) -> str:
    """The answer to one new (not resent) message: ``late`` if no vote is open or the
    message was received before the vote opened; ``invalid`` if it names no candidate;
    ``repeat`` if the number already has a counted vote in this vote; else ``counted``."""
    if not is_open or before_open:
        return LATE
    if candidate is None:
        return INVALID
    if already_counted:
        return REPEAT
    return COUNTED


@dataclass
class Tally:
    """Counts of one vote: ``votes`` per candidate number (1..N), ``counted`` (their sum),
    ``repeats``, ``invalid``, ``late``; ``answers`` maps message_id → result."""

    candidates: list[str]
    votes: dict[int, int] = field(default_factory=dict)
    repeats: int = 0
    invalid: int = 0
    late: int = 0
    answers: dict[str, str] = field(default_factory=dict)

    @property
    def counted(self) -> int:
        return sum(self.votes.values())

    def as_json(self) -> dict[str, Any]:
        """The contract's vote counts: ``{candidates: [{n, name, votes}], counted, repeats,
        invalid, late}``."""
        return {
            "candidates": [
                {"n": n, "name": name, "votes": self.votes.get(n, 0)}
                for n, name in enumerate(self.candidates, start=1)
            ],
            "counted": self.counted,
            "repeats": self.repeats,
            "invalid": self.invalid,
            "late": self.late,
        }


def tally(
    candidates: Sequence[str],
    messages: Iterable[dict[str, Any]],
    *,
    opened_at: datetime | None = None,
    closed_at: datetime | None = None,
) -> Tally:
    """Recount a vote from its log: ``messages`` in any order, dicts with ``message_id``,
    ``msisdn`` (any stable key of the number: its E.164 form or the stored hash),
    ``text``, ``received_at`` (aware datetime or None) and ``arrived_at`` (aware datetime,
    Sova's clock; None: inside the window).

    A resent ``message_id`` counts once (its first copy). A message arriving outside
    [``opened_at``, ``closed_at``) (``closed_at`` None: still open) or received before
    ``opened_at`` is late; one naming no candidate is invalid; of a number's other
    messages the first in the gateway's order (:func:`gateway_order`) is counted and the
    rest are repeats. So the counts do not depend on the order the messages arrived in.
    """
    out = Tally(list(candidates))
    valid: list[tuple[Order, str, str, int]] = []  # (gateway order, number, id, candidate)
    for msg in messages:
        mid = msg["message_id"]
        if mid in out.answers:
            continue
        arrived = msg.get("arrived_at")
        is_open = opened_at is not None and (
            arrived is None or (arrived >= opened_at and (closed_at is None or arrived < closed_at))
        )
        received = msg.get("received_at")
        before = opened_at is not None and received is not None and received < opened_at
        n = match_candidate(msg.get("text") or "", out.candidates)
        result = classify(is_open=is_open, before_open=before, candidate=n, already_counted=False)
        out.answers[mid] = result
        if result == COUNTED and n is not None:  # always named: classify counts only that
            valid.append((gateway_order(received, mid), msg["msisdn"], mid, n))
        elif result == INVALID:
            out.invalid += 1
        else:
            out.late += 1
    counted_numbers: set[str] = set()
    for _order, number, mid, n in sorted(valid, key=lambda v: v[0]):
        if number in counted_numbers:
            out.answers[mid] = REPEAT
            out.repeats += 1
        else:
            counted_numbers.add(number)
            out.votes[n] = out.votes.get(n, 0) + 1
    return out


def winner(votes: dict[int, int]) -> int | None:
    """The candidate number with the most counted votes; None for no vote or a tie for
    first place (then the sponsor's representative decides, §3.1)."""
    if not votes:
        return None
    top = max(votes.values())
    leaders = [n for n, v in votes.items() if v == top]
    return leaders[0] if len(leaders) == 1 and top > 0 else None


def award_choice(
    candidates: Sequence[str], winner_n: int | None, chosen: str, reason: str
) -> tuple[str, bool]:
    """The §3.1 best player to record: ``(name as the candidate list spells it,
    overridden)``. ``chosen`` must fold to one of ``candidates``; choosing anyone but the
    vote's winner (or deciding a tie / a vote without winner) is the sponsor's
    representative's decision «в отдельных случаях» and needs a non-blank ``reason``.
    Raises VoteRuleError otherwise."""
    key = fold(chosen or "")
    names = [c for c in candidates if fold(c) == key]
    if not names:
        raise VoteRuleError(f"«{chosen}» не среди кандидатов голосования")
    name = names[0]
    overridden = winner_n is None or candidates[winner_n - 1] != name
    if overridden and not (reason or "").strip():
        raise VoteRuleError(
            "лучшего игрока не по итогам голосования определяет представитель "
            "Генерального спонсора: укажите основание"
        )
    return name, overridden


def best_player_award(
    vote_status: str | None,
    candidates: Sequence[str],
    winner_n: int | None,
    chosen: str,
    reason: str,
) -> tuple[str, bool]:
    """Who may be recorded as the §3.1 best player of a game, on whichever page the prize is
    awarded: ``(name, by_representative)``.

    §3.1: the subscribers choose the best player by SMS; «в отдельных случаях» the
    sponsor's representative does. So:

    * ``vote_status`` ``"closed"``: the vote decides — :func:`award_choice` (the winner; any
      other candidate, or deciding a tie, needs the representative's ``reason``);
    * ``"open"``: refused — the vote is still running, its result is not known yet;
    * None (no vote was held for the game, e.g. a game recorded from the archive or a vote
      the gateway could not run): only the representative can name the best player, so a
      non-blank ``reason`` is required; ``chosen`` (spaces collapsed) is returned with
      ``True``.

    Raises VoteRuleError (with this clause) for a refusal.
    """
    if vote_status == "open":
        raise VoteRuleError(
            "идёт зрительское голосование: лучшего игрока определяют его итоги — "
            "сначала закройте голосование"
        )
    if vote_status is not None:
        return award_choice(candidates, winner_n, chosen, reason)
    name = " ".join((chosen or "").split())
    if not name:
        raise VoteRuleError("не указан лучший игрок")
    if not (reason or "").strip():
        raise VoteRuleError(
            "зрительского голосования по этой игре не было: лучшего игрока определяет "
            "представитель Генерального спонсора — укажите основание"
        )
    return name, True


#: The region a phone number written without its country code is read in: the season's
#: country, known by the currency its prizes are paid in (2009: RUB → Russia; 2023: BYN →
#: Belarus).
DEFAULT_REGION = "RU"


def region_of(currency: str | None) -> str:
    """The ISO 3166 region (``"RU"``, ``"BY"``) numbers of a season paid in ``currency``
    are read in when written without a country code; ``"RU"`` for an unknown currency
    (the vote is the 2009 book's, a Russian season)."""
    return COUNTRY_OF_CURRENCY.get((currency or "").upper(), DEFAULT_REGION)


def _readings(msisdn: str, region: str) -> Iterator[phonenumbers.PhoneNumber]:
    """The ways ``msisdn`` can be read, most likely first, each parsed by phonenumbers
    (lazily: the usual number is valid as first read, and parsing is most of its cost):

    1. as dialled in ``region`` (``+7 916 …``; the trunk prefix ``8 916 …``, ``8 10 7 …``;
       a national number ``916 …``);
    2. after the ITU international prefix ``00`` (``007 916 …``): dialled in Russia and
       Belarus besides the ``8 10`` phonenumbers' metadata knows for them;
    3. as a gateway's MSISDN, the full international number without ``+``
       (``79161112233`` in a Belarusian season).
    """
    digits = "".join(ch for ch in msisdn if ch.isdigit())
    tries: list[tuple[str, str | None]] = [(msisdn, region)]
    if digits.startswith("00"):
        tries.append(("+" + digits[2:], None))
    if msisdn != "+" + digits:  # else the same text: a number with "+" ignores the region
        tries.append(("+" + digits, None))
    for text, reg in tries:
        try:
            yield phonenumbers.parse(text, reg)
        except phonenumbers.NumberParseException:
            continue


def e164(msisdn: str, region: str = DEFAULT_REGION) -> str | None:
    """A phone number in E.164 (``"+79161112233"``) however it is spelt, read by the
    ``phonenumbers`` library in ``region`` (the season's country, :func:`region_of`):
    ``"+7 916 111-22-33"``, ``"89161112233"``, ``"9161112233"`` and ``"007 916 111 22 33"``
    are one subscriber in Russia. Of the readings (:func:`_readings`) the first valid
    number wins, else the first possible one (a number of a range not yet in the
    library's metadata); None if no reading is even a possible number."""
    if not msisdn or len(msisdn) > 64:
        return None
    seen = []
    for number in _readings(msisdn, region):  # a later reading is parsed only if needed
        if phonenumbers.is_valid_number(number):
            return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
        seen.append(number)
    for number in seen:
        if phonenumbers.is_possible_number(number):
            return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    return None


def normalise_msisdn(msisdn: str, region: str = DEFAULT_REGION) -> str | None:
    """The digits of the number's E.164 form (:func:`e164` without ``+``):
    ``"8 (916) 123-45-67"`` → ``"79161234567"``; None for no phone number. The key phone
    numbers are compared (and hashed) by."""
    number = e164(msisdn, region)
    return number[1:] if number else None


_NEVER = datetime.max.replace(tzinfo=UTC)
#: A message's place in the gateway's order (:func:`gateway_order`)
Order = tuple[bool, datetime, str]


def gateway_order(received_at: datetime | None, message_id: str) -> Order:
    """The sort key of "which message came first": the gateway's ``received_at`` (aware),
    then ``message_id`` (code-point order) — the gateway's own order, the same whatever
    order the messages reach Sova in. A message without ``received_at`` sorts last."""
    return (received_at is None, received_at or _NEVER, message_id)


def log_line(
    seq: int,
    message_id: str,
    msisdn_key: str,
    text: str,
    received_at: str | None,
    arrived_at: str,
    result: str,
    candidate: int | None,
) -> str:
    """One canonical line of the vote log (JSON, sorted keys, no spaces); the phone number
    appears only as its keyed hash ``msisdn_key``."""
    return json.dumps(
        {
            "seq": seq,
            "message_id": message_id,
            "msisdn": msisdn_key,
            "text": text,
            "received_at": received_at,
            "arrived_at": arrived_at,
            "result": result,
            "candidate": candidate,
        },
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )


def log_digest(lines: Iterable[str]) -> str:
    """SHA-256 (hex) of the vote log: the lines of :func:`log_line`, each followed by
    ``\\n``, UTF-8. Anyone holding the exported log can recompute it."""
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()
