import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="Why is there no roster")


@app.cell
def imports():
    import json
    from pathlib import Path

    import marimo as mo
    import polars as pl

    from shiftsched import InvalidRequest, audit
    from shiftsched.contract import load_json, parse_request
    from shiftsched.present import (
        assignments_frame,
        notebook_solve,
        notebook_workers,
        probe_frame,
        probes_chart,
        roster_heatmap,
    )
    from shiftsched.questions import relax_cause
    from shiftsched.solving import (
        DiagnosisLimits,
        SolveLimits,
        diagnose_with_probes,
        from_request,
    )

    return (
        DiagnosisLimits,
        InvalidRequest,
        Path,
        SolveLimits,
        assignments_frame,
        audit,
        diagnose_with_probes,
        from_request,
        json,
        load_json,
        mo,
        notebook_solve,
        notebook_workers,
        parse_request,
        pl,
        probe_frame,
        probes_chart,
        relax_cause,
        roster_heatmap,
    )


@app.cell
def intro(mo):
    mo.md("""
    # Why is there no roster

    When the hard rules contradict each other, the solver can only say *infeasible*. The
    diagnosis re-solves the request with rules relaxed (each re-solve is a *probe*) until
    it can name the input items that cannot hold together, most likely first. Pick an
    example with a planted cause (or upload your own request), read the causes, and relax
    one to see the roster that appears.
    """)
    return


@app.cell
def settings(mo):
    # Command-line overrides, e.g. `marimo export html infeasibility.py -- --example holiday`.
    _cli = mo.cli_args()
    default_example = str(_cli.get("example") or "fixed_assignment")
    default_budget = int(_cli.get("budget") or 10)
    # `--request PATH`: explain a SolveRequest file of your own instead of an example.
    default_request = str(_cli.get("request") or "")
    # `--work-limit W`: each solve and the diagnosis on one worker with a fixed seed, a
    # solve ending after W deterministic seconds of CP-SAT work
    # (shiftsched.present.notebook_limits): the same rosters on any machine, however busy (exports,
    # tests).
    default_work_limit = float(_cli.get("work-limit") or 0)
    return default_budget, default_example, default_request, default_work_limit


@app.cell
def example_picker(Path, default_example, json, mo):
    infeasible_dir = Path(mo.notebook_dir() or ".").parent / "datasets" / "infeasible"
    examples = {
        entry["file"].removesuffix(".json"): entry
        for entry in json.loads((infeasible_dir / "index.json").read_bytes())
    }
    example = mo.ui.dropdown(
        options=list(examples),
        value=default_example if default_example in examples else next(iter(examples)),
        label="Planted-cause example",
    )
    upload = mo.ui.file(filetypes=[".json"], label="or upload a SolveRequest JSON")
    mo.hstack([example, upload], justify="start", gap=2)
    return example, examples, infeasible_dir, upload


@app.cell
def loaded(
    InvalidRequest,
    Path,
    default_request,
    example,
    examples,
    infeasible_dir,
    load_json,
    mo,
    parse_request,
    upload,
):
    if upload.value:  # an upload wins over the examples and the command line
        planted, source, _raw = None, upload.name(), upload.contents()
    elif default_request:
        planted, source = None, default_request
        _raw = Path(default_request).read_bytes()
    else:
        planted = examples[example.value]
        source = planted["file"]
        _raw = (infeasible_dir / planted["file"]).read_bytes()
    try:
        request = parse_request(load_json(_raw, source))
    except InvalidRequest as exc:
        _faults = "\n".join(f"- `{fault}`" for fault in exc.errors)
        mo.stop(True, mo.callout(mo.md(f"**Not a valid request**\n\n{_faults}"), "danger"))
    mo.md(
        f"**Planted:** {planted['summary']} (expected first cause: `{planted['field']}`)"
        if planted
        else f"**Your request:** {source}"
    )
    return planted, request, source


@app.cell
def solver(SolveLimits, default_work_limit, from_request, notebook_solve):
    def try_solve(variant, seconds=5.0):
        """Solve without diagnosis: the notebook runs the diagnosis itself, with its log.
        The limit never ends it without a roster: only a proof says there is none."""
        _base = SolveLimits(diagnosis_budget_seconds=0)
        return notebook_solve(from_request(variant), seconds, default_work_limit, _base)

    return (try_solve,)


@app.cell
def first_attempt(mo, request, try_solve):
    with mo.status.spinner(
        title="Solving the request as it is, 5 s (longer until a first roster or a proof)…"
    ):
        attempt = try_solve(request)
    # Only a proven infeasibility has causes to find; stop everything below otherwise.
    mo.stop(
        attempt.has_solution,
        mo.callout(
            mo.md(
                f"**This request has a roster** ({attempt.status}): there is nothing to "
                "explain. The explore notebook shows it."
            ),
            "success",
        ),
    )
    mo.stop(
        attempt.status != "infeasible",
        mo.callout(
            mo.md(
                f"**No roster within {attempt.solver.time_limit_seconds:g} s, but no proof "
                f"that none exists** ({attempt.status}). "
                "The diagnosis needs that proof: solve it in the explore notebook with a "
                "longer time limit first."
            ),
            "warn",
        ),
    )
    mo.md(f"The solver proves there is **no roster**: {attempt.message}.")
    return (attempt,)


