"""A `Store` on each real backend: a SQLite file, and a PostgreSQL server started here.

The server is a throw-away cluster (initdb in a temporary folder, loopback port, socket in
that folder, fsync off) started once per test session; every test gets a database of its
own. When the PostgreSQL binaries are missing these tests fail under CI (CI is set) and
are skipped elsewhere; `.ci/install-postgres.sh` installs them. As root, the server runs
as the `postgres` user (or `nobody`), because initdb and postgres refuse root.

The queue's RedisHuey path gets a throw-away `redis-server` the same way: one per session,
loopback port, no persistence, its files in a temporary folder; missing binary: fail under
CI, skip elsewhere (`.ci/install-redis.sh` installs it).
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
import redis

from shiftsched.service.store import Store
from tests.service.payments_support import StandIn, running_standin
from tests.service.processes import free_port, stop

PG_START_TIMEOUT_SECONDS = 120  # generous: a busy machine starts servers slowly
PG_OPTIONS = "-c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=50"
REDIS_START_TIMEOUT_SECONDS = 60
REDIS_START_ATTEMPTS = 3  # another process may take the probed port before the server binds it
# The backends of a store-backed fixture. The PostgreSQL one starts the server, so it
# carries the postgres mark and `make test-fast` leaves it out.
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@dataclass
class PostgresServer:
    port: int
    names: Iterator[int] = field(default_factory=itertools.count)

    def new_database(self) -> str:
        """A fresh empty database; returns its SQLAlchemy URL."""
        name = f"test_{next(self.names)}"
        with psycopg.connect(self.conninfo("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def conninfo(self, database: str) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={database}"


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """URL of an empty database on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_database()


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    """A migrated store on each backend, closed after the test."""
    opened = Store(database_url)
    opened.db.migrate()
    yield opened
    opened.close()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    bindir = find_postgres_bindir()
    if bindir is None:
        _unavailable(
            "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in "
            "/usr/lib/postgresql/*/bin; run .ci/install-postgres.sh"
        )
    user = _server_user()
    root = Path(tempfile.mkdtemp(prefix="shiftsched-pg-"))
    try:
        if user is not None:
            shutil.chown(root, user)
        _initdb(bindir, root, user)
        port = _start(bindir, root, user)
        try:
            yield PostgresServer(port)
        finally:
            _run(bindir, user, "pg_ctl", "-D", str(root / "data"), "-m", "immediate", "stop")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def find_postgres_bindir() -> Path | None:
    """The folder holding initdb and pg_ctl: from PATH, else Debian's newest version."""
    initdb = shutil.which("initdb")
    if initdb is not None:
        folder = Path(initdb).resolve().parent
        if (folder / "pg_ctl").exists():
            return folder
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
    )
    return versions[-1].parent if versions else None


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _server_user() -> str | None:
    """None when not root; else an unprivileged user to run the server as."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    pytest.fail("running as root and neither user postgres nor nobody exists", pytrace=False)


def _run(bindir: Path, user: str | None, program: str, *args: str) -> None:
    command = [str(bindir / program), *args]
    if user is not None:
        command = ["runuser", "-u", user, "--", *command]
    result = subprocess.run(command, capture_output=True, text=True, check=False, cwd="/")
    if result.returncode != 0:
        pytest.fail(f"{program} failed:\n{result.stdout}\n{result.stderr}", pytrace=False)


def _initdb(bindir: Path, root: Path, user: str | None) -> None:
    data = str(root / "data")
    _run(
        bindir,
        user,
        "initdb",
        "-D",
        data,
        "-U",
        "postgres",
        "-A",
        "trust",
        "--no-sync",
        "-E",
        "UTF8",
        "--locale=C",
    )


def _start(bindir: Path, root: Path, user: str | None) -> int:
    port = free_port()
    options = f"-h 127.0.0.1 -p {port} -k {root} {PG_OPTIONS}"
    _run(
        bindir,
        user,
        "pg_ctl",
        *("-D", str(root / "data"), "-l", str(root / "server.log")),
        *("-w", "-t", str(PG_START_TIMEOUT_SECONDS), "-o", options, "start"),
    )
    return port


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """URL of a throw-away redis-server (database 0), stopped at the end of the session."""
    binary = shutil.which("redis-server")
    if binary is None:
        _unavailable("redis-server not found on PATH; run .ci/install-redis.sh")
    root = Path(tempfile.mkdtemp(prefix="shiftsched-redis-"))
    try:
        process, port = _start_redis(str(binary), root)
        try:
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            stop(process)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _start_redis(binary: str, root: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Start the server in the foreground and wait until it answers PING."""
    log_path = root / "server.log"
    for _ in range(REDIS_START_ATTEMPTS):
        port = free_port()
        command = [binary, "--save", "", "--appendonly", "no", "--daemonize", "no"]
        command += ["--port", str(port), "--bind", "127.0.0.1"]
        with log_path.open("ab") as log:
            process = subprocess.Popen(command, cwd=root, stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)
        deadline = time.monotonic() + REDIS_START_TIMEOUT_SECONDS
        try:
            while process.poll() is None and time.monotonic() < deadline:
                try:
                    if client.ping():
                        return process, port
                except redis.ConnectionError:
                    time.sleep(0.05)
        finally:
            client.close()
        if process.poll() is None:
            process.kill()
        process.wait()
    pytest.fail(f"redis-server did not start:\n{log_path.read_text()}", pytrace=False)


@pytest.fixture(scope="session")
def payment_standin() -> Iterator[StandIn]:
    """The x402 facilitator and mpp provider stand-in, in its own process."""
    with running_standin() as standin:
        yield standin


@pytest.fixture
def standin(payment_standin: StandIn) -> StandIn:
    """The stand-in with its script, calls and payments reset for this test."""
    payment_standin.reset()
    return payment_standin


@pytest.fixture(scope="module", params=BACKENDS)
def module_database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> str:
    """An empty database on each backend, shared by the tests of one module."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('db') / 'service.db'}"
    url: str = request.getfixturevalue("postgres_server").new_database()
    return url
