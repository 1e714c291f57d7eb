"""The reconciler and the audit on each backend: holds past their lease are settled once,
as their job ended (or released when it never did); queued jobs' holds are left to their
sweep; the audit proves the ledger agrees with the jobs, and ``admin reconcile`` says so
with its exit status."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from shiftsched.service.billing.settlement import Outbox
from shiftsched.service.ops.admin import EXIT_REFUSED, main
from shiftsched.service.store import Store
from shiftsched.service.store.reconcile import UNLEASED_HOLD_AGE, audit, settle_stale_holds
from shiftsched.service.store.rows import now
from shiftsched.service.store.tables import jobs, ledger
from tests.factories import minimal_request_dict

LEASE = 30.0
LATER = timedelta(seconds=LEASE + 1)  # a moment past every lease taken in a test
ROSTER = {"job_id": "x", "status": "completed", "solution": {"assignments": []}}


def sync_solve(
    store: Store, account_id: str, units: int = 2, operation: str | None = None
) -> tuple[str, str]:
    """A synchronous call as the service starts one: a leased hold, then its job row (of
    ``operation``; None: a row from before operations were recorded, a solve's)."""
    reservation_id = f"r-{account_id[:8]}-{units}-{now().timestamp()}"
    assert store.ledger.reserve(
        account_id, units, reservation_id, lease_seconds=LEASE, purpose=operation or "solve"
    )
    job = store.jobs.create_job(
        account_id,
        minimal_request_dict(),
        units_reserved=units,
        reservation_id=reservation_id,
        kind="sync",
        operation=operation,
    )
    return job.id, reservation_id


def available(store: Store, account_id: str) -> int:
    return store.ledger.usage(account_id)[2]


def test_a_sync_solve_that_never_came_back_is_interrupted_and_released(store: Store) -> None:
    account = store.accounts.create_account("Crashed", free_quota=10)
    job_id, reservation_id = sync_solve(store, account.id)
    assert available(store, account.id) == 8
    assert settle_stale_holds(store.db) == {}  # the lease is live: nothing to do
    assert audit(store.db).ok

    assert settle_stale_holds(store.db, now() + LATER) == {reservation_id: "interrupted"}
    job = store.jobs.find_job(job_id)
    assert job is not None and job.status == "failed" and job.error_code == "interrupted"
    assert store.ledger.get_reservation(reservation_id).state == "released"  # type: ignore[union-attr]
    assert available(store, account.id) == 10
    assert settle_stale_holds(store.db, now() + LATER) == {}  # settled once
    assert audit(store.db, now() + LATER).ok


def test_a_lease_cut_at_the_solves_start_runs_out_sooner(store: Store) -> None:
    account = store.accounts.create_account("Started", free_quota=10)
    _, reservation_id = sync_solve(store, account.id)
    assert store.ledger.renew_lease(reservation_id, 5)
    assert settle_stale_holds(store.db, now() + timedelta(seconds=6)) == {
        reservation_id: "interrupted"
    }
    assert not store.ledger.renew_lease(reservation_id, LEASE)  # settled: no lease to renew


def test_a_delivered_sync_solve_is_charged_and_a_late_reconciler_changes_nothing(
    store: Store,
) -> None:
    account = store.accounts.create_account("Delivered", free_quota=10)
    job_id, reservation_id = sync_solve(store, account.id)
    assert store.jobs.finish_job(job_id, "completed", response_json=ROSTER, charged=True)
    assert settle_stale_holds(store.db, now() + LATER) == {}
    assert store.ledger.get_reservation(reservation_id).state == "captured"  # type: ignore[union-attr]
    found = audit(store.db, now() + LATER)
    assert found.ok, found.as_json()
    assert found.captured_units == 2 and found.units_by_cause["sync_solves"] == 2


def test_a_diagnosed_infeasibility_is_a_charged_sync_solve(store: Store) -> None:
    account = store.accounts.create_account("Infeasible", free_quota=10)
    job_id, reservation_id = sync_solve(store, account.id)
    infeasible = {
        "job_id": job_id,
        "status": "failed",
        "solution": None,
        "error": {"code": "no_solution", "diagnosis": {"status": "identified", "causes": []}},
    }
    store.jobs.finish_job(
        job_id, "failed", response_json=infeasible, error_code="no_solution", charged=True
    )
    assert store.ledger.get_reservation(reservation_id).state == "captured"  # type: ignore[union-attr]
    found = audit(store.db)
    assert found.ok, found.as_json()
    assert found.units_by_cause["sync_solves"] == 2


def test_every_keyed_calls_job_settles_and_is_audited_by_its_operation(store: Store) -> None:
    """A recommendation and an explanation keep jobs like a solve: delivered, each is
    captured and counted under its operation; one that never came back is released."""
    account = store.accounts.create_account("Asked", free_quota=10)
    ranked, _ = sync_solve(store, account.id, 1, "recommend")
    explained, _ = sync_solve(store, account.id, 3, "explain")
    lost, lost_hold = sync_solve(store, account.id, 2, "why")
    answers = {ranked: {"recommendations": [], "candidates": 0}, explained: {"explanations": []}}
    for job_id, answer in answers.items():
        assert store.jobs.finish_job(job_id, "completed", response_json=answer, charged=True)
    assert settle_stale_holds(store.db, now() + LATER) == {lost_hold: "interrupted"}
    assert available(store, account.id) == 6
    found = audit(store.db, now() + LATER)
    assert found.ok, found.as_json()
    assert dict(found.units_by_cause) == {"recommendations": 1, "explanations": 3}
    assert store.jobs.find_job(lost).error_code == "interrupted"  # type: ignore[union-attr]


def test_a_charged_job_of_an_undeclared_operation_is_a_violation(store: Store) -> None:
    """Its units are counted under no operation's cause, least of all a solve's: the
    audit names the job and is not ok."""
    account = store.accounts.create_account("Unknown", free_quota=10)
    job_id, _ = sync_solve(store, account.id, 2, "teleport")
    assert store.jobs.finish_job(job_id, "completed", response_json=ROSTER, charged=True)
    found = audit(store.db)
    assert not found.ok
    assert found.violations["unknown_operation"] == 1
    assert found.listed == [
        {"check": "unknown_operation", "job_id": job_id, "operation": "teleport"}
    ]
    assert "sync_solves" not in found.units_by_cause


def test_a_hold_past_its_lease_is_captured_when_its_job_completed(store: Store) -> None:
    """A job ended while its capture did not (a hand-made inconsistency: the job and its
    hold are written together, so only a repair can leave them apart)."""
    account = store.accounts.create_account("Torn", free_quota=10)
    job_id, reservation_id = sync_solve(store, account.id)
    with store.db.write() as conn:
        conn.execute(
            jobs.update()
            .where(jobs.c.id == job_id)
            .values(status="completed", response_json=ROSTER)
        )
    found = audit(store.db, now() + LATER)
    assert not found.ok
    assert found.violations["hold_past_lease"] == 1
    assert found.violations["job_hold_mismatch"] == 1
    assert settle_stale_holds(store.db, now() + LATER) == {reservation_id: "captured"}
    assert available(store, account.id) == 8
    assert audit(store.db, now() + LATER).ok


def test_a_hold_without_a_job_is_released_past_its_lease(store: Store) -> None:
    account = store.accounts.create_account("Replan", free_quota=10)
    assert store.ledger.reserve(account.id, 3, "replan-1", lease_seconds=LEASE, purpose="replan")
    assert store.ledger.reserve(account.id, 1, "rec-1", lease_seconds=LEASE, purpose="recommend")
    assert store.ledger.capture("rec-1")
    assert settle_stale_holds(store.db, now() + LATER) == {"replan-1": "released"}
    assert available(store, account.id) == 9
    found = audit(store.db, now() + LATER)
    assert found.ok, found.as_json()
    assert dict(found.units_by_cause) == {"recommendations": 1}


def test_a_queued_jobs_hold_follows_its_job_not_a_lease(store: Store) -> None:
    account = store.accounts.create_account("Queued", tier="pro", free_quota=10)
    assert store.ledger.reserve(account.id, 2, "job-1", lease_seconds=LEASE, purpose="job")
    job = store.jobs.create_job(
        account.id, minimal_request_dict(), units_reserved=2, reservation_id="job-1"
    )
    with store.db.read() as conn:
        lease = conn.execute(
            sa.select(ledger.c.expires_at).where(ledger.c.reservation_id == "job-1")
        ).scalar()
    assert lease is None  # recorded: the job's sweep governs it now
    much_later = now() + UNLEASED_HOLD_AGE + LATER
    assert settle_stale_holds(store.db, much_later) == {}
    assert audit(store.db, much_later).ok
    assert store.jobs.finish_job(job.id, "completed", response_json=ROSTER)
    found = audit(store.db, much_later)
    assert found.ok and found.units_by_cause["queued_jobs"] == 2


def test_a_hold_from_before_leases_is_released_once_stale(store: Store) -> None:
    account = store.accounts.create_account("Legacy", free_quota=10)
    assert store.ledger.reserve(account.id, 4, "old-1")  # no lease, no job: an old release's leak
    assert settle_stale_holds(store.db) == {}
    found = audit(store.db)
    assert found.violations["hold_without_lease"] == 1
    assert settle_stale_holds(store.db, now() + UNLEASED_HOLD_AGE + LATER) == {"old-1": "released"}
    assert available(store, account.id) == 10


def test_concurrent_reconcilers_settle_each_hold_once(store: Store) -> None:
    account = store.accounts.create_account("Crowd", free_quota=40)
    held = [sync_solve(store, account.id, units=1) for _ in range(6)]
    held += [(None, f"bare-{i}") for i in range(6)]
    for _, reservation_id in held[6:]:
        assert store.ledger.reserve(account.id, 1, reservation_id, lease_seconds=LEASE)
    assert available(store, account.id) == 28
    moment = now() + LATER
    results: list[dict[str, Any]] = []

    def reconcile() -> None:
        with Store(store.db.url.render_as_string(hide_password=False)) as own:
            results.append(settle_stale_holds(own.db, moment))

    threads = [threading.Thread(target=reconcile) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    settled = [rid for result in results for rid in result]
    assert sorted(settled) == sorted(rid for _, rid in held)  # each once, by one of them
    assert available(store, account.id) == 40
    assert audit(store.db, moment).ok


def test_the_outbox_writes_a_kept_end_once_the_store_takes_it(store: Store, tmp_path: Path) -> None:
    account = store.accounts.create_account("Outage", free_quota=10)
    job_id, reservation_id = sync_solve(store, account.id)
    outbox = Outbox(tmp_path / "outbox")
    assert outbox.put(job_id, "completed", ROSTER, error_code=None, charged=True)
    assert outbox.replay(store) == 1
    assert outbox.pending() == []
    job = store.jobs.find_job(job_id)
    assert job is not None and job.status == "completed" and job.response_json == ROSTER
    assert store.ledger.get_reservation(reservation_id).state == "captured"  # type: ignore[union-attr]
    # A kept capture the reconciler beat (the lease ran out first) is dropped, unpaid.
    assert store.ledger.reserve(account.id, 1, "late-1", lease_seconds=LEASE, purpose="replan")
    assert settle_stale_holds(store.db, now() + LATER) == {"late-1": "released"}
    assert outbox.put_capture("late-1")
    assert outbox.replay(store) == 1
    assert store.ledger.get_reservation("late-1").state == "released"  # type: ignore[union-attr]
    assert audit(store.db, now() + LATER).ok


def test_an_outbox_the_disk_refuses_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert not Outbox(blocker / "outbox").put(
        "j", "completed", ROSTER, error_code=None, charged=True
    )


def run_admin(capsys: pytest.CaptureFixture[str], url: str) -> tuple[int, dict[str, Any]]:
    status = main(["--database-url", url, "reconcile"])
    return status, json.loads(capsys.readouterr().out)


def test_admin_reconcile_settles_then_proves_the_ledger(
    store: Store, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    account = store.accounts.create_account("Audited", free_quota=10)
    job_id, _ = sync_solve(store, account.id)
    store.jobs.finish_job(job_id, "completed", response_json=ROSTER, charged=True)
    # A hold already past its lease: reconcile settles it, then the audit holds.
    assert store.ledger.reserve(account.id, 1, "stale-1", lease_seconds=-1, purpose="replan")
    status, report = run_admin(capsys, database_url)
    assert status == 0, report
    assert report["ok"] is True
    assert report["settled_now"] == {"stale-1": "released"}
    assert report["units_captured"] == 2
    assert report["units_captured_by_cause"] == {"sync_solves": 2}
    assert report["violations"] == {}
    assert available(store, account.id) == 8

    # A charged job whose units were given back: the audit fails, and says which.
    with store.db.write() as conn:
        conn.execute(ledger.update().values(state="released"))
    status, report = run_admin(capsys, database_url)
    assert status == EXIT_REFUSED
    assert report["ok"] is False
    assert report["violations"] == {"job_hold_mismatch": 1}
    assert report["listed"][0]["job_id"] == job_id


def test_an_older_ledger_gains_leases_and_its_leaked_hold_is_released(database_url: str) -> None:
    """A database from before leases: its tables gain the new columns and indexes at
    start, and a hold it leaked (no lease, no job) is released once stale."""
    serial = "SERIAL" if database_url.startswith("postgresql") else "INTEGER"
    old_schema = [
        """CREATE TABLE accounts (id VARCHAR(64) PRIMARY KEY, name VARCHAR(200) NOT NULL,
           tier VARCHAR(16) NOT NULL, free_quota_remaining BIGINT NOT NULL,
           balance_units BIGINT NOT NULL, created_at TIMESTAMP NOT NULL)""",
        f"""CREATE TABLE ledger (id {serial} PRIMARY KEY, account_id VARCHAR(64) NOT NULL
           REFERENCES accounts(id), reservation_id VARCHAR(128) NOT NULL UNIQUE,
           units BIGINT NOT NULL, free_part BIGINT NOT NULL, balance_part BIGINT NOT NULL,
           state VARCHAR(16) NOT NULL, created_at TIMESTAMP NOT NULL, settled_at TIMESTAMP)""",
        """CREATE TABLE jobs (id VARCHAR(32) PRIMARY KEY, account_id VARCHAR(64) NOT NULL
           REFERENCES accounts(id), status VARCHAR(16) NOT NULL, units_reserved BIGINT NOT
           NULL, reservation_id VARCHAR(128), request_json JSON NOT NULL, response_json JSON,
           error_code VARCHAR(64), created_at TIMESTAMP NOT NULL,
           updated_at TIMESTAMP NOT NULL)""",
        "INSERT INTO accounts VALUES ('a1', 'Old Co', 'basic', 3, 0, CURRENT_TIMESTAMP)",
        """INSERT INTO ledger (account_id, reservation_id, units, free_part, balance_part,
           state, created_at) VALUES ('a1', 'leaked', 2, 2, 0, 'reserved', CURRENT_TIMESTAMP)""",
    ]
    engine = sa.create_engine(database_url)
    with engine.begin() as conn:
        for statement in old_schema:
            conn.execute(sa.text(statement))
    engine.dispose()
    with Store(database_url) as store:
        store.db.migrate()
        store.db.migrate()  # idempotent
        with store.db.read() as conn:
            inspector = sa.inspect(conn)
            assert {"expires_at", "purpose"} <= {c["name"] for c in inspector.get_columns("ledger")}
            assert "kind" in {c["name"] for c in inspector.get_columns("jobs")}
            assert "ix_ledger_state_expires_at" in {
                i["name"] for i in inspector.get_indexes("ledger")
            }
            assert "ix_jobs_reservation_id" in {i["name"] for i in inspector.get_indexes("jobs")}
        assert audit(store.db).violations == {"hold_without_lease": 1}
        assert settle_stale_holds(store.db) == {}  # not stale yet: it may still be in use
        stale = now() + UNLEASED_HOLD_AGE + LATER
        assert settle_stale_holds(store.db, stale) == {"leaked": "released"}
        assert available(store, "a1") == 5
        assert audit(store.db, stale).ok
