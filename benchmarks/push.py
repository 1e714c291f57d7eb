"""``python -m benchmarks push``: the service's push features measured on a served app:
a webhook receiver that hangs adds no latency to ``POST /solve``, and a job's event
stream brings its first roster within a second and closes when the job ends.

The benchmark starts the service itself (``bentoml serve``, as ``job-control`` does: a
free loopback port, SQLite store and queue in a temporary folder), with
``WEBHOOK_ALLOW_LOOPBACK`` on and the sender's default beat (``WEBHOOK_EVERY_SECONDS``,
1 s), and works with a pro account of its own with units for every job.

**Webhooks.** ``--repeats`` times (default 3), two blocks in turn, A then B, each of
``--jobs`` (default 100) queued solves posted one after another and timed from sending
to the 202 (a 3-employee week with a 60 s limit: queued since the limit is over 30 s,
proven optimal in a fraction of a second, so the jobs end while the block goes on):

- **A**: no webhook endpoint registered;
- **B**: an endpoint registered on a loopback receiver that accepts every connection and
  never answers (``benchmarks.push_receiver``), and eight test events sent to it first;
  the POSTs start once the sender is stuck on the first one. Each attempt waits out the
  sender's 10 s timeout, up to eight at once, and is due again 5 s later; the jobs that
  end meanwhile add their events behind them.

Each block waits for its jobs to end. B then lets the receiver answer, waits until every
event of the block is delivered and removes the endpoint, so the next A starts with an
empty outbox. Targets: the median latency of B at most 10 % above A's (both over every
repeat); the sender held a connection open on the receiver at most POSTs of B (the
connections held at each POST are counted).

**Event stream.** ``--runs`` times (default 3), ``--stream-jobs`` (default 3) queued jobs
(a synthetic 40x8x10x26 request, size 83,200, so queued whatever its limit, with an 8 s
limit) are posted together and each one's ``GET /solve/jobs/{id}/events`` is read to its
end (``benchmarks.push_events`` says how the moments are taken). Targets: the delay from
the first progress record with a roster to the first event carrying one at most 1 s in
the worst job; every stream ends with its ``end`` event and is closed by the server.
A MISS makes the exit status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from benchmarks.command_help import docstring_help
from benchmarks.load import serve_with_state
from benchmarks.machine import git_revision, load_average, machine_info
from benchmarks.push_events import Streamed, end_delays, stream_run
from benchmarks.push_receiver import HangingReceiver
from benchmarks.report import Target, targets_table
from benchmarks.runner import RESULTS, timestamp
from shiftsched.data.synthetic import synthetic_request
from shiftsched.service.store import Store
from shiftsched.service.store.tables import jobs as jobs_table
from shiftsched.service.webhooks.sender import AT_ONCE

SERVE_KEY = "sk_test_push_benchmark_" + "0" * 40
SERVE_ENV = {"WEBHOOK_ALLOW_LOOPBACK": "1", "WEBHOOK_EVERY_SECONDS": "1"}
POLL_SECONDS = 0.1
WAIT_SECONDS = 180.0
WARM_UP = 20  # untimed POSTs first: the pool and the store warm, as in a running service
LATENCY_RATIO = 1.10
STREAM_DELAY_SECONDS = 1.0
SMALL = (3, 1, 0, 7)  # employees, shifts, duties, days: proven optimal in about 0.1 s
LARGE = (40, 8, 10, 26)  # size 83,200: over the synchronous limit
NONE, HANGING = "A: no endpoint", "B: hanging receiver"


@dataclass(frozen=True)
class Block:
    """One block of timed POST /solve calls (seconds) and what the sender did meanwhile."""

    repeat: int
    condition: str
    latencies: list[float]
    held: list[int]  # connections the receiver held unanswered as each POST was sent
    deliveries: int  # events the block put in the endpoint's outbox
    unanswered_attempts: int  # attempts that ended without an answer (the sender's timeout)


def _until(what: str, check: Callable[[], Any], wait: float = WAIT_SECONDS) -> Any:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(POLL_SECONDS)
    raise RuntimeError(f"{what}: not within {wait:.0f} s")


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """``values`` in ``os.environ`` for the block, as they were after it."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def served() -> Iterator[tuple[str, Path]]:
    """The service started with :data:`SERVE_ENV` in its environment; its URL and folder."""
    with contextlib.ExitStack() as stack:
        with _environment(SERVE_ENV):  # the server copies the environment as it starts
            found = stack.enter_context(serve_with_state(SERVE_KEY, prefix="push-"))
        yield found


