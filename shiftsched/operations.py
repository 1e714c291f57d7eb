"""Every operation of the engine, each declared once: what it reads and answers, which
engine function runs it, what a person calls one run of it, and what the command line
needs for it.

Why one declaration: each face of an operation (its subcommand, ``shiftsched.cli``; its
route, OpenAPI entry and MCP tool, whose service declarations in
``shiftsched.service.http.operations`` wrap these with payment, admission and docs; its
metrics path, its units in the ledger audit, its jobs' names and the dashboard's words)
is derived from here, so a new operation is one declaration and nothing listed by hand.

The module stays light: models, parsers and engine functions are named as
``module:name`` and imported on first use, so importing it loads no OR-Tools.
:data:`OPERATIONS` is a :class:`Registry`: a test may declare an operation for a while
(:meth:`Registry.declaring`), and every face derived on use sees it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, overload

from shiftsched.cli.values import absence, slot

T = TypeVar("T")


def named(ref: str) -> Any:
    """What ``module:name`` names, imported now."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Arg:
    """One argument of a subcommand: its flags (or its positional name) and the options
    of ``argparse.ArgumentParser.add_argument``."""

    flags: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)


def arg(*flags: str, **options: Any) -> Arg:
    return Arg(flags, options)


@dataclass(frozen=True)
class Command:
    """An operation's subcommand: what ``--help`` says, its arguments beyond the request
    file, and its handler (``module:function``; empty: the request file's answer, as JSON,
    ``shiftsched.cli.run``). ``listed``: where ``--help`` lists it."""

    help: str
    listed: int
    arguments: tuple[Arg, ...] = ()
    description: str | None = None
    handler: str = ""
    request_help: str = "SolveRequest JSON file, or - for stdin"
    name: str = ""  # default: the operation's


@dataclass(frozen=True)
class Operation:
    """One operation of the engine."""

    name: str
    request: str  # module:name of its request's model
    response: str  # module:name of its answer's model
    parser: str  # module:function, JSON into the typed request; InvalidRequest
    function: str  # module:function, the engine's, on the typed request
    solves: bool  # runs CP-SAT: in a solver process, counted on a metrics path of its own
    roster: bool = False  # its completed answer is a roster (the exports download it)
    called: str = ""  # what a person calls one run ("re-plan"); default: its name
    about: str = "shiftsched.present.about:period_and_staff"  # module:function, its job's words
    counted: str = ""  # what the ledger audit counts its calls' units under; default: name + s
    command: Command | None = None  # its subcommand; None: none (or another's)

    @property
    def called_as(self) -> str:
        return self.called or self.name

    @property
    def counted_as(self) -> str:
        return self.counted or self.name + "s"

    @property
    def command_name(self) -> str:
        return (self.command.name if self.command else "") or self.name


class Registry(Sequence[T], Generic[T]):
    """Declarations in the order they were made; :meth:`declaring` adds some for a while."""

    def __init__(self, *items: T) -> None:
        self._items = list(items)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...
    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry{tuple(self._items)!r}"

    @contextmanager
    def declaring(self, *items: T) -> Iterator[None]:
        """``items`` declared inside the block only (a test's operation)."""
        self._items.extend(items)
        try:
            yield
        finally:
            for item in items:
                self._items.remove(item)


def by_name(name: str) -> Operation:
    """The operation called ``name``; LookupError when none is."""
    for operation in OPERATIONS:
        if operation.name == name:
            return operation
    raise LookupError(f"no operation is called {name!r}")


