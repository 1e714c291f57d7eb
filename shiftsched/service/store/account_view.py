"""An account as its signed-in user sees it: the balance, its keys, the units per day.

Why apart from ``shiftsched.service.store.accounts``: that is the operator's and the
request path's view (any key by its hash or prefix, tiers, top-ups); this one is scoped
to one account by every call, so a user can list and disable only their own keys, and
sees each key by its display prefix, never its hash.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

import sqlalchemy as sa

from shiftsched.service.store.accounts import Accounts
from shiftsched.service.store.database import Database
from shiftsched.service.store.rows import Account, account_from_row, aware, now
from shiftsched.service.store.tables import accounts, api_keys, ledger


@dataclass(frozen=True)
class KeyInfo:
    id: str
    prefix: str
    label: str | None
    kind: Literal["manual", "connection"]
    disabled: bool
    created_at: datetime
    last_used_at: datetime | None


class AccountView:
    """One account's balance, keys and usage, for the user signed in to it."""

    def __init__(self, db: Database, accounts: Accounts) -> None:
        self.db = db
        self.accounts = accounts

    def account(self, account_id: str) -> Account:
        with self.db.read() as conn:
            row = conn.execute(sa.select(accounts).where(accounts.c.id == account_id)).one()
        return account_from_row(row)

    def keys(self, account_id: str) -> list[KeyInfo]:
        query = (
            sa.select(api_keys)
            .where(api_keys.c.account_id == account_id)
            .order_by(api_keys.c.created_at.desc())
        )
        with self.db.read() as conn:
            return [_key(row) for row in conn.execute(query)]

    def create_key(self, account_id: str, label: str | None) -> str:
        label = (label or "").strip()[:100] or None
        return self.accounts.issue_key(account_id, label=label)

    def disable_key(self, account_id: str, key_id: str) -> bool:
        """Disable one of the account's own keys; False for any other id."""
        with self.db.write() as conn:
            changed = conn.execute(
                api_keys.update()
                .where(api_keys.c.id == key_id, api_keys.c.account_id == account_id)
                .values(disabled=True)
            )
        return bool(changed.rowcount == 1)

    def units_per_day(self, account_id: str, days: int = 30) -> list[tuple[date, int]]:
        """Units captured per day over the last ``days`` days, oldest first, zeros kept."""
        today = now().date()
        first = today - timedelta(days=days - 1)
        query = sa.select(ledger.c.units, ledger.c.settled_at).where(
            ledger.c.account_id == account_id,
            ledger.c.state == "captured",
            ledger.c.settled_at >= datetime.combine(first, datetime.min.time(), UTC),
        )
        totals = {first + timedelta(days=i): 0 for i in range(days)}
        with self.db.read() as conn:
            for units, settled_at in conn.execute(query):
                day = aware(settled_at).date()
                if day in totals:
                    totals[day] += int(units)
        return sorted(totals.items())


def _key(row: Any) -> KeyInfo:
    return KeyInfo(
        id=row.id,
        prefix=row.prefix,
        label=row.label,
        kind="connection" if row.kind == "connection" else "manual",
        disabled=bool(row.disabled),
        created_at=aware(row.created_at),
        last_used_at=aware(row.last_used_at) if row.last_used_at else None,
    )
