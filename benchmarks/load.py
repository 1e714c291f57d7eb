"""``python -m benchmarks load``: concurrent synchronous solves against a running service.

For each concurrency C (default 1, 4, 12, 32) the benchmark sends C ``POST /solve``
requests at once (a key-paid synchronous solve of one dataset with its
``options.solver_timeout_seconds`` set to ``--time-limit``), ``--rounds`` times, and
reports per C: answers by HTTP status, latency p50/p95/max, the spread of the objective
of the rosters served, and the independent audit of every roster (``shiftsched.checking.audit``: no
hard violation, and the reported metrics and shortages equal the audit's).

Targets, per C (a MISS makes the exit status 1, so the command can serve as a check):

- statuses: every answer is 200, 503 with ``Retry-After`` (the service sheds load) or
  504 (no roster within the time limit); a 500, a 503 without ``Retry-After`` or no
  answer within ``--request-timeout`` is a violation;
- rosters: every 200 audits clean and its metrics agree with the audit;
- latency: p95 over all answers <= time limit + ``--queue-wait`` (the longest a request
  may wait for a solver);
- served: at least one 200 (a service that refuses everything passes nothing).

``--serve`` starts the service itself on a free loopback port, with a fixed demo key and
its SQLite database and job queue in a temporary directory, and stops it at the end.
Requests go out in bursts whose size and count are bounded, and each request is bounded
in time, so a run ends by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import json
import math
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks.command_help import docstring_help
from benchmarks.machine import ROOT, git_revision, load_average, machine_info
from benchmarks.report import Target, targets_table
from benchmarks.runner import RESULTS, timestamp
from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment, SolveRequest

DEFAULT_URL = "http://127.0.0.1:3000/v1/public"
DEFAULT_DATASET = "datasets/ward_24_7.json"
SERVE_KEY = "sk_test_load_benchmark_" + "0" * 40
SERVE_STARTUP_SECONDS = 120.0
SERVE_STOP_SECONDS = 30.0
ALLOWED = "200, 503 with Retry-After, 504"
# Environment the served copy must not inherit: it keeps its state in a temporary folder.
_NOT_INHERITED = ("DATABASE_URL", "JOBS_DB_PATH", "JOBS_REDIS_URL", "SIGN_IN_LIMIT_STORAGE")


# ----------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class Audited:
    """The audit of one served roster: verdict, audited objective, first difference."""

    verdict: str  # clean, hard_violations, metrics_mismatch, unreadable
    objective: float | None  # the audit's objective of the roster
    detail: str = ""


def audit_solution(request: SolveRequest, solution: Mapping[str, Any]) -> Audited:
    """Audit a v1 ``solution`` (JSON data) against its request."""
    try:
        assignments = [Assignment.model_validate(a) for a in solution["assignments"]]
        report = audit(request, assignments)
        differences = compare_with_metrics(
            report, solution["metrics"], solution.get("shortages") or []
        )
    except (KeyError, TypeError, ValueError) as exc:
        return Audited("unreadable", None, f"{type(exc).__name__}: {exc}"[:200])
    if report.hard_violations:
        first = report.hard_violations[0]
        return Audited(
            "hard_violations",
            report.objective_value,
            f"{len(report.hard_violations)} hard: {first.code} {first.message}"[:200],
        )
    if differences:
        return Audited(
            "metrics_mismatch",
            report.objective_value,
            f"{len(differences)} differences: {differences[0]}"[:200],
        )
    return Audited("clean", report.objective_value)


@dataclass(frozen=True)
class Answer:
    """One request's outcome. ``status`` None: no HTTP answer in time (or a transport error)."""

    concurrency: int
    round: int
    index: int
    status: int | None
    seconds: float
    retry_after: str | None = None
    objective: float | None = None  # solution.metrics.objective_value of a 200
    audit: str = ""  # for a 200: the Audited verdict
    detail: str = ""  # error text, problem title or first audit difference

    @property
    def label(self) -> str:
        """The status as tabulated: ``503`` alone only with Retry-After."""
        if self.status is None:
            return "no answer"
        if self.status == 503 and self.retry_after is None:
            return "503 no Retry-After"
        return str(self.status)

    @property
    def allowed(self) -> bool:
        return self.label in ("200", "503", "504")


def judge(request: SolveRequest, answer: Answer, content: bytes | None) -> Answer:
    """The answer with its objective and audit verdict filled in (a 200's body audited)."""
    if answer.status != 200 or content is None:
        if content:
            with contextlib.suppress(ValueError, AttributeError):
                problem = json.loads(content)
                detail = str(problem.get("detail") or problem.get("title") or "")[:200]
                return _replace(answer, detail=detail)
        return answer
    try:
        solution = json.loads(content)["solution"]
        objective = solution["metrics"]["objective_value"]
    except (ValueError, KeyError, TypeError) as exc:
        return _replace(answer, audit="unreadable", detail=f"{type(exc).__name__}: {exc}"[:200])
    verdict = audit_solution(request, solution)
    return _replace(answer, objective=objective, audit=verdict.verdict, detail=verdict.detail)


