"""The deployment files agree with the code: deploy/compose.yaml passes only settings the
service reads, wires every process to the same database and queue, and waits for healthy
backends; deploy/.env.example names every variable the stack uses; docs/operations.md
documents every setting the service reads.

No container runs here: the files are read as data (PyYAML) and checked against the
settings found in the service's source.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).parent.parent
DEPLOY = ROOT / "deploy"
GUIDE = ROOT / "docs" / "operations.md"
APP_SERVICES = ("web", "consumer")
"""The services that run the shiftsched image."""
SERVER_SETTINGS = {"FORWARDED_ALLOW_IPS"}
"""Read by the HTTP server BentoML runs (uvicorn), not by the service's code."""

# `env.get("NAME"`, `env["NAME"]`, `environ.get('NAME'`, `_int(env, "NAME"`.
READ = re.compile(
    r"""(?:\benv(?:iron)?\.get\(\s*|\benv\[\s*|_int\(env,\s*)["']([A-Z][A-Z0-9_]*)["']"""
)
INTERPOLATED = re.compile(r"\$\{([A-Z][A-Z0-9_]*)")
# Compose's forms used here: ${NAME}, ${NAME:-default}, ${NAME:?message}; $$ is a dollar.
SUBSTITUTION = re.compile(r"\$\$|\$\{([A-Z][A-Z0-9_]*)(?::([-?])([^}]*))?\}")


@cache
def settings_read() -> frozenset[str]:
    """Every environment variable the service's code reads (shiftsched/service/**/*.py)."""
    names: set[str] = set()
    for path in (ROOT / "shiftsched" / "service").rglob("*.py"):
        names.update(READ.findall(path.read_text(encoding="utf-8")))
    return frozenset(names)


@cache
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def service(name: str) -> dict[str, Any]:
    services = compose()["services"]
    assert name in services, f"compose.yaml has no service {name!r}"
    found = services[name]
    assert isinstance(found, dict)
    return found


def environment(name: str) -> dict[str, Any]:
    env = service(name).get("environment") or {}
    assert isinstance(env, dict), "environment as a mapping, so merges and checks are exact"
    return env


def env_example() -> dict[str, str | None]:
    """deploy/.env.example's variables: value when set, None when commented out."""
    found: dict[str, str | None] = {}
    for line in (DEPLOY / ".env.example").read_text(encoding="utf-8").splitlines():
        set_line = re.fullmatch(r"([A-Z][A-Z0-9_]*)=(.*)", line)
        commented = re.fullmatch(r"#\s*([A-Z][A-Z0-9_]*)=.*", line)
        if set_line:
            found[set_line.group(1)] = set_line.group(2)
        elif commented:
            found.setdefault(commented.group(1), None)
    return found


def test_the_scan_finds_the_settings_module_and_the_payment_settings() -> None:
    # Guards the scan itself: a pattern that stopped matching would make the rest vacuous.
    assert {
        "DATABASE_URL",
        "PORT",
        "PUBLIC_URL",
        "JOBS_CONSUMER",
        "JOBS_REDIS_URL",
        "DASHBOARD_SECRET",
        "X402_PAY_TO",
        "X402_VERSION",
        "MPP_SECRET_KEY",
    } <= settings_read()


def test_every_setting_the_service_reads_is_in_the_operations_guide() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    missing = sorted(name for name in settings_read() if f"`{name}`" not in guide)
    assert not missing, f"docs/operations.md does not describe {missing}"


def test_app_services_pass_only_settings_the_service_reads() -> None:
    known = settings_read() | SERVER_SETTINGS
    guide = GUIDE.read_text(encoding="utf-8")
    for name in APP_SERVICES:
        unknown = sorted(set(environment(name)) - known)
        assert not unknown, f"{name} sets {unknown}, which nothing reads"
        undocumented = sorted(v for v in environment(name) if f"`{v}`" not in guide)
        assert not undocumented, undocumented


