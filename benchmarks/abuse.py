"""``python -m benchmarks abuse``: an outside abuse probe of the served app, re-run
against its targets, so that a fix stays fixed.

The command starts the real service (``bentoml serve``, as ``make serve`` does) on a
free loopback port, with a demo key of its own and its SQLite store and job queue in a
temporary folder, waits for ``GET /readyz``, sends the probes below and stops it
(SIGTERM to its process group, SIGKILL after a grace). Every probe is what a stranger
could send, each body at most 1 MB (the contract's cap):

1. **long period**: an audit of a request whose period has some 58,000 days, the body
   just under 1 MB: 422 ``out_of_range`` (the period's ceiling is 400 days) in under
   100 ms, so that a refusal costs less than the work it refuses;
2. **largest valid audit**: 400 days, 50 employees, 12 shifts and as many assignments
   as fit beside them (shortages, excess, duplicated cells): 200 in under 2 s, the
   answer under 5 MB;
3. **duplicate cells**: ``datasets/retail_weekdays.json`` and one employee listed on one
   date as often as fits: 200 in under 1 s, exactly one ``one_shift_per_date`` finding;
4. **storm**: 50 anonymous audits of probe 2's body at once, three times. Statuses only
   200, 429 or 503 with ``Retry-After`` (the excess is 429), never a 500; the memory of
   the server's whole process tree under 1.5 GB; a keyed solve sent during each storm
   within 2x the same solve unloaded (measured 3 times just before);
5. **large recommendation**: ``datasets/max_size.json`` to ``/solve/recommend`` with the
   key: 422 ``tier-limit-exceeded`` in under 1 s, ``GET /usage`` unchanged;
6. **dates near the edge**: a period starting 0001-01-02 with a history from 0001-01-01
   on audit, compare, plan, replan, recommend and explain: 422 with a path, never 500;
7. **Host header**: ``Host: evil.example`` on an unknown API path, a 422 audit and the API
   index: the name appears nowhere in the answer.

Timing probes run ``--repeats`` times (3); their verdict reads the median, the worst run
is shown beside it (the first audit also starts the service's light process, which
starts on first use). Anonymous calls are spaced so that the per-address limit (5 a
second, 60 a minute) is met by the storms alone. The table is printed and written as
JSON to ``benchmarks/results/abuse.json``; any FAIL makes the exit status 1. Every loop
is bounded in count and every request in time, so a run ends by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import importlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks.command_help import docstring_help
from benchmarks.load import free_port, markdown_table
from benchmarks.machine import ROOT, git_revision, load_average, machine_info
from benchmarks.runner import RESULTS, timestamp

Json = dict[str, Any]

SERVE_KEY = "sk_test_abuse_benchmark_" + "0" * 40
API = "/v1/public"
BODY_BYTES = 1_048_000  # "just under" the 1 MB (1,048,576 bytes) cap
START = dt.date(2026, 1, 1)
EMPLOYEES = 50
SHIFTS = 12
CEILING_DAYS = 400
RETAIL = ROOT / "datasets" / "retail_weekdays.json"
MAX_SIZE = ROOT / "datasets" / "max_size.json"

LONG_PERIOD_MS = 100.0
LARGEST_AUDIT_S = 2.0
LARGEST_ANSWER_BYTES = 5 * 1024 * 1024
DUPLICATES_S = 1.0
STORM_SIZE = 50
STORM_MEMORY_BYTES = int(1.5 * 1024**3)
STORM_SLOWDOWN = 2.0
STORM_SOLVE_DELAY_S = 0.2  # the keyed solve leaves this long after the storm is released
STORM_GAP_S = 3.0  # between storms: the 5/second window has emptied
RECOMMEND_S = 1.0
EVIL_HOST = "evil.example"

ANONYMOUS_SPACING_S = 0.25  # at most 4 anonymous calls a second outside the storms
REQUEST_TIMEOUT_S = 60.0
STORM_TIMEOUT_S = 120.0
SAMPLE_EVERY_S = 0.05
_TIMEOUT = httpx.Timeout(REQUEST_TIMEOUT_S, connect=10.0)
STARTUP_S = 120.0
STOP_GRACE_S = 30.0
# The served copy keeps its state in the temporary folder and the service's own limits.
_NOT_INHERITED = (
    "DATABASE_URL",
    "JOBS_DB_PATH",
    "JOBS_REDIS_URL",
    "SIGN_IN_LIMIT_STORAGE",
    "RATE_LIMIT_STORAGE",
    "ANONYMOUS_RATE_LIMIT",
    "KEY_RATE_LIMIT",
    "PUBLIC_URL",
    "ERRORS_BASE",
    "TRUSTED_PROXY_HOPS",
    "PORT",
)


# ----------------------------------------------------------------------------- bodies


def compact(data: Any) -> bytes:
    """JSON without spaces: the most content a 1 MB body can carry."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def _staff(shift_ids: list[str]) -> list[Json]:
    return [
        {"id": f"e{i}", "name": f"E{i}", "assignable_shift_ids": shift_ids}
        for i in range(1, EMPLOYEES + 1)
    ]


