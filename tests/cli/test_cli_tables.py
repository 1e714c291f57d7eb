"""The command line's ``--format table``: solve, replan and recommend as text that fits
the terminal.

Each table is read back as a person would read it, through its own legend: every line
fits the width, every cell names the assignment the roster holds, the ``short`` row and
the objective are the audit's, a re-plan's listed changes are the difference between the
two rosters, and a recommendation's deltas are the audit of the edited roster minus the
audit of the published one. Rosters are greedy ones or proven optima (one worker, a fixed
seed), and only what holds for any roster is asserted.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from rich.cells import cell_len

from shiftsched.checking.audit import audit
from shiftsched.checking.items import term_words
from shiftsched.contract.parse import parse_request
from shiftsched.contract.planning import Absence, roster_changes
from shiftsched.contract.v1 import Assignment, SolveRequest, SolveResponse
from shiftsched.present.answer_text import DEFAULT_WIDTH, solve_text, terminal_width
from shiftsched.present.console import number
from shiftsched.present.roster_text import roster_lines, unique_codes
from shiftsched.solving.greedy import greedy_roster, roster_assignments
from shiftsched.solving.problem import from_request
from tests.audited import solved_and_audited
from tests.cli.test_cli import EXIT_OK, RETAIL, ROOT, run_text, write

DATASETS = (
    "retail_weekdays",
    "ward_24_7",
    "factory_three_shifts",
    "call_centre_duties",
    "two_month_period",
    "max_size",
)
TITLE = re.compile(r"^\w{3} (\d{4}-\d{2}-\d{2}) to \w{3} (\d{4}-\d{2}-\d{2})$")
WEEKDAYS = ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su")

Cell = tuple[str, str, str | None]  # employee, shift, duty


@dataclass
class ReadTable:
    """A roster table as a reader sees it: the cells by (employee, date), the short row,
    the legend, and how many dates each block shows."""

    cells: dict[tuple[str, dt.date], str] = field(default_factory=dict)
    short: dict[dt.date, int] = field(default_factory=dict)
    holidays: set[dt.date] = field(default_factory=set)
    keys: list[str] = field(default_factory=list)  # the legend's entries, wrapped lines joined
    legend: dict[str, dict[str, str]] = field(default_factory=dict)
    block_sizes: list[int] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)  # the lines after the legend


def _dates(first: str, last: str) -> list[dt.date]:
    start, end = dt.date.fromisoformat(first), dt.date.fromisoformat(last)
    return [start + dt.timedelta(days=n) for n in range((end - start).days + 1)]


def _tokens(line: str) -> list[str]:
    return line.replace(" |", " ").split()


def _read_block(lines: Sequence[str], at: int, table: ReadTable) -> int:
    """The block whose title is ``lines[at]``; the index after its last line."""
    found = TITLE.match(lines[at])
    assert found, lines[at]
    dates = _dates(*found.groups())
    table.block_sizes.append(len(dates))
    assert _tokens(lines[at + 1]) == [WEEKDAYS[d.weekday()] for d in dates]
    assert _tokens(lines[at + 2]) == [f"{d.day:02d}" for d in dates]
    at += 3
    while at < len(lines) and lines[at]:
        label, *cells = _tokens(lines[at])
        assert len(cells) == len(dates), lines[at]
        for day, cell in zip(dates, cells, strict=True):
            if label == "short":
                table.short[day] = 0 if cell == "." else int(cell)
            elif label == "holiday":
                assert cell in (".", "H"), lines[at]
                if cell == "H":
                    table.holidays.add(day)
            else:
                table.cells[label, day] = cell
        at += 1
    return at + 1


def _read_legend(lines: Sequence[str], at: int, table: ReadTable) -> int:
    """``shifts: E Early, L Late`` (and ``duties: ...``), wrapped lines joined."""
    entries: list[str] = []
    while at < len(lines) and lines[at]:
        if lines[at].startswith("  "):
            entries[-1] += " " + lines[at].strip()
        else:
            entries.append(lines[at])
        at += 1
    table.keys = entries
    for entry in entries:
        kind, _, listed = entry.partition(": ")
        if kind in ("shifts", "duties"):
            pairs = (item.split(" ", 1) for item in listed.split(", "))
            table.legend[kind] = {code: name for code, name in pairs}
    return at + 1


def read_table(text: str, width: int) -> ReadTable:
    lines = text.splitlines()
    too_wide = [line for line in lines if cell_len(line) > width]
    assert not too_wide, too_wide
    table, at = ReadTable(), 0
    while at < len(lines) and lines[at].startswith("absent: "):
        at += 1
    at += not lines[at]  # the blank line after the absences
    while TITLE.match(lines[at]):
        at = _read_block(lines, at, table)
    at = _read_legend(lines, at, table)
    table.rest = lines[at:]
    return table


def decoded(request: SolveRequest, table: ReadTable) -> dict[tuple[str, dt.date], Cell | None]:
    """Each cell through the legend: the shift (and duty) it names, None for a day off.
    A cell marked changed (``*``) is read without its mark."""
    shift_ids = {s.name: s.id for s in request.shifts}
    duty_ids = {k.name: k.id for k in request.duties}
    shifts = {code: shift_ids[name] for code, name in table.legend.get("shifts", {}).items()}
    duties = {code: duty_ids[name] for code, name in table.legend.get("duties", {}).items()}
    out: dict[tuple[str, dt.date], Cell | None] = {}
    for (employee, day), cell in table.cells.items():
        code = cell.rstrip("*")
        if code == ".":
            out[employee, day] = None
            continue
        readings = [
            (employee, shifts[s], None if code == s else duties[code[len(s) :]])
            for s in shifts
            if code.startswith(s) and (code == s or code[len(s) :] in duties)
        ]
        assert len(readings) == 1, (cell, readings)
        out[employee, day] = readings[0]
    return out


def cells_of(roster: Sequence[Assignment]) -> dict[tuple[str, dt.date], Cell]:
    return {(a.employee_id, a.date): (a.employee_id, a.shift_id, a.duty_id) for a in roster}


def assert_shows(request: SolveRequest, table: ReadTable, roster: Sequence[Assignment]) -> None:
    """The table holds every cell of the period, each the roster's, and the audit's
    shortages in its short row."""
    period = request.schedule_period
    dates = _dates(period.start_date.isoformat(), period.end_date.isoformat())
    assert set(table.cells) == {(e.id, d) for e in request.employees for d in dates}
    shown = {key: cell for key, cell in decoded(request, table).items() if cell is not None}
    assert shown == cells_of(roster)
    missing: defaultdict[dt.date, int] = defaultdict(int)
    for marker in audit(request, roster).shortages:
        missing[marker.date] += marker.missing
    assert table.short == {d: missing[d] for d in dates}
    assert table.holidays == set(period.holidays) & set(dates)
    if table.holidays:
        assert any("holiday: H a holiday" in key for key in table.keys), table.keys


def greedy(name: str) -> tuple[SolveRequest, list[Assignment]]:
    request = parse_request(json.loads((ROOT / "datasets" / f"{name}.json").read_text()))
    problem = from_request(request)
    return request, roster_assignments(problem, greedy_roster(problem))


# ----------------------------------------------------------------------------- solve


@pytest.mark.parametrize("width", [40, 80, 120])
@pytest.mark.parametrize("name", DATASETS)
def test_every_dataset_reads_back_as_its_roster_at_any_width(name: str, width: int) -> None:
    request, roster = greedy(name)
    report = audit(request, roster)
    text = "\n".join(roster_lines(request, roster, report.shortages, width))
    table = read_table(text + "\n", width)
    assert_shows(request, table, roster)
    assert table.rest == []


def test_four_weeks_fit_side_by_side_at_120_columns_and_two_at_80() -> None:
    request, roster = greedy("ward_24_7")
    shortages = audit(request, roster).shortages
    wide = read_table("\n".join(roster_lines(request, roster, shortages, 120)), 120)
    narrow = read_table("\n".join(roster_lines(request, roster, shortages, 80)), 80)
    assert (wide.block_sizes, narrow.block_sizes) == ([28], [14, 14])


def test_a_solve_table_ends_with_the_audit_and_any_figure_that_disagrees() -> None:
    request, roster = greedy("call_centre_duties")
    report = audit(request, roster)
    response = SolveResponse.model_validate(
        {
            "job_id": "j",
            "status": "completed",
            "solution": {
                "assignments": [a.model_dump(mode="json") for a in roster],
                "metrics": {"solver_runtime_seconds": 1, "objective_value": 1.0},
                "shortages": [s.model_dump(mode="json") for s in report.shortages],
            },
        }
    )
    table = read_table(solve_text(request, response, 100), 100)
    assert_shows(request, table, roster)
    heads = sum(s.missing for s in report.shortages)
    assert table.rest[0].startswith(
        f"audited: objective {number(report.objective_value)}, 0 hard rules broken, "
        f"{heads} heads short on"
    )
    assert any(line.startswith("the solver's figure disagrees") for line in table.rest)


def test_codes_stay_distinct_when_ids_share_initials() -> None:
    ids = ["morning", "midday", "Morning", "m", "we_morning", "we-mid", "日勤", "夜勤"]
    codes = unique_codes(ids, str.upper)
    assert len(set(codes.values())) == len(ids)
    assert all(cell_len(code) <= 4 for code in codes.values())


def test_the_width_is_columns_else_80_when_stdout_is_no_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "132")
    assert terminal_width() == 132
    monkeypatch.delenv("COLUMNS")
    monkeypatch.setattr(sys, "__stdout__", io.StringIO())  # no file descriptor: no terminal
    assert terminal_width() == DEFAULT_WIDTH


def test_solve_prints_the_table_at_the_width_of_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    code, stdout, _ = run_text(["solve", str(RETAIL), "--workers", "1", "--format", "table"])
    assert code == EXIT_OK
    table = read_table(stdout, 100)
    request = parse_request(json.loads(RETAIL.read_text()))
    shown = decoded(request, table)
    roster = [
        Assignment(employee_id=e, date=d, shift_id=cell[1], duty_id=cell[2])
        for (e, d), cell in shown.items()
        if cell is not None
    ]
    report = audit(request, roster)
    assert table.rest[0].startswith(f"audited: objective {number(report.objective_value)}, 0 hard")
    assert table.block_sizes == [21]
    assert table.holidays == {dt.date(2026, 5, 1), dt.date(2026, 5, 14)}


def test_a_shift_code_alone_is_in_the_legend_beside_the_duties() -> None:
    """A call centre's cell names a shift and a duty (``Ep``); a shift with no duty is
    its code alone (``E``), and the legend says so."""
    request, roster = greedy("call_centre_duties")
    table = read_table("\n".join(roster_lines(request, roster, (), 100)), 100)
    bare = {cell for cell in table.cells.values() if cell in table.legend["shifts"]}
    assert bare, "the greedy roster has a shift with no duty"
    code = next(iter(table.legend["shifts"]))
    name = table.legend["shifts"][code]
    assert f"{code} alone = {name} with no duty" in " ".join(table.keys)


# ------------------------------------------------------------------ replan, recommend


@pytest.fixture(scope="module")
def published() -> tuple[SolveRequest, list[Assignment]]:
    request = parse_request(json.loads(RETAIL.read_text()))
    return request, solved_and_audited(request).assignments


def _roster_file(tmp_path: Path, roster: Sequence[Assignment]) -> str:
    listed = [a.model_dump(mode="json", exclude_none=True) for a in roster]
    return write(tmp_path, "published.json", {"assignments": listed})


def test_replan_table_marks_and_lists_the_changes_with_the_audited_objectives(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    published: tuple[SolveRequest, list[Assignment]],
) -> None:
    monkeypatch.setenv("COLUMNS", "90")
    request, roster = published
    sick = next(a for a in roster if a.date == request.schedule_period.start_date)
    absent = f"{sick.employee_id}:{sick.date.isoformat()}"
    argv = ["replan", str(RETAIL), _roster_file(tmp_path, roster), "--absent", absent]
    code, stdout, _ = run_text([*argv, "--workers", "1", "--format", "table"])
    assert code == EXIT_OK
    assert stdout.startswith(f"absent: {sick.employee_id} on {sick.date:%a %Y-%m-%d}\n")
    table = read_table(stdout, 90)
    after = [
        Assignment(employee_id=e, date=d, shift_id=cell[1], duty_id=cell[2])
        for (e, d), cell in decoded(request, table).items()
        if cell is not None
    ]
    assert_shows(request, table, after)
    changes = roster_changes(roster, after)
    marked = {key for key, cell in table.cells.items() if cell.endswith("*")}
    assert marked == {(c.employee_id, c.date) for c in changes}
    assert (sick.employee_id, sick.date) in marked
    names = {s.id: s.name for s in request.shifts}
    listed = [line.split() for line in table.rest[1 : 1 + len(changes)]]
    assert table.rest[0] == f"{len(changes)} changed cells:"
    assert [(w[0], w[2], w[3], w[5]) for w in listed] == [
        (
            c.employee_id,
            c.date.isoformat(),
            names.get(c.from_shift_id or "", "off"),
            names.get(c.to_shift_id or "", "off"),
        )
        for c in changes
    ]
    away = [Absence(employee_id=sick.employee_id, dates=[sick.date])]  # prorates minimums
    before = audit(request, roster, absences=away).objective_value
    now = audit(request, after, absences=away).objective_value
    assert (
        f"objective (audited): {number(before)} published -> {number(now)} re-planned"
        in stdout.replace("\n", " ")
    )


def _edited(roster: Sequence[Assignment], move: Assignment) -> list[Assignment]:
    kept = [a for a in roster if (a.employee_id, a.date) != (move.employee_id, move.date)]
    return [*kept, move]


def _signed(value: float) -> str:
    return "+0" if value == 0 else ("+" if value > 0 else "-") + number(abs(value))


def test_recommend_table_ranks_with_the_audited_delta_and_words(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    published: tuple[SolveRequest, list[Assignment]],
) -> None:
    monkeypatch.setenv("COLUMNS", "72")
    request, roster = published
    day, shift = request.schedule_period.start_date + dt.timedelta(days=1), request.shifts[0]
    slot = f"{day}:{shift.id}"
    argv = ["recommend", str(RETAIL), _roster_file(tmp_path, roster), "--slot", slot, "-q"]
    code, stdout, _ = run_text([*argv, "--top", "12"])
    assert code == EXIT_OK
    ranked = json.loads(stdout)["recommendations"]
    code, stdout, _ = run_text([*argv, "--top", "12", "--format", "table"])
    assert code == EXIT_OK
    lines = stdout.splitlines()
    assert all(cell_len(line) <= 72 for line in lines)
    assert lines[0].startswith(f"who could fill {shift.name} on {day:%a %Y-%m-%d}")
    starts = [n for n, line in enumerate(lines) if re.match(r"^ ?\d+  ", line)]
    assert len(starts) == len(ranked) > 1  # every candidate: some break rules, some not
    assert {r["feasible"] for r in ranked} == {True, False}
    assert any(r["changed_terms"] for r in ranked)
    base = audit(request, roster).objective_value
    for rank, (start, end, item) in enumerate(
        zip(starts, [*starts[1:], None], ranked, strict=True), 1
    ):
        number_, employee, feasible, delta, *_ = lines[start].split()
        edited = audit(
            request, _edited(roster, Assignment(employee_id=employee, date=day, shift_id=shift.id))
        )
        assert (int(number_), employee) == (rank, item["employee_id"])
        assert feasible == ("no" if edited.hard_violations else "yes")
        assert delta == _signed(edited.objective_value - base)
        below = " ".join(" ".join(line.split()) for line in lines[start + 1 : end])
        for broken in edited.hard_violations:
            assert f"breaks: {broken.message}" in below
        terms = sorted(item["changed_terms"], key=lambda t: (-abs(t["penalty_delta"]), t["name"]))
        for term in terms[:3]:
            words = term_words(request, term["name"], abs(term["violated_by_delta"]) or None)
            effect = "adds" if term["penalty_delta"] > 0 else "removes"
            assert f"{_signed(term['penalty_delta'])} {effect}: {words}" in below


def test_no_roster_says_why_in_the_table_format() -> None:
    request, _ = greedy("retail_weekdays")
    failed = SolveResponse.model_validate(
        {
            "job_id": "j",
            "status": "failed",
            "solution": None,
            "error": {
                "code": "no_solution",
                "message": "the hard rules admit no roster",
                "diagnosis": {
                    "status": "identified",
                    "probes": 3,
                    "causes": [
                        {
                            "cause_type": "fixed_assignment",
                            "field": "employees[0].fixed_assignments[0]",
                            "message": "store-01 is fixed on a holiday",
                        }
                    ],
                },
            },
        }
    )
    text = solve_text(request, failed, 60)
    assert " ".join(text.split()) == (
        "no roster (no_solution): the hard rules admit no roster; first cause: store-01 is "
        "fixed on a holiday (at employees[0].fixed_assignments[0])"
    )
    assert all(cell_len(line) <= 60 for line in text.splitlines())
