"""The errors the service answers with, one class per meaning.

Every class is a problem type of the v1 contract: its ``slug`` names the type (the last
segment of the ``type`` URI), and :mod:`bento.http.problems` holds each slug's status, title and
guide and renders any of them as problem+json. A handler raises one of these; the app's
single exception handler answers it. Nothing here knows HTTP beyond header names.

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
    ├── NotFound                   404 no such path, job or error type
    ├── MethodNotAllowed           405 the path exists with other methods
    ├── SolverInfeasible           422 the hard rules admit no roster (a delivered answer)
    ├── SolverTimeout              504 no roster within the time limit
    ├── ServiceUnavailable         503 solvers busy, lost or stopping, a dependency down
    └── InternalError              500 a bug, or a solve that failed (overran its deadline)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from engine.errors import FieldError

Headers = Mapping[str, str] | Sequence[tuple[str, str]]


class ServiceError(Exception):
    """Base of every error answered as problem+json.

    ``errors`` are field faults with JSON paths; ``headers`` go on the response (pairs,
    for a field sent more than once, e.g. one ``WWW-Authenticate`` per scheme);
    ``members`` are the type's own body members (``accepts``, ``diagnosis``)."""

    slug: ClassVar[str]

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


class PayloadTooLarge(UnreadableBody):
    """The body is larger than the contract's 1 MB cap."""

    slug = "payload-too-large"


class InvalidJson(UnreadableBody):
    """The body does not parse as JSON."""

    slug = "invalid-json"


class ValidationFailed(ServiceError):
    """The request breaks the contract; one entry of ``errors[]`` per fault."""

    slug = "validation-error"

    def __init__(self, faults: Sequence[FieldError]) -> None:
        super().__init__(
            f"{len(faults)} error(s) in the request", errors=[f.as_dict() for f in faults]
        )


class NotAdmitted(ServiceError):
    """A valid request this credential may not run."""


class TierLimitExceeded(NotAdmitted):
    """The problem is larger than the credential's tier may solve."""

    slug = "tier-limit-exceeded"


class LongSolveNotImplemented(NotAdmitted):
    """A time limit above the synchronous limit needs the queued path."""

    slug = "not-implemented"


class Unauthorized(ServiceError):
    """An API key or token was refused; ``WWW-Authenticate`` says how to authenticate."""

    slug = "unauthorized"


class PaymentRefused(Unauthorized):
    """A payment credential was refused; the challenge names its scheme."""


class PaymentRequired(ServiceError):
    """No credential at all: ``accepts[]`` and the challenges offer every way to pay."""

    slug = "payment-required"


class QuotaExceeded(ServiceError):
    """The free quota and prepaid balance cannot cover the solve."""

    slug = "quota-exceeded"


class NotFound(ServiceError):
    """No such path, job of the caller's account, or error type."""

    slug = "not-found"


class MethodNotAllowed(ServiceError):
    """The path exists, but not with this method."""

    slug = "method-not-allowed"

    def __init__(self, detail: str, allow: Iterable[str]) -> None:
        super().__init__(detail, headers={"Allow": ", ".join(allow)})


class SolverInfeasible(ServiceError):
    """The hard rules admit no roster; ``diagnosis`` names the conflict."""

    slug = "solver-infeasible"


class SolverTimeout(ServiceError):
    """No roster was found within the time limit."""

    slug = "solver-timeout"


class ServiceUnavailable(ServiceError):
    """Solvers busy, a solver process lost, the service stopping, or a store, queue or
    payment provider unreachable; retry later."""

    slug = "service-unavailable"

    def __init__(self, detail: str, *, retry_after: int | str) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})


class InternalError(ServiceError):
    """A bug, or a solve that failed for good (it overran its deadline); nothing was
    charged."""

    slug = "internal-error"
