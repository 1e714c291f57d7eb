"""Pydantic models of the v1 scheduling contract.

Field names, types, ranges and defaults follow the v1 interface exactly; every object
rejects unknown properties (``extra="forbid"``). Rules that relate several fields
(lengths that depend on the period, references between ids, min <= max) are not checked
here but in :mod:`shiftsched.contract.parse`, so that one pass reports every fault with its JSON
path.

Dates are exposed as :class:`datetime.date` but accepted only as ``YYYY-MM-DD`` strings,
and times only as ``HH:MM``; pydantic's lenient parsing (timestamps, other formats) is
switched off on purpose so that a request means one thing. For the same reason integers
and booleans are strict: ``"1"``, ``1.0`` or ``"yes"`` are rejected, not coerced, and
ids are compared in Unicode normalisation form C: ``"é"`` sent precomposed and sent as
``e`` plus a combining accent are one id (one shift, one reference), as a reader sees it.

Every date sent lies in :data:`MIN_DATE` .. :data:`MAX_DATE` (years 1900 through 2199),
so the calendar arithmetic around a period (a year of history before it, the day after
it) never leaves the dates Python can represent.

Every integer has an upper bound (docs/semantics.md, "Bounds of numbers"): counts at most
:data:`MAX_COUNT`, penalty weights at most :data:`MAX_PENALTY_WEIGHT`. The solver works
in 64-bit integers and refuses a model whose objective could overflow them, so without
bounds a staffing minimum of 10^18 would pass validation and fail only in the solver.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, StrictBool
from pydantic_core import PydanticCustomError

DATE_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TIME_PATTERN = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")

#: The first and last date of the contract. Every date field is bounded to these years,
#: so that the arithmetic around a period (the 366 days of history read before it, the
#: day before and after it) always has room on both sides.
MIN_DATE = dt.date(1900, 1, 1)
MAX_DATE = dt.date(2199, 12, 31)
#: The pydantic error type of a date outside MIN_DATE..MAX_DATE (code out_of_range).
DATE_OUT_OF_RANGE = "date_out_of_range"
#: The most days one period may have: a year plus a margin. A longer horizon is planned
#: period by period, each with the history of the ones before it (shiftsched.contract.history).
MAX_PERIOD_DAYS = 400

MAX_SHIFTS = 12
MAX_DUTIES = 15
MAX_EMPLOYEES = 50
MAX_FAIRNESS_GROUPS = 4
MAX_SKILL_LEVEL = 10
MAX_WEEKLY_HOURS = 168
DEFAULT_SOLVER_TIMEOUT_SECONDS = 30
MAX_SOLVER_TIMEOUT_SECONDS = 300
#: Upper bound of every count: heads in a demand, days, shift occurrences. The objective's
#: largest term, 10,000 per missing head, times this, times the demand cells a 1 MB body
#: can hold (under 70,000) stays below 10^13, far inside the solver's 64-bit arithmetic
#: and the 2^53 a JSON number keeps exactly.
MAX_COUNT = 10_000
#: Upper bound of a fairness group's penalty_weight: per unit of excess, which is at most
#: the assignments of a period (under 4 x 10^6), so a group's term stays below 10^13.
MAX_PENALTY_WEIGHT = 1_000_000

WEEKDAYS: tuple[str, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _parse_date(value: Any) -> Any:
    """A date sent as YYYY-MM-DD inside MIN_DATE..MAX_DATE. A ``datetime.date`` is one
    built in Python (the engine's own answers are): it is taken as it is, and the
    arithmetic around a period guards itself against the ends of the calendar."""
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    if not isinstance(value, str) or not DATE_PATTERN.match(value):
        raise ValueError("must be a calendar date YYYY-MM-DD")
    try:
        day = dt.date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"not a valid calendar date: {exc}") from None
    if not MIN_DATE <= day <= MAX_DATE:
        raise PydanticCustomError(
            DATE_OUT_OF_RANGE,
            "{date} is outside the dates this service plans, {first} .. {last}",
            {"date": day.isoformat(), "first": MIN_DATE.isoformat(), "last": MAX_DATE.isoformat()},
        )
    return day


def _nfc(value: Any) -> Any:
    """An id in Unicode normalisation form C; anything else is left to the type check."""
    return unicodedata.normalize("NFC", value) if isinstance(value, str) else value


def _distinct_nfc_keys(value: Any) -> Any:
    """A map keyed by ids must not name one id twice in two spellings (they would merge)."""
    if isinstance(value, dict):
        seen: dict[str, str] = {}
        for key in value:
            if isinstance(key, str):
                same = seen.setdefault(unicodedata.normalize("NFC", key), key)
                if same != key:
                    raise ValueError(f"keys {same!r} and {key!r} are one id once normalised")
    return value


def _check_time(value: Any) -> Any:
    if not isinstance(value, str) or not TIME_PATTERN.match(value):
        raise ValueError("must be a 24-hour time HH:MM")
    return value


Date = Annotated[
    dt.date,
    BeforeValidator(_parse_date),
    PlainSerializer(lambda d: d.isoformat(), return_type=str),
    Field(
        json_schema_extra={
            "type": "string",
            "pattern": DATE_PATTERN.pattern,
            "description": f"A date YYYY-MM-DD, {MIN_DATE.isoformat()} .. {MAX_DATE.isoformat()}",
        }
    ),
]
Time = Annotated[str, BeforeValidator(_check_time), Field(pattern=TIME_PATTERN.pattern)]
Id = Annotated[str, Field(min_length=1, max_length=128), BeforeValidator(_nfc)]
#: An id as a roster names it (no length rule: it is also an answer's field).
IdRef = Annotated[str, BeforeValidator(_nfc)]
Name = Annotated[str, Field(min_length=1, max_length=200)]
NonNegativeInt = Annotated[int, Field(ge=0, strict=True)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT, strict=True)]
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
Enforcement = Literal["hard", "soft"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# --------------------------------------------------------------------------- request


class Range(_Model):
    """Inclusive integer range; ``min <= max`` is checked by the rules."""

    min: Count
    max: Count


class SchedulePeriod(_Model):
    start_date: Date
    end_date: Date
    holidays: list[Date] = Field(default_factory=list)
    timezone: Annotated[str, Field(min_length=1)] = "UTC"


class WorkingHours(_Model):
    start_time: Time
    end_time: Time


class Shift(_Model):
    id: Id
    name: Name
    working_hours: WorkingHours | None = None
    staffing_demand: Annotated[list[Range], Field(min_length=1)]
    manager_demand: list[Range] | None = None


class Duty(_Model):
    id: Id
    name: Name
    staffing_demand_by_shift: Annotated[
        dict[Id, Annotated[list[Range], Field(min_length=1)]], BeforeValidator(_distinct_nfc_keys)
    ]


class DayOffPreference(_Model):
    type: Literal["day_off"]
    date: Date


class PreferredShiftPreference(_Model):
    type: Literal["preferred_shift"]
    date: Date
    shift_id: Id


class AvoidedShiftPreference(_Model):
    type: Literal["avoided_shift"]
    date: Date
    shift_id: Id


Preference = Annotated[
    DayOffPreference | PreferredShiftPreference | AvoidedShiftPreference,
    Field(discriminator="type"),
]


class FixedAssignment(_Model):
    date: Date
    shift_id: Id
    duty_id: Id | None = None


class ShiftCountLimit(_Model):
    """Hard bounds on how often an employee works one shift over the period."""

    shift_id: Id
    min: Count | None = None
    max: Count | None = None


class WeeklyWorkingHoursLimit(_Model):
    hours: Annotated[int, Field(gt=0, le=MAX_WEEKLY_HOURS, strict=True)]
    enforcement: Enforcement = "hard"


class Employee(_Model):
    id: Id
    name: Annotated[str, Field(max_length=200)] | None = None
    is_manager: StrictBool = False
    assignable_shift_ids: Annotated[list[Id], Field(min_length=1)]
    skill_levels: Annotated[
        dict[Id, Annotated[int, Field(ge=0, le=MAX_SKILL_LEVEL, strict=True)]],
        BeforeValidator(_distinct_nfc_keys),
    ] = Field(default_factory=dict)
    preferences: list[Preference] = Field(default_factory=list)
    fixed_assignments: list[FixedAssignment] = Field(default_factory=list)
    working_days_per_month: Range | None = None
    working_days_per_week: Range | None = None
    available_weekdays: Annotated[list[Weekday], Field(min_length=1, max_length=7)] | None = None
    shift_count_limits: list[ShiftCountLimit] = Field(default_factory=list)
    weekly_working_hours_limit: WeeklyWorkingHoursLimit | None = None


class ShiftTransition(_Model):
    from_shift_id: Id
    to_shift_id: Id
    rule: Literal["forbid", "require"]
    enforcement: Enforcement = "hard"


class EmployeePairing(_Model):
    employee_ids: Annotated[list[Id], Field(min_length=2)]
    rule: Literal["exclude", "require"]


class SkillSupport(_Model):
    scope: Literal["shift", "duty"]
    enforcement: Enforcement = "soft"


class CrossShiftDemand(_Model):
    date: Date
    shift_ids: Annotated[list[Id], Field(min_length=1)]
    duty_id: Id | None = None
    managers_only: StrictBool = False
    min: Count | None = None
    max: Count | None = None


class FairnessGroup(_Model):
    target_shift_ids: Annotated[list[Id], Field(min_length=1)]
    policy: Literal["proportional", "equal"] = "proportional"
    penalty_weight: Annotated[int, Field(gt=0, le=MAX_PENALTY_WEIGHT, strict=True)] | None = None


class Constraints(_Model):
    shift_transitions: list[ShiftTransition] = Field(default_factory=list)
    max_consecutive_working_days: Annotated[int, Field(gt=0, le=MAX_COUNT, strict=True)] | None = (
        None
    )
    employee_pairings: list[EmployeePairing] = Field(default_factory=list)
    skill_support: SkillSupport | None = None
    cross_shift_demands: list[CrossShiftDemand] = Field(default_factory=list)
    fairness_groups: Annotated[list[FairnessGroup], Field(max_length=MAX_FAIRNESS_GROUPS)] = Field(
        default_factory=list
    )


class Options(_Model):
    solver_timeout_seconds: Annotated[
        int, Field(ge=1, le=MAX_SOLVER_TIMEOUT_SECONDS, strict=True)
    ] = DEFAULT_SOLVER_TIMEOUT_SECONDS


class SolveRequest(_Model):
    """Body of POST /solve and POST /solve/validate."""

    schedule_period: SchedulePeriod
    shifts: Annotated[list[Shift], Field(min_length=1, max_length=MAX_SHIFTS)]
    duties: Annotated[list[Duty], Field(max_length=MAX_DUTIES)] = Field(default_factory=list)
    employees: Annotated[list[Employee], Field(min_length=1, max_length=MAX_EMPLOYEES)]
    constraints: Constraints = Field(default_factory=Constraints)
    options: Options = Field(default_factory=Options)


# -------------------------------------------------------------------------- response


class Assignment(_Model):
    employee_id: IdRef
    date: Date
    shift_id: IdRef
    duty_id: IdRef | None = None


class SoftConstraintViolation(_Model):
    name: str
    penalty: float
    violated_by: float | None = None


class Shortage(_Model):
    """A demand minimum that the roster could not meet (understaffing is not an error)."""

    kind: Literal["staffing", "manager", "duty", "cross_shift"]
    date: Date
    shift_id: str | None = None
    shift_ids: list[str] | None = None
    duty_id: str | None = None
    required: int
    assigned: int
    missing: int


class SolverInfo(_Model):
    """What produced the result, so that a figure can be reproduced."""

    ortools_version: str
    num_workers: int
    random_seed: int
    time_limit_seconds: float
    warm_start: bool = False
    cp_sat_status: str
    time_to_first_solution_seconds: float | None = None  # from the start of the call
    solutions_found: int = 0
    # Who proved best_bound: "cp_sat" (the full model), "decomposition" (the Lagrangian
    # bound of the per-employee decomposition), "lagrangian" (the same bound by
    # subgradient) or "capacity" (staff against demand).
    bound_source: Literal["cp_sat", "decomposition", "lagrangian", "capacity"] | None = None
    # True when the caller asked the search to stop (a queued job's client, with
    # DELETE /solve/jobs/{id}) before it ended: the roster is the best found by then.
    stopped_on_request: bool | None = None
    # What ended the search: "proof" (optimal, or a roster that meets the bound),
    # "time_limit", "work_limit" (a deterministic solve's budget of work: the same roster
    # on any machine) or "request" (stopped by the caller).
    stopped_by: Literal["proof", "time_limit", "work_limit", "request"] | None = None
    deterministic: bool | None = None  # True: limited by work, not by the clock


class Metrics(_Model):
    solver_runtime_seconds: Annotated[float, Field(ge=0)]
    objective_value: float | None = None
    soft_constraint_violations: list[SoftConstraintViolation] = Field(default_factory=list)
    status: Literal["optimal", "feasible"] | None = None
    best_bound: float | None = None
    gap: float | None = None
    solver: SolverInfo | None = None


class Solution(_Model):
    assignments: list[Assignment]
    metrics: Metrics
    shortages: list[Shortage] = Field(default_factory=list)


class Cause(_Model):
    cause_type: str
    field: str
    message: str


class Diagnosis(_Model):
    status: Literal["identified", "no_cause_identified"]
    causes: list[Cause]
    probes: NonNegativeInt


class ErrorInfo(_Model):
    code: str
    message: str | None = None
    solver_status: str | None = None
    diagnosis: Diagnosis | None = None


class Usage(_Model):
    units_consumed: NonNegativeInt
    units_remaining: NonNegativeInt


class SolveResponse(_Model):
    job_id: str
    status: Literal["completed", "running", "failed"]
    solution: Solution | None
    usage: Usage | None = None
    error: ErrorInfo | None = None


class Hint(_Model):
    field: str
    hint: str


class ValidateResponse(_Model):
    valid: Literal[True]
    schedule_days: Annotated[int, Field(gt=0)]
    shift_count: NonNegativeInt
    duty_count: NonNegativeInt
    employee_count: NonNegativeInt
    hints: list[Hint] = Field(default_factory=list)


class UsageResponse(_Model):
    free_quota_remaining: NonNegativeInt
    balance_units: NonNegativeInt
    available_units: NonNegativeInt


class FieldErrorModel(_Model):
    """One fault in a request: where (JSON path), what, and a stable snake_case code."""

    path: list[str | int]
    message: str
    code: str | None = None


class ProblemDetails(_Model):
    type: str
    title: str
    status: Annotated[int, Field(ge=400, le=599)]
    detail: str | None = None
    instance: str | None = None
    request_id: str | None = None
    errors: list[FieldErrorModel] | None = None
    # How many faults there were when errors[] lists only the first of them (a 422 lists
    # at most 100, so its answer stays small whatever the body holds); absent otherwise.
    errors_total: Annotated[int, Field(ge=0)] | None = None
    solver_status: str | None = None
    diagnosis: Diagnosis | None = None
    job_id: str | None = None  # 422 solver-infeasible of a call kept as a job: its record
    accepts: list[dict[str, Any]] | None = None
