"""Settings.from_env: the public URL follows the served port unless PUBLIC_URL is set."""

from __future__ import annotations

import pytest

from bento.settings import Settings


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
