import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="Roster explorer")


@app.cell
def imports():
    import datetime as dt
    from pathlib import Path

    import marimo as mo
    import polars as pl

    from engine import charts, frames
    from engine.advice import no_roster_advice
    from engine.audit import audit, compare_with_metrics
    from engine.edit import judge_edit, reassign
    from engine.errors import InvalidRequest
    from engine.notebook_limits import notebook_limits
    from engine.plan import plan
    from engine.planning import PlanRequest
    from engine.problem import DEFAULT_MAX_CONSECUTIVE_DAYS, from_request
    from engine.rules import load_json, parse_request
    from engine.size import request_size, suggested_time_limit
    from engine.solve import solve_problem
    from engine.variants import (
        FAMILIES,
        families_in_use,
        with_max_consecutive_days,
        with_preference_weight,
        without_families,
    )

    return (
        DEFAULT_MAX_CONSECUTIVE_DAYS,
        FAMILIES,
        InvalidRequest,
        Path,
        PlanRequest,
        audit,
        charts,
        compare_with_metrics,
        dt,
        families_in_use,
        frames,
        from_request,
        judge_edit,
        load_json,
        no_roster_advice,
        mo,
        notebook_limits,
        parse_request,
        pl,
        plan,
        reassign,
        request_size,
        solve_problem,
        suggested_time_limit,
        with_max_consecutive_days,
        with_preference_weight,
        without_families,
    )


@app.cell
def intro(mo):
    mo.md("""
    # Roster explorer

    Pick an instance (or upload a `SolveRequest` JSON), move a control, and the roster is
    solved again. Every roster is checked by the independent audit, and you can move one
    person by hand below to see what the audit says, without re-solving, re-plan around a
    sick call, ask why a shift is short and whether anyone could fill it, compare the
    roster with another, or plan the next period after this roster.
    """)
    return


@app.cell
def settings(mo):
    # Command-line overrides, e.g. `marimo export html explore.py -- --time-limit 1`.
    _cli = mo.cli_args()
    default_dataset = str(_cli.get("dataset") or "retail_weekdays")
    # `--request PATH`: a SolveRequest file of your own, added to the Dataset list.
    default_request = str(_cli.get("request") or "")
    default_time_limit = int(_cli.get("time-limit") or 0)  # 0: by the request's size
    # `--work-limit W`: each solve and re-plan on one worker with a fixed seed, ending after
    # W deterministic seconds of CP-SAT work (engine.notebook_limits), the time limit then
    # only a backstop: the same rosters on any machine, however busy (exports, tests).
    default_work_limit = float(_cli.get("work-limit") or 0)
    return default_dataset, default_request, default_time_limit, default_work_limit


@app.cell
def dataset_picker(Path, default_dataset, default_request, mo):
    dataset_dir = Path(mo.notebook_dir() or ".").parent / "datasets"
    dataset_paths = {p.stem: p for p in sorted(dataset_dir.glob("*.json"))}
    _chosen = default_dataset
    if default_request:
        dataset_paths[Path(default_request).stem] = Path(default_request)
        _chosen = Path(default_request).stem
    dataset = mo.ui.dropdown(
        options=list(dataset_paths),
        value=_chosen if _chosen in dataset_paths else next(iter(dataset_paths)),
        label="Dataset",
    )
    upload = mo.ui.file(filetypes=[".json"], label="or upload a SolveRequest JSON")
    mo.hstack([dataset, upload], justify="start", gap=2)
    return dataset, dataset_paths, upload


@app.cell
def base_request(InvalidRequest, dataset, dataset_paths, load_json, mo, parse_request, upload):
    source = upload.name() if upload.value else dataset.value
    _raw = upload.contents() if upload.value else dataset_paths[dataset.value].read_bytes()
    try:
        request = parse_request(load_json(_raw, source))
    except InvalidRequest as exc:
        _faults = "\n".join(f"- `{fault}`" for fault in exc.errors)
        mo.stop(True, mo.callout(mo.md(f"**Not a valid request**\n\n{_faults}"), "danger"))
    # An upload wins over the Dataset list: say so, rather than ignore the list silently.
    mo.callout(
        mo.md(f"Using the uploaded **{source}**; clear the upload to use the Dataset list."),
        "info",
    ) if upload.value else None
    return request, source


