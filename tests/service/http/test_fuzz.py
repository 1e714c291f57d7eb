"""Arbitrary JSON and damaged requests to /solve/validate: a documented answer, never a 5xx."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from shiftsched.service.http.api import Settings, create_app
from tests.contract.test_parse import JSON_VALUES, damaged_requests

DOCUMENTED = {200, 400, 413, 415, 422}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'service.db'}"
    with TestClient(create_app(Settings(database_url=url, solve_processes=1))) as c:
        yield c


def check(response: Any) -> None:
    assert response.status_code in DOCUMENTED, response.text
    if response.status_code != 200:
        assert response.headers["content-type"].startswith("application/problem+json")
        body = response.json()
        assert body["status"] == response.status_code
        for error in body.get("errors", []):
            assert isinstance(error["path"], list) and error["message"]


FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@FUZZ
@given(JSON_VALUES)
def test_any_json_value(client: TestClient, data: Any) -> None:
    headers = {"Content-Type": "application/json"}
    check(client.post("/solve/validate", content=json.dumps(data), headers=headers))


@FUZZ
@given(damaged_requests())
def test_damaged_requests(client: TestClient, data: Any) -> None:
    headers = {"Content-Type": "application/json"}
    check(client.post("/solve/validate", content=json.dumps(data), headers=headers))


@FUZZ
@given(st.binary(max_size=64), st.sampled_from(["application/json", "text/plain", ""]))
def test_any_bytes_and_content_type(client: TestClient, body: bytes, content_type: str) -> None:
    check(client.post("/solve/validate", content=body, headers={"Content-Type": content_type}))
