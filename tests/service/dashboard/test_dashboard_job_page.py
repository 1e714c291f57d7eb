"""A job's page in the dashboard, its Stop button and its roster to print, in-process on
the whole site, on SQLite and PostgreSQL.

The jobs are the store's own records, moved the way the solving process moves them
(a progress record, a stop request seen, the end settled with the ledger), so each state
of the page is reached on purpose and on any machine; the browser test
(``test_dashboard_job_browser.py``) runs a real queued solve and stops it. The print view
is checked against a real synchronous solve and the independent audit.
"""

from __future__ import annotations

import html
import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import DEFAULT_SOLVER_TIMEOUT_SECONDS, SolveResponse
from shiftsched.service.dashboard.roster_print import shift_codes, shortage_words
from shiftsched.service.store import Job, Store
from shiftsched.solving.solve import solve
from tests.audited import EXACT
from tests.factories import demand, minimal_request_dict
from tests.service.conftest import BACKENDS
from tests.service.dashboard.test_dashboard import (
    _account_id,
    create_key,
    csrf_of,
    sign_up,
    store_of,
)
from tests.service.site import site_app, site_settings

pytestmark = pytest.mark.slow  # sign-ups (password hashing) and a solve, a second or more

BASE = "http://localhost"
UNITS = 3
RUNNING_BODY = minimal_request_dict()
TRACE = [
    {"elapsed_seconds": 0.4, "objective": None, "bound": 0.0},
    {"elapsed_seconds": 1.0, "objective": 90_000.0, "bound": 0.0},
    {"elapsed_seconds": 2.5, "objective": 40.0, "bound": 20.0},
]


@pytest.fixture(scope="module", params=BACKENDS)
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'site.db'}"
    else:
        url = request.getfixturevalue("postgres_server").new_database()
    with TestClient(site_app(site_settings(url, BASE)), base_url=BASE) as client:
        client.follow_redirects = False
        yield client


@pytest.fixture
def browser(site: TestClient) -> TestClient:
    site.cookies.clear()
    return site


def running_job(client: TestClient) -> Job:
    """A queued job of the signed-in account holding ``UNITS``, as admission leaves it."""
    store, account = store_of(client), _account_id(client)
    reservation = f"job-{uuid.uuid4().hex}"
    assert store.ledger.reserve(account, UNITS, reservation) is not None
    return store.jobs.create_job(
        account, RUNNING_BODY, units_reserved=UNITS, reservation_id=reservation, size=42
    )


def stop_form(client: TestClient, job_id: str) -> Any:
    page = client.get(f"/dashboard/jobs/{job_id}").text
    return client.post(f"/dashboard/jobs/{job_id}/stop", data={"csrf_token": csrf_of(page)})


