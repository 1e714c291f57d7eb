"""The webhook outbox's attempts: one recorded per try, and none for a delivery whose
endpoint was deleted while it was being sent (its deliveries go with it), which must not
fail the sender's sweep. On a SQLite file and on PostgreSQL."""

from __future__ import annotations

import sqlalchemy as sa

from shiftsched.service.store import Store
from shiftsched.service.store.tables import webhook_attempts


def attempts(store: Store) -> int:
    with store.db.read() as conn:
        return int(
            conn.execute(sa.select(sa.func.count()).select_from(webhook_attempts)).scalar_one()
        )


def test_an_attempt_is_recorded_and_one_whose_endpoint_went_is_dropped(store: Store) -> None:
    account = store.accounts.create_account("hooks", tier="pro")
    endpoint = store.webhooks.create_endpoint(account.id, "https://hooks.example.org/a", None)
    store.webhooks.enqueue(endpoint, "webhook.test", {"hello": "world"})
    store.webhooks.enqueue(endpoint, "webhook.test", {"hello": "again"})
    first, second = store.webhooks.take_due()
    before = attempts(store)
    store.webhooks.record_attempt(first, status=503, error=None, milliseconds=5)
    assert attempts(store) == before + 1
    assert store.webhooks.delete_endpoint(account.id, endpoint.id)  # while second is sent
    store.webhooks.record_attempt(second, status=200, error=None, milliseconds=5)
    assert attempts(store) == before
    assert store.webhooks.deliveries(account.id, endpoint.id) == []
