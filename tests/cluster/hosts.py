"""The cluster test's hosts: network namespaces, their processes, supervision.

:class:`Cluster` makes the hosts (``ip netns``; each has one veth on a bridge private to the
test, addresses in ``10.231.<n>.0/24`` picked free at start): **data** (a private PostgreSQL
cluster and a private ``redis-server`` without persistence, started for the test — never the
machine's shared servers), **app1** and **app2** (gunicorn, the on-air stream service, a
Celery worker and the outbox relay each; beat on app1 only), **front** (nginx balancing the
two app hosts, the on-air feed to their stream services as deploy/nginx.conf routes it), and an
aiosmtpd sink on the bridge address.

The app hosts run Sova from its **installed wheel**: :func:`sova_bin` builds the wheel and
installs it with ``requirements/runtime.lock`` into a virtual environment in the test's
temporary folder (:func:`tests.helpers.install_wheel`), or takes ``SOVA_CLUSTER_BIN`` (the
``bin/`` folder of an environment Sova is installed in). Their processes start in a
working directory outside the checkout, with gunicorn's settings copied from
``deploy/gunicorn.conf.py`` and ``deploy/gunicorn-stream.conf.py`` as deploy/ does, and without the caller's ``PYTHONPATH``.

Web, stream, worker, relay and beat are **supervised** as the systemd units in deploy/ are
(``Restart=always``): one that exits is started again after :data:`RESTART_SECONDS`, and
:attr:`Cluster.restarts` records it (host, role, exit code, last error line). A host killed
on purpose (:meth:`Cluster.kill_host`) stays down until :meth:`Cluster.app_up`.

One class owns every host, process and the teardown that must remove them all, so the
clean-up has one place to be right in.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OWED_AFTER = 30  # seconds: SOVA_OWED_AFTER_SECONDS on the app hosts
#: systemd's RestartSec in deploy/systemd is 5 s; shorter here to keep the test short
RESTART_SECONDS = 2
SUPERVISED = ("web", "stream", "worker", "relay", "beat")


def log(msg: str) -> None:
    print(f"[cluster {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(*cmd: str, check: bool = True, **kw) -> subprocess.CompletedProcess:
    """``cmd`` to its end (at most 180 s); with ``check``, a failure raises
    ``AssertionError`` carrying the end of its output."""
    done = subprocess.run(list(cmd), capture_output=True, text=True, timeout=180, **kw)
    if check and done.returncode != 0:
        output = (done.stdout[-1500:] + "\n" + done.stderr[-3000:]).strip()
        raise AssertionError(f"{' '.join(cmd)}: exit {done.returncode}\n{output}")
    return done


def system_tool(name: str) -> str:
    """``name`` on PATH, else in /usr/sbin or /sbin (root's tools when PATH lacks them)."""
    for found in (shutil.which(name), f"/usr/sbin/{name}", f"/sbin/{name}"):
        if found and os.access(found, os.X_OK):
            return found
    return name


def missing_tools() -> list[str]:
    """What this machine lacks for the cluster test (empty: it can run)."""
    need = ["ip", "nginx", "redis-server", "redis-cli", "runuser"]
    missing = [t for t in need if not os.access(system_tool(t), os.X_OK)]
    if not sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")):
        missing.append("postgresql server")
    if os.geteuid() != 0:
        missing.append("root")
    return missing


def wait_for(predicate, timeout: float, what: str, every: float = 0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except Exception:  # noqa: BLE001 — a host still starting
            value = None
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def _free_subnet() -> int:
    used = run(system_tool("ip"), "-o", "addr").stdout
    for n in random.sample(range(20, 250), 230):
        if f"10.231.{n}." not in used:
            return n
    raise RuntimeError("no free 10.231.x.0/24 subnet")


def sova_bin(tmp: Path) -> tuple[Path, str]:
    """``(bin folder, what it is)``: ``SOVA_CLUSTER_BIN`` when set, else the wheel built from
    this checkout and installed into ``tmp/wheel/venv`` (about a minute)."""
    given = os.environ.get("SOVA_CLUSTER_BIN")
    if given:
        return Path(given), f"SOVA_CLUSTER_BIN={given}"
    from tests.helpers import install_wheel

    log("building the wheel and installing it with requirements/runtime.lock")
    venv, wheel = install_wheel(tmp / "wheel")
    return venv / "bin", wheel.name


class Cluster:
    """The hosts, their processes, and teardown (:meth:`close` removes everything)."""

    HOSTS = {"data": 10, "app1": 11, "app2": 12, "front": 13}

    def __init__(self):
        self.net = _free_subnet()
        self.tag = f"sv{self.net}{os.getpid() % 1000}"
        self.tmp = Path(tempfile.mkdtemp(prefix="sova-cluster-"))
        os.chmod(self.tmp, 0o755)
        self.bin = self.tmp / "unset"
        self.installed = ""
        self.procs: dict[tuple[str, str], subprocess.Popen] = {}
        self.specs: dict[tuple[str, str], tuple[list[str], dict]] = {}
        self.made_ns: list[str] = []
        self.bridge = f"{self.tag}br"
        self.pg_dir = self.tmp / "pg"
        self.pg_bin = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1].parent
        self.smtp = None
        self.secret, self.keys = "", ""
        # supervision (Restart=always): hosts down on purpose, exits seen, restarts made
        self.lock = threading.RLock()
        self.down: set[str] = set()
        self.exited: dict[tuple[str, str], float] = {}
        self.restarts: list[dict] = []
        self.stopping = threading.Event()
        self.supervisor = threading.Thread(target=self._supervise, daemon=True)

    def install(self) -> None:
        """Sova for the app hosts (:func:`sova_bin`); checks that what they import is the
        installed package, not this checkout."""
        self.bin, self.installed = sova_bin(self.tmp)
        cwd = self.cwd("app1")
        where = run(
            str(self.bin / "python"),
            "-c",
            "import webapp, workers; print(webapp.__file__); print(workers.__file__)",
            cwd=cwd,
            env=self.clean_env(),
        ).stdout.split()
        for path in where:
            if Path(path).is_relative_to(ROOT):
                raise AssertionError(f"the hosts would import the checkout: {where}")
        log(f"app hosts run {self.installed} ({self.bin})")

    def ip(self, host: str) -> str:
        return (
            f"10.231.{self.net}.{self.HOSTS[host]}" if host != "bridge" else f"10.231.{self.net}.1"
        )

    def ns(self, host: str) -> str:
        return f"{self.tag}-{host}"

    def cwd(self, host: str) -> Path:
        """The host's working directory (outside the checkout, like /var/lib/sova)."""
        path = self.tmp / "hosts" / host
        path.mkdir(parents=True, exist_ok=True)
        return path

    # --- network ----------------------------------------------------------------------
    def in_ns(self, host: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        """``cmd`` run to its end in ``host``'s namespace."""
        return run(system_tool("ip"), "netns", "exec", self.ns(host), *cmd, check=check)

    def network_up(self) -> None:
        ip = system_tool("ip")
        run(ip, "link", "add", self.bridge, "type", "bridge")
        run(ip, "addr", "add", f"{self.ip('bridge')}/24", "dev", self.bridge)
        run(ip, "link", "set", self.bridge, "up")
        for i, host in enumerate(self.HOSTS):
            ns, outer, inner = self.ns(host), f"{self.tag}o{i}", f"{self.tag}i{i}"
            run(ip, "netns", "add", ns)
            self.made_ns.append(ns)
            run(ip, "link", "add", outer, "type", "veth", "peer", "name", inner)
            run(ip, "link", "set", inner, "netns", ns)
            run(ip, "link", "set", outer, "master", self.bridge)
            run(ip, "link", "set", outer, "up")
            self.in_ns(host, ip, "addr", "add", f"{self.ip(host)}/24", "dev", inner)
            self.in_ns(host, ip, "link", "set", inner, "up")
            self.in_ns(host, ip, "link", "set", "lo", "up")
        hosts = ", ".join(f"{h} {self.ip(h)}" for h in self.HOSTS)
        log(f"hosts up on 10.231.{self.net}.0/24: {hosts}")

    # --- processes --------------------------------------------------------------------
    def spawn(
        self,
        host: str,
        name: str,
        cmd: list[str],
        env: dict | None = None,
        user: str | None = None,
    ) -> subprocess.Popen:
        """Start ``cmd`` in ``host``'s namespace (log ``<tmp>/<host>-<name>.log``); roles in
        :data:`SUPERVISED` are restarted when they exit (:meth:`_supervise`)."""
        prefix = [system_tool("ip"), "netns", "exec", self.ns(host)]
        if user:
            prefix += [system_tool("runuser"), "-u", user, "--"]
        env = env or os.environ.copy()
        with self.lock, open(self.tmp / f"{host}-{name}.log", "ab") as out:
            proc = subprocess.Popen(
                prefix + cmd,
                cwd=self.cwd(host),
                env=env,
                stdout=out,  # the child keeps its copy
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            self.procs[(host, name)] = proc
            if name in SUPERVISED:
                self.specs[(host, name)] = (cmd, env)
        return proc

    def _supervise(self) -> None:
        """Restart=always, RestartSec=:data:`RESTART_SECONDS` for supervised roles of hosts
        that are up; each restart is appended to :attr:`restarts`."""
        while not self.stopping.wait(0.5):
            with self.lock:
                for key, proc in list(self.procs.items()):
                    host, name = key
                    if key not in self.specs or host in self.down or self.stopping.is_set():
                        continue
                    code = proc.poll()
                    if code is None:
                        continue
                    since = self.exited.setdefault(key, time.monotonic())
                    if time.monotonic() - since < RESTART_SECONDS:
                        continue
                    del self.exited[key]
                    reason = self._last_error(host, name, code)
                    self.restarts.append(
                        {"what": f"{host} {name}", "at": since, "exit": code, "reason": reason}
                    )
                    log(f"{host} {name} exited ({code}: {reason}); restarting it")
                    self.spawn(host, name, *self.specs[key])

    def _last_error(self, host: str, name: str, code: int) -> str:
        """Why the role ended: the signal that killed it, else the last ERROR or CRITICAL
        record (or the last line) of its log, up to 200 characters."""
        if code < 0:
            return f"killed by {signal.Signals(-code).name}"
        try:
            with open(self.tmp / f"{host}-{name}.log", "rb") as f:
                f.seek(max(0, f.seek(0, 2) - 20000))
                lines = f.read().decode(errors="replace").splitlines()
        except OSError:
            return ""
        messages = []
        for line in lines:
            try:
                record = json.loads(line)  # SOVA_LOG_FORMAT=json
                line = f"{record['level']} {record['message']}"
            except (ValueError, KeyError, TypeError):
                pass
            messages.append(line.strip())
        found = [m for m in messages if "ERROR" in m or "CRITICAL" in m or "Unrecoverable" in m]
        return (found or messages or [""])[-1][:200]

    def kill_role(self, host: str, name: str) -> None:
        """SIGKILL one role's process group (a crash: supervision restarts it)."""
        with self.lock:
            proc = self.procs[(host, name)]
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)

    def kill_host(self, host: str) -> int:
        """SIGKILL every process in the host's namespace (no restarts until
        :meth:`app_up`); returns how many."""
        with self.lock:
            self.down.add(host)
            pids = [
                int(p)
                for p in run(
                    system_tool("ip"), "netns", "pids", self.ns(host), check=False
                ).stdout.split()
            ]
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            for (h, _), proc in self.procs.items():
                if h == host:
                    try:
                        proc.wait(10)
                    except subprocess.TimeoutExpired:
                        pass
        return len(pids)

    # --- data host ----------------------------------------------------------------------
    def postgres_up(self) -> None:
        self.pg_dir.mkdir()
        shutil.chown(self.pg_dir, "postgres", "postgres")
        initdb = (str(self.pg_bin / "initdb"), "-D", str(self.pg_dir / "data"), "--no-sync")
        run(
            system_tool("runuser"), "-u", "postgres", "--", *initdb, "-A", "trust", "-U", "postgres"
        )
        with open(self.pg_dir / "data" / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all 10.231.{self.net}.0/24 trust\n")
        self.pg_ctl("start")
        psql = str(self.pg_bin / "psql")
        self.in_ns(
            "data", psql, "-h", self.ip("data"), "-U", "postgres", "-c", "CREATE DATABASE sova"
        )

    def pg_ctl(self, action: str, *extra: str) -> None:
        options = (
            f"-p 5432 -k {self.pg_dir} -c listen_addresses={self.ip('data')} -c fsync=off "
            "-c max_connections=300"
        )
        data, logfile = str(self.pg_dir / "data"), str(self.pg_dir / "log")
        self.in_ns(
            "data",
            *(system_tool("runuser"), "-u", "postgres", "--", str(self.pg_bin / "pg_ctl")),
            *("-D", data, "-w", "-l", logfile, "-o", options, *extra, action),
        )

    def redis_up(self) -> None:
        """A private redis-server on the data host, without persistence (as deploy/)."""
        args = ["--port", "6379", "--save", "", "--appendonly", "no", "--protected-mode", "no"]
        self.spawn(
            "data",
            "redis",
            ["redis-server", "--bind", self.ip("data"), *args, "--dir", str(self.tmp)],
        )

        def pong() -> bool:
            return (
                run("redis-cli", "-h", self.ip("data"), "ping", check=False).stdout.strip()
                == "PONG"
            )

        wait_for(pong, 20, "redis")

    def redis_restart_empty(self) -> None:
        proc = self.procs[("data", "redis")]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        self.redis_up()

    # --- app and front hosts ------------------------------------------------------------
    def clean_env(self) -> dict:
        """The caller's environment without Sova's settings, Python paths or a virtual
        environment, with the installed Sova's ``bin/`` first on PATH."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SOVA_", "PROMETHEUS_", "PYTEST_", "PYTHON", "VIRTUAL_ENV"))
        }
        env["PATH"] = f"{self.bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        return env

    def app_env(self, host: str) -> dict:
        """The settings of ``host``'s processes (and its metrics folder, made if missing)."""
        (self.tmp / f"prom-{host}").mkdir(exist_ok=True)
        env = self.clean_env()
        env.update(
            {
                "SOVA_DATABASE_URL": f"postgresql+psycopg://postgres@{self.ip('data')}:5432/sova",
                "SOVA_BROKER_URL": f"redis://{self.ip('data')}:6379/0",
                # the web's commits reach every app host's stream service (deploy/systemd)
                "SOVA_REDIS_URL": f"redis://{self.ip('data')}:6379/1",
                "SOVA_SECRET_KEY": self.secret,
                "SOVA_ENCRYPTION_KEYS": self.keys,
                "SOVA_INSTANCE_PATH": str(self.tmp / "instance"),  # the shared volume
                "SOVA_OUTBOX_AUTOSEND": "0",
                "SOVA_RATELIMIT_ENABLED": "0",
                "SOVA_PROXY_COUNT": "1",
                "SOVA_TRUSTED_PROXIES": self.ip("front"),  # nginx, on the front host
                "SOVA_SMTP_URL": f"smtp://{self.ip('bridge')}:{self.smtp_port}",
                "SOVA_MAIL_LEASE_SECONDS": "10",
                "SOVA_OWED_AFTER_SECONDS": str(OWED_AFTER),
                "SOVA_RECONCILE_SECONDS": "5",
                "SOVA_LOG_FORMAT": "json",
                "SOVA_WEB_WORKERS": "2",
                "PROMETHEUS_MULTIPROC_DIR": str(self.tmp / f"prom-{host}"),
                "SOVA_PUBLIC_URL": f"http://{self.ip('front')}",
            }
        )
        return env

    def app_up(self, host: str) -> None:
        """Start web, stream, worker and relay on ``host`` (and beat on app1), the command lines of
        deploy/systemd; the host's metrics folder is cleared first (as at boot)."""
        from webapp.tasks.celery import WORKER_FLAGS

        env = self.app_env(host)
        prom = Path(env["PROMETHEUS_MULTIPROC_DIR"])
        shutil.rmtree(prom, ignore_errors=True)
        prom.mkdir()
        etc = self.tmp / "etc"  # /etc/sova/
        conf, stream_conf = etc / "gunicorn.conf.py", etc / "gunicorn-stream.conf.py"
        if not conf.exists():
            etc.mkdir()
            shutil.copy(ROOT / "deploy" / "gunicorn.conf.py", conf)
            shutil.copy(ROOT / "deploy" / "gunicorn-stream.conf.py", stream_conf)
        celery = str(self.bin / "celery")
        with self.lock:
            self.down.discard(host)
            self.spawn(
                host,
                "web",
                [
                    str(self.bin / "gunicorn"),
                    "-c",
                    str(conf),
                    "--bind",
                    "0.0.0.0:8000",
                    "webapp:create_app()",
                ],
                env,
            )
            self.spawn(
                host,
                "stream",
                [
                    str(self.bin / "gunicorn"),
                    "-c",
                    str(stream_conf),
                    "--bind",
                    "0.0.0.0:8001",
                    "webapp:create_app()",
                ],
                env,
            )
            self.spawn(
                host,
                "worker",
                [celery, "-A", "workers.app", "worker", "--loglevel=INFO", "--concurrency=2"]
                + ["-n", f"celery@{host}", *WORKER_FLAGS],
                env,
            )
            self.spawn(host, "relay", [str(self.bin / "sova"), "outbox", "relay"], env)
            if host == "app1":
                schedule = str(self.tmp / "celerybeat-schedule")
                self.spawn(
                    host,
                    "beat",
                    [celery, "-A", "workers.app", "beat", "--loglevel=INFO", "-s", schedule],
                    env,
                )

    def sova(self, *args: str) -> str:
        """``sova ARGS`` on app1 (the installed console script); its stdout."""
        return run(
            system_tool("ip"),
            "netns",
            "exec",
            self.ns("app1"),
            str(self.bin / "sova"),
            *args,
            env=self.app_env("app1"),
            cwd=self.cwd("app1"),
        ).stdout

    def front_up(self) -> None:
        conf = self.tmp / "nginx.conf"
        temp = self.tmp / "nginx-temp"
        temp.mkdir()
        conf.write_text(f"""
user root;
worker_processes 1;
daemon off;
pid {self.tmp}/nginx.pid;
error_log {self.tmp}/front-nginx-error.log;
events {{ worker_connections 512; }}
http {{
  access_log off;
  client_body_temp_path {temp}/body; proxy_temp_path {temp}/proxy;
  fastcgi_temp_path {temp}/fcgi; uwsgi_temp_path {temp}/uwsgi; scgi_temp_path {temp}/scgi;
  upstream sova {{
    server {self.ip("app1")}:8000 max_fails=1 fail_timeout=3s;
    server {self.ip("app2")}:8000 max_fails=1 fail_timeout=3s;
  }}
  upstream sova_stream {{
    server {self.ip("app1")}:8001 max_fails=1 fail_timeout=3s;
    server {self.ip("app2")}:8001 max_fails=1 fail_timeout=3s;
  }}
  server {{
    listen {self.ip("front")}:80;
    client_max_body_size 8m;
    location ~ ^/api/v1/games/[0-9]+/onair(/stream|\\.json)$ {{
      proxy_pass http://sova_stream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_connect_timeout 2s;
      proxy_read_timeout 60s;
      proxy_next_upstream error timeout;
    }}
    location / {{
      proxy_pass http://sova;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Request-ID $request_id;
      proxy_connect_timeout 2s;
      proxy_read_timeout 30s;
      proxy_next_upstream error timeout;
    }}
  }}
}}
""")
        self.spawn("front", "nginx", [system_tool("nginx"), "-c", str(conf)])

    def smtp_up(self) -> None:
        from aiosmtpd.controller import Controller

        self.mail: list[str] = []
        lock = threading.Lock()
        outer = self

        class Sink:
            async def handle_DATA(self, server, session, envelope):
                with lock:
                    outer.mail.extend(envelope.rcpt_tos)
                return "250 2.0.0 Ok: queued"

        with socket.socket() as sock:
            sock.bind((self.ip("bridge"), 0))
            self.smtp_port = sock.getsockname()[1]
        self.smtp = Controller(Sink(), hostname=self.ip("bridge"), port=self.smtp_port)
        self.smtp.start()

    # --- teardown -----------------------------------------------------------------------
    def close(self) -> None:
        self.stopping.set()
        if self.supervisor.is_alive():
            self.supervisor.join(10)
        with self.lock:
            for ns in self.made_ns:
                pids = run(system_tool("ip"), "netns", "pids", ns, check=False).stdout.split()
                for pid in pids:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (ProcessLookupError, ValueError):
                        pass
            for proc in self.procs.values():
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    pass
        if self.pg_dir.exists():
            run(
                system_tool("runuser"),
                "-u",
                "postgres",
                "--",
                str(self.pg_bin / "pg_ctl"),
                "-D",
                str(self.pg_dir / "data"),
                "-m",
                "immediate",
                "stop",
                check=False,
            )
        for ns in self.made_ns:
            run(system_tool("ip"), "netns", "del", ns, check=False)
        run(system_tool("ip"), "link", "del", self.bridge, check=False)
        for i in range(len(self.HOSTS)):
            run(system_tool("ip"), "link", "del", f"{self.tag}o{i}", check=False)
        if self.smtp is not None:
            self.smtp.stop()
        if os.environ.get("SOVA_CLUSTER_KEEP") != "1":
            shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self) -> None:
        """Everything up: Sova installed, network, sink, data host, schema, both app hosts,
        the front, supervision."""
        from cryptography.fernet import Fernet

        self.secret, self.keys = os.urandom(32).hex(), Fernet.generate_key().decode()
        self.install()
        self.network_up()
        self.smtp_up()
        self.postgres_up()
        self.redis_up()
        self.sova("db", "upgrade", "heads")
        for host in ("app1", "app2"):
            self.app_up(host)
        self.front_up()
        self.supervisor.start()
