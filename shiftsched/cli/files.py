"""What the command line reads: JSON files (or stdin), the roster of a response file,
a history, and the body every question on one roster shares.

Why apart: every subcommand reads its files the same way, and a file that cannot be read
or does not fit its request is bad input with the JSON path of each fault (exit 2),
never a traceback.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from shiftsched.contract.parse import load_json
from shiftsched.errors import FieldError, InvalidRequest

if TYPE_CHECKING:
    from shiftsched.checking.audit import ReadResponse
    from shiftsched.contract.history import History
    from shiftsched.contract.planning import Absence
    from shiftsched.contract.v1 import SolveRequest
    from shiftsched.solving.solve import SolveLimits


def read_json(path: str, stdin: TextIO) -> Any:
    """The JSON in ``path`` (``-``: stdin); InvalidRequest when it cannot be read."""
    try:
        text = stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidRequest(
            [FieldError((), f"cannot read {path}: {exc.strerror}", "unreadable_file")]
        ) from None
    return load_json(text, path)


def assignments(path: str, stdin: TextIO, request: SolveRequest) -> ReadResponse:
    """The roster in ``path`` (a SolveResponse, {assignments} or a list), which must fit
    ``request``: every fault with its path in that file (``solution.assignments[3]``)."""
    from shiftsched.checking.audit import read_response
    from shiftsched.present.export import assignments_path
    from shiftsched.questions.inquiry import fit_faults

    raw = read_json(path, stdin)
    read = read_response(raw)
    faults = fit_faults(request, read.assignments, assignments_path(raw))
    if faults:
        raise InvalidRequest(faults)
    return read


def roster(args: argparse.Namespace, stdin: TextIO) -> tuple[Any, list[dict[str, Any]]]:
    """The request as JSON and the published roster of RESPONSE as assignment dicts."""
    from shiftsched.checking.audit import read_response

    request = read_json(args.request, stdin)
    published = read_response(read_json(args.response, stdin)).assignments
    return request, [a.model_dump(mode="json", exclude_none=True) for a in published]


def history(request: SolveRequest, path: str, stdin: TextIO) -> History:
    """The history in ``path`` (a SolveResponse or a history document), checked
    against ``request``: every fault under ``history``."""
    from shiftsched.contract.history import History, history_faults
    from shiftsched.contract.parse import parse_model

    found = parse_model(History, read_json(path, stdin), at=("history",))
    faults = history_faults(request, found, ("history",))
    if faults:
        raise InvalidRequest(faults)
    return found


def absences(request: SolveRequest, given: list[dict[str, Any]]) -> list[Absence]:
    """The ``--absent`` values checked against ``request``: every fault under ``absences``."""
    from shiftsched.contract.parse import parse_model
    from shiftsched.contract.planning import Absence, KnownIds, absence_faults

    found = [parse_model(Absence, a, at=("absences", i)) for i, a in enumerate(given)]
    faults = absence_faults(found, KnownIds(request))
    if faults:
        raise InvalidRequest(faults)
    return found


def question_body(args: argparse.Namespace, stdin: TextIO) -> dict[str, Any]:
    """The body every question on one roster shares: request, roster, absences, history."""
    request, published = roster(args, stdin)
    body: dict[str, Any] = {"request": request, "roster": published, "absences": args.absent}
    if args.history is not None:
        body["history"] = read_json(args.history, stdin)
    return body


def limits(args: argparse.Namespace) -> SolveLimits:
    """The solver's limits a question on a roster takes: time, workers, seed."""
    from shiftsched.solving.solve import SolveLimits

    return SolveLimits(
        time_limit_seconds=args.time_limit, num_workers=args.workers, random_seed=args.seed or 0
    )