def long_period_request(days: int) -> Json:
    """50 employees, one shift, a demand range per day of a ``days``-day period."""
    end = START + dt.timedelta(days=days - 1)
    return {
        "schedule_period": {"start_date": START.isoformat(), "end_date": end.isoformat()},
        "shifts": [{"id": "s", "name": "S", "staffing_demand": [{"min": 0, "max": 1}] * days}],
        "employees": _staff(["s"]),
    }


def long_period_body(limit: int = BODY_BYTES) -> tuple[bytes, int]:
    """Probe 1's audit body, as many days as fit in ``limit`` bytes, and its day count.
    The size grows by one demand range a day (the end date keeps its width)."""

    def body(days: int) -> bytes:
        return compact({"request": long_period_request(days), "roster": []})

    base, per_day = len(body(1)), len(body(2)) - len(body(1))
    days = 1 + (limit - base) // per_day
    return body(days), days


def largest_request() -> Json:
    """The period's ceiling, every employee and shift the contract allows, demand 2-3
    on every shift and day, runs of at most 5 days: a roster can break much of it."""
    ids = [f"s{n}" for n in range(1, SHIFTS + 1)]
    shifts: list[Json] = [
        {
            "id": shift,
            "name": shift.upper(),
            "working_hours": {"start_time": "08:00", "end_time": "16:00"},
            "staffing_demand": [{"min": 2, "max": 3}] * CEILING_DAYS,
        }
        for shift in ids
    ]
    end = START + dt.timedelta(days=CEILING_DAYS - 1)
    return {
        "schedule_period": {"start_date": START.isoformat(), "end_date": end.isoformat()},
        "shifts": shifts,
        "employees": _staff(ids),
        "constraints": {"max_consecutive_working_days": 5},
    }


def largest_roster() -> list[Json]:
    """Day by day, every employee works (so each has one run of consecutive days): half
    on s1 and half on s2 (excess on both, shortage on s3-s12), and every fifth also on
    s3 the same date (a duplicated cell). Longer than fits; the body takes a prefix."""
    cells: list[Json] = []
    for offset in range(CEILING_DAYS):
        day = (START + dt.timedelta(days=offset)).isoformat()
        for i in range(1, EMPLOYEES + 1):
            employee = f"e{i}"
            cells.append(
                {"employee_id": employee, "date": day, "shift_id": "s1" if i <= 25 else "s2"}
            )
            if i % 5 == 0:
                cells.append({"employee_id": employee, "date": day, "shift_id": "s3"})
    return cells


def fitted(head: bytes, items: Sequence[bytes], tail: bytes, limit: int) -> tuple[bytes, int]:
    """``head`` + as many of ``items`` (comma-separated, in order) as fit + ``tail``
    within ``limit`` bytes, and how many were taken."""
    room, taken = limit - len(head) - len(tail), 0
    for item in items:
        cost = len(item) + (1 if taken else 0)
        if cost > room:
            break
        room -= cost
        taken += 1
    return head + b",".join(items[:taken]) + tail, taken


def largest_body(limit: int = BODY_BYTES) -> tuple[bytes, int]:
    """Probe 2's audit body and its number of assignments."""
    head = b'{"request":' + compact(largest_request()) + b',"roster":['
    return fitted(head, [compact(a) for a in largest_roster()], b"]}", limit)


def duplicate_cell(request: Json) -> Json:
    """An assignment the request allows: its first shift's first employee who may work
    it, on its first date."""
    shift = request["shifts"][0]["id"]
    employee = next(e["id"] for e in request["employees"] if shift in e["assignable_shift_ids"])
    return {
        "employee_id": employee,
        "date": request["schedule_period"]["start_date"],
        "shift_id": shift,
    }


