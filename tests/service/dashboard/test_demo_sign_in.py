"""The demo account signs in to the dashboard: its user is made at start with the
configured or a printed password, on SQLite and PostgreSQL, and `make serve`'s user can
sign in with what the start printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from shiftsched.service.ops.demo import ensure_demo_user
from shiftsched.service.passwords import check_password, hash_password
from shiftsched.service.store import DEMO_ACCOUNT_ID, Store
from tests.service.dashboard.test_dashboard import csrf_of
from tests.service.site import site_app, site_settings

pytestmark = pytest.mark.slow  # password hashes (argon2), half a second each on a busy machine

EMAIL = "demo@example.com"


def test_the_demo_user_is_made_once_and_follows_the_configured_password(store: Store) -> None:
    store.accounts.ensure_demo_account()
    made = ensure_demo_user(store, EMAIL, None)
    assert made is not None and made.email == EMAIL and made.password is not None
    user = store.users.user_by_email(EMAIL)
    assert user is not None and user.account_id == DEMO_ACCOUNT_ID
    assert check_password(user.password_hash, made.password)
    assert ensure_demo_user(store, EMAIL, None) == made.__class__(EMAIL, None)  # not again

    changed = ensure_demo_user(store, EMAIL, "a password chosen by the operator")
    assert changed is not None and changed.password == "a password chosen by the operator"
    again = store.users.user_by_email(EMAIL)
    assert again is not None and again.id == user.id
    kept = ensure_demo_user(store, EMAIL, "a password chosen by the operator")
    assert kept is not None and kept.password is None  # it matches now: nothing to print


def test_an_email_another_account_signed_up_with_is_left_alone(store: Store) -> None:
    store.accounts.ensure_demo_account()
    theirs = store.users.create_user("taken@example.com", hash_password("their password"))
    assert ensure_demo_user(store, "taken@example.com", "demo password") is None
    still = store.users.user_by_email("taken@example.com")
    assert still is not None and still.account_id == theirs.account_id
    assert check_password(still.password_hash, "their password")


def test_the_printed_sign_in_opens_the_demo_accounts_dashboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'site.db'}"
    settings = site_settings(url, "http://localhost", demo_email=EMAIL)
    with TestClient(site_app(settings), base_url="http://localhost") as client:
        printed = capsys.readouterr().out
        client.follow_redirects = False
        key = re.search(r"Demo account ready\. API key \(shown once\): (\S+)", printed)
        sign_in = re.search(
            r"Demo dashboard sign-in at http://localhost/dashboard/: (\S+), "
            r"password \(shown once\): (\S+)",
            printed,
        )
        assert key and sign_in, printed
        email, password = sign_in.groups()
        page = client.get("/dashboard/sign-in").text
        signed_in = client.post(
            "/dashboard/sign-in",
            data={"csrf_token": csrf_of(page), "email": email, "password": password},
        )
        assert signed_in.status_code == 303, signed_in.text
        tier = client.get("/dashboard/tier").text
        assert re.search(r'id="tier">\s*pro\s*<', tier), tier
        assert key.group(1)[:16] in client.get("/dashboard/keys").text
    with TestClient(site_app(settings), base_url="http://localhost"):
        later = capsys.readouterr().out
    assert "shown once" not in later and f"sign-in at http://localhost/dashboard/: {email}" in later
