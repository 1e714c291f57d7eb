"""Polars frames of a request and its roster, and the Altair charts drawn from them.

The rosters come from real solves (each audited); the frames are checked against the
roster, the request and the solver's metrics, the charts against the frames they embed
(``to_dict()["datasets"]``) and their Vega-Lite spec, and a PNG export through vl-convert.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import altair as alt
import polars as pl
import pytest

from shiftsched.checking.audit import AuditReport, HardViolation, audit, compare_with_metrics
from shiftsched.checking.figures import Kpis
from shiftsched.contract.history import Ledger, LedgerEntry
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment, SoftConstraintViolation, Solution, SolveRequest
from shiftsched.present import charts, frames
from shiftsched.questions.explain import explain_shortages
from shiftsched.questions.fair_share import group_burden
from shiftsched.questions.inquiry import AuditRequest, CompareResponse, ExplainRequest
from shiftsched.questions.review import audit_roster, compare
from shiftsched.questions.variants import with_fairness_group
from shiftsched.solving.diagnose import DiagnosisLimits, diagnose_with_probes
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import SolveLimits, SolveOutcome, solve_problem, to_response
from tests.audited import BACKSTOP_SECONDS, solved_and_audited, work_limited
from tests.factories import demand, employee_dict, full_request_dict, minimal_request_dict
from tests.solving.model.conftest import NIGHT_HOURS, date, employee, request, shift

TIME_LIMIT_SECONDS = BACKSTOP_SECONDS  # small instances: every solve ends proven optimal
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
Json = dict[str, Any]

ASSIGNMENT_SCHEMA = {
    "employee_id": pl.String,
    "employee": pl.String,
    "date": pl.Date,
    "weekday": pl.String,
    "holiday": pl.Boolean,
    "shift_id": pl.String,
    "shift": pl.String,
    "duty_id": pl.String,
    "duty": pl.String,
}
COVERAGE_SCHEMA = {
    "date": pl.Date,
    "holiday": pl.Boolean,
    "shift_id": pl.String,
    "shift": pl.String,
    "demand_min": pl.Int64,
    "demand_max": pl.Int64,
    "assigned": pl.Int64,
    "missing": pl.Int64,
}


def _solved(req: SolveRequest) -> Solution:
    """Solve single-threaded; the roster must pass the audit of this very request."""
    return solved_and_audited(
        req, SolveLimits(time_limit_seconds=TIME_LIMIT_SECONDS, num_workers=1)
    )


def _short_staffed() -> Json:
    """Three dates, D needs 2 and N needs 1, with two employees: a head short every date,
    and a day-off wish that costs something too."""
    data = minimal_request_dict()
    data["schedule_period"]["end_date"] = "2026-03-04"
    data["duties"] = []
    data["shifts"][0]["staffing_demand"] = demand(2, 2, days=3)
    data["shifts"][1]["staffing_demand"] = demand(1, 1, days=3)
    data["employees"] = [
        employee_dict("e1", preferences=[{"type": "day_off", "date": "2026-03-03"}]),
        employee_dict("e2"),
    ]
    return data


@pytest.fixture(scope="module")
def full() -> tuple[SolveRequest, Solution]:
    """The factories' full request: a holiday, a duty, names, preferences, fairness."""
    req = parse_request(full_request_dict())
    return req, _solved(req)


@pytest.fixture(scope="module")
def short() -> tuple[SolveRequest, Solution]:
    req = parse_request(_short_staffed())
    solution = _solved(req)
    assert solution.shortages  # the point of this instance
    return req, solution


@pytest.fixture(scope="module")
def searched() -> SolveOutcome:
    """A solve without a hint, so the search trace holds several rosters."""
    data = minimal_request_dict()
    data["duties"] = []
    data["employees"] = [employee_dict(f"e{i}") for i in range(8)]
    for s in data["shifts"]:
        s["staffing_demand"] = demand(2, 3)
    data["constraints"] = {"max_consecutive_working_days": 3}
    req = parse_request(data)
    outcome = solve_problem(
        from_request(req),
        SolveLimits(time_limit_seconds=TIME_LIMIT_SECONDS, num_workers=1, warm_start=False),
    )
    solution = to_response(outcome, "frames").solution
    assert solution is not None
    report = audit(req, solution.assignments)
    assert report.hard_violations == []
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    assert sum(p.objective is not None for p in outcome.progress) >= 2
    return outcome


# ------------------------------------------------------------------------------ frames