@app.cell
def diagnosed(
    DiagnosisLimits,
    attempt,
    default_budget,
    default_work_limit,
    diagnose_with_probes,
    mo,
    notebook_workers,
    request,
):
    assert not attempt.has_solution  # first_attempt stops every cell below otherwise
    with mo.status.spinner(title=f"Looking for the conflicting rules, up to {default_budget:g} s…"):
        diagnosis, probes = diagnose_with_probes(
            request, DiagnosisLimits(default_budget, notebook_workers(default_work_limit))
        )
    return diagnosis, probes


@app.cell
def probe_rows(probe_frame, probes, request):
    # Each probe in words: the employees it re-solved (each group of employees sharing no
    # hard rule is diagnosed apart), what it switched off, by the words of
    # docs/semantics.md and the JSON path, and what came of it (shiftsched.present.probe_words).
    probe_table = probe_frame(probes, len(request.employees))
    return (probe_table,)


@app.cell
def probes_view(diagnosis, mo, pl, probe_table, probes_chart):
    probe_chart = probes_chart(probe_table)
    probe_words = probe_table.select(
        (pl.col("order") + 1).alias("#"),
        "employees",
        "switched off",
        "result",
        pl.col("seconds").round(3),
    )
    mo.vstack(
        [
            mo.md(
                f"## {diagnosis.probes} probes, {probe_table['seconds'].sum():.2f} s of solving\n"
                "Each bar is one re-solve of a group of employees that share hard rules (each "
                "group is diagnosed apart): what it switched off, and whether a roster then "
                "existed. The table names each rule in the words of the semantics and each "
                "input item by its JSON path."
            ),
            probe_chart,
            mo.ui.table(
                probe_words, selection=None, wrapped_columns=["switched off"], page_size=50
            ),
        ]
    )
    return probe_chart, probe_words


@app.cell
def causes_view(diagnosis, mo, pl, planted):
    cause_table = pl.DataFrame(
        [
            {"rank": i + 1, "family": c.cause_type, "field": c.field, "message": c.message}
            for i, c in enumerate(diagnosis.causes)
        ],
        schema={"rank": pl.Int64, "family": pl.String, "field": pl.String, "message": pl.String},
    )
    _found = (
        "the planted cause is ranked first"
        if planted and diagnosis.causes and diagnosis.causes[0].field == planted["field"]
        else ""
    )
    mo.vstack(
        [
            mo.md(f"## Causes: {diagnosis.status} {('— ' + _found) if _found else ''}"),
            mo.ui.table(cause_table, selection=None, wrapped_columns=["message"]),
        ]
    )
    return (cause_table,)


@app.cell
def relax_controls(diagnosis, mo):
    mo.stop(not diagnosis.causes, mo.md("No cause to relax."))
    cause_choice = mo.ui.dropdown(
        {f"{i + 1}. {c.cause_type} at {c.field}": i for i, c in enumerate(diagnosis.causes)},
        value=f"1. {diagnosis.causes[0].cause_type} at {diagnosis.causes[0].field}",
        label="Cause to relax",
    )
    relax_button = mo.ui.run_button(label="Relax it and solve again")
    mo.hstack([cause_choice, relax_button], justify="start")
    return cause_choice, relax_button


@app.cell
def relaxed(audit, cause_choice, diagnosis, mo, relax_button, relax_cause, request, try_solve):
    # In the browser the re-solve waits for the button; a headless run takes the first cause.
    mo.stop(mo.running_in_notebook() and not relax_button.value)
    cause = diagnosis.causes[cause_choice.value]
    relaxed_request = relax_cause(request, cause)
    relaxed_outcome = try_solve(relaxed_request)
    relaxed_report = (
        audit(relaxed_request, relaxed_outcome.assignments)
        if relaxed_outcome.has_solution
        else None
    )
    return cause, relaxed_outcome, relaxed_report, relaxed_request


@app.cell
def relaxed_file(Path, mo, relaxed_request, source):
    # The relaxed request as a file named after the request it came from, to solve it
    # elsewhere (the command line, the service) or to relax another cause in it.
    relaxed_json = relaxed_request.model_dump_json(indent=2, exclude_none=True).encode()
    relaxed_name = f"{Path(source).stem}-relaxed.json"
    relaxed_download = mo.download(
        data=relaxed_json,
        filename=relaxed_name,
        mimetype="application/json",
        label=f"Download the relaxed request ({relaxed_name})",
    )
    return relaxed_download, relaxed_json, relaxed_name


@app.cell
def relaxed_view(
    assignments_frame,
    cause,
    mo,
    relaxed_download,
    relaxed_outcome,
    relaxed_report,
    relaxed_request,
    roster_heatmap,
):
    mo.stop(
        not relaxed_outcome.has_solution,
        mo.vstack(
            [
                mo.callout(
                    mo.md(
                        f"Relaxing `{cause.field}` is not enough: {relaxed_outcome.status}. "
                        "Relax another cause too (the conflicts may be independent): "
                        "download the relaxed request and explain it in turn."
                    ),
                    "warn",
                ),
                mo.hstack([relaxed_download], justify="start"),
            ]
        ),
    )
    relaxed_roster = roster_heatmap(
        assignments_frame(relaxed_request, relaxed_outcome.assignments),
        title=f"Roster with {cause.field} relaxed",
    )
    mo.vstack(
        [
            mo.callout(
                mo.md(
                    f"Relaxing `{cause.field}` gives a roster ({relaxed_outcome.status}, "
                    f"objective {relaxed_outcome.objective_value:,.0f}); the audit finds "
                    f"{len(relaxed_report.hard_violations)} hard violations."
                ),
                "success",
            ),
            mo.hstack([relaxed_download], justify="start"),
            relaxed_roster,
        ]
    )
    return (relaxed_roster,)


if __name__ == "__main__":
    app.run()
