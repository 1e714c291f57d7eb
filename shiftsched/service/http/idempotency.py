"""Safe retries of a charged call: the ``Idempotency-Key`` request header.

A client whose call timed out cannot know whether it ran; sent again with the same key,
it is answered, not run again (the semantics of the IETF httpapi draft "The
Idempotency-Key HTTP Header Field", as payment APIs use it):

- the first call with a key claims it, per account and operation, with the fingerprint
  of its body (``shiftsched.service.store.idempotency``), and runs as usual, its job under
  the id the claim chose; its answer (status, the headers that matter, body) is kept;
- the same key and body after it ended: that answer again, byte for byte, with
  ``Idempotent-Replayed: true``, charging nothing;
- the same key while the first still runs: 409 ``idempotency-conflict`` with
  Retry-After; with another body: 422 ``idempotency-key-reused``;
- a first call that ended charging nothing (a fault, busy solvers, a timeout) frees its
  key, so the retry runs;
- a first call whose service died: if it had charged, its job's answer (what
  ``GET /solve/jobs/{id}`` answers); if not, a fresh run (once its lock has passed
  when it recorded no job; once the job is ended ``interrupted`` when it did).

A call paid per request (x402, mpp) is keyed by its payment instead of an account
(:func:`once_paid`): the key is claimed with the payment, and a retry that sends the same
payment, key and body gets the delivered answer again, settling nothing twice; while the
first still runs, 409; with another body, 422. Without a key, a payment sent again is
refused as used, as before. Keys live ``Settings.idempotency_ttl_hours`` (24 h by
default). The free operations take no key: a free call is safe to repeat.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from shiftsched.service.billing.paid import PaymentPayer
from shiftsched.service.errors import (
    IdempotencyConflict,
    IdempotencyKeyReused,
    InvalidIdempotencyKey,
    PaymentRefused,
)
from shiftsched.service.store import Account, Store
from shiftsched.service.store.idempotency import KeyedCall
from shiftsched.service.store.payments import KeyedPayment, PaidKey
from shiftsched.service.threads import in_thread

HEADER: Final = "Idempotency-Key"
REPLAYED: Final = "Idempotent-Replayed"
MAX_KEY_LENGTH: Final = 255
KEPT_HEADERS: Final = (
    "content-type",
    "x-units-consumed",
    "x-units-remaining",
    "x-service-billing-status",
    "location",
    "link",
    "retry-after",
    "x-payment-response",
    "payment-response",
    "payment-receipt",
    "x-service-settle-status",
)
"""What a replay answers again of the first answer's headers (not its date or length)."""
LOCK: Final = timedelta(minutes=10)
"""How long a claimed key without an answer is taken to be running, unless its job says
otherwise: longer than any synchronous call may take to reach its hold."""
RETRY_AFTER_SECONDS: Final = 2


def key_of(request: Request) -> str | None:
    """The request's key, if it sent one; InvalidIdempotencyKey when malformed."""
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not all("!" <= c <= "~" for c in key):
        raise InvalidIdempotencyKey(
            f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable ASCII characters "
            f"(got {len(key)} characters)"
        )
    return key


def fingerprint(data: Any) -> str:
    """The body's fingerprint: its JSON, keys sorted, hashed (formatting never counts)."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


async def once(
    request: Request,
    account: Account,
    operation: str,
    key: str,
    data: Any,
    run: Callable[[str], Awaitable[Response]],
) -> Response:
    """The answer of the call keyed ``key``: ``run(job_id)`` if this call claims it,
    else the first call's answer, or its conflict (the module doc)."""
    store: Store = request.app.state.store
    ttl = timedelta(hours=request.app.state.settings.idempotency_ttl_hours)
    sent = fingerprint(data)
    claim = await in_thread(
        store.idempotency.claim, account.id, operation, key, sent, ttl=ttl, lease=LOCK
    )
    if not claim.won:
        return await _answer_of(store, account, claim.call, sent)
    try:
        response = await run(claim.call.job_id)
    except Exception:
        await in_thread(store.idempotency.forget, claim.call)  # nothing charged: free it
        raise
    await in_thread(store.idempotency.remember, claim.call, response.status_code, *_kept(response))
    return response


async def once_paid(
    request: Request,
    payer: PaymentPayer,
    operation: str,
    key: str,
    data: Any,
    run: Callable[[PaymentPayer], Awaitable[Response]],
) -> Response:
    """The answer of the paid call keyed ``key``: ``run(payer)``, its payment claimed
    with the key, unless that payment already answered or still runs a call with it."""
    store: Store = request.app.state.store
    sent = PaidKey(operation, key, fingerprint(data))
    payment_key = payer.claim_key()
    answer = _paid_answer_of(await in_thread(store.payments.keyed_payment, payment_key), sent)
    if answer is not None:
        return answer
    try:
        response = await run(replace(payer, keyed=sent))
    except PaymentRefused:  # used meanwhile: by a concurrent retry with this key?
        held = await in_thread(store.payments.keyed_payment, payment_key)
        answer = _paid_answer_of(held, sent)
        if answer is None:
            raise
        return answer
    status, headers, body = response.status_code, *_kept(response)
    await in_thread(store.payments.remember_paid_answer, payment_key, sent, status, headers, body)
    return response


def _paid_answer_of(held: KeyedPayment | None, sent: PaidKey) -> Response | None:
    """What a retry with this payment gets from the call that claimed it with the same
    key: its answer, or its conflict; None when the payment holds no call with this key
    (it runs, and its claim decides)."""
    if held is None or held.keyed is None:
        return None
    if (held.keyed.operation, held.keyed.key) != (sent.operation, sent.key):
        return None
    if held.keyed.fingerprint != sent.fingerprint:
        raise IdempotencyKeyReused(
            f"this {HEADER} was used with this payment for another body; use a new key"
        )
    if held.status_code is not None and held.body is not None:
        return _replayed(held.status_code, held.headers, held.body)
    if held.in_flight:
        raise IdempotencyConflict(
            f"the first call with this {HEADER} and payment is still running; retry with "
            "the same key and payment",
            retry_after=RETRY_AFTER_SECONDS,
        )
    return None


def _replayed(status_code: int, headers: dict[str, str] | None, body: bytes) -> Response:
    """A stored answer sent again, marked as a replay."""
    return Response(body, status_code=status_code, headers={**(headers or {}), REPLAYED: "true"})


def _kept(response: Response) -> tuple[dict[str, str], bytes]:
    """What an answer keeps for its replays: the headers that matter, and its body."""
    kept = {name: value for name, value in response.headers.items() if name in KEPT_HEADERS}
    return kept, bytes(response.body)


async def _answer_of(store: Store, account: Account, call: KeyedCall, sent: str) -> Response:
    """What a retry gets from the call that holds its key."""
    if call.fingerprint != sent:
        raise IdempotencyKeyReused(
            f"this {HEADER} was used for another body of this operation; use a new key"
        )
    if call.status_code is not None and call.body is not None:
        return _replayed(call.status_code, call.headers, call.body)
    job = await in_thread(store.jobs.get_job, account.id, call.job_id)
    if job is not None and job.status != "running":  # charged, then the service died
        return JSONResponse(job.as_response(), headers={REPLAYED: "true"})
    raise IdempotencyConflict(
        f"the first call with this {HEADER} is still running; retry with the same key",
        retry_after=RETRY_AFTER_SECONDS,
    )