@app.cell
def controls(
    DEFAULT_MAX_CONSECUTIVE_DAYS,
    default_time_limit,
    families_in_use,
    mo,
    request,
    request_size,
    suggested_time_limit,
):
    # Sliders are debounced: one solve when a slider is let go, not one per step.
    time_limit = mo.ui.slider(
        1,
        60,
        value=default_time_limit or suggested_time_limit(request_size(request)),
        label="Time limit (s)",
        show_value=True,
        debounce=True,
    )
    max_consecutive = mo.ui.slider(
        1,
        14,
        value=request.constraints.max_consecutive_working_days or DEFAULT_MAX_CONSECUTIVE_DAYS,
        label="Max consecutive days",
        show_value=True,
        debounce=True,
    )
    preference_weight = mo.ui.slider(
        0, 500, step=10, value=100, label="Preference weight", show_value=True, debounce=True
    )
    switched_off = mo.ui.multiselect(
        options=families_in_use(request), label="Switch off constraint families"
    )
    mo.vstack(
        [mo.hstack([time_limit, max_consecutive, preference_weight], justify="start"), switched_off]
    )
    return max_consecutive, preference_weight, switched_off, time_limit


@app.cell
def variant_request(
    max_consecutive, request, switched_off, with_max_consecutive_days, without_families
):
    variant = with_max_consecutive_days(request, max_consecutive.value)
    variant = without_families(variant, switched_off.value)
    return (variant,)


@app.cell
def solved(
    default_work_limit,
    from_request,
    mo,
    no_roster_advice,
    notebook_limits,
    preference_weight,
    solve_problem,
    time_limit,
    variant,
    with_preference_weight,
):
    problem = with_preference_weight(from_request(variant), preference_weight.value)
    with mo.status.spinner(title=f"Solving… up to {time_limit.value} s"):
        outcome = solve_problem(problem, notebook_limits(time_limit.value, default_work_limit))
    # Without a roster every cell below would draw empty or broken charts: stop them all
    # here, with what to do next.
    _advice = no_roster_advice(outcome.status, outcome.message, time_limit.value)
    mo.stop(not outcome.has_solution, mo.callout(mo.md(f"**No roster.** {_advice}"), "warn"))
    return (outcome,)


@app.cell
def audited(audit, compare_with_metrics, outcome, preference_weight, variant):
    report = audit(variant, outcome.assignments, preference_weight=preference_weight.value)
    audit_differences = compare_with_metrics(
        report,
        {
            "solver_runtime_seconds": outcome.runtime_seconds,
            "objective_value": outcome.objective_value,
            "soft_constraint_violations": [v.model_dump() for v in outcome.violations],
        },
        outcome.shortages,
    )
    return audit_differences, report


@app.cell
def summary(audit_differences, mo, outcome, report, source):
    _gap = f"{outcome.gap:.1%}" if outcome.gap is not None else "n/a"
    _first = outcome.solver.time_to_first_solution_seconds
    _verdict = (
        "the independent audit agrees: no hard rule broken, same penalties"
        if report.feasible and not audit_differences
        else f"the audit disagrees: {report.hard_violations[:3]} {audit_differences[:3]}"
    )
    mo.md(
        f"""
        **{source}**: {outcome.status}, objective **{outcome.objective_value:,.0f}**
        (bound {outcome.best_bound:,.0f}, gap {_gap}) in {outcome.runtime_seconds:.1f} s,
        first roster after {_first or 0:.2f} s; {len(outcome.assignments)} assignments,
        {sum(s.missing for s in outcome.shortages)} heads missing. Audit: {_verdict}.
        """
    )
    return


@app.cell
def tables(frames, outcome, variant):
    assignments = frames.assignments_frame(variant, outcome.assignments)
    coverage = frames.coverage_frame(variant, outcome.assignments, outcome.shortages)
    shortages = frames.shortages_frame(outcome.shortages)
    violations = frames.violations_frame(outcome.violations)
    penalties = frames.penalty_by_family(outcome.violations)
    progress = frames.progress_frame(outcome.progress)
    return assignments, coverage, penalties, progress, shortages, violations


@app.cell
def roster_chart(assignments, charts):
    roster_view = charts.roster_heatmap(assignments)
    roster_view
    return (roster_view,)


@app.cell
def coverage_chart(charts, coverage):
    coverage_view = charts.coverage_chart(coverage)
    coverage_view
    return (coverage_view,)


@app.cell
def penalty_and_progress(charts, mo, penalties, progress):
    penalty_view = charts.penalty_chart(penalties)
    progress_view = charts.progress_chart(progress)
    mo.hstack([penalty_view, progress_view], justify="start", gap=2)
    return penalty_view, progress_view


@app.cell
def table_tabs(assignments, mo, shortages, violations):
    mo.ui.tabs(
        {
            f"Assignments ({assignments.height})": mo.ui.table(assignments, page_size=15),
            f"Shortages ({shortages.height})": mo.ui.table(shortages, page_size=15),
            f"Violations ({violations.height})": mo.ui.table(violations, page_size=15),
        }
    )
    return


