"""Latency of a running service: validate and a small solve, p50/p99 over sequential calls.

Usage: start the service (``DEMO_API_KEY=... make serve``), then
``python benchmarks/http_latency.py --key KEY [--url http://localhost:3000/v1/public]
[--validate 200] [--solve 50] [--dataset datasets/retail_weekdays.json]``.
Requests go to loopback only; counts are bounded, so the run stops by itself.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import httpx


def timed(
    client: httpx.Client, count: int, path: str, body: bytes, headers: dict[str, str]
) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        response = client.post(path, content=body, headers=headers)
        samples.append(time.perf_counter() - started)
        response.raise_for_status()
    return samples


def summary(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return (
        f"{name}: n={len(samples)} p50={statistics.median(samples) * 1000:.1f} ms "
        f"p99={p99 * 1000:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://localhost:3000/v1/public", help="the API root")
    parser.add_argument("--key", required=True, help="an API key")
    parser.add_argument("--validate", type=int, default=200, help="validate calls to time")
    parser.add_argument("--solve", type=int, default=50, help="solve calls to time")
    parser.add_argument(
        "--dataset", default="datasets/retail_weekdays.json", help="the request to send"
    )
    args = parser.parse_args()
    body = Path(args.dataset).read_bytes()
    json_headers = {"Content-Type": "application/json"}
    with httpx.Client(base_url=args.url, timeout=120) as client:
        timed(client, 5, "/solve/validate", body, json_headers)  # warm-up
        print(
            summary("validate", timed(client, args.validate, "/solve/validate", body, json_headers))
        )
        auth = {**json_headers, "Authorization": f"Bearer {args.key}"}
        print(summary("solve", timed(client, args.solve, "/solve", body, auth)))


if __name__ == "__main__":
    main()