@pytest.mark.parametrize("which", ["full", "short"])
def test_assignments_frame_has_one_row_per_assignment(
    which: str, request: pytest.FixtureRequest
) -> None:
    req, solution = request.getfixturevalue(which)
    frame = frames.assignments_frame(req, solution.assignments)
    assert frame.schema == pl.Schema(ASSIGNMENT_SCHEMA)
    assert frame.height == len(solution.assignments) > 0
    assert list(
        zip(frame["employee_id"], frame["date"], frame["shift_id"], frame["duty_id"], strict=True)
    ) == [(a.employee_id, a.date, a.shift_id, a.duty_id) for a in solution.assignments]
    names = {e.id: e.name for e in req.employees}
    shift_names = {s.id: s.name for s in req.shifts}
    for row in frame.iter_rows(named=True):
        assert row["weekday"] == row["date"].strftime("%a")
        assert row["holiday"] == (row["date"] in req.schedule_period.holidays)
        assert row["employee"] == names[row["employee_id"]]
        assert row["shift"] == shift_names[row["shift_id"]]
        assert (row["duty"] is None) == (row["duty_id"] is None)


def test_assignments_frame_names_the_duty(full: tuple[SolveRequest, Solution]) -> None:
    req, solution = full
    frame = frames.assignments_frame(req, solution.assignments)
    # e1 is fixed on the first date's day shift with the duty "lead" (named "Lead").
    row = frame.filter(
        (pl.col("employee_id") == "e1") & (pl.col("date") == dt.date(2026, 3, 2))
    ).row(0, named=True)
    assert (row["shift_id"], row["duty_id"], row["duty"], row["weekday"]) == (
        "day",
        "lead",
        "Lead",
        "Mon",
    )


def test_an_empty_roster_keeps_the_columns(full: tuple[SolveRequest, Solution]) -> None:
    req, _ = full
    frame = frames.assignments_frame(req, [])
    assert frame.height == 0
    assert frame.schema == pl.Schema(ASSIGNMENT_SCHEMA)
    coverage = frames.coverage_frame(req, [])
    assert coverage["assigned"].sum() == 0 and coverage["missing"].sum() == 0


@pytest.mark.parametrize("which", ["full", "short"])
def test_coverage_frame_has_one_row_per_date_and_shift(
    which: str, request: pytest.FixtureRequest
) -> None:
    req, solution = request.getfixturevalue(which)
    frame = frames.coverage_frame(req, solution.assignments, solution.shortages)
    assert frame.schema == pl.Schema(COVERAGE_SCHEMA)
    period = req.schedule_period
    days = (period.end_date - period.start_date).days + 1
    assert frame.height == days * len(req.shifts)
    assert frame.select("date", "shift_id").n_unique() == frame.height
    assert frame["assigned"].sum() == len(solution.assignments)
    heads = Counter((a.date, a.shift_id) for a in solution.assignments)
    wanted = {s.id: s.staffing_demand for s in req.shifts}
    for row in frame.iter_rows(named=True):
        assert row["assigned"] == heads[row["date"], row["shift_id"]]
        if row["date"] in period.holidays:
            assert row["demand_min"] == row["demand_max"] == 0
            assert row["assigned"] == 0
        else:
            day = (row["date"] - period.start_date).days
            assert row["demand_min"] == wanted[row["shift_id"]][day].min
            assert row["demand_max"] == wanted[row["shift_id"]][day].max


def test_coverage_frame_holidays(full: tuple[SolveRequest, Solution]) -> None:
    req, solution = full
    frame = frames.coverage_frame(req, solution.assignments, solution.shortages)
    holiday = frame.filter(pl.col("date") == dt.date(2026, 3, 8))
    assert holiday.height == len(req.shifts)
    assert holiday["demand_min"].to_list() == [0] * len(req.shifts)
    assert set(frame.filter(pl.col("holiday"))["date"]) == set(req.schedule_period.holidays)
    # The request itself asks for a head that Sunday: the holiday closes the business.
    assert all(s.staffing_demand[6].min == 1 for s in req.shifts)


@pytest.mark.parametrize("which", ["full", "short"])
def test_coverage_missing_matches_the_shortage_markers(
    which: str, request: pytest.FixtureRequest
) -> None:
    req, solution = request.getfixturevalue(which)
    frame = frames.coverage_frame(req, solution.assignments, solution.shortages)
    markers = {(m.date, m.shift_id): m.missing for m in solution.shortages if m.kind == "staffing"}
    shown = {
        (row["date"], row["shift_id"]): row["missing"]
        for row in frame.iter_rows(named=True)
        if row["missing"] > 0
    }
    assert shown == markers
    # Staffing semantics: missing = max(0, min - assigned).
    assert frame["missing"].to_list() == [
        max(0, lo - n) for lo, n in zip(frame["demand_min"], frame["assigned"], strict=True)
    ]
    staffing = next(
        (
            v.violated_by
            for v in solution.metrics.soft_constraint_violations
            if v.name == "staffing_shortage"
        ),
        0,
    )
    assert frame["missing"].sum() == staffing


def test_the_short_roster_misses_a_head_each_date(short: tuple[SolveRequest, Solution]) -> None:
    req, solution = short
    frame = frames.coverage_frame(req, solution.assignments, solution.shortages)
    per_date = frame.group_by("date").agg(pl.col("missing").sum()).sort("date")
    assert per_date["missing"].to_list() == [1, 1, 1]