@app.cell
def roster_downloads(mo, outcome, source, variant):
    # The roster as files for a spreadsheet or a calendar (engine.export).
    from engine.export import FILE_TYPES as _TYPES
    from engine.export import export as _export
    from engine.export import file_name as _file_name

    roster_files = {_fmt: _export(variant, outcome.assignments, _fmt) for _fmt in _TYPES}
    mo.hstack(
        [
            mo.download(
                data=roster_files[_fmt],
                filename=_file_name(f"roster-{source}", _fmt),
                mimetype=_TYPES[_fmt].media_type,
                label=f"Download {_label}",
            )
            for _fmt, _label in (("csv", "CSV"), ("ics", "iCalendar"), ("xlsx", "XLSX"))
        ],
        justify="start",
        gap=1,
    )
    return (roster_files,)


@app.cell
def edit_controls(dt, mo, outcome, variant):
    NO_CHANGE = "(nobody)"
    edit_employee = mo.ui.dropdown(
        [NO_CHANGE] + [e.id for e in variant.employees], value=NO_CHANGE, label="Employee"
    )
    _period = variant.schedule_period
    _dates = [
        (_period.start_date + dt.timedelta(days=d)).isoformat()
        for d in range((_period.end_date - _period.start_date).days + 1)
    ]
    edit_date = mo.ui.dropdown(_dates, value=_dates[0], label="Date")
    edit_shift = mo.ui.dropdown(
        ["off"] + [s.id for s in variant.shifts], value="off", label="Shift"
    )
    edit_duty = mo.ui.dropdown(
        ["none"] + [k.id for k in variant.duties], value="none", label="Duty"
    )
    mo.vstack(
        [
            mo.md(
                "## Move one person by hand\n"
                f"Change one of the roster's {len(outcome.assignments)} assignments and the "
                "audit prices the result, without solving again."
            ),
            mo.hstack([edit_employee, edit_date, edit_shift, edit_duty], justify="start"),
        ]
    )
    return NO_CHANGE, edit_date, edit_duty, edit_employee, edit_shift


@app.cell
def hand_edit(NO_CHANGE, dt, edit_date, edit_duty, edit_employee, edit_shift, outcome, reassign):
    # None until someone is moved: a roster, or none, that the comparison below can offer
    # whether or not anyone was moved (a cell that stopped would stop it too).
    edited = (
        None
        if edit_employee.value == NO_CHANGE
        else reassign(
            outcome.assignments,
            edit_employee.value,
            dt.date.fromisoformat(edit_date.value),
            None if edit_shift.value == "off" else edit_shift.value,
            None if edit_duty.value == "none" else edit_duty.value,
        )
    )
    return (edited,)


@app.cell
def edit_verdict(edited, judge_edit, mo, outcome, pl, preference_weight, variant):
    mo.stop(
        edited is None,
        mo.md("Pick an employee, a date and a shift to see what the audit says of the move."),
    )
    verdict = judge_edit(
        variant, outcome.assignments, edited, preference_weight=preference_weight.value
    )
    broken = verdict.new_hard_violations
    changed = pl.DataFrame(
        [
            {"term": c.name, "before": c.before, "after": c.after, "delta": c.delta}
            for c in verdict.changed_terms
        ],
        schema={"term": pl.String, "before": pl.Float64, "after": pl.Float64, "delta": pl.Float64},
    )
    headline = (
        f"**Breaks {len(broken)} hard rule(s):** "
        + "; ".join(f"{v.code}: {v.message}" for v in broken[:5])
        if broken
        else "**Still feasible.**"
    )
    mo.vstack(
        [
            mo.md(f"{headline} Objective change: **{verdict.objective_delta:+,.0f}**."),
            mo.ui.table(changed, selection=None)
            if changed.height
            else mo.md("No soft term changes."),
        ]
    )
    return changed, verdict


@app.cell
def sick_controls(NO_CHANGE, dt, mo, variant):
    sick_employee = mo.ui.dropdown(
        [NO_CHANGE] + [e.id for e in variant.employees], value=NO_CHANGE, label="Sick employee"
    )
    _period = variant.schedule_period
    _dates = [
        (_period.start_date + dt.timedelta(days=d)).isoformat()
        for d in range((_period.end_date - _period.start_date).days + 1)
    ]
    sick_date = mo.ui.dropdown(_dates, value=_dates[0], label="from")
    sick_days = mo.ui.slider(1, 3, value=1, label="days", show_value=True)
    keep_past = mo.ui.checkbox(value=True, label="keep the days before as published")
    mo.vstack(
        [
            mo.md(
                "## A sick call\n"
                "Mark someone sick: the roster above is re-planned around the absence, moving "
                "as few people as it can (500 per changed assignment on top of the "
                "objective), and the employees who could take the slot they leave are ranked "
                "by the audit. The re-plan uses the request's own weights."
            ),
            mo.hstack([sick_employee, sick_date, sick_days, keep_past], justify="start"),
        ]
    )
    return keep_past, sick_date, sick_days, sick_employee


