"""Paying with an API key: the account's units, held while an operation runs and captured
once its answer is delivered.

Every keyed operation bills the same way (docs/semantics.md, "When a solve is charged"):
the units are reserved before any work, under a lease that bounds the hold should the
service die (``shiftsched.service.billing.settlement``); captured when the answer is delivered, and
released on every other outcome, so an error never costs a unit. Every keyed call
(a solve, a plan, a re-plan, a recommendation, an explanation, a why-not question) is
also kept as a job from before it runs until the retention time ends, so its ``job_id``
can be polled and every charge belongs to a job row its caller can open; it then settles
through the job's end, in one transaction, rather than by a capture of its own. A call
that delivers nothing leaves no row, as it leaves no charge.

A store that fails when the answer is ready never withholds it: the headers say billing
failed, claim no units remaining, and the capture (or the job's end) is kept in the
outbox until the store takes it.

Every hold of an account's units goes through :func:`reserve_units` (a queued job's
through :func:`hold_units`, which releases them when the job is not recorded), and every
hold is bounded in time (a lease, or its job), so no crash can forget one
(``shiftsched.service.billing.settlement``). A hold the account cannot cover is refused in
one of two ways. When the units are simply not there (free quota and balance spent), 429
quota-exceeded: the contract says waiting will not help, and it sends no Retry-After.
When they are there but held by the account's own solves under way (a burst of
concurrent requests), waiting may well help: a held solve that fails gives its units
back. That is 503 with Retry-After, and it is not counted as refused units.

A keyed run enters this module once (:meth:`KeyPayer.pay`): the hold, the run, the
charge or the release are all called from here.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Final, Literal, TypeVar

import anyio
from pydantic import BaseModel

from shiftsched.contract.v1 import SolveResponse, Usage
from shiftsched.service import metrics
from shiftsched.service.billing.admission import MORE_UNITS, Admission
from shiftsched.service.billing.call import Call, Run, Settled, run_held
from shiftsched.service.billing.settlement import Lease
from shiftsched.service.errors import QuotaExceeded, ServiceUnavailable
from shiftsched.service.settings import Settings
from shiftsched.service.solving.outcome import Outcome
from shiftsched.service.store import Account, Store, StoreUnavailable
from shiftsched.service.threads import in_thread

INSTANT_LEASE_SECONDS: Final = 60.0
"""The hold of an operation that runs no solver (milliseconds): a minute is ample."""
PURGE_EVERY_SECONDS: Final = 3600  # how often finished jobs past their retention are deleted
#: Seconds to wait before retrying a solve whose units are held by solves under way.
RETRY_AFTER_HELD_SECONDS: Final = 10
T = TypeVar("T")

log = logging.getLogger(__name__)


@dataclass
class KeyPayer:
    """The account of a valid API key, paying in units."""

    call: Call
    account: Account
    why_not: str = ""  # nothing to add when a refusal to queue names the tier
    job_id: str | None = None  # the id its call's job takes (an idempotency key's); None: new
    may_queue: bool = field(init=False)  # only a pro key may take the queued path

    def __post_init__(self) -> None:
        self.may_queue = self.account.tier == "pro"

    async def pay(
        self,
        purpose: str,
        admission: Admission,
        run: Run,
        *,
        solves: bool,
        data: object,
        name: Callable[[], str] | None = None,
    ) -> Settled:
        """Hold the admission's units with the call's job (:meth:`hold`), run it, and
        capture a delivered answer's units with the job's end; anything else releases
        them and raises."""
        bill = await self.hold(purpose, admission, solves=solves, data=data, name=name)
        return await bill.settle(await run_held(bill, run))

    async def hold(
        self,
        purpose: str,
        admission: Admission,
        *,
        solves: bool,
        data: object,
        name: Callable[[], str] | None = None,
    ) -> UnitsBill:
        """Reserve the admission's units (QuotaExceeded, or ServiceUnavailable when only
        units held by the account's solves under way are missing) and record the call
        (operation ``purpose``, body ``data``, called ``name()``) as a running job
        holding them before it runs (a store that fails then fails the request: 503,
        nothing charged)."""
        store, settings = self.call.store, self.call.settings
        called = name() if name is not None else None
        reservation_id = uuid.uuid4().hex
        lease = Lease(store, reservation_id, settings, admission.time_limit) if solves else None
        seconds = lease.seconds if lease is not None else INSTANT_LEASE_SECONDS
        await reserve_units(
            store,
            self.account.id,
            admission.units,
            reservation_id,
            lease_seconds=seconds,
            purpose=purpose,
        )
        job_id = self.job_id or uuid.uuid4().hex
        bill = UnitsBill(self.call, self.account, admission.units, reservation_id, job_id)
        bill.on_start = lease.renew if lease is not None else None
        try:
            await in_thread(
                store.jobs.create_job,
                self.account.id,
                data,
                units_reserved=admission.units,
                reservation_id=reservation_id,
                key_id=self.account.key_id,
                size=admission.size,
                kind="sync",
                job_id=job_id,
                operation=purpose,
                name=called,
            )
        except BaseException:
            await bill.release()
            raise
        return bill


@dataclass
class UnitsBill:
    """Units held for one operation, until :meth:`settle` or :meth:`release`."""

    call: Call
    account: Account
    units: int
    reservation_id: str
    job_id: str  # the call's job record
    on_start: Callable[[], None] | None = field(default=None)  # cuts the lease at the start
    nothing_charged: str = "nothing was charged"
    undelivered_note: str = ""

    @property
    def store(self) -> Store:
        return self.call.store

    async def release(self) -> None:
        """Nothing was delivered: forget the job record, give the units back."""
        await in_thread(self.store.jobs.abandon_sync_job, self.job_id)
        await in_thread(self.store.ledger.release, self.reservation_id)

    async def settle(self, outcome: Outcome) -> Settled:
        """Capture the units of a delivered answer: the answer with its units headers; a
        kept job's answer names it (``job_id``, in a 422 too)."""
        answer = outcome.answer
        if "job_id" in type(answer).model_fields:
            answer = answer.model_copy(update={"job_id": self.job_id})
        as_charged, headers = await self._end_job(answer)
        charged = int(headers["X-Units-Consumed"])
        completed = _ended_as(answer) == "completed"
        return Settled(as_charged, headers, charged, job_id=self.job_id, purge_after=completed)

    async def _end_job(self, answer: BaseModel) -> tuple[Outcome, dict[str, str]]:
        """End the kept job and settle its units in one transaction; a store that fails
        now keeps the end in the outbox (no units remaining are claimed then, since none
        are known)."""
        status = _ended_as(answer)
        error = answer.error if isinstance(answer, SolveResponse) else None
        code = None if error is None or status == "completed" else error.code
        headers = {"X-Units-Consumed": str(self.units)}
        try:
            patience = self.call.settings.settle_patience_seconds
            as_charged, ended, remaining = await _patiently(
                lambda: self._finish(answer, status, code), patience
            )
            if not ended:  # the lease ran out first: the reconciler released the units
                log.warning("job %s: delivered after its lease; not charged", self.job_id)
                _, _, remaining = await in_thread(self.store.ledger.usage, self.account.id)
                headers["X-Units-Consumed"] = "0"
                as_charged = Outcome(_with_usage(answer, 0, remaining))
            headers["X-Units-Remaining"] = str(remaining)
        except StoreUnavailable:
            if isinstance(answer, SolveResponse):
                answer = answer.model_copy(update={"usage": None})
            outbox = self.call.outbox
            assert outbox is not None, "the served app keeps an outbox"
            as_charged = Outcome(answer)
            kept = await in_thread(
                outbox.put, self.job_id, status, as_charged.body, error_code=code, charged=True
            )
            if not kept:  # the lease will release the units: nothing is consumed
                headers["X-Units-Consumed"] = "0"
            headers["X-Service-Billing-Status"] = "failed"
        return as_charged, headers

    def _finish(
        self, answer: BaseModel, status: Literal["completed", "failed"], code: str | None
    ) -> tuple[Outcome, bool, int]:
        """End the job, charged, with the answer as it will be sent (in a thread): the
        answer with its usage, whether the job was still running, the units left."""
        _, _, remaining = self.store.ledger.usage(self.account.id)  # this hold still held
        as_charged = Outcome(_with_usage(answer, self.units, remaining))
        ended = self.store.jobs.finish_job(
            self.job_id,
            status,
            response_json=as_charged.body,
            error_code=code,
            charged=True,
        )
        return as_charged, ended, remaining


