"""An independent checker for Curtois & Qu rosters, written from the format alone.

A roster is ``{staff id: [shift id or "" for each day]}``. :func:`check` lists every
hard-rule violation (rule, staff, day) and computes the benchmark objective: weighted
unmet shift-on requests, weighted granted shift-off requests, and weighted heads under
and over each cover requirement. It shares no code with the model, so a test that
checks the solver's roster against it tests the model's semantics, not just its output.

Runs of worked days (and of days off) shorter than the minimum are violations only
between two days of the other kind inside the horizon: a run touching the first or last
day is exempt, as in the published model of the benchmark.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from shiftsched.formats.curtois import Instance

Roster = Mapping[str, Sequence[str]]
OFF = ""


@dataclass(frozen=True, slots=True)
class Violation:
    rule: str
    staff: str | None
    day: int | None  # the first day concerned, when there is one
    detail: str


@dataclass(frozen=True)
class CheckReport:
    violations: list[Violation]
    objective: int
    parts: dict[str, int] = field(default_factory=dict)  # shift_on, shift_off, under, over

    @property
    def feasible(self) -> bool:
        return not self.violations


def _runs(flags: Sequence[bool]) -> list[tuple[int, int, bool]]:
    """Maximal runs as (start, length, value)."""
    runs: list[tuple[int, int, bool]] = []
    for d, flag in enumerate(flags):
        if runs and runs[-1][2] == flag:
            start, length, _ = runs[-1]
            runs[-1] = (start, length + 1, flag)
        else:
            runs.append((d, 1, flag))
    return runs


def check(instance: Instance, roster: Roster) -> CheckReport:
    """Hard violations and the objective of ``roster`` for ``instance``."""
    violations: list[Violation] = []
    horizon = instance.horizon
    shifts = {s.id: s for s in instance.shifts}
    known_staff = {s.id for s in instance.staff}
    for sid in roster:
        if sid not in known_staff:
            violations.append(Violation("unknown_staff", sid, None, "not in the instance"))
    for staff in instance.staff:
        days = list(roster.get(staff.id, ()))
        if len(days) != horizon:
            violations.append(
                Violation("horizon", staff.id, None, f"{len(days)} days, expected {horizon}")
            )
            days = (days + [OFF] * horizon)[:horizon]
        for d, sh in enumerate(days):
            if sh != OFF and sh not in shifts:
                violations.append(Violation("unknown_shift", staff.id, d, sh))
                days[d] = OFF
        violations.extend(_staff_violations(instance, staff.id, days))
    parts = _objective(instance, roster)
    return CheckReport(violations, sum(parts.values()), parts)


def _staff_violations(instance: Instance, staff_id: str, days: list[str]) -> list[Violation]:
    staff = next(s for s in instance.staff if s.id == staff_id)
    shifts = {s.id: s for s in instance.shifts}
    horizon = instance.horizon
    found: list[Violation] = []
    worked = [sh != OFF for sh in days]
    for d in sorted(instance.days_off_of(staff_id)):
        if 0 <= d < horizon and worked[d]:
            found.append(Violation("day_off", staff_id, d, f"works {days[d]} on a day off"))
    limits = dict(staff.max_shifts)
    for sid in shifts:
        count = days.count(sid)
        if sid in limits and count > limits[sid]:
            found.append(
                Violation("max_shifts", staff_id, None, f"{count} x {sid} > {limits[sid]}")
            )
    minutes = sum(shifts[sh].minutes for sh in days if sh != OFF)
    if minutes > staff.max_total_minutes:
        found.append(
            Violation("max_total_minutes", staff_id, None, f"{minutes} > {staff.max_total_minutes}")
        )
    if minutes < staff.min_total_minutes:
        found.append(
            Violation("min_total_minutes", staff_id, None, f"{minutes} < {staff.min_total_minutes}")
        )
    for start, length, on in _runs(worked):
        inside = start > 0 and start + length < horizon
        if on and length > staff.max_consecutive_shifts:
            found.append(
                Violation(
                    "max_consecutive_shifts",
                    staff_id,
                    start,
                    f"{length} > {staff.max_consecutive_shifts}",
                )
            )
        if on and inside and length < staff.min_consecutive_shifts:
            found.append(
                Violation(
                    "min_consecutive_shifts",
                    staff_id,
                    start,
                    f"{length} < {staff.min_consecutive_shifts}",
                )
            )
        if not on and inside and length < staff.min_consecutive_days_off:
            found.append(
                Violation(
                    "min_consecutive_days_off",
                    staff_id,
                    start,
                    f"{length} < {staff.min_consecutive_days_off}",
                )
            )
    weekends = sum(
        1
        for saturday in range(5, horizon, 7)
        if worked[saturday] or (saturday + 1 < horizon and worked[saturday + 1])
    )
    if weekends > staff.max_weekends:
        found.append(
            Violation("max_weekends", staff_id, None, f"{weekends} > {staff.max_weekends}")
        )
    for d in range(horizon - 1):
        if days[d] != OFF and days[d + 1] in shifts[days[d]].cannot_follow:
            found.append(
                Violation("forbidden_succession", staff_id, d, f"{days[d]} then {days[d + 1]}")
            )
    return found


def _objective(instance: Instance, roster: Roster) -> dict[str, int]:
    def on(staff: str, day: int) -> str:
        days = roster.get(staff, ())
        return days[day] if 0 <= day < len(days) else OFF

    parts = {"shift_on": 0, "shift_off": 0, "under": 0, "over": 0}
    for r in instance.shift_on:
        if on(r.staff, r.day) != r.shift:
            parts["shift_on"] += r.weight
    for r in instance.shift_off:
        if on(r.staff, r.day) == r.shift:
            parts["shift_off"] += r.weight
    for c in instance.cover:
        heads = sum(1 for s in instance.staff if on(s.id, c.day) == c.shift)
        parts["under"] += max(0, c.requirement - heads) * c.under_weight
        parts["over"] += max(0, heads - c.requirement) * c.over_weight
    return parts
