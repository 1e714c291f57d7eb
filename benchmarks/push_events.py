"""The ``push`` benchmark's second half: how soon ``GET /solve/jobs/{id}/events`` brings a
job's first roster to the client, and whether the stream closes when the job ends.

Each job is a queued solve (``POST /solve`` answers 202) whose stream is opened right
after the 202 and read to its end in a thread of its own, each event stamped with the
wall clock when its blank line arrives. Beside the streams, one thread reads the jobs'
rows from the service database every :data:`WATCH_SECONDS` (its progress record, the
``progress_at`` stamp the solving process writes with it, the status and ``updated_at``):
records are at least half a second apart (``shiftsched.service.solving.job_watch``), so
none is missed. The delay is the arrival of the first ``progress`` event with
``solutions >= 1`` minus the ``progress_at`` of the first record with a roster; both are
this machine's wall clock. The stream reads the store every ``CHECK_SECONDS``
(``shiftsched.service.solving.job_events``, 0.5 s), which bounds the delay at that
interval plus one read and the send.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
import sqlalchemy as sa

from shiftsched.service.store import Store
from shiftsched.service.store.rows import aware
from shiftsched.service.store.tables import jobs

WATCH_SECONDS = 0.02
STREAM_SECONDS = 120.0  # a stream still open this long after its job's end is a failure


@dataclass(frozen=True)
class Event:
    """One server-sent event as it arrived (``at``: wall clock, seconds)."""

    at: float
    kind: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Streamed:
    """One job's stream and what the database said of the job meanwhile."""

    run: int
    job_id: str
    recorded: float  # progress_at of the first record with a roster
    arrived: float  # arrival of the first progress event with a roster
    same_record: bool  # that event carried that very record (same elapsed_seconds)
    found_to_recorded: float  # the record's elapsed_seconds minus its first improvement's
    events: int
    records: int  # distinct progress records the database held
    ended: float  # updated_at of the row once it was no longer running
    end_event: float  # arrival of the `end` event (nan: none came)
    closed: float  # the stream's end, seen by the client
    final_status: str
    closed_after_end: bool  # the last event was `end` and the server closed the stream

    @property
    def delay(self) -> float:
        return self.arrived - self.recorded


class RowWatch:
    """Reads the jobs' rows every :data:`WATCH_SECONDS` in a thread, keeping every
    distinct progress record (by ``progress_at``) and the row once it ended."""

    def __init__(self, store: Store, job_ids: Sequence[str]) -> None:
        self.store = store
        self.job_ids = list(job_ids)
        self.records: dict[str, dict[float, dict[str, Any]]] = {j: {} for j in job_ids}
        self.ended: dict[str, tuple[str, float]] = {}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="row-watch", daemon=True)

    def __enter__(self) -> RowWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()
        self._read()  # the rows as they ended

    def _run(self) -> None:
        while not self._done.wait(WATCH_SECONDS):
            self._read()

    def _read(self) -> None:
        columns = (jobs.c.id, jobs.c.status, jobs.c.updated_at, jobs.c.progress_json)
        query = sa.select(*columns, jobs.c.progress_at).where(jobs.c.id.in_(self.job_ids))
        with self.store.db.read() as conn:
            rows = conn.execute(query).all()
        for row in rows:
            if row.progress_at is not None and isinstance(row.progress_json, dict):
                stamp = _stamp(row.progress_at)
                self.records[row.id].setdefault(stamp, row.progress_json)
            if row.status != "running" and row.id not in self.ended:
                self.ended[row.id] = (str(row.status), _stamp(row.updated_at))


def _stamp(moment: datetime) -> float:
    return aware(moment).timestamp()


def read_stream(client: httpx.Client, job_id: str) -> tuple[list[Event], float, bool]:
    """Every event of the job's stream until the server closes it; the events, the
    moment it closed, and whether it closed by itself (not by the client's timeout)."""
    events: list[Event] = []
    kind, data = "message", ""
    closed_by_server = True
    timeout = httpx.Timeout(30.0, read=STREAM_SECONDS)
    path = f"/solve/jobs/{job_id}/events"
    try:
        with client.stream("GET", path, timeout=timeout) as answer:
            answer.raise_for_status()
            for line in answer.iter_lines():
                if line == "":
                    if data:
                        events.append(Event(time.time(), kind, json.loads(data)))
                    kind, data = "message", ""
                elif line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:"):
                    data += line[5:].strip()
    except httpx.ReadTimeout:
        closed_by_server = False
    return events, time.time(), closed_by_server


def _first_roster(records: dict[float, dict[str, Any]]) -> tuple[float, dict[str, Any]]:
    with_roster = sorted((t, r) for t, r in records.items() if int(r.get("solutions", 0)) >= 1)
    if not with_roster:
        raise RuntimeError("no progress record with a roster: the job found none")
    return with_roster[0]


def streamed(
    run: int, job_id: str, stream: tuple[list[Event], float, bool], watch: RowWatch
) -> Streamed:
    """One job's figures from its stream and the rows read beside it."""
    events, closed, by_server = stream
    recorded, record = _first_roster(watch.records[job_id])
    progress = [e for e in events if e.kind == "progress"]
    first = next((e for e in progress if int(e.data.get("solutions", 0)) >= 1), None)
    if first is None:
        raise RuntimeError(f"job {job_id}: no progress event carried a roster")
    improvements = record.get("improvements") or [{"elapsed_seconds": record["elapsed_seconds"]}]
    status, ended = watch.ended.get(job_id, ("running", float("nan")))
    end = events[-1] if events and events[-1].kind == "end" else None
    return Streamed(
        run=run,
        job_id=job_id,
        recorded=recorded,
        arrived=first.at,
        same_record=first.data.get("elapsed_seconds") == record.get("elapsed_seconds"),
        found_to_recorded=float(record["elapsed_seconds"])
        - float(improvements[0]["elapsed_seconds"]),
        events=len(events),
        records=len(watch.records[job_id]),
        ended=ended,
        end_event=end.at if end is not None else float("nan"),
        closed=closed,
        final_status=status,
        closed_after_end=end is not None and by_server,
    )


def stream_run(
    client: httpx.Client, store: Store, body: bytes, jobs_per_run: int, run: int
) -> list[Streamed]:
    """``jobs_per_run`` queued jobs submitted together, each followed by its stream."""
    job_ids = []
    for _ in range(jobs_per_run):
        answer = client.post("/solve", content=body)
        if answer.status_code != 202:
            raise RuntimeError(f"expected the queued answer 202, got {answer.status_code}")
        job_ids.append(str(answer.json()["job_id"]))
    with RowWatch(store, job_ids) as watch, ThreadPoolExecutor(len(job_ids)) as pool:
        streams = list(pool.map(lambda j: read_stream(client, j), job_ids))
    return [streamed(run, j, s, watch) for j, s in zip(job_ids, streams, strict=True)]


def end_delays(trials: Sequence[Streamed]) -> Iterator[float]:
    """Seconds from each job's end in the database to its stream's ``end`` event."""
    return (t.end_event - t.ended for t in trials if t.closed_after_end)