def queued_body(shape: tuple[int, int, int, int], seconds: int) -> bytes:
    data = synthetic_request(*shape, seed=1)
    data["options"] = {"solver_timeout_seconds": seconds}
    return json.dumps(data).encode()


def _all_ended(store: Store, job_ids: list[str]) -> bool:
    query = sa.select(jobs_table.c.status).where(jobs_table.c.id.in_(job_ids))
    with store.db.read() as conn:
        return all(status != "running" for (status,) in conn.execute(query))


def _register(client: httpx.Client, receiver: HangingReceiver) -> str:
    """An endpoint on the receiver, with :data:`AT_ONCE` test events for it and the
    sender stuck on the first of them."""
    made = client.post("/webhooks", json={"url": receiver.url, "description": "hangs"})
    if made.status_code != 201:
        raise RuntimeError(f"POST /webhooks answered {made.status_code}: {made.text}")
    endpoint: str = made.json()["id"]
    for _ in range(AT_ONCE):
        client.post(f"/webhooks/{endpoint}/test").raise_for_status()
    _until("the sender's first connection to the receiver", lambda: receiver.held() >= 1)
    return endpoint


def _drained(
    client: httpx.Client, store: Store, account_id: str, receiver: HangingReceiver, endpoint: str
) -> tuple[int, int]:
    """Let the receiver answer, wait until each event of the endpoint is delivered, and
    remove it; the number of events and of their unanswered attempts."""
    receiver.answer()

    def delivered() -> list[dict[str, Any]] | None:
        found = store.webhooks.deliveries(account_id, endpoint, limit=10_000)
        return found if all(d["state"] == "delivered" for d in found) else None

    found = _until("every event delivered", delivered)
    client.delete(f"/webhooks/{endpoint}").raise_for_status()
    receiver.answer(False)
    unanswered = sum(a["status"] is None for d in found for a in d["attempts"])
    return len(found), unanswered


def run_block(
    client: httpx.Client,
    store: Store,
    account_id: str,
    receiver: HangingReceiver,
    plan: tuple[int, str, int, bytes],
) -> Block:
    """One block: ``plan`` is (repeat, condition, jobs, body)."""
    repeat, condition, count, body = plan
    endpoint = _register(client, receiver) if condition == HANGING else None
    latencies, held, job_ids = [], [], []
    for _ in range(count):
        held.append(receiver.held())
        started = time.perf_counter()
        answer = client.post("/solve", content=body)
        latencies.append(time.perf_counter() - started)
        if answer.status_code != 202:
            raise RuntimeError(f"expected the queued answer 202, got {answer.status_code}")
        job_ids.append(str(answer.json()["job_id"]))
    _until("the block's jobs to end", lambda: _all_ended(store, job_ids))
    deliveries = unanswered = 0
    if endpoint is not None:
        _until("the jobs' events in the outbox", lambda: _announced(store, job_ids))
        deliveries, unanswered = _drained(client, store, account_id, receiver, endpoint)
    return Block(repeat, condition, latencies, held, deliveries, unanswered)


def _announced(store: Store, job_ids: list[str]) -> bool:
    query = sa.select(jobs_table.c.announced_at).where(jobs_table.c.id.in_(job_ids))
    with store.db.read() as conn:
        return all(stamp is not None for (stamp,) in conn.execute(query))


