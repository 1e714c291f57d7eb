"""``export``: a roster as a file (CSV, iCalendar or XLSX), the one subcommand that is
no operation of the engine: it writes what a solve answered.

Why apart: it is the only subcommand that writes a file or binary bytes, so it alone
decides where they may go (``-o FILE``; xlsx never to a terminal).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from shiftsched.cli.files import read_json
from shiftsched.cli.output import EXIT_INVALID, EXIT_OK
from shiftsched.errors import FieldError, InvalidRequest
from shiftsched.operations import RESPONSE, Command, arg

EXPORT = Command(
    "write a roster as CSV, iCalendar or XLSX",
    6,
    name="export",
    description="Write the roster of RESPONSE as a file: csv (a header row, then one "
    "row per assignment), ics (one VEVENT per assignment, in the request's time zone) "
    "or xlsx (employees x dates).",
    handler="shiftsched.cli.export:export",
    arguments=(
        RESPONSE,
        arg("--format", choices=("csv", "ics", "xlsx"), required=True),
        arg(
            "-o",
            "--output",
            default=None,
            help="file to write (default stdout; xlsx: not a terminal)",
        ),
        arg("--employee", default=None, metavar="ID", help="only this employee's roster"),
    ),
)


def export(args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO) -> int:
    """The roster of RESPONSE written as ``--format``, to ``-o FILE`` or stdout."""
    from shiftsched.checking.audit import read_response
    from shiftsched.contract.parse import parse_request
    from shiftsched.present.export import assignments_path
    from shiftsched.present.export import export as exported

    request = parse_request(read_json(args.request, stdin))
    raw = read_json(args.response, stdin)
    data = exported(
        request,
        read_response(raw).assignments,
        args.format,
        employee_id=args.employee,
        at=assignments_path(raw),
    )
    if args.output is not None:
        try:
            Path(args.output).write_bytes(data)
        except OSError as exc:
            raise InvalidRequest(
                [FieldError((), f"cannot write {args.output}: {exc.strerror}", "unwritable_file")]
            ) from None
    elif args.format != "xlsx":
        out.write(data.decode("utf-8"))
    else:
        binary = getattr(out, "buffer", None)
        if binary is None or out.isatty():
            err.write("xlsx is binary and stdout is a terminal: name a file with -o FILE\n")
            return EXIT_INVALID
        out.flush()
        binary.write(data)
        binary.flush()
    if not args.quiet:
        where = args.output or "stdout"
        err.write(f"wrote the roster as {args.format} ({len(data):,} bytes) to {where}\n")
    return EXIT_OK
