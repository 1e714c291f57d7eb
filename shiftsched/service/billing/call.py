"""What billing is told of one HTTP call, the one way a run is paid for, and what it gives
back.

Why: billing decides what a call costs and how it is paid, never how it is answered. The
HTTP layer reads the request into a :class:`Call` (the store, the settings) or, for a
payment, a :class:`PaidCall` (the gateways too, and the addresses a payment names), hands
the payer's :meth:`Payer.pay` the run, and renders the :class:`Settled` value it returns
(``shiftsched.service.http.delivery``). So no billing module holds a Starlette request or
builds a response, and a paid run enters its payer's module once: the hold, the run
(:func:`run_held`), then the release or the charge, all from there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from shiftsched.contract.v1 import SolveResponse
from shiftsched.service.billing.admission import Admission
from shiftsched.service.billing.payments.mpp_gateway import MppGateway
from shiftsched.service.billing.payments.x402_gateway import X402Gateway
from shiftsched.service.billing.settlement import Outbox
from shiftsched.service.settings import Settings
from shiftsched.service.solving.outcome import Outcome, undelivered
from shiftsched.service.store import Store


@dataclass(frozen=True)
class PaymentHeader:
    """A payment credential as sent: which scheme, and the header value."""

    scheme: Literal["x402", "mpp"]
    value: str


@dataclass(frozen=True)
class Call:
    """One HTTP call, as billing needs it to charge an account."""

    store: Store
    settings: Settings
    outbox: Outbox | None = None  # where an end the store cannot take waits for it


@dataclass(frozen=True)
class PaidCall(Call):
    """One HTTP call, as billing needs it to be paid for by a payment (or offered one)."""

    request_id: str = ""  # the request's id ("" when it has none): a payment claim's holder
    bearer: str | None = None  # the API key sent beside the payment, if any
    resource_url: str = ""  # the call's address as clients reach it: what a payment pays for
    docs_url: str = ""  # the OpenAPI document, which a 402's accepts[] names
    x402: X402Gateway | None = None
    mpp: MppGateway | None = None


@dataclass(frozen=True)
class Settled:
    """A delivered answer, settled: what it is answered with."""

    outcome: Outcome  # the answer as charged (its usage and job_id filled in), read once
    headers: dict[str, str]  # the billing headers to add
    charged_units: int  # units captured from the account (0 when a payment paid)
    job_id: str | None = None  # the kept job, which a 422 solver-infeasible names
    after: Callable[[], Any] | None = None  # work to run once the answer is sent
    purge_after: bool = False  # a job ended completed: finished ones may be purged now


class Bill(Protocol):
    """What a payer holds for one run, until it is settled or released."""

    on_start: Callable[[], None] | None  # called once a solver process is taken
    nothing_charged: str  # said when the run fails: "nothing was charged"
    undelivered_note: str  # added to the error of an answer with nothing to deliver

    async def release(self) -> None:
        """Nothing was delivered: give back what was held."""

    async def settle(self, outcome: Outcome) -> Settled:
        """Charge a delivered answer: what it is answered with."""


class Payer(Protocol):
    """Who pays for a request: an account's key, or one payment."""

    @property
    def may_queue(self) -> bool:
        """Whether this payer may take the queued path."""

    @property
    def why_not(self) -> str:
        """Added to a refusal to queue."""

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
        """Hold what the admitted run costs, run it (:func:`run_held`) and charge a
        delivered answer; anything else releases the hold and raises. A payer with an
        account records the run as a job (its body ``data``, called ``name()``)."""


Run = Callable[[Callable[[], None] | None, str], Awaitable[Outcome]]
"""An admitted run, given the bill's ``on_start`` and what its failures say was charged:
its answer, read once."""


async def run_held(bill: Bill, run: Run) -> Outcome:
    """The delivered outcome of ``run``, whose cost ``bill`` holds; anything else (a
    failure, an answer with nothing to deliver) releases the hold and raises."""
    try:
        outcome = await run(bill.on_start, bill.nothing_charged)
    except BaseException:
        await bill.release()
        raise
    if not outcome.delivered:
        await bill.release()
        assert isinstance(outcome.answer, SolveResponse), "only a solve can go undelivered"
        raise undelivered(outcome.answer, bill.undelivered_note)
    return outcome