def _by_family(violations: Any) -> dict[str, tuple[float, int]]:
    totals: dict[str, list[float]] = defaultdict(list)
    for v in violations:
        totals[v.name.split(":")[0]].append(v.penalty)
    return {f: (sum(p), len(p)) for f, p in totals.items()}


@pytest.mark.parametrize("which", ["full", "short"])
def test_penalty_by_family_sums_to_the_objective(
    which: str, request: pytest.FixtureRequest
) -> None:
    req, solution = request.getfixturevalue(which)
    violations = solution.metrics.soft_constraint_violations
    frame = frames.penalty_by_family(violations)
    assert frame.columns == ["family", "penalty", "terms"]
    assert frame.height > 0
    got = {r["family"]: (r["penalty"], r["terms"]) for r in frame.iter_rows(named=True)}
    assert got == _by_family(violations)
    assert frame["penalty"].sum() == solution.metrics.objective_value
    assert frame["penalty"].to_list() == sorted(frame["penalty"].to_list(), reverse=True)
    # The same from the audit of the roster.
    audited = audit(req, solution.assignments)
    assert frames.penalty_by_family(audited.soft_constraint_violations)["penalty"].sum() == (
        audited.objective_value
    )


def test_penalty_by_family_groups_several_terms(short: tuple[SolveRequest, Solution]) -> None:
    _, solution = short
    frame = frames.penalty_by_family(solution.metrics.soft_constraint_violations)
    families = frame["family"].to_list()
    assert families[0] == "staffing_shortage"  # the largest penalty first
    assert frame.row(0, named=True)["penalty"] == 3 * 10000


def test_family_of() -> None:
    assert frames.family_of("staffing_shortage") == "staffing_shortage"
    assert frames.family_of("preference:day_off:e7:2026-03-04") == "preference"
    assert frames.family_of("fairness:0") == "fairness"


def test_violations_read_in_words_with_their_input_items(
    short: tuple[SolveRequest, Solution],
) -> None:
    """Each soft term reads as docs/semantics.md words it, beside the JSON path of the
    input item behind it (shiftsched.checking.items), not as its machine name alone."""
    from shiftsched.checking.items import term_field, term_words

    req, solution = short
    violations = solution.metrics.soft_constraint_violations
    table = frames.violations_frame(violations, req)
    assert table["name"].to_list() == [v.name for v in violations]
    assert table["what"].to_list() == [term_words(req, v.name, v.violated_by) for v in violations]
    assert table["field"].to_list() == [term_field(req, v.name) for v in violations]
    assert all(f.startswith("request.") for f in table["field"])
    assert all(what != name for what, name in table.select("what", "name").iter_rows())


def test_progress_frame_has_one_objective_row_per_roster(searched: SolveOutcome) -> None:
    progress = searched.progress
    frame = frames.progress_frame(progress)
    assert frame.schema == pl.Schema(
        {"seconds": pl.Float64, "series": pl.String, "value": pl.Float64}
    )
    objectives = frame.filter(pl.col("series") == "objective")
    bounds = frame.filter(pl.col("series") == "bound")
    rosters = [p for p in progress if p.objective is not None]
    assert objectives.height == len(rosters) >= 2
    assert objectives["value"].to_list() == [p.objective for p in rosters]
    assert objectives["seconds"].to_list() == [p.seconds for p in rosters]
    assert bounds.height == len(progress)
    assert bounds["value"].to_list() == [p.bound for p in progress]
    assert frames.progress_frame([]).height == 0


def test_burden_frame_has_one_row_per_eligible_employee(
    full: tuple[SolveRequest, Solution],
) -> None:
    req, solution = full
    burden = group_burden(req, solution.assignments, 0)
    frame = frames.burden_frame(burden)
    assert frame.columns == [
        "employee_id",
        "count",
        "equal_share",
        "proportional_share",
        "policy_share",
        "excess",
    ]
    assert frame["employee_id"].to_list() == [s.employee_id for s in burden.shares]
    assert frame["count"].sum() == burden.total
    assert frame["policy_share"].sum() == pytest.approx(burden.total)


# ------------------------------------------------------------------------------ charts


def _sweep() -> pl.DataFrame:
    """The cost of fairness over three penalty weights, from real solves."""
    wishes = [{"type": "preferred_shift", "date": date(d), "shift_id": "N"} for d in (0, 1)]
    base = parse_request(
        request(
            2,
            [shift("N", 2, 1, 1, hours=NIGHT_HOURS)],
            [employee("A", ["N"], preferences=wishes), employee("B", ["N"])],
            fairness_groups=[{"target_shift_ids": ["N"], "policy": "equal"}],
        )
    )
    rows = []
    for weight in (1, 10, 150):
        variant = with_fairness_group(base, 0, penalty_weight=weight)
        solution = _solved(variant)
        fairness = sum(
            v.penalty for v in solution.metrics.soft_constraint_violations if v.name == "fairness:0"
        )
        burden = group_burden(variant, solution.assignments, 0)
        objective = solution.metrics.objective_value or 0.0
        state = "proven optimal" if solution.metrics.status == "optimal" else "unfinished"
        gap = solution.metrics.gap
        solve = {"solve": state, "gap": None if gap is None else 100 * gap}
        rows += [
            {"penalty_weight": weight, "measure": "other terms", "value": objective - fairness}
            | solve,
            {"penalty_weight": weight, "measure": "excess", "value": float(burden.excess)} | solve,
        ]
    return pl.DataFrame(
        rows,
        schema={
            "penalty_weight": pl.Int64,
            "measure": pl.String,
            "value": pl.Float64,
            "solve": pl.String,
            "gap": pl.Float64,
        },
    )


