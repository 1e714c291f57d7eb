"""The Python client against the real app in-process (its ``TestClient`` is the client's
``httpx.Client``): every operation once, a queued solve followed to its end, the faults
raised as the engine's, a retry whose answer was lost charged once, and a retry sent
while the first attempt still runs waited out through its 409s.

The service solves with one CP-SAT worker; the tests assert only what holds for any
roster of the request (completed, the audit clean), never a figure of one roster.
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from starlette.testclient import TestClient

from shiftsched.client import Client, Retries, ServiceProblem
from shiftsched.client.calls import path_of
from shiftsched.client.http import retried
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import parse_plan, parse_recommend, parse_replan
from shiftsched.contract.v1 import SolveResponse
from shiftsched.errors import InvalidRequest
from shiftsched.operations import OPERATIONS
from shiftsched.questions.inquiry import parse_audit, parse_compare, parse_explain, parse_why
from shiftsched.service.http.api import create_app
from shiftsched.service.http.operations import OPERATIONS as SERVED
from shiftsched.service.http.problems import API_ROOT
from shiftsched.service.settings import Settings
from shiftsched.service.solving.workers import SolvePool
from tests.factories import employee_dict, minimal_request_dict
from tests.service.pool_support import LONG_SECONDS, Background, wait_until_running

KEY = "sk_test_" + "d" * 64
BASE = "http://testserver" + API_ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home = tmp_path_factory.mktemp("client")
    settings = Settings(
        database_url=f"sqlite:///{home / 'store.db'}",
        jobs_db_path=str(home / "jobs.db"),
        demo_api_key=KEY,  # the demo account: pro tier, so a long solve is queued
        solve_processes=1,
        cp_sat_workers=1,
    )
    with TestClient(create_app(settings), base_url=BASE, root_path=API_ROOT) as client:
        yield client


class Waits:
    """The waits the client asks for, each slept briefly: what it was told to wait is
    what is checked, not how long it took."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    def __call__(self, seconds: float) -> None:
        import time

        self.asked.append(seconds)
        time.sleep(0.05)


@pytest.fixture
def waits() -> Waits:
    return Waits()


@pytest.fixture
def client(app_client: TestClient, waits: Waits) -> Client:
    return Client(BASE, KEY, http=app_client, sleep=waits, retries=Retries(wait_initial=0.01))


def four_employees() -> dict[str, Any]:
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    return data


