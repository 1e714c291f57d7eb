"""Payment claims (x402, mpp): each payment is used for at most one solve.

Why apart: payments are not units. Each one is *claimed* once, by a key that names it
(the x402 authorization: chain, asset, payer and nonce; the mpp provider's payment id),
before it is verified. The key is the primary key of the `payments` table, so of two
requests carrying the same payment, concurrently or one after the other, exactly one
gets the claim; the other is refused as a replay. A claim is given back only when the
payment was never settled (rejected at verification, facilitator unreachable, solve not
delivered, settlement refused outright), so the payer can use it again.

Why a lease: the request holding a claim can die (a SIGKILL, a lost host) before it
gives the claim back. A claim in ``verifying`` has settled nothing, so once its lease
has run out another request may take it over, in one conditional UPDATE (never a
SELECT then an INSERT), and the payment is verified afresh. Every later step of the
first holder is conditional on the claim still being its own (``request_id``), so a
holder that outlived its lease can neither settle nor give back a claim that is no
longer its own. A claim in ``settling`` is never taken over: the facilitator or
provider may have taken the money, and only they can say. Where one can (the mpp
provider shows a payment captured or still authorized), a claim left there past its
lease is resolved: given back when no money moved, recorded ``settled`` when it did
(:meth:`Payments.resolve_stale_settling`); otherwise it waits for an operator.

Why ``settle_with``: a settlement that got no verdict (facilitator unreachable) after
the result was delivered stays *held* in ``settle_failed`` with what settling needs,
and is retried (``shiftsched.service.billing.payments.resettle``) until the facilitator or provider
answers; the retrier takes each held claim on a lease too, so two never settle one at once.

Why the Idempotency-Key columns: a paid call has no account to keep its key under, so
its claim carries the key, operation and body fingerprint it was sent with, and once
delivered the answer itself (:meth:`Payments.remember_paid_answer`). A retry with the same
payment and key is then answered from the claim instead of being refused as a replay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final, Literal, cast

import sqlalchemy as sa
from sqlalchemy import exc

from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import aware, now
from shiftsched.service.store.tables import payments

PaymentState = Literal["verifying", "settling", "settled", "settle_failed"]

DEFAULT_LEASE_SECONDS: Final = 300.0
"""How long a claim may stay in flight: covers verification (10 s by default), the wait
for a solver and a synchronous solve (at most 30 s) many times over."""
RETRY_SETTLE_AFTER_SECONDS: Final = 60.0
"""How long a held settlement rests between two tries."""


@dataclass(frozen=True)
class HeldSettlement:
    """A delivered solve whose payment is not settled yet, and what settling needs."""

    key: str
    scheme: str
    settle_with: str
    detail: str | None


@dataclass(frozen=True)
class PaidKey:
    """The Idempotency-Key a paid call was sent with: per payment, for one operation
    and one body (its fingerprint)."""

    operation: str
    key: str
    fingerprint: str


@dataclass(frozen=True)
class KeyedPayment:
    """A payment's claim as a retry of its call sees it: the key it was claimed with,
    whether it is still in flight, and the answer once it was delivered."""

    state: PaymentState
    keyed: PaidKey | None
    in_flight: bool  # verifying or settling, within its lease
    status_code: int | None
    headers: dict[str, str] | None
    body: bytes | None

    @property
    def answered(self) -> bool:
        return self.status_code is not None


class Payments:
    """Claims of payments and how their settlement went."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def claim_payment(
        self,
        key: str,
        scheme: str,
        amount: str,
        request_id: str,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        keyed: PaidKey | None = None,
    ) -> bool:
        """Take a payment for this request (sent with the Idempotency-Key ``keyed``, if
        any); False if it is claimed and that claim is settled, settling, or in flight
        within its lease (a replay)."""
        if not 1 <= len(key) <= 200:
            raise ValueError("a payment key has 1 to 200 characters")
        for _ in range(2):  # a stale claim deleted between the two statements: once more
            moment = now()
            values = {
                "key": key,
                "scheme": scheme,
                "amount": amount,
                "request_id": request_id,
                "state": "verifying",
                "detail": None,
                "created_at": moment,
                "idempotency_key": keyed.key if keyed else None,
                "operation": keyed.operation if keyed else None,
                "fingerprint": keyed.fingerprint if keyed else None,
                "updated_at": moment,
                "lease_until": moment + timedelta(seconds=lease_seconds),
            }
            try:
                with self.db.write() as conn:
                    conn.execute(payments.insert().values(values))
                return True
            except exc.IntegrityError:
                pass
            taken = self._take_over_stale(key, values, moment, lease_seconds)
            if taken is not None:
                return taken
        return False

    def _take_over_stale(
        self, key: str, values: Mapping[str, object], moment: datetime, lease_seconds: float
    ) -> bool | None:
        """Take the claim of ``key`` if it is in ``verifying`` past its lease: True when
        taken, False when the claim stands, None when there is no claim any more."""
        stale = _past_lease(moment, lease_seconds)
        update = {name: value for name, value in values.items() if name != "key"}
        update["settle_with"] = None
        with self.db.write() as conn:
            changed = conn.execute(
                payments.update()
                .where(payments.c.key == key, payments.c.state == "verifying", stale)
                .values(update)
            )
            if changed.rowcount == 1:
                return True
            exists = conn.execute(
                sa.select(payments.c.key).where(payments.c.key == key)
            ).scalar_one_or_none()
        return False if exists is not None else None

    def start_settling(
        self,
        key: str,
        request_id: str,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        settle_with: str | None = None,
    ) -> bool:
        """Move this request's claim from ``verifying`` to ``settling`` with a fresh
        lease, recording what settling needs; False when the claim is no longer this
        request's (its lease ran out and another request took it), so this request
        must not settle."""
        moment = now()
        values = {
            "state": "settling",
            "updated_at": moment,
            "lease_until": moment + timedelta(seconds=lease_seconds),
            "settle_with": settle_with,
        }
        with self.db.write() as conn:
            changed = conn.execute(
                payments.update()
                .where(
                    payments.c.key == key,
                    payments.c.request_id == request_id,
                    payments.c.state == "verifying",
                )
                .values(values)
            )
        return bool(changed.rowcount == 1)

    def mark_payment(self, key: str, state: PaymentState, detail: str | None = None) -> bool:
        """Move a claimed payment on (settling, settled, settle_failed); False if unknown.
        ``settle_failed`` keeps what settling needs, due for a retry at once; any other
        state drops it."""
        moment = now()
        values: dict[str, object] = {
            "state": state,
            "detail": _detail(detail),
            "updated_at": moment,
        }
        if state == "settle_failed":
            values["lease_until"] = moment  # held: due for its first retry at once
        else:
            values["settle_with"] = None
        with self.db.write() as conn:
            changed = conn.execute(payments.update().where(payments.c.key == key).values(values))
        return bool(changed.rowcount == 1)

    def held_settlements(self, scheme: str, limit: int) -> list[HeldSettlement]:
        """Delivered solves of ``scheme`` whose settlement is due for another try."""
        moment = now()
        with self.db.read() as conn:
            rows = conn.execute(
                sa.select(
                    payments.c.key, payments.c.scheme, payments.c.settle_with, payments.c.detail
                )
                .where(
                    payments.c.scheme == scheme,
                    payments.c.state == "settle_failed",
                    payments.c.settle_with.is_not(None),
                    sa.or_(payments.c.lease_until.is_(None), payments.c.lease_until < moment),
                )
                .order_by(payments.c.updated_at)
                .limit(limit)
            ).all()
        return [HeldSettlement(row.key, row.scheme, row.settle_with, row.detail) for row in rows]

    def take_held(self, key: str, holder: str, lease_seconds: float) -> bool:
        """Take a held settlement to try it; False when another retrier has it or it is
        no longer held (settled meanwhile)."""
        moment = now()
        with self.db.write() as conn:
            changed = conn.execute(
                payments.update()
                .where(
                    payments.c.key == key,
                    payments.c.state == "settle_failed",
                    payments.c.settle_with.is_not(None),
                    sa.or_(payments.c.lease_until.is_(None), payments.c.lease_until < moment),
                )
                .values(request_id=holder, lease_until=moment + timedelta(seconds=lease_seconds))
            )
        return bool(changed.rowcount == 1)

    def finish_held(
        self, key: str, holder: str, state: PaymentState, detail: str | None, *, again: bool
    ) -> bool:
        """Record a retried settlement: ``settled``, or ``settle_failed`` held for one
        more try (``again``) or for good (refused outright: nothing left to retry)."""
        moment = now()
        values: dict[str, object] = {
            "state": state,
            "detail": _detail(detail),
            "updated_at": moment,
        }
        if again:
            values["lease_until"] = moment + timedelta(seconds=RETRY_SETTLE_AFTER_SECONDS)
        else:
            values["settle_with"] = None
        with self.db.write() as conn:
            changed = conn.execute(
                payments.update()
                .where(payments.c.key == key, payments.c.request_id == holder)
                .values(values)
            )
        return bool(changed.rowcount == 1)

    def release_payment(
        self, key: str, request_id: str | None = None, *, settling: bool = False
    ) -> bool:
        """Give back a claim that was never settled, so the payment can be used again.

        With ``request_id``, only that request's claim is given back (a holder past its
        lease must not give back its successor's). ``settling`` also gives back a claim
        whose settlement the facilitator or provider refused outright: no money moved.
        """
        states = ("verifying", "settling") if settling else ("verifying",)
        conditions = [payments.c.key == key, payments.c.state.in_(states)]
        if request_id is not None:
            conditions.append(payments.c.request_id == request_id)
        with self.db.write() as conn:
            changed = conn.execute(payments.delete().where(*conditions))
        return bool(changed.rowcount == 1)

    def keyed_payment(self, key: str) -> KeyedPayment | None:
        """The claim of payment ``key`` as a retry of its call sees it; None if unclaimed."""
        moment = now()
        with self.db.read() as conn:
            row = conn.execute(sa.select(payments).where(payments.c.key == key)).first()
        if row is None:
            return None
        keyed = None
        if row.idempotency_key is not None:
            keyed = PaidKey(row.operation, row.idempotency_key, row.fingerprint)
        lease = row.lease_until
        leased = lease is not None and aware(lease) > moment
        return KeyedPayment(
            state=cast(PaymentState, row.state),
            keyed=keyed,
            in_flight=row.state in ("verifying", "settling") and leased,
            status_code=row.answer_status,
            headers=row.answer_headers_json,
            body=row.answer_body,
        )

    def remember_paid_answer(
        self, key: str, keyed: PaidKey, status_code: int, headers: dict[str, str], body: bytes
    ) -> bool:
        """Keep the answer a delivered paid call was sent, while its claim is still the
        one made with ``keyed``; False when it is not (given back, or claimed anew)."""
        with self.db.write() as conn:
            changed = conn.execute(
                payments.update()
                .where(
                    payments.c.key == key,
                    payments.c.idempotency_key == keyed.key,
                    payments.c.operation == keyed.operation,
                    payments.c.fingerprint == keyed.fingerprint,
                    payments.c.state.in_(("settled", "settle_failed")),
                )
                .values(
                    answered_at=now(),
                    answer_status=status_code,
                    answer_headers_json=headers,
                    answer_body=body,
                )
            )
        return bool(changed.rowcount == 1)

    def purge_paid_answers(self, ttl: timedelta, moment: datetime | None = None) -> int:
        """Drop the answers kept for retries once they are ``ttl`` old (the claim itself
        stays: a payment buys one call for good); the number dropped."""
        cutoff = (moment or now()) - ttl
        with self.db.write() as conn:
            gone = conn.execute(
                payments.update()
                .where(payments.c.answered_at.is_not(None), payments.c.answered_at <= cutoff)
                .values(
                    idempotency_key=None,
                    operation=None,
                    fingerprint=None,
                    answered_at=None,
                    answer_status=None,
                    answer_headers_json=None,
                    answer_body=None,
                )
            )
        return int(gone.rowcount)

    def payment_state(self, key: str) -> PaymentState | None:
        with self.db.read() as conn:
            state = conn.execute(
                sa.select(payments.c.state).where(payments.c.key == key)
            ).scalar_one_or_none()
        return cast(PaymentState | None, state)

    def stale_settling(self, key: str, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> bool:
        """Whether the claim of ``key`` was left in ``settling`` past its lease: its
        holder died while settling."""
        moment = now()
        with self.db.read() as conn:
            found = conn.execute(
                sa.select(payments.c.key).where(
                    payments.c.key == key,
                    payments.c.state == "settling",
                    _past_lease(moment, lease_seconds),
                )
            ).scalar_one_or_none()
        return found is not None

    def resolve_stale_settling(
        self, key: str, moved: bool, detail: str, lease_seconds: float = DEFAULT_LEASE_SECONDS
    ) -> bool:
        """Close a claim left in ``settling`` past its lease, once the provider has said
        whether its money moved: given back when it did not (the payment can pay a
        retry), ``settled`` with ``detail`` when it did. False when the claim is no
        longer stale (another request resolved it first)."""
        moment = now()
        stale = (
            payments.c.key == key,
            payments.c.state == "settling",
            _past_lease(moment, lease_seconds),
        )
        with self.db.write() as conn:
            if moved:
                values = {"state": "settled", "detail": _detail(detail), "updated_at": moment}
                changed = conn.execute(payments.update().where(*stale).values(values))
            else:
                changed = conn.execute(payments.delete().where(*stale))
        return bool(changed.rowcount == 1)

    def stale_settlements(self, older_than: datetime) -> list[tuple[str, str, str]]:
        """(key, scheme, request_id) of claims left in ``settling`` past their lease (or
        last touched before ``older_than`` when they have none): their holder died while
        settling, and only the facilitator or provider can say whether money moved."""
        moment = now()
        stale = sa.or_(
            payments.c.lease_until < moment,
            sa.and_(payments.c.lease_until.is_(None), payments.c.updated_at < older_than),
        )
        with self.db.read() as conn:
            rows = conn.execute(
                sa.select(payments.c.key, payments.c.scheme, payments.c.request_id)
                .where(payments.c.state == "settling", stale)
                .order_by(payments.c.key)
            ).all()
        return [(row.key, row.scheme, row.request_id) for row in rows]


def _detail(detail: str | None) -> str | None:
    return (detail or "")[:500] or None


def _past_lease(moment: datetime, lease_seconds: float) -> sa.ColumnElement[bool]:
    """The claim's lease has run out at ``moment``; a claim written before leases
    existed has none, and counts ``lease_seconds`` from its last change."""
    return sa.or_(
        payments.c.lease_until < moment,
        sa.and_(
            payments.c.lease_until.is_(None),
            payments.c.updated_at < moment - timedelta(seconds=lease_seconds),
        ),
    )
