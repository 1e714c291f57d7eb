import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="Roster explorer")


@app.cell
def imports():
    import datetime as dt
    import time
    from pathlib import Path

    import marimo as mo

    from shiftsched import InvalidRequest
    from shiftsched.contract import request_size, suggested_time_limit
    from shiftsched.periods import next_period
    from shiftsched.present import (
        COMPARE_INTRO,
        DOWNLOADS,
        HORIZON_INTRO,
        NEXT_INTRO,
        NOBODY,
        NOBODY_SICK,
        NOTHING_TO_COMPARE,
        SHORTAGE_ASK,
        SICK_INTRO,
        SWITCH_ON,
        VERDICT_TONE,
        audit_shown,
        cell_of,
        chosen_request,
        compared_cells,
        comparison_words,
        cost_changes,
        coverage_chart,
        dataset_files,
        default_targets,
        edit_choices,
        edit_intro,
        end_before_next,
        explain_picked,
        explanation_view,
        export_files,
        fault_lines,
        fills,
        first_cause_words,
        hard_rules_broken,
        history_misfit,
        horizon_asked,
        horizon_shown,
        judged,
        ledger_shown,
        marked_absence,
        media_type,
        misfit_words,
        moved,
        naive_audit,
        naive_words,
        newly_broken,
        no_plan_words,
        no_replan_words,
        no_roster_words,
        nothing_left_words,
        nothing_moved_words,
        number_formats,
        penalty_chart,
        people_changes,
        period_dates,
        period_days,
        pickable_roster_heatmap,
        picked_in,
        picked_marker,
        plan_after,
        plan_file_name,
        progress_chart,
        quarter_end,
        read_upload,
        refused_words,
        replan_shown,
        replan_sick,
        roster_file_name,
        roster_fit,
        roster_history,
        roster_tables,
        rosters_to_compare,
        rows_in_page,
        seam_shown,
        short_demands,
        solve_summary,
        solve_variant,
        upload_summary,
        uploaded_history,
        uploaded_note,
        uploaded_roster_fit,
        verdict_words,
    )
    from shiftsched.questions import (
        compare,
        families_in_use,
        with_max_consecutive_days,
        without_families,
    )
    from shiftsched.solving import DEFAULT_MAX_CONSECUTIVE_DAYS

    return (
        COMPARE_INTRO,
        DEFAULT_MAX_CONSECUTIVE_DAYS,
        DOWNLOADS,
        HORIZON_INTRO,
        InvalidRequest,
        NEXT_INTRO,
        NOBODY,
        NOBODY_SICK,
        NOTHING_TO_COMPARE,
        Path,
        SHORTAGE_ASK,
        SICK_INTRO,
        SWITCH_ON,
        VERDICT_TONE,
        audit_shown,
        cell_of,
        chosen_request,
        compare,
        compared_cells,
        comparison_words,
        cost_changes,
        coverage_chart,
        dataset_files,
        default_targets,
        dt,
        edit_choices,
        edit_intro,
        end_before_next,
        explain_picked,
        explanation_view,
        export_files,
        families_in_use,
        fault_lines,
        fills,
        first_cause_words,
        hard_rules_broken,
        history_misfit,
        horizon_asked,
        horizon_shown,
        judged,
        ledger_shown,
        marked_absence,
        media_type,
        misfit_words,
        mo,
        moved,
        naive_audit,
        naive_words,
        newly_broken,
        next_period,
        no_plan_words,
        no_replan_words,
        no_roster_words,
        nothing_left_words,
        nothing_moved_words,
        number_formats,
        penalty_chart,
        people_changes,
        period_dates,
        period_days,
        pickable_roster_heatmap,
        picked_in,
        picked_marker,
        plan_after,
        plan_file_name,
        progress_chart,
        quarter_end,
        read_upload,
        refused_words,
        replan_shown,
        replan_sick,
        request_size,
        roster_file_name,
        roster_fit,
        roster_history,
        roster_tables,
        rosters_to_compare,
        rows_in_page,
        seam_shown,
        short_demands,
        solve_summary,
        solve_variant,
        suggested_time_limit,
        time,
        upload_summary,
        uploaded_history,
        uploaded_note,
        uploaded_roster_fit,
        verdict_words,
        with_max_consecutive_days,
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
def uploaded(InvalidRequest, fault_lines, mo, read_upload, set_dataset_choice, upload):
    # An upload is a request (it has a schedule period, shifts or employees) or a roster
    # (a SolveResponse, {"assignments": [...]} or a bare list), read by what it holds.
    uploaded_request = None  # (name, JSON) of a request uploaded
    uploaded_roster = None  # (name, JSON) of a roster uploaded
    if upload.value:
        try:
            _read = read_upload(upload.contents(), upload.name())
        except InvalidRequest as exc:
            _faults = fault_lines(exc.errors)
            mo.stop(True, mo.callout(mo.md(f"**Not a JSON file**\n\n{_faults}"), "danger"))
        uploaded_request, uploaded_roster = _read.request, _read.roster
        if uploaded_request is not None:
            set_dataset_choice(upload.name())  # chosen in the Dataset list, until changed
    return uploaded_request, uploaded_roster


@app.cell
def dataset_picker(
    dataset_files,
    default_request,
    get_dataset_choice,
    mo,
    set_dataset_choice,
    upload,
    uploaded_request,
):
    dataset_paths = dataset_files(mo.notebook_dir(), default_request)
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
    InvalidRequest,
    chosen_request,
    dataset,
    dataset_paths,
    fault_lines,
    mo,
    uploaded_note,
    uploaded_request,
):
    source = dataset.value
    try:
        request = chosen_request(source, uploaded_request, dataset_paths)
    except InvalidRequest as exc:
        _faults = fault_lines(exc.errors)
        mo.stop(True, mo.callout(mo.md(f"**Not a valid request**\n\n{_faults}"), "danger"))
    # Say where the request comes from when it is an upload: the list holds it too.
    _note = uploaded_note(source, uploaded_request)
    mo.callout(mo.md(_note), "info") if _note else None
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
def roster_upload(misfit_words, mo, roster_fit, uploaded_roster, variant):
    # A roster uploaded is shown instead of a solve when it fits the chosen request: every
    # employee, date, shift and duty it names is the request's
    # (shiftsched.questions.inquiry.fit_faults; a roster of another request is one fault). The
    # switch gives the solve back.
    upload_fit_faults = []
    fitting_upload = None
    if uploaded_roster is not None:
        upload_fit_faults, fitting_upload = roster_fit(variant, *uploaded_roster)
    show_upload = mo.ui.switch(value=True, label="show the uploaded roster instead of a solve")
    if uploaded_roster is None:
        _shown = None
    elif upload_fit_faults:
        _shown = mo.callout(mo.md(misfit_words(uploaded_roster[0], upload_fit_faults)), "warn")
    else:
        _shown = show_upload
    _shown
    return fitting_upload, show_upload, upload_fit_faults


