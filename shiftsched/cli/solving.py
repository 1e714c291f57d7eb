"""The subcommands that solve: ``solve`` (a plan with ``--absent``, ``--history`` or
``--horizon``) and ``replan``.

Why apart from the questions: these print a roster (``--format table`` for a person)
and, on a terminal, live progress; their exit code says whether there is a roster.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, TextIO

from shiftsched.cli.files import read_json, roster
from shiftsched.cli.output import EXIT_FAILED, EXIT_OK, print_json
from shiftsched.cli.remote import remote, run

if TYPE_CHECKING:
    from shiftsched.contract.planning import PlanRequest, ReplanResponse
    from shiftsched.contract.v1 import SolveRequest, SolveResponse


def solve(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    """A solve, or a plan when absences, a history or a horizon are given
    (``shiftsched.periods.plan``)."""
    from shiftsched.contract.parse import parse_request
    from shiftsched.contract.planning import parse_plan
    from shiftsched.present.answer_text import solve_text, terminal_width
    from shiftsched.present.console import LiveProgress, summary
    from shiftsched.solving.diagnose import DEFAULT_BUDGET_SECONDS
    from shiftsched.solving.solve import SolveLimits

    data = read_json(args.request, stdin)
    ask: PlanRequest | SolveRequest
    if args.absent or args.history or args.horizon:  # a plan (shiftsched.periods.plan)
        body = {"request": data, "absences": args.absent}
        if args.history:
            body["history"] = read_json(args.history, stdin)
        if args.horizon:
            body["horizon"] = read_json(args.horizon, stdin)
        ask = parse_plan(body)
        request, history, name = ask.request, ask.history, "plan"
    else:
        request, history, name = parse_request(data), None, "solve"
        ask = request

    show = not args.quiet and (args.progress or err.isatty()) and not args.log
    time_limit = args.time_limit or float(request.options.solver_timeout_seconds)
    live = LiveProgress(err, time_limit) if show and not remote(args) else None
    shown = err if show and remote(args) else None  # a queued call's progress on the service
    budget = args.diagnosis_budget
    limits = SolveLimits(
        time_limit_seconds=args.time_limit,
        num_workers=args.workers,
        random_seed=args.seed or 0,  # None: not given
        deterministic=args.deterministic,
        log_search=args.log,
        diagnosis_budget_seconds=DEFAULT_BUDGET_SECONDS if budget is None else budget,
        on_progress=None if live is None else live.update,
    )
    response: SolveResponse
    if live is None:
        response = run(args, name, ask, limits, progress=shown)
    else:
        with live.shown():
            response = run(args, name, ask, limits)
    if args.format == "table":
        out.write(solve_text(request, response, terminal_width(), history))
    else:
        print_json(response.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        err.write(summary(request, response, time_limit) + "\n")
    return EXIT_OK if response.status == "completed" else EXIT_FAILED


def replan(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    """The published roster re-planned around absences and pins."""
    from shiftsched.contract.planning import parse_replan
    from shiftsched.present.answer_text import replan_text, terminal_width
    from shiftsched.solving.solve import SolveLimits

    request, published = roster(args, stdin)
    data: dict[str, Any] = {"request": request, "roster": published, "absences": args.absent}
    if args.history is not None:
        data["history"] = read_json(args.history, stdin)
    if args.pin_before is not None:
        data["pin_before"] = args.pin_before
    if args.change_weight is not None:
        data["change_weight"] = args.change_weight
    ask = parse_replan(data)
    limits = SolveLimits(
        time_limit_seconds=args.time_limit, num_workers=args.workers, random_seed=args.seed or 0
    )
    response: ReplanResponse = run(args, "replan", ask, limits)
    if args.format == "table":
        out.write(replan_text(ask, response, terminal_width()))
    else:
        print_json(response.model_dump(mode="json", exclude_none=True), out)
    if not args.quiet:
        if response.solution is not None:
            err.write(
                f"re-planned: {len(response.changes)} changed assignments, objective "
                f"{response.solution.metrics.objective_value:g} "
                f"({response.solution.metrics.status})\n"
            )
        elif response.error is not None:
            err.write(f"no roster: {response.error.code}: {response.error.message}\n")
    return EXIT_OK if response.status == "completed" else EXIT_FAILED
