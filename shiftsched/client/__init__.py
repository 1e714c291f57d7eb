"""A typed Python client of the HTTP service: the engine's requests in, its answers out.

    from shiftsched.client import Client

    with Client("http://localhost:3000/v1/public", api_key="sk_...") as client:
        response = client.solve(request, progress=True)  # waits for a queued solve

Every operation of ``shiftsched.operations`` is a method (``solve``, ``plan``,
``replan``, ``recommend``, ``audit``, ``compare``, ``explain``, ``why``, ``validate``), with
``usage``, ``job``, ``progress`` and ``stop``. Each POST carries an ``Idempotency-Key`` of
its own, sent again on each of its retries (``shiftsched.client.http``); a 422
``validation-error`` is raised as :class:`shiftsched.errors.InvalidRequest`, any other
problem as :class:`ServiceProblem` (``shiftsched.client.problems``).

Needs the ``client`` extra (httpx, stamina); the bare library never imports this package.
"""

from shiftsched.client.calls import API_KEY_VARIABLE, DEFAULT_URL, Client
from shiftsched.client.http import Retries
from shiftsched.client.problems import ServiceProblem

__all__ = ["API_KEY_VARIABLE", "DEFAULT_URL", "Client", "Retries", "ServiceProblem"]
