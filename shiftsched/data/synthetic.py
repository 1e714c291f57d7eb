"""Seeded synthetic v1 requests of any size, for benchmarks that sweep problem size.

The realistic datasets (``datasets/*.json``) are fixed businesses; a benchmark that
measures how solve time grows with size needs the same kind of request at any shape
``employees x shifts x duties x days``. :func:`synthetic_request` builds one as a plain
dict (a v1 request body), deterministically from its seed: the same arguments always
give byte-identical JSON, so a benchmark result names its instance by parameters alone.

What makes the requests realistic rather than random:

- Shifts are 8-hour blocks staggered around the clock from 06:00 (a night shift runs
  past midnight once there are three or more); employees work a band of neighbouring
  shifts, as people do.
- Demand is sized to capacity: each shift's daily minimum is the staff time that its
  eligible employees can give it (about five days in seven for a full-timer, three for a
  part-timer, at 80 % load), lower at weekends, so a good roster meets nearly all of it.
  Duty minimums split each shift's heads over the duties defined on it.
- Every hard input leaves the hard rules satisfiable: at most two fixed assignments per
  employee, spaced apart, on an available non-holiday date and an assignable shift (with
  a duty the employee holds); count maxima above the fixed count, count minimums of one
  only over two weeks or more; hard transitions only forbid (never require); exclude
  pairings only between employees without fixes; monthly maxima and hard weekly hours
  above what the fixes need.

``mix`` chooses the constraint families on top of demand (see :data:`MIXES`):
``coverage`` is demand alone, ``workload``, ``sequences``, ``teams`` and ``fairness``
each add one area, ``core`` has the families most rostering tools share (for a
side-by-side with one of them), and ``all`` has every family the contract defines (named as in
:data:`shiftsched.solving.model.registry.FAMILIES`). Each family draws
from its own random stream, so the same seed gives the same demand in every mix and a
mix differs from another only by its families.
"""

from __future__ import annotations

import datetime as dt

from shiftsched.contract.v1 import MAX_DUTIES, MAX_EMPLOYEES, MAX_SHIFTS
from shiftsched.data import request_body as build
from shiftsched.data.synthetic_demand import DemandDraws
from shiftsched.data.synthetic_people import PeopleDraws
from shiftsched.data.synthetic_rules import RuleDraws
from shiftsched.data.synthetic_staff import Json

#: Families each mix adds to demand (staffing demand, and duty demand when there are duties).
WORKLOAD = frozenset(
    {
        "holidays",
        "available_weekdays",
        "fixed_assignments",
        "shift_count_limits",
        "weekly_working_hours_limit",
        "working_days_per_week",
        "working_days_per_month",
    }
)
SEQUENCES = frozenset({"max_consecutive_working_days", "shift_transitions"})
TEAMS = frozenset(
    {"skill_levels", "skill_support", "employee_pairings", "manager_demand", "cross_shift_demands"}
)
FAIRNESS = frozenset({"fairness_groups", "preferences"})
#: What most rostering tools model: demand, the calendar, fixed assignments, worked days
#: per week and month, the consecutive-days cap, transitions and preferences. No duties'
#: rules (skills), manager or cross-shift demand, pairings, hours, shift counts or
#: fairness: a side-by-side with another solver that lacks those can take it whole.
CORE = (
    frozenset(
        {
            "holidays",
            "available_weekdays",
            "fixed_assignments",
            "working_days_per_week",
            "working_days_per_month",
            "preferences",
        }
    )
    | SEQUENCES
)
MIXES: dict[str, frozenset[str]] = {
    "coverage": frozenset(),
    "workload": WORKLOAD,
    "sequences": SEQUENCES,
    "teams": TEAMS,
    "fairness": FAIRNESS,
    "core": CORE,
    "all": WORKLOAD | SEQUENCES | TEAMS | FAIRNESS,
}

START_DATE = dt.date(2026, 6, 1)  # a Monday


def synthetic_request(
    employees: int,
    shifts: int,
    duties: int,
    days: int,
    *,
    seed: int = 0,
    mix: str = "all",
    start: dt.date = START_DATE,
) -> Json:
    """A valid v1 request body of shape ``employees x shifts x duties x days``.

    Deterministic in its arguments. Raises ValueError for a shape outside the contract
    limits or an unknown ``mix``.
    """
    _check_shape(employees, shifts, duties, days)
    if mix not in MIXES:
        raise ValueError(f"unknown mix {mix!r}; one of {sorted(MIXES)}")
    return _Builder(employees, shifts, duties, days, seed, MIXES[mix], start).body()


def _check_shape(employees: int, shifts: int, duties: int, days: int) -> None:
    if not 1 <= employees <= MAX_EMPLOYEES:
        raise ValueError(f"employees must be 1..{MAX_EMPLOYEES}, not {employees}")
    if not 1 <= shifts <= MAX_SHIFTS:
        raise ValueError(f"shifts must be 1..{MAX_SHIFTS}, not {shifts}")
    if not 0 <= duties <= MAX_DUTIES:
        raise ValueError(f"duties must be 0..{MAX_DUTIES}, not {duties}")
    if days < 1:
        raise ValueError(f"days must be at least 1, not {days}")


class _Builder(DemandDraws, PeopleDraws, RuleDraws):
    """Draws one request; every family has its own random stream (see the module doc)."""

    # ----------------------------------------------------------------------- body

    def body(self) -> Json:
        staffing = self.staffing_mins()
        fixes = self.fixed_assignments()
        rng = self.rng("employees")
        employees = [self.employee_json(e, fixes.get(e, []), rng) for e in range(self.n_employees)]
        constraints: Json = {}
        if self.has("shift_transitions"):
            constraints["shift_transitions"] = self.transitions()
        if self.has("max_consecutive_working_days"):
            constraints["max_consecutive_working_days"] = 5 + self.seed % 2
        teams = self.rng("teams")
        if self.has("employee_pairings"):
            constraints["employee_pairings"] = self.pairings(fixes, teams)
        if self.has("skill_support"):
            scope = "duty" if self.n_duties else "shift"
            constraints["skill_support"] = {"scope": scope, "enforcement": "soft"}
        if self.has("cross_shift_demands"):
            constraints["cross_shift_demands"] = self.cross_shift(staffing, teams)
        if self.has("fairness_groups"):
            constraints["fairness_groups"] = self.fairness_groups()
        shifts = self.shifts_json(staffing)
        return build.request_body(
            shifts,
            employees,
            start=self.dates[0],
            end=self.dates[-1],
            holidays=[d.isoformat() for d in self.holidays],
            timezone="Europe/Berlin",
            duties=self.duties_json(staffing) if self.n_duties else None,
            constraints=constraints,
            options={"solver_timeout_seconds": 30},
        )
