"""The notebooks run headless without a cell error and produce their key outputs.

Two ways in: ``marimo export html`` (what CI and a reader run; exit code 1 on any cell
error) and ``app.run(defs=...)`` in-process, whose definitions let a test look at the
charts' embedded data and the tables. Every roster a notebook shows is audited here too.
"""

from __future__ import annotations

import csv
import datetime as dt
import importlib.util
import io
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import altair as alt
import polars as pl
import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Metrics, SolveRequest
from shiftsched.present.explore.shortages import explanation_view
from shiftsched.present.frames import horizon_progress_frame
from tests.audited import solved_and_audited
from tests.solving.model import conftest as small

pytestmark = pytest.mark.slow  # runs the notebooks whole

ROOT = Path(__file__).parent.parent.parent
NOTEBOOKS = ROOT / "notebooks"
INFEASIBLE = ROOT / "datasets" / "infeasible"
MARIMO = Path(sys.executable).parent / "marimo"

# Arguments no load can change, and still quick. Every notebook solves on one worker with
# a fixed seed (`--work-limit`, shiftsched.present.notebook_limits), never with the two workers a
# person at the screen gets: two workers return equally good rosters in a different order
# from run to run, and tests here compare the rosters of two runs. Each solve stops on
# its proof or after a fixed amount of deterministic CP-SAT work, whichever comes first:
# the explorer's default dataset is proven optimal long before its limit, the fairness
# datasets are not (the same rosters on any machine all the same); the planted diagnoses
# end on their own.
BACKSTOP = 60  # seconds: a limit only a broken solve or diagnosis reaches
WORK_LIMIT = 0.5  # deterministic seconds per fairness solve: past the first roster
EXACT_WORK_LIMIT = 30.0  # deterministic seconds: past the proofs of the other notebooks
EXPORT_ARGS = {
    "explore.py": ["--time-limit", str(BACKSTOP), "--work-limit", str(EXACT_WORK_LIMIT)],
    "fairness.py": ["--time-limit", "30", "--work-limit", str(WORK_LIMIT)],
    "infeasibility.py": ["--budget", str(BACKSTOP), "--work-limit", str(EXACT_WORK_LIMIT)],
}


# The explorer's command-line settings (one cell defines them all, so all are given).
EXPLORE = {
    "default_dataset": "retail_weekdays",
    "default_request": "",
    "default_time_limit": BACKSTOP,
    "default_work_limit": EXACT_WORK_LIMIT,
}


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"notebook_{name}", NOTEBOOKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(name: str, **overrides: Any) -> Mapping[str, Any]:
    _, defs = load(name).app.run(defs=overrides or None)
    return defs


def rows_of(chart: Any) -> list[list[dict[str, Any]]]:
    """The data sets embedded in a chart's Vega-Lite spec (non-empty lists of rows)."""
    assert isinstance(chart, alt.TopLevelMixin)
    spec = chart.to_dict()
    return list(spec.get("datasets", {}).values())


def assert_chart_has(chart: Any, frame: pl.DataFrame) -> None:
    datasets = rows_of(chart)
    assert datasets, "the chart embeds no data"
    assert frame.height > 0
    assert frame.height in [len(rows) for rows in datasets]