def duplicates_body(request: Json, limit: int = BODY_BYTES) -> tuple[bytes, int, Json]:
    """Probe 3's body: ``request`` and one cell listed as many times as fit."""
    cell = duplicate_cell(request)
    head = b'{"request":' + compact(request) + b',"roster":['
    room = limit - len(head) - 2
    item = compact(cell)
    copies = (room + 1) // (len(item) + 1)
    body, taken = fitted(head, [item] * copies, b"]}", limit)
    return body, taken, cell


def edge_request() -> Json:
    """retail_weekdays.json's shape, made small: a week from 0001-01-02, two people."""
    days = 7
    return {
        "schedule_period": {
            "start_date": "0001-01-02",
            "end_date": "0001-01-08",
            "holidays": [],
            "timezone": "Europe/Berlin",
        },
        "shifts": [
            {
                "id": "open",
                "name": "Opening",
                "working_hours": {"start_time": "08:00", "end_time": "14:00"},
                "staffing_demand": [{"min": 1, "max": 1}] * days,
            }
        ],
        "employees": [
            {"id": "anna", "name": "Anna", "assignable_shift_ids": ["open"]},
            {"id": "ben", "name": "Ben", "assignable_shift_ids": ["open"]},
        ],
        "options": {"solver_timeout_seconds": 5},
    }


def edge_bodies() -> list[tuple[str, bool, Json]]:
    """(path, keyed, body) of every operation probe 6 sends the edge request to."""
    request = edge_request()
    history = {"start_date": "0001-01-01", "assignments": []}
    slot = {"date": "0001-01-02", "shift_id": "open"}
    return [
        ("/solve/audit", False, {"request": request, "roster": [], "history": history}),
        (
            "/solve/compare",
            False,
            {"request": request, "before": [], "after": [], "history": history},
        ),
        ("/solve/plan", True, {"request": request, "absences": [], "history": history}),
        ("/solve/replan", True, {"request": request, "roster": [], "history": history}),
        (
            "/solve/recommend",
            True,
            {"request": request, "roster": [], "slot": slot, "history": history},
        ),
        ("/solve/explain", True, {"request": request, "roster": [], "history": history}),
    ]


# ----------------------------------------------------------------------------- calls


