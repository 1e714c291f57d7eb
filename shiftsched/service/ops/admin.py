"""Operator commands for accounts, keys and balances (people manage their own keys in
the dashboard; balances and tiers are the operator's).

    python -m shiftsched.service.ops.admin create-account NAME [--tier pro] [--free-quota N]
        [--balance N]
    python -m shiftsched.service.ops.admin issue-key ACCOUNT_ID   # prints the key; not stored
    python -m shiftsched.service.ops.admin disable-key KEY_OR_PREFIX
    python -m shiftsched.service.ops.admin set-tier ACCOUNT_ID basic|pro
    python -m shiftsched.service.ops.admin add-balance ACCOUNT_ID UNITS
    python -m shiftsched.service.ops.admin show ACCOUNT_ID_OR_EMAIL      # usage as JSON
    python -m shiftsched.service.ops.admin reconcile   # settle stale holds, audit, JSON

The database is DATABASE_URL (or --database-url), else var/shiftsched.db; its tables are
created when missing. Exit status: 0 done, 1 refused (unknown account, bad value, no such
key) or, for ``reconcile``, a check that does not hold, 2 bad usage, 3 database
unreachable.

``reconcile`` first settles what the service's reconciler would (holds past their lease,
``shiftsched.service.store.reconcile``), then audits the whole database and prints what it found:
the units captured and what they were captured for, the holds by state, the paid requests by
the state of their claim (they are paid in money, not units), and every violation: a
hold past its lease or without one, a job whose hold disagrees with how it ended, an
account below zero. Safe while the service runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from shiftsched.service.store import (
    DEFAULT_FREE_QUOTA,
    TIERS,
    Account,
    Store,
    StoreUnavailable,
    Tier,
)
from shiftsched.service.store.reconcile import audit, settle_stale_holds

EXIT_REFUSED = 1
EXIT_UNAVAILABLE = 3

Command = Callable[[Store, argparse.Namespace, TextIO], int]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status instead of exiting (testable in-process)."""
    args = _parser().parse_args(argv)
    command: Command = args.command
    try:
        with _open(args.database_url) as store:
            store.db.migrate()
            return command(store, args, sys.stdout)
    except StoreUnavailable as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except (LookupError, ValueError) as error:
        print(f"error: {_reason(error)}", file=sys.stderr)
        return EXIT_REFUSED


def _open(database_url: str | None) -> Store:
    return Store(database_url) if database_url else Store.from_env()


def _reason(error: Exception) -> str:
    if isinstance(error, LookupError):
        return f"no account {error.args[0]!r}" if error.args else "not found"
    return str(error)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m shiftsched.service.ops.admin", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--database-url", help="SQLAlchemy URL (default: DATABASE_URL)")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    create = _command(commands, "create-account", "create an account; prints its id", _create)
    create.add_argument("name")
    create.add_argument("--tier", choices=TIERS, default="basic")
    create.add_argument("--free-quota", type=_count, default=DEFAULT_FREE_QUOTA)
    create.add_argument("--balance", type=_count, default=0)

    issue = _command(commands, "issue-key", "issue an API key; prints it once", _issue)
    issue.add_argument("account_id")

    disable = _command(commands, "disable-key", "disable a key (full key or prefix)", _disable)
    disable.add_argument("key_or_prefix")

    tier = _command(commands, "set-tier", "change an account's tier", _set_tier)
    tier.add_argument("account_id")
    tier.add_argument("tier", choices=TIERS)

    balance = _command(commands, "add-balance", "credit prepaid units", _add_balance)
    balance.add_argument("account_id")
    balance.add_argument("units", type=_positive)

    show = _command(commands, "show", "print an account and its usage as JSON", _show)
    show.add_argument(
        "account_id", metavar="ACCOUNT", help="an account id, or the email a person signed up with"
    )
    _command(commands, "reconcile", "settle stale holds, then audit the ledger (JSON)", _reconcile)
    return parser


def _command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help_text: str,
    run: Command,
) -> argparse.ArgumentParser:
    sub = commands.add_parser(name, help=help_text, description=help_text)
    sub.set_defaults(command=run)
    return sub


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return value


def _create(store: Store, args: argparse.Namespace, out: TextIO) -> int:
    tier: Tier = args.tier
    account = store.accounts.create_account(args.name, tier, args.free_quota, args.balance)
    print(account.id, file=out)
    return 0


def _issue(store: Store, args: argparse.Namespace, out: TextIO) -> int:
    print(store.accounts.issue_key(args.account_id), file=out)
    return 0


def _disable(store: Store, args: argparse.Namespace, out: TextIO) -> int:
    if not store.accounts.disable_key(args.key_or_prefix):
        print("error: no key matches", file=sys.stderr)
        return EXIT_REFUSED
    print("disabled", file=out)
    return 0


def _set_tier(store: Store, args: argparse.Namespace, out: TextIO) -> int:
    return _print_account(store.accounts.set_tier(args.account_id, args.tier), out)


def _add_balance(store: Store, args: argparse.Namespace, out: TextIO) -> int:
    return _print_account(store.accounts.add_balance(args.account_id, args.units), out)


def _show(store: Store, args: argparse.Namespace, out: TextIO) -> int:
    account = store.accounts.get_account(args.account_id)
    if account is None and "@" in args.account_id:
        user = store.users.user_by_email(args.account_id)
        account = store.accounts.get_account(user.account_id) if user is not None else None
    if account is None:
        raise LookupError(args.account_id)
    return _print_account(account, out)


def _reconcile(store: Store, args: argparse.Namespace, out: TextIO) -> int:
    settled: dict[str, str] = {}
    while batch := settle_stale_holds(store.db):  # every stale hold, a batch at a time
        settled.update(batch)
    found = audit(store.db)
    report = {**found.as_json(), "settled_now": dict(sorted(settled.items()))}
    print(json.dumps(report, indent=2), file=out)
    return 0 if found.ok else EXIT_REFUSED


def _print_account(account: Account, out: TextIO) -> int:
    """The UsageResponse fields plus id, name and tier."""
    body = {
        "id": account.id,
        "name": account.name,
        "tier": account.tier,
        "free_quota_remaining": account.free_quota_remaining,
        "balance_units": account.balance_units,
        "available_units": account.available_units,
    }
    print(json.dumps(body, indent=2), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
