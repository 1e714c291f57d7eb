"""The command line: exit codes, the result alone on stdout, people's lines on stderr,
and the solve | audit pipeline."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from shiftsched.__main__ import EXIT_FAILED, EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, main
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveResponse
from shiftsched.present.console import summary
from tests.factories import minimal_request_dict

ROOT = Path(__file__).parent.parent.parent
RETAIL = ROOT / "datasets" / "retail_weekdays.json"
# RETAIL is proven optimal in a second or two: a limit only a broken solve reaches.
LIMIT = "120"


def run(argv: list[str], stdin: str = "") -> tuple[int, Any]:
    """Exit code and the JSON result on stdout."""
    code, stdout, _ = run_text(argv, stdin)
    return code, json.loads(stdout)


def run_text(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """Exit code, stdout and stderr, as text."""
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, stdin=io.StringIO(stdin), err=err)
    return code, out.getvalue(), err.getvalue()


def process(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m shiftsched ARGS`` as a real process, from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "shiftsched", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


def faults(stderr: str) -> list[tuple[str, str]]:
    """(path, code) of every fault line on stderr: ``  path: message (code)``."""
    found = []
    for line in stderr.splitlines():
        if line.startswith("  ") and line.endswith(")"):
            path = line.strip().split(": ", 1)[0]
            found.append((path, line.rsplit("(", 1)[1].rstrip(")")))
    return found


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


def test_validate_also_lists_the_faults_for_people_on_stderr(tmp_path: Path) -> None:
    data = minimal_request_dict()
    data["employees"][0]["favourite_colour"] = "green"
    code, stdout, stderr = run_text(["validate", write(tmp_path, "bad.json", data)])
    assert code == EXIT_INVALID
    assert json.loads(stdout)["errors"][0]["path"] == ["employees", 0, "favourite_colour"]
    assert faults(stderr) == [("employees[0].favourite_colour", "unknown_field")]


def test_invalid_json_and_missing_file_exit_2_with_nothing_on_stdout(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    code, stdout, stderr = run_text(["solve", str(broken)])
    assert (code, stdout, faults(stderr)) == (EXIT_INVALID, "", [("(root)", "invalid_json")])
    code, _, stderr = run_text(["validate", str(tmp_path / "absent.json")])
    assert (code, faults(stderr)) == (EXIT_INVALID, [("(root)", "unreadable_file")])


def test_solve_then_audit_from_stdin_is_clean() -> None:
    code, response = run(["solve", str(RETAIL), "--time-limit", LIMIT, "--workers", "1"])
    assert code == EXIT_OK
    assert response["status"] == "completed"
    code, report = run(["audit", str(RETAIL), "-"], stdin=json.dumps(response))
    assert code == EXIT_OK
    assert report["hard_violations"] == []
    assert report["metrics_mismatches"] == []
    assert report["objective_value"] == response["solution"]["metrics"]["objective_value"]


def test_audit_of_a_hand_edited_roster_names_the_broken_rule(tmp_path: Path) -> None:
    _, response = run(["solve", str(RETAIL), "--time-limit", LIMIT, "--workers", "1"])
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
    code, body = run(
        ["solve", write(tmp_path, "infeasible.json", data), "--time-limit", LIMIT, "--workers", "1"]
    )
    assert code == EXIT_FAILED
    assert (body["status"], body["error"]["code"]) == ("failed", "no_solution")


@pytest.mark.parametrize("argv", [["solve"], ["audit", "only-one.json"], ["frobnicate"]])
def test_usage_errors_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv, out=io.StringIO())
    assert caught.value.code == 2


@pytest.mark.slow
def test_module_entry_point_pipes_solve_into_audit() -> None:
    """The documented one-liner, as real processes."""
    solve = process("solve", str(RETAIL), "--time-limit", LIMIT, "--workers", "1")
    assert solve.returncode == 0, solve.stderr
    audit = process("audit", str(RETAIL), "-", stdin=solve.stdout)
    assert audit.returncode == 0, audit.stdout
    assert json.loads(audit.stdout)["hard_violations"] == []


# ------------------------------------------------------------------ audit of any response


@pytest.fixture(scope="module")
def solved() -> dict[str, Any]:
    """A real SolveResponse for RETAIL, as the CLI prints it."""
    code, response = run(["solve", str(RETAIL), "--time-limit", LIMIT, "--workers", "1"])
    assert (code, response["status"]) == (EXIT_OK, "completed")
    return dict(response)


def edited(response: dict[str, Any]) -> dict[str, Any]:
    """A deep copy to edit."""
    return dict(json.loads(json.dumps(response)))


@pytest.mark.slow
def test_audit_notes_metrics_fields_it_does_not_know(
    solved: dict[str, Any], tmp_path: Path
) -> None:
    """A roster from another tool: the audit runs, and the unknown fields are a note."""
    response = edited(solved)
    response["solution"]["metrics"]["coverage_score"] = 0.97
    response["solution"]["metrics"]["engine"] = {"name": "other", "version": "2"}
    response["solution"]["produced_by"] = "another tool"
    audit = process("audit", str(RETAIL), write(tmp_path, "other.json", response))
    assert audit.returncode == EXIT_OK
    assert audit.stderr.startswith("audit clean: 0 hard violations")
    report = json.loads(audit.stdout)
    assert report["hard_violations"] == []
    assert report["metrics_mismatches"] == []
    assert report["objective_value"] == solved["solution"]["metrics"]["objective_value"]
    [note] = report["notes"]
    assert "solution.metrics" in note
    assert "coverage_score, engine" in note


def test_audit_runs_without_metrics_and_says_the_comparison_was_skipped(
    solved: dict[str, Any],
) -> None:
    response = edited(solved)
    del response["solution"]["metrics"]
    code, report = run(["audit", str(RETAIL), "-"], stdin=json.dumps(response))
    assert code == EXIT_OK
    assert report["hard_violations"] == []
    assert report["objective_value"] == solved["solution"]["metrics"]["objective_value"]
    assert report["notes"] == [
        "comparison with the reported metrics skipped: solution.metrics is missing"
    ]
    assert report["metrics_mismatches"] == []  # the shortages were still compared


def test_audit_skips_unreadable_metrics_naming_the_fault(solved: dict[str, Any]) -> None:
    response = edited(solved)
    response["solution"]["metrics"]["objective_value"] = "low"
    del response["solution"]["shortages"]
    code, report = run(["audit", str(RETAIL), "-"], stdin=json.dumps(response))
    assert code == EXIT_OK
    assert report["hard_violations"] == []
    assert "metrics_mismatches" not in report  # nothing was compared
    metrics_note, shortages_note = report["notes"]
    assert metrics_note.startswith("comparison with the reported metrics skipped: ")
    assert "solution.metrics.objective_value: " in metrics_note
    assert shortages_note == (
        "comparison with the reported shortages skipped: solution.shortages is missing"
    )


def test_audit_still_reports_metrics_that_disagree(solved: dict[str, Any]) -> None:
    response = edited(solved)
    response["solution"]["metrics"]["objective_value"] += 1
    response["solution"]["metrics"]["unknown"] = True
    code, report = run(["audit", str(RETAIL), "-"], stdin=json.dumps(response))
    assert code == EXIT_FAILED
    assert [m.split(":")[0] for m in report["metrics_mismatches"]] == ["objective_value"]
    assert len(report["notes"]) == 1


def test_audit_of_a_bad_assignment_exits_2_with_its_path(
    solved: dict[str, Any], tmp_path: Path
) -> None:
    response = edited(solved)
    response["solution"]["assignments"][3]["date"] = "2026-13-01"
    del response["solution"]["assignments"][5]["shift_id"]
    code, stdout, stderr = run_text(["audit", str(RETAIL), write(tmp_path, "bad.json", response)])
    assert (code, stdout) == (EXIT_INVALID, "")
    assert faults(stderr) == [
        ("solution.assignments[3].date", "invalid_format"),
        ("solution.assignments[5].shift_id", "missing_field"),
    ]


@pytest.mark.parametrize(
    ("response", "path", "code"),
    [
        (
            {"job_id": "j", "status": "completed", "solution": {"metrics": {}}},
            "solution.assignments",
            "missing_field",
        ),
        ({"job_id": "j", "status": "failed", "solution": None}, "solution", "wrong_type"),
        ({"solution": {"assignments": {}}}, "solution.assignments", "wrong_type"),
        ({"roster": []}, "(root)", "wrong_type"),
        ("a string", "(root)", "wrong_type"),
    ],
)
def test_audit_of_a_response_without_assignments_exits_2(
    response: Any, path: str, code: str
) -> None:
    exit_code, stdout, stderr = run_text(["audit", str(RETAIL), "-"], stdin=json.dumps(response))
    assert (exit_code, stdout) == (EXIT_INVALID, "")
    assert faults(stderr) == [(path, code)]


@pytest.mark.slow
def test_audit_of_a_response_that_is_not_json_exits_2(tmp_path: Path) -> None:
    broken = tmp_path / "roster.json"
    broken.write_text('{"solution": {"assignments": [')
    audit = process("audit", str(RETAIL), str(broken))
    assert (audit.returncode, audit.stdout) == (EXIT_INVALID, "")
    assert faults(audit.stderr) == [("(root)", "invalid_json")]
    assert str(broken) in audit.stderr
    assert "Traceback" not in audit.stderr


def test_audit_of_an_invalid_request_exits_2_with_its_path(
    solved: dict[str, Any], tmp_path: Path
) -> None:
    request = json.loads(RETAIL.read_text())
    request["employees"][0]["assignable_shift_ids"] = 7
    code, stdout, stderr = run_text(
        ["audit", write(tmp_path, "request.json", request), "-"], stdin=json.dumps(solved)
    )
    assert (code, stdout) == (EXIT_INVALID, "")
    assert [path for path, _ in faults(stderr)] == ["employees[0].assignable_shift_ids"]


# ------------------------------------------------------------------ people's output


def test_solve_summary_on_stderr_agrees_with_the_response() -> None:
    code, stdout, stderr = run_text(["solve", str(RETAIL), "--time-limit", LIMIT, "--workers", "1"])
    response = json.loads(stdout)
    metrics = response["solution"]["metrics"]
    assert code == EXIT_OK
    [line] = stderr.splitlines()
    assert line.startswith(
        f"{metrics['status']} roster, objective {metrics['objective_value']:,.0f}"
    )
    shortages = len(response["solution"]["shortages"])
    assert ("no shortage" if shortages == 0 else f"{shortages} shortage") in line
    assert "12 employees x 21 days" in line


def test_the_summary_of_a_month_fits_100_columns() -> None:
    """The longest summary a month of the ward gives: no roster proven, a gap, its size."""
    request = parse_request(json.loads((ROOT / "datasets" / "ward_24_7.json").read_text()))
    metrics = {
        "status": "feasible",
        "objective_value": 1_234_980,
        "best_bound": 1_000_100,
        "gap": 0.898,
        "solver_runtime_seconds": 1234.5,
    }
    response = SolveResponse.model_validate(
        {
            "job_id": "j",
            "status": "completed",
            "solution": {"assignments": [], "shortages": [], "metrics": metrics},
        }
    )
    line = summary(request, response)
    assert len(line) <= 100, line
    assert line.startswith("feasible roster, objective 1,234,980")


def test_quiet_leaves_stderr_empty() -> None:
    code, stdout, stderr = run_text(
        ["solve", str(RETAIL), "--time-limit", LIMIT, "--workers", "1", "--quiet"]
    )
    assert (code, stderr) == (EXIT_OK, "")
    assert json.loads(stdout)["status"] == "completed"


def test_an_infeasible_solve_says_so_on_stderr(tmp_path: Path) -> None:
    data = minimal_request_dict()
    employee = data["employees"][0]
    shift = employee["assignable_shift_ids"][0]
    employee["fixed_assignments"] = [
        {"date": data["schedule_period"]["start_date"], "shift_id": shift}
    ]
    employee["shift_count_limits"] = [{"shift_id": shift, "max": 0}]
    code, _, stderr = run_text(
        ["solve", write(tmp_path, "infeasible.json", data), "--time-limit", LIMIT, "--workers", "1"]
    )
    assert code == EXIT_FAILED
    assert stderr.startswith("no roster (no_solution)")


def test_live_progress_lines_show_the_best_roster_bound_and_gap() -> None:
    from shiftsched.present.console import LiveProgress
    from shiftsched.solving.search.progress import ProgressPoint

    live = LiveProgress(io.StringIO(), time_limit=30)
    assert live.line().endswith("no roster yet")
    live.update(ProgressPoint(0.5, 1200.0, float("-inf")))
    live.update(ProgressPoint(0.9, None, 900.0))
    live.update(ProgressPoint(1.1, 1000.0, 900.0))
    line = live.line()
    assert "of 30 s" in line
    assert line.endswith("best 1,000  bound 900  gap 10.0%")


def test_progress_into_a_pipe_writes_lines_while_the_block_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Waits for lines, not for time: the ticker must write while the block runs."""
    import threading

    from shiftsched.present import console

    monkeypatch.setattr(console, "TICK_SECONDS", 0.01)
    err = io.StringIO()
    live = console.LiveProgress(err, time_limit=None)
    written = threading.Event()
    with live.shown():
        for _ in range(3000):
            if err.getvalue().count("\n") >= 2:
                written.set()
                break
            threading.Event().wait(0.01)
    assert written.is_set()
    assert all(line.startswith("solving") for line in err.getvalue().splitlines())


