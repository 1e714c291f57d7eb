import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="Who carries the burden")


@app.cell
def imports():
    import json
    from pathlib import Path

    import altair as alt
    import marimo as mo
    import polars as pl

    from shiftsched import audit
    from shiftsched.contract import parse_request, request_size, suggested_time_limit
    from shiftsched.present import (
        DOWNLOADS,
        burden_chart,
        burden_frame,
        export_files,
        fairness_cost_chart,
        media_type,
        no_roster_advice,
        notebook_solve,
        roster_file_name,
        same_rosters,
        same_rosters_words,
        tried_seconds,
    )
    from shiftsched.questions import (
        SweepPoint,
        gap_percent,
        group_burden,
        scenarios_note,
        shared_most_burdened,
        solve_state,
        starting_burden,
        sweep_caption,
        with_fairness_group,
        without_fairness_group,
    )
    from shiftsched.solving import from_request

    return (
        DOWNLOADS,
        Path,
        SweepPoint,
        alt,
        audit,
        burden_chart,
        burden_frame,
        export_files,
        fairness_cost_chart,
        from_request,
        gap_percent,
        group_burden,
        json,
        media_type,
        mo,
        no_roster_advice,
        notebook_solve,
        parse_request,
        pl,
        request_size,
        roster_file_name,
        same_rosters,
        same_rosters_words,
        scenarios_note,
        shared_most_burdened,
        solve_state,
        starting_burden,
        suggested_time_limit,
        sweep_caption,
        tried_seconds,
        with_fairness_group,
        without_fairness_group,
    )


@app.cell
def intro(mo):
    mo.md("""
    # Who carries the burden

    A fairness group asks that burdensome shifts (nights, weekends) be shared out. This
    notebook counts who works them, compares each count with the fair share under the
    *equal* and *proportional* policies, and solves the same instance without the group,
    with each policy, and over a sweep of penalty weights: the cost of fairness is what
    the other terms lose as the weight grows. Every solve says whether it finished
    (*proven optimal*) or stopped at its time limit (*unfinished*, with its gap to the
    proven bound): only finished solves show the true cost.
    """)
    return


@app.cell
def settings(mo):
    # Command-line overrides, e.g. `marimo export html fairness.py -- --time-limit 1`.
    # `--work-limit W` ends each solve after W deterministic seconds of CP-SAT work on one
    # worker with a fixed seed, the time limit then only a backstop: the same rosters on
    # any machine, however busy (for reproducible exports and tests).
    _cli = mo.cli_args()
    default_dataset = str(_cli.get("dataset") or "ward_24_7")
    default_time_limit = int(_cli.get("time-limit") or 0)  # 0: by the request's size
    default_work_limit = float(_cli.get("work-limit") or 0)
    # `--sweep-time-limit S`: each solve of the weight sweep (0: SWEEP_SECONDS or more).
    default_sweep_time_limit = int(_cli.get("sweep-time-limit") or 0)
    return (
        default_dataset,
        default_sweep_time_limit,
        default_time_limit,
        default_work_limit,
    )


@app.cell
def dataset_picker(Path, default_dataset, json, mo):
    dataset_dir = Path(mo.notebook_dir() or ".").parent / "datasets"
    with_groups = {
        p.stem: p
        for p in sorted(dataset_dir.glob("*.json"))
        if json.loads(p.read_bytes()).get("constraints", {}).get("fairness_groups")
    }
    dataset = mo.ui.dropdown(
        options=list(with_groups),
        value=default_dataset if default_dataset in with_groups else next(iter(with_groups)),
        label="Dataset",
    )
    return dataset, with_groups


@app.cell
def loaded(dataset, json, parse_request, with_groups):
    request = parse_request(json.loads(with_groups[dataset.value].read_bytes()))
    return (request,)


