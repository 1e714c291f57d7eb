"""A multi-node setup under failure, on loopback: two service replicas, two consumers.

PostgreSQL and Redis come from the conftest fixtures; both replicas run the real service
(``bentoml serve``) with ``JOBS_CONSUMER=external`` and the demo key (pro tier), and two
``huey_consumer`` processes solve. Twenty queued jobs go to the replicas in turn. While
each consumer solves a long job, one consumer is killed outright (SIGKILL): its job must
be found dead from its silent heartbeat, run again on the survivor and complete there
(the retry policy, ``shiftsched.service.solving.jobs``). Meanwhile one replica is stopped and
started again on its port while the jobs are polled through the other. Every job ends and both
replicas give the same final answer for each. Then a consumer is frozen (SIGSTOP) while solving:
its job runs again on a fresh consumer, and the frozen one, woken afterwards, ends its
own run without touching the job. At the end the ledger shows each job's units settled
once: the account paid for the completed jobs and nothing else, and the reconciliation
command (``python -m shiftsched.service.ops.admin reconcile``) finds the whole ledger consistent.

Every wait is a polling loop with a deadline only a broken system reaches; the figures
printed (how long finding the dead run and re-running it took) are for people, never
asserted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import sqlalchemy as sa

from shiftsched.contract.parse import parse_request
from shiftsched.contract.size import request_size, units_for
from shiftsched.service.solving.job_sweeps import HEARTBEAT_SILENCE_SECONDS, ORPHAN_SWEEP_SECONDS
from shiftsched.service.store import DEMO_ACCOUNT_ID, Store, ledger
from tests.factories import minimal_request_dict
from tests.service.processes import (
    ROOT,
    STARTUP_SECONDS,
    alive,
    descendants,
    reconcile,
    serve_environment,
    start_serve,
    stop,
    wait_serving,
    wait_until,
)
from tests.service.solving.test_jobs import large_request

pytestmark = [pytest.mark.distributed, pytest.mark.timeout(900)]

DEMO_KEY = "sk_test_" + "d" * 64
WAIT_SECONDS = 180  # for a job to start, end or be run again: only a broken system fails
JOBS = 20
LONG_LIMIT = 300  # the two long jobs end only when stopped, once they have a roster
SHORT_LIMIT = 31  # over the 30 s synchronous cap: queued, yet solved within a second
FROZEN_LIMIT = 8  # the frozen consumer's solve must end on its own (then it falls silent)


@dataclass
class Replica:
    """One ``bentoml serve`` process on a fixed port, which may be restarted."""

    port: int
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None
    up: threading.Event = field(default_factory=threading.Event)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/public"

    def start(self) -> None:
        self.process = start_serve(self.env, self.log)

    def wait_up(self) -> None:
        assert self.process is not None
        wait_serving(self.process, f"{self.base}/openapi.json", self.log)
        self.up.set()

    def stop(self) -> None:
        self.up.clear()
        if self.process is not None:
            stop(self.process, timeout=30)
            self.process = None

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


class Cluster:
    """The two replicas, and a client that sends each call to a replica that is up,
    taking turns between them."""

    def __init__(self, replicas: list[Replica]) -> None:
        self.replicas = replicas
        self.turn = 0
        self.client = httpx.Client(timeout=60)
        self.headers = {"Authorization": f"Bearer {DEMO_KEY}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            self.turn += 1
            up = [r for r in self.replicas if r.up.is_set()]
            if up:
                replica = up[self.turn % len(up)]
                content = None if body is None else json.dumps(body)
                try:
                    return self.client.request(
                        method, replica.base + path, content=content, headers=self.headers
                    )
                except httpx.TransportError:
                    pass  # stopping just now: the other replica answers the next try
            assert time.monotonic() < deadline, "no replica answered"
            time.sleep(0.2)

    def close(self) -> None:
        self.client.close()

    def on(self, replica: Replica, method: str, path: str, body: Any = None) -> httpx.Response:
        content = None if body is None else json.dumps(body)
        return self.client.request(
            method, replica.base + path, content=content, headers=self.headers
        )


@dataclass
class Consumers:
    """The `huey_consumer shiftsched.service.solving.jobs.huey` processes started (one thread and
    one solver process each), running or not, so every one is stopped at the end."""

    env: dict[str, str]
    folder: Path
    started: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self) -> subprocess.Popen[bytes]:
        consumer = Path(sys.executable).parent / "huey_consumer"
        command = [
            str(consumer),
            "shiftsched.service.solving.jobs.huey",
            "--workers",
            "1",
            "--worker-type",
            "thread",
        ]
        with self.log(len(self.started)).open("ab") as out:
            process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        self.started.append(process)
        return process

    def stop(self, process: subprocess.Popen[bytes]) -> None:
        """huey's graceful stop (a frozen one is woken first), then SIGKILL if it hangs."""
        if process.poll() is None:
            process.send_signal(signal.SIGCONT)
            process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def log(self, index: int) -> Path:
        return self.folder / f"consumer-{index}.log"


