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
  ``GET /solve/jobs/{id}`` answers); if not, once its lock has passed, a fresh run.

Keys live ``Settings.idempotency_ttl_hours`` (24 h by default). Calls paid per request
(x402, mpp) and the free operations take no key: a free call is safe to repeat.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from shiftsched.service.errors import (
    IdempotencyConflict,
    IdempotencyKeyReused,
    InvalidIdempotencyKey,
)
from shiftsched.service.store import Account, Store
from shiftsched.service.store.idempotency import KeyedCall
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
    kept = {name: value for name, value in response.headers.items() if name in KEPT_HEADERS}
    await in_thread(
        store.idempotency.remember, claim.call, response.status_code, kept, bytes(response.body)
    )
    return response


async def _answer_of(store: Store, account: Account, call: KeyedCall, sent: str) -> Response:
    """What a retry gets from the call that holds its key."""
    if call.fingerprint != sent:
        raise IdempotencyKeyReused(
            f"this {HEADER} was used for another body of this operation; use a new key"
        )
    if call.answered:
        assert call.status_code is not None and call.body is not None
        headers = {**(call.headers or {}), REPLAYED: "true"}
        return Response(call.body, status_code=call.status_code, headers=headers)
    job = await in_thread(store.jobs.get_job, account.id, call.job_id)
    if job is not None and job.status != "running":  # charged, then the service died
        return JSONResponse(job.as_response(), headers={REPLAYED: "true"})
    raise IdempotencyConflict(
        f"the first call with this {HEADER} is still running; retry with the same key",
        retry_after=RETRY_AFTER_SECONDS,
    )