@app.cell
def controls(dataset, default_time_limit, mo, request, request_size, suggested_time_limit):
    groups = request.constraints.fairness_groups
    group_choice = mo.ui.dropdown(
        {f"{i}: {g.policy} over {', '.join(g.target_shift_ids)}": i for i, g in enumerate(groups)},
        value=f"0: {groups[0].policy} over {', '.join(groups[0].target_shift_ids)}",
        label="Fairness group",
    )
    # By the request's size, so the first table shows soon; when that is too short for
    # the policies to move the rosters apart, the page says so above the table.
    time_limit = mo.ui.slider(
        1,
        30,
        value=default_time_limit or suggested_time_limit(request_size(request)),
        label="Time limit per solve (s)",
        show_value=True,
        debounce=True,  # one solve when the slider is let go, not one per step
    )
    mo.hstack([dataset, group_choice, time_limit], justify="start")
    return group_choice, time_limit


@app.cell
def solver(
    audit,
    default_work_limit,
    from_request,
    mo,
    no_roster_advice,
    notebook_solve,
    time_limit,
    tried_seconds,
):
    def solve_roster(variant, seconds=None):
        """Solve a variant (within ``seconds``, else the slider's limit, which never ends
        a solve without a roster) and check its roster with the independent audit."""
        _seconds = seconds or time_limit.value
        outcome = notebook_solve(from_request(variant), _seconds, default_work_limit)
        if not outcome.has_solution:
            return outcome  # the caller says why, and what to do
        report = audit(variant, outcome.assignments)
        if not report.feasible or report.objective_value != outcome.objective_value:
            raise RuntimeError(f"the audit disagrees with the solver: {report}")
        return outcome

    def no_roster_note(outcome, what, seconds=None):
        """What to tell the user when a solve ended without a roster."""
        _tried = tried_seconds(outcome, seconds or time_limit.value)
        advice = no_roster_advice(outcome.status, outcome.message, _tried)
        return mo.callout(mo.md(f"**No roster for {what}.** {advice}"), "warn")

    return no_roster_note, solve_roster


@app.cell
def scenarios(
    group_choice,
    mo,
    no_roster_note,
    request,
    solve_roster,
    time_limit,
    with_fairness_group,
    without_fairness_group,
):
    group_index = group_choice.value
    scenario_requests = {
        "without the group": without_fairness_group(request, group_index),
        "equal": with_fairness_group(request, group_index, policy="equal"),
        "proportional": with_fairness_group(request, group_index, policy="proportional"),
    }
    scenario_outcomes = {}
    with mo.status.spinner(
        title=f"Solving three rosters, up to {time_limit.value} s each…"
    ) as _spinner:
        for _name, _variant in scenario_requests.items():
            _spinner.update(subtitle=_name)
            scenario_outcomes[_name] = solve_roster(_variant)
    _failed = [n for n, o in scenario_outcomes.items() if not o.has_solution]
    mo.stop(
        bool(_failed),
        no_roster_note(scenario_outcomes[_failed[0]], f"“{_failed[0]}”") if _failed else None,
    )
    return group_index, scenario_outcomes, scenario_requests


@app.cell
def burdens(group_burden, group_index, request, scenario_outcomes, scenario_requests):
    # Every roster is measured against the group as the scenario defines it; "without
    # the group" is measured against the original request's group.
    scenario_burdens = {
        name: group_burden(
            request if name == "without the group" else scenario_requests[name],
            outcome.assignments,
            group_index,
        )
        for name, outcome in scenario_outcomes.items()
    }
    return (scenario_burdens,)


@app.cell
def scenario_table(
    gap_percent,
    mo,
    pl,
    scenario_burdens,
    scenario_outcomes,
    scenarios_explained,
    scenarios_same,
    solve_state,
):
    scenario_summary = pl.DataFrame(
        [
            {
                "scenario": name,
                "objective": scenario_outcomes[name].objective_value,
                "status": solve_state(scenario_outcomes[name]),
                "gap %": gap_percent(scenario_outcomes[name]),
                "target shifts": b.total,
                "excess": b.excess,
                "gini": round(b.gini, 3),
                "max count": max((s.count for s in b.shares), default=0),
                "min count": min((s.count for s in b.shares), default=0),
            }
            for name, b in scenario_burdens.items()
        ],
        schema_overrides={"gap %": pl.Float64},
    )
    mo.vstack(
        [
            mo.md("## Three rosters side by side"),
            *([mo.callout(mo.md(scenarios_same), "warn")] if scenarios_same else []),
            mo.ui.table(scenario_summary, selection=None),
            mo.md(scenarios_explained),
        ]
    )
    return (scenario_summary,)


