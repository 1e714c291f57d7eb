"""An unreachable database is StoreUnavailable (503 upstream), from every method; and URLs."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from shiftsched.service.store import DEFAULT_DATABASE_PATH, Store, StoreUnavailable

CALLS: dict[str, Callable[[Store], object]] = {
    "migrate": lambda s: s.db.migrate(),
    "create_account": lambda s: s.accounts.create_account("Acme"),
    "issue_key": lambda s: s.accounts.issue_key("acct"),
    "disable_key": lambda s: s.accounts.disable_key("sk_live_00000000"),
    "set_tier": lambda s: s.accounts.set_tier("acct", "pro"),
    "add_balance": lambda s: s.accounts.add_balance("acct", 1),
    "get_account": lambda s: s.accounts.get_account("acct"),
    "authenticate": lambda s: s.accounts.authenticate("sk_live_" + "0" * 64),
    "ensure_demo_account": lambda s: s.accounts.ensure_demo_account(None),
    "reserve": lambda s: s.ledger.reserve("acct", 1, "r"),
    "capture": lambda s: s.ledger.capture("r"),
    "release": lambda s: s.ledger.release("r"),
    "get_reservation": lambda s: s.ledger.get_reservation("r"),
    "usage": lambda s: s.ledger.usage("acct"),
    "create_job": lambda s: s.jobs.create_job("acct", {}),
    "get_job": lambda s: s.jobs.get_job("acct", "job"),
    "finish_job": lambda s: s.jobs.finish_job("job", "failed"),
}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port  # nothing listens once the probe is closed


@pytest.fixture(
    params=["postgresql-closed-port", "sqlite-unopenable-path"],
)
def unreachable(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param.startswith("postgresql"):
        url = f"postgresql+psycopg://postgres:secret@127.0.0.1:{closed_port()}/shiftsched"
    else:
        (tmp_path / "a-file").write_text("not a folder")
        url = f"sqlite:///{tmp_path / 'a-file' / 'store.db'}"
    store = Store(url)
    request.addfinalizer(store.close)
    return store


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_every_method_raises_store_unavailable(
    unreachable: Store, call: Callable[[Store], object]
) -> None:
    with pytest.raises(StoreUnavailable, match="database unavailable") as raised:
        call(unreachable)
    assert "secret" not in str(raised.value)


def test_from_env_defaults_to_a_sqlite_file_under_var(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Store.from_env({}) as store:
        store.db.migrate()
        store.accounts.create_account("Acme")
    assert (tmp_path / DEFAULT_DATABASE_PATH).is_file()


def test_from_env_reads_database_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'chosen.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    with Store.from_env() as store:
        store.db.migrate()
    assert (tmp_path / "chosen.db").is_file()
    assert not (tmp_path / "var").exists()


def test_default_folder_that_cannot_be_made_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "var").write_text("a file where the folder should be")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreUnavailable, match="cannot create"):
        Store.from_env({})


@pytest.mark.parametrize("scheme", ["postgres", "postgresql", "postgresql+psycopg"])
def test_postgres_urls_use_psycopg_and_hide_the_password(scheme: str) -> None:
    store = Store(f"{scheme}://app:secret@db.example:5432/shiftsched")
    assert repr(store) == "Store('postgresql+psycopg://app:***@db.example:5432/shiftsched')"
    store.close()