async def _patiently(write: Callable[[], T], patience: float) -> T:
    """``write()`` in a thread, tried again while the store is away, for up to
    ``patience`` seconds (``SETTLE_PATIENCE_SECONDS``); then StoreUnavailable.

    Why: the headers must say what the ledger holds. A store that is locked or away for a
    moment (a SQLite writer holding the file, a database failing over) usually answers
    again within seconds; waiting for it, the request learns whether its capture won or
    its lease ran out first and the reconciler released the units (the job is then no
    longer running: 0 consumed). Only a longer outage leaves the answer to the outbox."""
    give_up = time.monotonic() + patience
    pause = 0.5
    while True:
        try:
            return await in_thread(write)
        except StoreUnavailable:
            if time.monotonic() + pause > give_up:
                raise
            await anyio.sleep(pause)
            pause = min(pause * 2, 5.0)


def _ended_as(answer: BaseModel) -> Literal["completed", "failed"]:
    """How a delivered answer ends its job: a solve as its status says (a diagnosed
    infeasibility is failed, yet charged); any other answer (a ranking, a verdict)
    completed."""
    if isinstance(answer, SolveResponse) and answer.status != "completed":
        return "failed"
    return "completed"


def _with_usage(answer: BaseModel, consumed: int, remaining: int) -> BaseModel:
    """A completed solve's answer says what it cost; other answers carry headers only."""
    if isinstance(answer, SolveResponse) and answer.status == "completed":
        usage = Usage(units_consumed=consumed, units_remaining=remaining)
        return answer.model_copy(update={"usage": usage})
    return answer