RESPONSE_HELP = "SolveResponse (or {assignments: [...]}) JSON file, or -"
ABSENT_HELP = "EMPLOYEE_ID:DATE[,DATE...]: absent on these dates (hard; repeatable)"
HISTORY_HELP = (
    "what came before the period: the SolveResponse of the period before (its ledger "
    "too, if it has one), or a history document {start_date?, assignments, ledger?}"
)
RESPONSE = arg("response", help=RESPONSE_HELP)
HISTORY = arg("--history", default=None, metavar="PREV.json", help=HISTORY_HELP)
# None by default, so that a seed given is known: --remote refuses one; here a solve takes 0.
SEED = arg("--seed", type=int, default=None, help="random seed (default 0; not with --remote)")
WORKERS = arg(
    "--workers", type=int, default=None, help="CP-SAT workers (default: all; not with --remote)"
)
REMOTE_TIME = "; with --remote, sent as the request's options.solver_timeout_seconds"
TIME_LIMIT = arg(
    "--time-limit",
    type=float,
    default=None,
    help="seconds (default: the request's" + REMOTE_TIME + ")",
)


def table_format(help_text: str) -> Arg:
    """``--format json|table``, for a person or for a program."""
    return arg(
        "--format",
        choices=("json", "table"),
        default="json",
        help=help_text + " (as wide as COLUMNS, or the terminal; 80 when not a terminal)",
    )


QUESTION = (
    RESPONSE,
    arg(
        "--absent",
        type=absence,
        action="append",
        default=[],
        help="holds for every roster tried: " + ABSENT_HELP,
    ),
    HISTORY,
    arg(
        "--time-limit",
        type=float,
        default=None,
        help="seconds in all (default: the request's" + REMOTE_TIME + ")",
    ),
    WORKERS,
    SEED,
)
"""A question on one roster: the roster, absences, history, limits."""
REQUESTS = "shiftsched.contract.v1"
PLANNING = "shiftsched.contract.planning"
INQUIRY = "shiftsched.questions.inquiry"
CLI = "shiftsched.cli"