@app.cell
def sick_absence(NO_CHANGE, dt, mo, sick_date, sick_days, sick_employee, variant):
    from engine.planning import Absence

    # None until someone is marked sick; the cells below stop on it, but the comparison
    # further down still offers the other rosters.
    absence = None
    sick_dates = []
    if sick_employee.value != NO_CHANGE:
        _first = dt.date.fromisoformat(sick_date.value)
        sick_dates = [
            _first + dt.timedelta(days=i)
            for i in range(sick_days.value)
            if _first + dt.timedelta(days=i) <= variant.schedule_period.end_date
        ]
        absence = Absence(employee_id=sick_employee.value, dates=sick_dates)
    (
        mo.md("Pick a sick employee to re-plan the roster and see who could fill in.")
        if absence is None
        else None
    )
    return absence, sick_dates


@app.cell
def sick_replan(
    absence,
    default_work_limit,
    keep_past,
    mo,
    notebook_limits,
    outcome,
    sick_dates,
    time_limit,
    variant,
):
    from engine.planning import ReplanRequest
    from engine.replan import replan

    replanned = None  # nobody sick: nothing re-planned
    if absence is not None:
        _ask = ReplanRequest(
            request=variant,
            roster=list(outcome.assignments),
            absences=[absence],
            pin_before=sick_dates[0] if keep_past.value else None,
        )
        with mo.status.spinner(title=f"Re-planning… up to {time_limit.value} s"):
            replanned = replan(_ask, notebook_limits(time_limit.value, default_work_limit))
    replanned_roster = (
        None if replanned is None or replanned.solution is None else replanned.solution.assignments
    )
    return replanned, replanned_roster


@app.cell
def sick_replan_view(audit, charts, frames, mo, outcome, replanned, variant):
    mo.stop(replanned is None)  # nobody sick: the cell above says what to do
    if replanned.solution is None:
        _error = replanned.error
        _causes = (
            "".join(f"\n- `{c.field}`: {c.message}" for c in _error.diagnosis.causes)
            if _error is not None and _error.diagnosis is not None
            else ""
        )
        mo.stop(
            True,
            mo.callout(
                mo.md(
                    f"**No re-planned roster** ({_error.code if _error else 'unknown'}).{_causes}"
                ),
                "warn",
            ),
        )
    replan_report = audit(variant, replanned.solution.assignments)
    published_objective = audit(variant, outcome.assignments).objective_value
    changes_table = frames.changes_frame(replanned.changes)
    replan_view = charts.replan_heatmap(
        frames.assignments_frame(variant, replanned.solution.assignments), changes_table
    )
    mo.vstack(
        [
            mo.md(
                f"**{len(replanned.changes)} changed assignment(s)**; objective "
                f"{published_objective:,.0f} → **{replan_report.objective_value:,.0f}** "
                f"({replanned.solution.metrics.status}), audit: "
                f"{'no hard rule broken' if replan_report.feasible else 'hard rules broken'}. "
                "Changed cells are outlined."
            ),
            replan_view,
            mo.ui.table(changes_table, selection=None),
        ]
    )
    return changes_table, published_objective, replan_report, replan_view


@app.cell
def sick_recommend(absence, frames, mo, outcome, sick_dates, variant):
    from engine.planning import RecommendRequest, Slot
    from engine.recommend import recommend

    mo.stop(absence is None)  # nobody sick
    _left = sorted(
        (a for a in outcome.assignments if a.employee_id == absence.employee_id),
        key=lambda a: a.date,
    )
    _left = [a for a in _left if a.date in sick_dates]
    mo.stop(
        not _left,
        mo.md(f"{absence.employee_id} is off on those dates: no slot to fill."),
    )
    left_slot = _left[0]
    _roster = [
        a
        for a in outcome.assignments
        if not (a.employee_id == absence.employee_id and a.date in sick_dates)
    ]
    recommendations = recommend(
        RecommendRequest(
            request=variant,
            roster=_roster,
            slot=Slot(date=left_slot.date, shift_id=left_slot.shift_id, duty_id=left_slot.duty_id),
            absences=[absence],
            top=5,
        )
    )
    recommendations_table = frames.recommendations_frame(recommendations.recommendations)
    _duty = f" ({left_slot.duty_id})" if left_slot.duty_id else ""
    mo.vstack(
        [
            mo.md(
                f"### Who could take {left_slot.shift_id}{_duty} on "
                f"{left_slot.date.isoformat()}\n"
                f"The top 5 of {recommendations.candidates} candidates, each priced by the "
                "audit of the published roster with them in the slot (without re-solving)."
            ),
            mo.ui.table(recommendations_table, selection=None),
        ]
    )
    return left_slot, recommendations, recommendations_table