@app.cell
def solved(
    default_work_limit,
    first_cause_words,
    fitting_upload,
    mo,
    no_roster_words,
    preference_weight,
    show_upload,
    solve_variant,
    time,
    time_limit,
    variant,
):
    outcome = None  # an uploaded roster shown: nothing is solved
    if fitting_upload is None or not show_upload.value:
        # The clock starts before the problem is built: the times shown are what you wait.
        _asked = time.perf_counter()
        with mo.status.spinner(
            title=f"Solving… {time_limit.value} s (longer until a first roster)"
        ):
            outcome = solve_variant(
                variant, preference_weight.value, time_limit.value, default_work_limit, _asked
            )
        # Without a roster every cell below would draw empty or broken charts: stop them
        # all here, with the first cause when the rules admit none (as the command line
        # and the service name it), and what to do next.
        _advice = no_roster_words(outcome, time_limit.value)
        if not outcome.has_solution and outcome.status == "infeasible":
            with mo.status.spinner(title="Looking for the first cause…"):
                _advice += first_cause_words(variant, time_limit.value, default_work_limit)
        mo.stop(not outcome.has_solution, mo.callout(mo.md(f"**No roster.** {_advice}"), "warn"))
    return (outcome,)


@app.cell
def shown_roster(fitting_upload, outcome):
    # The roster every cell below shows: the solve's, or the uploaded one.
    roster = fitting_upload if outcome is None else outcome.assignments
    return (roster,)


