"""``python -m benchmarks job-control``: how soon a queued job's progress shows, and how
soon a stop takes effect, on a real service over HTTP.

The benchmark starts the service itself (``bentoml serve``, as ``load --serve`` does: a
free loopback port, its SQLite database and SqliteHuey queue in a temporary folder, the
demo account, which is pro tier), then ``--repeats`` times (default 5):

1. submits a queued job (``POST /solve`` answers 202): a synthetic request with a 300 s
   time limit, which no solve ends on its own within the run;
2. polls, every :data:`POLL_SECONDS`, the queue's mark of the job (the consumer puts it
   when it takes the job: the job starts) and ``GET /solve/jobs/{id}/progress``;
   **(a)** is the time from the mark appearing to the first answer whose ``state`` is
   ``solving``; the time from the 202 to that answer is reported beside it (it adds the
   wait for an idle consumer to look at the queue, up to a second);
3. waits for the first roster (``solutions >= 1``), sends ``DELETE /solve/jobs/{id}``
   (202) and polls ``GET /solve/jobs/{id}``; **(b)** is the time from sending the DELETE
   to the first answer that is no longer ``running``. The final roster is audited
   (``shiftsched.checking.audit``) and the account's units must drop by the job's units exactly
   once.

Targets: the median of (a) and of (b) at most 2 s (:data:`TARGET_SECONDS`); every job
completes with an audited roster, charged once. A MISS makes the exit status 1. Polling
is bounded by :data:`WAIT_SECONDS` per step, so a run ends by itself.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
from huey import SqliteHuey

from benchmarks.command_help import docstring_help
from benchmarks.load import audit_solution, serve_with_state
from benchmarks.machine import git_revision, load_average, machine_info
from benchmarks.report import Target, targets_table
from benchmarks.runner import RESULTS, timestamp
from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from shiftsched.data.synthetic import synthetic_request
from shiftsched.service.solving.runtime import QUEUE_NAME

SERVE_KEY = "sk_test_job_control_benchmark_" + "0" * 34
POLL_SECONDS = 0.02
WAIT_SECONDS = 120.0
TARGET_SECONDS = 2.0
TIME_LIMIT_SECONDS = 300
SHAPE = (50, 8, 4, 28)  # employees, shifts, duties, days: size 44,800, never proven in 300 s


@dataclass(frozen=True)
class Trial:
    """One job's figures (seconds) and outcome."""

    repeat: int
    job_id: str
    started_to_visible: float  # (a)
    submitted_to_visible: float
    first_record_elapsed: float  # the record's own elapsed_seconds when first seen
    stop_to_final: float  # (b)
    final_status: str
    audit: str
    charged_once: bool


def served(key: str) -> contextlib.AbstractContextManager[tuple[str, Path]]:
    """The service on a free loopback port; yields its URL and its state folder."""
    return serve_with_state(key, prefix="job-control-")


def _until(what: str, check: Callable[[], Any]) -> tuple[float, Any]:
    """Poll ``check`` until it returns something truthy; (when, that value)."""
    deadline = time.perf_counter() + WAIT_SECONDS
    while time.perf_counter() < deadline:
        value = check()
        if value:
            return time.perf_counter(), value
        time.sleep(POLL_SECONDS)
    raise RuntimeError(f"{what}: nothing within {WAIT_SECONDS:.0f} s")


def _available(client: httpx.Client) -> int:
    units: int = client.get("/usage").raise_for_status().json()["available_units"]
    return units