@app.cell
def short_table_cell(frames, mo, report, variant):
    from engine.review import audited_shortages

    short_markers = audited_shortages(variant, report)
    short_table = frames.audited_shortages_frame(short_markers)
    mo.md(
        "## Why is this shift short?\n"
        f"The roster above leaves {short_table.height} demand(s) short, each with the input "
        "item it falls short of (`field`). Select one: the roster is re-planned with one more "
        "head there, every hard rule kept. Either a roster is found, and the shortage is "
        "**avoidable** (who fills it, the cells that move and what the objective does), or "
        "none exists, and it is **unavoidable** (a minimal set of the hard rules and input "
        "items that forbid it). Every shortage of that date is explained in one run, which "
        "solves, so it runs only on a selection; prices are the request's own weights."
    )
    return short_markers, short_table


@app.cell
def short_picker_cell(mo, short_table):
    shortage_picker = mo.ui.table(
        short_table, selection="single", page_size=10, label="Short demands"
    )
    shortage_picker if short_table.height else mo.md("Every demand is met: nothing to explain.")
    return (shortage_picker,)


@app.cell
def short_explained(
    default_work_limit,
    mo,
    notebook_limits,
    outcome,
    short_markers,
    shortage_picker,
    time_limit,
    variant,
):
    from engine.explain import explain_shortages
    from engine.inquiry import ExplainRequest

    # None until a shortage is selected; the comparison below reads it either way.
    explanation = None
    short_answer = None
    _picked = shortage_picker.value
    if _picked is not None and len(_picked):
        _row = _picked.row(0, named=True)
        _key = (_row["kind"], _row["date"], _row["field"], _row["duty_id"])
        _marker = next(m for m in short_markers if (m.kind, m.date, m.field, m.duty_id) == _key)
        with mo.status.spinner(title=f"Explaining the shortages of {_marker.date.isoformat()}…"):
            short_answer = explain_shortages(
                ExplainRequest(
                    request=variant, roster=list(outcome.assignments), dates=[_marker.date]
                ),
                notebook_limits(time_limit.value, default_work_limit),
            )
        explanation = next(e for e in short_answer.explanations if e.shortage == _marker)
    return explanation, short_answer


@app.cell
def short_view(charts, explanation, frames, mo, short_answer, variant):
    mo.stop(
        explanation is None,
        mo.md("Select a short demand in the table to ask whether any roster could fill it."),
    )
    _tone = {"avoidable": "success", "unavoidable": "danger", "undecided": "warn"}
    _parts = [
        mo.callout(
            mo.md(f"**{explanation.verdict.capitalize()}**: {explanation.summary}."),
            _tone[explanation.verdict],
        )
    ]
    explanation_table = frames.explanations_frame(short_answer.explanations)
    causes_table = frames.causes_frame(explanation.causes)
    fill_changes = frames.changes_frame(explanation.changes)
    fill_view = None
    if explanation.roster is not None:
        _delta = explanation.objective_delta or 0.0
        fill_view = charts.replan_heatmap(
            frames.assignments_frame(variant, explanation.roster), fill_changes, "The fill"
        )
        _parts += [
            mo.md(
                f"Filled by **{', '.join(explanation.filled_by) or 'someone already there'}**; "
                f"{fill_changes.height} cell(s) change, outlined below; objective "
                f"{short_answer.objective_value:,.0f} → "
                f"{short_answer.objective_value + _delta:,.0f} (**{_delta:+,.0f}**). The fill "
                "is the cheapest roster found in its time, not proven the cheapest."
            ),
            fill_view,
            mo.ui.table(fill_changes, selection=None),
        ]
    elif explanation.verdict == "unavoidable":
        _parts += [
            mo.md("What forbids one more head there (a minimal set):"),
            mo.ui.table(causes_table, selection=None, wrapped_columns=["message"])
            if causes_table.height
            else mo.md("No input item to blame: nobody may work it at all."),
        ]
    _others = explanation_table.filter(
        explanation_table["field"] != explanation.shortage.field
    ).drop("date")
    if _others.height:
        _parts += [
            mo.md(
                f"The other shortages of {explanation.shortage.date.isoformat()}, explained too:"
            ),
            mo.ui.table(_others, selection=None, wrapped_columns=["summary"]),
        ]
    mo.vstack(_parts)
    return causes_table, explanation_table, fill_changes, fill_view


@app.cell
def short_adopt(explanation, mo):
    # A new switch, off, for every explanation: a fill is compared only when asked.
    adopt_fill = mo.ui.switch(value=False, label="compare this fill with the roster above")
    adopt_fill if explanation is not None and explanation.roster is not None else None
    return (adopt_fill,)


