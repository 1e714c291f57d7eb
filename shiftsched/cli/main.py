"""The command line's entry point: the parser, built from the declarations, and the run
of one subcommand with its faults as exit codes.

Why derived: each operation of the engine declares its subcommand once
(``shiftsched.operations``, its ``command``): what ``--help`` says, its arguments beyond
the request file and its handler. An operation declared without a handler answers its
request file with its engine function, as JSON (:func:`answer`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, TextIO

from shiftsched.cli.export import EXPORT
from shiftsched.cli.files import read_json
from shiftsched.cli.next_period import NEXT_PERIOD
from shiftsched.cli.output import EXIT_FAILED, EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, print_json
from shiftsched.cli.remote import REMOTE_HELP, RemoteFailed, UnsentOption, check, run
from shiftsched.errors import InvalidRequest
from shiftsched.operations import OPERATIONS, Command, Operation, named

if TYPE_CHECKING:  # generic in the stubs only
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]

Handler = Callable[[argparse.Namespace, TextIO, TextIO, TextIO], int]


def answer(
    operation: Operation, args: argparse.Namespace, out: TextIO, stdin: TextIO, err: TextIO
) -> int:
    """The handler of an operation that declares none: its engine function's answer to
    the request file, as JSON (one that solves under the engine's default limits), or
    the service's with ``--remote``."""
    ask = named(operation.parser)(read_json(args.request, stdin))
    result = run(args, operation.name, ask)
    print_json(result.model_dump(mode="json", exclude_none=True), out)
    return EXIT_OK


def commands() -> list[tuple[str, Command, Handler]]:
    """Every subcommand (its name, its declaration, its handler), as ``--help`` lists
    them: the operations that declare one, ``export`` and ``next-period``."""
    found: list[tuple[str, Command, Handler]] = [
        (EXPORT.name, EXPORT, named(EXPORT.handler)),
        (NEXT_PERIOD.name, NEXT_PERIOD, named(NEXT_PERIOD.handler)),
    ]
    for operation in OPERATIONS:
        command = operation.command
        if command is not None:
            handler = named(command.handler) if command.handler else partial(answer, operation)
            found.append((operation.command_name, command, handler))
    return sorted(found, key=lambda entry: entry[1].listed)


def parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per declaration, in the order ``--help`` lists them."""
    built = argparse.ArgumentParser(
        prog="python -m shiftsched",
        description="Validate, solve and audit shift-scheduling requests (the v1 contract).",
        epilog="Exit codes: 0 done, 1 no roster, an audit that is not clean, or a service "
        "(--remote) that refused or was out of reach, 2 bad input, 3 internal error.",
    )
    quiet = argparse.ArgumentParser(add_help=False)
    quiet.add_argument(
        "-q", "--quiet", action="store_true", help="nothing on stderr but the faults"
    )
    remote = argparse.ArgumentParser(add_help=False)  # every operation's, the one switch
    remote.add_argument("--remote", default=None, metavar="URL", help=REMOTE_HELP)
    operations = {op.command_name for op in OPERATIONS if op.command is not None}
    sub = built.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command, handler in commands():
        parents = [quiet, remote] if name in operations else [quiet]
        _add(sub, parents, name, command, handler)
    return built


def _add(
    sub: Subcommands,
    parents: list[argparse.ArgumentParser],
    name: str,
    command: Command,
    run: Handler,
) -> None:
    parsed = sub.add_parser(
        name, parents=parents, help=command.help, description=command.description
    )
    parsed.add_argument("request", help=command.request_help)
    for argument in command.arguments:
        parsed.add_argument(*argument.flags, **argument.options)
    parsed.set_defaults(run=run)


def main(
    argv: Sequence[str] | None = None,
    out: TextIO = sys.stdout,
    stdin: TextIO = sys.stdin,
    err: TextIO = sys.stderr,
) -> int:
    """Run one subcommand: its exit code, a fault of the input as exit 2 with every
    fault and its JSON path (an option ``--remote`` cannot send, exit 2 naming it),
    anything else as exit 3 with a short message."""
    args = parser().parse_args(argv)
    try:
        check(args)  # an option --remote cannot send: refused before anything runs
        return int(args.run(args, out, stdin, err))
    except InvalidRequest as exc:
        from shiftsched.present.console import fault_lines
        from shiftsched.present.words import many

        count = len(exc.errors)
        err.write(f"bad input: {many(count, 'fault')}\n")
        for line in fault_lines(exc.errors):
            err.write(f"  {line}\n")
        return EXIT_INVALID
    except UnsentOption as exc:
        err.write(f"bad input: {exc}\n")
        return EXIT_INVALID
    except RemoteFailed as exc:  # the service refused, or was out of reach
        err.write(f"{exc}\n")
        return EXIT_FAILED
    except KeyboardInterrupt:
        err.write("interrupted\n")
        return 130
    except Exception as exc:  # the last resort: a short message, never a traceback
        err.write(
            f"internal error: {type(exc).__name__}: {exc}\n"
            "This is a bug in the engine, not in your input; please report it with the "
            "request that caused it.\n"
        )
        return EXIT_INTERNAL


__all__ = ["EXIT_FAILED", "EXIT_INTERNAL", "EXIT_INVALID", "EXIT_OK", "answer", "main", "parser"]