# ----------------------------------------------------------------------------- verdicts


def _pooled(blocks: list[Block], condition: str) -> list[float]:
    return [s for b in blocks if b.condition == condition for s in b.latencies]


def _pooled_ratio(blocks: list[Block]) -> float:
    a, b = (statistics.median(_pooled(blocks, c) or [math.nan]) for c in (NONE, HANGING))
    return b / a


def verdicts(blocks: list[Block], streams: list[Streamed]) -> list[Target]:
    a, b = statistics.median(_pooled(blocks, NONE)), statistics.median(_pooled(blocks, HANGING))
    held = [h for block in blocks if block.condition == HANGING for h in block.held]
    stuck = sum(h >= 1 for h in held)
    delays = [s.delay for s in streams]
    worst = max(delays) if delays else float("nan")
    closed = sum(s.closed_after_end for s in streams)
    return [
        Target(
            "POST /solve median, B / A",
            b / a <= LATENCY_RATIO,
            f"{b / a:.3f} <= {LATENCY_RATIO:.2f} ({b * 1000:.1f} / {a * 1000:.1f} ms)",
        ),
        Target(
            "the sender stuck on the receiver at most POSTs of B",
            bool(held) and stuck >= len(held) / 2,
            f"{stuck} of {len(held)} POSTs with 1-{max(held, default=0)} connections held",
        ),
        Target(
            "first roster recorded -> its event at the client, worst",
            bool(delays) and worst <= STREAM_DELAY_SECONDS,
            f"{worst:.3f} s <= {STREAM_DELAY_SECONDS:.0f} s",
        ),
        Target(
            "each stream ends with `end` and closes",
            closed == len(streams),
            f"{closed} of {len(streams)}",
        ),
    ]


def pair_ratios(blocks: list[Block]) -> list[float]:
    """B's median over A's, repeat by repeat (each pair measured back to back)."""
    medians = {(b.repeat, b.condition): statistics.median(b.latencies) for b in blocks}
    repeats = sorted({b.repeat for b in blocks})
    return [
        medians[r, HANGING] / medians[r, NONE]
        for r in repeats
        if (r, HANGING) in medians and (r, NONE) in medians
    ]


def _ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.1f} / {max(samples) * 1000:.1f} ms"


def _block_row(block: Block) -> str:
    held = f"{min(block.held)}-{max(block.held)}" if block.condition == HANGING else "-"
    return (
        f"| {block.repeat} | {block.condition} | {len(block.latencies)} | "
        f"{_ms(block.latencies)} | {held} | {block.deliveries} | {block.unanswered_attempts} |"
    )


def _latency_rows(blocks: list[Block]) -> list[str]:
    rows = [_block_row(block) for block in blocks]
    for condition in (NONE, HANGING):
        pooled = _pooled(blocks, condition)
        rows.append(f"| all | {condition} | {len(pooled)} | {_ms(pooled)} | | | |")
    return rows


def _stream_rows(streams: list[Streamed]) -> list[str]:
    return [
        f"| {s.run} | {s.job_id[:8]} | {s.delay:.3f} s | {'yes' if s.same_record else 'no'} | "
        f"{s.found_to_recorded:.3f} s | {s.events} | {s.end_event - s.ended:.3f} s | "
        f"{s.final_status} | {'yes' if s.closed_after_end else 'no'} |"
        for s in streams
    ]


