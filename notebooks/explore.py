import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="Roster explorer")


@app.cell
def imports():
    import datetime as dt
    import time
    from pathlib import Path

    import marimo as mo
    import polars as pl

    from shiftsched.checking.audit import audit, compare_with_metrics, read_response
    from shiftsched.contract.parse import load_json, parse_request
    from shiftsched.contract.planning import PlanRequest
    from shiftsched.contract.size import request_size, suggested_time_limit
    from shiftsched.errors import InvalidRequest
    from shiftsched.periods.plan import plan
    from shiftsched.present import charts, frames
    from shiftsched.present.advice import no_roster_advice
    from shiftsched.present.export import assignments_path
    from shiftsched.present.notebook_limits import notebook_limits, notebook_workers
    from shiftsched.questions.edit import judge_edit, reassign
    from shiftsched.questions.inquiry import fit_faults
    from shiftsched.questions.variants import (
        FAMILIES,
        families_in_use,
        with_max_consecutive_days,
        with_preference_weight,
        without_families,
    )
    from shiftsched.solving.diagnose import DiagnosisLimits, diagnose
    from shiftsched.solving.problem import DEFAULT_MAX_CONSECUTIVE_DAYS, from_request
    from shiftsched.solving.solve import solve_problem

    return (
        DEFAULT_MAX_CONSECUTIVE_DAYS,
        DiagnosisLimits,
        FAMILIES,
        InvalidRequest,
        Path,
        PlanRequest,
        assignments_path,
        audit,
        charts,
        compare_with_metrics,
        diagnose,
        dt,
        families_in_use,
        fit_faults,
        frames,
        from_request,
        judge_edit,
        load_json,
        mo,
        no_roster_advice,
        notebook_limits,
        notebook_workers,
        parse_request,
        pl,
        plan,
        read_response,
        reassign,
        request_size,
        solve_problem,
        suggested_time_limit,
        time,
        with_max_consecutive_days,
        with_preference_weight,
        without_families,
    )


