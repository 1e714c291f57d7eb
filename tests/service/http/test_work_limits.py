"""Work bounded by what is paid for, against the real app on a SQLite store.

- Calls without a key are rate-limited per client address (as the trusted proxy saw it),
  before their body is read; calls with a key per key. Past a limit: 429 rate-limited
  with Retry-After, nothing run, nothing charged.
- Work that solves nothing runs in a light process under a deadline: past it the process
  is stopped, the answer is 504 deadline-exceeded, nothing is charged, and the next call
  is served by a fresh process.
- A recommendation is admitted by size: a large request is 422 at once.
- A delivered answer whose store is away for a moment waits for it, so its headers say
  what the ledger holds, even when its lease ran out meanwhile.
- A 422 lists a bounded number of faults, with their total.

Each test counts against a client address of its own (``X-Forwarded-For`` behind one
trusted proxy) or a fresh key, so the limits of one test never reach another.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from shiftsched.contract.v1 import ProblemDetails
from shiftsched.questions.inquiry import AuditRequest, AuditResponse
from shiftsched.service.billing.admission import Admission
from shiftsched.service.errors import MAX_LISTED_ERRORS
from shiftsched.service.http.api import create_app
from shiftsched.service.http.pipeline import Docs, InLightPool, Operation, Payer, Tool, endpoint
from shiftsched.service.http.rate_limits import LimitedByAddress, RateLimits
from shiftsched.service.settings import Settings
from shiftsched.service.store import Store, StoreUnavailable
from shiftsched.service.store.reconcile import audit as audit_ledger
from shiftsched.service.store.reconcile import settle_stale_holds
from shiftsched.service.store.tables import jobs
from tests.factories import START_DATE, minimal_request_dict
from tests.service.http.test_http import assert_problem, fresh_key, post

Json = dict[str, Any]
DATASETS = Path(__file__).resolve().parents[3] / "datasets"
ANONYMOUS_PER_MINUTE = 3
KEY_PER_MINUTE = 4
_addresses = itertools.count(1)


#: What the hurried operations run: the command line's solve of the largest dataset with
#: a minute's limit, which no machine finishes within their half-second deadline (building
#: its model alone takes longer), so the deadline is what ends it, deterministically.
LONG_WORK = ["solve", str(DATASETS / "max_size.json"), "--time-limit", "60"]
DEADLINE_SECONDS = 0.5


def _long_work(data: Any) -> list[str]:
    return LONG_WORK


def _one_unit(ask: Any, payer: Payer | None) -> Admission:
    return Admission(1, units=1, time_limit=DEADLINE_SECONDS)


def _free(ask: Any, payer: Payer | None) -> Admission:
    return Admission(1, units=0, time_limit=0.0)


def _hurried(name: str, payment: Any, admit: Any) -> Operation:
    """An operation whose light work cannot finish before its deadline."""
    return Operation(
        name=name,
        path=f"/solve/{name.replace('_', '-')}",
        body=AuditRequest,
        answer=AuditResponse,
        tool=Tool(name, "Work that cannot finish in time."),
        docs=Docs("Work under a half-second deadline", answered="nothing, ever"),
        parse=_long_work,
        admit=admit,
        run=InLightPool("shiftsched.__main__:main", DEADLINE_SECONDS),
        payment=payment,
    )


HURRIED_FREE = _hurried("hurried_work", "free", _free)
HURRIED_PAID = _hurried("hurried_paid_work", "key", _one_unit)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home = tmp_path_factory.mktemp("limits")
    settings = Settings(
        database_url=f"sqlite:///{home / 'store.db'}",
        jobs_db_path=str(home / "jobs.db"),
        solve_processes=1,
        cp_sat_workers=1,
        errors_base="https://api.test/v1/public/errors",
        anonymous_rate_limit=f"{ANONYMOUS_PER_MINUTE}/minute",
        key_rate_limit=f"{KEY_PER_MINUTE}/minute",
        trusted_proxy_hops=1,
    )
    app = create_app(settings)
    for operation in (HURRIED_FREE, HURRIED_PAID):
        app.router.routes.insert(0, Route(operation.path, endpoint(operation), methods=["POST"]))
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def store(client: TestClient) -> Store:
    return client.app.state.store  # type: ignore[no-any-return,attr-defined]


def from_new_address(key: str | None = None) -> dict[str, str]:
    """Headers of a client at an address no other test uses (one trusted proxy)."""
    headers = {
        "Content-Type": "application/json",
        "X-Forwarded-For": f"198.51.100.{next(_addresses)}",
    }
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def available(client: TestClient, key: str) -> int:
    headers = {"Authorization": f"Bearer {key}", "X-Forwarded-For": "192.0.2.250"}
    units: int = client.get("/usage", headers=headers).json()["available_units"]
    return units


def audit_body(cells: int = 0) -> Json:
    """The minimal request and a roster of ``cells`` copies of one assignment."""
    cell = {"employee_id": "e1", "date": START_DATE, "shift_id": "day"}
    return {"request": minimal_request_dict(), "roster": [cell] * cells}


def assert_rate_limited(response: Any) -> None:
    problem = assert_problem(response, 429, "rate-limited")
    assert int(response.headers["retry-after"]) >= 1
    assert "limit" in problem["detail"]


# --------------------------------------------------------------------------- rate limits


def test_calls_without_a_key_past_the_address_limit_are_429_before_the_body_is_read(
    client: TestClient,
) -> None:
    headers = from_new_address()
    for _ in range(ANONYMOUS_PER_MINUTE):
        assert post(client, "/solve/validate", minimal_request_dict(), headers).status_code == 200
    assert_rate_limited(post(client, "/solve/validate", minimal_request_dict(), headers))
    # Not even read: a body that is not JSON is refused for its rate, not its syntax.
    assert_rate_limited(client.post("/solve/audit", content=b"{not json", headers=headers))
    # Another address has its own count.
    assert (
        post(client, "/solve/validate", minimal_request_dict(), from_new_address()).status_code
        == 200
    )


def test_unknown_paths_count_against_the_address(client: TestClient) -> None:
    headers = from_new_address()
    for _ in range(ANONYMOUS_PER_MINUTE):
        assert_problem(client.get("/no-such-thing", headers=headers), 404, "not-found")
    assert_rate_limited(client.get("/no-such-thing", headers=headers))


def test_a_key_past_its_limit_is_429_and_nothing_is_charged(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=10)
    headers = from_new_address(key)
    # A free call with a valid key counts against the key, not the address.
    for _ in range(KEY_PER_MINUTE):
        assert post(client, "/solve/validate", minimal_request_dict(), headers).status_code == 200
    assert_rate_limited(post(client, "/solve/validate", minimal_request_dict(), headers))
    assert_rate_limited(post(client, "/solve/hurried-paid-work", {}, headers))
    assert available(client, key) == 10
    # The address itself was never counted: without the key it still has its calls.
    without_key = {k: v for k, v in headers.items() if k != "Authorization"}
    assert post(client, "/solve/validate", minimal_request_dict(), without_key).status_code == 200


def test_an_unknown_key_on_a_free_call_counts_against_the_address(client: TestClient) -> None:
    headers = from_new_address("sk_test_not_a_key_of_anyone")
    for _ in range(ANONYMOUS_PER_MINUTE):
        assert post(client, "/solve/validate", minimal_request_dict(), headers).status_code == 200
    assert_rate_limited(post(client, "/solve/validate", minimal_request_dict(), headers))


# ------------------------------------------------------------------------------ deadlines


def test_free_work_past_its_deadline_is_stopped_with_504_and_the_next_call_is_served(
    client: TestClient,
) -> None:
    response = post(client, "/solve/hurried-work", {}, from_new_address())
    problem = assert_problem(response, 504, "deadline-exceeded")
    assert "nothing was charged" in problem["detail"]
    # The stopped process was replaced: the real audit of the same body is answered.
    answered = post(client, "/solve/audit", audit_body(5_000), from_new_address())
    assert answered.status_code == 200, answered.text
    assert answered.json()["feasible"] is False


def test_paid_work_past_its_deadline_is_not_charged_and_keeps_no_job(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=3)
    response = post(client, "/solve/hurried-paid-work", {}, from_new_address(key))
    assert_problem(response, 504, "deadline-exceeded")
    assert available(client, key) == 3
    account = store.accounts.authenticate(key)
    assert account is not None
    assert _job_count(store, account.id) == 0
    assert audit_ledger(store.db).ok


def test_a_recommendation_of_a_large_request_is_422_at_once(
    client: TestClient, store: Store
) -> None:
    key = fresh_key(store, free=5)
    data = json.loads((DATASETS / "max_size.json").read_text())
    first = data["shifts"][0]["id"]
    body = {
        "request": data,
        "roster": [],
        "slot": {"date": data["schedule_period"]["start_date"], "shift_id": first},
    }
    problem = assert_problem(
        post(client, "/solve/recommend", body, from_new_address(key)), 422, "tier-limit-exceeded"
    )
    assert "synchronously only" in problem["detail"]
    assert available(client, key) == 5


# -------------------------------------------------------------------------- settlement


def test_an_answer_whose_lease_ran_out_while_the_store_was_away_says_it_cost_nothing(
    client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store fails as a recommendation's answer is ready, and while it is away the
    hold's lease runs out and the reconciler releases it. The request waits for the
    store, learns that, and says 0 consumed: the headers, the job and the ledger agree."""
    key = fresh_key(store, free=4)
    account = store.accounts.authenticate(key)
    assert account is not None
    real_finish = store.jobs.finish_job
    calls: list[str] = []

    def finish_after_an_outage(job_id: str, *args: Any, **kwargs: Any) -> bool:
        calls.append(job_id)
        if len(calls) == 1:  # the outage: meanwhile the lease ends and is settled
            job = store.jobs.get_job(account.id, job_id)
            assert job is not None and job.reservation_id is not None
            store.ledger.renew_lease(job.reservation_id, -1.0)
            assert settle_stale_holds(store.db) == {job.reservation_id: "interrupted"}
            raise StoreUnavailable("database unavailable: locked")
        return real_finish(job_id, *args, **kwargs)

    monkeypatch.setattr(store.jobs, "finish_job", finish_after_an_outage)
    body = {
        "request": minimal_request_dict(),
        "roster": [],
        "slot": {"date": START_DATE, "shift_id": "day"},
    }
    response = post(client, "/solve/recommend", body, from_new_address(key))
    monkeypatch.undo()
    assert response.status_code == 200, response.text
    assert len(calls) == 2  # tried again once the store was back
    assert response.headers["x-units-consumed"] == "0"
    assert "x-service-billing-status" not in response.headers
    assert int(response.headers["x-units-remaining"]) == available(client, key) == 4
    job = store.jobs.get_job(account.id, calls[0])
    assert job is not None and job.status == "failed"  # interrupted: released, as said
    assert audit_ledger(store.db).ok


