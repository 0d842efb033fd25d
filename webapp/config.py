"""Configuration: defaults, then ``SOVA_*`` environment variables, then ``test_config``.

Every variable is optional for ``make run``; with ``SOVA_ENV=production`` the secrets
(``SOVA_SECRET_KEY``, ``SOVA_ENCRYPTION_KEYS``) must come from the environment and a
missing one stops start-up with :class:`ConfigError`. See ``shared/contracts/api.md``.
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

from cryptography.fernet import Fernet
from platformdirs import user_data_dir

from webapp.core.proxies import DEFAULT_TRUSTED, parse_networks


class ConfigError(RuntimeError):
    """A required setting is missing or malformed (raised at start-up, never later)."""


def _instance_secret(instance: Path, name: str, make) -> str:
    """Read ``instance/name``, creating it with ``make()`` (mode 0600) on first run."""
    path = instance / name
    if not path.exists():
        instance.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(make())
    return path.read_text().strip()


def instance_path(test_config: dict | None = None) -> tuple[Path, str]:
    """Where this process keeps its files (SQLite database, embedded broker, uploads,
    documents, generated secrets), and why: ``(path, source)``.

    ``SOVA_INSTANCE_PATH`` (``test_config`` first, then the environment; source
    ``"SOVA_INSTANCE_PATH"``), else the per-user data directory of platformdirs
    (``~/.local/share/sova`` on Linux; source ``"per-user data directory"``). Never the
    current directory unasked (``contracts/api.md`` "Configuration"). Creates nothing.
    """
    given = (test_config or {}).get("SOVA_INSTANCE_PATH") or os.environ.get("SOVA_INSTANCE_PATH")
    if given:
        return Path(given).expanduser().resolve(), "SOVA_INSTANCE_PATH"
    return Path(user_data_dir("sova", appauthor=False)), "per-user data directory"


def _members(value) -> list[str]:
    """A list of names from a list or a ";"-separated string."""
    items = value if isinstance(value, list | tuple) else (value or "").split(";")
    return [m.strip() for m in items if m and m.strip()]


#: The SMS gateway's secret `make run` sets (development only) so that the §3.1 vote can be
#: rehearsed with `sova vote simulate`; refused with SOVA_ENV=production (it is public).
DEMO_SMS_SECRET = "sova-demo-sms-rehearsal"


def load_config(test_config: dict | None = None) -> dict:
    """Return the Flask config mapping for this process.

    Order: defaults < environment (``SOVA_*``) < ``test_config``.
    Raises ConfigError in production when a secret is missing.
    """
    env = os.environ
    test_config = dict(test_config or {})
    instance, _source = instance_path(test_config)
    sova_env = test_config.get("SOVA_ENV") or env.get("SOVA_ENV", "development")
    production = sova_env == "production"

    def setting(name: str, default=None):
        return test_config.get(name, env.get(name, default))

    secret_key = setting("SOVA_SECRET_KEY")
    keys = setting("SOVA_ENCRYPTION_KEYS")
    if production and not secret_key:
        raise ConfigError("SOVA_SECRET_KEY is required when SOVA_ENV=production")
    if production and not keys:
        raise ConfigError("SOVA_ENCRYPTION_KEYS is required when SOVA_ENV=production")
    if production and setting("SOVA_SMS_SECRET") == DEMO_SMS_SECRET:
        raise ConfigError(
            "SOVA_SMS_SECRET is the published rehearsal secret of `make run`: "
            "set the SMS gateway's own secret when SOVA_ENV=production"
        )
    trusted_setting = setting("SOVA_TRUSTED_PROXIES")
    try:
        trusted_proxies = parse_networks(trusted_setting or DEFAULT_TRUSTED)
        proxy_count = int(setting("SOVA_PROXY_COUNT", "0") or 0)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if trusted_setting and not proxy_count:
        proxy_count = 1
    if not secret_key:
        secret_key = _instance_secret(instance, "secret_key", lambda: secrets.token_hex(32))
    if not keys:
        keys = _instance_secret(instance, "encryption_keys", lambda: Fernet.generate_key().decode())

    db_url = setting("SOVA_DATABASE_URL") or f"sqlite:///{instance / 'sova.sqlite'}"
    broker = setting("SOVA_BROKER_URL") or f"sqla+sqlite:///{instance / 'broker.sqlite'}"

    config = {
        "SOVA_ENV": sova_env,
        "SOVA_INSTANCE_PATH": str(instance),
        "SECRET_KEY": secret_key,
        "SOVA_ENCRYPTION_KEYS": [k.strip() for k in keys.split(",") if k.strip()],
        "SQLALCHEMY_DATABASE_URI": db_url,
        # Connections idle this long are pinged at checkout (webapp.core.pool); a connection
        # in steady use is not (pool_pre_ping would ping every checkout).
        "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": False},
        "SOVA_DB_PING_IDLE_SECONDS": float(setting("SOVA_DB_PING_IDLE_SECONDS", "1")),
        "SOVA_BROKER_URL": broker,
        "SOVA_REDIS_URL": setting("SOVA_REDIS_URL"),
        "SOVA_SMTP_URL": setting("SOVA_SMTP_URL"),
        "SOVA_MAIL_LEASE_SECONDS": float(setting("SOVA_MAIL_LEASE_SECONDS", "60")),
        # Owed work (webapp.tasks.owed.reconcile): a task handed to the broker and not done after
        # this many seconds is sent again (at most SOVA_OWED_MAX_ATTEMPTS times in all);
        # the beat checks every SOVA_RECONCILE_SECONDS.
        "SOVA_OWED_AFTER_SECONDS": float(setting("SOVA_OWED_AFTER_SECONDS", "600")),
        "SOVA_OWED_MAX_ATTEMPTS": int(setting("SOVA_OWED_MAX_ATTEMPTS", "10")),
        "SOVA_RECONCILE_SECONDS": float(setting("SOVA_RECONCILE_SECONDS", "60")),
        # Workers and the beat write a heartbeat row this often (webapp.tasks.heartbeat; read by
        # `sova health`), and check then whether a Redis broker restarted empty.
        "SOVA_HEARTBEAT_SECONDS": float(setting("SOVA_HEARTBEAT_SECONDS", "10")),
        # Monitoring (webapp.observability): /metrics from loopback or with this bearer
        # token; "json" for one JSON object per log line.
        "SOVA_METRICS_TOKEN": setting("SOVA_METRICS_TOKEN"),
        "SOVA_LOG_FORMAT": setting("SOVA_LOG_FORMAT", "text"),
        "RATELIMIT_STORAGE_URI": setting("SOVA_REDIS_URL") or "memory://",
        # No X-RateLimit-* headers on every limited response: writing them costs a Redis
        # round trip per limit (a third of the limiter's work on POST /submit)
        # and no page or contract reads them. A 429 still says when to come back
        # (Retry-After, webapp.security.retry_after).
        "RATELIMIT_HEADERS_ENABLED": False,
        # Redis down must not turn /submit or /login into a 500: limits fall back to memory.
        "RATELIMIT_SWALLOW_ERRORS": True,
        "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED": True,
        # Reverse proxies (webapp.core.proxies): how many hops write X-Forwarded-* (nginx:
        # 1), and the addresses/networks whose forwarded headers are believed (default
        # loopback); with only the addresses given, one hop.
        "SOVA_PROXY_COUNT": proxy_count,
        "SOVA_TRUSTED_PROXIES": trusted_proxies,
        # A viewer who fills the form faster than this is a bot (seconds).
        "SOVA_MIN_FILL_SECONDS": int(setting("SOVA_MIN_FILL_SECONDS", "3")),
        # Off only for benchmarks from one address (SOVA_RATELIMIT_ENABLED=0).
        "RATELIMIT_ENABLED": setting("SOVA_RATELIMIT_ENABLED", "1") != "0",
        # Base of links in e-mails (status pages); `make run` serves on SOVA_PORT.
        "SOVA_PUBLIC_URL": setting("SOVA_PUBLIC_URL")
        or f"http://127.0.0.1:{setting('SOVA_PORT', '5000')}",
        # Send outbox messages to the broker right after commit (the beat sweeper is the
        # safety net). SOVA_OUTBOX_AUTOSEND=0 when a relay process (`sova outbox relay`)
        # sends them instead (production); unit tests turn it off and drain in-process.
        "SOVA_OUTBOX_AUTOSEND": setting("SOVA_OUTBOX_AUTOSEND", "1"),
        "SOVA_DOCUMENTS_PATH": str(instance / "documents"),
        "SOVA_BROADCASTER": {
            "name": setting("SOVA_BROADCASTER_NAME", "ЗАО «Второй национальный телеканал»"),
            "address": setting("SOVA_BROADCASTER_ADDRESS", "г. Минск"),
            "unp": setting("SOVA_BROADCASTER_UNP", ""),
            "inn": setting("SOVA_BROADCASTER_INN", ""),
            "bank": setting("SOVA_BROADCASTER_BANK", ""),
            "represented_by": setting("SOVA_BROADCASTER_REPRESENTATIVE", ""),
            "place": setting("SOVA_BROADCASTER_PLACE", "г. Минск"),
        },
        # Prizes and paperwork: the prize commission (names, ";"-separated), how long payee
        # details are kept after payment, link lifetime, reminders, overdue threshold.
        "SOVA_PRIZE_COMMISSION": _members(setting("SOVA_PRIZE_COMMISSION")),
        "SOVA_PAYEE_RETENTION_DAYS": int(setting("SOVA_PAYEE_RETENTION_DAYS", "90")),
        "SOVA_DETAILS_LINK_HOURS": int(setting("SOVA_DETAILS_LINK_HOURS", "168")),
        "SOVA_DETAILS_REMIND_DAYS": int(setting("SOVA_DETAILS_REMIND_DAYS", "3")),
        "SOVA_PRIZE_OVERDUE_DAYS": int(setting("SOVA_PRIZE_OVERDUE_DAYS", "30")),
        # The 2009 §3.1 audience vote: the SMS gateway's shared secret (unset: the callback
        # answers 503) and how long the hashed phone numbers are kept after closing.
        "SOVA_SMS_SECRET": setting("SOVA_SMS_SECRET") or None,
        "SOVA_VOTE_RETENTION_DAYS": int(setting("SOVA_VOTE_RETENTION_DAYS", "30")),
        # refused SMS signatures per client address before they answer 429 (signed calls
        # are never limited: webapp.api.votes)
        "SOVA_SMS_REFUSED_LIMIT": setting("SOVA_SMS_REFUSED_LIMIT", "20 per minute"),
        # The time zone of pages that belong to no season (the moderation queue, a viewer's
        # status page); a season's own pages use the season's zone (webapp.core.formats).
        "SOVA_TIMEZONE": setting("SOVA_TIMEZONE", "Europe/Minsk"),
        # The queue's exports: up to this many rows the file is streamed in the request;
        # more are written by the worker (a progress page, then a download link), and its
        # file is deleted this many hours after it is ready.
        "SOVA_EXPORT_INLINE_ROWS": int(setting("SOVA_EXPORT_INLINE_ROWS", "50000")),
        "SOVA_EXPORT_KEEP_HOURS": int(setting("SOVA_EXPORT_KEEP_HOURS", "24")),
        # `sova backup FOLDER` deletes that folder's archives older than this (0: keep all);
        # the privacy notice (/privacy) states it.
        "SOVA_BACKUP_RETENTION_DAYS": int(setting("SOVA_BACKUP_RETENTION_DAYS", "35")),
        # The key that encrypts and signs backups (URL-safe base64 of 32 bytes; unset: the
        # file <instance>/backup_key, made by the first backup). Keep a copy apart from the
        # archives: without it no archive can be restored (webapp.backup.backup_key).
        "SOVA_BACKUP_KEY": setting("SOVA_BACKUP_KEY") or None,
        # Where viewers ask for their data to be deleted (an e-mail address), on /privacy.
        "SOVA_PRIVACY_CONTACT": setting("SOVA_PRIVACY_CONTACT", ""),
        # the callback's group commit on PostgreSQL (webapp/votes/group_commit.py); "0" turns
        # it off (one INSERT and commit per message: the bench's comparison)
        "SOVA_VOTE_GROUP_COMMIT": setting("SOVA_VOTE_GROUP_COMMIT", "1") != "0",
        # the SMS callback's short path in front of Flask (webapp/sms_gateway.py); "0"
        # sends every callback through Flask
        "SOVA_SMS_SHORT_PATH": setting("SOVA_SMS_SHORT_PATH", "1") != "0",
        "MAX_CONTENT_LENGTH": 8 * 1024 * 1024,
        "WTF_CSRF_TIME_LIMIT": 6 * 3600,
        # Staff sessions end after a working day without a request: the signed
        # cookie's timestamp is checked on the server (max_age) and renewed by each request.
        "PERMANENT_SESSION_LIFETIME": timedelta(
            hours=float(setting("SOVA_STAFF_SESSION_HOURS", "10"))
        ),
        "SESSION_REFRESH_EACH_REQUEST": True,
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": production,
        "REMEMBER_COOKIE_SECURE": production,
        # flask-smorest: the OpenAPI document at /api/v1/openapi.json
        "API_TITLE": "Sova API",
        "API_VERSION": "v1",
        "OPENAPI_VERSION": "3.1.0",
        "OPENAPI_URL_PREFIX": "/api/v1",
        "OPENAPI_JSON_PATH": "openapi.json",
    }
    for key, value in test_config.items():
        if key not in ("SOVA_INSTANCE_PATH",):
            config[key] = value
    # "0"/"false"/"no"/"off" (any case) or False turn it off; from the environment or a test
    config["SOVA_OUTBOX_AUTOSEND"] = str(config["SOVA_OUTBOX_AUTOSEND"]).strip().lower() not in (
        "0",
        "false",
        "no",
        "off",
    )
    if "SOVA_DATABASE_URL" in test_config:
        config["SQLALCHEMY_DATABASE_URI"] = test_config["SOVA_DATABASE_URL"]
    if str(config["SQLALCHEMY_DATABASE_URI"]).startswith("postgresql"):
        config["SQLALCHEMY_ENGINE_OPTIONS"] = {
            **config["SQLALCHEMY_ENGINE_OPTIONS"],
            "connect_args": {"options": POSTGRESQL_OPTIONS},
        }
    return config


#: Settings of every PostgreSQL connection. ``jit=off``: the server's JIT compiles a
#: statement whose estimated cost passes ``jit_above_cost``, and Sova's statements are short
#: reads that the compilation only slows (the editors' statistics most:
#: docs/performance-history.md, «Cost as the archive grows»).
POSTGRESQL_OPTIONS = "-c jit=off"