@app.cell
def scenario_words(
    gap_percent,
    group_index,
    request,
    same_rosters,
    same_rosters_words,
    scenario_burdens,
    scenario_outcomes,
    scenarios_note,
    shared_most_burdened,
    solve_state,
    starting_burden,
    time_limit,
):
    # Why the three rosters differ as they do, from their figures: unfinished solves, and
    # the employee who carries the most in each (checked against the roster the search
    # starts from only when that employee carries the same in all three).
    _states = {n: (solve_state(o), gap_percent(o)) for n, o in scenario_outcomes.items()}
    _shared = shared_most_burdened(scenario_burdens)
    _unfinished = any(state != "proven optimal" for state, _ in _states.values())
    _start = None
    if _shared is not None and _unfinished:
        _start_burden = starting_burden(request, group_index)
        _start = next(s.count for s in _start_burden.shares if s.employee_id == _shared[0])
    scenarios_explained = scenarios_note(_states, _shared, _start)
    # Rosters that came back the same say nothing about their policies: said first.
    scenarios_same = same_rosters_words(
        same_rosters({n: o.assignments for n, o in scenario_outcomes.items()}),
        len(scenario_outcomes),
        [n for n, (state, _) in _states.items() if state == "proven optimal"],
        time_limit.value,
    )
    return scenarios_explained, scenarios_same


@app.cell
def burden_charts(alt, burden_chart, burden_frame, scenario_burdens):
    burden_views = alt.hconcat(
        *(
            burden_chart(burden_frame(b), f"{name} (Gini {b.gini:.3f})")
            for name, b in scenario_burdens.items()
        )
    ).resolve_scale(x="shared")
    burden_views
    return (burden_views,)


@app.cell
def share_table(burden_frame, mo, pl, request, group_burden, group_index, scenario_outcomes):
    _policy = request.constraints.fairness_groups[group_index].policy
    _own = group_burden(request, scenario_outcomes[_policy].assignments, group_index)
    share_frame = burden_frame(_own).with_columns(pl.selectors.float().round(2))
    mo.vstack(
        [
            mo.md(
                f"## Per employee, roster solved with the request's own policy ({_policy})\n"
                f"Excess over fair shares: **{_own.excess}**, Gini **{_own.gini:.3f}**."
            ),
            mo.ui.table(share_frame, selection=None, page_size=25),
        ]
    )
    return (share_frame,)


@app.cell
def roster_downloads(
    DOWNLOADS,
    dataset,
    export_files,
    media_type,
    mo,
    roster_file_name,
    scenario_outcomes,
    scenario_requests,
):
    # Each scenario's roster as files for a spreadsheet or a calendar (shiftsched.present.export).
    scenario_files = {
        _name: export_files(scenario_requests[_name], _outcome.assignments)
        for _name, _outcome in scenario_outcomes.items()
    }
    _labels = dict(DOWNLOADS)
    _rows = [
        mo.hstack(
            [mo.md(f"**{_name}**")]
            + [
                mo.download(
                    data=_data,
                    filename=roster_file_name(f"{dataset.value}-{_name}", _fmt),
                    mimetype=media_type(_fmt),
                    label=_labels[_fmt],
                )
                for _fmt, _data in _files.items()
            ],
            justify="start",
            gap=1,
        )
        for _name, _files in scenario_files.items()
    ]
    mo.vstack([mo.md("## Download the rosters"), *_rows])
    return (scenario_files,)