def _job_count(store: Store, account_id: str) -> int:
    with store.db.read() as conn:
        count = conn.execute(
            sa.select(sa.func.count()).select_from(jobs).where(jobs.c.account_id == account_id)
        ).scalar_one()
    return int(count)


# ------------------------------------------------------------------------------- faults


def test_a_422_lists_a_bounded_number_of_faults_with_their_total(client: TestClient) -> None:
    data = minimal_request_dict()
    faults = MAX_LISTED_ERRORS + 50
    data["schedule_period"]["holidays"] = ["not a date"] * faults
    response = post(client, "/solve/validate", data, from_new_address())
    problem = assert_problem(response, 422, "validation-error")
    assert len(problem["errors"]) == MAX_LISTED_ERRORS
    assert problem["errors_total"] == faults
    assert problem["errors"][0]["path"] == ["schedule_period", "holidays", 0]
    assert ProblemDetails.model_validate(problem).errors_total == faults  # as documented


def test_oauth_client_registration_counts_against_the_client_address() -> None:
    """The MCP library's own route is limited from outside it, by a middleware."""

    async def register(_: object) -> JSONResponse:
        return JSONResponse({"client_id": "new"}, status_code=201)

    limits = RateLimits(anonymous="1/minute")
    app = Starlette(
        routes=[Route("/register", register, methods=["POST"])],
        middleware=[
            Middleware(
                LimitedByAddress,
                limits_of=lambda: limits,
                routes=frozenset({("POST", "/register")}),
                what="OAuth client registration",
            )
        ],
    )
    with TestClient(app) as plain:
        assert plain.post("/register", json={}).status_code == 201
        refused = plain.post("/register", json={})
        assert refused.status_code == 429
        assert "OAuth client registration" in refused.json()["detail"]
        assert int(refused.headers["retry-after"]) >= 1
