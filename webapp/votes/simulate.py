"""A gateway simulator for rehearsals and the bench (``sova vote simulate``): signed SMS
callbacks over real HTTP (``http.client``, one keep-alive connection per sender), to ONE
given URL, bounded in count and time.

The plan (:func:`plan`) knows the answer every message must get, so the expected tally is
exact whatever the order in which concurrent senders deliver:

* ``counted``: a new number voting for candidate 1..K;
* ``repeat``: a number that already voted sends again — for the SAME candidate, so that
  whichever of its messages the server sees first, the per-candidate counts are the same;
* ``invalid``: a text naming no candidate (``"xyz"``) from a new number (not voting again);
* ``resent``: an earlier message sent again byte for byte (same ``message_id``): same
  answer, counted once;
* ``badsig``: a message signed with a wrong key — must get 401 and count nothing.

Like the real gateway, a sender retries a message after an answer that may change (a 5xx
but the 503 of a server with no SMS secret, a 429) and after a broken connection
(bounded: ``retries`` attempts, with a short pause), so a restarted server or broker loses
nothing that was acknowledged. What cannot succeed is not retried: a 4xx (a 401 of a
message signed with the right secret means the secret is wrong), a 503 «SOVA_SMS_SECRET is
not set»; a refused connection is tried :data:`REFUSED_TRIES` times, and once one message
has given up on it the others are not sent. Each message given up is counted by its reason
(:attr:`Report.failures`).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

SMS_PATH = "/api/v1/votes/sms"
MAX_TOTAL = 10_000_000
#: Attempts of one message while the server refuses connections (nothing listens there)
REFUSED_TRIES = 4

#: The reasons a message is given up (keys of :attr:`Report.failures`)
BAD_SIGNATURE = "401 bad signature (--secret differs from the server's SOVA_SMS_SECRET)"
NO_SECRET = "503 SOVA_SMS_SECRET is not set on the server"
REFUSED = "connection refused (is Sova running at --url?)"
OUT_OF_TIME = "not sent: --max-seconds reached"


@dataclass
class Message:
    body: bytes
    signature: str
    expect: str  # counted | repeat | invalid | resent | badsig
    candidate: int | None


@dataclass
class Plan:
    messages: list[Message]
    votes: dict[int, int]
    counted: int
    repeats: int
    invalid: int
    badsig: int
    resent: int

    def expected(self) -> dict:
        """The tally the server must show: ``{votes: {"1": n, …}, counted, repeats,
        invalid, late, rejected_badsig, resent}``."""
        return {
            "votes": {str(k): v for k, v in sorted(self.votes.items())},
            "counted": self.counted,
            "repeats": self.repeats,
            "invalid": self.invalid,
            "late": 0,
            "rejected_badsig": self.badsig,
            "resent": self.resent,
        }


def _sign(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def plan(
    total: int,
    secret: str,
    *,
    candidates: int = 6,
    repeats: float = 0.1,
    invalid: float = 0.01,
    resent: float = 0.01,
    badsig: float = 0.01,
    seed: int | None = None,
    run: str | None = None,
) -> Plan:
    """``total`` messages in a random order with the given shares (0..1 each; their sum
    < 1, the rest are new counted votes). Raises ValueError for bad sizes or shares."""
    if not 1 <= total <= MAX_TOTAL:
        raise ValueError(f"total must be 1..{MAX_TOTAL}")
    shares = (repeats, invalid, resent, badsig)
    if any(s < 0 for s in shares) or sum(shares) >= 1:
        raise ValueError("shares must be >= 0 and sum to less than 1")
    if candidates < 1:
        raise ValueError("candidates must be >= 1")
    rng = random.Random(seed)
    run = run or f"{rng.getrandbits(40):010x}"
    base = rng.randrange(10**6, 9 * 10**6) * 1000
    now = datetime.now(UTC)
    kinds = (
        ["repeat"] * round(total * repeats)
        + ["invalid"] * round(total * invalid)
        + ["resent"] * round(total * resent)
        + ["badsig"] * round(total * badsig)
    )
    kinds += ["counted"] * (total - len(kinds))
    # a repeat or a resend needs an earlier message: the first one is always a vote
    rng.shuffle(kinds)
    if kinds[0] != "counted":
        i = kinds.index("counted")
        kinds[0], kinds[i] = kinds[i], kinds[0]
    out: list[Message] = []
    voters: list[tuple[str, int]] = []  # (msisdn, candidate) of counted votes
    sent: list[Message] = []  # messages that may be resent (signed well)
    votes: Counter = Counter()
    numbers = 0

    def new_number() -> str:
        nonlocal numbers
        numbers += 1
        return f"+7{base + numbers:010d}"

    def body(i: int, msisdn: str, text: str) -> bytes:
        return json.dumps(
            {
                # the gateway's order is the plan's: one microsecond apart, ids that sort
                # the same way (a repeat follows its number's vote, as a real one does)
                "message_id": f"sim-{run}-{i:08d}",
                "msisdn": msisdn,
                "text": text,
                "received_at": (now + timedelta(microseconds=i)).isoformat(),
            },
            separators=(",", ":"),
        ).encode()

    for i, kind in enumerate(kinds):
        if kind == "counted":
            n = rng.randint(1, candidates)
            msisdn = new_number()
            voters.append((msisdn, n))
            votes[n] += 1
            b = body(i, msisdn, str(n))
            msg = Message(b, _sign(b, secret), "counted", n)
        elif kind == "repeat":
            msisdn, n = voters[rng.randrange(len(voters))] if voters else (new_number(), 1)
            b = body(i, msisdn, str(n))
            msg = Message(b, _sign(b, secret), "repeat", n)
        elif kind == "invalid":
            b = body(i, new_number(), "xyz")
            msg = Message(b, _sign(b, secret), "invalid", None)
        elif kind == "badsig":
            b = body(i, new_number(), "1")
            msg = Message(b, _sign(b, secret + "-forged"), "badsig", None)
        else:
            first = sent[rng.randrange(len(sent))]
            msg = Message(first.body, first.signature, "resent", first.candidate)
        out.append(msg)
        if kind in ("counted", "repeat", "invalid"):
            sent.append(msg)
    c = Counter(kinds)
    return Plan(out, dict(votes), c["counted"], c["repeat"], c["invalid"], c["badsig"], c["resent"])


@dataclass
class Report:
    """What the senders saw: ``answers`` (result, or ``"401"``/``"429"`` for a refused
    forged message → count), ``retries``, ``failed`` (messages given up), ``failures``
    (reason → count of the messages given up: :data:`BAD_SIGNATURE`, :data:`NO_SECRET`,
    :data:`REFUSED`, ``"<status> <reason>"`` of another final answer, ``"… after N
    attempts"`` when the retries ran out), ``latencies_ms`` (one per answered attempt),
    ``answered_at`` (when each of those answers came, seconds from the start, in the same
    order: the rate and the latencies over the burst's successive parts), ``seconds``."""

    answers: Counter = field(default_factory=Counter)
    retries: int = 0
    failed: int = 0
    failures: Counter = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    answered_at: list[float] = field(default_factory=list)
    seconds: float = 0.0


def _final_reason(status: int, data: bytes) -> str | None:
    """Why an answer other than 200 means the message can never be counted (no retry),
    or None if a retry may succeed (a 5xx of a restarting server or a lost database, a 429)."""
    if status == 401:
        return BAD_SIGNATURE
    if status == 503 and b"SOVA_SMS_SECRET" in data:
        return NO_SECRET
    if 400 <= status < 500 and status != 429:
        try:
            message = json.loads(data)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = http.client.responses.get(status, "")
        return f"{status} {message}".strip()
    return None


def endpoint(url: str) -> tuple[str, str, int, str]:
    """``(scheme, host, port, path)`` of the SMS callback for a server base URL or the
    callback's own URL. Raises ValueError for another scheme."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    path = parts.path.rstrip("/")
    if not path.endswith(SMS_PATH):
        path = path + SMS_PATH
    return (
        parts.scheme,
        parts.hostname,
        parts.port or (443 if parts.scheme == "https" else 80),
        path,
    )


def send(
    url: str,
    messages: list[Message],
    *,
    rate: float = 0.0,
    concurrency: int = 64,
    retries: int = 20,
    timeout: float = 10.0,
    max_seconds: float = 3600.0,
    at: dict[int, Callable[[], None]] | None = None,
) -> Report:
    """Send ``messages`` in order from ``concurrency`` threads (each its own keep-alive
    connection), at most ``rate`` messages/s overall (0: as fast as the server answers).
    Stops after ``max_seconds`` (the messages not sent count as failed). ``at``: ``{i:
    action}`` runs ``action()`` in the sender that takes message ``i`` (0-based), before it
    sends it, while the other senders go on — fault drills placed by message count, so they
    land inside the burst whatever the machine's speed."""
    scheme, host, port, path = endpoint(url)
    conn_cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    report = Report()
    lock = threading.Lock()
    index = iter(range(len(messages)))
    start = time.monotonic()
    deadline = start + max_seconds

    def next_index() -> int | None:
        with lock:
            i = next(index, None)
        if i is None:
            return None
        if at and i in at:
            at[i]()
        if rate > 0:
            due = start + i / rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
        return i

    unreachable = threading.Event()  # a message gave up on a refused connection

    def worker() -> None:
        conn = None
        answers: Counter[str] = Counter()
        failures: Counter[str] = Counter()
        lat: list[float] = []
        answered_at: list[float] = []
        tries = 0
        while (i := next_index()) is not None:
            msg = messages[i]
            reason: str | None = None
            refused = 0
            for attempt in range(retries):
                if time.monotonic() > deadline:
                    reason = OUT_OF_TIME
                    break
                if unreachable.is_set():
                    reason = REFUSED
                    break
                if attempt:
                    tries += 1
                    time.sleep(min(0.05 * attempt, 1.0))
                try:
                    if conn is None:
                        conn = conn_cls(host, port, timeout=timeout)
                    t0 = time.perf_counter()
                    conn.request(
                        "POST",
                        path,
                        body=msg.body,
                        headers={
                            "Content-Type": "application/json",
                            "X-Sova-Signature": msg.signature,
                        },
                    )
                    resp = conn.getresponse()
                    data = resp.read()
                    t1 = time.perf_counter()
                    lat.append((t1 - t0) * 1000)
                    answered_at.append(time.monotonic() - start)
                except ConnectionRefusedError:
                    conn = None
                    refused += 1
                    if refused >= REFUSED_TRIES:
                        unreachable.set()
                        reason = REFUSED
                        break
                    continue
                except (OSError, http.client.HTTPException) as exc:
                    if conn is not None:
                        conn.close()
                    conn = None
                    reason = f"{type(exc).__name__} after {retries} attempts"
                    continue
                if resp.status == 200:
                    answers[json.loads(data)["result"]] += 1
                    reason = None
                    break
                if msg.expect == "badsig" and resp.status in (401, 429):
                    answers[str(resp.status)] += 1  # a forged message refused, as it must be
                    reason = None
                    break
                if resp.will_close:
                    conn.close()
                    conn = None
                reason = _final_reason(resp.status, data)
                if reason is not None:
                    break
                reason = f"{resp.status} after {retries} attempts"
            if reason is not None:
                failures[reason] += 1
        if conn is not None:
            conn.close()
        with lock:
            report.answers.update(answers)
            report.latencies_ms.extend(lat)
            report.answered_at.extend(answered_at)
            report.retries += tries
            report.failures.update(failures)
            report.failed += sum(failures.values())

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, concurrency))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    report.seconds = time.monotonic() - start
    return report


def percentile(values: list[float], pct: float) -> float | None:
    """The ``pct`` percentile (nearest rank) of ``values``; None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]
