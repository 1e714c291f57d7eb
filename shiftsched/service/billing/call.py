"""What billing is told of one HTTP call, and what it gives back.

Why: billing decides what a call costs and how it is paid, never how it is answered. The
HTTP layer reads the request once into a :class:`Call` (the store, the payment gateways,
the addresses a payment names) and renders the :class:`Settled` value a bill returns
(``shiftsched.service.http.delivery``), so no billing module holds a Starlette request or
builds a response.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from shiftsched.service.billing.payments.mpp_gateway import MppGateway
from shiftsched.service.billing.payments.x402_gateway import X402Gateway
from shiftsched.service.billing.settlement import Outbox
from shiftsched.service.settings import Settings
from shiftsched.service.store import Store


def _never() -> bool:
    return False


@dataclass(frozen=True)
class Call:
    """One HTTP call, as billing needs it."""

    store: Store
    settings: Settings
    request_id: str  # the request's id ("" when it has none): a payment claim's holder
    bearer: str | None  # the API key sent, if any
    resource_url: str  # the call's address as clients reach it: what a payment pays for
    docs_url: str  # the OpenAPI document, which a 402's accepts[] names
    x402: X402Gateway | None = None
    mpp: MppGateway | None = None
    outbox: Outbox | None = None  # where an end the store cannot take waits for it
    purge_due: Callable[[], bool] = _never  # whether finished jobs are due to be purged


@dataclass(frozen=True)
class Settled:
    """A delivered answer, settled: what it is answered with."""

    answer: BaseModel  # the body, as charged (its usage and job_id filled in)
    headers: dict[str, str]  # the billing headers to add
    charged_units: int  # units captured from the account (0 when a payment paid)
    job_id: str | None = None  # the kept job, which a 422 solver-infeasible names
    after: Callable[[], Any] | None = None  # work to run once the answer is sent