def text_of(page: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</', page, re.S)
    assert match, element_id
    return html.unescape(match.group(1)).strip()


def refresh_of(page: str) -> int | None:
    match = re.search(r'<meta http-equiv="refresh" content="(\d+)">', page)
    return None if match is None else int(match.group(1))


def row_status_of(client: TestClient, job_id: str) -> str:
    """The Status cell of the job's row on the Jobs page."""
    page = client.get("/dashboard/jobs").text
    row = re.search(rf'<tr data-job-id="{job_id}">(.*?)</tr>', page, re.S)
    assert row, job_id
    cell = re.search(r'<td class="job-status"><span[^>]*>(.*?)</span>', row.group(1), re.S)
    assert cell, row.group(1)
    return html.unescape(cell.group(1)).strip()


def held(store: Store, job: Job) -> str:
    assert job.reservation_id is not None
    reservation = store.ledger.get_reservation(job.reservation_id)
    assert reservation is not None
    return reservation.state


# ------------------------------------------------------------------------------- access


def test_a_job_page_belongs_to_its_account_alone(browser: TestClient) -> None:
    sign_up(browser)
    job = running_job(browser)
    page = browser.get(f"/dashboard/jobs/{job.id}")
    assert page.status_code == 200
    assert f'href="/dashboard/jobs/{job.id}"' in browser.get("/dashboard/jobs").text
    assert text_of(page.text, "units-held") == str(UNITS)
    assert "size 42, 3 employees, 2026-03-02 to 2026-03-08" in page.text

    # The page, the event stream its script follows and the search section it swaps in.
    paths = [f"/dashboard/jobs/{job.id}{tail}" for tail in ("", "/events", "/search")]
    browser.cookies.clear()
    for path in paths:
        signed_out = browser.get(path)
        assert signed_out.status_code == 303
        assert signed_out.headers["location"].startswith("/dashboard/sign-in?")

    sign_up(browser)  # another account, with a valid form token of its own
    for path in [*paths, f"/dashboard/jobs/{job.id}/roster"]:
        refused = browser.get(path)  # never a stream: the page saying there is no such job
        assert refused.status_code == 404
        assert refused.headers["content-type"].startswith("text/html")
    token = csrf_of(browser.get("/dashboard/keys").text)
    refused = browser.post(f"/dashboard/jobs/{job.id}/stop", data={"csrf_token": token})
    assert refused.status_code == 404
    unchanged = store_of(browser).jobs.find_job(job.id)
    assert unchanged is not None
    assert (unchanged.status, unchanged.stop_requested_at) == ("running", None)


def test_stop_needs_the_pages_csrf_token(browser: TestClient) -> None:
    sign_up(browser)
    job = running_job(browser)
    path = f"/dashboard/jobs/{job.id}/stop"
    assert browser.post(path, data={}).status_code == 403
    stolen = csrf_of(browser.get(f"/dashboard/jobs/{job.id}").text)
    owner_cookies = dict(browser.cookies)
    browser.cookies.clear()
    sign_up(browser)  # the token of another session is worthless here
    assert browser.post(path, data={"csrf_token": stolen}).status_code == 403
    browser.cookies.clear()
    browser.cookies.update(owner_cookies)
    assert browser.post(path, data={"csrf_token": "0" * 64}).status_code == 403
    store = store_of(browser)
    unchanged = store.jobs.find_job(job.id)
    assert unchanged is not None and unchanged.status == "running"
    assert held(store, job) == "reserved"


# ------------------------------------------------------------------------- stop, live


def test_a_job_stopped_before_it_solved_says_nothing_was_charged(browser: TestClient) -> None:
    sign_up(browser)
    job = running_job(browser)
    before = browser.get(f"/dashboard/jobs/{job.id}").text
    assert refresh_of(before) == 2
    assert "has not started solving" in text_of(before, "job-phase")

    stopped = stop_form(browser, job.id)
    assert stopped.status_code == 303
    assert stopped.headers["location"] == f"/dashboard/jobs/{job.id}"
    page = browser.get(f"/dashboard/jobs/{job.id}").text
    assert refresh_of(page) is None and "Stop the job" not in page
    assert text_of(page, "outcome") == (
        "Stopped at your request before it started solving. No roster was kept; "
        f"nothing was charged (the {UNITS} units held were released)."
    )
    assert text_of(page, "units-charged") == "0"
    assert text_of(page, "job-phase") == "Status: failed (cancelled), stopped at your request."
    assert row_status_of(browser, job.id) == "failed (cancelled), stopped at your request"
    assert held(store_of(browser), job) == "released"
    result = browser.get(f"/dashboard/jobs/{job.id}.json").json()
    assert (result["status"], result["error"]["code"]) == ("failed", "cancelled")
    assert "usage" not in result and "nothing was charged" in result["error"]["message"]


def test_a_solving_job_shows_its_search_then_ends_stopped_with_its_roster(
    browser: TestClient,
) -> None:
    sign_up(browser)
    store, job = store_of(browser), running_job(browser)
    record = {
        "elapsed_seconds": 3.0,
        "best_objective": 40.0,
        "best_bound": 20.0,
        "solutions": 2,
        "improvements": [{"elapsed_seconds": 1.0, "objective": 90_000.0}],
        "trace": TRACE,
    }
    assert store.jobs.record_progress(job.id, record)
    page = browser.get(f"/dashboard/jobs/{job.id}").text
    assert refresh_of(page) == 2 and "Stop the job" in page
    figures = {key: text_of(page, key) for key in ("best-objective", "best-bound", "gap")}
    assert figures == {"best-objective": "40", "best-bound": "20", "gap": "50.0%"}
    assert 'id="objective-chart"' in page and 'id="gap-chart"' in page
    assert page.count('class="series objective"') == 2  # the legend's and the line

    assert stop_form(browser, job.id).status_code == 303
    stopping = browser.get(f"/dashboard/jobs/{job.id}").text
    assert refresh_of(stopping) == 1 and "Stop the job" not in stopping
    assert "Stop requested" in text_of(stopping, "job-phase")
    assert store.jobs.stop_requested(job.id)  # what the solving process reads

    answer = solved_answer(job.id)  # the solving process ends the job with its best roster
    assert store.jobs.finish_job(job.id, "completed", response_json=answer)
    page = browser.get(f"/dashboard/jobs/{job.id}").text
    assert refresh_of(page) is None
    assert text_of(page, "outcome") == (
        "Stopped at your request. Its roster, proven the best possible, was kept; "
        f"{UNITS} units charged."
    )
    assert text_of(page, "units-charged") == str(UNITS) and held(store, job) == "captured"
    # One name for the stopped job: the contract's status, with the stop beside it.
    assert text_of(page, "job-phase") == "Status: completed, stopped at your request."
    assert row_status_of(browser, job.id) == "completed, stopped at your request"
    assert browser.get(f"/dashboard/jobs/{job.id}.json").json()["status"] == "completed"
    usage = browser.get("/dashboard/usage").text
    assert text_of(usage, "total-units") == str(UNITS)
    assert f'href="/dashboard/jobs/{job.id}/roster"' in page


def test_a_running_job_shows_its_limit_its_last_progress_and_no_gap_before_a_bound(
    browser: TestClient,
) -> None:
    sign_up(browser)
    store, job = store_of(browser), running_job(browser)
    page = browser.get(f"/dashboard/jobs/{job.id}").text
    assert text_of(page, "time-limit") == f"{DEFAULT_SOLVER_TIMEOUT_SECONDS} s"
    created = store.jobs.find_job(job.id)
    assert created is not None
    assert attribute_of(page, "last-updated", "datetime") == created.updated_at.isoformat()

    only_trivial = [point | {"bound": 0.0} for point in TRACE]
    record = {
        "elapsed_seconds": 2.5,
        "best_objective": 40.0,
        "best_bound": 0.0,  # known before the search starts: no penalty is negative
        "solutions": 2,
        "trace": only_trivial,
    }
    assert store.jobs.record_progress(job.id, record)
    recorded = store.jobs.find_job(job.id)
    assert recorded is not None and recorded.progress_at is not None
    page = browser.get(f"/dashboard/jobs/{job.id}").text
    # The time moves with the progress record, not only when the job's status changes.
    assert attribute_of(page, "last-updated", "datetime") == recorded.progress_at.isoformat()
    assert text_of(page, "gap") == "no bound yet"
    assert 'class="series gap"' not in page  # no flat line at 100 %
    assert text_of(page, "gap-chart").startswith("Gap: no bound yet.")

    assert store.jobs.record_progress(job.id, {**record, "best_bound": 20.0, "trace": TRACE})
    page = browser.get(f"/dashboard/jobs/{job.id}").text
    assert text_of(page, "gap") == "50.0%" and 'class="series gap"' in page


def attribute_of(page: str, element_id: str, name: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*\b{name}="([^"]*)"', page)
    assert match, element_id
    return html.unescape(match.group(1))


