"""A paid solve that finds every solver process busy: 503, not settled, payment reusable.

Both processes of the pool are held by tasks the test releases itself, so the busy
answer depends on the order of events, not on how fast the machine is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from shiftsched.service.solving.workers import SolvePool
from tests.factories import minimal_request_dict
from tests.service.payments_support import (
    PRICE_PER_UNIT,
    StandIn,
    assert_audited_roster,
    paid_app,
    post_solve,
    problem_of,
    x402_settings,
    x402_v1,
)
from tests.service.pool_support import Background, wait_until_running

pytestmark = pytest.mark.slow  # fills the solver pool

DEMO_KEY = "sk_test_" + "p" * 64
SMALL_PRICE = units_for(request_size(parse_request(minimal_request_dict()))) * PRICE_PER_UNIT


@pytest.fixture(scope="module")
def client(module_database_url: str, payment_standin: StandIn) -> Iterator[TestClient]:
    with paid_app(module_database_url, x402_settings(payment_standin), None, DEMO_KEY) as client:
        app = client.app
        app.state.settings = replace(app.state.settings, solve_queue_wait_seconds=0.2)  # type: ignore[attr-defined]
        yield client


def test_a_busy_pool_answers_503_and_the_payment_can_be_sent_again(
    client: TestClient, payment_standin: StandIn, tmp_path: Path
) -> None:
    payment_standin.reset()
    pool: SolvePool = client.app.state.pool  # type: ignore[attr-defined]
    holders = [Background(pool, tmp_path) for _ in range(pool.processes)]
    wait_until_running(pool, pool.processes)
    header = x402_v1(SMALL_PRICE)
    data = minimal_request_dict()

    busy = post_solve(client, data, {"X-PAYMENT": header})

    assert "the payment was not settled" in problem_of(busy, 503, "service-unavailable")["detail"]
    assert int(busy.headers["retry-after"]) >= 1
    assert payment_standin.calls("/settle") == []
    for holder in holders:
        holder.release()
    assert [holder.result() for holder in holders] == ["done"] * len(holders)
    assert_audited_roster(post_solve(client, data, {"X-PAYMENT": header}), data)
    assert len(payment_standin.calls("/settle")) == 1
