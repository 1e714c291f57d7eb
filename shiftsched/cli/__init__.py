"""Command line: ``python -m shiftsched validate|solve|audit|compare|explain|why|export|...``.

    python -m shiftsched validate REQUEST.json     ValidateResponse, or the errors
    python -m shiftsched solve REQUEST.json [--time-limit S] [--workers N] [--seed N]
                       [--progress | --quiet] [--format json|table]
                       [--absent EMPLOYEE_ID:DATE[,DATE...]] [--history PREV.json]
                                               SolveResponse JSON, or the roster as a table;
                                               with --absent, no absent employee works
                                               an absent date; with --history, the
                                               period follows PREV (a SolveResponse of
                                               the period before, or a history), and
                                               the answer adds the ledger (shiftsched.periods.plan)
    python -m shiftsched audit REQUEST.json RESPONSE.json [--history PREV.json] [--format ...]
                                               the audit (across the seam with PREV):
                                               findings with their input items, each
                                               employee's figures, the plan's KPIs
    python -m shiftsched compare REQUEST.json A.json B.json [--history PREV.json] [--format ...]
                                               what differs from roster A to B: cells,
                                               per-employee figures, terms, objective
    python -m shiftsched explain REQUEST.json RESPONSE.json [--date DATE ...]
                       [--absent ...] [--history PREV.json] [--time-limit S] [--format ...]
                                               per shortage: avoidable (the fill found)
                                               or unavoidable (what forbids it)
    python -m shiftsched why REQUEST.json RESPONSE.json --employee ID --date DATE
                       [--shift SHIFT_ID[:DUTY_ID]] [--absent ...] [--time-limit S]
                       [--format json|table]
                                               why ID is not off (or not on the shift)
                                               that date: the re-plan that makes it so,
                                               or the rules that forbid it
    python -m shiftsched export REQUEST.json RESPONSE.json --format csv|ics|xlsx
                       [-o FILE] [--employee ID]
                                               the roster as a file: csv a header row,
                                               then one row per assignment; ics one
                                               VEVENT per assignment; xlsx employees x dates
    python -m shiftsched replan REQUEST.json RESPONSE.json --absent EMPLOYEE_ID:DATE[,DATE...]
                       [--pin-before DATE] [--time-limit S] [--change-weight W]
                       [--format json|table]
                                               SolveResponse JSON with "changes": the
                                               roster re-planned around the absences,
                                               moving as few people as it can
    python -m shiftsched recommend REQUEST.json RESPONSE.json --slot DATE:SHIFT_ID[:DUTY_ID]
                       [--top N] [--absent EMPLOYEE_ID:DATE[,DATE...]] [--format json|table]
                                               {"recommendations": [...]}: who should
                                               fill the slot, best first (no re-solve)
    python -m shiftsched next-period REQUEST.json [--roster RESPONSE.json]
                                               the request of the next calendar period
                                               (the month after a month); with --roster,
                                               a plan's body, the roster as its history

``--format table`` prints for a person instead of JSON, as wide as the terminal
(``COLUMNS``, or 80 when stdout is not a terminal): the roster in blocks of whole weeks
with a legend of its codes (holidays marked), a re-plan's changes, a ranked table of the
candidates, an audit's findings, a comparison's changes, one line per shortage explained,
a why-not's verdict and its changed cells; every figure is the audit's
(shiftsched.present.answer_text, shiftsched.present.question_text).

stdout carries only the result. People get the rest on stderr: live progress while a
solve runs (on a terminal, or with ``--progress``), a one-line summary at the end, and
each fault of a bad input as ``employees[2].favourite_colour: message (code)``
(``validate`` also prints its JSON verdict on stdout). ``--quiet`` leaves stderr to
faults alone.

Exit codes: 0 done (completed solve, clean audit, valid request); 1 no roster, an
audit that found violations or metrics that disagree with it, or a service (``--remote``)
that refused the call or was out of reach; 2 bad input (with every
fault and its JSON path; never a traceback); 3 an internal error.

The audit and the export need only ``solution.assignments`` (or ``{"assignments": [...]}``,
or a bare list) from RESPONSE: the audit compares reported metrics and shortages when
they can be read, and ``notes`` says what was left out of the comparison and why.

``--remote URL`` runs an operation's subcommand on the service at URL (its API root,
``http://localhost:3000/v1/public``) instead of in this process, with the API key in
``SHIFTSCHED_API_KEY`` (``shiftsched.cli.remote``, through ``shiftsched.client``): the
same output and exit codes; a refusal of the service exits 1 with its problem on stderr.
``--time-limit S`` is sent as the request's ``options.solver_timeout_seconds`` (whole
seconds, 1 to 300; the service caps a synchronous call at 30 s and queues a longer
solve on a pro key only). ``--workers`` and ``--seed`` cannot be sent (the service
chooses both, and the v1 request has no field for them): with ``--remote`` they exit 2,
naming the option, before any call.

``-`` reads a file from standard input, so ``solve X | audit X -`` checks a roster.
Invalid input always exits 2 with every fault and its JSON path; never a traceback.

The subcommands come from the operations' declarations (``shiftsched.operations``, each
its :class:`~shiftsched.operations.Command`), ``export`` (``shiftsched.cli.export``) and
``next-period`` (``shiftsched.cli.next_period``);
the parser is built from them (``shiftsched.cli.main``), the handlers are in
``shiftsched.cli.solving`` and ``shiftsched.cli.questions``, the files they read in
``shiftsched.cli.files`` and what they write in ``shiftsched.cli.output``. This package's
own import is light: the declarations name its argument types (``shiftsched.cli.values``).
"""