def test_replicas_and_consumers_share_the_database_the_queue_and_the_secrets() -> None:
    web, consumer = environment("web"), environment("consumer")
    for shared in ("DATABASE_URL", "JOBS_REDIS_URL", "DASHBOARD_SECRET", "MPP_SECRET_KEY"):
        assert web.get(shared), f"web has no {shared}"
        assert web[shared] == consumer.get(shared), shared
    assert "@postgres:" in web["DATABASE_URL"]
    assert web["DATABASE_URL"].startswith("postgresql://")
    assert web["JOBS_REDIS_URL"].startswith("redis://redis:")
    # Sign-in limits counted once for all replicas, in a database of its own.
    assert web["SIGN_IN_LIMIT_STORAGE"].startswith("redis://redis:")
    assert web["SIGN_IN_LIMIT_STORAGE"] != web["JOBS_REDIS_URL"]


def test_web_replicas_leave_queued_jobs_to_the_consumers() -> None:
    assert environment("web")["JOBS_CONSUMER"] == "external"
    assert service("web")["deploy"]["replicas"] >= 2
    assert service("consumer")["deploy"]["replicas"] >= 2
    # A consumer drains its jobs on SIGINT (huey's graceful stop), not SIGTERM.
    assert service("consumer")["stop_signal"] == "SIGINT"


def test_consumers_run_the_makefile_consumer_command() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    line = next(text for text in makefile.splitlines() if "huey_consumer" in text)
    made = shlex.split(line[line.index("huey_consumer") :])
    command = [str(part) for part in service("consumer")["command"]]
    assert command[:2] == ["huey_consumer", "shiftsched.service.solving.jobs.huey"] == made[:2]
    assert [command[i] for i in range(2, len(command), 2)] == made[2::2]  # the same options
    workers = command[command.index("--workers") + 1]
    assert environment("consumer")["SOLVE_PROCESSES"] == workers  # as `make consumer`
    assert environment("consumer")["JOBS_WORKERS"] == workers
    # huey_consumer imports shiftsched.service.solving.jobs from its working directory: the Bento's
    # src/.
    assert service("consumer")["working_dir"].endswith("/src")


def test_backends_have_healthchecks_and_the_app_waits_for_them() -> None:
    for backend in ("postgres", "redis"):
        assert service(backend)["healthcheck"]["test"], backend
    assert service("postgres")["volumes"], "the database keeps its files in a volume"
    for name in APP_SERVICES:
        depends = service(name)["depends_on"]
        for backend in ("postgres", "redis"):
            assert depends[backend]["condition"] == "service_healthy", (name, backend)
    assert "/readyz" in " ".join(service("web")["healthcheck"]["test"])


def test_the_load_balancer_fronts_the_web_replicas() -> None:
    lb = service("lb")
    assert lb["depends_on"]["web"]["condition"] == "service_healthy"
    mounted = [volume.split(":") for volume in lb["volumes"]]
    assert ["./nginx.conf", "/etc/nginx/nginx.conf", "ro"] in mounted
    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    assert re.search(r"^\s*server web:3000\b", conf, re.MULTILINE)
    assert "proxy_pass http://shiftsched;" in conf
    assert "X-Forwarded-For" in conf
    # /metrics is answered to the internal network only, never through the door.
    assert re.search(r"location = /metrics \{\s*return 404;", conf)
    # Only the load balancer is published; the replicas are reached through it.
    assert all("ports" not in service(name) for name in APP_SERVICES)


def test_client_addresses_come_from_nginx_alone() -> None:
    """Sign-in and sign-up limits count per client address: nginx must replace any
    X-Forwarded-For the client sent (appending keeps the client's text leftmost), and the
    replicas must believe forwarded headers only from the network nginx reaches them on."""
    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    forwarded = re.findall(r"^\s*proxy_set_header\s+X-Forwarded-For\s+(\S+);", conf, re.MULTILINE)
    assert forwarded == ["$remote_addr"]
    stack = stack_with_example_values()
    subnet = stack["networks"]["front"]["ipam"]["config"][0]["subnet"]
    assert subnet == env_example()["FRONT_SUBNET"]
    web = stack["services"]["web"]["environment"]
    assert web["FORWARDED_ALLOW_IPS"] == subnet != "*"
    assert str(web["TRUSTED_PROXY_HOPS"]) == "1"  # nginx, the one proxy
    assert stack["services"]["lb"]["networks"] == ["front"]
    assert "front" in stack["services"]["web"]["networks"]