@pytest.mark.slow
def test_progress_flag_as_a_process_keeps_stdout_json() -> None:
    """The exact invocation other tools rely on."""
    solve = process("solve", str(RETAIL), "--progress", "--workers", "1")
    assert solve.returncode == EXIT_OK
    assert json.loads(solve.stdout)["status"] == "completed"
    assert solve.stderr.splitlines()[-1].startswith("optimal roster")


@pytest.mark.slow
def test_bad_input_as_a_process_prints_nothing_on_stdout(tmp_path: Path) -> None:
    data = minimal_request_dict()
    data["employees"][0]["favourite_colour"] = "green"
    solve = process("solve", write(tmp_path, "bad.json", data))
    assert (solve.returncode, solve.stdout) == (EXIT_INVALID, "")
    assert faults(solve.stderr) == [("employees[0].favourite_colour", "unknown_field")]


def test_an_internal_error_exits_3_without_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fault injected where no input can reach: the CLI's last resort."""
    import shiftsched.contract.parse

    def broken(_: object) -> None:
        raise RuntimeError("injected")

    monkeypatch.setattr(shiftsched.contract.parse, "parse_request", broken)
    code, stdout, stderr = run_text(["solve", str(RETAIL)])
    assert (code, stdout) == (EXIT_INTERNAL, "")
    assert stderr.startswith("internal error: RuntimeError: injected")


