"""The command line's questions about a roster: compare, explain, why, and an audit of a
roster that belongs to another request.

The roster is the proven optimum of the minimal request with a spare employee, and every
re-plan behind an answer ends on its proof (one worker, a fixed seed), so only what
holds for any optimal roster is asserted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment
from tests.audited import solved_and_audited
from tests.cli.test_cli import EXIT_INVALID, EXIT_OK, RETAIL, faults, run, run_text, write
from tests.factories import employee_dict, minimal_request_dict

Json = dict[str, Any]


@pytest.fixture(scope="module")
def published() -> tuple[Json, list[Json]]:
    data = minimal_request_dict()
    data["employees"].append(employee_dict("e4"))
    solution = solved_and_audited(parse_request(data))
    return data, [a.model_dump(mode="json", exclude_none=True) for a in solution.assignments]


def test_compare_prints_the_changes_from_a_to_b(
    tmp_path: Path, published: tuple[Json, list[Json]]
) -> None:
    data, roster = published
    request = write(tmp_path, "request.json", data)
    a = write(tmp_path, "a.json", {"assignments": roster})
    b = write(tmp_path, "b.json", roster[1:])
    code, answer = run(["compare", request, a, b])
    assert code == EXIT_OK
    [change] = answer["changes"]
    assert (change["employee_id"], change["change"]) == (roster[0]["employee_id"], "removed")
    [employee] = answer["employees"]
    assert (employee["shifts"], employee["changed_cells"]) == (-1, 1)
    assert answer["objective_delta"] == answer["objective_after"] - answer["objective_before"]
    assert answer["objective_delta"] > 0  # a head is missing now


@pytest.mark.slow
def test_explain_prints_one_entry_per_shortage(
    tmp_path: Path, published: tuple[Json, list[Json]]
) -> None:
    data, roster = published
    request = write(tmp_path, "request.json", data)
    holed = write(tmp_path, "holed.json", roster[1:])
    code, answer = run(["explain", request, holed, "--workers", "1", "--time-limit", "120"])
    assert code == EXIT_OK
    [entry] = answer["explanations"]
    assert entry["verdict"] == "avoidable"
    fill = [Assignment.model_validate(a) for a in entry["roster"]]
    assert audit(parse_request(data), fill).hard_violations == []


@pytest.mark.slow
def test_why_prints_the_verdict(tmp_path: Path, published: tuple[Json, list[Json]]) -> None:
    data, roster = published
    data = json.loads(json.dumps(data))
    cell = roster[0]
    request = write(tmp_path, "request.json", data)
    published_roster = write(tmp_path, "roster.json", roster)
    argv = ["why", request, published_roster, "--employee", cell["employee_id"]]
    code, answer = run([*argv, "--date", cell["date"], "--workers", "1", "--time-limit", "120"])
    assert code == EXIT_OK
    assert answer["verdict"] == "possible"
    code, answer = run([*argv, "--date", cell["date"], "--shift", cell["shift_id"]])
    assert (code, answer["verdict"]) == (EXIT_OK, "already")


def test_a_roster_of_another_request_is_one_fault(
    tmp_path: Path, published: tuple[Json, list[Json]]
) -> None:
    _, roster = published
    code, stdout, stderr = run_text(["audit", str(RETAIL), write(tmp_path, "r.json", roster)])
    assert (code, stdout) == (EXIT_INVALID, "")
    assert faults(stderr) == [("(root)", "roster_of_another_request")]
    response = {"solution": {"assignments": roster, "metrics": {}}}
    code, _, stderr = run_text(["audit", str(RETAIL), write(tmp_path, "s.json", response)])
    assert faults(stderr) == [("solution.assignments", "roster_of_another_request")]


def test_export_and_recommend_of_another_requests_roster_say_so_once(
    tmp_path: Path, published: tuple[Json, list[Json]]
) -> None:
    _, roster = published
    other = write(tmp_path, "r.json", {"assignments": roster})
    code, stdout, stderr = run_text(["export", str(RETAIL), other, "--format", "csv"])
    assert (code, stdout) == (EXIT_INVALID, "")
    assert faults(stderr) == [("assignments", "roster_of_another_request")]
    slot = "2026-04-27:" + json.loads(RETAIL.read_text())["shifts"][0]["id"]
    code, _, stderr = run_text(["recommend", str(RETAIL), other, "--slot", slot])
    assert (code, faults(stderr)) == (EXIT_INVALID, [("roster", "roster_of_another_request")])


def test_a_wrong_history_is_one_fault_on_the_command_line(
    tmp_path: Path, published: tuple[Json, list[Json]]
) -> None:
    """The period's own roster as its history, or another request's, is one line."""
    data, roster = published
    request = write(tmp_path, "request.json", data)
    own = write(tmp_path, "roster.json", {"assignments": roster})
    code, stdout, stderr = run_text(["audit", request, own, "--history", own])
    assert (code, stdout) == (EXIT_INVALID, "")
    assert stderr.splitlines()[0] == "bad input: 1 fault"
    assert faults(stderr) == [("history.assignments", "history_overlaps_period")]
    code, _, stderr = run_text(["solve", str(RETAIL), "--history", own])
    assert code == EXIT_INVALID
    assert faults(stderr) == [("history.assignments", "history_of_another_request")]


# ----------------------------------------------------------------- --format table


def _table(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str], str]:
    """The answer as a person reads it at 100 columns: its lines, none wider."""
    monkeypatch.setenv("COLUMNS", "100")
    code, stdout, stderr = run_text([*argv, "--format", "table"])
    lines = stdout.splitlines()
    assert all(len(line) <= 100 for line in lines), lines
    assert not stdout.lstrip().startswith("{")  # words, not JSON
    return code, lines, stderr


def test_audit_and_compare_tables_give_the_verdict_and_the_changes(
    tmp_path: Path, published: tuple[Json, list[Json]], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, roster = published
    request = write(tmp_path, "request.json", data)
    a = write(tmp_path, "a.json", {"assignments": roster})
    b = write(tmp_path, "b.json", roster[1:])
    code, lines, _ = _table(["audit", request, a], monkeypatch)
    assert code == EXIT_OK
    assert lines[0].startswith("audit: no hard rule broken; objective ")
    code, lines, stderr = _table(["compare", request, a, b], monkeypatch)
    assert code == EXIT_OK
    assert lines[0].startswith("1 cell differs for 1 employee; objective ")
    first = roster[0]
    [change] = [line for line in lines if line.startswith(f"  {first['employee_id']} ")]
    assert first["date"] in change and change.endswith(" -> off")
    assert stderr.startswith("1 cell differs for 1 employee; ")


def test_why_table_gives_the_verdict_and_the_cells_that_change_once(
    tmp_path: Path, published: tuple[Json, list[Json]], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, roster = published
    cell = roster[0]
    request = write(tmp_path, "request.json", data)
    published_roster = write(tmp_path, "roster.json", roster)
    argv = ["why", request, published_roster, "--employee", cell["employee_id"]]
    argv += ["--date", cell["date"], "--workers", "1", "--time-limit", "120"]
    code, lines, stderr = _table(argv, monkeypatch)
    assert code == EXIT_OK
    assert lines[0].endswith("? possible")
    assert any(line.endswith("changed cell:") or line.endswith("changed cells:") for line in lines)
    assert len(lines) < 20  # the answer, not the roster
    [said] = stderr.splitlines()
    assert "possible: possible" not in said and said.count("possible") == 1


def test_explain_table_gives_one_entry_per_shortage(
    tmp_path: Path, published: tuple[Json, list[Json]], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, roster = published
    request = write(tmp_path, "request.json", data)
    holed = write(tmp_path, "holed.json", roster[1:])
    argv = ["explain", request, holed, "--workers", "1", "--time-limit", "120"]
    code, lines, _ = _table(argv, monkeypatch)
    assert code == EXIT_OK
    assert lines[0].startswith("1 shortage explained")
    [entry] = [line for line in lines[1:] if not line.startswith(" ")]
    assert entry.split()[1] == roster[0]["date"] and "missing" in entry


def test_explain_table_counts_the_heads_and_offers_no_move_as_a_fill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The planted Tuesday of tests.questions.test_explain_heads: of two day heads
    missing, one only moves a night head and one nobody may take; no fill is offered."""
    from tests.questions.test_explain_heads import planted

    data, roster = planted(idle_day_worker=False)
    request = write(tmp_path, "request.json", data)
    short = write(tmp_path, "short.json", roster)
    argv = ["explain", request, short, "--workers", "1", "--time-limit", "120"]
    code, lines, _ = _table(argv, monkeypatch)
    assert code == EXIT_OK
    text = " ".join(line.strip() for line in lines[1:])
    assert "2 of 3 heads missing: unavoidable:" in text
    assert "(2 heads missing: 1 only movable, 1 unavoidable)" in text
    assert "takes it" not in text and "can be filled:" not in text