@app.cell
def audited(audit_shown, outcome, preference_weight, roster, variant):
    report, audit_differences = audit_shown(variant, roster, outcome, preference_weight.value)
    return audit_differences, report


@app.cell
def summary(
    audit_differences,
    hard_rules_broken,
    mo,
    outcome,
    report,
    roster,
    solve_summary,
    source,
    upload_summary,
    uploaded_roster,
):
    if outcome is None:
        _broken = hard_rules_broken(report)
        _summary = mo.md(upload_summary(uploaded_roster[0], source, report, roster, _broken.height))
        _parts = [_summary] if report.feasible else [_summary, mo.ui.table(_broken)]
    else:
        _parts = [mo.md(solve_summary(source, outcome, report, audit_differences, roster))]
    mo.vstack(_parts)
    return


@app.cell
def tables(outcome, report, roster, roster_tables, variant):
    # Every figure below is the audit's (equal to the solver's when it solved).
    _tables = roster_tables(variant, roster, report, outcome)
    assignments = _tables.assignments
    coverage = _tables.coverage
    shortages = _tables.shortages
    violations = _tables.violations
    penalties = _tables.penalties
    progress = _tables.progress
    return assignments, coverage, penalties, progress, shortages, violations


@app.cell
def roster_chart(assignments, mo, pickable_roster_heatmap, rows_in_page):
    roster_view = pickable_roster_heatmap(
        assignments, "Roster: click a cell to edit it or to mark that person sick"
    )
    # The roster's rows travel inside the page, not as a file the server keeps: a second
    # change (a slider moved twice) re-runs this cell and drops the first run's file
    # while the browser may still be fetching it (the server then logs a traceback).
    with rows_in_page():
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
def cell_pick(cell_of, mo, roster_picker, set_edit_pick, set_sick_pick):
    picked_cell, _what = cell_of(roster_picker.value)  # (employee_id, date) clicked
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
def coverage_plot(coverage, coverage_chart):
    coverage_view = coverage_chart(coverage)
    coverage_view
    return (coverage_view,)


@app.cell
def penalty_and_progress(mo, outcome, penalties, penalty_chart, progress, progress_chart):
    penalty_view = penalty_chart(penalties)
    progress_view = progress_chart(progress) if outcome is not None else None
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
def roster_downloads(
    DOWNLOADS, export_files, media_type, mo, roster, roster_file_name, source, variant
):
    # The roster as files for a spreadsheet or a calendar (shiftsched.present.export).
    roster_files = export_files(variant, roster)
    mo.hstack(
        [
            mo.download(
                data=roster_files[_fmt],
                filename=roster_file_name(source, _fmt),
                mimetype=media_type(_fmt),
                label=f"Download {_label}",
            )
            for _fmt, _label in DOWNLOADS
        ],
        justify="start",
        gap=1,
    )
    return (roster_files,)


@app.cell
def edit_controls(NOBODY, edit_choices, edit_intro, get_edit_pick, mo, roster, variant):
    NO_CHANGE = NOBODY
    # A cell picked on the roster ("Edit this cell") fills the controls in: that person,
    # that date and the shift they work there now, to be changed.
    _choice = edit_choices(variant, roster, get_edit_pick())
    edit_employee = mo.ui.dropdown(_choice.employees, value=_choice.employee, label="Employee")
    edit_date = mo.ui.dropdown(_choice.dates, value=_choice.date, label="Date")
    edit_shift = mo.ui.dropdown(_choice.shifts, value=_choice.shift, label="Shift")
    edit_duty = mo.ui.dropdown(_choice.duties, value=_choice.duty, label="Duty")
    mo.vstack(
        [
            mo.md(edit_intro(roster)),
            mo.hstack([edit_employee, edit_date, edit_shift, edit_duty], justify="start"),
        ]
    )
    return NO_CHANGE, edit_date, edit_duty, edit_employee, edit_shift


@app.cell
def hand_edit(edit_date, edit_duty, edit_employee, edit_shift, moved, roster):
    # None until someone is moved: a roster, or none, that the comparison below can offer
    # whether or not anyone was moved (a cell that stopped would stop it too). A "move"
    # to what the cell already holds moves nobody.
    edited = moved(roster, edit_employee.value, edit_date.value, edit_shift.value, edit_duty.value)
    return (edited,)