# ---------------------------------------------------------------- replan and recommend


def _published(tmp_path: Path) -> tuple[str, str, dict[str, Any]]:
    """The minimal request with five employees, and its optimal roster, as files."""
    data = minimal_request_dict()
    data["employees"] = [
        {"id": f"e{i}", "assignable_shift_ids": ["day", "night"]} for i in range(1, 6)
    ]
    request = write(tmp_path, "request.json", data)
    code, response = run(["solve", request, "--time-limit", LIMIT, "--workers", "1", "-q"])
    assert code == EXIT_OK
    return request, write(tmp_path, "response.json", response), response


def test_replan_lists_changes_and_keeps_the_absence(tmp_path: Path) -> None:
    request, response, published = _published(tmp_path)
    sick = next(a for a in published["solution"]["assignments"] if a["date"] == "2026-03-04")
    argv = ["replan", request, response, "--absent", f"{sick['employee_id']}:2026-03-04"]
    code, body = run([*argv, "--pin-before", "2026-03-04", "--time-limit", LIMIT, "--workers", "1"])
    assert code == EXIT_OK
    assert body["status"] == "completed"
    assert isinstance(body["changes"], list) and body["changes"]
    assert set(body) == {"job_id", "status", "solution", "changes"}
    mine = [c for c in body["changes"] if c["employee_id"] == sick["employee_id"]]
    assert [(c["date"], c["change"]) for c in mine] == [("2026-03-04", "removed")]
    assert all(c["date"] >= "2026-03-04" for c in body["changes"])


def test_recommend_ranks_candidates(tmp_path: Path) -> None:
    request, response, _ = _published(tmp_path)
    code, body = run(
        ["recommend", request, response, "--slot", "2026-03-04:day:lead", "--top", "2"]
    )
    assert code == EXIT_OK
    assert set(body) == {"recommendations"}
    assert len(body["recommendations"]) == 2
    first = body["recommendations"][0]
    assert set(first) >= {
        "employee_id",
        "feasible",
        "hard_violations",
        "objective_delta",
        "changed_terms",
    }


@pytest.mark.slow
def test_replan_and_recommend_report_bad_input_by_path(tmp_path: Path) -> None:
    request, response, _ = _published(tmp_path)
    code, _, err = run_text(["replan", request, response, "--absent", "nobody:2026-03-04"])
    assert code == EXIT_INVALID
    assert faults(err) == [("absences[0].employee_id", "unknown_employee_id")]
    code, _, err = run_text(["recommend", request, response, "--slot", "2026-03-04:zz"])
    assert code == EXIT_INVALID
    assert faults(err) == [("slot.shift_id", "unknown_shift_id")]
    assert process("recommend", request, response, "--slot", "nonsense").returncode == 2