def trial(client: httpx.Client, queue: SqliteHuey, repeat: int, body: bytes) -> Trial:
    """One job: submit, see it start, see its first record, stop it, see it end."""
    data = json.loads(body)
    request = parse_request(data)
    units = units_for(request_size(request))
    before = _available(client)
    submitted = time.perf_counter()
    answer = client.post("/solve", content=body)
    if answer.status_code != 202:
        raise RuntimeError(f"expected the queued answer 202, got {answer.status_code}")
    job_id = answer.json()["job_id"]
    mark = f"executing:{job_id}"
    started: float | None = None

    def solving() -> Any:
        nonlocal started
        if started is None and queue.get(mark, peek=True) is not None:
            started = time.perf_counter()
        record = client.get(f"/solve/jobs/{job_id}/progress").json()
        return record if record["state"] != "queued" else None

    visible, record = _until("the first progress record", solving)
    if started is None:  # the record came within one poll of the mark
        started = visible
    _until(
        "the first roster",
        lambda: client.get(f"/solve/jobs/{job_id}/progress").json()["solutions"] >= 1,
    )
    stop_sent = time.perf_counter()
    stopped = client.delete(f"/solve/jobs/{job_id}")
    if stopped.status_code not in (200, 202):
        raise RuntimeError(f"DELETE answered {stopped.status_code}")

    def final() -> Any:
        job = client.get(f"/solve/jobs/{job_id}").json()
        return job if job["status"] != "running" else None

    ended, job = _until("the job's end", final)
    audit = "no roster"
    if job["status"] == "completed":
        audit = audit_solution(request, job["solution"]).verdict
    charged = before - _available(client)
    return Trial(
        repeat=repeat,
        job_id=job_id,
        started_to_visible=visible - started,
        submitted_to_visible=visible - submitted,
        first_record_elapsed=float(record["elapsed_seconds"]),
        stop_to_final=ended - stop_sent,
        final_status=str(job["status"]),
        audit=audit,
        charged_once=charged == (units if job["status"] == "completed" else 0),
    )


def verdicts(trials: list[Trial]) -> list[Target]:
    a = statistics.median(t.started_to_visible for t in trials)
    b = statistics.median(t.stop_to_final for t in trials)
    clean = sum(t.final_status == "completed" and t.audit == "clean" for t in trials)
    once = sum(t.charged_once for t in trials)
    return [
        Target("(a) start -> progress visible, median", a <= TARGET_SECONDS, f"{a:.2f} s <= 2 s"),
        Target("(b) DELETE -> final state, median", b <= TARGET_SECONDS, f"{b:.2f} s <= 2 s"),
        Target("completed, audit clean", clean == len(trials), f"{clean} of {len(trials)}"),
        Target("units charged exactly once", once == len(trials), f"{once} of {len(trials)}"),
    ]


def markdown(trials: list[Trial], targets: list[Target], heading: str, command: str) -> str:
    lines = [
        f"## {heading}",
        "",
        f"`{command}`",
        "",
        "| repeat | (a) start -> visible | 202 -> visible | (b) DELETE -> final | final | audit |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {t.repeat} | {t.started_to_visible:.3f} s | {t.submitted_to_visible:.3f} s | "
        f"{t.stop_to_final:.3f} s | {t.final_status} | {t.audit} |"
        for t in trials
    ]
    lines += ["", "Targets:", "", targets_table(targets), ""]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks job-control", **docstring_help(__doc__)
    )
    parser.add_argument("--repeats", type=int, default=5, help="jobs to time (default 5)")
    parser.add_argument(
        "--out",
        type=Path,
        nargs="?",
        const=RESULTS,
        metavar="DIR",
        help="write <timestamp>-job-control.md/.json there (default benchmarks/results/)",
    )
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.repeats < 1:
        raise SystemExit("--repeats must be at least 1")
    data = synthetic_request(*SHAPE, seed=1)
    data["options"] = {"solver_timeout_seconds": TIME_LIMIT_SECONDS}
    body = json.dumps(data).encode()
    started, load_before = timestamp(), load_average()
    trials = []
    headers = {"Authorization": f"Bearer {SERVE_KEY}", "Content-Type": "application/json"}
    with served(SERVE_KEY) as (base, home):
        queue = SqliteHuey(QUEUE_NAME, filename=str(home / "jobs.db"), results=False)
        with httpx.Client(base_url=base, headers=headers, timeout=60, trust_env=False) as client:
            for repeat in range(1, args.repeats + 1):
                trials.append(trial(client, queue, repeat, body))
                print(asdict(trials[-1]), flush=True)
    targets = verdicts(trials)
    command = "python -m benchmarks job-control " + " ".join(argv)
    heading = f"Job control, {started}: synthetic {'x'.join(map(str, SHAPE))}, served here"
    summary = markdown(trials, targets, heading, command.strip())
    print()
    print(summary)
    if args.out is not None:
        stem = args.out / f"{started}-job-control"
        stem.parent.mkdir(parents=True, exist_ok=True)
        stem.with_suffix(".md").write_text(summary, encoding="utf-8")
        info = {
            "started_utc": started,
            "command": command.strip(),
            "trials": [asdict(t) for t in trials],
            "load_average_start": load_before,
            "load_average_end": load_average(),
            "machine": machine_info(),
            "git": git_revision(),
        }
        stem.with_suffix(".json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        print(stem.with_suffix(".md"))
    return 0 if all(t.passed is not False for t in targets) else 1
