"""A solve short of units only because the account's own solves under way hold them is
503 with Retry-After, not 429: 429 quota-exceeded says waiting will not help, and here it
may (a held solve that fails gives its units back). Only a real shortage is 429.

The solve under way is a reservation held in the real store, exactly what a running
solve leaves there, so nothing depends on how long a solve takes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from shiftsched.service import metrics
from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.store import Store
from tests.factories import minimal_request_dict
from tests.service.conftest import BACKENDS

JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module", params=BACKENDS)
def client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'service.db'}"
    else:
        url = request.getfixturevalue("postgres_server").new_database()
    settings = Settings(
        database_url=url,
        jobs_db_path=str(tmp_path_factory.mktemp("queue") / "jobs.db"),  # not the shared var/
        solve_processes=1,
        cp_sat_workers=1,
        errors_base="https://api.test/v1/public/errors",
    )
    with TestClient(create_app(settings)) as client:
        yield client


def solve(client: TestClient, key: str) -> Any:
    headers = {**JSON, "Authorization": f"Bearer {key}"}
    return client.post("/solve", content=json.dumps(minimal_request_dict()), headers=headers)


def refused_units() -> float:
    return metrics.UNITS_REFUSED._value.get()  # type: ignore[attr-defined,no-any-return]


@pytest.mark.slow
def test_units_held_by_a_solve_under_way_are_503_retry_then_a_real_shortage_is_429(
    client: TestClient,
) -> None:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    account = store.accounts.create_account("busy", free_quota=1, balance=0)
    key = store.accounts.issue_key(account.id)
    assert store.ledger.reserve(account.id, 1, "a-solve-under-way") is not None
    refused = refused_units()

    busy = solve(client, key)
    assert busy.status_code == 503, busy.text
    assert busy.headers["content-type"].startswith("application/problem+json")
    assert busy.json()["type"].endswith("/service-unavailable")
    assert int(busy.headers["retry-after"]) > 0
    assert "retry" in busy.json()["detail"]
    assert store.ledger.held_units(account.id) == 1  # nothing of it taken, nothing charged
    assert refused_units() == refused

    store.ledger.release("a-solve-under-way")  # the solve under way failed: its unit is back
    retried = solve(client, key)
    assert retried.status_code == 200, retried.text
    assert store.ledger.usage(account.id) == (0, 0, 0)

    short = solve(client, key)  # nothing left, nothing held: waiting will not help
    assert short.status_code == 429, short.text
    assert short.json()["type"].endswith("/quota-exceeded")
    assert "retry-after" not in short.headers
    assert refused_units() == refused + 1


def test_a_shortage_beyond_what_is_held_is_429(client: TestClient) -> None:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    account = store.accounts.create_account("poor", free_quota=0, balance=0)
    key = store.accounts.issue_key(account.id)
    response = solve(client, key)
    assert response.status_code == 429, response.text
    assert "retry-after" not in response.headers
