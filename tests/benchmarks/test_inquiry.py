"""The inquiry benchmark: its hand edits, diff and planted requests, and the command end
to end on tiny sizes (what it writes, never how fast anything was)."""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

import pytest

from benchmarks.inquiry import (
    PLANTED,
    diff_agrees,
    hand_edited,
    holed,
    main,
    names_planted,
    tiny_request,
)
from benchmarks.machine import ROOT
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import roster_changes
from shiftsched.contract.v1 import Assignment

MONDAY = dt.date(2026, 3, 2)


def roster() -> list[Assignment]:
    return [
        Assignment(employee_id=e, date=MONDAY + dt.timedelta(days=d), shift_id=s)
        for d in range(7)
        for e, s in (("e1", "day"), ("e2", "night"))
    ]


def test_a_hand_edit_changes_that_many_cells_and_keeps_one_per_cell() -> None:
    request = parse_request(tiny_request())
    for seed in range(20):
        edited = hand_edited(request, roster(), 4, random.Random(seed))
        assert len(roster_changes(roster(), edited)) == 4
        assert len({(a.employee_id, a.date) for a in edited}) == len(edited)


def test_holes_never_remove_a_fixed_assignment() -> None:
    data = tiny_request()
    data["employees"][0]["fixed_assignments"] = [{"date": "2026-03-02", "shift_id": "day"}]
    request = parse_request(data)
    for seed in range(20):
        left = holed(request, roster(), 13, random.Random(seed))
        assert len(left) == 1
        assert (left[0].employee_id, left[0].date) == ("e1", MONDAY)


def test_the_direct_diff_agrees_with_the_changes_and_catches_a_wrong_one() -> None:
    before = roster()
    after = hand_edited(parse_request(tiny_request()), before, 5, random.Random(1))
    changes = roster_changes(before, after)
    assert diff_agrees(before, after, changes)
    assert not diff_agrees(before, after, changes[1:])
    wrong = changes[0].model_copy(update={"to_shift_id": "elsewhere", "change": "moved"})
    assert not diff_agrees(before, after, [wrong, *changes[1:]])


def test_every_planted_request_is_valid_and_names_its_item() -> None:
    for plant in PLANTED.values():
        data = tiny_request()
        path, date, shift_id = plant(data)
        request = parse_request(data)
        assert shift_id in {s.id for s in request.shifts}
        assert request.schedule_period.start_date <= dt.date.fromisoformat(date)
        assert path.startswith(("request.", "absences["))
    assert names_planted(
        "request.employees[0].available_weekdays", "request.employees[2].available_weekdays"
    )
    assert not names_planted("request.constraints.employee_pairings[0]", "request.employees[0]")


def test_help_names_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "python -m benchmarks inquiry" in out
    assert "--only {audit,explain,planted,compare}" in out


@pytest.mark.slow
@pytest.mark.wall_clock  # explaining is limited by the wall clock, as a manager's call is
def test_the_command_writes_every_figure(tmp_path: Path) -> None:
    small = str(ROOT / "datasets" / "retail_weekdays.json")
    tiny = "--repeats 2 --seeds 2 --employees 6 --days 7 --holes 2 --work 0.5 --time-limit 10"
    paths = ["--dataset", small, "--datasets", small, "--out", str(tmp_path)]
    code = main([*tiny.split(), "--workers", "1", *paths])
    assert code in (0, 1)  # a missed target is an exit code, not a failure of the command
    [written] = tmp_path.glob("*-inquiry.json")
    record = json.loads(written.read_text())
    assert {"settings", "machine", "revision", "targets"} <= record.keys()
    assert record["settings"]["dataset"] == "datasets/retail_weekdays.json"
    audit = record["audit"]
    for name in ("audit", "review", "audit_edited", "review_edited", "review_from_json"):
        assert audit["ms"][name]["runs"] == 2
        assert audit["ms"][name]["median"] <= audit["ms"][name]["worst"]
    assert set(audit["ratio_review_to_audit"]) == {"median", "worst"}
    assert audit["edited"]["cells_changed"] == 5
    explain = record["explain"]
    assert len(explain["rows"]) == 4 and {r["seed"] for r in explain["rows"]} == {1, 2}
    totals = explain["totals"]
    assert totals["shortages"] == totals["avoidable"] + totals["unavoidable"] + totals["undecided"]
    assert totals["fill_faults"] == 0 and totals["wrongly_unavoidable"] == 0
    assert record["planted"]["of"] == 10 and len(record["planted"]["rows"]) == 10
    [compared] = record["compare"]["rows"]
    assert compared["agrees"] and compared["ms"]["runs"] == 2
    assert [t["met"] for t in record["targets"]].count(True) <= len(record["targets"]) == 6
    summary = written.with_suffix(".md").read_text()
    assert "| target | measured | verdict |" in summary
    assert "PASS" in summary or "MISS" in summary


def test_one_part_alone_writes_only_that_part(tmp_path: Path) -> None:
    small = str(ROOT / "datasets" / "retail_weekdays.json")
    main(["--only", "compare", "--repeats", "1", "--datasets", small, "--out", str(tmp_path)])
    [written] = tmp_path.glob("*-inquiry.json")
    record = json.loads(written.read_text())
    assert "compare" in record and not {"audit", "explain", "planted"} & record.keys()
    assert len(record["targets"]) == 1