def _probes() -> pl.DataFrame:
    """The probes of a real diagnosis: e1 is fixed on a holiday."""
    data = minimal_request_dict()
    data["schedule_period"]["holidays"] = ["2026-03-04"]
    data["employees"][0]["fixed_assignments"] = [{"date": "2026-03-04", "shift_id": "day"}]
    _, probes = diagnose_with_probes(parse_request(data), DiagnosisLimits(BACKSTOP_SECONDS, 1))
    return pl.DataFrame(
        [
            {
                "step": p.kind,
                "label": f"{i} {p.kind}: " + (", ".join(p.relaxed) or "nothing relaxed"),
                "outcome": p.outcome,
                "seconds": p.seconds,
            }
            for i, p in enumerate(probes)
        ],
        schema={"step": pl.String, "label": pl.String, "outcome": pl.String, "seconds": pl.Float64},
    )


ChartCase = tuple[pl.DataFrame, alt.TopLevelMixin]


def _case(name: str, full: tuple[SolveRequest, Solution], searched: SolveOutcome) -> ChartCase:
    req, solution = full
    if name == "roster_heatmap":
        frame = frames.assignments_frame(req, solution.assignments)
        return frame, charts.roster_heatmap(frame)
    if name == "coverage_chart":
        frame = frames.coverage_frame(req, solution.assignments, solution.shortages)
        return frame, charts.coverage_chart(frame)
    if name == "penalty_chart":
        frame = frames.penalty_by_family(solution.metrics.soft_constraint_violations)
        return frame, charts.penalty_chart(frame)
    if name == "progress_chart":
        frame = frames.progress_frame(searched.progress)
        return frame, charts.progress_chart(frame)
    if name == "burden_chart":
        frame = frames.burden_frame(group_burden(req, solution.assignments, 0))
        return frame, charts.burden_chart(frame, "Nights")
    if name == "fairness_cost_chart":
        frame = _sweep()
        return frame, charts.fairness_cost_chart(frame)
    if name == "compare_heatmap":
        frame = _compared_cells(req, solution.assignments, _edited(req, solution.assignments))
        return frame, charts.compare_heatmap(frame)
    if name == "employee_changes_chart":
        comparison = compare(req, solution.assignments, _edited(req, solution.assignments))
        frame = frames.employee_changes_frame(comparison.employees)
        return frame, charts.employee_changes_chart(frame)
    assert name == "probes_chart"
    frame = _probes()
    return frame, charts.probes_chart(frame)


def _check_heatmap(spec: Json) -> None:
    assert spec["mark"]["type"] == "rect"
    enc = spec["encoding"]
    assert (enc["x"]["field"], enc["x"]["timeUnit"]) == ("date", "yearmonthdate")
    assert enc["y"]["field"] == "employee_id"
    assert enc["color"]["field"] == "shift_id"
    assert {t["field"] for t in enc["tooltip"]} == {"employee", "date", "shift", "duty"}


def _check_coverage(spec: Json) -> None:
    assert spec["facet"]["row"]["field"] == "shift_id"
    layers = spec["spec"]["layer"]
    assert [layer["mark"]["type"] for layer in layers] == ["bar", "tick", "point"]
    assert [layer["encoding"]["y"]["field"] for layer in layers] == [
        "assigned",
        "demand_min",
        "demand_min",
    ]
    assert layers[2]["transform"] == [{"filter": "(datum.missing > 0)"}]


def _check_penalty(spec: Json) -> None:
    assert spec["mark"]["type"] == "bar"
    enc = spec["encoding"]
    assert (enc["x"]["field"], enc["x"]["type"]) == ("penalty", "quantitative")
    assert (enc["y"]["field"], enc["y"]["sort"]) == ("family", "-x")


def _check_progress(spec: Json) -> None:
    lines, label = spec["layer"]
    assert lines["mark"]["type"] == "line"
    assert lines["mark"]["interpolate"] == "step-after"
    enc = lines["encoding"]
    assert enc["x"]["field"] == "seconds"
    assert (enc["y"]["field"], enc["y"]["scale"]["type"]) == ("value", "symlog")
    assert enc["color"]["field"] == "series"
    # Labelled ticks at every scale: 0 and each 1, 3, 10, 30, ... up to the largest value.
    ticks = enc["y"]["axis"]["values"]
    assert ticks[:2] == [0.0, 1.0] and ticks == sorted(ticks)
    assert label["mark"]["type"] == "text" and label["encoding"]["text"]["field"] == "label"
    assert spec["title"]["subtitle"].startswith("final objective ")


