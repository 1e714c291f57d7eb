"""Schemathesis over the service's own OpenAPI: every operation, with and without a key.

No 5xx, and every response conforms to the documented statuses, content types, headers
and schemas. The app runs mounted under /v1/public exactly as in the Bento.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import (
    ignored_auth,
    missing_required_header,
    positive_data_acceptance,
)
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from shiftsched.service.http.api import Settings, create_app

pytestmark = pytest.mark.slow  # fuzzes every operation

KEY = "sk_test_" + "b" * 64
_DB = Path(tempfile.mkdtemp(prefix="schemathesis-")) / "service.db"
PUBLIC = create_app(
    Settings(
        database_url=f"sqlite:///{_DB}",
        demo_api_key=KEY,
        solve_processes=1,
        cp_sat_workers=1,
        diagnosis_budget_seconds=1,
    )
)
APP = Starlette(routes=[Mount("/v1/public", app=PUBLIC)])
schema = schemathesis.openapi.from_asgi("/v1/public/openapi.json", APP)
# Conforming bodies here; malformed ones are fuzzed by tests/service/http/test_fuzz.py.
schema.config.generation.update(modes=[GenerationMode.POSITIVE])
# The contract answers a missing credential on POST /solve with 402 (not 2xx, 401 or 403);
# tests/service/http/test_http.py asserts that answer exactly.
EXCLUDED = [positive_data_acceptance, missing_required_header, ignored_auth]


@pytest.fixture(scope="module", autouse=True)
def started() -> Iterator[None]:
    with TestClient(PUBLIC):
        yield


# 12 conforming bodies per operation and credential: each keyed one is a paid call kept
# as a job (a solve, a diagnosis of up to a second), so examples are the suite's time.
FUZZ = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


@schema.parametrize()
@FUZZ
def test_without_a_key(case: schemathesis.Case) -> None:
    case.call_and_validate(excluded_checks=EXCLUDED)


@schema.parametrize()
@FUZZ
def test_with_the_demo_key(case: schemathesis.Case) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {KEY}"}, excluded_checks=EXCLUDED)
