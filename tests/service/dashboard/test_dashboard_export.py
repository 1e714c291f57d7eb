"""The jobs page offers a completed job's roster as CSV, iCalendar and XLSX: served from
the job's stored request and response, to its own account only, on a real SQLite store
behind a real sign-in."""

from __future__ import annotations

import csv
import io
import re
import uuid
from collections.abc import Iterator
from typing import Any

import openpyxl
import pytest
from icalendar import Calendar
from starlette.testclient import TestClient

from tests.factories import minimal_request_dict
from tests.service.dashboard.test_dashboard import _account_id, sign_up, store_of
from tests.service.site import site_app, site_settings

pytestmark = pytest.mark.slow  # solves queued jobs to export

BASE = "http://localhost"
ROSTER = [
    {"employee_id": "e1", "date": "2026-03-02", "shift_id": "day", "duty_id": "lead"},
    {"employee_id": "e2", "date": "2026-03-02", "shift_id": "night"},
    {"employee_id": "e3", "date": "2026-03-03", "shift_id": "day"},
]
TYPES = {
    "csv": "text/csv",
    "ics": "text/calendar",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'site.db'}"
    with TestClient(site_app(site_settings(url, BASE)), base_url=BASE) as client:
        client.follow_redirects = False
        yield client


@pytest.fixture
def browser(site: TestClient) -> TestClient:
    site.cookies.clear()
    return site


def completed_job(client: TestClient) -> str:
    """A finished solve of the signed-in account, kept as the API keeps one."""
    job_id = uuid.uuid4().hex
    response: dict[str, Any] = {
        "job_id": job_id,
        "status": "completed",
        "solution": {"assignments": ROSTER, "metrics": {"solver_runtime_seconds": 0.1}},
    }
    store_of(client).jobs.record_solve(
        _account_id(client), job_id, minimal_request_dict(), response, 1
    )
    return job_id


def links_of(page: str, job_id: str) -> dict[str, str]:
    row = page[page.index(job_id) :].split("</tr>")[0]
    found = re.findall(rf'href="(/dashboard/jobs/{job_id}/export\.(\w+))"', row)
    return {fmt: href for href, fmt in found}


def test_a_completed_job_links_its_roster_in_three_formats(browser: TestClient) -> None:
    sign_up(browser)
    job_id = completed_job(browser)
    links = links_of(browser.get("/dashboard/jobs").text, job_id)
    assert set(links) == set(TYPES)
    for fmt, href in links.items():
        response = browser.get(href)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].split(";")[0] == TYPES[fmt]
        disposition = response.headers["content-disposition"]
        assert disposition == f'attachment; filename="roster-{job_id}.{fmt}"'
    csv_rows = list(csv.DictReader(io.StringIO(browser.get(links["csv"]).text)))
    assert [(r["date"], r["shift_id"], r["employee_id"]) for r in csv_rows] == [
        ("2026-03-02", "day", "e1"),
        ("2026-03-02", "night", "e2"),
        ("2026-03-03", "day", "e3"),
    ]
    events = list(Calendar.from_ical(browser.get(links["ics"]).content).walk("VEVENT"))
    assert len(events) == len(ROSTER)
    workbook = openpyxl.load_workbook(io.BytesIO(browser.get(links["xlsx"]).content))
    rows = list(workbook["Roster"].iter_rows(values_only=True))
    assert [row[0] for row in rows] == ["employee_id", "e1", "e2", "e3"]
    assert rows[1][2] == "day/lead"


def test_only_the_owning_account_gets_the_files(browser: TestClient) -> None:
    sign_up(browser)
    href = f"/dashboard/jobs/{completed_job(browser)}/export.csv"
    assert browser.get(href).status_code == 200
    browser.cookies.clear()
    signed_out = browser.get(href)
    assert signed_out.status_code == 303 and "/dashboard/sign-in" in signed_out.headers["location"]
    sign_up(browser)  # another account
    assert browser.get(href).status_code == 404


def test_no_roster_no_links_and_no_file(browser: TestClient) -> None:
    sign_up(browser)
    store = store_of(browser)
    account = _account_id(browser)
    failed = store.jobs.create_job(account, minimal_request_dict())
    store.jobs.finish_job(failed.id, "failed", error_code="no_solution")
    assert links_of(browser.get("/dashboard/jobs").text, failed.id) == {}
    assert browser.get(f"/dashboard/jobs/{failed.id}/export.ics").status_code == 404
    job_id = completed_job(browser)
    assert browser.get(f"/dashboard/jobs/{job_id}/export.pdf").status_code == 404
    assert browser.get(f"/dashboard/jobs/{uuid.uuid4().hex}/export.csv").status_code == 404


def test_a_queued_plan_exports_the_roster_of_its_request(browser: TestClient) -> None:
    """A plan's job keeps the plan's body; the file is of the request inside it."""
    sign_up(browser)
    store = store_of(browser)
    body = {"request": minimal_request_dict(), "absences": [], "history": {"assignments": []}}
    job = store.jobs.create_job(
        _account_id(browser),
        body,
        parse="shiftsched.contract.planning:parse_plan",
        call="shiftsched.periods.plan:plan",
    )
    answer = {
        "job_id": job.id,
        "status": "completed",
        "solution": {"assignments": ROSTER, "metrics": {"solver_runtime_seconds": 0.1}},
        "ledger": {"through": "2026-03-08", "employees": []},
    }
    store.jobs.finish_job(job.id, "completed", response_json=answer)
    response = browser.get(f"/dashboard/jobs/{job.id}/export.csv")
    assert response.status_code == 200, response.text
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [(r["date"], r["shift_id"], r["employee_id"]) for r in rows] == [
        ("2026-03-02", "day", "e1"),
        ("2026-03-02", "night", "e2"),
        ("2026-03-03", "day", "e3"),
    ]
