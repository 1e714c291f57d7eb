"""The errors the service answers with, one class per meaning.

Every class is a problem type of the v1 contract and carries all there is to say about
it: its ``slug`` (the last segment of the ``type`` URI), its HTTP ``status``, its
``title``, and the guide of its page (``when`` it happens, and the ``advice``). A handler
raises one of these; the app's single exception handler renders it
(:func:`shiftsched.service.http.problems.render`), the error pages list :func:`error_types`, and the
OpenAPI document describes each operation's errors from the same classes. Nothing here
knows HTTP beyond header names.

    ServiceError                   an answer other than the one asked for
    ├── UnreadableBody             the body is not a JSON document the gate can read
    │   ├── UnsupportedMediaType     415 not sent as application/json
    │   ├── PayloadTooLarge          413 over the 1 MB cap
    │   └── InvalidJson              400 not parseable as JSON
    ├── ValidationFailed           422 breaks the contract; errors[] holds each fault
    ├── NotAdmitted                valid, but this credential may not run it
    │   ├── TierLimitExceeded        422 too large for the credential's tier
    │   └── LongSolveNotImplemented  501 a time limit only the queued path may take
    ├── Unauthorized               401 an API key or token was refused
    │   └── PaymentRefused           401 a payment credential was refused
    ├── PaymentRequired            402 no credential at all; accepts[] offers ways to pay
    ├── QuotaExceeded              429 the account cannot cover the solve
    ├── RateLimited                429 too many requests from one address or key (Retry-After)
    ├── NotFound                   404 no such path, job or error type
    ├── MethodNotAllowed           405 the path exists with other methods
    ├── SolverInfeasible           422 the hard rules admit no roster (a delivered answer)
    ├── WorkTimeout                504 work that solves nothing ran past its deadline
    ├── SolverTimeout              504 no roster within the time limit
    ├── ServiceUnavailable         503 solvers busy, lost or stopping, a dependency down
    └── InternalError              500 a bug, or a solve that failed (overran its deadline)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final

from shiftsched.errors import FieldError

Headers = Mapping[str, str] | Sequence[tuple[str, str]]

#: How long a 503 asks a client to wait when nothing better is known (``Retry-After``).
RETRY_AFTER_UNAVAILABLE: Final = "30"
#: The realm of every challenge the service sends (``WWW-Authenticate``).
REALM: Final = 'realm="shiftsched"'


class ServiceError(Exception):
    """Base of every error answered as problem+json.

    ``errors`` are field faults with JSON paths; ``headers`` go on the response (pairs,
    for a field sent more than once, e.g. one ``WWW-Authenticate`` per scheme);
    ``members`` are the type's own body members (``accepts``, ``diagnosis``)."""

    slug: ClassVar[str]
    status: ClassVar[int]
    title: ClassVar[str]
    when: ClassVar[str]  # when it happens, for its page
    advice: ClassVar[str]  # what to do about it

    def __init__(
        self,
        detail: str | None = None,
        *,
        errors: Iterable[Mapping[str, Any]] | None = None,
        headers: Headers | None = None,
        **members: Any,
    ) -> None:
        super().__init__(detail or type(self).__name__)
        self.detail = detail
        self.errors = None if errors is None else [dict(e) for e in errors]
        pairs = headers.items() if isinstance(headers, Mapping) else headers or ()
        self.headers: list[tuple[str, str]] = list(pairs)
        self.members = members


class UnreadableBody(ServiceError):
    """The body is not a JSON document the gate can read."""


class UnsupportedMediaType(UnreadableBody):
    """The body was not sent as ``application/json``."""

    slug = "unsupported-media-type"
    status = 415
    title = "Content-Type must be application/json"
    when = "The body was not sent as JSON."
    advice = "Send `Content-Type: application/json`."


class PayloadTooLarge(UnreadableBody):
    """The body is larger than the contract's 1 MB cap."""

    slug = "payload-too-large"
    status = 413
    title = "Request body exceeds 1 MB"
    when = "The body is larger than 1 MB."
    advice = "Send one schedule per request; a request within the contract's limits fits."


class InvalidJson(UnreadableBody):
    """The body does not parse as JSON."""

    slug = "invalid-json"
    status = 400
    title = "Request body is not valid JSON"
    when = "The request body could not be parsed as JSON."
    advice = "Check the body with a JSON linter; `detail` says where parsing stopped."