def _check_burden(spec: Json) -> None:
    assert spec["title"]["text"] == "Nights" and "fair share" in spec["title"]["subtitle"]
    layers = spec["layer"]
    assert [layer["mark"]["type"] for layer in layers] == ["bar", "tick"]
    assert [layer["encoding"]["x"]["field"] for layer in layers] == ["count", "policy_share"]
    assert all(layer["encoding"]["y"]["field"] == "employee_id" for layer in layers)


def _check_fairness_cost(spec: Json) -> None:
    assert spec["facet"]["row"]["field"] == "measure"
    assert spec["resolve"]["scale"]["y"] == "independent"
    line, points = spec["spec"]["layer"]
    assert (line["mark"]["type"], points["mark"]["type"]) == ("line", "point")
    for layer in (line, points):
        assert (layer["encoding"]["x"]["field"], layer["encoding"]["x"]["type"]) == (
            "penalty_weight",
            "ordinal",
        )
        assert layer["encoding"]["y"]["field"] == "value"
    # A proven-optimal point is filled, an unfinished one hollow, with a legend.
    fill = points["encoding"]["fill"]
    assert fill["field"] == "solve"
    assert fill["scale"]["domain"] == ["proven optimal", "unfinished"]
    assert fill["scale"]["range"][1] == "white"
    assert fill["legend"]["title"] == "solve"


def _check_probes(spec: Json) -> None:
    assert spec["mark"]["type"] == "bar"
    enc = spec["encoding"]
    assert (enc["x"]["field"], enc["y"]["field"]) == ("seconds", "label")
    assert enc["color"]["field"] == "outcome"
    assert enc["color"]["scale"]["domain"] == ["feasible", "infeasible", "undecided"]


def _check_compare_heatmap(spec: Json) -> None:
    assert spec["facet"]["column"]["field"] == "roster"
    assert spec["facet"]["column"]["sort"] == ["before", "after"]
    cells, outline = spec["spec"]["layer"]
    assert cells["transform"] == [{"filter": "isValid(datum.shift_id)"}]
    assert outline["transform"] == [{"filter": "isValid(datum.change)"}]
    assert cells["encoding"]["color"]["field"] == "shift_id"
    assert (outline["mark"]["fill"], outline["mark"]["stroke"]) == (None, "black")
    for layer in (cells, outline):
        assert layer["encoding"]["y"]["field"] == "employee_id"
        assert layer["encoding"]["x"]["timeUnit"] == "yearmonthdate"


def _check_employee_changes(spec: Json) -> None:
    measures = list(charts.EMPLOYEE_CHANGE_MEASURES)
    assert spec["facet"]["column"]["field"] == "measure"
    assert spec["facet"]["column"]["sort"] == measures
    assert spec["resolve"]["scale"]["x"] == "independent"
    inner = spec["spec"]
    assert inner["transform"][0] == {"fold": measures, "as": ["measure", "change"]}
    assert inner["mark"]["type"] == "bar"
    assert (inner["encoding"]["x"]["field"], inner["encoding"]["y"]["field"]) == (
        "change",
        "employee_id",
    )


CHECKS: dict[str, Callable[[Json], None]] = {
    "roster_heatmap": _check_heatmap,
    "coverage_chart": _check_coverage,
    "penalty_chart": _check_penalty,
    "progress_chart": _check_progress,
    "burden_chart": _check_burden,
    "fairness_cost_chart": _check_fairness_cost,
    "probes_chart": _check_probes,
    "compare_heatmap": _check_compare_heatmap,
    "employee_changes_chart": _check_employee_changes,
}


def _embedded(spec: Json) -> list[Json]:
    datasets = spec["datasets"]
    assert len(datasets) == 1
    (rows,) = datasets.values()
    assert spec["data"] == {"name": next(iter(datasets))}
    return list(rows)


@pytest.mark.parametrize("name", list(CHECKS))
def test_chart_embeds_its_frame_and_has_the_expected_spec(
    name: str, full: tuple[SolveRequest, Solution], searched: SolveOutcome
) -> None:
    frame, chart = _case(name, full, searched)
    spec = chart.to_dict()
    rows = _embedded(spec)
    assert len(rows) == frame.height > 0
    assert all(set(row) == set(frame.columns) for row in rows)
    first = frame.columns[0]
    if frame.schema[first] == pl.String:
        assert [row[first] for row in rows] == frame[first].to_list()
    CHECKS[name](spec)


@pytest.mark.parametrize("name", list(CHECKS))
def test_chart_saves_as_png(
    name: str, full: tuple[SolveRequest, Solution], searched: SolveOutcome, tmp_path: Path
) -> None:
    _, chart = _case(name, full, searched)
    target = tmp_path / f"{name}.png"
    chart.save(target)
    data = target.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 1000


