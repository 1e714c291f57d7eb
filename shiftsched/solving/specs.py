"""The parts of the internal problem: frozen dataclasses with integer indices.

Shifts with their per-day demand, duties, employees with their options per day and their
own rules, and the rules that tie employees together; :class:`~shiftsched.solving.problem.Problem`
holds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field  # EmployeeSpec has a member named field
from typing import TYPE_CHECKING, Literal

from shiftsched.solving import weights

if TYPE_CHECKING:
    from shiftsched.contract.horizon import Bucket


@dataclass(frozen=True, slots=True)
class Demand:
    """Per-day headcount bounds; a day with ``max`` None has no upper bound."""

    mins: tuple[int, ...]
    maxs: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class ShiftSpec:
    id: str
    name: str
    minutes: int | None
    staffing: Demand
    managers: Demand | None = None


@dataclass(frozen=True, slots=True)
class DutySpec:
    id: str
    name: str
    demand: Mapping[int, Demand]  # shift index -> per-day demand; the duty exists only there


@dataclass(frozen=True, slots=True)
class FixedSpec:
    day: int
    shift: int
    duty: int | None
    field: str


@dataclass(frozen=True, slots=True)
class Gate:
    """An eligibility rule that would forbid an option, kept open for diagnosis."""

    family: str  # assignable_shift | available_weekday | holiday | skill_level
    field: str  # JSON path of the input item, e.g. employees[3].available_weekdays


@dataclass(frozen=True, slots=True)
class PreferenceSpec:
    kind: Literal["day_off", "preferred_shift", "avoided_shift"]
    day: int
    shift: int | None
    name: str  # the violation name, e.g. preference:day_off:e7:2026-03-04
    weight: int = weights.PREFERENCE  # per unmet preference; tunable from Python only


@dataclass(frozen=True, slots=True)
class CountLimitSpec:
    shift: int
    min: int | None
    max: int | None
    field: str


@dataclass(frozen=True, slots=True)
class Seam:
    """What the days before the period leave to one employee's rules (shiftsched.contract.history).

    Counters, not cells: each family reads the one it needs at the start of the period.
    The week and month are the ones the start date falls in; their days before the
    start count only as far as the history covers them (``Horizon.covered_before``).
    """

    worked_run: int = 0  # worked dates in a row, ending the day before the start
    last_shift: int | None = None  # the shift worked the day before the start
    week_days: int = 0  # worked dates of the start's ISO week, before the start
    week_minutes: int = 0  # minutes worked in that week before the start
    month_days: int = 0  # worked dates of the start's month, before the start
    past: Mapping[int, int] = dataclass_field(default_factory=dict)  # shift -> count (fairness)
    # Benchmark counters (shiftsched.formats.inrc2_problem, docs/inrc2.md); 0 leaves v1 as it was.
    shift_run: int = 0  # days in a row of ``last_shift``, ending the day before the start
    off_run: int = 0  # days off in a row, ending the day before the start
    days_worked: int = 0  # worked days before the period that count towards a total
    weekends_worked: int = 0  # worked weekends before the period that count towards a cap
    minutes_worked: int = 0  # worked minutes before the period that count towards a total


NO_SEAM = Seam()


@dataclass(frozen=True, slots=True)
class RunBounds:
    """Soft bounds on a run of consecutive days (imported benchmarks,
    shiftsched.solving.model.runs).

    A run that ends shorter than ``low`` costs ``weight`` per missing day; each day on
    which a run is longer than ``high`` costs ``weight``.
    """

    low: int
    high: int
    weight: int


@dataclass(frozen=True, slots=True)
class SoftRange:
    """A soft range on a count: ``weight`` per unit below ``low`` or above ``high``."""

    low: int
    high: int
    weight: int


@dataclass(frozen=True, slots=True)
class ShiftTotal:
    """A soft range on how often one shift is worked, ``before`` the period included."""

    shift: int  # shift index
    before: int
    bounds: SoftRange


@dataclass(frozen=True, slots=True)
class EmployeeSpec:
    id: str
    is_manager: bool
    assignable: frozenset[int]
    skills: Mapping[int, int]  # duty index -> level (absent: no level)
    day_options: tuple[tuple[int, ...], ...]  # per day: shift indices the employee may work
    duty_options: Mapping[int, tuple[int, ...]]  # shift index -> duty indices allowed on it
    fixed: tuple[FixedSpec, ...] = ()
    preferences: tuple[PreferenceSpec, ...] = ()
    days_per_month: tuple[int, int] | None = None
    days_per_week: tuple[int, int] | None = None
    count_limits: tuple[CountLimitSpec, ...] = ()
    weekly_hours: tuple[int, bool] | None = None  # (hours, hard)
    field: str = ""
    seam: Seam = NO_SEAM  # what came before the period (shiftsched.contract.history)
    # Day indices the employee is absent (a plan's or re-plan's absences): they lower the
    # day minimums pro rata (docs/semantics.md, "Planning with absences").
    absent: frozenset[int] = frozenset()
    # Benchmark rules (shiftsched.formats); None / 0 leaves the rule out, as v1 requests do.
    total_minutes: tuple[int, int] | None = None  # hard (min, max) worked minutes, period
    consecutive_shifts: tuple[int, int | None] | None = None  # hard (min, max) run of work
    min_days_off_run: int = 0  # hard: a run of days off between worked days is this long
    max_weekends: int | None = None  # hard: weekends with a worked Saturday or Sunday
    # Soft benchmark rules (shiftsched.solving.model.runs, shiftsched.solving.model.counts); absent
    # by default.
    work_runs: RunBounds | None = None  # runs of worked days, the seam's run included
    off_runs: RunBounds | None = None  # runs of days off, the seam's run included
    shift_runs: tuple[tuple[int, RunBounds], ...] = ()  # (shift, bounds on its runs)
    complete_weekends: int = 0  # weight per weekend worked on one of its two days only
    total_days: SoftRange | None = None  # seam.days_worked + worked days of the period
    weekend_cap: SoftRange | None = None  # seam.weekends_worked + worked weekends (high)
    # seam.minutes_worked + worked minutes, in minutes; the weight is per hour started
    total_hours: SoftRange | None = None
    shift_totals: tuple[ShiftTotal, ...] = ()  # horizon shift counts (model.counts)
    # Diagnostic problems only: options that eligibility rules would forbid, and which.
    day_gates: Mapping[tuple[int, int], tuple[Gate, ...]] = dataclass_field(default_factory=dict)
    duty_gates: Mapping[tuple[int, int], Gate] = dataclass_field(default_factory=dict)

    def owed(self, bucket: Bucket, minimum: int) -> int:
        """``minimum`` prorated to the dates of ``bucket`` the employee is not absent."""
        absent = sum(1 for d in bucket.days if d in self.absent) if self.absent else 0
        return bucket.prorate_min(minimum, absent)

    def top_level(self) -> int | None:
        """Highest skill level over all duties (scope ``shift`` of skill support)."""
        return max(self.skills.values()) if self.skills else None


@dataclass(frozen=True, slots=True)
class TransitionSpec:
    index: int
    from_shift: int
    to_shift: int
    forbid: bool
    hard: bool
    name: str  # shift_transition:<rule>:<from>:<to>


@dataclass(frozen=True, slots=True)
class PairingSpec:
    index: int
    employees: tuple[int, ...]
    exclude: bool


@dataclass(frozen=True, slots=True)
class CrossShiftSpec:
    index: int
    day: int
    shifts: tuple[int, ...]
    duty: int | None
    managers_only: bool
    min: int
    max: int | None


@dataclass(frozen=True, slots=True)
class FairnessSpec:
    index: int
    shifts: frozenset[int]
    equal: bool
    weight: int


@dataclass(frozen=True, slots=True)
class CoverSpec:
    """A weighted headcount target: each head below or above it costs its own weight."""

    day: int
    shift: int
    target: int
    under_weight: int
    over_weight: int
    duty: int | None = None  # count the holders of this duty on the shift, not all heads


@dataclass(frozen=True, slots=True)
class SkillSupportSpec:
    by_duty: bool
    hard: bool