def solved_answer(job_id: str) -> dict[str, Any]:
    """A roster of the running job's request, as the engine answers (one worker, proven)."""
    answer = solve(parse_request(RUNNING_BODY), EXACT, job_id=job_id)
    assert answer.status == "completed"
    return answer.model_dump(mode="json", exclude_none=True)


# ------------------------------------------------------------------ followed live


def next_event(lines: Iterator[str]) -> tuple[str, Any] | None:
    """The stream's next event as (name, data), comments left out; None once it closed."""
    name = "message"
    for line in lines:
        if line.startswith("event:"):
            name = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            return name, json.loads(line.removeprefix("data:").strip())
    return None


def search_section_of(page: str) -> str:
    match = re.search(r'<div id="search">(.*?)</div>', page, re.S)
    assert match, "no search section"
    return match.group(1).strip()


def test_a_running_jobs_page_follows_its_event_stream_to_the_end(browser: TestClient) -> None:
    """The stream the page's script reads (refused to other accounts: see the access test
    above): the job as it stands, each change, then its end, and the stream closes."""
    sign_up(browser)
    store, job = store_of(browser), running_job(browser)
    events, search = f"/dashboard/jobs/{job.id}/events", f"/dashboard/jobs/{job.id}/search"
    page = browser.get(f"/dashboard/jobs/{job.id}").text
    assert attribute_of(page, "figures", "data-events") == events
    assert attribute_of(page, "figures", "data-search") == search
    assert '<script src="/dashboard/static/job.js" defer></script>' in page
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page
    with browser.stream("GET", events) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.iter_lines()
        first = next_event(lines)
        assert first is not None and first[0] == "progress"
        assert (first[1]["job_id"], first[1]["state"]) == (job.id, "queued")

        record = {"elapsed_seconds": 3.0, "best_objective": 40.0, "best_bound": 20.0}
        assert store.jobs.record_progress(job.id, {**record, "solutions": 2, "trace": TRACE})
        moved = next_event(lines)
        assert moved is not None and moved[0] == "progress"
        assert {key: moved[1][key] for key in ("state", "best_objective", "best_bound")} == {
            "state": "solving",
            "best_objective": 40.0,
            "best_bound": 20.0,
        }
        # The section the script swaps in is the page's own, as the page draws it now.
        section = browser.get(search)
        assert section.status_code == 200 and 'id="objective-chart"' in section.text
        page = browser.get(f"/dashboard/jobs/{job.id}").text
        assert section.text.strip() == search_section_of(page)

        assert store.jobs.finish_job(job.id, "failed", error_code="no_solution")
        rest = list(iter(lambda: next_event(lines), None))  # to the stream's close
    assert rest and rest[-1] == (
        "end",
        {"job_id": job.id, "status": "failed", "error_code": "no_solution"},
    )
    assert all(name == "progress" for name, _ in rest[:-1])
    ended = browser.get(f"/dashboard/jobs/{job.id}").text
    assert refresh_of(ended) is None and "job.js" not in ended and "data-events" not in ended


