"""The service database: engine, dialect, transactions and schema migration.

Why one module: every concern on this database (accounts, the unit ledger, jobs,
payments, users, sessions, OAuth) must open transactions the same way. A write holds
the write lock from its start on SQLite (BEGIN IMMEDIATE), so read-then-update cannot
interleave between processes; a read never takes it. Every error that means the
database cannot be reached becomes :class:`StoreUnavailable` here, so each concern
raises it without knowing the driver, and the HTTP layer can answer 503 with
Retry-After (nothing has been charged then).

`DATABASE_URL` picks the database; without it a SQLite file `var/shiftsched.db` under
the current directory serves one host.

A SQLite file is created only by :meth:`Database.migrate` (the service's first start);
every connection opens the existing file (``mode=rw``), and each use checks that the
file first opened is still the one at its path. A file deleted or replaced while the
service runs is fatal (StoreUnavailable until a restart), never a silent fresh start on
a new empty database: connections still open would go on writing into the deleted
file, and solver processes would create a new one with no tables.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.engine import URL, Connection, Engine, make_url

from shiftsched.service.store.tables import metadata, write_probe

DEFAULT_DATABASE_PATH: Final = Path("var") / "shiftsched.db"
CONNECT_TIMEOUT_SECONDS: Final = 5
SQLITE_BUSY_TIMEOUT_SECONDS: Final = 30

_READ_ONLY: Final = "shiftsched_read_only"
_MIGRATE_LOCK_ID: Final = 0x5348_4946_5453  # "SHIFTS": serializes create_all on PostgreSQL
_UNAVAILABLE = (exc.OperationalError, exc.InterfaceError, exc.DisconnectionError, exc.TimeoutError)


class StoreUnavailable(Exception):
    """The database cannot be reached; the request changed nothing and may be retried."""


def default_database_url() -> str:
    """SQLite file var/shiftsched.db under the current directory (the folder is created)."""
    path = Path.cwd() / DEFAULT_DATABASE_PATH
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreUnavailable(f"cannot create {path.parent}: {error.strerror}") from error
    return f"sqlite:///{path}"


class Database:
    """One pooled engine and its transactions; safe to share between threads."""

    def __init__(self, url: str) -> None:
        self.url = _normalize_url(url)
        self.postgres = self.url.get_backend_name() == "postgresql"
        self.sqlite_path = _sqlite_file(self.url)
        """The SQLite file (None: another database, or SQLite in memory)."""
        self._identity: tuple[int, int] | None = None  # the file's (device, inode) once open
        if self.sqlite_path is None:
            self._engine = _create_engine(self.url)
        else:
            self._engine = _sqlite_engine(self.url, self._connect_sqlite_file)
            event.listen(self._engine, "checkout", self._on_checkout)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine, for code that listens to its connection events."""
        return self._engine

    def describe(self) -> str:
        """The URL with its password hidden, for logs and reprs."""
        return self.url.render_as_string(hide_password=True)

    def close(self) -> None:
        """Close pooled connections (the database can still be used; it reconnects)."""
        self._engine.dispose()

    def migrate(self) -> None:
        """Create missing tables (and the SQLite file, the first time); idempotent, and
        safe when several workers start at once."""
        self._create_sqlite_file()
        with self.write() as conn:
            if self.postgres:
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_MIGRATE_LOCK_ID)))
            metadata.create_all(conn)
            _add_missing_columns(conn)
            _add_missing_indexes(conn)
            if conn.execute(sa.select(write_probe.c.id)).first() is None:
                conn.execute(sa.insert(write_probe).values(id=1, checked_at=datetime.now(UTC)))

    def probe_write(self) -> None:
        """Write the one row of ``write_probe``: StoreUnavailable when the database takes
        no write (full, read-only, its file gone), as a reservation then would not."""
        with self.write() as conn:
            done = conn.execute(sa.update(write_probe).values(checked_at=datetime.now(UTC)))
            if done.rowcount == 0:  # migrated by an older release: the row comes now
                conn.execute(sa.insert(write_probe).values(id=1, checked_at=datetime.now(UTC)))

    def _create_sqlite_file(self) -> None:
        """An empty SQLite file where none is yet; never once one was opened (a file that
        vanished since is fatal, not replaced)."""
        path = self.sqlite_path
        if path is None or self._identity is not None or path.exists():
            return
        try:
            sqlite3.connect(path).close()
        except sqlite3.Error as error:
            raise StoreUnavailable(f"database unavailable: {error}") from error

    def _connect_sqlite_file(self) -> sqlite3.Connection:
        """A connection to the existing file, the same one as before (``_check_file``)."""
        assert self.sqlite_path is not None
        self._check_file()
        uri = f"{self.sqlite_path.resolve().as_uri()}?mode=rw"
        conn = sqlite3.connect(
            uri, uri=True, timeout=SQLITE_BUSY_TIMEOUT_SECONDS, check_same_thread=False
        )
        if self._identity is None:
            self._identity = _file_identity(self.sqlite_path)
        return conn

    def _check_file(self) -> None:
        """sqlite3.OperationalError unless the file first opened is still at its path."""
        if self._identity is None or self.sqlite_path is None:
            return
        try:
            identity = _file_identity(self.sqlite_path)
        except OSError:
            identity = None
        if identity != self._identity:
            raise sqlite3.OperationalError(
                "the database file was deleted or replaced while the service ran; "
                "restart the service on the right file"
            )

    def _on_checkout(self, _dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        """Before a pooled connection is used: a connection to a file no longer at its
        path is dropped (the pool then opens a new one, which fails)."""
        try:
            self._check_file()
        except sqlite3.OperationalError as error:
            raise exc.DisconnectionError(str(error)) from error

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A transaction that holds the write lock from its start on SQLite."""
        with _unavailable_as_error(), self._engine.begin() as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A plain (deferred) transaction, rolled back at the end."""
        with _unavailable_as_error(), self._engine.connect() as conn:
            yield conn.execution_options(**{_READ_ONLY: True})


def _normalize_url(url: str) -> URL:
    """`postgres://` and `postgresql://` (as hosting platforms write them) mean psycopg 3."""
    parsed = make_url(url)
    if parsed.drivername in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _create_engine(url: URL) -> Engine:
    if url.get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    connect_args: dict[str, Any] = {}
    if url.get_backend_name() == "postgresql":
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_SECONDS
    return sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args)


