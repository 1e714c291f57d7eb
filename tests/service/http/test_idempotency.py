"""Safe retries: a charged call sent again with its Idempotency-Key is answered, not run
and charged again, on the real app and store (a SQLite file and PostgreSQL in turn)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.http.idempotency import HEADER, REPLAYED, fingerprint
from shiftsched.service.store import Store
from shiftsched.service.store.reconcile import audit
from shiftsched.service.store.rows import now
from shiftsched.service.store.tables import idempotency_keys, jobs
from tests.service.conftest import BACKENDS
from tests.service.http.test_http import assert_problem, bearer, fresh_key, post
from tests.service.http.test_planning_http import four_employees as body

pytestmark = pytest.mark.slow


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
        jobs_db_path=str(tmp_path_factory.mktemp("queue") / "jobs.db"),
        solve_processes=1,
        cp_sat_workers=1,
        errors_base="https://api.test/v1/public/errors",
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def store(client: TestClient) -> Store:
    return client.app.state.store  # type: ignore[no-any-return,attr-defined]


def keyed(key: str, idempotency_key: str) -> dict[str, str]:
    return {**bearer(key), HEADER: idempotency_key}


def available(store: Store, key: str) -> int:
    account = store.accounts.authenticate(key)
    assert account is not None
    return store.ledger.usage(account.id)[2]


def jobs_of(store: Store, key: str) -> int:
    account = store.accounts.authenticate(key)
    assert account is not None
    with store.db.read() as conn:
        query = sa.select(sa.func.count()).where(jobs.c.account_id == account.id)
        return int(conn.execute(query).scalar_one())


def test_a_retry_gets_the_first_answer_and_pays_once(client: TestClient, store: Store) -> None:
    key = fresh_key(store, free=10)
    first = post(client, "/solve", body(), keyed(key, "order-1"))
    assert first.status_code == 200, first.text
    again = post(client, "/solve", body(), keyed(key, "order-1"))
    assert again.status_code == 200
    assert again.content == first.content  # the same roster, job_id and usage
    for name in ("X-Units-Consumed", "X-Units-Remaining", "Content-Type"):
        assert again.headers[name] == first.headers[name]
    assert again.headers[REPLAYED] == "true" and REPLAYED not in first.headers
    assert available(store, key) == 9 and jobs_of(store, key) == 1
    # Formatting is not the body: the same JSON sent spaced out is the same call.
    spaced = client.post(
        "/solve", content=json.dumps(body(), indent=2), headers=keyed(key, "order-1")
    )
    assert spaced.content == first.content
    other = post(client, "/solve", body(), keyed(key, "order-2"))  # a new key: a new call
    assert other.status_code == 200 and other.json()["job_id"] != first.json()["job_id"]
    assert available(store, key) == 8
    assert audit(store.db).ok


def test_a_key_with_another_body_or_malformed_is_refused_and_charges_nothing(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=10)
    assert post(client, "/solve", body(), keyed(key, "k")).status_code == 200
    changed = body()
    changed["employees"] = changed["employees"][:3]
    assert_problem(post(client, "/solve", changed, keyed(key, "k")), 422, "idempotency-key-reused")
    for bad in ("", "x" * 256, "two words"):
        headers = {**bearer(key), HEADER: bad}
        response = client.post("/solve", content=json.dumps(body()).encode(), headers=headers)
        assert_problem(response, 400, "invalid-idempotency-key")
    # Keys are per operation: the same key on a re-plan is a call of its own.
    roster = post(client, "/solve", body(), keyed(key, "k")).json()["solution"]["assignments"]
    replan = {"request": body(), "roster": roster}
    assert post(client, "/solve/replan", replan, keyed(key, "k")).status_code == 200
    assert available(store, key) == 8
    # A free operation takes no key: it is safe to repeat.
    validated = post(client, "/solve/validate", body(), {HEADER: "k", **bearer(key)})
    assert validated.status_code == 200 and REPLAYED not in validated.headers


def test_a_fault_frees_the_key_so_the_corrected_retry_runs(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=10)
    broken = {**body(), "shifts": "none"}
    assert_problem(post(client, "/solve", broken, keyed(key, "fix-me")), 422, "validation-error")
    assert post(client, "/solve", body(), keyed(key, "fix-me")).status_code == 200
    assert available(store, key) == 9


def test_twenty_concurrent_retries_solve_once_and_answer_alike(
    client: TestClient, store: Store
) -> None:
    """While the first call runs the others get 409 with Retry-After; each retries until
    it gets the first call's answer."""
    key = fresh_key(store, free=10)
    data = json.dumps(body())
    conflicts = []

    def until_answered(_: int) -> bytes:
        for _attempt in range(10_000):
            response = client.post("/solve", content=data, headers=keyed(key, "burst"))
            if response.status_code != 409:
                assert response.status_code == 200, response.text
                return response.content
            assert int(response.headers["Retry-After"]) >= 1
            conflicts.append(response.json()["type"])
            time.sleep(0.01)  # a client waits before it retries (a shorter wait than asked)
        raise AssertionError("the first call never ended")

    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(until_answered, range(20)))
    assert len(set(answers)) == 1
    assert available(store, key) == 9 and jobs_of(store, key) == 1
    assert set(conflicts) <= {"https://api.test/v1/public/errors/idempotency-conflict"}
    assert audit(store.db).ok


