"""The service's problem+json answers as exceptions a Python caller can catch.

Why the engine's own exception for a 422 ``validation-error``: its ``errors[]`` are the
engine's faults (a JSON path, a message, a stable code), so code that catches
:class:`shiftsched.errors.InvalidRequest` around an in-process call catches the same
fault from the service. Every other problem is a :class:`ServiceProblem` with what the
answer says: status, type, title, detail, request_id, and its other members.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from shiftsched.client.session import Answer
from shiftsched.errors import FieldError, InvalidRequest

VALIDATION_ERROR = "validation-error"


class ServiceProblem(Exception):
    """An answer of the service that is an error (RFC 9457 problem+json)."""

    def __init__(
        self,
        status: int,
        type: str,
        title: str,
        detail: str | None = None,
        request_id: str | None = None,
        *,
        body: dict[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.request_id = request_id
        self.body = body or {}  # every member, the extensions too (diagnosis, job_id, ...)
        self.retry_after = retry_after  # seconds, when the answer said when to try again
        said = f"{status} {title}" + (f": {detail}" if detail else "")
        super().__init__(said + (f" (request {request_id})" if request_id else ""))

    @property
    def slug(self) -> str:
        """The last segment of ``type`` (``quota-exceeded``), whatever its base address."""
        return self.type.rstrip("/").rsplit("/", 1)[-1]


def retry_after(response: Answer) -> float | None:
    """The seconds ``Retry-After`` asks to wait (a number or an HTTP date); None without."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def problem_of(response: Answer) -> ServiceProblem | InvalidRequest:
    """The exception an error answer stands for (a 4xx or 5xx)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):  # not problem+json: a proxy's page, say
        body = {"title": response.reason_phrase or "error", "detail": response.text[:500]}
    problem = ServiceProblem(
        int(body.get("status", response.status_code)),
        str(body.get("type", "about:blank")),
        str(body.get("title", response.reason_phrase)),
        body.get("detail"),
        body.get("request_id", response.headers.get("X-Request-Id")),
        body=body,
        retry_after=retry_after(response),
    )
    if problem.status == 422 and problem.slug == VALIDATION_ERROR:
        return InvalidRequest([_fault(entry) for entry in body.get("errors") or ()])
    return problem


def _fault(entry: dict[str, Any]) -> FieldError:
    return FieldError(
        tuple(entry.get("path") or ()), str(entry.get("message", "")), entry.get("code") or ""
    )


def raise_for_problem(response: Answer) -> None:
    """Nothing for a success; the answer's exception otherwise."""
    if response.is_error:
        raise problem_of(response)


__all__ = ["ServiceProblem", "problem_of", "raise_for_problem", "retry_after"]