def test_a_bound_below_zero_is_drawn_at_zero() -> None:
    from shiftsched.solving.search.progress import ProgressPoint

    frame = frames.progress_frame(
        [ProgressPoint(0.1, 900.0, float("-inf")), ProgressPoint(0.5, 800.0, -3.0)]
    )
    bounds = frame.filter(pl.col("series") == "bound")["value"].to_list()
    assert bounds == [0.0, 0.0]


def test_a_symlog_axis_has_a_labelled_tick_at_every_scale() -> None:
    """A final objective of 30 beside a first roster of 10,590 can be read off the axis:
    ticks at 10 and 30, not only 0 and 1,000; past five decades only powers of ten."""
    assert charts.symlog_ticks(10_590) == [0, 1, 3, 10, 30, 100, 300, 1_000, 3_000, 10_000, 30_000]
    assert charts.symlog_ticks(0) == [0]
    assert charts.symlog_ticks(30) == [0, 1, 3, 10, 30]
    assert charts.symlog_ticks(1_392_500) == [0, *(10.0**k for k in range(8))]


def test_the_final_objective_is_written_on_the_progress_chart() -> None:
    from shiftsched.solving.search.progress import ProgressPoint

    frame = frames.progress_frame(
        [ProgressPoint(0.1, 10_590.0, float("-inf")), ProgressPoint(0.5, 30.0, 30.0)]
    )
    spec = charts.progress_chart(frame).to_dict()
    assert spec["title"]["subtitle"] == "final objective 30"
    assert 10.0 in spec["layer"][0]["encoding"]["y"]["axis"]["values"]


def test_shift_colours_are_distinct_for_32_shifts() -> None:
    assert len(set(charts.SHIFT_COLOURS)) == len(charts.SHIFT_COLOURS) >= 32


# ---------------------------------------------------------------- across periods


def _week(start: dt.date, employees: tuple[str, ...] = ("e1", "e2")) -> list[Assignment]:
    """Each employee on the day shift every day of the week from ``start``."""
    return [
        Assignment(employee_id=e, date=start + dt.timedelta(days=i), shift_id="day")
        for e in employees
        for i in range(7)
    ]


def test_the_seam_frame_holds_the_days_either_side_of_the_boundary() -> None:
    req = parse_request(minimal_request_dict())
    end = req.schedule_period.end_date
    before = frames.assignments_frame(req, _week(req.schedule_period.start_date))
    after = frames.assignments_frame(req, _week(end + dt.timedelta(days=3)))  # a gap
    seam = frames.seam_frame(before, after, end, end + dt.timedelta(days=3), 2)
    assert seam.columns == [*ASSIGNMENT_SCHEMA, "period"]
    dates = {
        p: sorted(set(seam.filter(pl.col("period") == p)["date"])) for p in ("current", "next")
    }
    assert dates["current"] == [end - dt.timedelta(days=1), end]
    assert dates["next"] == [end + dt.timedelta(days=3), end + dt.timedelta(days=4)]
    assert seam.height == 2 * 2 * 2


def test_the_seam_heatmap_draws_a_line_before_the_first_day_of_the_next_period(
    tmp_path: Path,
) -> None:
    req = parse_request(minimal_request_dict())
    end = req.schedule_period.end_date
    boundary = end + dt.timedelta(days=1)
    seam = frames.seam_frame(
        frames.assignments_frame(req, _week(req.schedule_period.start_date)),
        frames.assignments_frame(req, _week(boundary)),
        end,
        boundary,
        3,
    )
    chart = charts.seam_heatmap(seam, boundary)
    spec = chart.to_dict()
    roster, line = spec["layer"]
    assert roster["mark"]["type"] == "rect" and line["mark"]["type"] == "rule"
    assert line["encoding"]["x"]["bandPosition"] == 0
    assert line["encoding"]["x"]["timeUnit"] == roster["encoding"]["x"]["timeUnit"]
    rows = {len(r): r for r in spec["datasets"].values()}
    assert set(rows) == {seam.height, 1}
    assert rows[1][0]["date"].startswith(boundary.isoformat())
    chart.save(tmp_path / "seam.png")
    assert (tmp_path / "seam.png").read_bytes().startswith(PNG_SIGNATURE)


def _report(hard: list[tuple[str, str]], soft: dict[str, float]) -> AuditReport:
    return AuditReport(
        hard_violations=[
            HardViolation(code=code, message="m", employee_id=who)  # type: ignore[arg-type]
            for code, who in hard
        ],
        soft_constraint_violations=[
            SoftConstraintViolation(name=name, penalty=penalty, violated_by=1.0)
            for name, penalty in soft.items()
        ],
        objective_value=sum(soft.values()),
        shortages=[],
    )


