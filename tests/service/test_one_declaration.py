"""An operation is declared once, and every face is derived from that declaration.

A toy operation, declared in this module's fixture and nowhere else (the engine's
declaration in ``shiftsched.operations`` and the service's around it), is answered on
its route, listed in the OpenAPI document, offered as an MCP tool and said in the
server's instructions, run as a subcommand, counted on a metrics path of its own, named
in words on the Jobs page and in its job's name, and its units counted under its own
cause by the ledger audit. When the fixture ends, no face shows it any more.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from shiftsched import operations as engine
from shiftsched.cli.main import EXIT_OK, main
from shiftsched.contract.size import request_size
from shiftsched.contract.v1 import SolveRequest, ValidateResponse
from shiftsched.questions.validation import describe
from shiftsched.service import metrics
from shiftsched.service.billing.admission import Admission
from shiftsched.service.dashboard.jobs_page import operation_words
from shiftsched.service.http import operations as service
from shiftsched.service.http.api import create_app
from shiftsched.service.http.openapi import openapi_document
from shiftsched.service.http.pipeline import Docs, Payer, Tool
from shiftsched.service.mcp.server import create_mcp_server, instructions
from shiftsched.service.settings import Settings
from shiftsched.service.store import Store
from shiftsched.service.store.job_list import JobFilter
from shiftsched.service.store.reconcile import audit
from tests.factories import minimal_request_dict
from tests.service.http.test_http import bearer

SERVER = "https://api.test/v1/public"


def count_staff(ask: SolveRequest, limits: object = None) -> ValidateResponse:
    """The toy's engine function: what the request holds (a solver process calls it
    with its limits)."""
    return describe(ask)


def _one_unit(ask: SolveRequest, payer: Payer | None) -> Admission:
    return Admission(request_size(ask), units=1, time_limit=5.0)


TOY = engine.Operation(
    "toy",
    "shiftsched.contract.v1:SolveRequest",
    "shiftsched.contract.v1:ValidateResponse",
    "shiftsched.contract.parse:parse_request",
    f"{__name__}:count_staff",
    solves=True,
    called="staff count",
    command=engine.Command("count a request's staff (a test's operation)", 99),
)
TOY_SERVED = service.served(
    TOY,
    path="/solve/toy",
    docs=Docs("Count a request's staff (1 unit)", answered="what the request holds"),
    tool=Tool("count_staff", "Count a request's staff, for one unit.", said="{tool} counts"),
    admit=_one_unit,
)


@pytest.fixture(scope="module")
def declared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The toy declared, and an app built while it is: its client. Afterwards nothing
    of it is left: not in the registries, nor in the metrics."""
    home: Path = tmp_path_factory.mktemp("one_declaration")
    settings = Settings(
        database_url=f"sqlite:///{home / 'store.db'}",
        jobs_db_path=str(home / "jobs.db"),
        solve_processes=1,
        errors_base="https://api.test/v1/public/errors",
    )
    with ExitStack() as stack:
        stack.enter_context(engine.OPERATIONS.declaring(TOY))
        stack.enter_context(service.OPERATIONS.declaring(TOY_SERVED))
        stack.callback(_forget_series, "toy")
        with TestClient(create_app(settings)) as client:
            yield client
    assert TOY not in engine.OPERATIONS and TOY_SERVED not in service.OPERATIONS
    assert "toy" not in metrics.solve_paths() and "toy" not in operation_words()
    assert _solves("toy", "completed") == 0.0 and "count_staff" not in instructions()


def _forget_series(path: str) -> None:
    for outcome in metrics.OUTCOMES:
        for metric in (metrics.SOLVES, metrics.SOLVE_SECONDS):
            with suppress(KeyError):  # a series never made
                metric.remove(path, outcome)


def _solves(path: str, outcome: str) -> float:
    value = metrics.REGISTRY.get_sample_value(
        "shiftsched_solves_total", {"path": path, "outcome": outcome}
    )
    return value or 0.0


def test_its_route_answers_charges_and_keeps_a_job(declared: TestClient) -> None:
    store: Store = declared.app.state.store  # type: ignore[attr-defined]
    account = store.accounts.create_account("Toy", free_quota=10)
    key = store.accounts.issue_key(account.id)
    before = _solves("toy", "completed")
    response = declared.post("/solve/toy", json=minimal_request_dict(), headers=bearer(key))
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["valid"] is True and answer["employee_count"] == 3
    assert response.headers["x-units-consumed"] == "1"
    assert _solves("toy", "completed") == before + 1  # its own metrics path
    assert "toy" in metrics.solve_paths()
    (job,) = store.job_list.page(account.id, JobFilter(operation="toy")).rows
    assert job.charged == 1
    assert job.name == "Staff count · 2026-03-02 – 2026-03-08 · 3 employees"
    assert audit(store.db).units_by_cause["toys"] == 1  # its own cause in the audit
    assert declared.post("/solve/toy", json=minimal_request_dict()).status_code == 401


def test_it_is_documented_and_offered_as_a_tool(declared: TestClient) -> None:
    document = openapi_document(SERVER)
    assert document["paths"]["/solve/toy"]["post"]["summary"] == "Count a request's staff (1 unit)"
    assert "/solve/toy" in declared.get("/openapi.json").json()["paths"]
    server = create_mcp_server(Starlette(), "https://api.test")
    tools = {tool.name: tool for tool in asyncio.run(server.list_tools())}
    assert tools["count_staff"].description == "Count a request's staff, for one unit."
    assert "count_staff counts." in instructions()


def test_it_is_a_subcommand_and_a_word_on_the_jobs_page(
    declared: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = tmp_path / "request.json"
    request.write_text(json.dumps(minimal_request_dict()))
    out, err = io.StringIO(), io.StringIO()
    assert main(["toy", str(request)], out=out, err=err) == EXIT_OK
    printed: dict[str, Any] = json.loads(out.getvalue())
    assert printed["employee_count"] == 3
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = [line.split(maxsplit=1) for line in capsys.readouterr().out.splitlines()]
    assert ["toy", "count a request's staff (a test's operation)"] in listed
    assert operation_words()["toy"] == "staff count"
