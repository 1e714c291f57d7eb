"""``next-period``: the request of the period after a request's, to plan next.

Why a subcommand of its own: it is no operation of the engine (nothing is solved or
checked beyond the files), but a month after a month is how a ward plans, and the next
request is the same staff and rules on the next dates (``shiftsched.periods.split``,
:func:`~shiftsched.periods.split.following`). With ``--roster`` it writes the body of a
plan (``POST /solve/plan``): that request and the roster as its history.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from shiftsched.cli.files import assignments, read_json
from shiftsched.cli.output import EXIT_OK, print_json
from shiftsched.operations import Command, arg

NEXT_PERIOD = Command(
    "write the request of the next period: the same staff and rules on the next dates",
    9,
    name="next-period",
    description="Write the request of the period after REQUEST's: the next calendar "
    "month(s) after a period of whole months, else as many days; the same staff, shifts "
    "and rules, each day's demand that of the latest day on its weekday, and no holidays, "
    "preferences or fixed assignments (those are for the new dates to add). With "
    "--roster, the body of a plan instead: {request, history}, the roster as the history.",
    handler="shiftsched.cli.next_period:next_period",
    request_help="SolveRequest JSON file of this period, or - for stdin",
    arguments=(
        arg(
            "--roster",
            default=None,
            metavar="ROSTER.json",
            help="this period's roster (a SolveResponse, {assignments} or a list): "
            "written as the next period's history",
        ),
    ),
)


def next_period(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    """The next period's request (or plan body) on stdout, its dates on stderr."""
    from shiftsched.contract.parse import parse_request
    from shiftsched.periods.split import following

    request = parse_request(read_json(args.request, stdin))
    upcoming = following(request)
    answer: Any = upcoming.model_dump(mode="json", exclude_none=True)
    if args.roster is not None:
        roster = assignments(args.roster, stdin, request).assignments  # fits REQUEST
        raw = read_json(args.roster, stdin) if args.roster != "-" else None
        history: dict[str, Any] = {
            "assignments": [a.model_dump(mode="json", exclude_none=True) for a in roster]
        }
        if isinstance(raw, dict) and isinstance(raw.get("ledger"), dict):
            history["ledger"] = raw["ledger"]
        answer = {"request": answer, "history": history}
    print_json(answer, out)
    if not args.quiet:
        period = upcoming.schedule_period
        days = (period.end_date - period.start_date).days + 1
        err.write(
            f"next period: {period.start_date.isoformat()} to {period.end_date.isoformat()} "
            f"({days} days, {len(upcoming.employees)} employees)\n"
        )
    return EXIT_OK