def markdown(
    blocks: list[Block], streams: list[Streamed], targets: list[Target], heading: str, command: str
) -> str:
    delays = [s.delay for s in streams]
    ends = list(end_delays(streams))
    lines = [f"## {heading}", "", f"`{command}`", "", "POST /solve (queued, 202):", ""]
    lines += [
        "| repeat | block | calls | median / worst | held | events | unanswered attempts |",
        "|---|---|---|---|---|---|---|",
        *_latency_rows(blocks),
        "",
        "B / A of the medians, repeat by repeat: "
        + ", ".join(f"{r:.3f}" for r in pair_ratios(blocks))
        + f"; of the pooled medians: {_pooled_ratio(blocks):.3f}.",
        "",
        "Event stream, first roster recorded -> its event at the client:",
        "",
        "| run | job | delay | same record | found -> recorded | events | end -> `end` "
        "| final | closed |",
        "|---|---|---|---|---|---|---|---|---|",
        *_stream_rows(streams),
        "",
    ]
    found = [s.found_to_recorded + s.delay for s in streams]
    for name, values in (
        ("recorded -> event (the delay)", delays),
        ("found -> event (the record's own wait added)", found),
        ("job end -> `end` event", ends),
    ):
        if values:
            lines.append(
                f"- {name}: median {statistics.median(values):.3f} s, worst {max(values):.3f} s"
            )
    lines += ["", "Targets:", "", targets_table(targets), ""]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- command


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks push", **docstring_help(__doc__))
    parser.add_argument("--repeats", type=int, default=3, help="A B pairs (default 3)")
    parser.add_argument("--jobs", type=int, default=100, help="POSTs per block (default 100)")
    parser.add_argument("--runs", type=int, default=3, help="event-stream runs (default 3)")
    parser.add_argument(
        "--stream-jobs", type=int, default=3, help="jobs streamed per run (default 3)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        nargs="?",
        const=RESULTS,
        metavar="DIR",
        help="write <timestamp>-push.md/.json there (default benchmarks/results/)",
    )
    return parser


def measure(args: argparse.Namespace) -> tuple[list[Block], list[Streamed]]:
    """Serve the app, then both halves in one run of it."""
    small, large = queued_body(SMALL, 60), queued_body(LARGE, 8)
    blocks: list[Block] = []
    streams: list[Streamed] = []
    with served() as (base, home), HangingReceiver() as receiver:
        store = Store(f"sqlite:///{home / 'service.db'}")
        account = store.accounts.create_account("push benchmark", tier="pro", free_quota=10**6)
        key = store.accounts.issue_key(account.id)
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        with httpx.Client(base_url=base, headers=headers, timeout=60, trust_env=False) as client:
            run_block(client, store, account.id, receiver, (0, NONE, WARM_UP, small))
            for repeat in range(1, args.repeats + 1):
                for condition in (NONE, HANGING):
                    plan = (repeat, condition, args.jobs, small)
                    blocks.append(run_block(client, store, account.id, receiver, plan))
                    print(_block_row(blocks[-1]), flush=True)
            for run in range(1, args.runs + 1):
                streams += stream_run(client, store, large, args.stream_jobs, run)
                print("\n".join(_stream_rows(streams[-args.stream_jobs :])), flush=True)
    return blocks, streams


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if min(args.repeats, args.jobs, args.runs, args.stream_jobs) < 1:
        raise SystemExit("--repeats, --jobs, --runs and --stream-jobs must be at least 1")
    started, load_before = timestamp(), load_average()
    blocks, streams = measure(args)
    targets = verdicts(blocks, streams)
    command = ("python -m benchmarks push " + " ".join(argv)).strip()
    summary = markdown(blocks, streams, targets, f"Push, {started}: served here", command)
    print()
    print(summary)
    if args.out is not None:
        stem = args.out / f"{started}-push"
        stem.parent.mkdir(parents=True, exist_ok=True)
        stem.with_suffix(".md").write_text(summary, encoding="utf-8")
        info = {
            "started_utc": started,
            "command": command,
            "blocks": [asdict(b) for b in blocks],
            "streams": [asdict(s) | {"delay": s.delay} for s in streams],
            "load_average_start": load_before,
            "load_average_end": load_average(),
            "machine": machine_info(),
            "git": git_revision(),
        }
        stem.with_suffix(".json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        print(stem.with_suffix(".md"))
    return 0 if all(t.passed is not False for t in targets) else 1
