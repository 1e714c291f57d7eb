"""Everything the service reads from its environment, with the embedded defaults.

One frozen object shared by the HTTP app and the job queue, so a separate consumer
process (``huey_consumer shiftsched.service.solving.jobs.huey``) configures itself from the same
variables as the server it works for.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from shiftsched.service.billing.payments.config import (
    MppSettings,
    X402Settings,
    mpp_from_env,
    x402_from_env,
)
from shiftsched.solving.cores import available_cores

DEFAULT_PORT = 3000  # the port `make serve` uses when PORT is unset
DEMO_EMAIL = "demo@example.com"  # the demo account's sign-in unless DEMO_EMAIL is set
# Measured (benchmarks/docs/service.md, "Solves sharing the cores"): on 2 cores a second solve
# at once costs 1.0-1.1x in roster cost at 30 s and 1.3-1.9x at 5 s, a third 3-190x at
# 5 s; one CP-SAT worker per solve is far worse than two. So: one solve per core, two
# CP-SAT workers each.
CP_SAT_WORKERS_PER_SOLVE = 2


#: The served defaults of the rate limits (shiftsched.service.http.rate_limits): a burst and a
#: steady rate. Five free calls a second from one address is more than a person or a
#: notebook sends, and bounds what one address can make the service do for nothing.
DEFAULT_ANONYMOUS_RATE_LIMIT = "5/second;60/minute"
DEFAULT_KEY_RATE_LIMIT = "20/second;600/minute"


def _limit(env: Mapping[str, str], name: str, default: str) -> str | None:
    """A rate limit from the environment: unset takes ``default``; "off" is no limit."""
    value = env.get(name, default).strip()
    return None if value.lower() in ("", "off", "none") else value


def public_url_from_env(env: Mapping[str, str]) -> str:
    """``PUBLIC_URL`` when set, else ``http://localhost:$PORT`` (the port being served).

    Without this, a server started on another port would advertise the default one in
    its OAuth discovery documents, and clients following them would knock on the wrong
    door. No trailing slash.
    """
    explicit = env.get("PUBLIC_URL")
    if explicit:
        return explicit.rstrip("/")
    return f"http://localhost:{int(env.get('PORT') or DEFAULT_PORT)}"


@dataclass(frozen=True)
class Settings:
    database_url: str | None = None  # None: a SQLite file under var/
    errors_base: str | None = None  # None: <server>/v1/public/errors
    demo_api_key: str | None = None
    # The demo account's dashboard sign-in (shiftsched.service.ops.demo); no password: a random one,
    # printed at the start that creates the user. from_env (the service) sets DEMO_EMAIL
    # by default; None, as a Settings built in code has it, makes no demo user.
    demo_email: str | None = None
    demo_password: str | None = None
    solve_processes: int = 2  # from_env: SOLVE_PROCESSES, else one per available core
    solver_memory_mb: int = 4096
    cp_sat_workers: int = CP_SAT_WORKERS_PER_SOLVE
    diagnosis_budget_seconds: float = 10.0
    # Admission of synchronous solves: how long one may wait for a free solver process,
    # and how many may wait at once, before it is answered 503 with Retry-After.
    solve_queue_wait_seconds: float = 10.0
    solve_queue_length: int = 32
    jobs_redis_url: str | None = None  # set: RedisHuey; None: SqliteHuey on a file
    jobs_db_path: str | None = None  # None: jobs.db beside the SQLite database (or var/)
    jobs_workers: int | None = None  # None: solve_processes - 1 (at least 1)
    jobs_consumer: bool = True  # False: queued jobs are run by separate consumers
    x402: X402Settings | None = None  # None: x402 payments off (X402_PAY_TO unset)
    mpp: MppSettings | None = None  # None: mpp payments off (MPP_PAYMENTS_ACCOUNT unset)
    # Where browsers and OAuth clients reach us; from_env: PUBLIC_URL, else localhost:$PORT.
    public_url: str = f"http://localhost:{DEFAULT_PORT}"
    dashboard_secret: str | None = None  # signs dashboard cookies; None: random per start
    sign_in_limit_storage: str | None = None  # limits storage URI; None: per-process memory
    # Proxies of ours in front of the service, each appending to X-Forwarded-For: the
    # sign-in and sign-up limits count the address the outermost one saw. 0: the peer.
    trusted_proxy_hops: int = 0
    # Finished jobs (queued, and completed synchronous solves) can be polled this long.
    job_retention_days: float = 30.0
    # How long an Idempotency-Key answers its first call again (service.http.idempotency).
    idempotency_ttl_hours: float = 24.0
    # Webhooks (shiftsched.service.webhooks): how often the sender looks for ended jobs and due
    # deliveries (None: no sender, as a Settings built in code has it; from_env: 1 s), and
    # which addresses it may send to besides public https ones (against request forgery).
    webhook_every_seconds: float | None = None
    webhook_allow_loopback: bool = False
    webhook_allow_private: bool = False
    # How long running solves may go on after SIGTERM before they are cut off with 503.
    shutdown_grace_seconds: float = 20.0
    # Rate limits (``limits`` notation, e.g. "5/second;60/minute";
    # shiftsched.service.http.rate_limits): per client address for calls without a key (validate,
    # audit, compare, unknown paths, OAuth client registration), per API key for calls with one.
    # from_env sets the defaults below; None, as a Settings built in code has it, is no limit.
    anonymous_rate_limit: str | None = None
    key_rate_limit: str | None = None
    # Where the counts live: a limits storage URI (redis://...) shared by every replica;
    # None: SIGN_IN_LIMIT_STORAGE, else this process's memory.
    rate_limit_storage: str | None = None
    # Work that solves nothing (validation, audit, comparison, recommendation) runs in a
    # pool of its own (shiftsched.service.solving.light): processes, and how many may wait for one.
    light_processes: int = 1
    light_queue_length: int = 8
    light_prestart: bool = False  # from_env: true, so the first free call finds it ready
    # How long a delivered answer waits for an unreachable store to record its charge
    # before the outbox keeps it (shiftsched.service.billing.units): the headers then say what the
    # ledger holds whenever the store is back within it.
    settle_patience_seconds: float = 60.0
    # Rendered roster files and print sheets kept for repeats
    # (shiftsched.service.dashboard.downloads), in MB in all, and how many downloads and prints one
    # account may ask for a minute.
    export_cache_mb: int = 64
    exports_per_minute: int = 30

    @property
    def job_threads(self) -> int:
        """Jobs solved at once in this process; one pool process stays free for sync solves."""
        if self.jobs_workers is not None:
            return max(1, self.jobs_workers)
        return max(1, self.solve_processes - 1)

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        workers = env.get("JOBS_WORKERS")
        return cls(
            database_url=env.get("DATABASE_URL") or None,
            errors_base=env.get("ERRORS_BASE") or None,
            demo_api_key=env.get("DEMO_API_KEY") or None,
            demo_email=env.get("DEMO_EMAIL") or DEMO_EMAIL,
            demo_password=env.get("DEMO_PASSWORD") or None,
            solve_processes=int(env.get("SOLVE_PROCESSES") or available_cores()),
            solver_memory_mb=int(env.get("SOLVER_MEMORY_MB", cls.solver_memory_mb)),
            cp_sat_workers=int(env.get("CP_SAT_WORKERS", cls.cp_sat_workers)),
            diagnosis_budget_seconds=float(
                env.get("DIAGNOSIS_BUDGET_SECONDS", cls.diagnosis_budget_seconds)
            ),
            solve_queue_wait_seconds=float(
                env.get("SOLVE_QUEUE_WAIT_SECONDS", cls.solve_queue_wait_seconds)
            ),
            solve_queue_length=int(env.get("SOLVE_QUEUE_LENGTH", cls.solve_queue_length)),
            jobs_redis_url=env.get("JOBS_REDIS_URL") or None,
            jobs_db_path=env.get("JOBS_DB_PATH") or None,
            jobs_workers=int(workers) if workers else None,
            jobs_consumer=env.get("JOBS_CONSUMER", "embedded").lower() != "external",
            x402=x402_from_env(env),
            mpp=mpp_from_env(env),
            public_url=public_url_from_env(env),
            dashboard_secret=env.get("DASHBOARD_SECRET") or None,
            sign_in_limit_storage=env.get("SIGN_IN_LIMIT_STORAGE") or None,
            trusted_proxy_hops=int(env.get("TRUSTED_PROXY_HOPS") or 0),
            job_retention_days=float(env.get("JOB_RETENTION_DAYS", cls.job_retention_days)),
            webhook_every_seconds=float(env.get("WEBHOOK_EVERY_SECONDS") or 1.0),
            webhook_allow_loopback=_flag(env, "WEBHOOK_ALLOW_LOOPBACK"),
            webhook_allow_private=_flag(env, "WEBHOOK_ALLOW_PRIVATE"),
            idempotency_ttl_hours=float(
                env.get("IDEMPOTENCY_TTL_HOURS", cls.idempotency_ttl_hours)
            ),
            shutdown_grace_seconds=float(
                env.get("SHUTDOWN_GRACE_SECONDS", cls.shutdown_grace_seconds)
            ),
            anonymous_rate_limit=_limit(env, "ANONYMOUS_RATE_LIMIT", DEFAULT_ANONYMOUS_RATE_LIMIT),
            key_rate_limit=_limit(env, "KEY_RATE_LIMIT", DEFAULT_KEY_RATE_LIMIT),
            rate_limit_storage=env.get("RATE_LIMIT_STORAGE") or None,
            light_processes=int(env.get("LIGHT_PROCESSES", cls.light_processes)),
            light_queue_length=int(env.get("LIGHT_QUEUE_LENGTH", cls.light_queue_length)),
            light_prestart=env.get("LIGHT_PRESTART", "true").lower() not in ("0", "false", "no"),
            settle_patience_seconds=float(
                env.get("SETTLE_PATIENCE_SECONDS", cls.settle_patience_seconds)
            ),
            export_cache_mb=int(env.get("EXPORT_CACHE_MB", cls.export_cache_mb)),
            exports_per_minute=int(env.get("EXPORTS_PER_MINUTE", cls.exports_per_minute)),
        )


def _flag(env: Mapping[str, str], name: str) -> bool:
    """An on/off setting: 1, true or yes (any case) is on; unset is off."""
    return env.get(name, "").strip().lower() in ("1", "true", "yes")