@asynccontextmanager
async def hold_units(
    store: Store,
    account_id: str,
    units: int,
    reservation_id: str,
    *,
    lease_seconds: float,
    purpose: str,
    sync_job_id: str | None = None,
) -> AsyncIterator[None]:
    """Hold ``units`` of the account for the block; QuotaExceeded when it cannot cover
    them, ServiceUnavailable when only units held by its solves under way are missing.
    Any exception out of the block releases the hold (nothing is charged) and goes on;
    settling a solve that did happen (capture or release) is the block's business.

    ``lease_seconds``: how long the hold may go unsettled before the reconciler settles
    it, longer than the block can take. ``sync_job_id``: the synchronous solve's record,
    which the block writes; a failure out of the block forgets it with the hold."""
    await reserve_units(
        store, account_id, units, reservation_id, lease_seconds=lease_seconds, purpose=purpose
    )
    try:
        yield
    except BaseException:
        if sync_job_id is not None:
            await in_thread(store.jobs.abandon_sync_job, sync_job_id)
        await in_thread(store.ledger.release, reservation_id)
        raise


async def reserve_units(
    store: Store,
    account_id: str,
    units: int,
    reservation_id: str,
    *,
    lease_seconds: float,
    purpose: str,
) -> None:
    """Hold ``units`` of the account until captured, released or past ``lease_seconds``;
    QuotaExceeded when it cannot cover them, ServiceUnavailable when only units held by
    its solves under way are missing."""
    reservation = await in_thread(
        store.ledger.reserve,
        account_id,
        units,
        reservation_id,
        lease_seconds=lease_seconds,
        purpose=purpose,
    )
    if reservation is None:
        raise await _short_of_units(store, account_id, units)


async def _short_of_units(
    store: Store, account_id: str, units: int
) -> QuotaExceeded | ServiceUnavailable:
    """Why a reservation of ``units`` was refused: no units (429), or units held by the
    account's solves under way (503, retry)."""
    held = await in_thread(store.ledger.held_units, account_id)
    _, _, available = await in_thread(store.ledger.usage, account_id)
    if held > 0 and available + held >= units:
        return ServiceUnavailable(
            f"this solve needs {units} unit(s) and {available} are free now; {held} more "
            "are held by this account's solves under way and come back if they fail: "
            "retry when they end; nothing was charged",
            retry_after=RETRY_AFTER_HELD_SECONDS,
        )
    metrics.units_refused(units)
    return QuotaExceeded(
        f"this solve needs {units} unit(s) and {available} are available: {MORE_UNITS}"
    )


def purge(store: Store, settings: Settings) -> int:
    """Forget finished jobs past their retention (at start, then at most hourly)."""
    cutoff = datetime.now(UTC) - timedelta(days=settings.job_retention_days)
    return store.jobs.purge_finished_jobs(cutoff)