@app.cell
def intro(mo):
    mo.md("""
    # Roster explorer

    Pick an instance (or upload a `SolveRequest` JSON), move a control, and the roster is
    solved again; or upload a roster of the chosen instance (a `SolveResponse`, its
    `assignments` or a bare list) to see it audited instead. Every roster is checked by
    the independent audit. Click a cell of the roster to move that person by hand or to
    mark them sick: the audit prices a move without re-solving, and a sick call is
    re-planned with the people who could fill in ranked. Further down, ask why a shift is
    short and whether anyone could fill it, compare the roster with another, or plan the
    next period after this roster.
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
    # W deterministic seconds of CP-SAT work (shiftsched.present.notebook_limits), the time limit
    # then only a backstop: the same rosters on any machine, however busy (exports, tests).
    default_work_limit = float(_cli.get("work-limit") or 0)
    return default_dataset, default_request, default_time_limit, default_work_limit


@app.cell
def dataset_choice(Path, default_dataset, default_request, mo):
    # The Dataset list's choice outlives the list: an upload rebuilds the list, and a
    # request uploaded is chosen in it, while a roster uploaded leaves the choice alone.
    get_dataset_choice, set_dataset_choice = mo.state(
        Path(default_request).stem if default_request else default_dataset
    )
    return get_dataset_choice, set_dataset_choice


@app.cell
def upload_control(mo):
    upload = mo.ui.file(
        filetypes=[".json"],
        label="or upload a request, or a roster of the chosen request (JSON)",
    )
    return (upload,)


@app.cell
def uploaded(InvalidRequest, load_json, mo, set_dataset_choice, upload):
    # An upload is a request (it has a schedule period, shifts or employees) or a roster
    # (a SolveResponse, {"assignments": [...]} or a bare list), read by what it holds.
    uploaded_request = None  # (name, JSON) of a request uploaded
    uploaded_roster = None  # (name, JSON) of a roster uploaded
    if upload.value:
        try:
            _data = load_json(upload.contents(), upload.name())
        except InvalidRequest as exc:
            _faults = "\n".join(f"- `{fault}`" for fault in exc.errors)
            mo.stop(True, mo.callout(mo.md(f"**Not a JSON file**\n\n{_faults}"), "danger"))
        _keys = {"schedule_period", "shifts", "employees"}
        if isinstance(_data, dict) and _keys & set(_data):
            uploaded_request = (upload.name(), _data)
            set_dataset_choice(upload.name())  # chosen in the Dataset list, until changed
        else:
            uploaded_roster = (upload.name(), _data)
    return uploaded_request, uploaded_roster


@app.cell
def dataset_picker(
    Path,
    default_request,
    get_dataset_choice,
    mo,
    set_dataset_choice,
    upload,
    uploaded_request,
):
    dataset_dir = Path(mo.notebook_dir() or ".").parent / "datasets"
    dataset_paths = {p.stem: p for p in sorted(dataset_dir.glob("*.json"))}
    if default_request:
        dataset_paths[Path(default_request).stem] = Path(default_request)
    _options = list(dataset_paths) + ([uploaded_request[0]] if uploaded_request else [])
    _chosen = get_dataset_choice()
    dataset = mo.ui.dropdown(
        options=_options,
        value=_chosen if _chosen in _options else _options[0],
        label="Dataset",
        on_change=set_dataset_choice,
    )
    mo.hstack([dataset, upload], justify="start", gap=2)
    return dataset, dataset_paths


@app.cell
def base_request(
    InvalidRequest, dataset, dataset_paths, load_json, mo, parse_request, uploaded_request
):
    source = dataset.value
    try:
        if uploaded_request is not None and source == uploaded_request[0]:
            request = parse_request(uploaded_request[1])
        else:
            request = parse_request(load_json(dataset_paths[source].read_bytes(), source))
    except InvalidRequest as exc:
        _faults = "\n".join(f"- `{fault}`" for fault in exc.errors)
        mo.stop(True, mo.callout(mo.md(f"**Not a valid request**\n\n{_faults}"), "danger"))
    # Say where the request comes from when it is an upload: the list holds it too.
    (
        mo.callout(
            mo.md(f"Using the uploaded request **{source}**; choose a dataset to leave it."),
            "info",
        )
        if uploaded_request is not None and source == uploaded_request[0]
        else None
    )
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
def roster_upload(
    InvalidRequest, assignments_path, fit_faults, mo, read_response, uploaded_roster, variant
):
    # A roster uploaded is shown instead of a solve when it fits the chosen request: every
    # employee, date, shift and duty it names is the request's
    # (shiftsched.questions.inquiry.fit_faults; a roster of another request is one fault). The
    # switch gives the solve back.
    upload_fit_faults = []
    fitting_upload = None
    if uploaded_roster is not None:
        _name, _data = uploaded_roster
        try:
            _read = read_response(_data)
            upload_fit_faults = fit_faults(
                variant, _read.assignments, assignments_path(_data) or (_name,)
            )
        except InvalidRequest as exc:
            upload_fit_faults = exc.errors
        fitting_upload = None if upload_fit_faults else _read.assignments
    show_upload = mo.ui.switch(value=True, label="show the uploaded roster instead of a solve")
    if uploaded_roster is None:
        _shown = None
    elif upload_fit_faults:
        _shown = mo.callout(
            mo.md(
                f"**{uploaded_roster[0]} is not a roster of this request**, so the request is "
                f"solved instead. The first fault: `{upload_fit_faults[0]}`"
                + "".join(f"\n- `{fault}`" for fault in upload_fit_faults[1:5])
            ),
            "warn",
        )
    else:
        _shown = show_upload
    _shown
    return fitting_upload, show_upload, upload_fit_faults


@app.cell
def solved(
    DiagnosisLimits,
    default_work_limit,
    diagnose,
    fitting_upload,
    from_request,
    mo,
    no_roster_advice,
    notebook_limits,
    notebook_workers,
    preference_weight,
    show_upload,
    solve_problem,
    time,
    time_limit,
    variant,
    with_preference_weight,
):
    outcome = None  # an uploaded roster shown: nothing is solved
    if fitting_upload is None or not show_upload.value:
        # The clock starts before the problem is built: the times shown are what you wait.
        _asked = time.perf_counter()
        problem = with_preference_weight(from_request(variant), preference_weight.value)
        with mo.status.spinner(title=f"Solving… up to {time_limit.value} s"):
            outcome = solve_problem(
                problem, notebook_limits(time_limit.value, default_work_limit), _asked
            )
        # Without a roster every cell below would draw empty or broken charts: stop them
        # all here, with the first cause when the rules admit none (as the command line
        # and the service name it), and what to do next.
        _advice = no_roster_advice(outcome.status, outcome.message, time_limit.value)
        if not outcome.has_solution and outcome.status == "infeasible":
            with mo.status.spinner(title="Looking for the first cause…"):
                _causes = diagnose(
                    variant,
                    DiagnosisLimits(time_limit.value, notebook_workers(default_work_limit)),
                ).causes
            if _causes:
                _advice += f"\n\n**First cause:** {_causes[0].message} (`{_causes[0].field}`)"
        mo.stop(not outcome.has_solution, mo.callout(mo.md(f"**No roster.** {_advice}"), "warn"))
    return (outcome,)


@app.cell
def shown_roster(fitting_upload, outcome):
    # The roster every cell below shows: the solve's, or the uploaded one.
    roster = fitting_upload if outcome is None else outcome.assignments
    return (roster,)


@app.cell
def audited(audit, compare_with_metrics, outcome, preference_weight, roster, variant):
    report = audit(variant, roster, preference_weight=preference_weight.value)
    audit_differences = (
        []
        if outcome is None
        else compare_with_metrics(
            report,
            {
                "solver_runtime_seconds": outcome.runtime_seconds,
                "objective_value": outcome.objective_value,
                "soft_constraint_violations": [v.model_dump() for v in outcome.violations],
            },
            outcome.shortages,
        )
    )
    return audit_differences, report


@app.cell
def summary(audit_differences, frames, mo, outcome, report, roster, source, uploaded_roster):
    if outcome is None:
        _broken = frames.hard_violations_frame(report.hard_violations)
        _verdict = (
            "no hard rule broken"
            if report.feasible
            else f"**{_broken.height} hard rule(s) broken**, listed below"
        )
        _summary = mo.md(
            f"**{uploaded_roster[0]}**, a roster of **{source}** read from the file (not solved "
            f"here): objective **{report.objective_value:,.0f}** by the independent audit, "
            f"{len(roster)} assignments, {sum(s.missing for s in report.shortages)} heads "
            f"missing; {_verdict}."
        )
        _parts = [_summary] if report.feasible else [_summary, mo.ui.table(_broken)]
    else:
        _gap = f"{outcome.gap:.1%}" if outcome.gap is not None else "n/a"
        _first = outcome.solver.time_to_first_solution_seconds
        _verdict = (
            "the independent audit agrees: no hard rule broken, same penalties"
            if report.feasible and not audit_differences
            else f"the audit disagrees: {report.hard_violations[:3]} {audit_differences[:3]}"
        )
        _parts = [
            mo.md(
                f"""
                **{source}**: {outcome.status}, objective **{outcome.objective_value:,.0f}**
                (bound {outcome.best_bound:,.0f}, gap {_gap}); the first roster came
                {_first or 0:.2f} s after the solve was asked for, this one after
                {outcome.runtime_seconds:.1f} s (the model's build included);
                {len(roster)} assignments, {sum(s.missing for s in outcome.shortages)} heads
                missing. Audit: {_verdict}.
                """
            )
        ]
    mo.vstack(_parts)
    return


@app.cell
def tables(frames, outcome, report, roster, variant):
    # Every figure below is the audit's (equal to the solver's when it solved).
    assignments = frames.assignments_frame(variant, roster)
    coverage = frames.coverage_frame(variant, roster, report.shortages)
    shortages = frames.shortages_frame(report.shortages)
    violations = frames.violations_frame(report.soft_constraint_violations, variant)
    penalties = frames.penalty_by_family(report.soft_constraint_violations)
    progress = frames.progress_frame([] if outcome is None else outcome.progress)
    return assignments, coverage, penalties, progress, shortages, violations


@app.cell
def roster_chart(assignments, charts, mo):
    roster_view = charts.pickable_roster_heatmap(
        assignments, "Roster: click a cell to edit it or to mark that person sick"
    )
    roster_picker = mo.ui.altair_chart(roster_view, legend_selection=False)
    roster_picker
    return roster_picker, roster_view


@app.cell
def cell_picks(mo):
    # What a click on the roster hands down: the cell to edit by hand, the cell of a sick
    # call. Each is set by its button only, so a new click changes neither section.
    get_edit_pick, set_edit_pick = mo.state(None)
    get_sick_pick, set_sick_pick = mo.state(None)
    return get_edit_pick, get_sick_pick, set_edit_pick, set_sick_pick


@app.cell
def cell_pick(mo, roster_picker, set_edit_pick, set_sick_pick):
    _rows = roster_picker.value
    picked_cell = None  # (employee_id, date) of the cell clicked
    if _rows is not None and len(_rows) == 1:
        _row = _rows.row(0, named=True)
        picked_cell = (_row["employee_id"], _row["date"].isoformat())
        _duty = f" ({_row['duty']})" if _row["duty"] else ""
        _what = (
            f"**{_row['employee']}** ({_row['employee_id']}) works **{_row['shift']}**{_duty} "
            f"on {_row['date']}"
        )
    edit_this = mo.ui.button(
        label="Edit this cell",
        on_click=lambda _: set_edit_pick(picked_cell),
        tooltip="Pre-fill the hand edit below with this cell",
    )
    mark_sick = mo.ui.button(
        label="Mark sick",
        on_click=lambda _: set_sick_pick(picked_cell),
        tooltip="Pre-fill the sick call below with this person and date",
    )
    (
        mo.hstack([mo.md(_what), edit_this, mark_sick], justify="start", align="center")
        if picked_cell is not None
        else mo.md(
            "Click a cell of the roster to edit it or to mark that person sick "
            "(a double click clears the choice)."
        )
    )
    return edit_this, mark_sick, picked_cell


@app.cell
def coverage_chart(charts, coverage):
    coverage_view = charts.coverage_chart(coverage)
    coverage_view
    return (coverage_view,)


@app.cell
def penalty_and_progress(charts, mo, outcome, penalties, progress):
    penalty_view = charts.penalty_chart(penalties)
    progress_view = charts.progress_chart(progress) if outcome is not None else None
    mo.hstack(
        [
            penalty_view,
            progress_view
            if progress_view is not None
            else mo.md("No search progress: this roster was uploaded, not solved."),
        ],
        justify="start",
        gap=2,
    )
    return penalty_view, progress_view


@app.cell
def table_tabs(assignments, mo, shortages, violations):
    mo.ui.tabs(
        {
            f"Assignments ({assignments.height})": mo.ui.table(assignments, page_size=15),
            f"Shortages ({shortages.height})": mo.ui.table(shortages, page_size=15),
            f"Violations ({violations.height})": mo.ui.table(
                violations, page_size=15, wrapped_columns=["what"]
            ),
        }
    )
    return


@app.cell
def roster_downloads(mo, roster, source, variant):
    # The roster as files for a spreadsheet or a calendar (shiftsched.present.export).
    from shiftsched.present.export import FILE_TYPES as _TYPES
    from shiftsched.present.export import export as _export
    from shiftsched.present.export import file_name as _file_name

    roster_files = {_fmt: _export(variant, roster, _fmt) for _fmt in _TYPES}
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
def edit_controls(dt, get_edit_pick, mo, roster, variant):
    NO_CHANGE = "(nobody)"
    _period = variant.schedule_period
    _dates = [
        (_period.start_date + dt.timedelta(days=d)).isoformat()
        for d in range((_period.end_date - _period.start_date).days + 1)
    ]
    # A cell picked on the roster ("Edit this cell") fills the controls in: that person,
    # that date and the shift they work there now, to be changed.
    _pick = get_edit_pick()
    _ids = [e.id for e in variant.employees]
    _who, _when = _pick if _pick and _pick[0] in _ids and _pick[1] in _dates else (None, None)
    _now = next((a for a in roster if (a.employee_id, a.date.isoformat()) == _pick), None)
    edit_employee = mo.ui.dropdown([NO_CHANGE, *_ids], value=_who or NO_CHANGE, label="Employee")
    edit_date = mo.ui.dropdown(_dates, value=_when or _dates[0], label="Date")
    edit_shift = mo.ui.dropdown(
        ["off"] + [s.id for s in variant.shifts],
        value=_now.shift_id if _now else "off",
        label="Shift",
    )
    edit_duty = mo.ui.dropdown(
        ["none"] + [k.id for k in variant.duties],
        value=_now.duty_id if _now and _now.duty_id else "none",
        label="Duty",
    )
    mo.vstack(
        [
            mo.md(
                "## Move one person by hand\n"
                f"Change one of the roster's {len(roster)} assignments (or click a cell of "
                "the roster and *Edit this cell*) and the audit prices the result, without "
                "solving again."
            ),
            mo.hstack([edit_employee, edit_date, edit_shift, edit_duty], justify="start"),
        ]
    )
    return NO_CHANGE, edit_date, edit_duty, edit_employee, edit_shift


@app.cell
def hand_edit(NO_CHANGE, dt, edit_date, edit_duty, edit_employee, edit_shift, reassign, roster):
    # None until someone is moved: a roster, or none, that the comparison below can offer
    # whether or not anyone was moved (a cell that stopped would stop it too). A "move"
    # to what the cell already holds moves nobody.
    edited = None
    if edit_employee.value != NO_CHANGE:
        edited = reassign(
            roster,
            edit_employee.value,
            dt.date.fromisoformat(edit_date.value),
            None if edit_shift.value == "off" else edit_shift.value,
            None if edit_duty.value == "none" else edit_duty.value,
        )
        edited = None if sorted(edited, key=str) == sorted(roster, key=str) else edited
    return (edited,)


@app.cell
def edit_verdict(
    NO_CHANGE,
    edit_date,
    edit_employee,
    edited,
    judge_edit,
    mo,
    pl,
    preference_weight,
    roster,
    variant,
):
    from shiftsched.checking.items import term_words

    mo.stop(
        edited is None,
        mo.md(
            "Pick an employee, a date and a shift to see what the audit says of the move."
            if edit_employee.value == NO_CHANGE
            else f"Nothing moves yet: that is what {edit_employee.value} works on "
            f"{edit_date.value} in the roster above. Pick another shift, or off."
        ),
    )
    verdict = judge_edit(variant, roster, edited, preference_weight=preference_weight.value)
    broken = verdict.new_hard_violations
    changed = pl.DataFrame(
        [
            {
                "what": term_words(variant, c.name),
                "before": c.before,
                "after": c.after,
                "delta": c.delta,
                "name": c.name,
            }
            for c in verdict.changed_terms
        ],
        schema={
            "what": pl.String,
            "before": pl.Float64,
            "after": pl.Float64,
            "delta": pl.Float64,
            "name": pl.String,
        },
    )
    headline = (
        f"**Breaks {len(broken)} hard rule(s):** "
        + "; ".join(f"{v.message} (`{v.field}`)" if v.field else v.message for v in broken[:5])
        if broken
        else "**Still feasible.**"
    )
    mo.vstack(
        [
            mo.md(f"{headline} Objective change: **{verdict.objective_delta:+,.0f}**."),
            mo.ui.table(changed, selection=None, wrapped_columns=["what"])
            if changed.height
            else mo.md("No soft term changes."),
        ]
    )
    return changed, verdict


@app.cell
def sick_controls(NO_CHANGE, dt, get_sick_pick, mo, variant):
    _period = variant.schedule_period
    _dates = [
        (_period.start_date + dt.timedelta(days=d)).isoformat()
        for d in range((_period.end_date - _period.start_date).days + 1)
    ]
    # A cell picked on the roster ("Mark sick") fills in that person and that date.
    _pick = get_sick_pick()
    _ids = [e.id for e in variant.employees]
    _who, _when = _pick if _pick and _pick[0] in _ids and _pick[1] in _dates else (None, None)
    sick_employee = mo.ui.dropdown(
        [NO_CHANGE, *_ids], value=_who or NO_CHANGE, label="Sick employee"
    )
    sick_date = mo.ui.dropdown(_dates, value=_when or _dates[0], label="from")
    sick_days = mo.ui.slider(1, 3, value=1, label="days", show_value=True)
    keep_past = mo.ui.checkbox(value=True, label="keep the days before as published")
    mo.vstack(
        [
            mo.md(
                "## A sick call\n"
                "Mark someone sick (here, or click their cell on the roster and *Mark "
                "sick*): the roster above, as published, is re-planned around the absence, "
                "moving as few people as it can (500 per changed assignment on top of the "
                "objective), and the employees who could take the slot they leave are "
                "ranked by the audit. Every figure is at the request's own weights."
            ),
            mo.hstack([sick_employee, sick_date, sick_days, keep_past], justify="start"),
        ]
    )
    return keep_past, sick_date, sick_days, sick_employee


@app.cell
def sick_absence(NO_CHANGE, dt, mo, roster, sick_date, sick_days, sick_employee, variant):
    from shiftsched.contract.planning import Absence
    from shiftsched.questions.sick_call import left_cells

    # None until someone is marked sick; the cells below stop on it, but the comparison
    # further down still offers the other rosters. Nothing to re-plan either when the
    # person is off on every sick date: no cell of theirs is left empty.
    absence = None
    sick_dates = []
    sick_left = []
    if sick_employee.value != NO_CHANGE:
        _first = dt.date.fromisoformat(sick_date.value)
        sick_dates = [
            _first + dt.timedelta(days=i)
            for i in range(sick_days.value)
            if _first + dt.timedelta(days=i) <= variant.schedule_period.end_date
        ]
        absence = Absence(employee_id=sick_employee.value, dates=sick_dates)
        sick_left = left_cells(roster, absence)
    _span = (
        " .. ".join(sorted({sick_dates[0].isoformat(), sick_dates[-1].isoformat()}))
        if sick_dates
        else ""
    )
    if absence is None:
        _said = mo.md("Pick a sick employee to re-plan the roster and see who could fill in.")
    elif not sick_left:
        _said = mo.callout(
            mo.md(
                f"**{absence.employee_id} does not work on {_span} in this roster: nothing "
                "to re-plan.**"
            ),
            "info",
        )
    else:
        _said = None
    _said
    return absence, sick_dates, sick_left


@app.cell
def sick_replan(
    absence,
    default_work_limit,
    keep_past,
    mo,
    notebook_limits,
    roster,
    sick_dates,
    sick_left,
    time_limit,
    variant,
):
    from shiftsched.contract.planning import ReplanRequest
    from shiftsched.periods.replan import replan

    replanned = None  # nobody sick, or nothing of theirs to re-plan
    if absence is not None and sick_left:
        _ask = ReplanRequest(
            request=variant,
            roster=list(roster),
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
def sick_replan_view(absence, audit, charts, frames, mo, replanned, roster, variant):
    mo.stop(replanned is None)  # nobody sick, or nothing to re-plan: said above
    if replanned.solution is None:
        _error = replanned.error
        _causes = _error.diagnosis.causes if _error and _error.diagnosis else []
        _why = (
            f" The first cause: **{_causes[0].message}** (`{_causes[0].field}`)."
            + "".join(f"\n- {c.message} (`{c.field}`)" for c in _causes[1:])
            if _causes
            else f" {_error.message if _error else ''}"
        )
        mo.stop(
            True,
            mo.callout(
                mo.md(
                    f"**No re-planned roster** keeps every hard rule with "
                    f"{absence.employee_id} off ({_error.code if _error else 'unknown'})." + _why
                ),
                "warn",
            ),
        )
    # Both objectives are the audit's, at the request's own weights.
    published_report = audit(variant, roster)
    replan_report = audit(variant, replanned.solution.assignments)
    changes_table = frames.changes_frame(replanned.changes)
    replan_view = charts.replan_heatmap(
        frames.assignments_frame(variant, replanned.solution.assignments), changes_table
    )
    mo.vstack(
        [
            mo.md(
                f"**{len(replanned.changes)} changed assignment(s)**; objective of the "
                f"published roster → the re-planned one: "
                f"{published_report.objective_value:,.0f} → "
                f"**{replan_report.objective_value:,.0f}** "
                f"({replanned.solution.metrics.status}), audit: "
                f"{'no hard rule broken' if replan_report.feasible else 'hard rules broken'}. "
                "Changed cells are outlined."
            ),
            replan_view,
            mo.ui.table(changes_table, selection=None),
        ]
    )
    return changes_table, published_report, replan_report, replan_view


@app.cell
def sick_recommend(absence, frames, mo, replanned, roster, sick_left, variant):
    from shiftsched.questions.sick_call import fills_of

    mo.stop(not sick_left)  # nobody sick, or off on every sick date: said above
    left_slot, recommendations = fills_of(variant, roster, absence, top=5)
    recommendations_table = frames.recommendations_frame(recommendations.recommendations, variant)
    _duty = f" ({left_slot.duty_id})" if left_slot.duty_id else ""
    _impossible = replanned is not None and replanned.solution is None
    _breaks = all(not r.feasible for r in recommendations.recommendations)
    _warning = (
        [
            mo.callout(
                mo.md(
                    f"No roster keeps every hard rule with {absence.employee_id} off (above), "
                    "so none of these fills can stand without breaking one: each row says "
                    "which (*hard_rules_broken*)."
                    if _impossible
                    else "Every fill breaks a hard rule: each row says which (*hard_rules_broken*)."
                ),
                "warn",
            )
        ]
        if _impossible or _breaks
        else []
    )
    mo.vstack(
        [
            mo.md(
                f"### Who could take {left_slot.shift_id}{_duty} on "
                f"{left_slot.date.isoformat()}\n"
                f"The top {recommendations_table.height} of {recommendations.candidates} "
                f"candidates, without re-solving. Each *objective_delta* is the audit of the "
                f"published roster with {absence.employee_id} out of the slot and the "
                "candidate in it, minus the audit of the published roster; *hard_rules_broken* "
                "lists what that roster breaks and the published one does not."
            ),
            *_warning,
            mo.ui.table(
                recommendations_table,
                selection=None,
                wrapped_columns=["hard_rules_broken", "terms_moved"],
            ),
        ]
    )
    return left_slot, recommendations, recommendations_table


@app.cell
def short_table_cell(frames, mo, report, variant):
    from shiftsched.questions.review import audited_shortages

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
    roster,
    short_markers,
    shortage_picker,
    time_limit,
    variant,
):
    from shiftsched.questions.explain import explain_shortages
    from shiftsched.questions.inquiry import ExplainRequest

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
                ExplainRequest(request=variant, roster=list(roster), dates=[_marker.date]),
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
                "(`shiftsched.questions.review.compare`), every delta after − before, "
                "priced at the "
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
    assignments_path,
    compare_upload,
    edited,
    explanation,
    fit_faults,
    load_json,
    mo,
    read_response,
    replanned_roster,
    variant,
):
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
def compared(compare_rosters, compare_with, frames, mo, roster, variant):
    from shiftsched.questions.review import compare

    mo.stop(compare_with.value not in compare_rosters)  # nothing to compare: said above
    compare_name = compare_with.value
    comparison = compare(variant, roster, compare_rosters[compare_name])
    broken_added = frames.hard_violations_frame(comparison.hard_violations_added)
    _totals = comparison.totals  # the lists hold the first listed_limit items of each
    _headline = mo.md(
        f"**The roster above → {compare_name}**: {_totals.changes} cell(s) "
        f"differ for {len(comparison.employees)} employee(s); objective "
        f"{comparison.objective_before:,.0f} → {comparison.objective_after:,.0f} "
        f"(**{comparison.objective_delta:+,.0f}**); hard rules: "
        f"{_totals.hard_violations_added} newly broken, "
        f"{_totals.hard_violations_removed} no longer broken."
    )
    (
        mo.vstack([_headline, mo.ui.table(broken_added, selection=None)])
        if broken_added.height
        else _headline
    )
    return broken_added, compare_name, comparison


@app.cell
def compare_cells_view(charts, compare_name, compare_rosters, frames, mo, roster, variant):
    from shiftsched.contract.planning import roster_changes as _roster_changes

    # every changed cell outlined, also past the comparison's listed_limit
    compare_changes = frames.changes_frame(_roster_changes(roster, compare_rosters[compare_name]))
    _names = ("the roster above", compare_name)
    compare_cells = frames.compared_cells_frame(
        frames.assignments_frame(variant, roster),
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
def compare_costs(comparison, frames, mo, variant):
    term_changes = frames.term_changes_frame(comparison.terms, variant)
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
                    mo.ui.table(
                        term_changes,
                        selection=None,
                        format_mapping=_numbers,
                        wrapped_columns=["what"],
                    )
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
def next_history(history_upload, mo, roster, variant):
    from pydantic import ValidationError

    from shiftsched.contract.history import History
    from shiftsched.periods.seam import ledger_after

    if history_upload.value:
        try:
            history = History.model_validate_json(history_upload.contents())
        except ValidationError as exc:
            _faults = "\n".join(f"- {e['msg']}" for e in exc.errors()[:5])
            mo.stop(True, mo.callout(mo.md(f"**Not a previous answer**\n\n{_faults}"), "danger"))
        history_source = history_upload.name()
    else:  # the roster above, with its ledger: the counts through its last date
        history = History(
            assignments=list(roster),
            ledger=ledger_after(variant, roster, None),
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
    from shiftsched.periods.split import next_period

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
    from shiftsched.contract.history import history_faults

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
    from shiftsched.periods.seam import history_ledger

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
