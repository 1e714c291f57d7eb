"""Webhooks: an account's endpoints, and the durable outbox of the events sent to them.

Why an outbox in the store: a job ends in whatever process runs it (a consumer, a web
worker, the reconciler), and a receiver may be down for hours. So nothing is sent where a
job ends. A sweep (:meth:`Webhooks.announce_ended_jobs`) puts each queued job that ended
into the outbox once per endpoint of its account, and marks the job announced in the same
transaction; a sender takes due deliveries (:meth:`Webhooks.take_due`, which leases them,
so two replicas never send one at once), sends them, and records every attempt
(:meth:`Webhooks.record_attempt`), retrying on :data:`RETRY_DELAYS` until the receiver
takes one or more than a day has passed. Delivery is at least once: the event id is the
receiver's way to drop a duplicate.
"""

from __future__ import annotations

import base64
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import aware, now
from shiftsched.service.store.tables import (
    jobs,
    ledger,
    webhook_attempts,
    webhook_deliveries,
    webhook_endpoints,
)

RETRY_DELAYS: Final = tuple(timedelta(seconds=s) for s in (5, 300, 1800, 7200, 18000, 36000, 36000))
"""The wait after each failed attempt (the schedule Standard Webhooks suggests): after
the eighth attempt, about 27 hours after the first, the delivery is given up."""
SEND_LEASE: Final = timedelta(seconds=60)
"""How long a taken delivery is the sender's before another may take it again."""


@dataclass(frozen=True)
class Endpoint:
    id: str
    account_id: str
    url: str
    description: str | None
    secret: str
    created_at: datetime


@dataclass(frozen=True)
class Delivery:
    """One event for one endpoint, with what its sender needs."""

    id: str
    endpoint_id: str
    url: str
    secret: str
    event_type: str
    payload: dict[str, Any]
    attempts: int
    created_at: datetime
    delivered_at: datetime | None = None
    given_up_at: datetime | None = None
    last_status: int | None = None
    last_error: str | None = None