def _replace(answer: Answer, **changes: Any) -> Answer:
    return Answer(**{**answer.__dict__, **changes})


# ----------------------------------------------------------------------------- summary


def percentile(samples: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100): a value that was measured, never between."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Level:
    """Everything measured at one concurrency, over all its rounds."""

    concurrency: int
    requests: int
    statuses: dict[str, int]
    p50: float | None
    p95: float | None
    max_seconds: float | None
    objective_min: float | None
    objective_median: float | None
    objective_max: float | None
    rosters: int  # 200 answers
    clean: int  # of which audit clean with agreeing metrics
    bad_statuses: int
    notes: list[str] = field(default_factory=list)


def summarise(concurrency: int, answers: Sequence[Answer]) -> Level:
    seconds = [a.seconds for a in answers]
    served = [a for a in answers if a.status == 200]
    objectives = [a.objective for a in served if a.objective is not None]
    notes = sorted(
        {f"{a.label}: {a.detail}" for a in answers if not a.allowed and a.detail}
        | {f"{a.audit}: {a.detail}" for a in served if a.audit != "clean"}
    )
    return Level(
        concurrency=concurrency,
        requests=len(answers),
        statuses=dict(sorted(Counter(a.label for a in answers).items())),
        p50=percentile(seconds, 50),
        p95=percentile(seconds, 95),
        max_seconds=max(seconds, default=None),
        objective_min=min(objectives, default=None),
        objective_median=statistics.median(objectives) if objectives else None,
        objective_max=max(objectives, default=None),
        rosters=len(served),
        clean=sum(a.audit == "clean" for a in served),
        bad_statuses=sum(not a.allowed for a in answers),
        notes=notes,
    )


