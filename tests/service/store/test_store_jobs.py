"""Job records for queued solves: own jobs only, finished once, reservation settled with it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from shiftsched.service.store import Store, UnknownAccount

REQUEST = {"start_date": "2026-03-02", "end_date": "2026-03-08", "employees": [{"id": "e1"}]}


def test_job_is_visible_to_its_own_account_only(store: Store) -> None:
    owner, other = store.accounts.create_account("Owner"), store.accounts.create_account("Other")
    job = store.jobs.create_job(owner.id, REQUEST)
    assert (job.status, job.request_json, job.response_json) == ("running", REQUEST, None)
    assert job.created_at.tzinfo is not None
    assert store.jobs.get_job(owner.id, job.id) == job
    assert store.jobs.get_job(other.id, job.id) is None
    assert store.jobs.get_job(owner.id, "0" * 32) is None
    assert job.as_response() == {"job_id": job.id, "status": "running", "solution": None}


def test_a_job_keeps_the_names_of_what_runs_it(store: Store) -> None:
    """A queued plan's record names its parser and engine function; one that names
    none (recorded before plans queued) is a solve's."""
    account = store.accounts.create_account("Acme")
    plan = store.jobs.create_job(
        account.id,
        {"request": REQUEST},
        parse="shiftsched.contract.planning:parse_plan",
        call="shiftsched.periods.plan:plan",
    )
    found = store.jobs.find_job(plan.id)
    assert found is not None
    assert (found.parse, found.call) == (
        "shiftsched.contract.planning:parse_plan",
        "shiftsched.periods.plan:plan",
    )
    solve = store.jobs.create_job(account.id, REQUEST)
    assert (solve.parse, solve.call) == (None, None)


def test_completed_job_captures_its_units_once(store: Store) -> None:
    account = store.accounts.create_account("Acme", free_quota=2, balance=5)
    store.ledger.reserve(account.id, 4, "job-units")
    job = store.jobs.create_job(account.id, REQUEST, units_reserved=4, reservation_id="job-units")
    response = {"job_id": job.id, "status": "completed", "solution": {"assignments": []}}
    assert store.jobs.finish_job(job.id, "completed", response_json=response) is True
    assert store.jobs.finish_job(job.id, "failed", error_code="no_solution") is False
    finished = store.jobs.get_job(account.id, job.id)
    assert finished is not None and finished.status == "completed"
    assert finished.as_response() == response
    assert store.ledger.usage(account.id) == (0, 3, 3)
    assert store.ledger.release("job-units") is False


def test_failed_job_releases_its_units(store: Store) -> None:
    account = store.accounts.create_account("Acme", free_quota=2, balance=5)
    store.ledger.reserve(account.id, 4, "job-units")
    job = store.jobs.create_job(account.id, REQUEST, units_reserved=4, reservation_id="job-units")
    assert store.jobs.finish_job(job.id, "failed", error_code="no_solution") is True
    failed = store.jobs.get_job(account.id, job.id)
    assert failed is not None and failed.error_code == "no_solution"
    assert failed.as_response()["error"] == {"code": "no_solution"}
    assert store.ledger.usage(account.id) == (2, 5, 7)


def test_job_arguments_are_checked(store: Store) -> None:
    with pytest.raises(UnknownAccount):
        store.jobs.create_job("nope", REQUEST)
    with pytest.raises(ValueError, match="completed or failed"):
        store.jobs.finish_job("job", "running")  # type: ignore[arg-type]
    assert store.jobs.finish_job("0" * 32, "completed") is False