@app.cell
def edit_verdict(
    edit_date,
    edit_employee,
    edited,
    judged,
    mo,
    nothing_moved_words,
    preference_weight,
    roster,
    variant,
    verdict_words,
):
    mo.stop(edited is None, mo.md(nothing_moved_words(edit_employee.value, edit_date.value)))
    verdict, changed = judged(variant, roster, edited, preference_weight.value)
    mo.vstack(
        [
            mo.md(verdict_words(verdict)),
            mo.ui.table(changed, selection=None, wrapped_columns=["what"])
            if changed.height
            else mo.md("No soft term changes."),
        ]
    )
    return changed, verdict


@app.cell
def sick_controls(NO_CHANGE, SICK_INTRO, get_sick_pick, mo, period_dates, picked_in, variant):
    _dates = period_dates(variant)
    # A cell picked on the roster ("Mark sick") fills in that person and that date.
    _who, _when = picked_in(variant, get_sick_pick())
    sick_employee = mo.ui.dropdown(
        [NO_CHANGE, *(e.id for e in variant.employees)],
        value=_who or NO_CHANGE,
        label="Sick employee",
    )
    sick_date = mo.ui.dropdown(_dates, value=_when or _dates[0], label="from")
    sick_days = mo.ui.slider(1, 3, value=1, label="days", show_value=True)
    keep_past = mo.ui.checkbox(value=True, label="keep the days before as published")
    mo.vstack(
        [
            mo.md(SICK_INTRO),
            mo.hstack([sick_employee, sick_date, sick_days, keep_past], justify="start"),
        ]
    )
    return keep_past, sick_date, sick_days, sick_employee


@app.cell
def sick_absence(
    NOBODY_SICK,
    marked_absence,
    mo,
    nothing_left_words,
    roster,
    sick_date,
    sick_days,
    sick_employee,
    variant,
):
    # None until someone is marked sick; the cells below stop on it, but the comparison
    # further down still offers the other rosters. Nothing to re-plan either when the
    # person is off on every sick date: no cell of theirs is left empty.
    absence, sick_dates, sick_left = marked_absence(
        variant, roster, sick_employee.value, sick_date.value, sick_days.value
    )
    if absence is None:
        _said = mo.md(NOBODY_SICK)
    elif not sick_left:
        _said = mo.callout(mo.md(nothing_left_words(absence, sick_dates)), "info")
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
    replan_sick,
    roster,
    sick_dates,
    sick_left,
    time_limit,
    variant,
):
    replanned = None  # nobody sick, or nothing of theirs to re-plan
    if absence is not None and sick_left:
        with mo.status.spinner(title=f"Re-planning… up to {time_limit.value} s"):
            replanned = replan_sick(
                variant,
                roster,
                absence,
                sick_dates,
                keep_past.value,
                time_limit.value,
                default_work_limit,
            )
    replanned_roster = (
        None if replanned is None or replanned.solution is None else replanned.solution.assignments
    )
    return replanned, replanned_roster


@app.cell
def sick_replan_view(
    absence, mo, no_replan_words, replan_shown, replanned, replanned_roster, roster, variant
):
    mo.stop(replanned is None)  # nobody sick, or nothing to re-plan: said above
    mo.stop(
        replanned_roster is None,
        mo.callout(mo.md(no_replan_words(replanned, absence)), "warn"),
    )
    # Both objectives are the audit's, at the request's own weights and absences.
    _shown = replan_shown(
        variant, roster, replanned, replanned_roster, [absence] if absence else []
    )
    published_report = _shown.published_report
    replan_report = _shown.replan_report
    changes_table = _shown.changes_table
    replan_view = _shown.chart
    mo.vstack([mo.md(_shown.words), replan_view, mo.ui.table(changes_table, selection=None)])
    return changes_table, published_report, replan_report, replan_view


