"""One call to the service over httpx: the Bearer key, an ``Idempotency-Key`` made once
per call, and its retries.

Why the key is made here, once per call and not per attempt: a call whose answer was
lost on the network may have run and been charged; sent again with the same key, the
service answers the first call's answer and charges nothing more (docs/api.md,
"Retrying a charged call safely"). What is retried: a transport error (the call may or
may not have run), 503 (busy, or units held by the account's own solves) and a 429 that
says when to come back (the rate limit; the 429 without ``Retry-After`` is a spent
quota, where waiting will not help). A ``Retry-After`` sets the wait; otherwise the wait
grows exponentially (``stamina``).

Why a 409 ``idempotency-conflict`` is waited out apart, and not as one of those
attempts: it says the call's first attempt still runs on the service, which is no
fault; a synchronous solve may run a minute, and a few attempts two seconds apart would
give up on a call that is about to answer. So the call waits as each 409 says
(``Retry-After``) and sends the same key again, for as long as
``Retries.conflict_timeout`` allows, and then answers the first attempt's answer.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import stamina

from shiftsched.client.problems import ServiceProblem, problem_of, raise_for_problem, retry_after
from shiftsched.client.session import Answer, Session, transport_errors

IDEMPOTENCY_HEADER = "Idempotency-Key"
CONFLICT = 409  # idempotency-conflict: the first attempt still runs (waited out apart)
RETRIED = frozenset({CONFLICT, 503})
CONFLICT_WAIT_SECONDS = 2.0  # between two sends of a conflict that says no Retry-After


@dataclass(frozen=True)
class Retries:
    """How long one call keeps trying: at most ``attempts`` sends within ``timeout``
    seconds in all (None: no bound but the attempts), waits growing from
    ``wait_initial`` to ``wait_max`` unless the answer says how long.

    While the service answers 409 ``idempotency-conflict`` (the call's first attempt
    still runs), the call waits as told and sends again, up to ``conflict_timeout``
    seconds (and within ``timeout``, when set); these sends count against no attempts.
    The default is the service's lock on a key (10 minutes): past it, the service runs
    the call afresh."""

    attempts: int = 5
    timeout: float | None = None
    wait_initial: float = 0.5
    wait_max: float = 30.0
    conflict_timeout: float | None = 600.0


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
    """Calls to the service at ``url`` (its API root, ``.../v1/public``) over ``http``;
    ``sleep`` waits out a conflict (a test's own records what was asked)."""

    def __init__(
        self,
        url: str,
        api_key: str | None,
        http: Session,
        retries: Retries,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = url.rstrip("/")
        self.http = http
        self.retries = retries
        self.sleep = sleep
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def call(self, method: str, path: str, body: Any = None) -> Answer:
        """The successful answer to ``method path`` (with the JSON ``body``), after the
        retries and the conflicts waited out; the answer's exception
        (:mod:`shiftsched.client.problems`) otherwise. Every send of one POST carries
        the same idempotency key."""
        headers = dict(self.headers)
        if method == "POST":
            headers[IDEMPOTENCY_HEADER] = str(uuid.uuid4())
        settings = self.retries
        started = time.monotonic()
        bounds = [b for b in (settings.conflict_timeout, settings.timeout) if b is not None]
        while True:
            spent = time.monotonic() - started
            left = None if settings.timeout is None else settings.timeout - spent
            response = self._attempts(method, path, body, headers, left)
            if response.status_code != CONFLICT:
                break
            wait = retry_after(response)
            wait = CONFLICT_WAIT_SECONDS if wait is None else wait
            if bounds and time.monotonic() - started + wait > min(bounds):
                break  # the first attempt outran the bound: its 409 is raised
            self.sleep(wait)
        raise_for_problem(response)
        return response

    def _attempts(
        self, method: str, path: str, body: Any, headers: dict[str, str], timeout: float | None
    ) -> Answer:
        """One send and its retries (``stamina``, within ``timeout`` seconds): the answer
        that ended them, a 409 conflict included; the exception of the last, when every
        attempt failed."""
        settings = self.retries
        response: Answer | None = None
        for attempt in stamina.retry_context(
            on=retried,
            attempts=settings.attempts,
            timeout=None if timeout is None else max(timeout, 0.001),  # one send at least
            wait_initial=settings.wait_initial,
            wait_max=settings.wait_max,
        ):
            with attempt:
                response = cast(
                    Answer, self.http.request(method, self.url + path, json=body, headers=headers)
                )
                status = response.status_code
                if status != CONFLICT and (status in RETRIED or status == 429):
                    problem = problem_of(response)
                    if retried(problem):
                        raise problem
        assert response is not None  # the loop either answered or raised
        return response


__all__ = ["IDEMPOTENCY_HEADER", "Retries", "Transport", "retried", "retry_after"]