@pytest.mark.parametrize("notebook", sorted(EXPORT_ARGS))
def test_notebook_exports_without_a_cell_error(notebook: str, tmp_path: Path) -> None:
    out = tmp_path / f"{notebook}.html"
    result = subprocess.run(
        [
            *(str(MARIMO), "export", "html", str(NOTEBOOKS / notebook), "-o", str(out), "-f"),
            *("--", *EXPORT_ARGS[notebook]),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert out.stat().st_size > 10_000


def test_notebooks_pass_marimo_check() -> None:
    result = subprocess.run(
        [str(MARIMO), "check", "--strict", *sorted(str(p) for p in NOTEBOOKS.glob("*.py"))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# --------------------------------------------------------------------------- explore


def test_explore_shows_an_audited_roster_with_every_chart_and_table() -> None:
    defs = run("explore", **EXPLORE)
    outcome, variant = defs["outcome"], defs["variant"]
    assert outcome.has_solution
    report = audit(variant, outcome.assignments)
    assert report.feasible, report.hard_violations
    metrics = Metrics(
        solver_runtime_seconds=outcome.runtime_seconds,
        objective_value=outcome.objective_value,
        soft_constraint_violations=outcome.violations,
    )
    assert compare_with_metrics(report, metrics, outcome.shortages) == []
    assert defs["audit_differences"] == []

    assignments = defs["assignments"]
    assert assignments.height == len(outcome.assignments) > 0
    assert_chart_has(defs["roster_view"], assignments)
    assert_chart_has(defs["coverage_view"], defs["coverage"])
    assert_chart_has(defs["penalty_view"], defs["penalties"])
    assert_chart_has(defs["progress_view"], defs["progress"])
    assert defs["violations"].height == len(outcome.violations) > 0
    assert defs["penalties"]["penalty"].sum() == pytest.approx(outcome.objective_value)
    # The first roster of the trace is at least as costly as the final one.
    objectives = defs["progress"].filter(pl.col("series") == "objective")["value"]
    assert objectives.len() > 0 and objectives[0] >= outcome.objective_value


def test_explore_hand_edit_starts_as_no_change() -> None:
    defs = run("explore", **EXPLORE)
    assert defs["edit_employee"].value == defs["NO_CHANGE"]
    assert "verdict" not in defs  # nothing is judged until someone is moved


def test_explore_hand_edit_is_judged_by_the_audit() -> None:
    first_run = run("explore", **EXPLORE)
    variant = first_run["variant"]
    first = variant.employees[0].id
    start = variant.schedule_period.start_date
    picked = {  # the controls as a person sets them: the first employee off on day one
        "NO_CHANGE": "(nobody)",
        "edit_employee": SimpleNamespace(value=first),
        "edit_date": SimpleNamespace(value=start.isoformat()),
        "edit_shift": SimpleNamespace(value="off"),
        "edit_duty": SimpleNamespace(value="none"),
    }
    defs = run("explore", **EXPLORE, **picked)
    verdict, edited = defs["verdict"], defs["edited"]
    assert not any(a.employee_id == first and a.date == start for a in edited)
    after = audit(defs["variant"], edited)
    assert verdict.after == after
    assert verdict.objective_delta == after.objective_value - defs["outcome"].objective_value


def infeasible(name: str) -> SolveRequest:
    """A dataset made infeasible: its first employee must work a shift they may work 0
    times."""
    data = json.loads((ROOT / "datasets" / f"{name}.json").read_bytes())
    employee = data["employees"][0]
    shift = employee.get("assignable_shift_ids", [data["shifts"][0]["id"]])[0]
    start = data["schedule_period"]["start_date"]
    employee["fixed_assignments"] = [{"date": start, "shift_id": shift}]
    employee["shift_count_limits"] = [{"shift_id": shift, "max": 0}]
    return parse_request(data)


def test_explore_without_a_roster_says_why_and_draws_nothing() -> None:
    request = infeasible("retail_weekdays")
    defs = run("explore", **EXPLORE, request=request, source="broken")
    for name in ("report", "roster_view", "coverage_view", "progress_view", "verdict"):
        assert name not in defs, name


# -------------------------------------------------------------------------- fairness


def test_fairness_compares_three_rosters_and_sweeps_the_weight() -> None:
    defs = run(
        "fairness",
        default_dataset="ward_24_7",
        default_time_limit=30,  # the slider's maximum: a backstop behind the work limit
        default_sweep_time_limit=30,
        default_work_limit=WORK_LIMIT,
    )
    burdens = defs["scenario_burdens"]
    assert list(burdens) == ["without the group", "equal", "proportional"]
    # The work-limited path ran: one worker and a fixed seed, whatever the machine's load.
    assert {o.solver.num_workers for o in defs["scenario_outcomes"].values()} == {1}
    for name, outcome in defs["scenario_outcomes"].items():
        request = defs["scenario_requests"][name]
        report = audit(request, outcome.assignments)
        assert report.feasible and report.objective_value == outcome.objective_value
        group = f"fairness:{defs['group_index']}"
        reported = next((v.violated_by for v in outcome.violations if v.name == group), 0.0)
        if name != "without the group":
            assert burdens[name].excess == reported
    summary = defs["scenario_summary"]
    assert summary.height == 3 and summary["gini"].is_between(0, 1).all()
    shares = defs["share_frame"]
    assert shares.height > 0 and shares["count"].sum() == burdens["proportional"].total
    assert len(rows_of(defs["burden_views"])) == 3
    # Each burden chart's title shows the Gini the table shows, to the same digits.
    titles = [chart.title.text for chart in defs["burden_views"].hconcat]
    assert titles == [
        f"{name} (Gini {gini:.3f})"
        for name, gini in zip(summary["scenario"], summary["gini"], strict=True)
    ]
    sweep = defs["sweep_frame"]
    assert set(sweep["measure"]) == {"other terms", "excess", "gini"}
    assert sorted(set(sweep["penalty_weight"])) == [1, 10, 100]
    assert_chart_has(defs["cost_view"], sweep)
    # After a fixed amount of work no solve on ward_24_7 is proven optimal, and the view
    # says so: in the tables, the chart's marks and both captions.
    caption = assert_caption_follows(defs)
    assert "None of these 3 solves finished" in caption
    assert "Unfinished rosters" in defs["scenarios_explained"]
    # Rosters that came back the same are said to be so, above the table.
    rosters = [
        {a.model_dump_json() for a in o.assignments} for o in defs["scenario_outcomes"].values()
    ]
    alike = any(a == b for n, a in enumerate(rosters) for b in rosters[n + 1 :])
    assert ("came back as the same roster" in defs["scenarios_same"]) == alike
    assert_scenario_files(defs)


def assert_scenario_files(defs: Mapping[str, Any]) -> None:
    """Each scenario's roster is offered as CSV and XLSX files holding that roster."""
    files = defs["scenario_files"]
    assert list(files) == list(defs["scenario_outcomes"])
    for name, outcome in defs["scenario_outcomes"].items():
        rows = list(csv.DictReader(io.StringIO(files[name]["csv"].decode())))
        assert len(rows) == len(outcome.assignments) > 0
        assert files[name]["xlsx"][:2] == b"PK"  # a zip container


def test_fairness_without_a_roster_stops_before_any_table_or_chart() -> None:
    defs = run(
        "fairness",
        default_dataset="ward_24_7",
        default_time_limit=30,
        default_sweep_time_limit=30,
        default_work_limit=WORK_LIMIT,
        request=infeasible("ward_24_7"),
    )
    for name in ("scenario_burdens", "scenario_summary", "burden_views", "share_frame"):
        assert name not in defs, name


def solve_words(outcome: Any) -> tuple[str, float | None]:
    """The state and gap % a table must show for a solve: the solver's own answer."""
    state = "proven optimal" if outcome.status == "optimal" else "unfinished"
    return state, None if outcome.gap is None else round(100 * outcome.gap, 1)


def assert_caption_follows(defs: Mapping[str, Any]) -> str:
    """Each table row's state and gap are its solve's; the chart's marks carry them; the
    caption's direction is the figures' own, and it says when a solve is unfinished."""
    summary, outcomes = defs["scenario_summary"], defs["scenario_outcomes"]
    shown = list(zip(summary["status"], summary["gap %"], strict=True))
    assert shown == [solve_words(outcomes[name]) for name in summary["scenario"]]
    table, sweep_outcomes = defs["sweep_table"], defs["sweep_outcomes"]
    shown = list(zip(table["status"], table["gap %"], strict=True))
    assert shown == [solve_words(sweep_outcomes[w]) for w in table["penalty_weight"]]
    marks = defs["sweep_frame"].unique(["penalty_weight", "solve"]).sort("penalty_weight")
    assert marks["solve"].to_list() == table["status"].to_list()
    caption, other = defs["sweep_words"], table["other terms"].to_list()
    first, last = f"{other[0]:,.0f}", f"{other[-1]:,.0f}"
    if other == sorted(other, reverse=True) and other[0] > other[-1]:
        assert f"fall from {first} to {last}" in caption
    elif other == sorted(other) and other[0] < other[-1]:
        assert f"rise from {first} to {last}" in caption
    elif len(set(other)) == 1:
        assert f"stay at {first}" in caption
    else:
        assert "go " + " → ".join(f"{v:,.0f}" for v in other) in caption
    unfinished = "unfinished" in table["status"].to_list()
    assert ("hollow marks" in caption) == unfinished
    assert ("Every point is proven optimal" in caption) == (not unfinished)
    return str(caption)


def test_fairness_of_finished_solves_shows_the_price_of_fairness() -> None:
    # A wishes for both nights, which equal shares split. At weight 1 and 10 A works both
    # (excess 1, nothing else to pay); at 150 B works both nights beside A, a head over the
    # maximum of 1 each night (10 each), cheaper than A's unmet wish (100).
    wishes = [{"type": "preferred_shift", "date": small.date(d), "shift_id": "N"} for d in (0, 1)]
    data = small.request(
        2,
        [small.shift("N", 2, 1, 1, hours=small.NIGHT_HOURS)],
        [small.employee("A", ["N"], preferences=wishes), small.employee("B", ["N"])],
        fairness_groups=[{"target_shift_ids": ["N"], "policy": "equal"}],
    )
    defs = run(
        "fairness",
        default_dataset="ward_24_7",
        default_time_limit=30,
        default_sweep_time_limit=30,
        default_work_limit=EXACT_WORK_LIMIT,
        request=parse_request(data),
        sweep_weights=SimpleNamespace(value=["1", "10", "150"]),
        sweep_time_limit=SimpleNamespace(value=30),
    )
    caption = assert_caption_follows(defs)
    assert defs["sweep_table"]["other terms"].to_list() == [0.0, 0.0, 20.0]
    assert defs["sweep_table"]["excess"].to_list() == [1, 1, 0]
    assert "Every point is proven optimal" in caption
    assert defs["scenarios_explained"].startswith("Every roster is proven optimal")


# --------------------------------------------------------------------- infeasibility


# The infeasibility notebook's settings other than the example and the request.
INFEASIBILITY = {"default_budget": BACKSTOP, "default_work_limit": EXACT_WORK_LIMIT}


def planted_examples() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((INFEASIBLE / "index.json").read_bytes())
    return entries


@pytest.mark.parametrize("entry", planted_examples(), ids=lambda e: e["file"])
def test_infeasibility_names_the_planted_cause_and_relaxing_it_gives_a_roster(
    entry: dict[str, Any],
) -> None:
    example = entry["file"].removesuffix(".json")
    defs = run("infeasibility", **INFEASIBILITY, default_example=example, default_request="")
    assert not defs["attempt"].has_solution
    causes = defs["cause_table"]
    assert causes.height > 0
    assert causes.row(0, named=True)["field"] == entry["field"]
    probes = defs["probe_table"]
    assert probes.height == defs["diagnosis"].probes > 0
    assert_chart_has(defs["probe_chart"], probes)
    # Headless, the first cause is relaxed and the request solved again.
    outcome, relaxed = defs["relaxed_outcome"], defs["relaxed_request"]
    assert outcome.has_solution, (example, outcome.status)
    assert audit(relaxed, outcome.assignments).feasible
    if outcome.assignments:  # some planted requests need nobody at work once relaxed
        assert len(outcome.assignments) in [len(rows) for rows in rows_of(defs["relaxed_roster"])]


def test_infeasibility_names_each_probes_employees_and_offers_the_relaxed_request() -> None:
    # Two employees who share no hard rule, each fixed to work on a holiday: the diagnosis
    # checks each apart, so each probe must say whose roster it re-solved.
    example = "holiday_across_components"
    defs = run("infeasibility", **INFEASIBILITY, default_example=example, default_request="")
    probes = defs["probe_table"]
    checks = probes.filter(pl.col("step") == "check")["label"].to_list()
    assert [label.split(". ", 1)[1] for label in checks] == [
        "employee e0: every rule on → still no roster",
        "employee e1: every rule on → still no roster",
    ]
    families = probes.filter(pl.col("step") == "family")
    for family, label in families.select("family", "label").rows():
        assert f"every {family} rule off" in label
    assert "every holiday rule (no assignment on a holiday)" in families["switched off"].to_list()
    # The words beside the chart: one row per probe, whole; the chart's labels uncut.
    words = defs["probe_words"]
    assert words.columns == ["#", "employees", "switched off", "result", "seconds"]
    assert words["#"].to_list() == list(range(1, probes.height + 1))
    assert defs["probe_chart"].to_dict()["encoding"]["y"]["axis"]["labelLimit"] == 0
    # The relaxed request downloads under the example's name, parses, and solves.
    assert defs["relaxed_name"] == f"{example}-relaxed.json"
    relaxed = parse_request(json.loads(defs["relaxed_json"]))
    assert relaxed == defs["relaxed_request"]
    assert relaxed.schedule_period.holidays == defs["request"].schedule_period.holidays[:1]
    solution = solved_and_audited(relaxed)
    assert len(solution.assignments) == len(defs["relaxed_outcome"].assignments) > 0


def test_infeasibility_of_a_request_with_a_roster_explains_nothing() -> None:
    defs = run(
        "infeasibility",
        **INFEASIBILITY,
        default_example="fixed_assignment",
        default_request=str(ROOT / "datasets" / "retail_weekdays.json"),
    )
    for name in ("diagnosis", "probe_table", "cause_table", "relaxed_outcome"):
        assert name not in defs, name


def test_explore_sick_call_starts_with_nobody_sick() -> None:
    defs = run("explore", **EXPLORE)
    assert defs["sick_employee"].value == defs["NO_CHANGE"]
    assert defs["absence"] is None and defs["replanned"] is None
    assert defs["replanned_roster"] is None
    assert "replan_view" not in defs and "recommendations" not in defs


def test_explore_sick_call_replans_and_recommends() -> None:
    from shiftsched.contract.planning import roster_changes

    first_run = run("explore", **EXPLORE)
    outcome = first_run["outcome"]
    sick = outcome.assignments[len(outcome.assignments) // 2]
    picked = {
        "NO_CHANGE": "(nobody)",  # its cell's other controls: no hand edit
        "edit_employee": SimpleNamespace(value="(nobody)"),
        "edit_date": SimpleNamespace(value=sick.date.isoformat()),
        "edit_shift": SimpleNamespace(value="off"),
        "edit_duty": SimpleNamespace(value="none"),
        "sick_employee": SimpleNamespace(value=sick.employee_id),
        "sick_date": SimpleNamespace(value=sick.date.isoformat()),
        "sick_days": SimpleNamespace(value=1),
        "keep_past": SimpleNamespace(value=True),
    }
    defs = run("explore", **EXPLORE, **picked)
    # One worker and a fixed seed: the second run shows the first run's roster, so the
    # cell picked from it is there to be left.
    assert outcome.solver.num_workers == defs["outcome"].solver.num_workers == 1
    assert defs["outcome"].assignments == outcome.assignments
    replanned, variant = defs["replanned"], defs["variant"]
    new = replanned.solution.assignments
    assert not any(a.employee_id == sick.employee_id and a.date == sick.date for a in new)
    assert not any(c.date < sick.date for c in replanned.changes)
    report = audit(variant, new, absences=[defs["absence"]])  # priced as the re-plan was
    assert report.hard_violations == []
    assert (
        compare_with_metrics(report, replanned.solution.metrics, replanned.solution.shortages) == []
    )
    assert replanned.changes == roster_changes(defs["outcome"].assignments, new)
    assert defs["changes_table"].height == len(replanned.changes) >= 1
    assert_chart_has(defs["replan_view"], defs["changes_table"])
    ranked = defs["recommendations"].recommendations
    assert defs["left_slot"] == sick
    assert ranked and sick.employee_id not in {r.employee_id for r in ranked}
    assert defs["recommendations_table"].height == len(ranked)


# ----------------------------------------------------------------- the next period


def next_period_controls(start: dt.date, days: int) -> dict[str, Any]:
    """The next-period controls as a person sets them: a start, a length, *plan it* on."""
    return {
        "next_start": SimpleNamespace(value=start),
        "next_days": SimpleNamespace(value=days),
        "plan_next": SimpleNamespace(value=True),
    }


def horizon_controls(end: dt.date) -> dict[str, Any]:
    """The horizon's controls as a person sets them: *inside a horizon* on, its end."""
    return {"in_horizon": SimpleNamespace(value=True), "horizon_end": SimpleNamespace(value=end)}


def assert_planned_across_the_seam(defs: Mapping[str, Any]) -> None:
    """The plan breaks no hard rule read across the seam, its metrics are the audit's with
    the history (and the horizon, when asked), and the ledger adds its roster to the
    counts handed in."""
    history, request, planned = defs["history"], defs["next_variant"], defs["next_planned"]
    horizon = defs["next_horizon"]
    roster = planned.solution.assignments
    report = audit(request, roster, history=history, horizon=horizon)
    assert report.hard_violations == []
    assert compare_with_metrics(report, planned.solution.metrics, planned.solution.shortages) == []
    assert defs["seam_report"] == report
    # What the history changes in the audit explains the whole difference in objective.
    blind = defs["seam_blind_report"]
    differences = defs["seam_differences"].filter(pl.col("kind") == "soft")
    assert (
        differences["history_respected"].sum() - differences["history_ignored"].sum()
    ) == pytest.approx(report.objective_value - blind.objective_value)
    # The seam chart: the last days of the history, then the first of the next period.
    seam = defs["seam_table"]
    assert_chart_has(defs["seam_view"], seam)
    start = request.schedule_period.start_date
    assert seam.filter(pl.col("period") == "next")["date"].min() >= start
    assert seam.filter(pl.col("period") == "current")["date"].max() < start
    # The ledger: a row per employee, each the counts before plus the new roster's.
    table, before = defs["ledger_table"], defs["ledger_before"]
    assert table.height == len(planned.ledger.employees) == len(request.employees)
    handed_in = {e.employee_id: e.days_worked for e in before.employees}
    for row in table.iter_rows(named=True):
        worked = sum(a.employee_id == row["employee_id"] for a in roster)
        assert row["days_worked"] == handed_in.get(row["employee_id"], 0) + worked
    # A plan of the same period without the history is clean alone: whatever it breaks
    # with the history, it breaks across the seam.
    naive = defs["naive_plan"].solution.assignments
    assert audit(request, naive).hard_violations == []
    assert defs["naive_breaks"].height == len(
        audit(request, naive, history=history, horizon=horizon).hard_violations
    )


def test_explore_plans_the_next_period_after_the_roster_across_the_seam() -> None:
    # ward_24_7 has the rules that span a seam (a cap of 5 days in a row, transitions, a
    # night fairness group); it is not proven optimal, so each solve ends after a fixed
    # amount of deterministic work. The period is planned inside a horizon from February
    # to the end of the quarter, on the default targets.
    ward = {**EXPLORE, "default_dataset": "ward_24_7", "default_work_limit": WORK_LIMIT}
    controls = next_period_controls(dt.date(2027, 3, 1), 14)
    defs = run("explore", **ward, **controls, **horizon_controls(dt.date(2027, 3, 31)))
    outcome, variant = defs["outcome"], defs["variant"]
    assert outcome.solver.num_workers == 1
    history = defs["history"]
    assert history.assignments == outcome.assignments
    assert history.ledger is not None and history.ledger.through == dt.date(2027, 2, 28)
    request = defs["next_variant"]
    assert request.schedule_period.start_date == dt.date(2027, 3, 1)
    assert request.schedule_period.end_date == dt.date(2027, 3, 14)
    assert_planned_across_the_seam(defs)
    # Fairness reads the counts so far: the spread of nights among who may work them.
    spread = defs["spread_table"]
    assert spread["group"].to_list() == ["fairness:0"]
    night_workers = [e.id for e in variant.employees if "night" in e.assignable_shift_ids]
    nights = {
        e.employee_id: e.shift_counts.get("night", 0) for e in defs["next_planned"].ledger.employees
    }
    counts = [nights.get(e, 0) for e in night_workers]
    assert spread["spread_after"].to_list() == [max(counts) - min(counts)]
    assert_progress_inside_the_horizon(defs)


def assert_progress_inside_the_horizon(defs: Mapping[str, Any]) -> None:
    """The horizon is the one asked, on the default targets; its table is the plan's
    progress, each count the history's days from the horizon's start plus the roster's."""
    horizon, planned = defs["next_horizon"], defs["next_planned"]
    assert (horizon.start, horizon.end) == (dt.date(2027, 2, 1), dt.date(2027, 3, 31))
    asked = [t.model_dump(exclude={"shift_counts"}) for t in horizon.targets]
    assert asked == defs["horizon_targets"].value.to_dicts()  # the editor has no shift counts
    assert all(t.shift_counts == [] for t in horizon.targets)
    assert horizon_progress_frame(planned.horizon_progress).equals(defs["horizon_table"])
    cells = [*defs["history"].assignments, *planned.solution.assignments]
    worked = Counter(a.employee_id for a in cells if a.date >= horizon.start)
    table = defs["horizon_table"]
    assert dict(zip(table["employee"], table["days worked"], strict=True)) == {
        e.id: worked[e.id] for e in defs["next_variant"].employees
    }
    handed_on = {c.employee_id: c.days_worked for c in planned.ledger.horizon.employees}
    assert handed_on == {e: n for e, n in worked.items() if n}
    assert_chart_has(defs["horizon_view"], table)


def test_explore_plans_the_next_period_only_when_asked_and_after_an_uploaded_answer() -> None:
    first = run("explore", **EXPLORE)
    assert first["plan_next"].value is False
    assert "next_planned" not in first and "ledger_table" not in first
    assert first["current_end"] == first["variant"].schedule_period.end_date
    outcome = first["outcome"]
    answer = {
        "job_id": "previous",
        "status": "completed",
        "solution": {"assignments": [a.model_dump(mode="json") for a in outcome.assignments]},
    }
    upload = SimpleNamespace(
        value=[answer],
        contents=lambda: json.dumps(answer).encode(),
        name=lambda: "previous.json",
    )
    start = first["current_end"] + dt.timedelta(days=1)
    defs = run("explore", **EXPLORE, history_upload=upload, **next_period_controls(start, 7))
    history = defs["history"]
    assert defs["history_source"] == "previous.json"
    assert history.assignments == outcome.assignments and history.ledger is None
    assert defs["next_horizon"] is None and "horizon_table" not in defs  # none asked
    assert_planned_across_the_seam(defs)


# ------------------------------------------------------ why short, and two rosters


def short_staffed_data() -> dict[str, Any]:
    """The explorer's default dataset asking more of its first Monday than the staff can
    give (each shift's gap can only move to another: no fill lowers the heads missing)
    and a fourth manager for Tuesday's opening, which only three managers may work
    (unavoidable)."""
    data: dict[str, Any] = json.loads((ROOT / "datasets" / "retail_weekdays.json").read_bytes())
    for shift in data["shifts"]:
        shift["staffing_demand"][0] = {"min": 5, "max": 6}
    data["shifts"][0]["manager_demand"][1] = {"min": 4, "max": 4}
    data["shifts"][2]["manager_demand"][1] = {"min": 0, "max": 0}
    return data


SHORT = {**EXPLORE, "request": parse_request(short_staffed_data()), "source": "short-staffed"}


def picked_shortage(table: pl.DataFrame, kind: str) -> dict[str, Any]:
    """The shortage table as a person leaves it: the first row of ``kind`` selected."""
    return {"shortage_picker": SimpleNamespace(value=table.filter(pl.col("kind") == kind).head(1))}


def test_explore_explains_and_compares_nothing_until_asked() -> None:
    defs = run("explore", **EXPLORE)
    assert defs["short_table"].height == len(defs["short_markers"]) == 0  # all demand met
    assert defs["explanation"] is None and defs["short_answer"] is None
    assert defs["adopt_fill"].value is False
    assert defs["edited"] is None and defs["compare_rosters"] == {}
    for name in ("fill_view", "causes_table", "comparison", "compare_view", "kpi_table"):
        assert name not in defs, name


def test_explore_explains_a_shortage_that_only_moves_without_a_fill() -> None:
    """The roster above is optimal, so no roster has fewer heads missing: covering the
    Monday's gap only moves it to another shift. Until each head was counted this was
    called avoidable, with a fill that left another head missing instead; now no such
    move is offered, and the date's capacity says why."""
    first = run("explore", **SHORT)
    table, report = first["short_table"], first["report"]
    assert table.height == len(report.shortages) >= 3
    assert set(table["kind"]) == {"staffing", "manager"}
    assert table["field"].str.starts_with("request.shifts[").all()
    picked = picked_shortage(table, "staffing")
    defs = run("explore", **SHORT, **picked)
    assert defs["outcome"].assignments == first["outcome"].assignments  # one worker, a seed
    explanation = defs["explanation"]
    row = picked["shortage_picker"].value.row(0, named=True)
    assert (explanation.shortage.date, explanation.shortage.field) == (row["date"], row["field"])
    assert explanation.verdict == "unavoidable" and explanation.roster is None
    heads = explanation.heads
    assert heads is not None and heads.fillable == 0 and heads.movable >= 1
    assert heads.movable + heads.unavoidable == heads.missing == row["missing"]
    assert explanation.capacity is not None and explanation.capacity in explanation.summary
    assert defs["fill_view"] is None and defs["fill_changes"].height == 0
    shown = defs["explanation_table"].filter(pl.col("field") == row["field"])
    assert shown["movable"].to_list() == [heads.movable]
    assert defs["compare_rosters"] == {}  # nothing to adopt


def test_explore_explains_an_avoidable_shortage_and_compares_its_fill() -> None:
    """An uploaded roster, the optimum less one cell, shown instead of a solve: its
    shortage is fillable, and the fill lowers the roster's missing heads."""
    first = run("explore", **EXPLORE)
    optimum = first["outcome"].assignments
    removed = optimum[len(optimum) // 2]
    holed = [a for a in optimum if a != removed]
    answer = {"assignments": [a.model_dump(mode="json") for a in holed]}
    uploaded = {**EXPLORE, "upload": upload_of(answer, "holed.json")}
    shown = run("explore", **uploaded)
    table = shown["short_table"]
    assert table.height >= 1
    picked = picked_shortage(table, "staffing")
    defs = run("explore", **uploaded, **picked, adopt_fill=SimpleNamespace(value=True))
    explanation, variant, roster = defs["explanation"], defs["variant"], defs["roster"]
    assert defs["outcome"] is None and sorted(roster, key=str) == sorted(holed, key=str)
    row = picked["shortage_picker"].value.row(0, named=True)
    assert (explanation.shortage.date, explanation.shortage.field) == (row["date"], row["field"])
    assert explanation.verdict == "avoidable" and explanation.filled_by
    assert explanation.heads is not None and explanation.heads.fillable >= 1
    # The fill keeps every hard rule at the price it states, with fewer heads missing.
    fill = explanation.roster
    assert fill is not None
    assert audit(variant, fill).hard_violations == []
    delta = audit(variant, fill).objective_value - audit(variant, roster).objective_value
    assert explanation.objective_delta == pytest.approx(delta)
    missing = [sum(m.missing for m in audit(variant, r).shortages) for r in (roster, fill)]
    assert missing[1] < missing[0]
    assert defs["fill_changes"].height == len(explanation.changes) >= 1
    assert_chart_has(defs["fill_view"], defs["fill_changes"])
    view = explanation_view(variant, explanation, defs["short_answer"])
    assert view.fill_words is not None and f"**{explanation.filled_by[0]} take" in view.fill_words
    assert defs["explanation_table"].height == len(defs["short_answer"].explanations) >= 1
    assert set(defs["explanation_table"]["date"]) == {row["date"]}
    # Switched on, the fill is the roster compared, and every figure is compare()'s.
    first_offered = next(iter(defs["compare_rosters"]))
    assert first_offered.startswith("the fill of")
    assert defs["compare_with"].value == first_offered
    assert_compared(defs, fill)


def assert_compared(defs: Mapping[str, Any], after: list[Any]) -> None:
    """The comparison shown is shiftsched.questions.review.compare's of the roster above and
    ``after``, and every table and chart of it holds its figures."""
    from shiftsched.questions.review import compare

    comparison = defs["comparison"]
    assert comparison == compare(defs["variant"], defs["roster"], after)  # the roster above
    changes = defs["compare_changes"]
    assert changes.height == len(comparison.changes) >= 1
    cells = defs["compare_cells"]
    assert cells.height >= 2 * min(len(defs["roster"]), len(after))
    assert cells.filter(pl.col("change").is_not_null()).height == 2 * changes.height
    assert_chart_has(defs["compare_view"], cells)
    people = defs["employee_changes"]
    assert people["employee_id"].to_list() == [e.employee_id for e in comparison.employees]
    assert_chart_has(defs["employee_view"], people)
    terms = defs["term_changes"]
    assert terms["delta"].sum() == pytest.approx(comparison.objective_delta)
    kpis = defs["kpi_table"]
    assert kpis.row(0, named=True)["before"] == comparison.kpis_before.coverage_percent
    assert kpis.row(0, named=True)["after"] == comparison.kpis_after.coverage_percent


def test_explore_explains_an_unavoidable_shortage_by_its_causes() -> None:
    first = run("explore", **SHORT)
    defs = run("explore", **SHORT, **picked_shortage(first["short_table"], "manager"))
    explanation = defs["explanation"]
    assert explanation.shortage.kind == "manager"
    assert explanation.verdict == "unavoidable" and explanation.roster is None
    assert "only store-01, store-02, store-03 may work it" in explanation.summary
    causes = defs["causes_table"]
    assert causes.height == len(explanation.causes) >= 1
    assert defs["fill_view"] is None and defs["fill_changes"].height == 0
    assert defs["compare_rosters"] == {}  # nothing to adopt


def upload_of(answer: object, name: str) -> SimpleNamespace:
    """An upload control holding ``answer`` as JSON."""
    return SimpleNamespace(
        value=[answer], contents=lambda: json.dumps(answer).encode(), name=lambda: name
    )


def test_explore_compares_a_hand_edit_a_replan_and_an_upload() -> None:
    first = run("explore", **EXPLORE)
    outcome, variant = first["outcome"], first["variant"]
    sick, moved = outcome.assignments[0], outcome.assignments[-1]
    uploaded = [a for a in outcome.assignments if a != moved]
    answer = {"assignments": [a.model_dump(mode="json") for a in uploaded]}
    picked = {
        "NO_CHANGE": "(nobody)",
        "edit_employee": SimpleNamespace(value=moved.employee_id),
        "edit_date": SimpleNamespace(value=moved.date.isoformat()),
        "edit_shift": SimpleNamespace(value="off"),
        "edit_duty": SimpleNamespace(value="none"),
        "sick_employee": SimpleNamespace(value=sick.employee_id),
        "sick_date": SimpleNamespace(value=sick.date.isoformat()),
        "sick_days": SimpleNamespace(value=1),
        "keep_past": SimpleNamespace(value=True),
        "compare_upload": upload_of(answer, "mine.json"),
    }
    defs = run("explore", **EXPLORE, **picked)
    rosters = defs["compare_rosters"]
    assert list(rosters) == [
        "uploaded mine.json",
        "re-planned after the sick call",
        "moved by hand",
    ]
    assert rosters["re-planned after the sick call"] == defs["replanned"].solution.assignments
    assert rosters["moved by hand"] == defs["edited"]
    assert rosters["uploaded mine.json"] == uploaded
    assert defs["compare_with"].value == "uploaded mine.json"
    assert_compared(defs, uploaded)
    by_hand = run(
        "explore", **EXPLORE, **picked, compare_with=SimpleNamespace(value="moved by hand")
    )
    assert_compared(by_hand, by_hand["edited"])
    assert by_hand["compare_changes"].rows() == [
        (moved.employee_id, moved.date, "removed", moved.shift_id, "off")
    ]
    assert variant == by_hand["variant"]


def test_explore_refuses_an_upload_of_another_request() -> None:
    stranger = {"assignments": [{"employee_id": "nobody", "date": "1999-01-01", "shift_id": "x"}]}
    defs = run("explore", **EXPLORE, compare_upload=upload_of(stranger, "other.json"))
    assert defs["upload_faults"] and defs["compare_rosters"] == {}
    assert "comparison" not in defs
    broken = run("explore", **EXPLORE, compare_upload=upload_of({"rows": []}, "odd.json"))
    assert broken["upload_faults"] and broken["compare_rosters"] == {}