@app.cell
def sick_recommend(absence, fills, mo, replanned, roster, sick_left, variant):
    mo.stop(not sick_left)  # nobody sick, or off on every sick date: said above
    _fills = fills(variant, roster, absence, replanned is not None and replanned.solution is None)
    left_slot = _fills.left_slot
    recommendations = _fills.recommendations
    recommendations_table = _fills.table
    mo.vstack(
        [
            mo.md(_fills.words),
            *([mo.callout(mo.md(_fills.warning), "warn")] if _fills.warning else []),
            mo.ui.table(
                recommendations_table,
                selection=None,
                wrapped_columns=["hard_rules_broken", "terms_moved"],
            ),
        ]
    )
    return left_slot, recommendations, recommendations_table


@app.cell
def short_table_cell(mo, report, short_demands, variant):
    short_markers, short_table, _intro = short_demands(variant, report)
    mo.md(_intro)
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
    explain_picked,
    mo,
    picked_marker,
    roster,
    short_markers,
    shortage_picker,
    time_limit,
    variant,
):
    # None until a shortage is selected; the comparison below reads it either way.
    explanation = None
    short_answer = None
    _picked = shortage_picker.value
    if _picked is not None and len(_picked):
        _marker = picked_marker(short_markers, _picked.row(0, named=True))
        with mo.status.spinner(title=f"Explaining the shortages of {_marker.date.isoformat()}…"):
            explanation, short_answer = explain_picked(
                variant, roster, _marker, time_limit.value, default_work_limit
            )
    return explanation, short_answer


