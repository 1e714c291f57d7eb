"""Shared helpers of the per-family model tests.

Instances are tiny and built from named constants: a period starting on Monday
2026-03-02 (ISO week 2026-W10), shifts with a per-day demand, employees with the fields
under test, put together by :mod:`shiftsched.data.request_body`. Every roster the engine returns
is checked by the independent auditor (:func:`solve_and_audit`): no hard violation, and
the reported objective, soft violations and shortage markers equal the audited ones to
the unit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shiftsched.checking.audit import AuditReport, audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Shortage, Solution, SolveRequest, SolveResponse
from shiftsched.data import request_body as build
from shiftsched.solving.solve import SolveLimits, solve
from tests.audited import BACKSTOP_SECONDS

START = "2026-03-02"  # a Monday, first day of ISO week 2026-W10
TIME_LIMIT_SECONDS = BACKSTOP_SECONDS  # tiny instances end proven optimal long before
SEED = 0
OPEN_MAX = 9  # a demand maximum no tiny instance reaches: no excess unless a test wants it

DAY_HOURS = ("08:00", "16:00")  # 8 h
NIGHT_HOURS = ("22:00", "06:00")  # 8 h, ends the next day

Json = dict[str, Any]


def date(index: int, start: str = START) -> str:
    """ISO date of day ``index`` of a period starting at ``start``."""
    return build.day(start, index)


def demand(
    days: int, min_: int = 0, max_: int = OPEN_MAX, on: Mapping[int, tuple[int, int]] | None = None
) -> list[Json]:
    """One range per day: ``(min_, max_)``, except the days listed in ``on``."""
    return build.demand(days, min_, max_, at=on)


def shift(
    shift_id: str,
    days: int,
    min_: int = 0,
    max_: int = OPEN_MAX,
    *,
    on: Mapping[int, tuple[int, int]] | None = None,
    hours: tuple[str, str] | None = DAY_HOURS,
    managers: list[Json] | None = None,
) -> Json:
    """A shift with a per-day staffing demand (and working hours unless ``hours`` is None)."""
    return build.shift(shift_id, demand(days, min_, max_, on), hours=hours, managers=managers)


def duty(duty_id: str, by_shift: Mapping[str, list[Json]]) -> Json:
    return build.duty(duty_id, by_shift)


def employee(employee_id: str, shift_ids: Iterable[str], **fields: Any) -> Json:
    return build.employee(employee_id, shift_ids, **fields)


def request(
    days: int,
    shifts: Sequence[Json],
    employees: Sequence[Json],
    *,
    start: str = START,
    duties: Sequence[Json] = (),
    holidays: Sequence[str] = (),
    **constraints: Any,
) -> Json:
    """A v1 request dict over ``days`` dates from ``start``; keywords are ``constraints``."""
    return build.request_body(
        shifts,
        employees,
        start=start,
        days=days,
        holidays=holidays,
        duties=duties,
        constraints=constraints,
    )


# ------------------------------------------------------------------------------ solving


def parse(request_dict: Json) -> SolveRequest:
    """The request through the contract's own validation: test instances must be valid."""
    return parse_request(request_dict)


def solve_request(
    request_dict: Json, *, time_limit_seconds: float = TIME_LIMIT_SECONDS, random_seed: int = SEED
) -> SolveResponse:
    """Solve single-threaded with a fixed seed (reproducible: the solve ends on a proof)."""
    return _solve(parse(request_dict), time_limit_seconds, random_seed)


def _solve(request: SolveRequest, time_limit_seconds: float, random_seed: int) -> SolveResponse:
    limits = SolveLimits(
        time_limit_seconds=time_limit_seconds, num_workers=1, random_seed=random_seed
    )
    return solve(request, limits)


@dataclass(frozen=True)
class Result:
    """A solved, audited roster with lookups for assertions."""

    solution: Solution
    report: AuditReport

    @property
    def violations(self) -> dict[str, tuple[float, float | None]]:
        """Reported soft violations: name -> (penalty, violated_by)."""
        return {
            v.name: (v.penalty, v.violated_by)
            for v in self.solution.metrics.soft_constraint_violations
        }

    @property
    def objective(self) -> float | None:
        return self.solution.metrics.objective_value

    @property
    def shortages(self) -> list[Shortage]:
        return self.solution.shortages

    def roster(self, employee_id: str) -> dict[str, str]:
        """The employee's worked dates: ISO date -> shift id."""
        return {
            a.date.isoformat(): a.shift_id
            for a in self.solution.assignments
            if a.employee_id == employee_id
        }

    def duties(self, employee_id: str) -> dict[str, str | None]:
        """The employee's worked dates: ISO date -> duty id (None: no duty)."""
        return {
            a.date.isoformat(): a.duty_id
            for a in self.solution.assignments
            if a.employee_id == employee_id
        }

    def on(self, shift_id: str, day: str) -> set[str]:
        """Employees on a shift on a date."""
        return {
            a.employee_id
            for a in self.solution.assignments
            if a.shift_id == shift_id and a.date.isoformat() == day
        }


def solve_and_audit(
    request_dict: Json, *, time_limit_seconds: float = TIME_LIMIT_SECONDS, random_seed: int = SEED
) -> Result:
    """Solve, then require the auditor to accept the roster and agree with the metrics."""
    request = parse(request_dict)
    response = _solve(request, time_limit_seconds, random_seed)
    assert response.status == "completed", response.error
    assert response.solution is not None
    solution = response.solution
    report = audit(request, solution.assignments)
    assert [v.code for v in report.hard_violations] == [], report.hard_violations
    differences = compare_with_metrics(report, solution.metrics, solution.shortages)
    assert differences == [], differences
    return Result(solution, report)
