"""The cluster test: Sova on four hosts made of network namespaces, with faults.

The hosts (:mod:`tests.cluster.hosts`): **data** (private PostgreSQL and Redis), **app1** and
**app2** (gunicorn, a Celery worker and the outbox relay each, from the installed wheel; beat
on app1), **front** (nginx over both), with worker, relay, beat and web supervised as
systemd's ``Restart=always`` would. The client (this process) sends a steady stream of
submissions and the API work of one game (approve, sign off, season, game, assign,
envelopes, events, close → gift agreements) through nginx while it

1. kills app2 outright (SIGKILL of every process in its namespace), then brings it back;
2. restarts Redis empty;
3. kills app1's worker (SIGKILL of its process group): its supervision starts it again;
4. restarts PostgreSQL (``pg_ctl restart -m immediate``).

Then it waits until nothing is owed and counts from the database and the sink: every
acknowledged (201) submission stored once and pre-checked once, every stored question's
e-mail sent once, the envelopes and every agreement rendered once, nothing pending; and
which supervised process exited and was restarted. Last, the on-air feed (:func:`on_air`):
overlays held open through nginx's route to the app hosts' stream services get the host's
event, app2 is killed again, and they get the next one from app1's.

Run: ``make cluster-test`` (pytest, tests/cluster/test_cluster.py) or
``python -m tests.cluster.cluster --write-docs`` (``make cluster-figures``: also writes the
figures into docs/operations.md, "Cluster test figures"). Needs root (namespaces), nginx,
redis-server, the PostgreSQL server binaries and uv (the wheel build). Everything it made is
removed at the end, also on failure or Ctrl-C (logs are kept on failure).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request

from tests.cluster.hosts import ROOT, Cluster, log, missing_tools, wait_for

__all__ = ["check", "missing_tools", "run_cluster", "write_docs"]

DOCS = ROOT / "docs" / "operations.md"
MARK_START, MARK_END = "<!-- cluster-figures:start -->", "<!-- cluster-figures:end -->"
STREAM_SECONDS = 75
#: The overlays held open through nginx in the on-air part (:func:`on_air`).
OVERLAYS = 4

TOPICS = [
    "астрономии",
    "ботанике",
    "географии",
    "истории",
    "литературе",
    "музыке",
    "физике",
    "химии",
    "живописи",
    "кино",
    "спорту",
    "архитектуре",
    "медицине",
    "математике",
    "лингвистике",
    "кулинарии",
    "театре",
    "балете",
    "оптике",
    "геологии",
]


class Client:
    """HTTP through nginx; ``call`` retries what a fault interrupted (connection errors,
    502/503/504) for up to 60 s, and takes 409 after a retry as "done before"."""

    def __init__(self, base: str, tokens: dict[str, str]):
        self.base, self.tokens = base, tokens
        self.requests = 0

    def raw(self, method: str, path: str, role: str | None = None, body=None, timeout: float = 30):
        self.requests += 1
        headers = {"Content-Type": "application/json"}
        if role:
            headers["Authorization"] = f"Bearer {self.tokens[role]}"
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            try:
                return exc.code, json.loads(exc.read() or b"null")
            except ValueError:
                return exc.code, None
        except (OSError, ValueError) as exc:
            return None, repr(exc)

    def call(self, method: str, path: str, role: str, body=None, ok=(200, 201, 202)):
        deadline, retried = time.monotonic() + 90, False
        while True:
            status, data = self.raw(method, path, role, body)
            if status in ok or (retried and status == 409):
                return status, data
            if status not in (None, 502, 503, 504) or time.monotonic() > deadline:
                raise AssertionError(f"{method} {path}: {status} {data}")
            retried = True
            time.sleep(1)


class Overlay:
    """An overlay's ``EventSource`` through nginx, in a thread: it reads each event as it
    comes, and after the stream ended or broke it waits the ``retry:`` and connects again
    with ``Last-Event-ID``; ``rows[revision]`` is the moment it first had that revision,
    ``connections`` how many times it connected."""

    def __init__(self, url: str):
        self.url, self.rows, self.connections = url, {}, 0
        self.stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        last = -1
        while not self.stop.is_set():
            req = urllib.request.Request(self.url)
            if last >= 0:
                req.add_header("Last-Event-ID", str(last))
            retry = 0.25
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
                    self.connections += 1
                    for raw in resp:
                        line = raw.decode().rstrip("\n")
                        if line.startswith("retry: "):
                            retry = int(line[7:]) / 1000
                        elif line.startswith("id: "):
                            last = max(last, int(line[4:]))
                            self.rows.setdefault(last, time.monotonic())
            except (OSError, ValueError):
                pass
            self.stop.wait(retry)

    def has(self, revision: int) -> bool:
        return any(r >= revision for r in self.rows)

    def delay_ms(self, revision: int, since: float) -> float:
        return round((min(t for r, t in self.rows.items() if r >= revision) - since) * 1000, 1)


def on_air(cluster: Cluster, client: Client, season: int, used: set[int]) -> dict:
    """Overlays of a game through nginx get the host's event, and still get the next one
    after the app host some of them were held on is killed (they connect again, nginx
    sends them to the other host's stream service, which heard the event through Redis)."""
    items = client.call("GET", "/api/v1/questions?status=in_review", "editor")[1]["items"]
    for qid in [item["id"] for item in items if item["id"] not in used][:16]:
        client.call("POST", f"/api/v1/questions/{qid}/decision", "editor", {"decision": "approve"})
        client.call(
            "POST", f"/api/v1/questions/{qid}/decision", "chief_editor", {"decision": "sign_off"}
        )
    game = client.call(
        "POST",
        "/api/v1/games",
        "producer",
        {
            "season_id": season,
            "kind": "qualifying",
            "date": "2023-03-11",
            "team": "Эфир",
            "table": {"blitz": 4, "superblitz": None, "sector13": None},
        },
    )[1]["id"]
    client.call("POST", f"/api/v1/games/{game}/assign", "producer")
    key = client.call("POST", f"/api/v1/games/{game}/broadcast-tokens", "producer", {})[1]["token"]
    url = f"{client.base}/api/v1/games/{game}/onair/stream?key={key}"
    # opened one after another, nginx's round robin holds them on both app hosts
    overlays = [Overlay(url) for _ in range(OVERLAYS)]
    try:
        wait_for(lambda: all(o.has(0) for o in overlays), 30, "every overlay's first row")
        client.call("POST", f"/api/v1/games/{game}/events", "host", {"type": "spin", "sector": 1})
        answered = time.monotonic()
        wait_for(lambda: all(o.has(1) for o in overlays), 10, "every overlay to get the spin")
        spin = [o.delay_ms(1, answered) for o in overlays]
        before = [o.connections for o in overlays]
        n = cluster.kill_host("app2")
        log(f"on air: app2 killed ({n} processes), {OVERLAYS} overlays held")
        client.call(
            "POST", f"/api/v1/games/{game}/events", "host", {"type": "answer", "correct": True}
        )
        answered = time.monotonic()
        missed = 0
        try:
            wait_for(lambda: all(o.has(2) for o in overlays), 15, "every overlay to get the answer")
        except AssertionError:
            missed = sum(not o.has(2) for o in overlays)
        answer = [o.delay_ms(2, answered) for o in overlays if o.has(2)]
        moved = sum(o.connections > b for o, b in zip(overlays, before, strict=True))
    finally:
        for o in overlays:
            o.stop.set()
    cluster.app_up("app2")
    figures = {
        "overlays": OVERLAYS,
        "spin_delay_ms": spin,
        "answer_after_app2_killed_delay_ms": answer,
        "overlays_reconnected_after_app2_killed": moved,
        "overlays_missed_the_answer": missed,
    }
    log(f"on air: {figures}")
    return figures


def submission(i: int) -> dict:
    topic = TOPICS[i % len(TOPICS)]
    return {
        "question": f"Кластерный вопрос {i} о {topic}: что здесь задумал автор номер {i}?",
        "answer": f"Ответ {i}",
        "authors": [{"name": f"Автор {i}", "city": "Минск"}],
        "email": f"cluster{i}@example.org",
        "consent": True,
    }


def scenario(cluster: Cluster) -> dict:
    """Run the whole test on a started :class:`Cluster`; returns the figures."""
    import psycopg

    from tests.game_data import LOSE_3_6_WITH_LOST_BLITZ

    base = f"http://{cluster.ip('front')}"
    tokens = {}
    for role in ("editor", "chief_editor", "producer", "host"):
        out = cluster.sova(
            "users", "create", "--email", f"{role}@cluster.local", "--role", role, "--token"
        )
        tokens[role] = out.strip().splitlines()[-1]
    client = Client(base, tokens)
    wait_for(lambda: client.raw("GET", "/readyz")[0] == 200, 60, "the front to be ready")

    acked: dict[int, int] = {}  # submission number -> question id
    refused: dict[int, object] = {}
    stop = threading.Event()

    def stream(offset: int) -> None:
        i = offset
        while not stop.is_set():
            status, data = client.raw("POST", "/api/v1/submissions", body=submission(i), timeout=20)
            if status == 201:
                acked[i] = data["id"]
            else:
                refused[i] = status or data
            i += 2
            time.sleep(0.15)

    faults: list[dict] = []
    t0 = time.monotonic()

    def fault_plan() -> None:
        def at(seconds: float) -> None:
            time.sleep(max(0.0, seconds - (time.monotonic() - t0)))

        at(12)
        n = cluster.kill_host("app2")
        faults.append(
            {
                "what": f"app2 killed (SIGKILL of its {n} processes: web, stream, worker, relay)",
                "at": round(time.monotonic() - t0, 1),
            }
        )
        log(faults[-1]["what"])
        at(24)
        cluster.app_up("app2")
        faults.append({"what": "app2 back", "at": round(time.monotonic() - t0, 1)})
        at(36)
        cluster.redis_restart_empty()
        faults.append({"what": "Redis restarted empty", "at": round(time.monotonic() - t0, 1)})
        log(faults[-1]["what"])
        at(44)
        cluster.kill_role("app1", "worker")
        faults.append(
            {
                "what": "app1 worker killed (SIGKILL of its process group; supervised)",
                "at": round(time.monotonic() - t0, 1),
            }
        )
        log(faults[-1]["what"])
        at(50)
        cluster.pg_ctl("restart", "-m", "immediate")
        faults.append(
            {"what": "PostgreSQL restarted (immediate)", "at": round(time.monotonic() - t0, 1)}
        )
        log(faults[-1]["what"])

    threads = [threading.Thread(target=stream, args=(k,), daemon=True) for k in (0, 1)]
    threads.append(threading.Thread(target=fault_plan, daemon=True))
    for t in threads:
        t.start()

    # the API work of one game, through nginx, while the faults happen
    def in_review():
        return client.call("GET", "/api/v1/questions?status=in_review", "editor")[1]

    items = wait_for(
        lambda: len(in_review()["items"]) >= 16 and in_review()["items"],
        90,
        "16 pre-checked questions",
    )
    chosen = [item["id"] for item in items[:16]]
    for qid in chosen:
        client.call("POST", f"/api/v1/questions/{qid}/decision", "editor", {"decision": "approve"})
        client.call(
            "POST", f"/api/v1/questions/{qid}/decision", "chief_editor", {"decision": "sign_off"}
        )
    season = client.call(
        "POST",
        "/api/v1/seasons",
        "producer",
        {"name": "Кластерный сезон 2023", "ruleset": "2023", "currency": "BYN"},
    )[1]["id"]
    game = client.call(
        "POST",
        "/api/v1/games",
        "producer",
        {
            "season_id": season,
            "kind": "qualifying",
            "date": "2023-03-04",
            "team": "Команда",
            "table": {"blitz": 4, "superblitz": None, "sector13": None},
        },
    )[1]["id"]
    client.call("POST", f"/api/v1/games/{game}/assign", "producer")

    def not_before(seconds: float) -> None:  # spread the game's work over the faults
        time.sleep(max(0.0, seconds - (time.monotonic() - t0)))

    not_before(16)  # app2 is down
    client.call("POST", f"/api/v1/games/{game}/envelopes", "producer")
    log("envelopes requested")
    for event in LOSE_3_6_WITH_LOST_BLITZ:
        client.call("POST", f"/api/v1/games/{game}/events", "host", event)
    not_before(40)  # Redis was just emptied; app1's worker and PostgreSQL go next
    closed = client.call("POST", f"/api/v1/games/{game}/close", "producer")[1]
    prizes = len(closed["prizes"])
    log(f"API work done: game {game} closed, {prizes} prizes")

    elapsed = time.monotonic() - t0
    if elapsed < STREAM_SECONDS:
        time.sleep(STREAM_SECONDS - elapsed)
    stop.set()
    for t in threads:
        t.join(60)
    last_fault = max(f["at"] for f in faults)
    log(f"stream stopped: {len(acked)} acknowledged, {len(refused)} refused")

    dsn = f"host={cluster.ip('data')} port=5432 user=postgres dbname=sova"

    def query(sql: str, *params):
        with psycopg.connect(dsn, connect_timeout=5) as conn:
            return conn.execute(sql, params).fetchall()

    def owed() -> dict:
        return json.loads(cluster.sova("outbox", "status"))

    def settled() -> bool:
        status = owed()
        stored = query("SELECT count(*) FROM question")[0][0]
        # an e-mail in doubt (its worker or the database died between the end of its data
        # and the recorded 250) is never sent again by itself: it waits for an operator,
        # and may not have reached the sink at all
        return (
            all(
                status[k] == 0
                for k in (
                    "waiting",
                    "in_flight",
                    "overdue",
                    "given_up",
                    "questions_received",
                    "documents_pending",
                    "mail_sending",
                )
            )
            and len(cluster.mail) + status["mail_in_doubt"] >= stored
        )

    wait_for(settled, 300, "everything owed to be done", every=2)
    recovered = round(time.monotonic() - t0 - last_fault, 1)

    texts = {i: submission(i)["question"] for i in acked}
    counts = dict(query("SELECT text, count(*) FROM question GROUP BY text"))
    lost = [i for i, t in texts.items() if counts.get(t, 0) == 0]
    duplicated = [t for t, n in counts.items() if n > 1]
    reports = query(
        "SELECT q.id, count(r.id) FROM question q LEFT JOIN moderation_report r "
        "ON r.question_id = q.id GROUP BY q.id"
    )
    not_prechecked = [q for q, n in reports if n == 0]
    prechecked_twice = [q for q, n in reports if n > 1]
    stored_emails = {
        f"cluster{i}@example.org"
        for i, t in {i: submission(i)["question"] for i in list(acked) + list(refused)}.items()
        if counts.get(t, 0) == 1
    }
    sent = {}
    for rcpt in cluster.mail:
        sent[rcpt] = sent.get(rcpt, 0) + 1
    mail_lost = sorted(e for e in stored_emails if sent.get(e, 0) == 0)
    mail_twice = sorted(e for e, n in sent.items() if n > 1)
    docs = query("SELECT kind, status, count(*) FROM document GROUP BY kind, status")
    in_doubt = query(
        "SELECT count(*) FROM mail_log WHERE status = 'sending' AND end_of_data_at IS NOT NULL"
    )[0][0]
    figures = {
        "faults": faults,
        "requests": client.requests,
        "submissions_acknowledged": len(acked),
        "submissions_refused": len(refused),
        "questions_stored": sum(counts.values()),
        "lost": len(lost),
        "duplicated": len(duplicated),
        "not_prechecked": len(not_prechecked),
        "prechecked_twice": len(prechecked_twice),
        "emails_sent": len(cluster.mail),
        "emails_lost": len(mail_lost),
        "emails_twice": len(mail_twice),
        "emails_in_doubt": in_doubt,
        "prizes": prizes,
        "documents": {f"{k} {s}": n for k, s, n in docs},
        "recovered_seconds_after_last_fault": recovered,
        "restarts": [
            {**r, "at": round(r["at"] - t0, 1)} for r in cluster.restarts
        ],  # supervised processes that exited and were started again (Restart=always)
        "installed": cluster.installed,
        "owed_after": owed(),
    }
    figures["onair"] = on_air(cluster, client, season, set(chosen))
    return figures


def check(figures: dict) -> list[str]:
    """What the figures show wrong (empty: the cluster kept every promise)."""
    problems = []
    for key in (
        "lost",
        "duplicated",
        "not_prechecked",
        "prechecked_twice",
        "emails_twice",
    ):
        if figures[key]:
            problems.append(f"{key} = {figures[key]}")
    # an e-mail in doubt may not have reached the sink: the operator's (``sova mail stuck``);
    # any other e-mail missing is lost
    if figures["emails_lost"] > figures["emails_in_doubt"]:
        problems.append(
            f"emails_lost = {figures['emails_lost']} (in doubt: {figures['emails_in_doubt']})"
        )
    docs = figures["documents"]
    if any(not k.endswith(" ready") for k in docs):
        problems.append(f"documents not ready: {docs}")
    if docs.get("envelopes ready") != 1 or docs.get("host_cards ready") != 1:
        problems.append(f"envelopes/host cards not rendered once: {docs}")
    if docs.get("gift_agreement ready") != figures["prizes"]:
        problems.append(
            f"agreements {docs.get('gift_agreement ready')} != prizes {figures['prizes']}"
        )
    if not any(r["what"] == "app1 worker" for r in figures["restarts"]):
        problems.append(f"the killed app1 worker was not restarted: {figures['restarts']}")
    air = figures["onair"]
    if air["overlays_missed_the_answer"]:
        problems.append(f"overlays missed the event after app2 was killed: {air}")
    if not air["overlays_reconnected_after_app2_killed"]:
        problems.append(f"no overlay was held on app2, so its loss was not tried: {air}")
    if figures["submissions_acknowledged"] < 50:
        problems.append("fewer than 50 acknowledged submissions: the stream did not run")
    return problems


def write_docs(figures: dict) -> None:
    lines = [
        MARK_START,
        "",
        f"Last run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on this project's "
        f"machine (2 cores), `make cluster-figures`; the app hosts ran {figures['installed']}.",
        "",
        "| figure | value |",
        "|---|---|",
    ]
    for fault in figures["faults"]:
        lines.append(f"| fault at {fault['at']} s | {fault['what']} |")
    for key in (
        "requests",
        "submissions_acknowledged",
        "submissions_refused",
        "questions_stored",
        "lost",
        "duplicated",
        "not_prechecked",
        "prechecked_twice",
        "emails_sent",
        "emails_lost",
        "emails_twice",
        "emails_in_doubt",
        "prizes",
        "recovered_seconds_after_last_fault",
    ):
        lines.append(f"| {key.replace('_', ' ')} | {figures[key]} |")
    lines.append(
        f"| documents | {', '.join(f'{k}: {n}' for k, n in figures['documents'].items())} |"
    )
    lines.append(f"| restarts (supervised processes that exited) | {len(figures['restarts'])} |")
    for r in figures["restarts"]:
        reason = r["reason"].replace("|", "/")
        lines.append(f"| restart at {r['at']} s | {r['what']} (exit {r['exit']}: {reason}) |")
    air = figures["onair"]

    def ms(values: list[float]) -> str:
        return ", ".join(str(v) for v in values)

    lines += [
        f"| on air: overlays held through nginx | {air['overlays']} |",
        f"| on air: the spin's delay to each overlay (ms) | {ms(air['spin_delay_ms'])} |",
        "| on air: app2 killed, overlays that connected again | "
        f"{air['overlays_reconnected_after_app2_killed']} |",
        "| on air: the next answer's delay to each overlay (ms) | "
        f"{ms(air['answer_after_app2_killed_delay_ms'])} |",
        f"| on air: overlays that missed it | {air['overlays_missed_the_answer']} |",
    ]
    lines.append(f"| whole run, wheel build included (s) | {figures['total_seconds']} |")
    lines += ["", MARK_END]
    text = DOCS.read_text()
    start, end = text.find(MARK_START), text.find(MARK_END)
    block = "\n".join(lines)
    if start == -1 or end == -1:
        text = text.rstrip() + "\n\n## Cluster test figures\n" + block + "\n"
    else:
        text = text[:start] + block + text[end + len(MARK_END) :]
    DOCS.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--write-docs", action="store_true", help="write the figures into docs/operations.md"
    )
    args = parser.parse_args(argv)
    missing = missing_tools()
    if missing:  # said at once, not found by a host that never starts
        print(f"cluster test needs: {', '.join(missing)}", file=sys.stderr)
        return 2
    figures = run_cluster()
    print(json.dumps(figures, ensure_ascii=False, indent=2))
    problems = check(figures)
    if args.write_docs:
        write_docs(figures)
    for p in problems:
        log(f"FAILED: {p}")
    return 1 if problems else 0


def run_cluster() -> dict:
    """Start the cluster, run :func:`scenario`, always tear down; returns the figures."""
    cluster = Cluster()
    previous = signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    started = time.monotonic()
    try:
        cluster.start()
        figures = scenario(cluster)
        figures["total_seconds"] = round(time.monotonic() - started, 1)
        return figures
    except BaseException:
        log(f"logs in {cluster.tmp} (kept: failure)")
        os.environ["SOVA_CLUSTER_KEEP"] = os.environ.get("SOVA_CLUSTER_KEEP", "1")
        raise
    finally:
        cluster.close()
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