@app.cell
def compare_source(mo):
    compare_upload = mo.ui.file(
        filetypes=[".json"], label="or upload a roster (a SolveResponse or its assignments)"
    )
    mo.vstack(
        [
            mo.md(
                "## Compare two rosters\n"
                "The roster above against another one made here: moved by hand, re-planned "
                "after a sick call, the fill of a shortage (switch it on above), or uploaded. "
                "Every figure is the independent audit's comparison of the two "
                "(`engine.review.compare`), every delta after − before, priced at the "
                "request's own weights whatever the preference weight above."
            ),
            compare_upload,
        ]
    )
    return (compare_upload,)


@app.cell
def compare_candidates(
    InvalidRequest,
    adopt_fill,
    compare_upload,
    edited,
    explanation,
    load_json,
    mo,
    replanned_roster,
    variant,
):
    from engine.audit import read_response
    from engine.export import assignments_path
    from engine.inquiry import fit_faults

    # Every roster made in the notebook so far; the dropdown starts on the first of them:
    # a fill switched on, then an upload, the re-plan, the hand edit.
    compare_rosters = {}
    if adopt_fill.value and explanation is not None and explanation.roster is not None:
        _where = explanation.shortage
        compare_rosters[
            f"the fill of {_where.shift_id or ','.join(_where.shift_ids or [])} "
            f"on {_where.date.isoformat()}"
        ] = explanation.roster
    upload_faults = []
    if compare_upload.value:
        try:
            _raw = load_json(compare_upload.contents(), compare_upload.name())
            _read = read_response(_raw)
            upload_faults = fit_faults(
                variant, _read.assignments, assignments_path(_raw) or (compare_upload.name(),)
            )
        except InvalidRequest as exc:
            upload_faults = exc.errors
        if not upload_faults:
            compare_rosters[f"uploaded {compare_upload.name()}"] = _read.assignments
    if replanned_roster is not None:
        compare_rosters["re-planned after the sick call"] = replanned_roster
    if edited is not None:
        compare_rosters["moved by hand"] = edited
    (
        mo.callout(
            mo.md(
                "**Not a roster of this request**\n\n"
                + "\n".join(f"- `{fault}`" for fault in upload_faults[:10])
            ),
            "danger",
        )
        if upload_faults
        else None
    )
    return compare_rosters, upload_faults


@app.cell
def compare_picker(compare_rosters, mo):
    compare_with = mo.ui.dropdown(
        options=list(compare_rosters),
        value=next(iter(compare_rosters), None),
        label="Compare the roster above with",
    )
    (
        compare_with
        if compare_rosters
        else mo.md(
            "Move someone by hand, mark someone sick, switch on a shortage's fill or upload "
            "a roster: it can then be compared with the roster above."
        )
    )
    return (compare_with,)


@app.cell
def compared(compare_rosters, compare_with, frames, mo, outcome, variant):
    from engine.review import compare

    mo.stop(compare_with.value not in compare_rosters)  # nothing to compare: said above
    compare_name = compare_with.value
    comparison = compare(variant, outcome.assignments, compare_rosters[compare_name])
    broken_added = frames.hard_violations_frame(comparison.hard_violations_added)
    _removed = len(comparison.hard_violations_removed)
    _headline = mo.md(
        f"**The roster above → {compare_name}**: {len(comparison.changes)} cell(s) "
        f"differ for {len(comparison.employees)} employee(s); objective "
        f"{comparison.objective_before:,.0f} → {comparison.objective_after:,.0f} "
        f"(**{comparison.objective_delta:+,.0f}**); hard rules: "
        f"{broken_added.height} newly broken, {_removed} no longer broken."
    )
    (
        mo.vstack([_headline, mo.ui.table(broken_added, selection=None)])
        if broken_added.height
        else _headline
    )
    return broken_added, compare_name, comparison


@app.cell
def compare_cells_view(
    charts, compare_name, compare_rosters, comparison, frames, mo, outcome, variant
):
    compare_changes = frames.changes_frame(comparison.changes)
    _names = ("the roster above", compare_name)
    compare_cells = frames.compared_cells_frame(
        frames.assignments_frame(variant, outcome.assignments),
        frames.assignments_frame(variant, compare_rosters[compare_name]),
        compare_changes,
        _names,
    )
    compare_view = charts.compare_heatmap(compare_cells, _names)
    mo.vstack(
        [
            mo.md("### The cells\nBoth rosters, side by side; every changed cell outlined."),
            compare_view,
            mo.ui.table(compare_changes, selection=None, page_size=10),
        ]
    )
    return compare_cells, compare_changes, compare_view


