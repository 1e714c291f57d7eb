"""A client generated from the served OpenAPI document has every operation, and each one
works against the real app.

The common Python generator (openapi-python-client) names a model by its schema's
title and drops a model whose title is taken, with every schema that refers to it: two
schemas titled ``Assignment`` once cost the generated client six of its operations
(re-plan, recommend, audit, compare, explain and why). Validity alone does not catch
that, so the client is generated, imported and called here.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from shiftsched.service.http.api import Settings, create_app
from shiftsched.service.http.problems import API_ROOT
from tests.factories import employee_dict, minimal_request_dict

KEY = "sk_test_" + "c" * 64
BASE = "http://testserver" + API_ROOT
PACKAGE = "generated_v1_client"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home = tmp_path_factory.mktemp("generated")
    settings = Settings(
        database_url=f"sqlite:///{home / 'store.db'}",
        jobs_db_path=str(home / "jobs.db"),
        demo_api_key=KEY,
        solve_processes=1,
        cp_sat_workers=1,
        webhook_allow_loopback=True,  # the webhook endpoint below is on loopback
    )
    headers = {"Authorization": f"Bearer {KEY}"}
    app = create_app(settings)
    with TestClient(app, base_url=BASE, root_path=API_ROOT, headers=headers) as client:
        yield client


@pytest.fixture(scope="module")
def generated(app_client: TestClient, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The client the generator writes from the document the app serves, imported."""
    home = tmp_path_factory.mktemp("client")
    document = home / "openapi.json"
    document.write_text(json.dumps(app_client.get(BASE + "/openapi.json").json()))
    tools = Path(sys.executable).parent
    command = [str(tools / "openapi-python-client"), "generate", "--path", str(document)]
    result = subprocess.run(
        [*command, "--meta", "none", "--output-path", str(home / PACKAGE)],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}"},
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout, result.stdout  # nothing left out
    sys.path.insert(0, str(home))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(home))


def operation(package: Any, name: str) -> Any:
    return importlib.import_module(f"{package.__name__}.api.default.{name}")


def models(package: Any) -> Any:
    return importlib.import_module(f"{package.__name__}.models")


def test_every_operation_of_the_document_is_in_the_client(
    app_client: TestClient, generated: Any
) -> None:
    document = app_client.get(BASE + "/openapi.json").json()
    ids = {op["operationId"] for item in document["paths"].values() for op in item.values()}
    assert len(ids) == 21  # 13 operations, the job stream, 6 of webhooks and the document
    for name in ids:
        assert callable(operation(generated, name).sync_detailed), name


def test_each_generated_call_is_answered_by_the_app(app_client: TestClient, generated: Any) -> None:
    """Every operation through the generated code: its body built by the generated
    models, its 200 parsed into the generated answer model."""
    client = generated.AuthenticatedClient(base_url=BASE, token=KEY)
    client.set_httpx_client(app_client)
    built = models(generated)
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    request = built.SolveRequest.from_dict(data)

    def call(name: str, answer: str | None, **arguments: Any) -> Any:
        """``answer``: the generated model the 200 parses into (None: a job's answer, one of
        the answers of the operations that keep a job, whichever parses first)."""
        response = operation(generated, name).sync_detailed(client=client, **arguments)
        assert response.status_code == 200, (name, response.content)
        parsed = response.parsed
        assert parsed is not None and "Problem" not in type(parsed).__name__, (name, parsed)
        assert answer is None or type(parsed).__name__ == answer, (name, parsed)
        return parsed

    assert call("validate_shift_input", "ValidateResponse", body=request).valid
    solved = call("solve_shift", "SolveResponse", body=request)
    roster = [a.to_dict() for a in solved.solution.assignments]
    cell = roster[0]
    absences = [{"employee_id": cell["employee_id"], "dates": [cell["date"]]}]
    on = {"request": data, "roster": roster}
    bodies = {
        "plan_shift": ("PlanRequest", {"request": data, "absences": absences}, "PlanResponse"),
        "replan_shift": ("ReplanRequest", {**on, "absences": absences}, "ReplanResponse"),
        "recommend_employees": (
            "RecommendRequest",
            {**on, "slot": {"date": cell["date"], "shift_id": cell["shift_id"]}},
            "RecommendResponse",
        ),
        "audit_roster": ("AuditRequest", on, "AuditResponse"),
        "compare_rosters": (
            "CompareRequest",
            {"request": data, "before": roster, "after": roster[1:]},
            "CompareResponse",
        ),
        "explain_shortages": ("ExplainRequest", {**on, "roster": roster[1:]}, "ExplainResponse"),
        "why_not": (
            "WhyRequest",
            {**on, "employee_id": cell["employee_id"], "date": cell["date"]},
            "WhyResponse",
        ),
    }
    for name, (body_model, body, answer) in bodies.items():
        call(name, answer, body=getattr(built, body_model).from_dict(body))
    job = solved.job_id
    assert call("get_solve_job", None, id=job).job_id == job
    call("get_solve_job_progress", "JobProgress", id=job)
    stopped = call("stop_solve_job", None, id=job)  # an ended job: stopping changes nothing
    assert stopped.status.value == "completed"
    assert call("get_usage", "UsageResponse").available_units >= 0
    operation(generated, "get_openapi").sync_detailed(client=client)
    asked = built.WebhookEndpointRequest.from_dict({"url": "http://127.0.0.1:9/hook"})
    made = operation(generated, "create_webhook_endpoint").sync_detailed(client=client, body=asked)
    assert made.status_code == 201, made.content
    hook = made.parsed.id
    assert [e.id for e in call("list_webhook_endpoints", None).endpoints] == [hook]
    assert call("rotate_webhook_secret", None, id=hook).secret.startswith("whsec_")
    sent = operation(generated, "send_webhook_test_event").sync_detailed(client=client, id=hook)
    assert sent.status_code == 202 and sent.parsed.event_id.startswith("evt_")
    assert len(call("list_webhook_deliveries", None, id=hook).deliveries) == 1
    gone = operation(generated, "delete_webhook_endpoint").sync_detailed(client=client, id=hook)
    assert gone.status_code == 204
