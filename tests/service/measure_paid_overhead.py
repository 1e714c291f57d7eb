"""How much a payment adds to a small synchronous solve: keyed vs x402 vs mpp.

Run: ``python -m tests.service.measure_paid_overhead [--solves 25] [--rounds 3]``. The app
runs in-process on a SQLite file with the payment stand-in as facilitator and provider
(on loopback), so the figure is the service's own overhead: the payment checks, the
database claim and the verify/settle round trips. Each round prints the median latency
of each path and its ratio to the keyed path measured in the same round.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable

from starlette.testclient import TestClient

from tests.factories import minimal_request_dict
from tests.service.payments_support import (
    MPP_PRICE_MINOR,
    PRICE_PER_UNIT,
    StandIn,
    mpp_credential,
    mpp_settings,
    paid_app,
    payment_challenge,
    post_solve,
    running_standin,
    x402_settings,
    x402_v1,
)

KEY = "sk_test_" + "f" * 64


def median_latency(client: TestClient, solves: int, headers: Callable[[], dict[str, str]]) -> float:
    data = minimal_request_dict()
    samples = []
    for _ in range(solves):
        sent = headers()
        started = time.perf_counter()
        response = post_solve(client, data, sent)
        samples.append(time.perf_counter() - started)
        assert response.status_code == 200, response.text
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--solves", type=int, default=25)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with running_standin() as standin:
        database = f"sqlite:///{tempfile.mkdtemp()}/overhead.db"
        with paid_app(database, x402_settings(standin), mpp_settings(standin), KEY) as client:
            run_rounds(client, standin, args.solves, args.rounds)


def run_rounds(client: TestClient, standin: StandIn, solves: int, rounds: int) -> None:
    data = minimal_request_dict()

    def keyed() -> dict[str, str]:
        return {"Authorization": f"Bearer {KEY}"}

    def x402() -> dict[str, str]:
        return {"X-PAYMENT": x402_v1(PRICE_PER_UNIT)}

    def mpp() -> dict[str, str]:
        challenge = payment_challenge(post_solve(client, data))
        return {"Authorization": mpp_credential(challenge, standin.add_payment(MPP_PRICE_MINOR))}

    median_latency(client, 3, keyed)  # warm the solver processes
    for _ in range(rounds):
        key = median_latency(client, solves, keyed)
        paid_x402 = median_latency(client, solves, x402)
        paid_mpp = median_latency(client, solves, mpp)
        print(
            f"key {key * 1000:.1f} ms | x402 {paid_x402 * 1000:.1f} ms "
            f"({paid_x402 / key:.2f}x) | mpp {paid_mpp * 1000:.1f} ms ({paid_mpp / key:.2f}x)",
            flush=True,
        )


if __name__ == "__main__":
    main()