@app.cell
def sweep_controls(default_sweep_time_limit, mo, time_limit):
    # The sweep comes after the tables above, so its solves may take longer, to finish
    # where that is affordable: each stops as soon as it is proven optimal.
    _sweep_seconds = 10
    sweep_weights = mo.ui.multiselect(
        ["1", "5", "10", "25", "50", "100"],
        value=["1", "10", "100"],
        label="penalty_weight values to sweep",
    )
    sweep_time_limit = mo.ui.slider(
        1,
        60,
        value=default_sweep_time_limit or max(_sweep_seconds, time_limit.value),
        label="Time limit per sweep solve (s)",
        show_value=True,
        debounce=True,
    )
    mo.hstack([sweep_weights, sweep_time_limit], justify="start")
    return sweep_time_limit, sweep_weights


@app.cell
def sweep(
    SweepPoint,
    gap_percent,
    group_burden,
    group_index,
    mo,
    no_roster_note,
    request,
    solve_roster,
    solve_state,
    sweep_time_limit,
    sweep_weights,
    with_fairness_group,
):
    sweep_points = []
    sweep_outcomes = {}
    _weights = sorted(int(w) for w in sweep_weights.value)
    _seconds = sweep_time_limit.value
    mo.stop(not _weights, mo.md("Pick at least one penalty weight to sweep."))
    for _weight in mo.status.progress_bar(
        _weights,
        title=f"Solving one roster per weight, up to {_seconds} s each…",
        remove_on_exit=True,
    ):
        _variant = with_fairness_group(request, group_index, penalty_weight=_weight)
        _outcome = solve_roster(_variant, _seconds)
        mo.stop(not _outcome.has_solution, no_roster_note(_outcome, f"weight {_weight}", _seconds))
        _fairness_penalty = sum(
            v.penalty for v in _outcome.violations if v.name == f"fairness:{group_index}"
        )
        _burden = group_burden(_variant, _outcome.assignments, group_index)
        sweep_outcomes[_weight] = _outcome
        sweep_points.append(
            SweepPoint(
                weight=_weight,
                other=_outcome.objective_value - _fairness_penalty,
                excess=_burden.excess,
                gini=_burden.gini,
                state=solve_state(_outcome),
                gap=gap_percent(_outcome),
            )
        )
    return sweep_outcomes, sweep_points


@app.cell
def sweep_frames(pl, sweep_points):
    # The chart's long frame (one row per weight and measure, each with its solve's state)
    # and the table's wide one (one row per weight).
    _measures = {"other terms": "other", "excess": "excess", "gini": "gini"}
    sweep_frame = pl.DataFrame(
        [
            {
                "penalty_weight": p.weight,
                "measure": measure,
                "value": float(getattr(p, field)),
                "solve": p.state,
                "gap": p.gap,
            }
            for p in sweep_points
            for measure, field in _measures.items()
        ],
        schema={
            "penalty_weight": pl.Int64,
            "measure": pl.String,
            "value": pl.Float64,
            "solve": pl.String,
            "gap": pl.Float64,
        },
    )
    sweep_table = pl.DataFrame(
        [
            {
                "penalty_weight": p.weight,
                "other terms": p.other,
                "excess": p.excess,
                "gini": round(p.gini, 3),
                "status": p.state,
                "gap %": p.gap,
            }
            for p in sweep_points
        ],
        schema_overrides={"gap %": pl.Float64, "other terms": pl.Float64},
    )
    return sweep_frame, sweep_table


@app.cell
def sweep_chart(fairness_cost_chart, mo, sweep_caption, sweep_frame, sweep_points, sweep_table):
    cost_view = fairness_cost_chart(sweep_frame)
    sweep_words = sweep_caption(sweep_points)
    mo.vstack(
        [
            mo.md(f"## What fairness costs\n{sweep_words}"),
            mo.ui.table(sweep_table, selection=None),
            cost_view,
        ]
    )
    return cost_view, sweep_words


if __name__ == "__main__":
    app.run()
