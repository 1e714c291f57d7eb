"""Idempotency keys: one charged call per key, answered again when it is retried.

Why a table of its own: a client whose call timed out on the network cannot know whether
it ran, so it sends it again with the same ``Idempotency-Key``. The first call claims the
key (per account and operation) in one transaction, with the fingerprint of its body and
the id of the job it will run as; a retry then finds the claim and is answered from it.
The job id is what makes a crash safe: a call whose service died after charging left its
job ended and charged, so a retry answers that job's answer instead of running (and
charging) again; a call that died before it charged left no job, so once its lock has
passed a retry runs afresh (``shiftsched.service.http.idempotency`` says what each case answers).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import aware, charged_for, now
from shiftsched.service.store.tables import idempotency_keys, jobs


@dataclass(frozen=True)
class KeyedCall:
    """A claimed key: the call it stands for, and its answer once it ended."""

    account_id: str
    operation: str
    key: str
    fingerprint: str
    job_id: str
    created_at: datetime
    expires_at: datetime
    locked_until: datetime
    status_code: int | None = None
    headers: dict[str, str] | None = None
    body: bytes | None = None

    @property
    def answered(self) -> bool:
        return self.status_code is not None


@dataclass(frozen=True)
class Claim:
    """The outcome of claiming a key: ``won`` (this call runs, as ``call.job_id``), or
    the call that holds it."""

    won: bool
    call: KeyedCall


class Idempotency:
    """Idempotency keys on the service database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def claim(
        self,
        account_id: str,
        operation: str,
        key: str,
        fingerprint: str,
        *,
        ttl: timedelta,
        lease: timedelta,
        moment: datetime | None = None,
    ) -> Claim:
        """Claim ``key`` for a new call, unless a call holds it: one that has not expired
        and is answered, locked, or whose job was recorded (running, or ended)."""
        moment = moment or now()
        where = _key(account_id, operation, key)
        try:
            with self.db.write() as conn:
                row = conn.execute(sa.select(idempotency_keys).where(where).with_for_update())
                held = row.first()
                if held is not None and not _free(conn, held, moment):
                    return Claim(False, _call(held))
                if held is not None:
                    conn.execute(idempotency_keys.delete().where(where))
                fresh = {
                    "account_id": account_id,
                    "operation": operation,
                    "idempotency_key": key,
                    "fingerprint": fingerprint,
                    "job_id": uuid.uuid4().hex,
                    "created_at": moment,
                    "expires_at": moment + ttl,
                    "locked_until": moment + lease,
                }
                conn.execute(idempotency_keys.insert().values(**fresh))
        except sa.exc.IntegrityError:  # another call claimed it first (PostgreSQL)
            held = self._held(where)
            if held is None:
                raise
            return Claim(False, _call(held))
        return Claim(True, _call(fresh))

    def remember(
        self, call: KeyedCall, status_code: int, headers: dict[str, str], body: bytes
    ) -> None:
        """Keep the answer the call was sent (only while the key is still its own)."""
        with self.db.write() as conn:
            conn.execute(
                idempotency_keys.update()
                .where(_key(call.account_id, call.operation, call.key))
                .where(idempotency_keys.c.job_id == call.job_id)
                .values(status_code=status_code, headers_json=headers, body=body)
            )

    def forget(self, call: KeyedCall) -> None:
        """Free the key of a call that ended charging nothing, so a retry runs it."""
        with self.db.write() as conn:
            conn.execute(
                idempotency_keys.delete()
                .where(_key(call.account_id, call.operation, call.key))
                .where(idempotency_keys.c.job_id == call.job_id)
            )

    def purge_expired(self, moment: datetime | None = None) -> int:
        """Delete keys past their expiry; the number removed."""
        with self.db.write() as conn:
            gone = conn.execute(
                idempotency_keys.delete().where(idempotency_keys.c.expires_at <= (moment or now()))
            )
        return int(gone.rowcount)

    def _held(self, where: Any) -> Row[Any] | None:
        with self.db.read() as conn:
            return conn.execute(sa.select(idempotency_keys).where(where)).first()


def _key(account_id: str, operation: str, key: str) -> Any:
    return sa.and_(
        idempotency_keys.c.account_id == account_id,
        idempotency_keys.c.operation == operation,
        idempotency_keys.c.idempotency_key == key,
    )


def _free(conn: Connection, held: Row[Any], moment: datetime) -> bool:
    """Whether a held key may be claimed anew: it expired, or its call left no answer
    and charged nothing: it recorded no job and its lock passed (it died before it held
    anything), or its job ended uncharged (the service died mid-run and the reconciler
    ended the job ``interrupted``)."""
    if aware(held.expires_at) <= moment:
        return True
    if held.status_code is not None:
        return False
    query = sa.select(jobs.c.kind, jobs.c.status, jobs.c.response_json)
    job = conn.execute(query.where(jobs.c.id == held.job_id)).first()
    if job is None:
        return aware(held.locked_until) <= moment
    return job.status != "running" and not charged_for(job.kind, job.status, job.response_json)


def _call(row: Any) -> KeyedCall:
    values = row if isinstance(row, dict) else row._mapping
    return KeyedCall(
        account_id=values["account_id"],
        operation=values["operation"],
        key=values["idempotency_key"],
        fingerprint=values["fingerprint"],
        job_id=values["job_id"],
        created_at=aware(values["created_at"]),
        expires_at=aware(values["expires_at"]),
        locked_until=aware(values["locked_until"]),
        status_code=values.get("status_code"),
        headers=values.get("headers_json"),
        body=values.get("body"),
    )
