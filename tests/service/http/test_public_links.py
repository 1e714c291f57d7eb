"""Every absolute address the service writes starts from PUBLIC_URL, never from the Host
header a client sent: otherwise anyone could have the service, or a cache in front of
it, hand others links to a host of their choosing.

The whole site in-process (``tests.service.site``, as the Bento mounts it), every request
sent with ``Host: evil.example``; no answer may name that host, in a header or a body.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from shiftsched.service.billing.payments.config import MppSettings, X402Settings
from shiftsched.service.store import Store
from tests.service.site import site_app, site_settings
from tests.service.solving.test_jobs import bearer, fresh_key, large_request

PUBLIC = "https://rosters.example.org"
EVIL = "evil.example"
AS_EVIL = {"Host": EVIL}
JSON = {"Content-Type": "application/json"}
UNREACHABLE = "http://127.0.0.1:9"  # the offer is built without calling anyone


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home: Path = tmp_path_factory.mktemp("public-links")
    settings = site_settings(
        f"sqlite:///{home / 'store.db'}",
        PUBLIC,
        jobs_db_path=str(home / "jobs.db"),
        jobs_consumer=False,  # a queued job stays queued: only its 202 matters here
        x402=X402Settings(pay_to="0x" + "1" * 40, facilitator_url=UNREACHABLE),
        mpp=MppSettings(
            payments_account="acct_links",
            provider_url=UNREACHABLE,
            provider_key="pk_test",
            secret_key="test-secret-" + "s" * 32,
        ),
    )
    with TestClient(site_app(settings), follow_redirects=False) as client:
        yield client


def store_of(site: TestClient) -> Store:
    return site.app.state.public_api.state.store  # type: ignore[attr-defined,no-any-return]


def assert_public_only(answer: httpx.Response) -> None:
    """Neither the headers (base64 ones decoded) nor the body name the client's host."""
    headers = "\n".join(f"{name}: {value}" for name, value in answer.headers.multi_items())
    for name, value in answer.headers.multi_items():
        if name.lower() == "payment-required":
            headers += base64.b64decode(value).decode()
    assert EVIL not in headers
    assert EVIL not in answer.text


def test_a_queued_solve_links_its_stop_on_the_public_host(site: TestClient) -> None:
    key = fresh_key(store_of(site), free=20)
    body = json.dumps(large_request(timeout=60))
    answer = site.post("/v1/public/solve", content=body, headers={**bearer(key), **AS_EVIL})
    assert answer.status_code == 202, answer.text
    job_id = answer.json()["job_id"]
    assert answer.headers["location"] == f"/v1/public/solve/jobs/{job_id}"
    relations = {link["rel"] for link in answer.links.values()}
    assert f"{PUBLIC}/v1/public/openapi.json#stop_solve_job" in relations
    assert_public_only(answer)


def test_a_problem_type_names_the_public_host(site: TestClient) -> None:
    answer = site.post("/v1/public/solve/validate", content=b"{}", headers={**JSON, **AS_EVIL})
    assert answer.status_code == 422
    assert answer.json()["type"] == f"{PUBLIC}/v1/public/errors/validation-error"
    assert_public_only(answer)


def test_an_unknown_api_path_links_the_index_on_the_public_host(site: TestClient) -> None:
    answer = site.get("/v1/public/no/such/operation", headers=AS_EVIL)
    assert answer.status_code == 404
    assert answer.headers["link"] == f'<{PUBLIC}/v1/public/>; rel="index"'
    assert answer.json()["type"] == f"{PUBLIC}/v1/public/errors/not-found"
    assert_public_only(answer)


@pytest.mark.parametrize("accept", ["text/plain", "text/html"])
def test_an_unknown_site_path_points_to_the_public_host(site: TestClient, accept: str) -> None:
    """The readable 404 is written by the outer middleware, whose app is BentoML's."""
    answer = site.get("/no/such/page", headers={**AS_EVIL, "Accept": accept})
    assert answer.status_code == 404
    assert_public_only(answer)
    if accept == "text/plain":
        assert f"GET {PUBLIC}/v1/public lists every operation" in answer.text


def test_the_index_and_the_openapi_servers_name_the_public_host(site: TestClient) -> None:
    index = site.get("/v1/public/", headers=AS_EVIL)
    assert index.json()["openapi"] == f"{PUBLIC}/v1/public/openapi.json"
    assert index.json()["front_page"] == f"{PUBLIC}/"
    document = site.get("/v1/public/openapi.json", headers=AS_EVIL)
    assert [server["url"] for server in document.json()["servers"]] == [f"{PUBLIC}/v1/public"]
    for answer in (index, document):
        assert_public_only(answer)


def test_the_402_offer_names_the_public_resource_and_docs(site: TestClient) -> None:
    body = json.dumps(_small_request())
    answer = site.post("/v1/public/solve", content=body, headers={**JSON, **AS_EVIL})
    assert answer.status_code == 402, answer.text
    docs = {entry["docs"] for entry in answer.json()["accepts"]}
    assert docs == {f"{PUBLIC}/v1/public/openapi.json"}
    required: dict[str, Any] = json.loads(base64.b64decode(answer.headers["payment-required"]))
    assert required["resource"]["url"] == f"{PUBLIC}/v1/public/solve"
    assert_public_only(answer)


@pytest.mark.parametrize("path", ["/dashboard", "/v1/public"])
def test_a_slash_redirect_goes_to_the_public_host(site: TestClient, path: str) -> None:
    answer = site.get(path, headers=AS_EVIL)
    assert answer.status_code == 307
    assert answer.headers["location"] == f"{PUBLIC}{path}/"
    assert_public_only(answer)


def test_the_front_page_names_the_public_host(site: TestClient) -> None:
    answer = site.get("/", headers=AS_EVIL)
    assert answer.status_code == 200
    assert f"{PUBLIC}/mcp" in answer.text
    assert_public_only(answer)


def _small_request() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (
            Path(__file__).parent.parent.parent.parent / "datasets" / "retail_weekdays.json"
        ).read_text()
    )
    return data
