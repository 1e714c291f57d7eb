"""Settling a synchronous solve when its own request cannot: the lease, the outbox, the loop.

Why apart: the request that holds units for a synchronous solve settles them itself, at
the end (``shiftsched.service.http.api``); this module covers the two ways that can fail.

- The request never ends (the service killed mid-solve): the hold carries a lease of
  :func:`sync_lease_seconds`, the longest the solve can take (the wait for a solver
  process, its time limit, the diagnosis budget and the pool's grace) plus a margin;
  once a solver process is taken the wait is over, so the lease is cut to what is left
  (:class:`Lease`). Past it the reconciler (``shiftsched.service.store.reconcile``) fails the job
  ``interrupted`` and releases the units: with the default diagnosis budget, within
  60 s of a crash for any synchronous solve that had started (30 s at most).
- The store is away when the solve ends (database down, disk full): the roster is still
  the caller's (the v1 contract flags it with ``X-Service-Billing-Status: failed``), and
  how the job ended is written to a small local outbox (:class:`Outbox`, one JSON file a
  job under the service's var folder). The loop replays it until the job row takes it,
  which captures the units and keeps the roster pollable, in one transaction.

:class:`Reconciler` runs in every service process, at start and every
:data:`RECONCILE_EVERY_SECONDS`: it replays the outbox, then settles the stale holds. The
queue's consumers settle stale holds in their sweep too (``shiftsched.service.solving.jobs``), so
replicas that run no loop of their own (or a service down for good) still get them settled. An
outbox entry whose job the reconciler failed first (the database came back after the lease ran
out, and another process looked first) finds the job ended and is dropped: the solve goes
unpaid, which favours the client, and the ledger stays consistent with the job.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from contextlib import suppress
from pathlib import Path
from typing import Any, Final, Literal

from shiftsched.service.settings import Settings
from shiftsched.service.solving.runtime import jobs_db_path
from shiftsched.service.solving.workers import DEADLINE_GRACE_SECONDS
from shiftsched.service.store import Store, StoreUnavailable
from shiftsched.service.store.reconcile import settle_stale_holds

LEASE_MARGIN_SECONDS: Final = 5.0
"""Past the solve's deadline, for the request to write its end (a slow or busy store)."""
RECORD_JOB_LEASE_SECONDS: Final = 60.0
"""A queued job's hold between its reservation and its job row (then the job governs it)."""
RECONCILE_EVERY_SECONDS: Final = 5.0
"""How often each service process replays its outbox and settles stale holds."""
OUTBOX_FOLDER: Final = "billing-outbox"

log = logging.getLogger(__name__)


def sync_lease_seconds(settings: Settings, time_limit: float, *, started: bool = False) -> float:
    """A synchronous solve's lease: how long its request can possibly hold its units
    (``started``: from the moment a solver process was taken)."""
    deadline = time_limit + settings.diagnosis_budget_seconds + DEADLINE_GRACE_SECONDS
    wait = 0.0 if started else settings.solve_queue_wait_seconds
    return wait + deadline + LEASE_MARGIN_SECONDS


class Lease:
    """A synchronous solve's lease: :attr:`seconds` when its units are reserved, cut by
    :meth:`renew` once its solve starts."""

    def __init__(self, store: Store, reservation_id: str, settings: Settings, time_limit: float):
        self.store = store
        self.reservation_id = reservation_id
        self.seconds = sync_lease_seconds(settings, time_limit)
        self.started_seconds = sync_lease_seconds(settings, time_limit, started=True)

    def renew(self) -> None:
        """Called as the solve starts (in its waiting thread): the wait is over. A store
        away now only leaves the longer lease in place; the solve goes on."""
        try:
            self.store.ledger.renew_lease(self.reservation_id, self.started_seconds)
        except StoreUnavailable:
            log.warning("the lease of %s could not be cut at its start", self.reservation_id)


