"""The Bento for real: `bentoml serve` in a subprocess, driven over loopback HTTP."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveResponse
from tests.factories import minimal_request_dict
from tests.service.payments_support import (
    MPP_ACCOUNT,
    MPP_PRICE_MINOR,
    NETWORK,
    PAY_TO,
    PRICE_PER_UNIT,
    StandIn,
    decoded,
    mpp_credential,
    payment_challenge,
    x402_v1,
)
from tests.service.processes import ROOT, serve_environment, served

pytestmark = pytest.mark.slow  # serves in a process of its own

DEMO_KEY = "sk_test_" + "e" * 64
SERVE_LOGS: dict[str, Path] = {}  # the served base URL's stdout and stderr


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, payment_standin: StandIn) -> Iterator[str]:
    home = tmp_path_factory.mktemp("serve")
    env = serve_environment(  # as `PORT=<port> make serve`: the port given, no PUBLIC_URL
        home,
        DEMO_API_KEY=DEMO_KEY,
        X402_PAY_TO=PAY_TO,
        X402_NETWORK=NETWORK,
        X402_PRICE_PER_UNIT=str(PRICE_PER_UNIT),
        X402_FACILITATOR_URL=payment_standin.url,
        MPP_PAYMENTS_ACCOUNT=MPP_ACCOUNT,
        MPP_PRICE_PER_UNIT_MINOR=str(MPP_PRICE_MINOR),
        MPP_PROVIDER_URL=payment_standin.url,
        MPP_SECRET_KEY="served-secret-" + "s" * 32,
    )
    with served(env, home / "serve.log", ready="/v1/public/openapi.json") as started:
        SERVE_LOGS[started.api] = started.log
        yield started.api


def assert_audited_roster(response: httpx.Response) -> None:
    """The served roster passes the independent audit, metrics included."""
    assert response.status_code == 200, response.text
    result = SolveResponse.model_validate(response.json())
    assert result.status == "completed" and result.solution is not None
    report = audit(parse_request(minimal_request_dict()), result.solution.assignments)
    assert report.feasible
    assert compare_with_metrics(report, result.solution.metrics) == []


def test_served_validate_solve_usage_and_errors(server: str) -> None:
    body = json.dumps(minimal_request_dict())
    headers = {"Content-Type": "application/json"}
    validated = httpx.post(f"{server}/solve/validate", content=body, headers=headers, timeout=30)
    assert validated.status_code == 200
    assert validated.json()["valid"] is True

    auth = {**headers, "Authorization": f"Bearer {DEMO_KEY}"}
    solved = httpx.post(f"{server}/solve", content=body, headers=auth, timeout=120)
    assert_audited_roster(solved)
    assert solved.headers["x-units-consumed"] == "1"

    usage = httpx.get(f"{server}/usage", headers=auth, timeout=30).json()
    assert usage["available_units"] == int(solved.headers["x-units-remaining"])

    missing = httpx.get(f"{server}/nowhere", timeout=30)
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    assert missing.json()["type"].endswith("/v1/public/errors/not-found")


def test_latency_benchmark_smoke_runs_against_the_server(server: str) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "benchmarks/http_latency.py",
            "--url",
            server,
            "--key",
            DEMO_KEY,
            "--validate",
            "3",
            "--solve",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "validate: n=3" in run.stdout and "solve: n=1" in run.stdout


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_served_mcp_tools_answer_with_the_api_key(server: str) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    root = server.removesuffix("/v1/public")
    auth = {"Authorization": f"Bearer {DEMO_KEY}"}
    async with (
        httpx2.AsyncClient(headers=auth, timeout=60) as http,
        Client(streamable_http_client(root + "/mcp", http_client=http)) as client,
    ):
        tools = {tool.name for tool in (await client.list_tools()).tools}
        v1 = {"validate_shift_input", "solve_shift", "get_solve_job", "get_usage"}
        assert tools == v1 | {
            "plan_shift",
            "replan_shift",
            "recommend_employees",
            "get_solve_job_progress",
            "stop_solve_job",
            "audit_roster",
            "compare_rosters",
            "explain_shortages",
            "why_not",
        }
        usage = await client.call_tool("get_usage", {})
        assert not usage.is_error


def test_served_payments_offer_and_take_x402_and_mpp(server: str, payment_standin: StandIn) -> None:
    payment_standin.reset()
    body = json.dumps(minimal_request_dict())
    headers = {"Content-Type": "application/json"}
    offer = httpx.post(f"{server}/solve", content=body, headers=headers, timeout=30)
    assert offer.status_code == 402
    assert [entry["scheme"] for entry in offer.json()["accepts"]] == ["api_key", "x402", "mpp"]
    challenges = offer.headers.get_list("www-authenticate")
    assert [value.split(" ")[0] for value in challenges] == ["Bearer", "X402", "Payment"]
    required = decoded(offer.headers["payment-required"])
    public = f"http://localhost:{httpx.URL(server).port}"  # PUBLIC_URL unset: localhost:$PORT
    assert required["resource"]["url"] == f"{public}/v1/public/solve"  # never the Host sent

    paid = httpx.post(
        f"{server}/solve",
        content=body,
        headers={**headers, "X-PAYMENT": x402_v1(PRICE_PER_UNIT)},
        timeout=60,
    )
    assert_audited_roster(paid)
    assert decoded(paid.headers["x-payment-response"])["success"] is True
    verify = payment_standin.calls("/verify")[0]["body"]
    assert verify["paymentRequirements"]["resource"] == f"{public}/v1/public/solve"

    payment_id = payment_standin.add_payment(MPP_PRICE_MINOR)
    credential = mpp_credential(payment_challenge(offer), payment_id)
    receipted = httpx.post(
        f"{server}/solve",
        content=body,
        headers={**headers, "Authorization": credential},
        timeout=60,
    )
    assert_audited_roster(receipted)
    assert "payment-receipt" in receipted.headers


def test_served_dashboard_and_oauth_discovery(server: str) -> None:
    root = server.removesuffix("/v1/public")
    sign_in = httpx.get(f"{root}/dashboard/sign-in", timeout=30)
    assert sign_in.status_code == 200 and "csrf_token" in sign_in.text
    assert "httponly" in sign_in.headers["set-cookie"].lower()
    assert httpx.get(f"{root}/dashboard/static/style.css", timeout=30).status_code == 200
    keys = httpx.get(f"{root}/dashboard/keys", timeout=30)
    assert keys.status_code == 303 and keys.headers["location"].startswith("/dashboard/sign-in")
    metadata = httpx.get(f"{root}/.well-known/oauth-authorization-server", timeout=30).json()
    assert metadata["registration_endpoint"].endswith("/register")
    assert metadata["code_challenge_methods_supported"] == ["S256"]


def test_served_oauth_discovery_leads_back_to_the_served_port(server: str) -> None:
    """An MCP client that meets a 401 on /mcp follows discovery to this server's port."""
    root = server.removesuffix("/v1/public")
    public = f"http://localhost:{httpx.URL(root).port}"  # PUBLIC_URL unset: localhost:$PORT

    challenge = httpx.post(f"{root}/mcp", json={}, timeout=30)
    assert challenge.status_code == 401
    [resource_url] = re.findall(
        r'resource_metadata="([^"]+)"', challenge.headers["www-authenticate"]
    )
    assert resource_url == f"{public}/.well-known/oauth-protected-resource/mcp"

    resource = httpx.get(resource_url, timeout=30).json()
    assert resource["resource"] == f"{public}/mcp"
    [issuer] = resource["authorization_servers"]
    assert issuer.rstrip("/") == public
    metadata = httpx.get(
        f"{issuer.rstrip('/')}/.well-known/oauth-authorization-server", timeout=30
    ).json()
    advertised = {
        name: value
        for name, value in {**resource, **metadata}.items()
        if isinstance(value, str) and value.startswith("http")
    }
    assert {"issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint"} <= set(
        advertised
    )
    assert {name: url for name, url in advertised.items() if not url.startswith(public)} == {}

    registered = httpx.post(
        metadata["registration_endpoint"],
        json={
            "client_name": "discovery test",
            "redirect_uris": ["http://127.0.0.1:9/callback"],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
        timeout=30,
    )
    assert registered.status_code == 201, registered.text
    challenge_s256 = base64.urlsafe_b64encode(hashlib.sha256(b"v" * 43).digest())
    authorized = httpx.get(
        metadata["authorization_endpoint"],
        params={
            "client_id": registered.json()["client_id"],
            "response_type": "code",
            "redirect_uri": "http://127.0.0.1:9/callback",
            "code_challenge": challenge_s256.decode().rstrip("="),
            "code_challenge_method": "S256",
            "state": "s",
        },
        timeout=30,
    )
    assert authorized.status_code == 302, authorized.text
    approval = authorized.headers["location"]
    assert approval.startswith(f"{public}/dashboard/oauth/approve?request=")
    # Not signed in: the approval page sends the browser to sign in, on this server.
    answered = httpx.get(approval, timeout=30)
    assert answered.status_code == 303
    assert answered.headers["location"].startswith("/dashboard/sign-in")


def test_served_front_page_is_the_products_own(server: str) -> None:
    """`/` is ours, while BentoML keeps its health and metrics routes."""
    root = server.removesuffix("/v1/public")
    front = httpx.get(f"{root}/", timeout=30)
    assert front.status_code == 200
    assert front.headers["content-type"].startswith("text/html")
    assert "Machine Learning Service" not in front.text
    public = f"http://localhost:{httpx.URL(root).port}"  # PUBLIC_URL unset: localhost:$PORT
    for link in ("/v1/public/openapi.json", "/dashboard/", "/v1/public/errors/", f"{public}/mcp"):
        assert link in front.text
    assert httpx.get(f"{root}/readyz", timeout=30).status_code == 200
    assert httpx.get(f"{root}/metrics", timeout=30).status_code == 200


def test_served_unknown_paths_say_where_to_go_and_bentoml_keeps_its_routes(server: str) -> None:
    """The readable 404 replaces only BentoML's bare one: its own routes still answer."""
    root = server.removesuffix("/v1/public")
    for path in ("/livez", "/healthz", "/readyz", "/metrics", "/docs.json", "/schema.json"):
        assert httpx.get(root + path, timeout=30).status_code == 200, path
    assert httpx.get(f"{root}/v1/public", timeout=30).headers["location"].endswith("/v1/public/")
    problem = httpx.get(f"{server}/solve/nope", timeout=30)
    assert problem.status_code == 404
    assert problem.headers["content-type"] == "application/problem+json"
    assert problem.json()["detail"].endswith("GET /v1/public lists every operation")
    [index] = re.findall(r"<([^>]+)>", problem.headers["link"])
    assert "operations" in httpx.get(index, timeout=30).json()
    page = httpx.get(f"{root}/nope", headers={"Accept": "text/html"}, timeout=30)
    assert (page.status_code, "<code>/nope</code>" in page.text) == (404, True)
    assert 'href="/dashboard/"' in page.text and 'href="/v1/public/"' in page.text
    text = httpx.get(f"{root}/dashboard/nope", timeout=30)
    assert (text.status_code, text.text.splitlines()[0]) == (404, "Nothing at /dashboard/nope.")


def test_served_error_type_uris_open_as_pages(server: str) -> None:
    """The `type` of a real error answers a page that says what to do."""
    body = json.dumps(minimal_request_dict())
    refused = httpx.post(
        f"{server}/solve",
        content=body,
        headers={"Content-Type": "application/json", "Authorization": "Bearer sk_nope"},
        timeout=30,
    )
    assert refused.status_code == 401
    page = httpx.get(refused.json()["type"], timeout=30)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert refused.json()["title"] in page.text
    assert "What to do" in page.text


def test_served_health_metrics_and_log_lines(server: str) -> None:
    """BentoML's probes ask the service (database and queue), /metrics carries our
    counters and the scrape-time job gauges, and our log lines are JSON with the id the
    answer carries."""
    root = server.removesuffix("/v1/public")
    assert httpx.get(f"{root}/livez", timeout=30).status_code == 200
    assert httpx.get(f"{root}/readyz", timeout=30).status_code == 200
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {DEMO_KEY}"}
    body = json.dumps(minimal_request_dict())
    solved = httpx.post(f"{server}/solve", content=body, headers=headers, timeout=120)
    assert solved.status_code == 200, solved.text
    metrics = httpx.get(f"{root}/metrics", timeout=30).text
    found = re.search(
        r'^shiftsched_solves_total\{(?=[^}]*outcome="completed")(?=[^}]*path="sync")[^}]*\} (\S+)$',
        metrics,
        re.MULTILINE,
    )
    assert found is not None and float(found.group(1)) >= 1, metrics[-3000:]
    # The gauges' values are kept a few seconds: only their presence is this test's.
    assert re.search(r'^shiftsched_jobs\{state="completed"\} \S+$', metrics, re.MULTILINE)
    assert re.search(r"^shiftsched_queue_depth \S+$", metrics, re.MULTILINE)
    assert re.search(r"^shiftsched_units_consumed_total [1-9]", metrics, re.MULTILINE)
    request_id = solved.headers["x-request-id"]
    lines = SERVE_LOGS[server].read_text().splitlines()
    ours = [json.loads(line) for line in lines if f'"request_id": "{request_id}"' in line]
    assert [line["message"].split()[:2] for line in ours] == [["solve", "path=sync"]]