def _sqlite_file(url: URL) -> Path | None:
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    database = str(url.database)
    return None if database.startswith("file:") else Path(database)


def _file_identity(path: Path) -> tuple[int, int]:
    stat = os.stat(path)
    return stat.st_dev, stat.st_ino


def _sqlite_engine(url: URL, connect: Any = None) -> Engine:
    """SQLite with SQLAlchemy in charge of BEGIN, so writers can take the lock up front;
    ``connect``: how a connection is made (a file's: its existing file only)."""
    if connect is not None:
        engine = sa.create_engine(url, creator=connect)
    else:
        engine = sa.create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS})
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # pysqlite must not emit its own BEGIN
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")  # readers do not wait for the writer
    finally:
        cursor.close()


def _sqlite_on_begin(conn: Connection) -> None:
    """BEGIN IMMEDIATE for writes: read-then-update cannot interleave between processes."""
    read_only = conn.get_execution_options().get(_READ_ONLY, False)
    conn.exec_driver_sql("BEGIN DEFERRED" if read_only else "BEGIN IMMEDIATE")


@contextmanager
def _unavailable_as_error() -> Iterator[None]:
    try:
        yield
    except _UNAVAILABLE as error:
        raise StoreUnavailable(_describe(error)) from error


def _describe(error: exc.SQLAlchemyError) -> str:
    """The driver's first line only: the full text would carry SQL and parameters."""
    original = getattr(error, "orig", None)
    text = str(original if original is not None else error).strip()
    first = text.splitlines()[0] if text else type(error).__name__
    return f"database unavailable: {first}"


def _add_missing_columns(conn: Connection) -> None:
    """Add columns a newer release defined to tables an older one created (all such
    columns are nullable), so an existing database keeps working after an upgrade."""
    inspector = sa.inspect(conn)
    for table in metadata.sorted_tables:
        present = {column["name"] for column in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name in present:
                continue
            kind = column.type.compile(dialect=conn.dialect)
            conn.execute(sa.text(f'ALTER TABLE {table.name} ADD COLUMN "{column.name}" {kind}'))


def _add_missing_indexes(conn: Connection) -> None:
    """Create the named indexes a newer release defined on tables an older one created
    (``create_all`` makes them only with a new table); run after the missing columns."""
    inspector = sa.inspect(conn)
    for table in metadata.sorted_tables:
        present = {index["name"] for index in inspector.get_indexes(table.name)}
        for index in table.indexes:
            if index.name is not None and index.name not in present:
                index.create(conn)
