"""The demo account at start: its API key and its dashboard sign-in, made ready and printed.

Why a sign-in too: the demo account is the pro account a first-time user has, and the
dashboard is where a queued job is followed and stopped; with a key alone, that needed
an operator. So the start that creates the account also gives it a user: the email of
``DEMO_EMAIL`` and the password of ``DEMO_PASSWORD``, or a random password printed once,
as the random key is. A ``DEMO_PASSWORD`` that changed since is set at the next start.
An email that another account signed up with first is left alone, and the start says so.
Settings built in code rather than read from the environment have no demo email, and
so no demo user (a password hash costs a good part of a second at every start).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

from shiftsched.service.passwords import check_password, hash_password
from shiftsched.service.settings import Settings
from shiftsched.service.store import DEMO_ACCOUNT_ID, Store
from shiftsched.service.store.users import EmailTaken, User

RANDOM_PASSWORD_BYTES = 12  # 16 URL-safe characters, over the dashboard's minimum length

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DemoSignIn:
    """The demo user's email, and its password when it was set at this start."""

    email: str
    password: str | None


def ensure_demo_user(store: Store, email: str, password: str | None) -> DemoSignIn | None:
    """The demo account's user, created (or its password changed to ``password``) now if
    needed; None when ``email`` belongs to another account."""
    users = store.users
    user = users.user_by_email(email)
    if user is None:
        chosen = password or secrets.token_urlsafe(RANDOM_PASSWORD_BYTES)
        try:
            users.add_user(DEMO_ACCOUNT_ID, email, hash_password(chosen))
        except EmailTaken:  # another worker, starting at the same moment, or a sign-up
            user = users.user_by_email(email)
            return DemoSignIn(email, None) if _is_demo(user) else None
        return DemoSignIn(email, chosen)
    if not _is_demo(user):
        return None
    if password is not None and not check_password(user.password_hash, password):
        users.set_password_hash(user.id, hash_password(password))
        return DemoSignIn(email, password)
    return DemoSignIn(email, None)


def announce_demo(store: Store, settings: Settings) -> None:
    """Make the demo account and its sign-in ready, and print what a person needs: the
    key and the password when they were made now, the sign-in address every time."""
    _, key = store.accounts.ensure_demo_account(settings.demo_api_key)
    if key is not None:
        print(f"Demo account ready. API key (shown once): {key}", flush=True)
    email = settings.demo_email
    if email is None:
        return
    sign_in = ensure_demo_user(store, email, settings.demo_password)
    where = f"{settings.public_url}/dashboard/"
    if sign_in is None:
        log.warning("demo sign-in not made: %s belongs to another account", email)
        print(f"Demo dashboard sign-in: none, {email} is another account's.", flush=True)
    elif sign_in.password is not None:
        print(
            f"Demo dashboard sign-in at {where}: {sign_in.email}, "
            f"password (shown once): {sign_in.password}",
            flush=True,
        )
    else:
        print(
            f"Demo dashboard sign-in at {where}: {sign_in.email} (password as printed "
            "at its first start, or DEMO_PASSWORD)",
            flush=True,
        )


def _is_demo(user: User | None) -> bool:
    return user is not None and user.account_id == DEMO_ACCOUNT_ID