def _drop_answer(store: Store) -> None:
    """As if the service died after charging the call and before keeping its answer."""
    with store.db.write() as conn:
        conn.execute(
            idempotency_keys.update().values(status_code=None, headers_json=None, body=None)
        )


def test_after_a_crash_a_charged_call_is_answered_from_its_job(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=10)
    first = post(client, "/solve", body(), keyed(key, "crash-after"))
    _drop_answer(store)
    again = post(client, "/solve", body(), keyed(key, "crash-after"))
    assert again.status_code == 200 and again.headers[REPLAYED] == "true"
    assert again.json()["job_id"] == first.json()["job_id"]
    assert again.json()["solution"] == first.json()["solution"]
    assert available(store, key) == 9 and jobs_of(store, key) == 1
    assert audit(store.db).ok


def test_a_call_that_died_before_it_charged_runs_afresh_once_its_lock_passed(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=10)
    account = store.accounts.authenticate(key)
    assert account is not None
    long_ago = now() - timedelta(hours=1)
    held = store.idempotency.claim(
        account.id,
        "solve",
        "crash-before",
        fingerprint(body()),
        ttl=timedelta(hours=24),
        lease=timedelta(minutes=10),
        moment=long_ago,
    )
    assert held.won
    fresh = post(client, "/solve", body(), keyed(key, "crash-before"))
    assert fresh.status_code == 200 and REPLAYED not in fresh.headers
    assert available(store, key) == 9
    # Still locked, with no job yet: that call may be running, so a retry waits.
    store.idempotency.claim(
        account.id,
        "solve",
        "running",
        fingerprint(body()),
        ttl=timedelta(hours=24),
        lease=timedelta(minutes=10),
    )
    waiting = post(client, "/solve", body(), keyed(key, "running"))
    assert_problem(waiting, 409, "idempotency-conflict")
    assert available(store, key) == 9


def test_a_key_past_its_lifetime_is_a_new_call(client: TestClient, store: Store) -> None:
    key = fresh_key(store, free=10)
    account = store.accounts.authenticate(key)
    assert account is not None
    store.idempotency.claim(
        account.id,
        "solve",
        "old",
        fingerprint({"another": "body"}),
        ttl=timedelta(hours=24),
        lease=timedelta(minutes=10),
        moment=now() - timedelta(hours=25),
    )
    assert post(client, "/solve", body(), keyed(key, "old")).status_code == 200
    assert store.idempotency.purge_expired(now() + timedelta(hours=25)) >= 1


def test_a_retried_queued_call_answers_the_same_job(client: TestClient, store: Store) -> None:
    """A solve whose time limit takes the queued path: the retry is the same 202, its
    job and links, and one job holds the units."""
    key = fresh_key(store, free=10)
    queued = body()
    queued["options"] = {"solver_timeout_seconds": 60}
    first = post(client, "/solve", queued, keyed(key, "long"))
    assert first.status_code == 202, first.text
    again = post(client, "/solve", queued, keyed(key, "long"))
    assert again.status_code == 202 and again.content == first.content
    assert again.headers["Location"] == first.headers["Location"]
    assert jobs_of(store, key) == 1
