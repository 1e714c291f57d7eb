"""The command line: exit codes, JSON on stdout, and the solve | audit pipeline."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.__main__ import EXIT_FAILED, EXIT_INVALID, EXIT_OK, main
from tests.factories import minimal_request_dict

ROOT = Path(__file__).parent.parent
RETAIL = ROOT / "datasets" / "retail_weekdays.json"


def run(argv: list[str], stdin: str = "") -> tuple[int, Any]:
    out = io.StringIO()
    code = main(argv, out=out, stdin=io.StringIO(stdin))
    return code, json.loads(out.getvalue())


def write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_validate_prints_counts_and_hints() -> None:
    code, body = run(["validate", str(RETAIL)])
    assert code == EXIT_OK
    assert body["valid"] is True
    assert body["employee_count"] == 12
    assert any("size" in h["hint"] for h in body["hints"])


def test_validate_reports_every_fault_with_its_path(tmp_path: Path) -> None:
    data = minimal_request_dict()
    data["employees"][0]["assignable_shift_ids"] = ["nope"]
    data["shifts"][0]["staffing_demand"] = data["shifts"][0]["staffing_demand"][:1]
    code, body = run(["validate", write(tmp_path, "bad.json", data)])
    assert code == EXIT_INVALID
    found = {(tuple(e["path"]), e["code"]) for e in body["errors"]}
    assert (("employees", 0, "assignable_shift_ids", 0), "unknown_shift_id") in found
    assert (("shifts", 0, "staffing_demand"), "demand_length_mismatch") in found


def test_invalid_json_and_missing_file_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    code, body = run(["solve", str(broken)])
    assert (code, body["errors"][0]["code"]) == (EXIT_INVALID, "invalid_json")
    code, body = run(["validate", str(tmp_path / "absent.json")])
    assert (code, body["errors"][0]["code"]) == (EXIT_INVALID, "unreadable_file")


def test_solve_then_audit_from_stdin_is_clean() -> None:
    code, response = run(["solve", str(RETAIL), "--time-limit", "5", "--workers", "1"])
    assert code == EXIT_OK
    assert response["status"] == "completed"
    code, report = run(["audit", str(RETAIL), "-"], stdin=json.dumps(response))
    assert code == EXIT_OK
    assert report["hard_violations"] == []
    assert report["metrics_mismatches"] == []
    assert report["objective_value"] == response["solution"]["metrics"]["objective_value"]


def test_audit_of_a_hand_edited_roster_names_the_broken_rule(tmp_path: Path) -> None:
    _, response = run(["solve", str(RETAIL), "--time-limit", "5", "--workers", "1"])
    first = response["solution"]["assignments"][0]
    twice = {
        **first,
        "shift_id": next(
            s["id"]
            for s in json.loads(RETAIL.read_text())["shifts"]
            if s["id"] != first["shift_id"]
        ),
    }
    edited = {"assignments": [*response["solution"]["assignments"], twice]}
    code, report = run(["audit", str(RETAIL), write(tmp_path, "edited.json", edited)])
    assert code == EXIT_FAILED
    assert "one_shift_per_date" in {v["code"] for v in report["hard_violations"]}


def test_infeasible_request_exits_1_with_no_solution(tmp_path: Path) -> None:
    data = minimal_request_dict()
    employee = data["employees"][0]
    employee["fixed_assignments"] = [
        {
            "date": data["schedule_period"]["start_date"],
            "shift_id": employee["assignable_shift_ids"][0],
        }
    ]
    employee["shift_count_limits"] = [{"shift_id": employee["assignable_shift_ids"][0], "max": 0}]
    code, body = run(["solve", write(tmp_path, "infeasible.json", data), "--time-limit", "5"])
    assert code == EXIT_FAILED
    assert (body["status"], body["error"]["code"]) == ("failed", "no_solution")


@pytest.mark.parametrize("argv", [["solve"], ["audit", "only-one.json"], ["frobnicate"]])
def test_usage_errors_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv, out=io.StringIO())
    assert caught.value.code == 2


def test_module_entry_point_pipes_solve_into_audit() -> None:
    """The documented one-liner, as real processes."""
    solve = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "solve",
            str(RETAIL),
            "--time-limit",
            "5",
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert solve.returncode == 0, solve.stderr
    audit = subprocess.run(
        [sys.executable, "-m", "engine", "audit", str(RETAIL), "-"],
        input=solve.stdout,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert audit.returncode == 0, audit.stdout
    assert json.loads(audit.stdout)["hard_violations"] == []