#: How many faults a 422 lists: a body of many thousand bad items is refused with the
#: first of them and their total (``errors_total``), so the answer stays small whatever
#: the body holds; fixing those and validating again shows the next.
MAX_LISTED_ERRORS: Final = 100


class ValidationFailed(ServiceError):
    """The request breaks the contract; one entry of ``errors[]`` per fault."""

    slug = "validation-error"
    status = 422
    title = "The request breaks the contract"
    when = (
        "The request breaks a rule of the contract: a missing field, a wrong type, an unknown "
        "reference, or a cross-field rule."
    )
    advice = (
        "Each entry of `errors[]` gives the JSON path of one fault and a stable code; POST the "
        "request to /solve/validate (free) until it passes."
    )

    def __init__(self, faults: Sequence[FieldError]) -> None:
        listed = faults[:MAX_LISTED_ERRORS]
        detail = f"{len(faults)} error(s) in the request"
        if len(faults) > len(listed):
            detail += f"; the first {len(listed)} are listed"
        super().__init__(
            detail,
            errors=[f.as_dict() for f in listed],
            errors_total=len(faults) if len(faults) > len(listed) else None,
        )


class NotAdmitted(ServiceError):
    """A valid request this credential may not run."""


class TierLimitExceeded(NotAdmitted):
    """The problem is larger than the credential's tier may solve."""

    slug = "tier-limit-exceeded"
    status = 422
    title = "Problem too large for this credential's tier"
    when = "The problem's size is above what the credential's tier may solve."
    advice = (
        "Solve a shorter period or fewer employees, or move the account to a larger tier in the"
        " dashboard."
    )


class LongSolveNotImplemented(NotAdmitted):
    """A time limit above the synchronous limit needs the queued path."""

    slug = "not-implemented"
    status = 501
    title = "Not implemented"
    when = "A time limit over 30 s needs the queued path, which only a pro key may use."
    advice = "Lower `options.solver_timeout_seconds` to 30 or less, or use a pro key."


class Unauthorized(ServiceError):
    """An API key or token was refused; ``WWW-Authenticate`` says how to authenticate."""

    slug = "unauthorized"
    status = 401
    title = "Authentication failed"
    when = "The Authorization header holds a key or token that is unknown, disabled or expired."
    advice = (
        "Send `Authorization: Bearer <API key>` with a key from the dashboard, or sign in again"
        " when an assistant's token expired."
    )


class PaymentRefused(Unauthorized):
    """A payment credential was refused; the challenge names its scheme."""


class PaymentRequired(ServiceError):
    """No credential at all: ``accepts[]`` and the challenges offer every way to pay."""

    slug = "payment-required"
    status = 402
    title = "A credential is required"
    when = "A paid operation came without any credential."
    advice = "Send an API key, or pay per solve: `accepts[]` lists the payment schemes offered."


class QuotaExceeded(ServiceError):
    """The free quota and prepaid balance cannot cover the solve."""

    slug = "quota-exceeded"
    status = 429
    title = "Free quota and prepaid balance are exhausted"
    when = "The free quota and the prepaid balance cannot cover the solve."
    advice = (
        "Ask the operator of this service for prepaid units (the dashboard's Tier page says "
        "so too) or, where the service takes payments, send the solve without a key and pay "
        "for it alone (the 402 lists the schemes); GET /usage shows what is left."
    )


class NotFound(ServiceError):
    """No such path, job of the caller's account, or error type."""

    slug = "not-found"
    status = 404
    title = "Not found"
    when = "The path does not exist, or the job is not one of your credential's jobs."
    advice = (
        "Check the path against the OpenAPI description (`GET /v1/public` lists every "
        "operation, the `Link` header points to it); poll jobs with the key that created them."
    )


class MethodNotAllowed(ServiceError):
    """The path exists, but not with this method."""

    slug = "method-not-allowed"
    status = 405
    title = "Method not allowed"
    when = "The path exists but not with this HTTP method."
    advice = "The `Allow` header lists the methods the path accepts."

    def __init__(self, detail: str, allow: Iterable[str]) -> None:
        super().__init__(detail, headers={"Allow": ", ".join(allow)})


class SolverInfeasible(ServiceError):
    """The hard rules admit no roster; ``diagnosis`` names the conflict."""

    slug = "solver-infeasible"
    status = 422
    title = "The hard rules admit no roster"
    when = "The hard rules admit no roster at all."
    advice = (
        "`error.diagnosis.causes` names the rules that conflict; relax one of them (for example"
        " make it soft) and solve again."
    )


