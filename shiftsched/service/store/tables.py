"""The database schema: every table of the service, on one ``MetaData``.

Kept apart from the code that uses it so that the billing store (``shiftsched.service.store``) and
the dashboard's and OAuth's repositories (users, sign-in sessions, connected apps, tokens)
share one schema and one ``migrate``. Columns added after a table first shipped are nullable, so
``shiftsched.service.store.Store.migrate`` can add them to an existing database in place.
"""

from __future__ import annotations

from typing import Final

import sqlalchemy as sa

DISPLAY_PREFIX_LENGTH: Final = 16
"""`sk_live_` plus 8 hex characters: enough to tell keys apart in a listing."""
JOB_NAME_LENGTH: Final = 200
"""A job's name is cut to this many characters."""

metadata = sa.MetaData()

accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("tier", sa.String(16), nullable=False),
    sa.Column("free_quota_remaining", sa.BigInteger, nullable=False),
    sa.Column("balance_units", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("tier IN ('basic', 'pro')", name="ck_accounts_tier"),
    sa.CheckConstraint("free_quota_remaining >= 0", name="ck_accounts_free_quota"),
    sa.CheckConstraint("balance_units >= 0", name="ck_accounts_balance"),
)

api_keys = sa.Table(
    "api_keys",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("account_id", sa.ForeignKey("accounts.id"), nullable=False, index=True),
    sa.Column("prefix", sa.String(DISPLAY_PREFIX_LENGTH), nullable=False, index=True),
    sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("disabled", sa.Boolean, nullable=False, default=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("label", sa.String(100), nullable=True),
    sa.Column("kind", sa.String(16), nullable=True),  # manual (None) or connection
    sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
)

ledger = sa.Table(
    "ledger",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("account_id", sa.ForeignKey("accounts.id"), nullable=False, index=True),
    sa.Column("reservation_id", sa.String(128), nullable=False, unique=True),
    sa.Column("units", sa.BigInteger, nullable=False),
    sa.Column("free_part", sa.BigInteger, nullable=False),
    sa.Column("balance_part", sa.BigInteger, nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
    # The hold's lease (added later, so nullable): past it, a hold still reserved is settled
    # by the reconciler (shiftsched.service.store.reconcile). NULL: a queued job's hold, which
    # follows its job (shiftsched.service.solving.jobs), or a row written before leases existed.
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
    # What the units were held for: the operation of a synchronous call (solve, plan,
    # replan, recommend, explain, why), each with its job row, or job (a queued job); NULL
    # on rows written before it was recorded.
    sa.Column("purpose", sa.String(16), nullable=True),
    sa.CheckConstraint("state IN ('reserved', 'captured', 'released')", name="ck_ledger_state"),
    sa.CheckConstraint(
        "free_part >= 0 AND balance_part >= 0 AND units = free_part + balance_part",
        name="ck_ledger_parts",
    ),
    sa.Index("ix_ledger_state_expires_at", "state", "expires_at"),  # the reconciler's query
)

jobs = sa.Table(
    "jobs",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("account_id", sa.ForeignKey("accounts.id"), nullable=False, index=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("units_reserved", sa.BigInteger, nullable=False),
    sa.Column("reservation_id", sa.String(128), nullable=True),
    sa.Column("request_json", sa.JSON, nullable=False),
    sa.Column("response_json", sa.JSON, nullable=True),
    sa.Column("error_code", sa.String(64), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    # What the dashboard shows of a job without reading its bodies (added later: nullable).
    sa.Column("key_id", sa.String(32), nullable=True),  # the key that asked for it
    sa.Column(
        "size", sa.BigInteger, nullable=True
    ),  # the request's size (shiftsched.contract.size)
    sa.Column("objective", sa.Float, nullable=True),  # the roster's, once completed
    # A queued solve's progress while it solves
    # (shiftsched.service.store.jobs.Jobs.record_progress), and when its client asked to stop it
    # (Jobs.stop_job); added later, so nullable.
    sa.Column("progress_json", sa.JSON, nullable=True),
    sa.Column("stop_requested_at", sa.DateTime(timezone=True), nullable=True),
    # The run of the job now under way (NULL: the first; a consumer that died gets its job
    # run once more, shiftsched.service.solving.jobs) and when that run's solving process last wrote
    # progress (its heartbeat); added later, so nullable.
    sa.Column("attempt", sa.Integer, nullable=True),
    sa.Column("progress_at", sa.DateTime(timezone=True), nullable=True),
    # How the job runs: NULL for a queued job (the queue's consumers run it and their sweep
    # settles it), "sync" for a synchronous solve recorded before it solves, so its charge
    # traces to a job and a crash leaves a record the reconciler settles; added later.
    sa.Column("kind", sa.String(8), nullable=True),
    # What a queued job runs, each named module:function: the engine's parser of its stored
    # body and the engine function it solves with (shiftsched.service.solving.jobs). NULL: a solve
    # (shiftsched.contract.parse:parse_request, shiftsched.solving.solve:solve), as every job was
    # before plans queued too; added later, so nullable.
    sa.Column("parse", sa.String(200), nullable=True),
    sa.Column("call", sa.String(200), nullable=True),
    # Which operation the job was (the purpose of its hold: solve, plan, replan, recommend,
    # explain, why) and a name a person recognises, derived from its request
    # (shiftsched.service.http.job_names); NULL on rows written before every charge kept a job,
    # which were solves or queued plans (their ``call`` tells which). Added later, so nullable.
    sa.Column("operation", sa.String(16), nullable=True),
    sa.Column("name", sa.String(JOB_NAME_LENGTH), nullable=True),
    # When the job's end was put in its account's webhook outbox (a queued job that ended
    # after the account registered an endpoint; shiftsched.service.store.webhooks); added
    # later, so nullable.
    sa.Column("announced_at", sa.DateTime(timezone=True), nullable=True),
    # The one webhook endpoint the job named (its Callback-Url); NULL: every endpoint of its
    # account hears of it. Added later, so nullable.
    sa.Column("callback_endpoint_id", sa.String(32), nullable=True),
    sa.CheckConstraint("status IN ('running', 'completed', 'failed')", name="ck_jobs_status"),
    sa.Index("ix_jobs_reservation_id", "reservation_id"),
)

payments = sa.Table(
    "payments",
    metadata,
    sa.Column("key", sa.String(200), primary_key=True),
    sa.Column("scheme", sa.String(16), nullable=False),
    sa.Column("amount", sa.String(80), nullable=False),
    sa.Column("request_id", sa.String(64), nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("detail", sa.String(500), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    # Until when the request holding the claim may keep it in flight (verifying,
    # settling); NULL on rows written before leases existed (their updated_at counts).
    sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
    # What settling needs again (the credential as sent, the units and resource it paid):
    # kept while a settlement is unsettled, so it can be retried after a restart.
    sa.Column("settle_with", sa.Text, nullable=True),
    # A paid call sent with an Idempotency-Key (shiftsched.service.http.idempotency): the
    # key, operation and body fingerprint it was claimed with, and once delivered, the
    # answer as it was sent, so that a retry with the same payment is answered again.
    sa.Column("idempotency_key", sa.String(255), nullable=True),
    sa.Column("operation", sa.String(32), nullable=True),
    sa.Column("fingerprint", sa.String(64), nullable=True),
    sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("answer_status", sa.Integer, nullable=True),
    sa.Column("answer_headers_json", sa.JSON, nullable=True),
    sa.Column("answer_body", sa.LargeBinary, nullable=True),
    sa.CheckConstraint(
        "state IN ('verifying', 'settling', 'settled', 'settle_failed')",
        name="ck_payments_state",
    ),
)

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("email", sa.String(254), nullable=False, unique=True),
    sa.Column("password_hash", sa.String(200), nullable=False),
    sa.Column("account_id", sa.ForeignKey("accounts.id"), nullable=False, index=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

web_sessions = sa.Table(
    "web_sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
)

oauth_clients = sa.Table(
    "oauth_clients",
    metadata,
    sa.Column("client_id", sa.String(64), primary_key=True),
    sa.Column("info_json", sa.JSON, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

oauth_requests = sa.Table(
    "oauth_requests",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("client_id", sa.ForeignKey("oauth_clients.client_id"), nullable=False),
    sa.Column("params_json", sa.JSON, nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
)

connections = sa.Table(
    "connections",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("account_id", sa.ForeignKey("accounts.id"), nullable=False, index=True),
    sa.Column("client_id", sa.ForeignKey("oauth_clients.client_id"), nullable=False),
    sa.Column("api_key_id", sa.ForeignKey("api_keys.id"), nullable=False),
    sa.Column("scopes", sa.String(200), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
)

oauth_codes = sa.Table(
    "oauth_codes",
    metadata,
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("connection_id", sa.ForeignKey("connections.id"), nullable=False),
    sa.Column("params_json", sa.JSON, nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    # Set when the code buys its tokens; the row is kept while they may live, so that a
    # replay of the code is recognised and revokes them (RFC 6749 §4.1.2).
    sa.Column("spent_at", sa.DateTime(timezone=True), nullable=True),
)

oauth_tokens = sa.Table(
    "oauth_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("connection_id", sa.ForeignKey("connections.id"), nullable=False, index=True),
    sa.Column("scopes", sa.String(200), nullable=False),
    sa.Column("resource", sa.String(500), nullable=True),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked", sa.Boolean, nullable=False, default=False),
    # The authorization code the token descends from (through refreshes); None for tokens
    # issued before this was recorded.
    sa.Column("code_hash", sa.String(64), nullable=True),
    sa.CheckConstraint("kind IN ('access', 'refresh')", name="ck_oauth_tokens_kind"),
)

idempotency_keys = sa.Table(
    "idempotency_keys",
    metadata,
    # One charged call an API client may retry safely (shiftsched.service.store.idempotency):
    # the key it sent, per account and operation, the body's fingerprint, the job the call
    # runs as, and once it has ended the answer as it was sent.
    sa.Column("account_id", sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("operation", sa.String(32), primary_key=True),
    sa.Column("idempotency_key", sa.String(255), primary_key=True),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("job_id", sa.String(32), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False, index=True),
    # Until when a call without an answer yet is taken to be running (a service killed
    # mid-call leaves one: after this, and with no job running, a retry runs afresh).
    sa.Column("locked_until", sa.DateTime(timezone=True), nullable=False),
    sa.Column("status_code", sa.Integer, nullable=True),
    sa.Column("headers_json", sa.JSON, nullable=True),
    sa.Column("body", sa.LargeBinary, nullable=True),
)

webhook_endpoints = sa.Table(
    "webhook_endpoints",
    metadata,
    # Where an account is told that its queued jobs ended (shiftsched.service.store.webhooks);
    # the secret signs every delivery (Standard Webhooks: whsec_ and base64).
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("account_id", sa.ForeignKey("accounts.id"), nullable=False, index=True),
    sa.Column("url", sa.String(2000), nullable=False),
    sa.Column("description", sa.String(200), nullable=True),
    sa.Column("secret", sa.String(100), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

webhook_deliveries = sa.Table(
    "webhook_deliveries",
    metadata,
    # The outbox: one event for one endpoint, sent until it is taken or given up on.
    sa.Column("id", sa.String(40), primary_key=True),  # the event id the receiver dedupes on
    sa.Column(
        "endpoint_id", sa.ForeignKey("webhook_endpoints.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("account_id", sa.ForeignKey("accounts.id"), nullable=False, index=True),
    sa.Column("job_id", sa.String(32), nullable=True),
    sa.Column("event_type", sa.String(32), nullable=False),
    sa.Column("payload_json", sa.JSON, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    # When it is next due (also the lease of a sender that took it); NULL once it ended.
    sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("given_up_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("last_status", sa.Integer, nullable=True),
    sa.Column("last_error", sa.String(500), nullable=True),
    sa.Index("ix_webhook_deliveries_next_attempt_at", "next_attempt_at"),
    sa.Index("ix_webhook_deliveries_endpoint_id", "endpoint_id"),
)

webhook_attempts = sa.Table(
    "webhook_attempts",
    metadata,
    # Every attempt of a delivery, as the dashboard and the API list them.
    sa.Column(
        "delivery_id", sa.ForeignKey("webhook_deliveries.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("status", sa.Integer, nullable=True),  # the receiver's HTTP status
    sa.Column("error", sa.String(500), nullable=True),  # what failed when it gave none
    sa.Column("milliseconds", sa.Integer, nullable=False),
)

write_probe = sa.Table(
    "write_probe",
    metadata,
    # One row, updated by every readiness check (shiftsched.service.ops.health): a store that cannot
    # take this write (disk full, read-only, file gone) cannot take a reservation either.
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
)