def verdicts(level: Level, time_limit: float, queue_wait: float) -> list[Target]:
    """The four targets of one concurrency (see the module docstring)."""
    c = f"C={level.concurrency}"
    bound = time_limit + queue_wait
    statuses = ", ".join(f"{n} x {s}" for s, n in level.statuses.items())
    return [
        Target(
            f"{c} statuses in {{{ALLOWED}}}",
            level.bad_statuses == 0,
            f"{level.bad_statuses} of {level.requests} outside ({statuses})",
        ),
        Target(
            f"{c} rosters audit clean, metrics agree",
            None if level.rosters == 0 else level.clean == level.rosters,
            f"{level.clean} of {level.rosters} clean",
        ),
        Target(
            f"{c} p95 <= {bound:g} s",
            None if level.p95 is None else level.p95 <= bound,
            f"p95 {_seconds(level.p95)} s",
        ),
        Target(f"{c} at least one 200", level.rosters > 0, f"{level.rosters} x 200"),
    ]


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _objective(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A markdown table: the header, its rule and one line per row of cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def levels_table(levels: Sequence[Level]) -> str:
    header = ["C", "requests", "statuses", "p50 s", "p95 s", "max s"]
    header += ["objective min / median / max", "audit clean", "outside allowed"]
    return markdown_table(
        header,
        (
            [
                str(lv.concurrency),
                str(lv.requests),
                ", ".join(f"{s}: {n}" for s, n in lv.statuses.items()),
                _seconds(lv.p50),
                _seconds(lv.p95),
                _seconds(lv.max_seconds),
                " / ".join(
                    _objective(v) for v in (lv.objective_min, lv.objective_median, lv.objective_max)
                ),
                f"{lv.clean}/{lv.rosters}",
                str(lv.bad_statuses),
            ]
            for lv in levels
        ),
    )


def markdown(levels: Sequence[Level], targets: Sequence[Target], heading: str, command: str) -> str:
    parts = [f"## {heading}", "", f"`{command}`", "", levels_table(levels), ""]
    notes = [f"- C={lv.concurrency} {note}" for lv in levels for note in lv.notes]
    if notes:
        parts += ["Notes (distinct problems and audit differences):", "", *notes, ""]
    parts += ["Targets:", "", targets_table(list(targets)), ""]
    return "\n".join(parts)


# ----------------------------------------------------------------------------- requests


def request_body(dataset: Path, time_limit: int) -> tuple[dict[str, Any], bytes]:
    """The dataset with its time limit overridden, as data and as the bytes sent."""
    data = json.loads(dataset.read_text(encoding="utf-8"))
    data["options"] = {**data.get("options", {}), "solver_timeout_seconds": time_limit}
    return data, json.dumps(data).encode()


async def _burst(
    client: httpx.AsyncClient,
    body: bytes,
    headers: dict[str, str],
    concurrency: int,
    round_: int,
    timeout: float,
) -> list[tuple[Answer, bytes | None]]:
    """``concurrency`` requests released together; each bounded by ``timeout`` seconds."""
    go = asyncio.Event()

    async def one(index: int) -> tuple[Answer, bytes | None]:
        await go.wait()
        started = time.perf_counter()
        try:
            response = await asyncio.wait_for(
                client.post("/solve", content=body, headers=headers), timeout
            )
        except (TimeoutError, httpx.HTTPError) as exc:
            elapsed = time.perf_counter() - started
            detail = f"{type(exc).__name__} after {elapsed:.1f} s"
            return Answer(concurrency, round_, index, None, elapsed, detail=detail), None
        elapsed = time.perf_counter() - started
        retry = response.headers.get("Retry-After")
        answer = Answer(concurrency, round_, index, response.status_code, elapsed, retry)
        return answer, response.content

    tasks = [asyncio.create_task(one(i)) for i in range(concurrency)]
    await asyncio.sleep(0)
    go.set()
    return list(await asyncio.gather(*tasks))


async def run_levels(
    url: str,
    key: str,
    body: bytes,
    request: SolveRequest,
    concurrencies: Sequence[int],
    rounds: int,
    timeout: float,
    warmup: int,
) -> list[Answer]:
    """Every burst, one after another; rosters are audited between bursts, not during."""
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    limits = httpx.Limits(max_connections=max(concurrencies), max_keepalive_connections=0)
    answers: list[Answer] = []
    async with httpx.AsyncClient(
        base_url=url, timeout=httpx.Timeout(timeout, connect=10), limits=limits, trust_env=False
    ) as client:
        for _ in range(warmup):
            ((answer, _),) = await _burst(client, body, headers, 1, 0, timeout)
            print(f"warm-up: {answer.label} in {answer.seconds:.2f} s", flush=True)
        for concurrency in concurrencies:
            for round_ in range(1, rounds + 1):
                burst = await _burst(client, body, headers, concurrency, round_, timeout)
                judged = [judge(request, a, content) for a, content in burst]
                answers += judged
                statuses = Counter(a.label for a in judged)
                print(
                    f"C={concurrency} round {round_}: {dict(statuses)}, "
                    f"max {max(a.seconds for a in judged):.1f} s",
                    flush=True,
                )
    return answers


# ----------------------------------------------------------------------------- --serve


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the service's process group, SIGKILL to it if it lingers."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(SERVE_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextlib.contextmanager
def served(key: str, log_path: Path | None) -> Iterator[str]:
    """The service on a free loopback port, state in a temporary folder; yields its URL."""
    with serve_with_state(key, log_path, "load-serve-") as (base, _):
        yield base


@contextlib.contextmanager
def serve_with_state(
    key: str, log_path: Path | None = None, prefix: str = "serve-"
) -> Iterator[tuple[str, Path]]:
    """The service (SQLite store, SqliteHuey queue, demo ``key``) on a free loopback
    port; yields its URL and its state folder (where the queue's file lives)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        home = Path(tmp)
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in _NOT_INHERITED}
        env.update(
            DEMO_API_KEY=key,
            DATABASE_URL=f"sqlite:///{home / 'service.db'}",
            JOBS_DB_PATH=str(home / "jobs.db"),
            BENTOML_HOME=str(home / "bentoml"),
            BENTOML_DO_NOT_TRACK="true",
            # A benchmark's own server measures the service, not its rate limits.
            ANONYMOUS_RATE_LIMIT="off",
            KEY_RATE_LIMIT="off",
        )
        bentoml = Path(sys.executable).parent / "bentoml"
        log_file = log_path or home / "serve.log"
        command = [str(bentoml), "serve", "shiftsched.service.app:ShiftScheduler"]
        command += ["--port", str(port), "--host", "127.0.0.1"]
        with log_file.open("wb") as log:
            process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
            try:
                base = f"http://127.0.0.1:{port}/v1/public"
                _wait_ready(process, base, log_file)
                yield base, home
            finally:
                _stop(process)


def _wait_ready(process: subprocess.Popen[bytes], base: str, log_file: Path) -> None:
    deadline = time.monotonic() + SERVE_STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log_file.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"the service exited with {process.returncode}:\n{tail}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{base}/openapi.json", timeout=2, trust_env=False).status_code == 200:
                return
        time.sleep(0.5)
    raise RuntimeError(f"the service did not answer within {SERVE_STARTUP_SECONDS:.0f} s")


# ----------------------------------------------------------------------------- output


def write_results(
    answers: Sequence[Answer], summary: str, info: dict[str, Any], stem: Path
) -> list[Path]:
    """``<stem>.csv`` (one row per request), ``.md`` (the tables) and ``.json`` (sidecar)."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    csv_path, md_path, json_path = (stem.with_suffix(s) for s in (".csv", ".md", ".json"))
    names = list(Answer.__dataclass_fields__)
    with csv_path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=names)
        writer.writeheader()
        writer.writerows(a.__dict__ for a in answers)
    md_path.write_text(summary, encoding="utf-8")
    json_path.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return [csv_path, md_path, json_path]


