"""One call to the service over httpx: the Bearer key, an ``Idempotency-Key`` made once
per call, and its retries.

Why the key is made here, once per call and not per attempt: a call whose answer was
lost on the network may have run and been charged; sent again with the same key, the
service answers the first call's answer and charges nothing more (docs/api.md,
"Retrying a charged call safely"). What is retried: a transport error (the call may or
may not have run), 409 ``idempotency-conflict`` (the first attempt still runs), 503 (busy,
or units held by the account's own solves) and a 429 that says when to come back (the
rate limit; the 429 without ``Retry-After`` is a spent quota, where waiting will not
help). A ``Retry-After`` sets the wait; otherwise the wait grows exponentially
(``stamina``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, cast

import stamina

from shiftsched.client.problems import ServiceProblem, problem_of, raise_for_problem, retry_after
from shiftsched.client.session import Answer, Session, transport_errors

IDEMPOTENCY_HEADER = "Idempotency-Key"
RETRIED = frozenset({409, 503})


@dataclass(frozen=True)
class Retries:
    """How long one call keeps trying: at most ``attempts`` sends within ``timeout``
    seconds in all (None: no bound but the attempts), waits growing from
    ``wait_initial`` to ``wait_max`` unless the answer says how long."""

    attempts: int = 5
    timeout: float | None = None
    wait_initial: float = 0.5
    wait_max: float = 30.0


def retried(exc: Exception) -> bool | float:
    """Whether ``exc`` is worth another attempt, and how long to wait when it says so."""
    if isinstance(exc, transport_errors()):
        return True
    if isinstance(exc, ServiceProblem):
        waits = exc.retry_after
        if exc.status in RETRIED or (exc.status == 429 and waits is not None):
            return True if waits is None else waits
    return False


class Transport:
    """Calls to the service at ``url`` (its API root, ``.../v1/public``) over ``http``."""

    def __init__(
        self,
        url: str,
        api_key: str | None,
        http: Session,
        retries: Retries,
    ) -> None:
        self.url = url.rstrip("/")
        self.http = http
        self.retries = retries
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def call(self, method: str, path: str, body: Any = None) -> Answer:
        """The successful answer to ``method path`` (with the JSON ``body``), after the
        retries; the answer's exception (:mod:`shiftsched.client.problems`) otherwise.
        Every attempt of one POST carries the same idempotency key."""
        headers = dict(self.headers)
        if method == "POST":
            headers[IDEMPOTENCY_HEADER] = str(uuid.uuid4())
        settings = self.retries
        response: Answer | None = None
        for attempt in stamina.retry_context(
            on=retried,
            attempts=settings.attempts,
            timeout=settings.timeout,
            wait_initial=settings.wait_initial,
            wait_max=settings.wait_max,
        ):
            with attempt:
                response = cast(
                    Answer, self.http.request(method, self.url + path, json=body, headers=headers)
                )
                if response.status_code in RETRIED or response.status_code == 429:
                    problem = problem_of(response)
                    if retried(problem):
                        raise problem
        assert response is not None  # the loop either answered or raised
        raise_for_problem(response)
        return response


__all__ = ["IDEMPOTENCY_HEADER", "Retries", "Transport", "retried", "retry_after"]