@dataclass(frozen=True)
class Call:
    """One HTTP answer (``status`` None: none in time, or a transport error)."""

    status: int | None
    seconds: float
    headers: list[tuple[str, str]] = field(default_factory=list)
    content: bytes = b""
    error: str = ""

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def data(self) -> Any:
        """The body as JSON, or None."""
        try:
            return json.loads(self.content)
        except ValueError:
            return None

    def slug(self) -> str | None:
        """The last segment of a problem's ``type``."""
        data = self.data()
        kind = data.get("type") if isinstance(data, dict) else None
        return kind.rsplit("/", 1)[-1] if isinstance(kind, str) else None

    def errors(self) -> list[Json]:
        data = self.data()
        listed = data.get("errors") if isinstance(data, dict) else None
        return [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []

    def label(self) -> str:
        return "no answer" if self.status is None else str(self.status)


def _answered(response: httpx.Response, started: float) -> Call:
    return Call(
        response.status_code,
        time.perf_counter() - started,
        list(response.headers.multi_items()),
        response.content,
    )


def _failed(exc: Exception, started: float) -> Call:
    return Call(None, time.perf_counter() - started, error=f"{type(exc).__name__}: {exc}"[:200])


class Caller:
    """The synchronous client of the probes: anonymous calls spaced so the address's
    limit is left to the storms, keyed ones with the demo key."""

    def __init__(self, root: str, key: str) -> None:
        self.client = httpx.Client(base_url=root, timeout=REQUEST_TIMEOUT_S, trust_env=False)
        self.key = key
        self._last_anonymous = 0.0

    def close(self) -> None:
        self.client.close()

    def call(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        *,
        keyed: bool = False,
        headers: dict[str, str] | None = None,
    ) -> Call:
        sent = {"Content-Type": "application/json"} if body is not None else {}
        if keyed:
            sent["Authorization"] = f"Bearer {self.key}"
        else:
            wait = self._last_anonymous + ANONYMOUS_SPACING_S - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._last_anonymous = time.monotonic()
        sent.update(headers or {})
        started = time.perf_counter()
        try:
            response = self.client.request(method, path, content=body, headers=sent)
        except httpx.HTTPError as exc:
            return _failed(exc, started)
        return _answered(response, started)


# ----------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Check:
    """One target: what was measured, against what, and whether it held."""

    probe: str
    name: str
    measured: str
    target: str
    passed: bool

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else "FAIL"


def spread(values: Sequence[float]) -> Json:
    """The median and the worst of repeated measurements."""
    return {"runs": len(values), "median": statistics.median(values), "worst": max(values)}


def _ms(values: Sequence[float]) -> str:
    s = spread([1000 * v for v in values])
    return f"median {s['median']:.1f} ms, worst {s['worst']:.1f} ms"


def _s(values: Sequence[float]) -> str:
    s = spread(values)
    return f"median {s['median']:.2f} s, worst {s['worst']:.2f} s"


def _statuses(calls: Sequence[Call]) -> str:
    counts = Counter(c.label() for c in calls)
    return ", ".join(f"{n} x {s}" for s, n in sorted(counts.items()))


def _record(call: Call) -> Json:
    """A call as the results keep it: no body, its problem type and first faults."""
    return {
        "status": call.status,
        "seconds": round(call.seconds, 4),
        "bytes": len(call.content),
        "problem": call.slug(),
        "errors": call.errors()[:3],
        "error": call.error or None,
    }


# ----------------------------------------------------------------------------- probes 1-3


def probe_long_period(caller: Caller, repeats: int) -> tuple[Json, list[Check]]:
    body, days = long_period_body()
    calls = [caller.call("POST", f"{API}/solve/audit", body) for _ in range(repeats)]
    refused = [
        c.status == 422 and any(e.get("code") == "out_of_range" for e in c.errors()) for c in calls
    ]
    times = [c.seconds for c in calls]
    figures = {"body_bytes": len(body), "days": days, "calls": [_record(c) for c in calls]}
    name = "1 long period"
    return figures, [
        Check(
            name,
            "422 out_of_range",
            f"{_statuses(calls)}; out_of_range in {sum(refused)} of {len(calls)}",
            "every run",
            all(refused),
        ),
        Check(
            name,
            "time",
            _ms(times),
            f"< {LONG_PERIOD_MS:g} ms",
            statistics.median(times) < LONG_PERIOD_MS / 1000,
        ),
    ]


def probe_largest(
    caller: Caller, repeats: int, body: bytes, cells: int
) -> tuple[Json, list[Check]]:
    calls = [caller.call("POST", f"{API}/solve/audit", body) for _ in range(repeats)]
    times = [c.seconds for c in calls]
    answer = next((c.data() for c in calls if c.status == 200), None)
    totals = answer.get("totals") if isinstance(answer, dict) else None
    largest = max((len(c.content) for c in calls), default=0)
    figures = {
        "body_bytes": len(body),
        "assignments": cells,
        "totals": totals,
        "answer_bytes": largest,
        "calls": [_record(c) for c in calls],
    }
    name = "2 largest valid audit"
    return figures, [
        Check(
            name,
            "200",
            f"{_statuses(calls)}; findings {totals}",
            "every run",
            all(c.status == 200 for c in calls),
        ),
        Check(
            name,
            "time",
            _s(times),
            f"< {LARGEST_AUDIT_S:g} s",
            statistics.median(times) < LARGEST_AUDIT_S,
        ),
        Check(
            name,
            "answer size",
            f"{largest:,} bytes",
            f"< {LARGEST_ANSWER_BYTES:,} bytes",
            0 < largest < LARGEST_ANSWER_BYTES,
        ),
    ]


def _duplicate_findings(call: Call, cell: Json) -> tuple[int, int, int | None]:
    """(one_shift_per_date findings listed, of them for ``cell``, hard violations in all)."""
    data = call.data()
    if call.status != 200 or not isinstance(data, dict):
        return 0, 0, None
    found = [v for v in data.get("hard_violations", []) if v.get("code") == "one_shift_per_date"]
    mine = [
        v
        for v in found
        if v.get("employee_id") == cell["employee_id"] and v.get("date") == cell["date"]
    ]
    total = (data.get("totals") or {}).get("hard_violations")
    return len(found), len(mine), total


def probe_duplicates(caller: Caller, repeats: int) -> tuple[Json, list[Check]]:
    request = json.loads(RETAIL.read_text(encoding="utf-8"))
    body, copies, cell = duplicates_body(request)
    calls = [caller.call("POST", f"{API}/solve/audit", body) for _ in range(repeats)]
    times = [c.seconds for c in calls]
    findings = [_duplicate_findings(c, cell) for c in calls]
    exact = [
        c.status == 200 and f[0] == 1 and f[1] == 1 for c, f in zip(calls, findings, strict=True)
    ]
    figures = {
        "body_bytes": len(body),
        "copies": copies,
        "cell": cell,
        "findings": [
            {"one_shift_per_date": f[0], "of_the_cell": f[1], "hard_violations_total": f[2]}
            for f in findings
        ],
        "calls": [_record(c) for c in calls],
    }
    name = "3 duplicate cells"
    listed = ", ".join(f"{f[0]} (hard total {f[2]})" for f in findings)
    return figures, [
        Check(
            name,
            "200, one one_shift_per_date",
            f"{_statuses(calls)}; one_shift_per_date per run: {listed}",
            "every run",
            all(exact),
        ),
        Check(
            name,
            "time",
            _s(times),
            f"< {DUPLICATES_S:g} s",
            statistics.median(times) < DUPLICATES_S,
        ),
    ]


# ----------------------------------------------------------------------------- probe 4


class MemorySampler:
    """The resident memory of a process and all its descendants, every 50 ms, in a
    thread: a storm's cost is the server's whole tree (web worker, solver and light
    processes), not the process that was started."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        try:
            self._psutil: Any = importlib.import_module("psutil")
        except ImportError:
            self._psutil = None
        self.method = "psutil" if self._psutil is not None else "/proc VmRSS"

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(Exception):  # a process may end mid-sample
                self.samples.append((time.monotonic(), self.tree_rss()))
            self._stop.wait(SAMPLE_EVERY_S)

    def tree_rss(self) -> int:
        if self._psutil is not None:
            return self._psutil_rss()
        return _proc_tree_rss(self.pid)

    def _psutil_rss(self) -> int:
        root = self._psutil.Process(self.pid)
        total = 0
        for process in [root, *root.children(recursive=True)]:
            with contextlib.suppress(self._psutil.Error):
                total += int(process.memory_info().rss)
        return total

    def peak(self, since: float = 0.0, until: float = float("inf")) -> int:
        return max((rss for at, rss in self.samples if since <= at <= until), default=0)


def _proc_tree_rss(pid: int) -> int:
    """The VmRSS of ``pid`` and its descendants, from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = (entry / "stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                parents.setdefault(parent, []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo += parents.get(current, [])
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


async def _send(client: httpx.AsyncClient, path: str, body: bytes, headers: dict[str, str]) -> Call:
    started = time.perf_counter()
    try:
        response = await asyncio.wait_for(
            client.post(path, content=body, headers=headers), REQUEST_TIMEOUT_S
        )
    except (TimeoutError, httpx.HTTPError) as exc:
        return _failed(exc, started)
    return _answered(response, started)


async def _storm_with_solve(
    root: str, body: bytes, solve: bytes, key: str, size: int
) -> tuple[list[Call], Call]:
    """``size`` anonymous audits released together, and a keyed solve shortly after."""
    go = asyncio.Event()
    anonymous = {"Content-Type": "application/json"}
    keyed = {**anonymous, "Authorization": f"Bearer {key}"}
    limits = httpx.Limits(max_connections=size + 2, max_keepalive_connections=0)
    async with (
        httpx.AsyncClient(base_url=root, limits=limits, timeout=_TIMEOUT, trust_env=False) as storm,
        httpx.AsyncClient(base_url=root, timeout=_TIMEOUT, trust_env=False) as alone,
    ):

        async def one() -> Call:
            await go.wait()
            return await _send(storm, f"{API}/solve/audit", body, anonymous)

        async def solved() -> Call:
            await go.wait()
            await asyncio.sleep(STORM_SOLVE_DELAY_S)
            return await _send(alone, f"{API}/solve", solve, keyed)

        tasks = [asyncio.create_task(one()) for _ in range(size)]
        solving = asyncio.create_task(solved())
        await asyncio.sleep(0)
        go.set()
        calls = await asyncio.wait_for(asyncio.gather(*tasks), STORM_TIMEOUT_S)
        return list(calls), await asyncio.wait_for(solving, STORM_TIMEOUT_S)


async def _solve_alone(root: str, solve: bytes, key: str) -> Call:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=root, timeout=_TIMEOUT, trust_env=False) as client:
        return await _send(client, f"{API}/solve", solve, headers)


def storm_allowed(call: Call) -> bool:
    """200, or 429 / 503 with Retry-After."""
    if call.status == 200:
        return True
    return call.status in (429, 503) and call.header("Retry-After") is not None


def storm_label(call: Call) -> str:
    if call.status in (429, 503) and call.header("Retry-After") is None:
        return f"{call.status} without Retry-After"
    return call.label() if call.status in (200, 429, 503) else f"other ({call.label()})"


def probe_storm(
    root: str, key: str, body: bytes, sampler: MemorySampler, repeats: int, storms: int
) -> tuple[Json, list[Check]]:
    solve = RETAIL.read_bytes()
    baseline_rss = sampler.tree_rss()
    alone = [asyncio.run(_solve_alone(root, solve, key)) for _ in range(repeats)]
    rounds: list[Json] = []
    loaded: list[Call] = []
    every: list[Call] = []
    for index in range(storms):
        if index:
            time.sleep(STORM_GAP_S)
        began = time.monotonic()
        calls, during = asyncio.run(_storm_with_solve(root, body, solve, key, STORM_SIZE))
        ended = time.monotonic()
        every += calls
        loaded.append(during)
        counts = Counter(storm_label(c) for c in calls)
        rounds.append(
            {
                "statuses": dict(sorted(counts.items())),
                "seconds": round(ended - began, 2),
                "peak_rss_bytes": sampler.peak(began, ended),
                "slowest_audit_seconds": round(max(c.seconds for c in calls), 3),
                "keyed_solve": _record(during),
                "problems": sorted({str(c.slug()) for c in calls if c.status not in (200, None)}),
                "retry_after": sorted(
                    {str(c.header("Retry-After")) for c in calls if c.status != 200}
                ),
                "transport_errors": sorted({c.error for c in calls if c.status is None}),
            }
        )
        print(f"storm {index + 1}: {dict(counts)}, keyed solve {during.label()} "
              f"in {during.seconds:.2f} s", flush=True)  # fmt: skip
    unloaded = statistics.median(c.seconds for c in alone)
    ratios = [c.seconds / unloaded for c in loaded] if unloaded > 0 else [float("inf")]
    peak = max(r["peak_rss_bytes"] for r in rounds)
    totals = Counter(storm_label(c) for c in every)
    solves_ok = all(c.status == 200 for c in [*alone, *loaded])
    figures = {
        "size": STORM_SIZE,
        "storms": rounds,
        "statuses": dict(sorted(totals.items())),
        "baseline_rss_bytes": baseline_rss,
        "peak_rss_bytes": peak,
        "memory_method": sampler.method,
        "keyed_solve_alone": [_record(c) for c in alone],
        "keyed_solve_during": [_record(c) for c in loaded],
        "ratio": spread(ratios),
    }
    name = "4 storm"
    mib = 1024 * 1024
    return figures, [
        Check(
            name,
            "statuses",
            ", ".join(f"{n} x {s}" for s, n in sorted(totals.items())),
            "only 200, 429/503 with Retry-After; some 429",
            all(storm_allowed(c) for c in every) and totals.get("429", 0) > 0,
        ),
        Check(
            name,
            "server memory (tree RSS)",
            f"peak {peak / mib:,.0f} MiB (before {baseline_rss / mib:,.0f} MiB)",
            f"< {STORM_MEMORY_BYTES / mib:,.0f} MiB",
            0 < peak < STORM_MEMORY_BYTES,
        ),
        Check(
            name,
            "keyed solve, storm / alone",
            f"median {statistics.median(ratios):.2f}x, worst {max(ratios):.2f}x "
            f"(alone {_s([c.seconds for c in alone])}; during "
            f"{', '.join(f'{c.label()} {c.seconds:.2f} s' for c in loaded)})",
            f"<= {STORM_SLOWDOWN:g}x, every solve 200",
            solves_ok and statistics.median(ratios) <= STORM_SLOWDOWN,
        ),
    ]


# ----------------------------------------------------------------------------- probes 5-7


def _usage(caller: Caller) -> Any:
    return caller.call("GET", f"{API}/usage", keyed=True).data()


def probe_recommend(caller: Caller, repeats: int) -> tuple[Json, list[Check]]:
    request = json.loads(MAX_SIZE.read_text(encoding="utf-8"))
    slot = {
        "date": request["schedule_period"]["start_date"],
        "shift_id": request["shifts"][0]["id"],
    }
    body = compact({"request": request, "roster": [], "slot": slot})
    before = _usage(caller)
    calls = [
        caller.call("POST", f"{API}/solve/recommend", body, keyed=True) for _ in range(repeats)
    ]
    after = _usage(caller)
    times = [c.seconds for c in calls]
    refused = [c.status == 422 and c.slug() == "tier-limit-exceeded" for c in calls]
    figures = {
        "body_bytes": len(body),
        "usage_before": before,
        "usage_after": after,
        "calls": [_record(c) for c in calls],
    }
    name = "5 large recommendation"
    slugs = ", ".join(sorted({str(c.slug()) for c in calls}))
    return figures, [
        Check(
            name,
            "422 tier-limit-exceeded",
            f"{_statuses(calls)}; {slugs}",
            "every run",
            all(refused),
        ),
        Check(
            name, "time", _s(times), f"< {RECOMMEND_S:g} s", statistics.median(times) < RECOMMEND_S
        ),
        Check(
            name,
            "usage unchanged",
            "unchanged" if before == after else f"{before} -> {after}",
            "GET /usage equal before and after",
            before is not None and before == after,
        ),
    ]


def probe_edge_dates(caller: Caller) -> tuple[Json, list[Check]]:
    figures: Json = {}
    checks = []
    for path, keyed, body in edge_bodies():
        call = caller.call("POST", f"{API}{path}", compact(body), keyed=keyed)
        paths = [e.get("path") for e in call.errors()]
        with_path = (
            call.status == 422 and bool(paths) and all(isinstance(p, list) and p for p in paths)
        )
        figures[path] = _record(call)
        first = call.errors()[0] if call.errors() else {}
        measured = f"{call.label()}" + (
            f" {first.get('code')} at {first.get('path')}" if first else f" {call.slug()}"
        )
        checks.append(
            Check("6 edge dates", path, measured, "422 with a path, never 500", with_path)
        )
    return figures, checks


def probe_host(caller: Caller) -> tuple[Json, list[Check]]:
    evil = {"Host": EVIL_HOST}
    asks = [
        ("unknown API path", "GET", f"{API}/no-such-operation", None),
        ("422 audit", "POST", f"{API}/solve/audit", compact({"request": {}, "roster": []})),
        ("API index", "GET", f"{API}/", None),
    ]
    figures: Json = {}
    checks = []
    for name, method, path, body in asks:
        call = caller.call(method, path, body, headers=evil)
        named = EVIL_HOST.encode()
        in_headers = [
            k for k, v in call.headers if EVIL_HOST in k.lower() or EVIL_HOST in v.lower()
        ]
        in_body = named in call.content.lower()
        figures[name] = {**_record(call), "in_headers": in_headers, "in_body": in_body}
        where = [w for w, hit in (("headers", bool(in_headers)), ("body", in_body)) if hit]
        checks.append(
            Check(
                "7 Host header",
                name,
                f"{call.label()}; "
                + (f"{EVIL_HOST} in {' and '.join(where)}" if where else "absent"),
                f"no {EVIL_HOST} in headers or body",
                call.status is not None and not where,
            )
        )
    return figures, checks


# ----------------------------------------------------------------------------- the service


@dataclass(frozen=True)
class Served:
    root: str  # http://127.0.0.1:PORT
    pid: int
    log: Path


@contextlib.contextmanager
def served(key: str, log_path: Path | None) -> Iterator[Served]:
    """The service as ``make serve`` starts it, on a free loopback port, its state in a
    temporary folder; stopped (its process group) however the probes end."""
    with tempfile.TemporaryDirectory(prefix="abuse-serve-") as tmp:
        home = Path(tmp)
        port = free_port()
        root = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if k not in _NOT_INHERITED}
        env.update(
            BENTOML_DO_NOT_TRACK="true",
            BENTOML_HOME=str(home / "bentoml"),
            DATABASE_URL=f"sqlite:///{home / 'store.db'}",
            JOBS_DB_PATH=str(home / "jobs.db"),
            DEMO_API_KEY=key,
            PUBLIC_URL=root,
        )
        bentoml = Path(sys.executable).parent / "bentoml"
        command = [str(bentoml), "serve", "shiftsched.service.app:ShiftScheduler"]
        command += ["--port", str(port), "--host", "127.0.0.1"]
        log_file = log_path or home / "serve.log"
        with log_file.open("wb") as log:
            process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
            try:
                _wait_ready(process, root, log_file)
                yield Served(root, process.pid, log_file)
            finally:
                _stop(process)