def test_find_job_and_running_jobs_span_accounts(store: Store) -> None:
    first, second = store.accounts.create_account("First"), store.accounts.create_account("Second")
    older = store.jobs.create_job(first.id, REQUEST)
    newer = store.jobs.create_job(second.id, REQUEST)
    done = store.jobs.create_job(first.id, REQUEST)
    assert store.jobs.finish_job(done.id, "completed", response_json={"status": "completed"})
    assert store.jobs.find_job(newer.id) == newer
    assert store.jobs.find_job("0" * 32) is None
    assert [job.id for job in store.jobs.running_jobs()] == [older.id, newer.id]
    assert store.jobs.record_progress(older.id, {"elapsed_seconds": 1.0})
    lean = store.jobs.running_jobs(bodies=False)  # what the sweep for dead runs reads
    full = store.jobs.running_jobs()
    assert [(job.request_json, job.progress) for job in lean] == [(None, None)] * 2
    assert [(job.id, job.status, job.attempt, job.progress_at) for job in lean] == [
        (job.id, job.status, job.attempt, job.progress_at) for job in full
    ]
    assert full[0].progress_at is not None and full[1].progress_at is None


def test_a_recorded_synchronous_solve_is_a_finished_job_of_its_account(store: Store) -> None:
    owner, other = store.accounts.create_account("Owner"), store.accounts.create_account("Other")
    response = {"job_id": "a" * 32, "status": "completed", "solution": {"assignments": []}}
    job = store.jobs.record_solve(owner.id, "a" * 32, REQUEST, response, units=2)
    assert (job.status, job.units_reserved, job.reservation_id) == ("completed", 2, None)
    assert store.jobs.get_job(owner.id, job.id) == job
    assert store.jobs.get_job(owner.id, job.id).as_response() == response  # type: ignore[union-attr]
    assert store.jobs.get_job(other.id, job.id) is None
    assert store.jobs.running_jobs() == []
    with pytest.raises(UnknownAccount):
        store.jobs.record_solve("nope", "b" * 32, REQUEST, response, units=1)


def test_purge_forgets_finished_jobs_past_the_cutoff_and_keeps_running_ones(
    store: Store,
) -> None:
    account = store.accounts.create_account("Acme")
    running = store.jobs.create_job(account.id, REQUEST)
    failed = store.jobs.create_job(account.id, REQUEST)
    store.jobs.finish_job(failed.id, "failed", error_code="no_solution")
    done = store.jobs.record_solve(account.id, "c" * 32, REQUEST, {"job_id": "c" * 32}, units=1)
    assert store.jobs.purge_finished_jobs(done.updated_at) == 1  # only the job that ended earlier
    assert store.jobs.get_job(account.id, failed.id) is None
    assert store.jobs.get_job(account.id, done.id) is not None
    later = done.updated_at + timedelta(seconds=1)
    assert store.jobs.purge_finished_jobs(later) == 1
    assert store.jobs.get_job(account.id, done.id) is None
    assert store.jobs.get_job(account.id, running.id) is not None  # never purged while running


def test_a_job_remembers_its_key_size_and_the_rosters_objective(store: Store) -> None:
    account = store.accounts.create_account("Acme")
    key = store.accounts.issue_key(account.id)
    authenticated = store.accounts.authenticate(key)
    assert authenticated is not None and authenticated.key_id is not None
    assert authenticated == store.accounts.get_account(account.id)  # the key is not the account
    job = store.jobs.create_job(account.id, REQUEST, key_id=authenticated.key_id, size=2_000)
    assert (job.key_id, job.size, job.objective) == (authenticated.key_id, 2_000, None)
    response = {"job_id": job.id, "status": "completed", "solution": {"metrics": {}}}
    response["solution"]["metrics"]["objective_value"] = 42.5  # type: ignore[index]
    store.jobs.finish_job(job.id, "completed", response_json=response)
    assert store.jobs.get_job(account.id, job.id).objective == 42.5  # type: ignore[union-attr]
    failed = store.jobs.create_job(account.id, REQUEST)
    store.jobs.finish_job(failed.id, "failed", error_code="no_solution")
    assert store.jobs.get_job(account.id, failed.id).objective is None  # type: ignore[union-attr]