def new_secret() -> str:
    """A signing secret in the Standard Webhooks form: ``whsec_`` and 24 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


class Webhooks:
    """Endpoints and deliveries on the service database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # ------------------------------------------------------------------ endpoints

    def create_endpoint(self, account_id: str, url: str, description: str | None) -> Endpoint:
        endpoint = Endpoint(uuid.uuid4().hex, account_id, url, description, new_secret(), now())
        with self.db.write() as conn:
            conn.execute(webhook_endpoints.insert().values(**endpoint.__dict__))
        return endpoint

    def endpoints(self, account_id: str) -> list[Endpoint]:
        query = (
            sa.select(webhook_endpoints)
            .where(webhook_endpoints.c.account_id == account_id)
            .order_by(webhook_endpoints.c.created_at, webhook_endpoints.c.id)
        )
        with self.db.read() as conn:
            return [_endpoint(row) for row in conn.execute(query)]

    def endpoint(self, account_id: str, endpoint_id: str) -> Endpoint | None:
        return next((e for e in self.endpoints(account_id) if e.id == endpoint_id), None)

    def endpoint_at(self, account_id: str, url: str) -> Endpoint | None:
        """The account's endpoint registered at ``url``, if any."""
        return next((e for e in self.endpoints(account_id) if e.url == url), None)

    def name_callback(self, job_id: str, endpoint_id: str) -> None:
        """The job's end is told to ``endpoint_id`` alone (its Callback-Url)."""
        with self.db.write() as conn:
            conn.execute(
                jobs.update().where(jobs.c.id == job_id).values(callback_endpoint_id=endpoint_id)
            )

    def rotate_secret(self, account_id: str, endpoint_id: str) -> Endpoint | None:
        """A new secret for the endpoint (deliveries from now on are signed with it)."""
        secret = new_secret()
        with self.db.write() as conn:
            done = conn.execute(
                webhook_endpoints.update()
                .where(_owned(account_id, endpoint_id))
                .values(secret=secret)
            )
        return self.endpoint(account_id, endpoint_id) if done.rowcount else None

    def delete_endpoint(self, account_id: str, endpoint_id: str) -> bool:
        """The endpoint and its deliveries and their attempts go."""
        with self.db.write() as conn:
            if (
                conn.execute(
                    sa.select(webhook_endpoints.c.id).where(_owned(account_id, endpoint_id))
                ).first()
                is None
            ):
                return False
            ids = sa.select(webhook_deliveries.c.id).where(
                webhook_deliveries.c.endpoint_id == endpoint_id
            )
            conn.execute(webhook_attempts.delete().where(webhook_attempts.c.delivery_id.in_(ids)))
            conn.execute(
                webhook_deliveries.delete().where(webhook_deliveries.c.endpoint_id == endpoint_id)
            )
            conn.execute(webhook_endpoints.delete().where(webhook_endpoints.c.id == endpoint_id))
        return True

    # ----------------------------------------------------------------- the outbox

    def enqueue(
        self, endpoint: Endpoint, event_type: str, data: dict[str, Any], job_id: str | None = None
    ) -> str:
        """Put one event for ``endpoint`` in the outbox, due now; its id."""
        with self.db.write() as conn:
            return _enqueue(conn, endpoint, event_type, data, job_id, now())

    def announce_ended_jobs(
        self, describe: Any, limit: int = 100, moment: datetime | None = None
    ) -> int:
        """Put each queued job that ended since its account registered an endpoint into
        the outbox, once per endpoint (``describe(job_row, charged_units)`` gives the
        event's type and data), and mark it announced; the number of jobs announced."""
        registered = sa.select(webhook_endpoints.c.account_id)
        query = (
            sa.select(jobs, ledger.c.state.label("hold"), ledger.c.units.label("hold_units"))
            .select_from(jobs.outerjoin(ledger, ledger.c.reservation_id == jobs.c.reservation_id))
            .where(jobs.c.status != "running", jobs.c.kind.is_(None), jobs.c.announced_at.is_(None))
            .where(jobs.c.account_id.in_(registered))
            .order_by(jobs.c.updated_at)
            .limit(limit)
        )
        with self.db.read() as conn:  # most sweeps find nothing: no write lock for them
            rows = conn.execute(query).all()
        if not rows:
            return 0
        moment = moment or now()
        announced = 0
        with self.db.write() as conn:
            for row in rows:
                unannounced = sa.and_(jobs.c.id == row.id, jobs.c.announced_at.is_(None))
                marked = conn.execute(jobs.update().where(unannounced).values(announced_at=moment))
                if marked.rowcount != 1:  # another replica's sweep was first
                    continue
                charged = int(row.hold_units) if row.hold == "captured" else 0
                event_type, data = describe(row, charged)
                for endpoint in _endpoints_for(conn, row, aware(row.created_at)):
                    _enqueue(conn, endpoint, event_type, data, row.id, moment)
                announced += 1
        return announced

    def take_due(self, limit: int = 20, moment: datetime | None = None) -> list[Delivery]:
        """Deliveries due now, each leased to the caller for :data:`SEND_LEASE`."""
        moment = moment or now()
        joined = webhook_deliveries.join(
            webhook_endpoints, webhook_endpoints.c.id == webhook_deliveries.c.endpoint_id
        )
        query = (
            sa.select(webhook_deliveries, webhook_endpoints.c.url, webhook_endpoints.c.secret)
            .select_from(joined)
            .where(webhook_deliveries.c.next_attempt_at <= moment)
            .order_by(webhook_deliveries.c.next_attempt_at)
            .limit(limit)
        )
        with self.db.read() as conn:  # most sweeps find nothing: no write lock for them
            rows = conn.execute(query).all()
        if not rows:
            return []
        taken = []
        with self.db.write() as conn:
            for row in rows:  # each leased only if still due: another sender may have it
                due = sa.and_(
                    webhook_deliveries.c.id == row.id,
                    webhook_deliveries.c.next_attempt_at <= moment,
                )
                leased = conn.execute(
                    webhook_deliveries.update()
                    .where(due)
                    .values(next_attempt_at=moment + SEND_LEASE)
                )
                if leased.rowcount == 1:
                    taken.append(_delivery(row))
        return taken

    def record_attempt(
        self,
        delivery: Delivery,
        *,
        status: int | None,
        error: str | None,
        milliseconds: int,
        moment: datetime | None = None,
    ) -> None:
        """One attempt of ``delivery``: taken (a 2xx status), or due again after its
        delay, or given up after the last one. Nothing, when the delivery went while it
        was sent (its endpoint was deleted, and its deliveries with it)."""
        moment = moment or now()
        number = delivery.attempts + 1
        taken = status is not None and 200 <= status < 300
        values: dict[str, Any] = {"attempts": number, "last_status": status, "last_error": error}
        if taken:
            values |= {"delivered_at": moment, "next_attempt_at": None}
        elif number > len(RETRY_DELAYS):
            values |= {"given_up_at": moment, "next_attempt_at": None}
        else:
            values["next_attempt_at"] = moment + RETRY_DELAYS[number - 1]
        with self.db.write() as conn:
            still = sa.select(webhook_deliveries.c.id).where(webhook_deliveries.c.id == delivery.id)
            if conn.execute(still.with_for_update()).first() is None:
                return
            conn.execute(
                webhook_attempts.insert().values(
                    delivery_id=delivery.id,
                    number=number,
                    at=moment,
                    status=status,
                    error=error,
                    milliseconds=milliseconds,
                )
            )
            conn.execute(
                webhook_deliveries.update()
                .where(webhook_deliveries.c.id == delivery.id)
                .values(**values)
            )

    def deliveries(
        self, account_id: str, endpoint_id: str, limit: int = 50
    ) -> list[dict[str, Any]]:
        """The endpoint's latest deliveries, newest first, each with its attempts."""
        query = (
            sa.select(webhook_deliveries)
            .where(
                webhook_deliveries.c.account_id == account_id,
                webhook_deliveries.c.endpoint_id == endpoint_id,
            )
            .order_by(webhook_deliveries.c.created_at.desc(), webhook_deliveries.c.id)
            .limit(limit)
        )
        with self.db.read() as conn:
            rows = conn.execute(query).all()
            attempts = _attempts(conn, [row.id for row in rows])
        return [_listed(row, attempts.get(row.id, [])) for row in rows]