def int_list(text: str) -> list[int]:
    values = [int(part) for part in text.split(",") if part.strip()]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def recorded_args(argv: Sequence[str]) -> list[str]:
    """The arguments as recorded in the results: a local log path is left out."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip or arg.startswith("--serve-log="):
            skip = False
        elif arg == "--serve-log":
            skip = True
        else:
            kept.append(arg)
    return kept


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks load", **docstring_help(__doc__))
    parser.add_argument("--url", default=DEFAULT_URL, help="the API root (/v1/public)")
    parser.add_argument("--key", help="an API key (default: env DEMO_API_KEY)")
    parser.add_argument(
        "--dataset", type=Path, default=ROOT / DEFAULT_DATASET, help="the request to send"
    )
    parser.add_argument(
        "--time-limit", type=int, default=5, metavar="S", help="each solve's time limit"
    )
    parser.add_argument(
        "--concurrency",
        type=int_list,
        default=[1, 4, 12, 32],
        metavar="C,...",
        help="concurrent requests per burst",
    )
    parser.add_argument("--rounds", type=int, default=1, help="bursts per concurrency")
    parser.add_argument(
        "--queue-wait",
        type=float,
        default=10.0,
        metavar="S",
        help="how long a request may wait for a solver slot",
    )
    parser.add_argument(
        "--request-timeout",
        type=float,
        default=300.0,
        metavar="S",
        help="the client's timeout per request",
    )
    parser.add_argument("--warmup", type=int, default=1, help="solves before measuring")
    parser.add_argument("--serve", action="store_true", help="start and stop the service")
    parser.add_argument("--serve-log", type=Path, help="keep the served copy's log here")
    parser.add_argument(
        "--out",
        nargs="?",
        const=RESULTS,
        type=Path,
        metavar="DIR",
        help="write the results here (no DIR: benchmarks/results)",
    )
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.rounds < 1:
        raise SystemExit("--rounds must be at least 1")
    key = SERVE_KEY if args.serve else (args.key or os.environ.get("DEMO_API_KEY"))
    if not key:
        raise SystemExit("an API key is needed: --key, env DEMO_API_KEY, or --serve")
    data, body = request_body(args.dataset, args.time_limit)
    request = parse_request(data)
    started, load_before = timestamp(), load_average()
    with served(key, args.serve_log) if args.serve else contextlib.nullcontext(args.url) as url:
        answers = asyncio.run(
            run_levels(
                url,
                key,
                body,
                request,
                args.concurrency,
                args.rounds,
                args.request_timeout,
                args.warmup,
            )
        )
    levels = [summarise(c, [a for a in answers if a.concurrency == c]) for c in args.concurrency]
    targets = [t for lv in levels for t in verdicts(lv, args.time_limit, args.queue_wait)]
    command = "python -m benchmarks load " + " ".join(recorded_args(argv))
    dataset = args.dataset.resolve()
    name = dataset.relative_to(ROOT) if dataset.is_relative_to(ROOT) else dataset.name
    heading = (
        f"Load, {started}: {name}, time limit {args.time_limit} s, {args.rounds} round(s), "
        f"{'served here' if args.serve else 'running service'}"
    )
    summary = markdown(levels, targets, heading, command)
    print()
    print(summary)
    if args.out is not None:
        info = {
            "started_utc": started,
            "command": command,
            "settings": {
                "dataset": str(name),
                "time_limit": args.time_limit,
                "concurrency": args.concurrency,
                "rounds": args.rounds,
                "queue_wait": args.queue_wait,
                "served_here": args.serve,
                "service_env": {
                    k: os.environ.get(k)
                    for k in ("SOLVE_PROCESSES", "CP_SAT_WORKERS", "JOBS_WORKERS")
                },
            },
            "load_average_start": load_before,
            "machine": machine_info(),
            "git": git_revision(),
        }
        for path in write_results(answers, summary, info, args.out / f"{started}-load"):
            print(path)
    return 0 if all(t.passed is not False for t in targets) else 1