def test_env_example_names_every_variable_the_stack_uses_and_holds_no_secret() -> None:
    text = (DEPLOY / "compose.yaml").read_text(encoding="utf-8")
    example = env_example()
    interpolated = set(INTERPOLATED.findall(text))
    passed_through = {
        name for svc in APP_SERVICES for name, value in environment(svc).items() if value is None
    }
    missing = sorted((interpolated | passed_through) - set(example))
    assert not missing, f"deploy/.env.example lacks {missing}"
    required = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*):\?", text))
    assert {"POSTGRES_PASSWORD", "DASHBOARD_SECRET", "MPP_SECRET_KEY"} <= required
    for name in required:
        assert example[name] == "", f"{name} must be left empty in the example"
    # Optional settings stay commented out: an empty value would override a default.
    for name in passed_through:
        assert example[name] is None, f"{name} is set in the example; comment it out"
    unknown = sorted(name for name in passed_through if name not in settings_read())
    assert not unknown, unknown


def interpolated(text: str, values: dict[str, str]) -> str:
    """``text`` with compose's substitutions done from ``values`` (a missing required
    variable fails the test, as it stops ``docker compose``)."""

    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, kind, rest = match.groups()
        value = values.get(name, "")
        if kind == "?":
            assert value, f"{name} is required: {rest}"
        return value or (rest if kind == "-" else "")

    return SUBSTITUTION.sub(one, text)


def stack_with_example_values() -> dict[str, Any]:
    """compose.yaml as docker compose reads it with deploy/.env.example (its empty secrets
    filled in): parsed first, then every string substituted."""
    values = {name: value for name, value in env_example().items() if value is not None}
    values.update(
        POSTGRES_PASSWORD="0f1e2d3c", DASHBOARD_SECRET="ab" * 32, MPP_SECRET_KEY="cd" * 32
    )

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return interpolated(node, values)
        if isinstance(node, list):
            return [walk(item) for item in node]
        if isinstance(node, dict):
            return {key: walk(value) for key, value in node.items()}
        return node

    stack = walk(compose())
    assert isinstance(stack, dict)
    return stack


def settings_seen_by(env: dict[str, Any]) -> dict[str, Any]:
    """What ``Settings.from_env`` makes of a service's environment, in a fresh process
    (unset entries, those without a value, are left out as compose leaves them out)."""
    script = (
        "import json; from shiftsched.service.settings import Settings; s = Settings.from_env(); "
        "print(json.dumps({'database_url': s.database_url, 'jobs_redis_url': "
        "s.jobs_redis_url, 'jobs_consumer': s.jobs_consumer, 'solve_processes': "
        "s.solve_processes, 'job_threads': s.job_threads, 'public_url': s.public_url, "
        "'dashboard_secret': s.dashboard_secret, 'x402': s.x402 is not None, "
        "'mpp': s.mpp is not None, 'trusted_proxy_hops': s.trusted_proxy_hops}))"
    )
    clean = {k: v for k, v in os.environ.items() if k not in settings_read()}
    given = {name: str(value) for name, value in env.items() if value is not None}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**clean, **given},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    seen = json.loads(done.stdout)
    assert isinstance(seen, dict)
    return seen


@pytest.mark.slow
def test_the_settings_read_from_the_example_stack_are_the_intended_ones() -> None:
    stack = stack_with_example_values()
    postgres = stack["services"]["postgres"]["environment"]
    web = settings_seen_by(stack["services"]["web"]["environment"])
    consumer = settings_seen_by(stack["services"]["consumer"]["environment"])
    user, password, db = (
        postgres[k] for k in ("POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB")
    )
    assert web["database_url"] == f"postgresql://{user}:{password}@postgres:5432/{db}"
    for seen in (web, consumer):
        assert seen["database_url"] == web["database_url"]
        assert seen["jobs_redis_url"] == "redis://redis:6379/0"
        assert seen["dashboard_secret"] == "ab" * 32
        assert seen["public_url"] == "http://localhost:8080"
        assert not seen["x402"] and not seen["mpp"]  # payments stay off unless configured
    assert not web["jobs_consumer"] and web["solve_processes"] == 1
    assert web["trusted_proxy_hops"] == 1
    assert consumer["solve_processes"] == 1 and consumer["job_threads"] == 1
    # The published port and the advertised address agree.
    assert stack["services"]["lb"]["ports"] == ["8080:80"]
    command = stack["services"]["consumer"]["command"]
    assert command[command.index("--workers") + 1] == "1"