def test_the_audit_comparison_lists_only_what_the_history_changes() -> None:
    respected = _report(
        [("max_consecutive_days", "e1"), ("max_consecutive_days", "e2")],
        {"shift_transition:forbid:night:day:e1": 100.0, "preference:e2": 100.0},
    )
    ignored = _report([], {"preference:e2": 100.0, "fairness:0": 40.0})
    table = frames.audit_comparison_frame(respected, ignored)
    assert table.rows() == [
        ("hard", "max_consecutive_days", 2.0, 0.0),
        ("soft", "fairness:0", 0.0, 40.0),
        ("soft", "shift_transition:forbid:night:day:e1", 100.0, 0.0),
    ]
    assert frames.audit_comparison_frame(ignored, ignored).height == 0
    broken = frames.hard_violations_frame(respected.hard_violations)
    assert broken["employee_id"].to_list() == ["e1", "e2"]
    assert broken.columns == ["code", "employee_id", "date", "shift_id", "message"]


def _ledger(counts: dict[str, dict[str, int]]) -> Ledger:
    return Ledger(
        through=dt.date(2026, 3, 8),
        employees=[
            LedgerEntry(employee_id=e, shift_counts=c, days_worked=sum(c.values()))
            for e, c in counts.items()
        ],
    )


def test_the_ledger_frame_has_a_row_per_employee_and_a_column_per_shift() -> None:
    ledger = _ledger({"e1": {"day": 3, "night": 1}, "e2": {"old": 2}})
    table = frames.ledger_frame(ledger, ["night", "day"])
    assert table.columns == [
        "employee_id",
        "shifts:night",
        "shifts:day",
        "shifts:old",  # a shift the request no longer has, kept as the ledger keeps it
        "days_worked",
        "minutes_worked",
        "preferences_granted",
        "preferences_refused",
    ]
    assert table.rows() == [("e1", 1, 3, 0, 4, 0, 0, 0), ("e2", 0, 0, 2, 2, 0, 0, 0)]


def test_the_spread_is_per_fairness_group_among_who_may_work_it_or_per_shift() -> None:
    data = minimal_request_dict()
    data["employees"][2]["assignable_shift_ids"] = ["day"]  # e3 never works nights
    before = _ledger({"e1": {"night": 5, "day": 1}, "e2": {"night": 1}, "e3": {"day": 9}})
    after = _ledger({"e1": {"night": 6, "day": 4}, "e2": {"night": 5}, "e3": {"day": 12}})
    per_shift = frames.ledger_spread_frame(parse_request(data), before, after)
    assert per_shift.rows() == [("shift:day", "day", 3, 9, 12), ("shift:night", "night", 2, 4, 1)]
    data["constraints"] = {"fairness_groups": [{"target_shift_ids": ["night"]}]}
    grouped = frames.ledger_spread_frame(parse_request(data), before, after)
    assert grouped.rows() == [("fairness:0", "night", 2, 4, 1)]


# ------------------------------------------------------------ comparing two rosters


def _edited(req: SolveRequest, roster: list[Assignment]) -> list[Assignment]:
    """``roster`` with its last cell taken off and, on that date, the first employee off
    then on another shift: one cell removed, one added, and the price moves."""
    gone = roster[-1]
    working = {a.employee_id for a in roster if a.date == gone.date}
    idle = next(e.id for e in req.employees if e.id not in working)
    other = next(s.id for s in req.shifts if s.id != gone.shift_id)
    return [*roster[:-1], Assignment(employee_id=idle, date=gone.date, shift_id=other)]


def _compared_cells(
    req: SolveRequest, before: list[Assignment], after: list[Assignment]
) -> pl.DataFrame:
    return frames.compared_cells_frame(
        frames.assignments_frame(req, before),
        frames.assignments_frame(req, after),
        frames.changes_frame(compare(req, before, after).changes),
    )


@pytest.fixture(scope="module")
def compared(full: tuple[SolveRequest, Solution]) -> tuple[SolveRequest, CompareResponse]:
    req, solution = full
    return req, compare(req, solution.assignments, _edited(req, solution.assignments))


def test_the_compared_cells_hold_both_rosters_and_outline_each_change_in_both(
    full: tuple[SolveRequest, Solution],
) -> None:
    req, solution = full
    before = solution.assignments
    after = _edited(req, before)
    cells = _compared_cells(req, before, after)
    assert cells.columns == [*ASSIGNMENT_SCHEMA, "change", "before", "after", "roster"]
    # Each roster's cells, and one blank cell where it has a changed cell off.
    assert cells.height == len(before) + len(after) + 2
    changed = cells.filter(pl.col("change").is_not_null()).sort("roster", "change")
    gone, added = before[-1], after[-1]
    assert changed.select("roster", "employee_id", "change", "shift_id").rows() == [
        ("after", added.employee_id, "added", added.shift_id),
        ("after", gone.employee_id, "removed", None),  # off after: outlined, not filled
        ("before", added.employee_id, "added", None),
        ("before", gone.employee_id, "removed", gone.shift_id),
    ]
    names = {e.id: e.name for e in req.employees}
    assert changed["employee"].to_list() == [names[e] for e in changed["employee_id"]]
    assert set(changed["weekday"]) == {gone.date.strftime("%a")}
    same = frames.compared_cells_frame(
        frames.assignments_frame(req, before),
        frames.assignments_frame(req, before),
        frames.changes_frame([]),
        ("one", "two"),
    )
    assert same.height == 2 * len(before) and same["change"].null_count() == same.height
    assert same["roster"].unique(maintain_order=True).to_list() == ["one", "two"]


