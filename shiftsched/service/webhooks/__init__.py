"""Webhooks: telling an account's endpoints that its queued jobs ended (the outbox is in
``shiftsched.service.store.webhooks``; addresses, events and the sender are here)."""