def _wait_ready(process: subprocess.Popen[bytes], root: str, log_file: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log_file.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"the service exited with {process.returncode}:\n{tail}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{root}/readyz", timeout=2, trust_env=False).status_code == 200:
                return
        time.sleep(0.5)
    raise RuntimeError(f"the service was not ready within {STARTUP_S:.0f} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the service's process group, SIGKILL to it after the grace."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


# ----------------------------------------------------------------------------- main


Probe = Callable[[], tuple[Json, list[Check]]]


def run_probes(service: Served, args: argparse.Namespace) -> tuple[Json, list[Check]]:
    """Every probe in order (the storms after the single calls), each timed."""
    caller = Caller(service.root, SERVE_KEY)
    big, cells = largest_body()
    figures: Json = {}
    checks: list[Check] = []
    try:
        with MemorySampler(service.pid) as sampler:
            probes: list[tuple[str, Probe]] = [
                ("long_period", lambda: probe_long_period(caller, args.repeats)),
                ("largest_audit", lambda: probe_largest(caller, args.repeats, big, cells)),
                ("duplicate_cells", lambda: probe_duplicates(caller, args.repeats)),
                ("large_recommendation", lambda: probe_recommend(caller, args.repeats)),
                ("edge_dates", lambda: probe_edge_dates(caller)),
                ("host_header", lambda: probe_host(caller)),
                (
                    "storm",
                    lambda: probe_storm(
                        service.root, SERVE_KEY, big, sampler, args.repeats, args.storms
                    ),
                ),
            ]
            for name, probe in probes:
                started = time.perf_counter()
                found, verdicts = probe()
                figures[name] = {**found, "probe_seconds": round(time.perf_counter() - started, 2)}
                checks += verdicts
                print(f"{name}: " + ", ".join(c.verdict for c in verdicts), flush=True)
            figures["peak_rss_bytes_whole_run"] = sampler.peak()
    finally:
        caller.close()
    return figures, checks


def table(checks: Sequence[Check]) -> str:
    rows = [[c.probe, c.name, c.measured, c.target, c.verdict] for c in checks]
    return markdown_table(["probe", "figure", "measured", "target", "verdict"], rows)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks abuse", **docstring_help(__doc__))
    add = parser.add_argument
    add("--repeats", type=int, default=3, metavar="N", help="runs of each timing probe (3)")
    add("--storms", type=int, default=3, metavar="N", help="storms of 50 audits (3)")
    add("--out", type=Path, default=RESULTS / "abuse.json", metavar="PATH", help="the JSON written")
    add("--serve-log", type=Path, metavar="PATH", help="keep the served copy's log here")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.repeats < 1 or args.storms < 1:
        raise SystemExit("--repeats and --storms must be at least 1")
    started, clock = timestamp(), time.perf_counter()
    load_before = load_average()
    with served(SERVE_KEY, args.serve_log) as service:
        figures, checks = run_probes(service, args)
    text = table(checks)
    print()
    print(text)
    failed = [c for c in checks if not c.passed]
    print(f"\n{len(checks) - len(failed)} of {len(checks)} targets met")
    record = {
        "started_utc": started,
        "command": " ".join(["python -m benchmarks abuse", *(argv or [])]).strip(),
        "settings": {"repeats": args.repeats, "storms": args.storms, "storm_size": STORM_SIZE},
        "wall_seconds": round(time.perf_counter() - clock, 1),
        "load_average_start": load_before,
        "load_average_end": load_average(),
        "targets": [c.__dict__ | {"verdict": c.verdict} for c in checks],
        "passed": not failed,
        "probes": figures,
        "machine": machine_info(),
        "git": git_revision(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"results: {args.out}")
    return 0 if not failed else 1