# -------------------------------------------------------------------------- print view


def short_request() -> dict[str, Any]:
    """Three people and a day shift wanting three of them beside the night: a head short
    every day, so the sheet has shortages to list."""
    data = minimal_request_dict()
    data["shifts"][0]["staffing_demand"] = demand(3, 3)
    return data


def sheet_cells(page: str) -> dict[str, list[str]]:
    rows = re.findall(r'<tr data-employee="([^"]+)">(.*?)</tr>', page, re.S)
    return {
        employee: [html.unescape(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for employee, row in rows
    }


def test_the_print_view_is_the_audited_roster(browser: TestClient) -> None:
    sign_up(browser)
    key, data = create_key(browser), short_request()
    solved = browser.post(
        "/v1/public/solve",
        content=json.dumps(data),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    assert solved.status_code == 200, solved.text
    answer = SolveResponse.model_validate(solved.json())
    assert answer.solution is not None and answer.job_id is not None
    request = parse_request(data)
    report = audit(request, answer.solution.assignments)
    assert report.hard_violations == [] and report.shortages

    job_page = browser.get(f"/dashboard/jobs/{answer.job_id}").text
    assert f'href="/dashboard/jobs/{answer.job_id}/roster"' in job_page
    page = browser.get(f"/dashboard/jobs/{answer.job_id}/roster")
    assert page.status_code == 200
    sheet = page.text
    assert text_of(sheet, "sheet-title") == "Roster 2026-03-02 to 2026-03-08"
    dates = [f"2026-03-0{day}" for day in range(2, 9)]
    expected = {e.id: ["" for _ in dates] for e in request.employees}
    codes = shift_codes([shift.id for shift in request.shifts])
    assert codes == {"day": "day", "night": "nig"}  # at most four characters a shift
    numbers = {duty.id: str(place) for place, duty in enumerate(request.duties, start=1)}
    for item in answer.solution.assignments:
        code = codes[item.shift_id]
        cell = code if item.duty_id is None else f"{code}/{numbers[item.duty_id]}"
        expected[item.employee_id][dates.index(item.date.isoformat())] = cell
    assert sheet_cells(sheet) == expected
    assert text_of(sheet, "sheet-objective") == f"{report.objective_value:,.0f}"
    listed = re.findall(r"<li>(.*?)</li>", sheet.split('id="sheet-shortages"')[1])
    assert [html.unescape(line) for line in listed] == [
        shortage_words(request, marker) for marker in report.shortages
    ]
    assert "Day (07:00-15:00)" in sheet and "Night (23:00-07:00)" in sheet
    assert 'id="sheet-differences"' not in sheet  # the stored answer is the audit's
    style = browser.get("/dashboard/static/roster.css").text
    assert "@media print" in style and "table-header-group" in style

    failed = running_job(browser)
    assert store_of(browser).jobs.finish_job(failed.id, "failed", error_code="no_solution")
    assert browser.get(f"/dashboard/jobs/{failed.id}/roster").status_code == 404


def test_a_recommendations_page_says_what_was_delivered_and_charged(
    browser: TestClient,
) -> None:
    """A job that delivers no roster (a recommendation) is named and called completed,
    with its units, rather than 'ended without a roster'; it has no print view."""
    sign_up(browser)
    key, data = create_key(browser), short_request()
    bearer = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    solved = browser.post("/v1/public/solve", content=json.dumps(data), headers=bearer)
    assert solved.status_code == 200, solved.text
    roster = solved.json()["solution"]["assignments"]
    slot = {"shift_id": roster[0]["shift_id"], "date": roster[0]["date"]}
    body = {"request": data, "roster": roster, "slot": slot}
    ranked = browser.post("/v1/public/solve/recommend", content=json.dumps(body), headers=bearer)
    assert ranked.status_code == 200, ranked.text
    consumed = int(ranked.headers["X-Units-Consumed"])
    job_id = ranked.json()["job_id"]

    page = browser.get(f"/dashboard/jobs/{job_id}").text
    assert text_of(page, "job-name").startswith("Recommendation")
    assert text_of(page, "outcome") == (
        "Completed: the recommendation was delivered (its answer is the JSON result); "
        f"{consumed} unit{'s' if consumed != 1 else ''} charged."
    )
    assert int(text_of(page, "units-charged")) == consumed
    assert f"/dashboard/jobs/{job_id}/roster" not in page
    assert browser.get(f"/dashboard/jobs/{job_id}/roster").status_code == 404