@pytest.fixture
def cluster(
    redis_server: str, postgres_server: Any, tmp_path: Path
) -> Iterator[tuple[Cluster, Consumers, Store]]:
    with redis.Redis.from_url(redis_server) as queue:
        queue.flushdb()
    database_url: str = postgres_server.new_database()
    store = Store(database_url)
    store.db.migrate()  # once, before four processes would race to
    common = {
        **{name: value for name, value in os.environ.items() if name != "PUBLIC_URL"},
        "DATABASE_URL": database_url,
        "JOBS_REDIS_URL": redis_server,
        "SOLVE_PROCESSES": "1",
        "CP_SAT_WORKERS": "1",
        "DIAGNOSIS_BUDGET_SECONDS": "5",
    }
    replicas = []
    for name in ("a", "b"):
        home = tmp_path / f"replica-{name}"
        home.mkdir()
        env = serve_environment(
            home,
            DATABASE_URL=database_url,
            JOBS_REDIS_URL=redis_server,
            DIAGNOSIS_BUDGET_SECONDS="5",
            JOBS_CONSUMER="external",
            DEMO_API_KEY=DEMO_KEY,
        )
        replicas.append(Replica(int(env["PORT"]), env, tmp_path / f"replica-{name}.log"))
    consumers = Consumers(common, tmp_path)
    try:
        for replica in replicas:
            replica.start()
        for _ in range(2):
            consumers.start()
        for replica in replicas:
            replica.wait_up()
        client = Cluster(replicas)
        try:
            yield client, consumers, store
        finally:
            client.close()
    finally:
        for process in consumers.started:
            consumers.stop(process)
        for replica in replicas:
            replica.stop()
        store.close()
        for index in range(len(consumers.started)):
            print(f"--- consumer {index} log (end):")
            print(consumers.log(index).read_text(errors="replace")[-1500:])


def submit(cluster: Cluster, data: Any) -> str:
    response = cluster.call("POST", "/solve", data)
    assert response.status_code == 202, response.text
    return str(response.json()["job_id"])


def progress(cluster: Cluster, job_id: str) -> dict[str, Any]:
    response = cluster.call("GET", f"/solve/jobs/{job_id}/progress")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def roster_found(cluster: Cluster, job_id: str) -> bool:
    seen = progress(cluster, job_id)
    assert seen["state"] != "finished", seen
    return seen["state"] == "solving" and seen["solutions"] >= 1


def stop_job(cluster: Cluster, job_id: str) -> None:
    response = cluster.call("DELETE", f"/solve/jobs/{job_id}")
    assert response.status_code in (200, 202), response.text