@app.cell
def compare_people(charts, comparison, frames, mo):
    employee_changes = frames.employee_changes_frame(comparison.employees)
    employee_view = charts.employee_changes_chart(employee_changes)
    mo.vstack(
        [
            mo.md(
                "### Who carries what\nPer employee whose figures or cells change: shifts, "
                "hours, nights, weekends and preferences granted, after − before."
            ),
            *(
                [employee_view, mo.ui.table(employee_changes, selection=None)]
                if employee_changes.height
                else [mo.md("Nobody's figures change.")]
            ),
        ]
    )
    return employee_changes, employee_view


@app.cell
def compare_costs(comparison, frames, mo):
    term_changes = frames.term_changes_frame(comparison.terms)
    kpi_table = frames.kpis_frame(comparison.kpis_before, comparison.kpis_after)

    def _shown(value, sign=""):
        return "" if value is None else f"{value:{sign},.2f}"

    _numbers = {
        "before": _shown,
        "after": _shown,
        "delta": lambda value: _shown(value, "+"),
    }
    mo.hstack(
        [
            mo.vstack(
                [
                    mo.md("### The price, per soft term\nOnly the terms whose price changes."),
                    mo.ui.table(term_changes, selection=None, format_mapping=_numbers)
                    if term_changes.height
                    else mo.md("No soft term changes its price."),
                ]
            ),
            mo.vstack(
                [
                    mo.md("### KPIs\nBoth rosters' headline numbers."),
                    mo.ui.table(kpi_table, selection=None, page_size=15, format_mapping=_numbers),
                ]
            ),
        ],
        justify="start",
        gap=2,
        widths="equal",
    )
    return kpi_table, term_changes


@app.cell
def next_source(mo):
    history_upload = mo.ui.file(
        filetypes=[".json"], label="or upload the previous period's answer (JSON)"
    )
    mo.vstack(
        [
            mo.md(
                "## Plan the next period\n"
                "The roster above becomes the history of the next period; or upload the "
                "answer of the period before (a SolveResponse, or a plan's answer with its "
                "ledger). The next period is the request carried forward: each day's demand "
                "that of the latest day on the same weekday, while holidays, preferences and "
                "fixed assignments stay with their dates. It is planned after the history: "
                "the run of days in progress, the last shift, the week and month the boundary "
                "cuts in two and the counts so far hold across the seam."
            ),
            history_upload,
        ]
    )
    return (history_upload,)


@app.cell
def next_history(history_upload, mo, outcome, variant):
    from pydantic import ValidationError

    from engine.history import History
    from engine.seam import ledger_after

    if history_upload.value:
        try:
            history = History.model_validate_json(history_upload.contents())
        except ValidationError as exc:
            _faults = "\n".join(f"- {e['msg']}" for e in exc.errors()[:5])
            mo.stop(True, mo.callout(mo.md(f"**Not a previous answer**\n\n{_faults}"), "danger"))
        history_source = history_upload.name()
    else:  # the roster above, with its ledger: the counts through its last date
        history = History(
            assignments=list(outcome.assignments),
            ledger=ledger_after(variant, outcome.assignments, None),
        )
        history_source = "the roster above"
    # The next period starts after this request's period and after all the history holds.
    _ends = [a.date for a in history.assignments]
    _ends += [history.ledger.through] if history.ledger else []
    current_end = max([variant.schedule_period.end_date, *_ends])
    return current_end, history, history_source


@app.cell
def next_controls(current_end, dt, mo, variant):
    _period = variant.schedule_period
    _length = (_period.end_date - _period.start_date).days + 1
    _first = current_end + dt.timedelta(days=1)
    next_start = mo.ui.date(start=_first, value=_first, label="Next period from")
    next_days = mo.ui.slider(
        1, max(62, _length), value=_length, label="days", show_value=True, debounce=True
    )
    plan_next = mo.ui.switch(value=False, label="plan it")
    mo.hstack([next_start, next_days, plan_next], justify="start")
    return next_days, next_start, plan_next


@app.cell
def next_request(mo, next_days, next_start, plan_next, variant):
    from engine.periods import next_period

    mo.stop(
        not plan_next.value,
        mo.md("Switch on *plan it* to plan the next period after this history."),
    )
    next_variant = next_period(variant, next_days.value, next_start.value)
    return (next_variant,)


@app.cell
def next_plan(
    PlanRequest,
    default_work_limit,
    history,
    mo,
    next_variant,
    notebook_limits,
    plan,
    time_limit,
):
    from engine.history import history_faults

    _faults = history_faults(next_variant, history, ("history",))
    mo.stop(
        bool(_faults),
        mo.callout(
            mo.md(
                "**The history does not fit the request**\n\n"
                + "\n".join(f"- `{fault}`" for fault in _faults[:10])
            ),
            "danger",
        ),
    )
    with mo.status.spinner(title=f"Planning the next period… up to {time_limit.value} s"):
        next_planned = plan(
            PlanRequest(request=next_variant, history=history),
            notebook_limits(time_limit.value, default_work_limit),
        )
    _why = next_planned.error.code if next_planned.error else next_planned.status
    mo.stop(
        next_planned.solution is None,
        mo.callout(mo.md(f"**No roster for the next period** ({_why})."), "warn"),
    )
    next_roster = next_planned.solution.assignments
    return next_planned, next_roster


