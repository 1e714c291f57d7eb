"""Payment claims (x402, mpp): each payment is used for at most one solve.

Why apart: payments are not units. Each one is *claimed* once, by a key that names it
(the x402 authorization nonce, the mpp provider's payment id), before it is verified.
The key is the primary key of the `payments` table, so of two requests carrying the
same payment, concurrently or one after the other, exactly one gets the claim; the other
is refused as a replay. A claim is given back only when the payment was never settled
(rejected at verification, facilitator unreachable, solve not delivered), so the payer
can use it again.
"""

from __future__ import annotations

from typing import Literal, cast

import sqlalchemy as sa
from sqlalchemy import exc

from bento.store.database import Database
from bento.store.rows import now
from bento.tables import payments

PaymentState = Literal["verifying", "settling", "settled", "settle_failed"]


class Payments:
    """Claims of payments and how their settlement went."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def claim_payment(self, key: str, scheme: str, amount: str, request_id: str) -> bool:
        """Take a payment for this request; False if it was claimed before (a replay)."""
        if not 1 <= len(key) <= 200:
            raise ValueError("a payment key has 1 to 200 characters")
        moment = now()
        values = {
            "key": key,
            "scheme": scheme,
            "amount": amount,
            "request_id": request_id,
            "state": "verifying",
            "created_at": moment,
            "updated_at": moment,
        }
        try:
            with self.db.write() as conn:
                conn.execute(payments.insert().values(values))
        except exc.IntegrityError:
            return False
        return True

    def mark_payment(self, key: str, state: PaymentState, detail: str | None = None) -> bool:
        """Move a claimed payment on (settling, settled, settle_failed); False if unknown."""
        values = {"state": state, "detail": (detail or "")[:500] or None, "updated_at": now()}
        with self.db.write() as conn:
            changed = conn.execute(payments.update().where(payments.c.key == key).values(values))
        return bool(changed.rowcount == 1)

    def release_payment(self, key: str) -> bool:
        """Give back a claim that was never settled, so the payment can be used again."""
        with self.db.write() as conn:
            changed = conn.execute(
                payments.delete().where(payments.c.key == key, payments.c.state == "verifying")
            )
        return bool(changed.rowcount == 1)

    def payment_state(self, key: str) -> PaymentState | None:
        with self.db.read() as conn:
            state = conn.execute(
                sa.select(payments.c.state).where(payments.c.key == key)
            ).scalar_one_or_none()
        return cast(PaymentState | None, state)