class RateLimited(ServiceError):
    """Too many requests from one client address (anonymous) or one API key in a window."""

    slug = "rate-limited"
    status = 429
    title = "Too many requests"
    when = (
        "More requests came from this client address (operations without a credential) or "
        "with this API key than the service's rate limit allows in a short window. Nothing "
        "was run and nothing was charged."
    )
    advice = (
        "Wait the number of seconds in the `Retry-After` header, then retry; spread calls "
        "out, or send an API key for the higher per-key limit."
    )

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})


class WorkTimeout(ServiceError):
    """Work that solves nothing ran past its deadline and was stopped."""

    slug = "deadline-exceeded"
    status = 504
    title = "The work ran past its deadline and was stopped"
    when = (
        "An operation that runs no solver (an audit, a comparison, a validation, a "
        "recommendation) ran past its deadline; its process was stopped. Nothing was "
        "charged."
    )
    advice = (
        "Send a smaller request: fewer days, a shorter roster, or the dates that matter; "
        "a long period is planned period by period with history."
    )


class SolverTimeout(ServiceError):
    """No roster was found within the time limit."""

    slug = "solver-timeout"
    status = 504
    title = "No roster was found within the time limit"
    when = "No roster was found within the time limit. Nothing was charged."
    advice = (
        "Raise `options.solver_timeout_seconds`, or check that the request is not far larger "
        "than it needs to be."
    )


class InvalidIdempotencyKey(ServiceError):
    """An ``Idempotency-Key`` header that is empty, too long or not printable ASCII."""

    slug = "invalid-idempotency-key"
    status = 400
    title = "The Idempotency-Key header is malformed"
    when = (
        "The `Idempotency-Key` header is empty, longer than 255 characters, or holds other "
        "than printable ASCII characters. Nothing was run or charged."
    )
    advice = "Send a key of 1 to 255 printable ASCII characters, such as a random UUID."


class IdempotencyConflict(ServiceError):
    """A retry with a key whose first call still runs."""

    slug = "idempotency-conflict"
    status = 409
    title = "The first call with this Idempotency-Key is still running"
    when = (
        "A call came with an `Idempotency-Key` whose first call (same account, operation "
        "and body) has not ended yet. Nothing was run or charged for this one."
    )
    advice = (
        "Retry after the number of seconds in the `Retry-After` header with the same key: "
        "once the first call has ended, its answer comes back, charged once."
    )

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})


class IdempotencyKeyReused(ServiceError):
    """A key sent again with another body."""

    slug = "idempotency-key-reused"
    status = 422
    title = "This Idempotency-Key was used with another body"
    when = (
        "A call came with an `Idempotency-Key` that this account already used for the same "
        "operation with a different body, within the key's lifetime (24 hours by default). "
        "Nothing was run or charged."
    )
    advice = "Use a new key for a new request; resend the first body to get its answer again."


class ServiceUnavailable(ServiceError):
    """Solvers busy, a solver process lost, the service stopping, or a store, queue or
    payment provider unreachable; retry later."""

    slug = "service-unavailable"
    status = 503
    title = "Service temporarily unavailable"
    when = (
        "Every solver process stayed busy for the queue wait, or the waiting line is full; the "
        "solve's process was lost (killed for its memory, say); the service is stopping; the "
        "units a solve needs are held by the account's own solves under way; or the account "
        "store, the job queue or a payment provider cannot be reached. Nothing was charged."
    )
    advice = (
        "Retry after the number of seconds in the `Retry-After` header; large problems can be "
        "queued as jobs instead."
    )

    def __init__(self, detail: str, *, retry_after: int | str) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})


class InternalError(ServiceError):
    """A bug, or a solve that failed for good (it overran its deadline); nothing was
    charged."""

    slug = "internal-error"
    status = 500
    title = "Internal error"
    when = "A bug in the service. Nothing was charged."
    advice = "Retry once; if it happens again, report the `request_id`."


def error_types() -> list[type[ServiceError]]:
    """Every problem type, once each (a subclass that keeps its parent's slug, such as
    :class:`PaymentRefused`, is the same type), by status then slug."""
    found: dict[str, type[ServiceError]] = {}
    stack: list[type[ServiceError]] = [ServiceError]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if "slug" in vars(cls):
            found[cls.slug] = cls
    return sorted(found.values(), key=lambda cls: (cls.status, cls.slug))


def error_type(slug: str) -> type[ServiceError] | None:
    """The problem type named ``slug``, if there is one."""
    return next((cls for cls in error_types() if cls.slug == slug), None)
