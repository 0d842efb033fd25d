"""Forwarded headers over real sockets between two hosts (``webapp.core.proxies``).

Two network namespaces joined by a veth pair: **app** (gunicorn with deploy/gunicorn.conf.py,
the checkout's Sova, SQLite) and **outsider** (a client on the network). With
``SOVA_PROXY_COUNT=1`` (nginx on the app host, loopback the trusted proxy) an outsider
connecting straight to gunicorn with ``X-Forwarded-For: 127.0.0.1`` used to read
``/metrics``; now it is judged by its own address (403), while a scraper on the app host
reads them (200) and a visitor relayed by the local proxy does not. A second gunicorn
names the outsider's address in ``SOVA_TRUSTED_PROXIES``: its forwarded header is then
believed, and loopback is no longer a proxy. Needs root and ``ip``; a few seconds (slow).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cluster.hosts import run, system_tool, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

#: Run in a namespace: GET each ``[url, headers]`` of argv[1] (JSON); print the statuses.
CLIENT = """
import json, sys, urllib.error, urllib.request
out = []
for url, headers in json.loads(sys.argv[1]):
    try:
        out.append(urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                          timeout=10).status)
    except urllib.error.HTTPError as exc:
        out.append(exc.code)
print(json.dumps(out))
"""


def _statuses(ns: str, calls: list[tuple[str, dict]]) -> list[int]:
    done = run(
        system_tool("ip"), "netns", "exec", ns, sys.executable, "-c", CLIENT, json.dumps(calls)
    )
    return json.loads(done.stdout)


def _subnet() -> int:
    used = run(system_tool("ip"), "-o", "addr").stdout
    for n in random.sample(range(20, 250), 230):
        if f"10.232.{n}." not in used:
            return n
    raise RuntimeError("no free 10.232.x.0/24 subnet")


@pytest.fixture
def two_hosts():
    """``{"app": (namespace, address), "outsider": (…)}``; removed afterwards."""
    if os.geteuid() != 0 or not os.access(system_tool("ip"), os.X_OK):
        pytest.skip("needs root and iproute2 (network namespaces)")
    ip, n = system_tool("ip"), _subnet()
    tag = f"svp{os.getpid() % 100000}"
    hosts = {"app": (f"{tag}-app", f"10.232.{n}.1"), "outsider": (f"{tag}-out", f"10.232.{n}.2")}
    made: list[str] = []
    try:
        for ns, _addr in hosts.values():
            run(ip, "netns", "add", ns)
            made.append(ns)
        run(ip, "link", "add", f"{tag}a", "type", "veth", "peer", "name", f"{tag}o")
        for (ns, addr), dev in zip(hosts.values(), (f"{tag}a", f"{tag}o"), strict=True):
            run(ip, "link", "set", dev, "netns", ns)
            run(ip, "netns", "exec", ns, ip, "addr", "add", f"{addr}/24", "dev", dev)
            run(ip, "netns", "exec", ns, ip, "link", "set", dev, "up")
            run(ip, "netns", "exec", ns, ip, "link", "set", "lo", "up")
        yield hosts
    finally:
        for ns in made:
            for pid in run(ip, "netns", "pids", ns, check=False).stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            run(ip, "netns", "del", ns, check=False)  # its end of the veth pair goes too


def _gunicorn(ns: str, port: int, instance: Path, log, **settings) -> subprocess.Popen:
    from cryptography.fernet import Fernet

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOVA_", "PROMETHEUS_"))}
    env.update(
        SOVA_INSTANCE_PATH=str(instance),
        SOVA_SECRET_KEY="trusted-proxies-test-" + "k" * 32,
        SOVA_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        SOVA_BIND=f"0.0.0.0:{port}",
        SOVA_WEB_WORKERS="1",
        **settings,
    )
    return subprocess.Popen(
        [system_tool("ip"), "netns", "exec", ns, str(BIN / "gunicorn"), "-c"]
        + [str(ROOT / "deploy" / "gunicorn.conf.py"), "webapp:create_app()"],
        env=env,
        cwd=instance,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def test_a_forged_forwarded_for_from_another_host_reads_no_metrics(
    two_hosts, tmp_path, sqlite_template
):
    (app_ns, app_ip), (out_ns, out_ip) = two_hosts["app"], two_hosts["outsider"]
    procs = []
    try:
        for name, port, settings in (
            ("nginx-local", 8001, {"SOVA_PROXY_COUNT": "1"}),
            ("proxy-outside", 8002, {"SOVA_TRUSTED_PROXIES": out_ip}),
        ):
            instance = tmp_path / name
            instance.mkdir()
            shutil.copy(sqlite_template, instance / "sova.sqlite")
            log = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115 — closed with the test
            procs.append((_gunicorn(app_ns, port, instance, log, **settings), log))
        for port in (8001, 8002):
            wait_for(
                lambda port=port: (
                    _statuses(app_ns, [(f"http://127.0.0.1:{port}/healthz", {})]) == [200]
                ),
                60,
                f"gunicorn on {port}",
                every=0.3,
            )
        forged = {"X-Forwarded-For": "127.0.0.1"}
        # SOVA_PROXY_COUNT=1, loopback the proxy: the outsider is judged by its own address
        assert _statuses(
            out_ns,
            [(f"http://{app_ip}:8001/metrics", forged), (f"http://{app_ip}:8001/metrics", {})],
        ) == [403, 403]
        assert _statuses(
            app_ns,
            [
                ("http://127.0.0.1:8001/metrics", {}),  # a scraper on the app host
                ("http://127.0.0.1:8001/metrics", {"X-Forwarded-For": out_ip}),  # relayed
            ],
        ) == [200, 403]
        # SOVA_TRUSTED_PROXIES=<the outsider>: its forwarded header is believed; loopback
        # is then a client like any other, judged by its own address
        assert _statuses(
            out_ns,
            [
                (f"http://{app_ip}:8002/metrics", forged),
                (f"http://{app_ip}:8002/metrics", {"X-Forwarded-For": "10.9.9.9"}),
            ],
        ) == [200, 403]
        assert _statuses(
            app_ns, [("http://127.0.0.1:8002/metrics", {"X-Forwarded-For": "10.9.9.9"})]
        ) == [200]
    finally:
        for proc, log in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
            log.close()