def _owned(account_id: str, endpoint_id: str) -> Any:
    return sa.and_(
        webhook_endpoints.c.id == endpoint_id, webhook_endpoints.c.account_id == account_id
    )


def _endpoints_for(conn: Connection, job: Any, since: datetime) -> list[Endpoint]:
    """Who hears of ``job``: the endpoint it named, or else each endpoint of its account
    registered before ``since`` (the job's creation)."""
    query = sa.select(webhook_endpoints).where(webhook_endpoints.c.account_id == job.account_id)
    if job.callback_endpoint_id is not None:
        query = query.where(webhook_endpoints.c.id == job.callback_endpoint_id)
        return [_endpoint(row) for row in conn.execute(query)]
    return [e for e in map(_endpoint, conn.execute(query)) if e.created_at <= since]


def _enqueue(
    conn: Connection,
    endpoint: Endpoint,
    event_type: str,
    data: dict[str, Any],
    job_id: str | None,
    moment: datetime,
) -> str:
    event_id = "evt_" + uuid.uuid4().hex
    payload = {"type": event_type, "timestamp": moment.isoformat(), "data": data}
    conn.execute(
        webhook_deliveries.insert().values(
            id=event_id,
            endpoint_id=endpoint.id,
            account_id=endpoint.account_id,
            job_id=job_id,
            event_type=event_type,
            payload_json=payload,
            created_at=moment,
            attempts=0,
            next_attempt_at=moment,
        )
    )
    return event_id


def _attempts(conn: Connection, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    if not ids:
        return found
    query = (
        sa.select(webhook_attempts)
        .where(webhook_attempts.c.delivery_id.in_(ids))
        .order_by(webhook_attempts.c.number)
    )
    for row in conn.execute(query):
        found.setdefault(row.delivery_id, []).append(
            {
                "number": row.number,
                "at": aware(row.at).isoformat(),
                "status": row.status,
                "error": row.error,
                "milliseconds": row.milliseconds,
            }
        )
    return found


def _listed(row: Any, attempts: list[dict[str, Any]]) -> dict[str, Any]:
    state = "delivered" if row.delivered_at else "given_up" if row.given_up_at else "pending"
    return {
        "id": row.id,
        "event_type": row.event_type,
        "job_id": row.job_id,
        "state": state,
        "created_at": aware(row.created_at).isoformat(),
        "next_attempt_at": None
        if row.next_attempt_at is None
        else aware(row.next_attempt_at).isoformat(),
        "attempts": attempts,
    }


def _endpoint(row: Any) -> Endpoint:
    return Endpoint(
        row.id, row.account_id, row.url, row.description, row.secret, aware(row.created_at)
    )


def _delivery(row: Any) -> Delivery:
    return Delivery(
        id=row.id,
        endpoint_id=row.endpoint_id,
        url=row.url,
        secret=row.secret,
        event_type=row.event_type,
        payload=dict(row.payload_json),
        attempts=int(row.attempts),
        created_at=aware(row.created_at),
        last_status=row.last_status,
        last_error=row.last_error,
    )