@pytest.fixture(scope="module")
def published(app_client: TestClient) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A request and the roster the service solved for it."""
    solved = Client(BASE, KEY, http=app_client).solve(parse_request(four_employees()))
    assert solved.status == "completed" and solved.solution is not None
    roster = [a.model_dump(mode="json", exclude_none=True) for a in solved.solution.assignments]
    return four_employees(), roster


def test_each_operation_is_where_the_service_serves_it() -> None:
    assert {op.name: path_of(op) for op in OPERATIONS} == {op.name: op.path for op in SERVED}


def test_a_failed_connection_is_retried_and_a_spent_quota_is_not() -> None:
    request = httpx.Request("POST", BASE + "/solve")
    assert retried(httpx.ConnectError("refused", request=request)) is True
    assert retried(ServiceProblem(503, "t", "busy", retry_after=7)) == 7
    assert retried(ServiceProblem(409, "t", "running")) is True
    assert retried(ServiceProblem(429, "t", "rate-limited", retry_after=2)) == 2
    assert retried(ServiceProblem(429, "t", "quota-exceeded")) is False  # waiting will not help
    assert retried(ServiceProblem(500, "t", "internal")) is False


def test_a_small_solve_answers_its_roster(client: Client) -> None:
    before = client.usage().available_units
    solved = client.solve(parse_request(four_employees()))
    assert isinstance(solved, SolveResponse) and solved.status == "completed"
    assert solved.solution is not None and solved.usage is not None
    assert client.usage().available_units == before - solved.usage.units_consumed
    again: SolveResponse = client.job(solved.job_id)  # the charged call's answer, as stored
    assert (again.job_id, again.status, again.solution) == (
        solved.job_id,
        "completed",
        solved.solution,
    )


def test_a_queued_solve_is_followed_to_its_end_at_the_retry_after(
    client: Client, waits: Waits
) -> None:
    data = four_employees()
    data["options"] = {"solver_timeout_seconds": 60}  # over 30 s: queued on a pro key
    running = client.solve(data, wait=False)
    assert running.status == "running" and running.solution is None
    solved = client.solve(data)
    assert solved.status == "completed" and solved.solution is not None
    assert waits.asked and set(waits.asked) == {15.0}  # the job's Retry-After
    assert client.job(solved.job_id).status == "completed"
    assert client.progress(solved.job_id)["state"] == "finished"
    stopped: SolveResponse = client.stop(solved.job_id)  # an ended job is left as it is
    assert stopped.status == "completed" and stopped.job_id == solved.job_id
    assert client.stop(running.job_id).job_id == running.job_id  # stopped, or ended before


def test_a_progress_bar_reads_the_progress_once_a_second(client: Client, waits: Waits) -> None:
    data = four_employees()
    data["options"] = {"solver_timeout_seconds": 60}
    shown = io.StringIO()
    planned = client.plan(parse_plan({"request": data}), progress=shown)
    assert planned.status == "completed" and planned.ledger is not None
    assert set(waits.asked) == {1.0}
    assert "finished" in shown.getvalue()


def test_every_question_answers_its_model(
    client: Client, published: tuple[dict[str, Any], list[dict[str, Any]]]
) -> None:
    data, roster = published
    first = roster[0]
    absent = [{"employee_id": first["employee_id"], "dates": [first["date"]]}]
    assert client.validate(data).employee_count == 4
    base = {"request": data, "roster": roster}
    replanned = client.replan(parse_replan({**base, "absences": absent}))
    assert replanned.status == "completed" and replanned.job_id
    slot = {"date": first["date"], "shift_id": first["shift_id"]}
    ranked = client.recommend(parse_recommend({**base, "slot": slot, "absences": absent}))
    assert ranked.recommendations and ranked.job_id
    assert client.audit(parse_audit(base)).feasible
    compared = client.compare(parse_compare({"request": data, "before": roster, "after": roster}))
    assert compared.objective_delta == 0 and not compared.changes
    explained = client.explain(parse_explain(base))
    assert explained.job_id
    asked = {**base, "employee_id": first["employee_id"], "date": first["date"]}
    answered = client.why(parse_why(asked))
    assert answered.verdict in ("possible", "impossible", "undecided")


def test_a_fault_is_the_engines_invalid_request_with_its_paths(client: Client) -> None:
    broken = {**four_employees(), "shifts": "none"}
    broken["employees"][1]["id"] = ""
    with pytest.raises(InvalidRequest) as engine:
        parse_request(broken)
    with pytest.raises(InvalidRequest) as remote:
        client.solve(broken)
    assert remote.value.errors == engine.value.errors
    assert {e.path for e in remote.value.errors} >= {("shifts",)}


def test_another_problem_carries_its_status_type_and_request_id(app_client: TestClient) -> None:
    anonymous = Client(BASE, "", http=app_client)
    with pytest.raises(ServiceProblem) as refused:
        anonymous.usage()
    problem = refused.value
    assert (problem.status, problem.slug) == (401, "unauthorized")
    assert problem.title and problem.request_id and problem.type.endswith("/unauthorized")


def test_a_retry_after_a_lost_answer_is_charged_once(
    app_client: TestClient, client: Client
) -> None:
    """The first answer is lost on the way back (a dropped connection, after the app
    ran the solve); the retry with the same Idempotency-Key gets the first answer again."""
    sent: list[httpx2.Response] = []

    def lose_the_first(response: httpx2.Response) -> None:
        if response.request.method == "POST":
            sent.append(response)
            if len(sent) == 1:
                raise httpx2.ReadError("connection dropped", request=response.request)

    before = client.usage().available_units
    app_client.event_hooks = {"request": [], "response": [lose_the_first]}
    try:
        solved = client.solve(four_employees())
    finally:
        app_client.event_hooks = {"request": [], "response": []}
    assert solved.status == "completed" and solved.usage is not None
    first, retry = (r.request.headers["Idempotency-Key"] for r in sent)
    assert first == retry and sent[1].headers["Idempotent-Replayed"] == "true"
    assert client.usage().available_units == before - solved.usage.units_consumed


class FirstAttemptStillRuns:
    """The client's first POST sent on to the app from a thread of its own, and its
    connection dropped once the app holds the call (its key claimed, the call waiting for
    the one solver process): what a client sees when its connection drops mid-call."""

    def __init__(self, app_client: TestClient) -> None:
        self.app_client = app_client
        self.line = app_client.app.state.solve_line  # type: ignore[attr-defined]
        self.client_thread = threading.get_ident()
        self.thread: threading.Thread | None = None
        self.answer: httpx2.Response | None = None
        self.retries: list[httpx2.Response] = []  # the client's later POSTs, as answered

    def on_request(self, request: httpx2.Request) -> None:
        if request.method != "POST" or self.thread is not None:
            return
        kept = ("authorization", "content-type", "idempotency-key")
        headers = {name: value for name, value in request.headers.items() if name in kept}
        self.thread = threading.Thread(
            target=self._send, args=(str(request.url), request.content, headers)
        )
        self.thread.start()
        deadline = time.monotonic() + LONG_SECONDS
        while self.line.borrowed_tokens < 1:  # the call waits for the held process
            assert time.monotonic() < deadline, "the first attempt never reached its solve"
            time.sleep(0.01)
        raise httpx2.ReadError("connection dropped", request=request)

    def _send(self, url: str, content: bytes, headers: dict[str, str]) -> None:
        self.answer = self.app_client.post(url, content=content, headers=headers)

    def on_response(self, response: httpx2.Response) -> None:
        if response.request.method == "POST" and threading.get_ident() == self.client_thread:
            response.read()
            self.retries.append(response)

    def ended(self) -> httpx2.Response:
        assert self.thread is not None
        self.thread.join(LONG_SECONDS)
        assert not self.thread.is_alive() and self.answer is not None
        return self.answer


def test_a_retry_while_the_first_attempt_runs_waits_out_its_409s(
    app_client: TestClient, tmp_path: Path
) -> None:
    """The one solver process is held by a task of the test, so the first attempt (its
    connection dropped) still runs; each retry with the same key is 409
    idempotency-conflict with Retry-After, more of them than the client's attempts, until
    the test frees the process: the retry then answers the first attempt's answer,
    charged once, as one job."""
    app: Any = app_client.app
    pool: SolvePool = app.state.pool
    settings: Settings = app.state.settings
    holder = Background(pool, tmp_path)
    wait_until_running(pool, 1)
    asked: list[float] = []

    def pause(seconds: float) -> None:  # what the client asked to wait is what is checked
        asked.append(seconds)
        if len(asked) == 3:  # past the client's 2 attempts: the first attempt may run now
            holder.release()
        time.sleep(0.1)

    client = Client(BASE, KEY, http=app_client, sleep=pause, retries=Retries(2, wait_initial=0.01))
    before = client.usage().available_units
    jobs_before = sum(app.state.store.jobs.count_by_status().values())
    first = FirstAttemptStillRuns(app_client)
    app.state.settings = replace(settings, solve_queue_wait_seconds=LONG_SECONDS)
    app_client.event_hooks = {"request": [first.on_request], "response": [first.on_response]}
    try:
        solved = client.solve(four_employees())
    finally:
        app_client.event_hooks = {"request": [], "response": []}
        app.state.settings = settings
        holder.release()
    assert holder.result() == "done"
    answer = first.ended()
    assert answer.status_code == 200, answer.text
    *conflicts, replayed = first.retries
    assert len(conflicts) >= 3 and {r.status_code for r in conflicts} == {409}
    assert {r.json()["type"].rsplit("/", 1)[-1] for r in conflicts} == {"idempotency-conflict"}
    assert {r.headers["Retry-After"] for r in conflicts} == {"2"}
    assert asked == [2.0] * len(conflicts)  # each wait as its 409 said
    key = answer.request.headers["Idempotency-Key"]
    assert {r.request.headers["Idempotency-Key"] for r in first.retries} == {key}
    assert replayed.status_code == 200 and replayed.headers["Idempotent-Replayed"] == "true"
    assert solved == SolveResponse.model_validate(answer.json())  # the one answer
    assert solved.status == "completed" and solved.usage is not None
    assert sum(app.state.store.jobs.count_by_status().values()) == jobs_before + 1
    assert client.usage().available_units == before - solved.usage.units_consumed
