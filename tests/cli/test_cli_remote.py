"""``--remote URL``: the command line's operations run on a served service (``make
serve``, started here by ``tests.service.processes.served``) instead of in-process, with
the key from ``SHIFTSCHED_API_KEY``; answers, faults and refusals keep their exit codes.
``--time-limit`` reaches the service as the request's ``options.solver_timeout_seconds``;
``--workers`` and ``--seed``, which the v1 request cannot carry, are refused (exit 2).

The service solves with one CP-SAT worker; only what holds for any roster is asserted.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shiftsched.cli.main import main
from shiftsched.client import API_KEY_VARIABLE, Client
from tests.factories import START_DATE, employee_dict, minimal_request_dict
from tests.infeasible import load_planted
from tests.service.processes import Server, serve_environment, served

KEY = "sk_test_" + "e" * 64

pytestmark = pytest.mark.slow


def run(*argv: str) -> tuple[int, Any, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    text = out.getvalue()
    return code, json.loads(text) if text.strip() else None, err.getvalue()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The service, served once for the module, its demo account on ``KEY`` (pro)."""
    home = tmp_path_factory.mktemp("remote")
    env = serve_environment(home, DEMO_API_KEY=KEY)
    with served(env, home / "serve.log", ready="/v1/public/openapi.json") as running:
        yield running


def four_employees(tmp_path: Path) -> Path:
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    request = tmp_path / "request.json"
    request.write_text(json.dumps(data))
    return request


def test_the_operations_run_on_the_served_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: Server
) -> None:
    request = four_employees(tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**json.loads(request.read_text()), "shifts": "none"}))
    monkeypatch.setenv(API_KEY_VARIABLE, KEY)
    code, solved, _ = run("solve", str(request), "--remote", server.api, "--quiet")
    assert code == 0 and solved["status"] == "completed"
    assert solved["job_id"] and solved["usage"]["units_consumed"] >= 1  # the service's
    roster = tmp_path / "roster.json"
    roster.write_text(json.dumps(solved))
    code, audited, said = run("audit", str(request), str(roster), "--remote", server.api)
    assert code == 0 and audited["feasible"] and said.startswith("audit clean")
    code, verdict, said = run("validate", str(broken), "--remote", server.api)
    assert code == 2 and "shifts" in said  # the service's faults, with their paths
    assert verdict["errors"][0]["path"] == ["shifts"]
    planted = tmp_path / "infeasible.json"
    planted.write_text(json.dumps(load_planted()[0].request))
    code, failed, said = run("solve", str(planted), "--remote", server.api)
    assert code == 1 and failed["status"] == "failed"  # as in this process: no roster
    assert failed["error"]["code"] == "no_solution" and failed["error"]["diagnosis"]
    monkeypatch.setenv(API_KEY_VARIABLE, "sk_test_" + "0" * 64)
    code, _, said = run("solve", str(request), "--remote", server.api, "--quiet")
    assert code == 1 and "401" in said  # refused: said, never a traceback


def test_the_switch_is_on_every_operation_and_only_there() -> None:
    from shiftsched.cli.main import parser
    from shiftsched.operations import OPERATIONS

    sub = next(a for a in parser()._actions if a.dest == "command")
    choices: dict[str, Any] = sub.choices  # type: ignore[assignment]
    wanted = {op.command_name for op in OPERATIONS if op.command is not None}
    remote = {name for name, command in choices.items() if "--remote" in command.format_help()}
    assert remote == wanted and {"export", "next-period"}.isdisjoint(remote)


def test_the_time_limit_is_sent_as_the_requests_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: Server
) -> None:
    """``--time-limit`` becomes the ``options.solver_timeout_seconds`` of the request the
    service solves, a plan's request too: each solve reports that limit (the request
    says nothing, so 30 s without it). Both end on their proof long before."""
    request = str(four_employees(tmp_path))
    monkeypatch.setenv(API_KEY_VARIABLE, KEY)
    remote = ("--remote", server.api, "--quiet")
    code, solved, _ = run("solve", request, "--time-limit", "7", *remote)
    assert code == 0 and solved["status"] == "completed"
    assert solved["solution"]["metrics"]["solver"]["time_limit_seconds"] == 7
    absent = f"e1:{START_DATE}"
    code, planned, _ = run("solve", request, "--absent", absent, "--time-limit", "8", *remote)
    assert code == 0 and planned["status"] == "completed" and "ledger" in planned
    assert planned["solution"]["metrics"]["solver"]["time_limit_seconds"] == 8
    code, default, _ = run("solve", request, *remote)
    assert default["solution"]["metrics"]["solver"]["time_limit_seconds"] == 30


def test_an_option_the_request_cannot_carry_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: Server
) -> None:
    """``--workers`` and ``--seed`` (the service's own), and a time limit the request's
    options cannot hold, are refused with ``--remote`` (exit 2, the option and why on
    stderr) before any call: nothing is charged."""
    request = str(four_employees(tmp_path))
    monkeypatch.setenv(API_KEY_VARIABLE, KEY)
    with Client(server.api, KEY) as client:
        before = client.usage().available_units
        refused = {
            ("solve", "--workers", "1"): ("--workers", "CP-SAT workers"),
            ("solve", "--seed", "0"): ("--seed", "random seed"),  # the default, said
            ("explain", request, "--workers", "2"): ("--workers", "CP-SAT workers"),
            ("replan", request, "--absent", f"e1:{START_DATE}", "--seed", "3"): (
                "--seed",
                "random seed",
            ),
            ("solve", "--time-limit", "2.5"): ("--time-limit 2.5", "whole seconds from 1 to 300"),
            ("solve", "--time-limit", "301"): ("--time-limit 301", "whole seconds from 1 to 300"),
        }
        for (command, *rest), (option, why) in refused.items():
            code, out, said = run(command, request, *rest, "--remote", server.api)
            assert (code, out) == (2, None), said
            assert said.startswith(f"bad input: {option} cannot go with --remote") and why in said
        assert client.usage().available_units == before
