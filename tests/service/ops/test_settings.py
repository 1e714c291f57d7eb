"""Settings.from_env: the public URL follows the served port; admission defaults."""

from __future__ import annotations

import pytest

from shiftsched.service.settings import Settings
from shiftsched.solving.cores import available_cores


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("PUBLIC_URL", raising=False)
    monkeypatch.delenv("PORT", raising=False)
    return monkeypatch


def test_public_url_defaults_to_port_3000(clean_env: pytest.MonkeyPatch) -> None:
    assert Settings.from_env().public_url == "http://localhost:3000"
    clean_env.setenv("PORT", "")
    assert Settings.from_env().public_url == "http://localhost:3000"


def test_public_url_follows_port(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("PORT", "8080")
    assert Settings.from_env().public_url == "http://localhost:8080"


def test_public_url_wins_over_port(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("PORT", "8080")
    clean_env.setenv("PUBLIC_URL", "https://rosters.example.org/")
    assert Settings.from_env().public_url == "https://rosters.example.org"


def test_a_port_that_is_not_a_number_is_refused(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("PORT", "eighty")
    with pytest.raises(ValueError, match="eighty"):
        Settings.from_env()


def test_one_solve_per_core_with_two_workers_each_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("SOLVE_PROCESSES", "CP_SAT_WORKERS", "SOLVE_QUEUE_WAIT_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.from_env()
    assert settings.solve_processes == available_cores() >= 1
    assert settings.cp_sat_workers == 2
    assert settings.solve_queue_wait_seconds == 10.0


def test_admission_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLVE_PROCESSES", "3")
    monkeypatch.setenv("SOLVE_QUEUE_WAIT_SECONDS", "2.5")
    monkeypatch.setenv("SOLVE_QUEUE_LENGTH", "7")
    settings = Settings.from_env()
    assert (settings.solve_processes, settings.solve_queue_wait_seconds) == (3, 2.5)
    assert settings.solve_queue_length == 7


def test_the_service_gives_the_demo_account_a_sign_in_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("DEMO_EMAIL", "DEMO_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.from_env()
    assert (settings.demo_email, settings.demo_password) == ("demo@example.com", None)
    monkeypatch.setenv("DEMO_EMAIL", "rota@example.org")
    monkeypatch.setenv("DEMO_PASSWORD", "a long demo password")
    settings = Settings.from_env()
    assert (settings.demo_email, settings.demo_password) == (
        "rota@example.org",
        "a long demo password",
    )
    assert Settings().demo_email is None  # built in code: no demo user, no hash at start