@app.cell
def short_view(
    SHORTAGE_ASK, VERDICT_TONE, explanation, explanation_view, mo, short_answer, variant
):
    mo.stop(explanation is None, mo.md(SHORTAGE_ASK))
    _shown = explanation_view(variant, explanation, short_answer)
    explanation_table = _shown.explanation_table
    causes_table = _shown.causes_table
    fill_changes = _shown.fill_changes
    fill_view = _shown.fill_view
    _parts = [mo.callout(mo.md(_shown.verdict_words), VERDICT_TONE[explanation.verdict])]
    if fill_view is not None:
        _parts += [
            mo.md(_shown.fill_words),
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
    if _shown.others.height:
        _parts += [
            mo.md(_shown.others_words),
            mo.ui.table(_shown.others, selection=None, wrapped_columns=["summary"]),
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
def compare_source(COMPARE_INTRO, mo):
    compare_upload = mo.ui.file(
        filetypes=[".json"], label="or upload a roster (a SolveResponse or its assignments)"
    )
    mo.vstack([mo.md(COMPARE_INTRO), compare_upload])
    return (compare_upload,)


@app.cell
def compare_candidates(
    adopt_fill,
    compare_upload,
    edited,
    explanation,
    mo,
    refused_words,
    replanned_roster,
    rosters_to_compare,
    uploaded_roster_fit,
    variant,
):
    # Every roster made in the notebook so far; the dropdown starts on the first of them:
    # a fill switched on, then an upload, the re-plan, the hand edit.
    upload_faults = []
    _uploaded = None
    if compare_upload.value:
        upload_faults, _read = uploaded_roster_fit(
            variant, compare_upload.contents(), compare_upload.name()
        )
        _uploaded = None if _read is None else (compare_upload.name(), _read)
    compare_rosters = rosters_to_compare(
        explanation if adopt_fill.value else None, _uploaded, replanned_roster, edited
    )
    mo.callout(mo.md(refused_words(upload_faults)), "danger") if upload_faults else None
    return compare_rosters, upload_faults


@app.cell
def compare_picker(NOTHING_TO_COMPARE, compare_rosters, mo):
    compare_with = mo.ui.dropdown(
        options=list(compare_rosters),
        value=next(iter(compare_rosters), None),
        label="Compare the roster above with",
    )
    compare_with if compare_rosters else mo.md(NOTHING_TO_COMPARE)
    return (compare_with,)


@app.cell
def compared(
    compare, compare_rosters, compare_with, comparison_words, mo, newly_broken, roster, variant
):
    mo.stop(compare_with.value not in compare_rosters)  # nothing to compare: said above
    compare_name = compare_with.value
    comparison = compare(variant, roster, compare_rosters[compare_name])
    broken_added = newly_broken(comparison)
    _headline = mo.md(comparison_words(compare_name, comparison))
    (
        mo.vstack([_headline, mo.ui.table(broken_added, selection=None)])
        if broken_added.height
        else _headline
    )
    return broken_added, compare_name, comparison


@app.cell
def compare_cells_view(compare_name, compare_rosters, compared_cells, mo, roster, variant):
    # every changed cell outlined, also past the comparison's listed_limit
    _cells = compared_cells(variant, roster, compare_rosters[compare_name], compare_name)
    compare_changes = _cells.changes
    compare_cells = _cells.cells
    compare_view = _cells.chart
    mo.vstack(
        [
            mo.md("### The cells\nBoth rosters, side by side; every changed cell outlined."),
            compare_view,
            mo.ui.table(compare_changes, selection=None, page_size=10),
        ]
    )
    return compare_cells, compare_changes, compare_view


@app.cell
def compare_people(comparison, mo, people_changes):
    employee_changes, employee_view = people_changes(comparison)
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
def compare_costs(comparison, cost_changes, mo, number_formats, variant):
    term_changes, kpi_table = cost_changes(comparison, variant)
    _numbers = number_formats()
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
def next_source(NEXT_INTRO, mo):
    history_upload = mo.ui.file(
        filetypes=[".json"], label="or upload the previous period's answer (JSON)"
    )
    mo.vstack([mo.md(NEXT_INTRO), history_upload])
    return (history_upload,)


@app.cell
def next_history(
    end_before_next, history_upload, mo, roster, roster_history, uploaded_history, variant
):
    if history_upload.value:
        history, _faults = uploaded_history(history_upload.contents())
        _said = "\n".join(f"- {fault}" for fault in _faults)
        mo.stop(
            history is None,
            mo.callout(mo.md(f"**Not a previous answer**\n\n{_said}"), "danger"),
        )
        history_source = history_upload.name()
    else:  # the roster above, with its ledger: the counts through its last date
        history = roster_history(variant, roster)
        history_source = "the roster above"
    # The next period starts after this request's period and after all the history holds.
    current_end = end_before_next(variant, history)
    return current_end, history, history_source


@app.cell
def next_controls(current_end, dt, mo, period_days, variant):
    _length = period_days(variant)
    _first = current_end + dt.timedelta(days=1)
    next_start = mo.ui.date(start=_first, value=_first, label="Next period from")
    next_days = mo.ui.slider(
        1, max(62, _length), value=_length, label="days", show_value=True, debounce=True
    )
    plan_next = mo.ui.switch(value=False, label="plan it")
    mo.hstack([next_start, next_days, plan_next], justify="start")
    return next_days, next_start, plan_next


@app.cell
def next_horizon_controls(HORIZON_INTRO, dt, mo, next_days, next_start, quarter_end):
    # The horizon holds the next period: it ends on the period's last day at the earliest.
    _next_end = next_start.value + dt.timedelta(days=next_days.value - 1)
    in_horizon = mo.ui.switch(value=False, label="inside a horizon")
    horizon_end = mo.ui.date(
        start=_next_end, value=quarter_end(_next_end), label="the horizon ends on"
    )
    mo.vstack([mo.md(HORIZON_INTRO), mo.hstack([in_horizon, horizon_end], justify="start")])
    return horizon_end, in_horizon


@app.cell
def next_targets(current_end, default_targets, history, horizon_end, in_horizon, mo, variant):
    # The horizon starts with the current period, so the roster above (or the upload) counts.
    horizon_start = variant.schedule_period.start_date
    horizon_targets = (
        mo.ui.data_editor(
            default_targets(variant, history, horizon_start, current_end, horizon_end.value),
            editable_columns=["min_days", "max_days", "max_weekends"],
            label=f"Targets over {horizon_start.isoformat()} .. {horizon_end.value.isoformat()}",
        )
        if in_horizon.value
        else None
    )
    horizon_targets
    return horizon_start, horizon_targets


@app.cell
def next_request(SWITCH_ON, mo, next_days, next_period, next_start, plan_next, variant):
    mo.stop(not plan_next.value, mo.md(SWITCH_ON))
    next_variant = next_period(variant, next_days.value, next_start.value)
    return (next_variant,)


@app.cell
def next_horizon_asked(
    fault_lines, horizon_asked, horizon_end, horizon_start, horizon_targets, mo, next_variant
):
    if horizon_targets is None:  # no horizon asked: the period planned alone
        next_horizon = None
    else:
        next_horizon, _faults = horizon_asked(
            horizon_targets.value, horizon_start, horizon_end.value, next_variant
        )
        mo.stop(
            next_horizon is None,
            mo.callout(mo.md(f"**Not a horizon**\n\n{fault_lines(_faults[:10])}"), "danger"),
        )
    return (next_horizon,)


@app.cell
def next_plan(
    default_work_limit,
    fault_lines,
    history,
    history_misfit,
    mo,
    next_horizon,
    next_variant,
    no_plan_words,
    plan_after,
    time_limit,
):
    _faults = history_misfit(next_variant, history)
    mo.stop(
        bool(_faults),
        mo.callout(
            mo.md(f"**The history does not fit the request**\n\n{fault_lines(_faults[:10])}"),
            "danger",
        ),
    )
    with mo.status.spinner(title=f"Planning the next period… up to {time_limit.value} s"):
        next_planned = plan_after(
            next_variant, history, time_limit.value, default_work_limit, next_horizon
        )
    mo.stop(
        next_planned.solution is None,
        mo.callout(mo.md(no_plan_words(next_planned)), "warn"),
    )
    next_roster = next_planned.solution.assignments
    return next_planned, next_roster


@app.cell
def next_seam(
    current_end,
    history,
    history_source,
    mo,
    next_horizon,
    next_planned,
    next_roster,
    next_variant,
    seam_shown,
    variant,
):
    from shiftsched.present import SEAM_DAYS

    _seam = seam_shown(
        variant, next_variant, history, history_source, current_end, next_planned, next_horizon
    )
    seam_report = _seam.report
    seam_blind_report = _seam.blind_report  # the history ignored
    seam_differences = _seam.differences
    seam_table = _seam.table
    seam_view = _seam.chart
    mo.vstack(
        [
            mo.md(_seam.words),
            seam_view,
            mo.ui.table(seam_differences, selection=None)
            if seam_differences.height
            else mo.md("The audit reads this roster the same with the history and without."),
        ]
    )
    return SEAM_DAYS, seam_blind_report, seam_differences, seam_report, seam_table, seam_view


@app.cell
def next_without_history(
    default_work_limit,
    history,
    mo,
    naive_audit,
    naive_words,
    next_horizon,
    next_variant,
    plan_after,
    seam_report,
    time_limit,
):
    with mo.status.spinner(title="Planning the same period as if nothing came before…"):
        naive_plan = plan_after(
            next_variant, None, time_limit.value, default_work_limit, next_horizon
        )
    mo.stop(naive_plan.solution is None)
    naive_report, naive_breaks = naive_audit(
        next_variant, naive_plan.solution.assignments, history, next_horizon
    )
    mo.vstack(
        [
            mo.md(naive_words(naive_breaks, naive_report, seam_report)),
            mo.ui.table(naive_breaks, selection=None) if naive_breaks.height else mo.md(""),
        ]
    )
    return naive_breaks, naive_plan, naive_report


@app.cell
def next_horizon_progress(horizon_shown, mo, next_horizon, next_planned, next_variant):
    mo.stop(next_horizon is None)
    _progress = horizon_shown(next_variant, next_horizon, next_planned)
    horizon_table = _progress.table
    horizon_view = _progress.chart
    mo.vstack(
        [
            mo.md(_progress.words),
            mo.ui.table(horizon_table, selection=None, page_size=15),
            horizon_view,
        ]
    )
    return horizon_table, horizon_view


@app.cell
def next_ledger(history, ledger_shown, mo, next_planned, next_variant, plan_file_name):
    _ledger = ledger_shown(next_variant, history, next_planned)
    ledger_before = _ledger.ledger_before
    ledger_table = _ledger.table
    spread_table = _ledger.spread
    mo.vstack(
        [
            mo.md(_ledger.words),
            mo.ui.table(ledger_table, selection=None, page_size=15),
            mo.md(_ledger.spread_words),
            mo.ui.table(spread_table, selection=None),
            mo.download(
                data=next_planned.model_dump_json(indent=2).encode(),
                filename=plan_file_name(next_variant),
                mimetype="application/json",
                label="Download the plan (the next period's history)",
            ),
        ]
    )
    return ledger_before, ledger_table, spread_table


if __name__ == "__main__":
    app.run()