VALIDATE = Operation(
    "validate",
    f"{REQUESTS}:SolveRequest",
    f"{REQUESTS}:ValidateResponse",
    "shiftsched.contract.parse:parse_request",
    "shiftsched.questions.validation:describe",
    solves=False,
    command=Command(
        "check a request without solving (free, fast)", 0, handler=f"{CLI}.questions:validate"
    ),
)
SOLVE = Operation(
    "solve",
    f"{REQUESTS}:SolveRequest",
    f"{REQUESTS}:SolveResponse",
    "shiftsched.contract.parse:parse_request",
    "shiftsched.solving.solve:solve",
    solves=True,
    roster=True,
    counted="sync_solves",
    command=Command(
        "solve a request and print the SolveResponse",
        1,
        description="Solve a request. stdout: the SolveResponse JSON (or the roster with "
        "--format table); stderr: live progress and a one-line summary.",
        handler=f"{CLI}.solving:solve",
        arguments=(
            TIME_LIMIT,
            arg(
                "--workers",
                type=int,
                default=None,
                help="CP-SAT workers (default: all cores; not with --remote)",
            ),
            arg(
                "--seed",
                type=int,
                default=None,
                help="random seed (default 0; reproducible with --workers 1; not with --remote)",
            ),
            arg(
                "--deterministic",
                action="store_true",
                help="limit the search by work, not by the clock: the same roster on any "
                "machine (one core; --time-limit sets the budget)",
            ),
            arg(
                "--progress",
                action="store_true",
                help="progress on stderr once a second, even when stderr is not a terminal",
            ),
            table_format(
                "json: the SolveResponse (default); table: the roster in weeks that fit the "
                "terminal"
            ),
            arg("--log", action="store_true", help="print the CP-SAT search log on stderr"),
            arg(  # None: the engine's budget (shiftsched.solving.diagnose)
                "--diagnosis-budget",
                type=float,
                default=None,
                help="seconds to explain an infeasible request (0: skip the diagnosis)",
            ),
            arg(
                "--absent",
                action="append",
                type=absence,
                default=[],
                metavar="EMPLOYEE_ID:DATE[,DATE...]",
                help="this employee cannot work these dates (hard; repeat for more): the "
                "request is planned with its absences",
            ),
            HISTORY,
            arg(
                "--horizon",
                default=None,
                metavar="HORIZON.json",
                help="the longer horizon the period is planned inside: {start, end, "
                "targets: [{employee_id, min_days?, max_days?, max_weekends?}]} (the "
                "request is planned with its share of each target)",
            ),
        ),
    ),
)
REPLAN = Operation(
    "replan",
    f"{PLANNING}:ReplanRequest",
    f"{PLANNING}:ReplanResponse",
    f"{PLANNING}:parse_replan",
    "shiftsched.periods.replan:replan",
    solves=True,
    roster=True,
    called="re-plan",
    about="shiftsched.present.about:with_absences",
    command=Command(
        "re-plan a published roster around absences, moving as few people as it can",
        7,
        description="Re-plan the roster of RESPONSE: the absent employees work none of "
        "their dates, cells before --pin-before stay as published, and every other "
        "changed assignment costs the change weight. stdout: a SolveResponse JSON with "
        '"changes" (a list, by employee and date).',
        handler=f"{CLI}.solving:replan",
        request_help="SolveRequest JSON file (may be edited), or - for stdin",
        arguments=(
            arg("response", help="the published SolveResponse (or {assignments: [...]}), or -"),
            arg("--absent", type=absence, action="append", required=True, help=ABSENT_HELP),
            arg("--pin-before", default=None, metavar="DATE", help="keep every cell before"),
            TIME_LIMIT,
            arg(
                "--change-weight",
                type=int,
                default=None,
                help="price of one changed cell (default 500)",
            ),
            WORKERS,
            SEED,
            HISTORY,
            table_format(
                "json: the SolveResponse with its changes (default); table: the roster "
                "with the changed cells marked, the changes and the audited objective"
            ),
        ),
    ),
)
PLAN = Operation(  # on the command line, a solve with --absent or --history
    "plan",
    f"{PLANNING}:PlanRequest",
    f"{PLANNING}:PlanResponse",
    f"{PLANNING}:parse_plan",
    "shiftsched.periods.plan:plan",
    solves=True,
    roster=True,
    about="shiftsched.present.about:with_absences",
)
RECOMMEND = Operation(
    "recommend",
    f"{PLANNING}:RecommendRequest",
    f"{PLANNING}:RecommendResponse",
    f"{PLANNING}:parse_recommend",
    "shiftsched.questions.recommend:recommend",
    solves=False,
    called="recommendation",
    about="shiftsched.present.about:slot",
    counted="recommendations",
    command=Command(
        "rank the employees who could fill a slot (no re-solve)",
        8,
        description="Rank every employee for a slot of the roster in RESPONSE by the audit "
        "of the roster with them in it: hard rules broken, objective delta, soft terms "
        "moved. An employee who works that date is moved from their shift.",
        handler=f"{CLI}.questions:recommend",
        arguments=(
            RESPONSE,
            arg(
                "--slot",
                type=slot,
                required=True,
                metavar="DATE:SHIFT_ID[:DUTY_ID]",
                help="to fill",
            ),
            arg("--top", type=int, default=None, help="how many to list (default 10)"),
            arg(
                "--absent",
                type=absence,
                action="append",
                default=[],
                help="not candidates: " + ABSENT_HELP,
            ),
            HISTORY,
            table_format(
                "json: the recommendations (default); table: the candidates ranked, "
                "with the rules and soft terms each move touches in words"
            ),
        ),
    ),
)
AUDIT = Operation(
    "audit",
    f"{INQUIRY}:AuditRequest",
    f"{INQUIRY}:AuditResponse",
    f"{INQUIRY}:parse_audit",
    "shiftsched.questions.review:audit_roster",
    solves=False,
    command=Command(
        "check a roster independently of the solver",
        2,
        handler=f"{CLI}.questions:audit",
        arguments=(
            RESPONSE,
            arg(
                "--absent",
                type=absence,
                action="append",
                default=[],
                help="lowers that employee's day minimums: " + ABSENT_HELP,
            ),
            HISTORY,
            table_format(
                "json: the audit (default); table: the verdict, each broken rule and "
                "shortage, the costliest soft terms in words"
            ),
        ),
    ),
)
COMPARE = Operation(
    "compare",
    f"{INQUIRY}:CompareRequest",
    f"{INQUIRY}:CompareResponse",
    f"{INQUIRY}:parse_compare",
    "shiftsched.questions.review:compare_rosters",
    solves=False,
    command=Command(
        "what differs between two rosters of one request",
        3,
        description="Compare roster B with roster A (each a SolveResponse, {assignments} "
        "or a list): the changed cells, each employee's change in shifts, hours, nights, "
        "weekends and preferences, each soft term's change in cost, the objective's, and "
        "the KPIs of both. Every delta is B - A.",
        handler=f"{CLI}.questions:compare",
        arguments=(
            arg("before", help="roster A: " + RESPONSE_HELP),
            arg("after", help="roster B: " + RESPONSE_HELP),
            arg(
                "--absent",
                type=absence,
                action="append",
                default=[],
                help="lowers that employee's day minimums: " + ABSENT_HELP,
            ),
            HISTORY,
            table_format(
                "json: the comparison (default); table: the objective, the changed cells, "
                "each employee's figures and each soft term's cost"
            ),
        ),
    ),
)
EXPLAIN = Operation(
    "explain",
    f"{INQUIRY}:ExplainRequest",
    f"{INQUIRY}:ExplainResponse",
    f"{INQUIRY}:parse_explain",
    "shiftsched.questions.explain:explain_shortages",
    solves=True,
    called="explanation",
    about="shiftsched.present.about:on_dates",
    counted="explanations",
    command=Command(
        "say for each shortage whether any roster could fill it, and how or why not",
        4,
        description="For each shortage of the roster in RESPONSE: its missing heads "
        "counted as fillable, only movable (covering it leaves another demand short) or "
        "unavoidable; then avoidable (the cheapest fill found that lowers the roster's "
        "missing heads: who covers it, the cells that move, what stays short, the "
        "objective's change and the roster), unavoidable (the date's capacity, and the "
        "hard rules and input items that forbid the heads no roster covers) or undecided "
        "(out of time). The time limit is shared among the shortages.",
        handler=f"{CLI}.questions:explain",
        arguments=(
            *QUESTION,
            arg(
                "--date",
                action="append",
                default=[],
                metavar="DATE",
                help="only this date (repeatable)",
            ),
            table_format(
                "json: the explanations (default); table: one entry per shortage, its "
                "verdict and what fills it or forbids it"
            ),
        ),
    ),
)
WHY = Operation(
    "why",
    f"{INQUIRY}:WhyRequest",
    f"{INQUIRY}:WhyResponse",
    f"{INQUIRY}:parse_why",
    "shiftsched.questions.why:why_not",
    solves=True,
    called="why-not",
    about="shiftsched.present.about:cell",
    counted="why_questions",
    command=Command(
        "why an employee is not off, or not on a shift, on a date",
        5,
        description="Why is EMPLOYEE not off on DATE (without --shift), or not on SHIFT: the "
        "roster is re-planned with that cell made so. Possible: the cells that move and the "
        "objective's change; impossible: the hard rules that forbid it.",
        handler=f"{CLI}.questions:why",
        arguments=(
            *QUESTION,
            arg("--employee", required=True, metavar="ID"),
            arg("--date", required=True, metavar="DATE"),
            arg(
                "--shift",
                default=None,
                metavar="SHIFT_ID[:DUTY_ID]",
                help="the shift wanted (default: off)",
            ),
            table_format(
                "json: the answer, its re-planned roster included (default); table: the "
                "verdict, why, and the cells that change"
            ),
        ),
    ),
)
OPERATIONS: Registry[Operation] = Registry(
    VALIDATE, SOLVE, REPLAN, PLAN, RECOMMEND, AUDIT, COMPARE, EXPLAIN, WHY
)
"""Every operation of the engine (the service lists its own in the API's order)."""
