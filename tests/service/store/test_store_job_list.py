"""The Jobs page's rows on each backend: the units each charged (the ledger's, not what it
reserved), its operation and name, the filters and the pages.

The figure every test comes back to: the charged units of all the rows add up to the
units the Usage page counts (the ledger's captured units), whatever was held, released,
cancelled or still running.
"""

from __future__ import annotations

import uuid
from typing import Any

from shiftsched.service.store import Store
from shiftsched.service.store.job_list import PAGE_SIZE, JobFilter, JobRow

REQUEST = {"start_date": "2026-03-02", "end_date": "2026-03-08", "employees": [{"id": "e1"}]}
SOLVED = {"job_id": "x", "status": "completed", "solution": {"assignments": []}}


def every_row(store: Store, account_id: str, where: JobFilter | None = None) -> list[JobRow]:
    rows, page = [], 1
    while True:
        listing = store.job_list.page(account_id, where or JobFilter(), page)
        rows += listing.rows
        if not listing.has_older:
            return rows
        page += 1


def captured_in_usage(store: Store, account_id: str) -> int:
    return sum(units for _, units in store.account_view.units_per_day(account_id))


def kept(store: Store, account_id: str, units: int, operation: str, **fields: Any) -> str:
    """A keyed call's hold and its running job row, as the pipeline records them."""
    reservation = uuid.uuid4().hex
    assert store.ledger.reserve(account_id, units, reservation, lease_seconds=60)
    job = store.jobs.create_job(
        account_id,
        REQUEST,
        units_reserved=units,
        reservation_id=reservation,
        kind=fields.pop("kind", "sync"),
        operation=operation,
        **fields,
    )
    return job.id


def test_a_row_shows_the_units_charged_not_those_reserved(store: Store) -> None:
    account = store.accounts.create_account("Acme", free_quota=100)
    done = kept(store, account.id, 3, "solve", name="Solve · 2026-03-02 – 2026-03-08 · 1 employee")
    store.jobs.finish_job(done, "completed", response_json=SOLVED)
    running = kept(store, account.id, 5, "replan")
    lost = kept(store, account.id, 7, "explain")
    store.jobs.abandon_sync_job(lost)  # delivered nothing: no row, nothing charged
    queued = kept(store, account.id, 28, "solve", kind=None)
    cancelled = {"job_id": queued, "status": "failed", "solution": None}
    stopped = store.jobs.stop_job(account.id, queued, cancelled)
    assert stopped is not None and stopped[1] == "cancelled"
    legacy = store.jobs.record_solve(account.id, "f" * 32, REQUEST, SOLVED, units=2)

    rows = {row.id: row for row in every_row(store, account.id)}
    assert set(rows) == {done, running, queued, legacy.id}
    assert (rows[done].charged, rows[done].held) == (3, 0)
    assert rows[done].name == "Solve · 2026-03-02 – 2026-03-08 · 1 employee"
    assert (rows[running].operation, rows[running].charged, rows[running].held) == ("replan", 0, 5)
    assert (rows[queued].status, rows[queued].charged, rows[queued].held) == ("failed", 0, 0)
    assert (rows[legacy.id].operation, rows[legacy.id].charged) == ("solve", 2)
    captured = sum(row.charged for row in rows.values() if row.id != legacy.id)
    assert captured == captured_in_usage(store, account.id) == 3  # record_solve holds none


def test_filters_narrow_the_rows_and_pages_reach_the_oldest(store: Store) -> None:
    account = store.accounts.create_account("Acme", free_quota=1_000)
    key = store.accounts.issue_key(account.id, label="night batch")
    [key_info] = store.account_view.keys(account.id)
    for number in range(PAGE_SIZE + 5):
        job = kept(store, account.id, 1, ("recommend", "why")[number % 2], key_id=key_info.id)
        store.jobs.finish_job(job, "completed", response_json={"recommendations": []})
    plan = store.jobs.create_job(
        account.id, {"request": REQUEST}, call="shiftsched.periods.plan:plan"
    )
    assert key and plan.operation is None  # a queued plan recorded before operations were

    first = store.job_list.page(account.id, JobFilter())
    assert len(first.rows) == PAGE_SIZE and first.has_older and first.rows[0].id == plan.id
    second = store.job_list.page(account.id, JobFilter(), 2)
    assert len(second.rows) == 6 and not second.has_older
    assert {r.id for r in first.rows}.isdisjoint(r.id for r in second.rows)

    assert [r.id for r in every_row(store, account.id, JobFilter(operation="plan"))] == [plan.id]
    assert [r.id for r in every_row(store, account.id, JobFilter(status="running"))] == [plan.id]
    whys = every_row(store, account.id, JobFilter(operation="why", status="completed"))
    assert len(whys) == (PAGE_SIZE + 5) // 2 and {r.operation for r in whys} == {"why"}
    by_key = every_row(store, account.id, JobFilter(key_id=key_info.id))
    assert len(by_key) == PAGE_SIZE + 5 and {r.key_label for r in by_key} == {"night batch"}
    other = store.accounts.create_account("Other")
    assert every_row(store, other.id, JobFilter(key_id=key_info.id)) == []
    total = sum(row.charged for row in every_row(store, account.id))
    assert total == captured_in_usage(store, account.id) == PAGE_SIZE + 5
