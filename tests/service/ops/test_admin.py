"""The admin CLI end to end, in-process, on a SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shiftsched.service.ops.admin import EXIT_REFUSED, EXIT_UNAVAILABLE, main
from shiftsched.service.store import Store


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'admin.db'}"


def run(capsys: pytest.CaptureFixture[str], url: str, *argv: str) -> tuple[int, str, str]:
    status = main(["--database-url", url, *argv])
    captured = capsys.readouterr()
    return status, captured.out.strip(), captured.err.strip()


def test_account_lifecycle(capsys: pytest.CaptureFixture[str], url: str) -> None:
    status, account_id, _ = run(
        capsys, url, "create-account", "Acme", "--free-quota", "5", "--balance", "2"
    )
    assert status == 0
    status, key, _ = run(capsys, url, "issue-key", account_id)
    assert status == 0 and key.startswith("sk_live_")
    assert run(capsys, url, "set-tier", account_id, "pro")[0] == 0
    assert run(capsys, url, "add-balance", account_id, "10")[0] == 0
    status, shown, _ = run(capsys, url, "show", account_id)
    assert status == 0
    assert json.loads(shown) == {
        "id": account_id,
        "name": "Acme",
        "tier": "pro",
        "free_quota_remaining": 5,
        "balance_units": 12,
        "available_units": 17,
    }
    with Store(url) as store:
        assert store.accounts.authenticate(key) is not None
    assert run(capsys, url, "disable-key", key[:16]) == (0, "disabled", "")
    with Store(url) as store:
        assert store.accounts.authenticate(key) is None


def test_database_url_comes_from_the_environment(
    capsys: pytest.CaptureFixture[str], url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", url)
    assert main(["create-account", "Acme", "--tier", "pro"]) == 0
    account_id = capsys.readouterr().out.strip()
    with Store(url) as store:
        account = store.accounts.get_account(account_id)
    assert account is not None and account.tier == "pro"


def test_refusals_exit_1_with_a_message(capsys: pytest.CaptureFixture[str], url: str) -> None:
    assert run(capsys, url, "show", "nope") == (EXIT_REFUSED, "", "error: no account 'nope'")
    assert run(capsys, url, "issue-key", "nope")[0] == EXIT_REFUSED
    assert run(capsys, url, "disable-key", "sk_live_00000000") == (
        EXIT_REFUSED,
        "",
        "error: no key matches",
    )


def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str], url: str) -> None:
    for argv in (["set-tier", "acct", "gold"], ["add-balance", "acct", "0"], []):
        with pytest.raises(SystemExit) as exited:
            main(["--database-url", url, *argv])
        assert exited.value.code == 2
    capsys.readouterr()


def test_unreachable_database_exits_3(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'missing' / 'admin.db'}"
    status, out, err = run(capsys, url, "show", "acct")
    assert (status, out) == (EXIT_UNAVAILABLE, "")
    assert err.startswith("error: database unavailable")


def test_show_finds_an_account_by_the_email_its_person_signed_up_with(
    capsys: pytest.CaptureFixture[str], url: str
) -> None:
    from shiftsched.service.store import Store

    store = Store(url)
    store.db.migrate()
    user = store.users.create_user("Person@Example.com", "not-a-real-hash")
    store.close()
    status, shown, _ = run(capsys, url, "show", "person@example.com")
    assert status == 0
    assert json.loads(shown)["id"] == user.account_id
    assert run(capsys, url, "show", "nobody@example.com") == (
        EXIT_REFUSED,
        "",
        "error: no account 'nobody@example.com'",
    )