def test_the_employee_changes_frame_has_a_row_per_employee_of_the_comparison(
    compared: tuple[SolveRequest, CompareResponse],
) -> None:
    _, comparison = compared
    table = frames.employee_changes_frame(comparison.employees)
    assert table.columns == ["employee_id", "name", *frames.EMPLOYEE_CHANGE_COLUMNS]
    assert table.schema["hours"] == pl.Float64 and table.schema["shifts"] == pl.Int64
    assert table.rows(named=True) == [e.model_dump() for e in comparison.employees]
    assert table.height >= 2 and table["changed_cells"].sum() == len(comparison.changes) == 2
    assert table["shifts"].sum() == 0  # one cell moved from one person to another
    assert frames.employee_changes_frame([]).columns == table.columns


def test_the_term_changes_add_up_to_the_change_of_the_objective(
    compared: tuple[SolveRequest, CompareResponse],
) -> None:
    from shiftsched.checking.items import term_words

    request, comparison = compared
    table = frames.term_changes_frame(comparison.terms, request)
    assert table.columns == ["family", "what", "field", "before", "after", "delta", "name"]
    assert table["what"].to_list() == [term_words(request, t.name) for t in comparison.terms]
    assert table["name"].to_list() == [t.name for t in comparison.terms]
    assert table.height == len(comparison.terms) > 0
    assert table["delta"].sum() == pytest.approx(comparison.objective_delta)
    assert (table["after"] - table["before"] - table["delta"]).abs().max() == 0
    assert table["family"].to_list() == [frames.family_of(t.name) for t in comparison.terms]


def test_the_kpis_frame_has_both_rosters_kpis_side_by_side(
    compared: tuple[SolveRequest, CompareResponse],
) -> None:
    _, comparison = compared
    table = frames.kpis_frame(comparison.kpis_before, comparison.kpis_after)
    assert table["kpi"].to_list() == list(Kpis.model_fields)
    rows = {row["kpi"]: row for row in table.iter_rows(named=True)}
    for name, row in rows.items():
        assert row["before"] == getattr(comparison.kpis_before, name)
        assert row["after"] == getattr(comparison.kpis_after, name)
        assert row["delta"] == pytest.approx(row["after"] - row["before"])
    unstated = comparison.kpis_before.model_copy(update={"preferences_granted_percent": None})
    blank = frames.kpis_frame(unstated, comparison.kpis_after)
    row = blank.filter(pl.col("kpi") == "preferences_granted_percent").row(0, named=True)
    assert row["before"] is None and row["delta"] is None


# ------------------------------------------------------------------ short shifts


def test_the_audited_shortages_frame_names_each_demand_item(
    short: tuple[SolveRequest, Solution],
) -> None:
    req, solution = short
    audited = audit_roster(AuditRequest(request=req, roster=solution.assignments)).shortages
    table = frames.audited_shortages_frame(audited)
    assert table.columns == [*frames.shortages_frame([]).columns, "field"]
    assert table.drop("field").equals(frames.shortages_frame(solution.shortages))
    assert table["field"].to_list() == [m.field for m in audited]
    assert table["field"].str.starts_with("request.shifts[").all()
    assert frames.audited_shortages_frame([]).columns == table.columns


def test_the_explanations_frame_has_a_row_per_shortage_explained(
    short: tuple[SolveRequest, Solution],
) -> None:
    req, solution = short
    ask = ExplainRequest(request=req, roster=solution.assignments)
    answer = explain_shortages(ask, work_limited(30.0))
    table = frames.explanations_frame(answer.explanations)
    assert table.height == len(answer.explanations) == len(solution.shortages)
    assert table["verdict"].to_list() == [e.verdict for e in answer.explanations]
    assert table["summary"].to_list() == [e.summary for e in answer.explanations]
    assert table["changed_cells"].to_list() == [len(e.changes) for e in answer.explanations]
    for row, explanation in zip(table.iter_rows(named=True), answer.explanations, strict=True):
        assert (row["date"], row["field"]) == (
            explanation.shortage.date,
            explanation.shortage.field,
        )
        assert row["filled_by"] == ", ".join(explanation.filled_by)
        assert row["objective_delta"] == explanation.objective_delta
    causes = [c for e in answer.explanations for c in e.causes]
    assert frames.causes_frame(causes).rows() == [
        (c.cause_type, c.field, c.message) for c in causes
    ]
    assert frames.causes_frame([]).columns == ["cause_type", "field", "message"]