@app.cell
def next_seam(
    audit,
    charts,
    current_end,
    frames,
    history,
    history_source,
    mo,
    next_planned,
    next_roster,
    next_variant,
    variant,
):
    SEAM_DAYS = 7
    seam_report = audit(next_variant, next_roster, history=history)
    seam_blind_report = audit(next_variant, next_roster)  # the history ignored
    seam_differences = frames.audit_comparison_frame(seam_report, seam_blind_report)
    _start = next_variant.schedule_period.start_date
    seam_table = frames.seam_frame(
        frames.assignments_frame(variant, history.assignments),
        frames.assignments_frame(next_variant, next_roster),
        current_end,
        _start,
        SEAM_DAYS,
    )
    seam_view = charts.seam_heatmap(
        seam_table,
        _start,
        f"The last {SEAM_DAYS} days of {history_source} | the first {SEAM_DAYS} of the next",
    )
    _broken = len(seam_report.hard_violations)
    mo.vstack(
        [
            mo.md(
                f"**{_start.isoformat()} .. {next_variant.schedule_period.end_date.isoformat()}**"
                f": {len(next_roster)} assignments, objective "
                f"**{seam_report.objective_value:,.0f}** "
                f"({next_planned.solution.metrics.status}); the audit across the seam: "
                + ("no hard rule broken" if not _broken else f"**{_broken} hard rule(s) broken**")
                + f". Read as if nothing came before, the same roster costs "
                f"{seam_blind_report.objective_value:,.0f}. The black line is the boundary."
            ),
            seam_view,
            mo.ui.table(seam_differences, selection=None)
            if seam_differences.height
            else mo.md("The audit reads this roster the same with the history and without."),
        ]
    )
    return SEAM_DAYS, seam_blind_report, seam_differences, seam_report, seam_table, seam_view


@app.cell
def next_without_history(
    PlanRequest,
    audit,
    default_work_limit,
    frames,
    history,
    mo,
    next_variant,
    notebook_limits,
    plan,
    seam_report,
    time_limit,
):
    with mo.status.spinner(title="Planning the same period as if nothing came before…"):
        naive_plan = plan(
            PlanRequest(request=next_variant),
            notebook_limits(time_limit.value, default_work_limit),
        )
    mo.stop(naive_plan.solution is None)
    naive_report = audit(next_variant, naive_plan.solution.assignments, history=history)
    naive_breaks = frames.hard_violations_frame(naive_report.hard_violations)
    mo.vstack(
        [
            mo.md(
                "### Planned without the history\n"
                "The same period planned as if nothing came before, then audited with the "
                f"history: **{naive_breaks.height} hard rule(s) broken** across the seam, "
                f"objective {naive_report.objective_value:,.0f} (against "
                f"{seam_report.objective_value:,.0f} planned after the history)."
            ),
            mo.ui.table(naive_breaks, selection=None) if naive_breaks.height else mo.md(""),
        ]
    )
    return naive_breaks, naive_plan, naive_report


@app.cell
def next_ledger(frames, history, mo, next_planned, next_variant):
    from engine.seam import history_ledger

    ledger_before = history_ledger(next_variant, history)
    ledger_table = frames.ledger_frame(next_planned.ledger, [s.id for s in next_variant.shifts])
    spread_table = frames.ledger_spread_frame(next_variant, ledger_before, next_planned.ledger)
    _per = (
        "fairness group"
        if next_variant.constraints.fairness_groups
        else "shift (the request has no fairness group)"
    )
    mo.vstack(
        [
            mo.md(
                f"### The ledger through {next_planned.ledger.through.isoformat()}\n"
                "Per employee, all counted so far, the new period included: what the period "
                "after it reads as its history's ledger."
            ),
            mo.ui.table(ledger_table, selection=None, page_size=15),
            mo.md(f"The spread (most − fewest) of the counts per {_per}, before and after:"),
            mo.ui.table(spread_table, selection=None),
            mo.download(
                data=next_planned.model_dump_json(indent=2).encode(),
                filename=f"plan-{next_variant.schedule_period.start_date.isoformat()}.json",
                mimetype="application/json",
                label="Download the plan (the next period's history)",
            ),
        ]
    )
    return ledger_before, ledger_table, spread_table


if __name__ == "__main__":
    app.run()