class Outbox:
    """How synchronous solves ended, kept on local disk until the job row takes it.

    One file a job, written whole then renamed into place, so a crash never leaves half an
    entry; replaying is idempotent (``Store.finish_job`` ends a job once), so processes
    sharing the folder may replay the same entry.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def put(
        self,
        job_id: str,
        status: Literal["completed", "failed"],
        response_json: Any,
        *,
        error_code: str | None,
        charged: bool,
    ) -> bool:
        """Keep how the job ended; False (logged) if even the disk refuses it, in which
        case the lease runs out and the units are released."""
        entry = {
            "job_id": job_id,
            "status": status,
            "response_json": response_json,
            "error_code": error_code,
            "charged": charged,
        }
        return self._write(job_id, entry)

    def put_capture(self, reservation_id: str) -> bool:
        """Keep a capture that failed for a hold with no job (a re-plan, a
        recommendation); False (logged) if even the disk refuses it."""
        return self._write(reservation_id, {"capture": reservation_id})

    def _write(self, name: str, entry: dict[str, Any]) -> bool:
        target = self.folder / f"{name}.json"
        partial = self.folder / f".{name}.{uuid.uuid4().hex}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with partial.open("w", encoding="utf-8") as out:
                json.dump(entry, out)
                out.flush()
                os.fsync(out.fileno())
            partial.replace(target)
        except OSError:
            log.exception("%s: a failed capture could not be kept for later", name)
            with suppress(OSError):
                partial.unlink(missing_ok=True)
            return False
        return True

    def pending(self) -> list[Path]:
        try:
            return sorted(self.folder.glob("*.json"))
        except OSError:
            return []

    def replay(self, store: Store) -> int:
        """End every job kept here on the store; returns how many entries were done with.
        Stops at the first StoreUnavailable (the store is still away: next time)."""
        done = 0
        for path in self.pending():
            try:
                entry = json.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                continue  # another process replayed it
            except (OSError, ValueError):
                log.exception("billing outbox entry %s is unreadable; left in place", path)
                continue
            try:
                ended = _apply(store, entry)
            except StoreUnavailable:
                break
            if not ended:
                log.warning("%s had been settled before its kept capture", path.stem)
            path.unlink(missing_ok=True)
            done += 1
        return done


def _apply(store: Store, entry: dict[str, Any]) -> bool:
    """Write one kept entry: a job's end (which settles its hold) or a bare capture."""
    if "capture" in entry:
        return store.ledger.capture(str(entry["capture"]))
    return store.jobs.finish_job(
        str(entry["job_id"]),
        entry["status"],
        response_json=entry["response_json"],
        error_code=entry["error_code"],
        charged=bool(entry["charged"]),
    )


def outbox_folder(settings: Settings) -> Path:
    """Beside the embedded queue's file: the SQLite database's folder, else var/."""
    return jobs_db_path(settings).parent / OUTBOX_FOLDER


def reconcile_once(store: Store, outbox: Outbox | None = None) -> None:
    """One pass: the outbox first (a kept capture beats a lease that ran out), then the
    stale holds."""
    if outbox is not None:
        outbox.replay(store)
    settled = settle_stale_holds(store.db)
    if settled:
        log.warning("settled %d hold(s) past their lease: %s", len(settled), settled)


class Reconciler:
    """:func:`reconcile_once` at start and every :data:`RECONCILE_EVERY_SECONDS`, in a
    thread of the service process."""

    def __init__(self, store: Store, outbox: Outbox) -> None:
        self.store = store
        self.outbox = outbox
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="reconciler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(RECONCILE_EVERY_SECONDS)
            self._thread = None

    def _run(self) -> None:
        while True:
            try:
                reconcile_once(self.store, self.outbox)
            except StoreUnavailable:
                pass  # the store is away: the next pass tries again
            except Exception:
                log.exception("reconciling holds failed")
            if self._stop.wait(RECONCILE_EVERY_SECONDS):
                return
