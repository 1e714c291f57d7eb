"""Tiny Curtois & Qu instances written as text, solved by the engine and checked.

Every roster the engine returns goes through the independent checker
(:mod:`shiftsched.formats.curtois_check`): no hard violation, and the checker's objective equals
the solver's to the unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shiftsched.formats.curtois import Instance, parse, to_problem, to_roster
from shiftsched.formats.curtois_check import CheckReport, check
from shiftsched.solving.solve import SolveLimits, SolveOutcome, solve_problem
from tests.audited import BACKSTOP_SECONDS

LIMITS = SolveLimits(time_limit_seconds=BACKSTOP_SECONDS, num_workers=1, random_seed=0)


@dataclass(frozen=True)
class Staff:
    id: str = "A"
    max_shifts: str = "D=99"
    max_minutes: int = 99_999
    min_minutes: int = 0
    max_run: int = 99
    min_run: int = 1
    min_off: int = 1
    max_weekends: int = 99

    def line(self) -> str:
        return (
            f"{self.id},{self.max_shifts},{self.max_minutes},{self.min_minutes},"
            f"{self.max_run},{self.min_run},{self.min_off},{self.max_weekends}"
        )


def text(
    horizon: int,
    staff: Sequence[Staff] = (Staff(),),
    *,
    cover: Sequence[tuple[int, str, int, int, int]] = (),
    shifts: Sequence[str] = ("D,480,",),
    days_off: Sequence[str] = (),
    on: Sequence[str] = (),
    off: Sequence[str] = (),
) -> str:
    """An instance in the benchmark's format; ``cover`` rows are (day, shift, req, u, o)."""
    sections = [
        ("SECTION_HORIZON", [str(horizon)]),
        ("SECTION_SHIFTS", list(shifts)),
        ("SECTION_STAFF", [s.line() for s in staff]),
        ("SECTION_DAYS_OFF", list(days_off)),
        ("SECTION_SHIFT_ON_REQUESTS", list(on)),
        ("SECTION_SHIFT_OFF_REQUESTS", list(off)),
        ("SECTION_COVER", [",".join(str(v) for v in row) for row in cover]),
    ]
    return "\n\n".join("\n".join([name, "# a comment", *rows]) for name, rows in sections)


def daily(
    horizon: int, need: dict[int, int], under: int = 10, over: int = 1
) -> list[tuple[int, str, int, int, int]]:
    """Cover of shift D on every day: ``need[d]`` heads (0 elsewhere)."""
    return [(d, "D", need.get(d, 0), under, over) for d in range(horizon)]


@dataclass(frozen=True)
class Solved:
    instance: Instance
    outcome: SolveOutcome
    roster: dict[str, list[str]]
    report: CheckReport

    @property
    def objective(self) -> float | None:
        return self.outcome.objective_value


def solve_text(source: str) -> Solved:
    """Solve to optimality and require the checker to accept the roster and objective."""
    instance = parse(source)
    problem = to_problem(instance)
    outcome = solve_problem(problem, LIMITS)
    assert outcome.status == "optimal", outcome.message
    roster = to_roster(problem, outcome.assignments)
    report = check(instance, roster)
    assert report.violations == [], report.violations
    assert report.objective == outcome.objective_value
    return Solved(instance, outcome, roster, report)


def status_of(source: str) -> str:
    """The outcome status alone (for infeasible instances)."""
    return solve_problem(to_problem(parse(source)), LIMITS).status
