"""``--remote URL``: the command line's operations run on a served service (``make
serve``, started here by ``tests.service.processes.served``) instead of in-process, with
the key from ``SHIFTSCHED_API_KEY``; answers, faults and refusals keep their exit codes.

The service solves with one CP-SAT worker; only what holds for any roster is asserted.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from shiftsched.cli.main import main
from shiftsched.client import API_KEY_VARIABLE
from tests.factories import employee_dict, minimal_request_dict
from tests.infeasible import load_planted
from tests.service.processes import serve_environment, served

KEY = "sk_test_" + "e" * 64

pytestmark = pytest.mark.slow


def run(*argv: str) -> tuple[int, Any, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    text = out.getvalue()
    return code, json.loads(text) if text.strip() else None, err.getvalue()


def test_the_operations_run_on_the_served_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = minimal_request_dict()
    data["employees"] = [employee_dict(f"e{i}") for i in range(1, 5)]
    request = tmp_path / "request.json"
    request.write_text(json.dumps(data))
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**data, "shifts": "none"}))
    env = serve_environment(tmp_path, DEMO_API_KEY=KEY)
    with served(env, tmp_path / "serve.log", ready="/v1/public/openapi.json") as server:
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