def test_a_killed_consumer_a_frozen_one_and_a_restarted_replica_lose_nothing(
    cluster: tuple[Cluster, Consumers, Store],
) -> None:
    client, consumers, store = cluster
    replica_a, replica_b = client.replicas
    start = client.call("GET", "/usage")
    assert start.status_code == 200, start.text
    available_before = int(start.json()["available_units"])

    long_data = large_request(timeout=LONG_LIMIT)
    short_data = minimal_request_dict()
    short_data["options"] = {"solver_timeout_seconds": SHORT_LIMIT}
    units = {
        "long": units_for(request_size(parse_request(long_data))),
        "short": units_for(request_size(parse_request(short_data))),
    }

    # Each consumer (one thread each) takes one long job; both solving: both are busy.
    long_jobs = [submit(client, long_data) for _ in range(2)]
    for job_id in long_jobs:
        wait_until(
            f"job {job_id} finds a roster", lambda j=job_id: roster_found(client, j), WAIT_SECONDS
        )
    victim = consumers.started[0]
    solvers = descendants(victim.pid)
    assert solvers, "the consumer has no solver process"
    victim.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    victim.wait()

    short_jobs = [submit(client, short_data) for _ in range(JOBS - len(long_jobs))]
    jobs = [*long_jobs, *short_jobs]
    assert len(set(jobs)) == JOBS

    # Restart replica a while the jobs are polled (through b meanwhile).
    restarted = threading.Event()

    def restart() -> None:
        replica_a.stop()
        replica_a.start()
        replica_a.wait_up()
        restarted.set()

    restarter = threading.Thread(target=restart, name="restart-replica-a")
    restarter.start()

    # The killed consumer's solver notices and stops; its silent job is run again.
    wait_until(
        "the orphaned solver stops", lambda: not any(alive(pid) for pid in solvers), WAIT_SECONDS
    )

    def rerun() -> str | None:
        found = [store.jobs.find_job(job_id) for job_id in long_jobs]
        again = [job.id for job in found if job is not None and job.attempt == 2]
        return again[0] if again else None

    orphan = wait_until("the dead consumer's job is run again", rerun, WAIT_SECONDS)
    detected_at = time.monotonic()
    survivor_job = next(job_id for job_id in long_jobs if job_id != orphan)
    stop_job(client, survivor_job)  # frees the survivor for the queue
    wait_until(
        "the re-run finds a roster on the survivor",
        lambda: roster_found(client, orphan),
        WAIT_SECONDS,
    )
    rerun_solving_at = time.monotonic()
    stop_job(client, orphan)

    def ended() -> dict[str, dict[str, Any]] | None:
        answers = {}
        for job_id in jobs:
            response = client.call("GET", f"/solve/jobs/{job_id}")
            assert response.status_code == 200, response.text
            if response.json()["status"] == "running":
                return None
            answers[job_id] = response.json()
        return answers

    finals: dict[str, dict[str, Any]] = wait_until("every job ends", ended, WAIT_SECONDS)
    ended_at = time.monotonic()
    restarter.join(STARTUP_SECONDS + 60)
    assert restarted.is_set(), replica_a.tail()
    print(
        f"\nconsumer killed -> job run again: {detected_at - killed_at:.1f} s "
        f"(heartbeat silence {HEARTBEAT_SILENCE_SECONDS:.0f} s, sweep every "
        f"{ORPHAN_SWEEP_SECONDS:.0f} s); -> re-run solving with a roster: "
        f"{rerun_solving_at - killed_at:.1f} s; -> all {JOBS} jobs ended: "
        f"{ended_at - killed_at:.1f} s"
    )

    # Nothing lost, each job ended once, and both replicas tell the same story.
    assert len(finals) == JOBS
    for job_id, body in finals.items():
        assert body["status"] == "completed", body
        for replica in (replica_a, replica_b):
            again = client.on(replica, "GET", f"/solve/jobs/{job_id}")
            assert again.status_code == 200 and again.json() == body
    records = {job_id: store.jobs.find_job(job_id) for job_id in jobs}
    assert {job_id: job.attempt for job_id, job in records.items() if job} == {
        job_id: 2 if job_id == orphan else 1 for job_id in jobs
    }

    # A consumer frozen (stopped, not killed) while solving: its solver finishes and falls
    # silent, so the job runs again on a fresh consumer. Woken up afterwards, the frozen
    # consumer ends its own run, and must change nothing: the job ended once, on its re-run.
    survivor = consumers.started[1]
    frozen_data = large_request(timeout=FROZEN_LIMIT)
    frozen_job = submit(client, frozen_data)
    wait_until(
        "the job starts solving",
        lambda: progress(client, frozen_job)["state"] == "solving",
        WAIT_SECONDS,
    )
    survivor.send_signal(signal.SIGSTOP)
    frozen_at = time.monotonic()
    fresh = consumers.start()
    wait_until(
        "the frozen consumer's job is run again",
        lambda: attempt(store, frozen_job) == 2,
        WAIT_SECONDS,
    )
    frozen_rerun_at = time.monotonic()
    frozen_final = wait_until("the re-run ends", lambda: final(client, frozen_job), WAIT_SECONDS)
    assert frozen_final["status"] == "completed" or ended_without_a_roster(frozen_final)
    consumers.stop(fresh)  # from now on only the woken consumer takes jobs
    survivor.send_signal(signal.SIGCONT)
    last_job = submit(client, short_data)  # taken once the woken one's own run has ended
    last_final = wait_until(
        "the woken consumer solves again", lambda: final(client, last_job), WAIT_SECONDS
    )
    assert last_final["status"] == "completed", last_final
    assert attempt(store, frozen_job) == 2
    for replica in (replica_a, replica_b):
        again = client.on(replica, "GET", f"/solve/jobs/{frozen_job}")
        assert again.status_code == 200 and again.json() == frozen_final
    finals.update({frozen_job: frozen_final, last_job: last_final})
    print(
        f"consumer frozen -> job run again: {frozen_rerun_at - frozen_at:.1f} s "
        f"(its {FROZEN_LIMIT} s solve, then the silence)"
    )

    # Units settled exactly once: one reservation a job, captured if it completed and
    # released otherwise; the account charged for the completed jobs and nothing more.
    charged = {job_id: units["long"] if job_id in long_jobs else units["short"] for job_id in jobs}
    charged[last_job] = units["short"]
    if frozen_final["status"] == "completed":
        charged[frozen_job] = units_for(request_size(parse_request(frozen_data)))
    consumed = {
        job_id: body["usage"]["units_consumed"]
        for job_id, body in finals.items()
        if body["status"] == "completed"
    }
    assert consumed == charged
    with store.db.read() as conn:
        rows = conn.execute(
            sa.select(ledger.c.reservation_id, ledger.c.units, ledger.c.state).where(
                ledger.c.account_id == DEMO_ACCOUNT_ID
            )
        ).all()
    records = {job_id: store.jobs.find_job(job_id) for job_id in finals}
    reservations = {job.reservation_id: job.id for job in records.values() if job}
    assert sorted(row.reservation_id for row in rows) == sorted(reservations)
    states = {reservations[row.reservation_id]: row.state for row in rows}
    assert states == {job_id: "captured" if job_id in charged else "released" for job_id in finals}
    captured = {
        reservations[row.reservation_id]: row.units for row in rows if row.state == "captured"
    }
    assert captured == charged
    usage = client.call("GET", "/usage")
    assert usage.json()["available_units"] == available_before - sum(charged.values())

    # The reconciliation command, as an operator runs it after the kills: every hold
    # settled, each job's units captured or released as it ended, no balance below zero.
    report = reconcile(store.db.url.render_as_string(hide_password=False))
    assert report["units_captured"] == sum(charged.values())
    assert report["units_captured_by_cause"] == {"queued_jobs": sum(charged.values())}


def attempt(store: Store, job_id: str) -> int | None:
    job = store.jobs.find_job(job_id)
    return None if job is None else job.attempt


def final(cluster: Cluster, job_id: str) -> dict[str, Any] | None:
    """The job's final answer, None while it runs."""
    response = cluster.call("GET", f"/solve/jobs/{job_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return None if body["status"] == "running" else body


def ended_without_a_roster(body: dict[str, Any]) -> bool:
    """A machine busy enough may leave a short solve of the large request without any
    roster (``tests.service.solving.test_jobs.large_request``): it then fails, charged nothing."""
    assert (body["status"], body["error"]["code"]) == ("failed", "solver_timeout"), body
    assert "usage" not in body
    return True
