"""Generate small infeasible v1 requests, each with one planted cause, into ``infeasible/``.

One request per hard rule family of ``shiftsched.solving.diagnose.FAMILY_ORDER``, plus a holiday
shared by two unrelated employees. ``index.json`` lists, per file, the family and JSON
path (``field``) the diagnosis must rank first, words its message must contain
(``mentions``), and one sentence on why no roster exists (``summary``). The tests load
these files, and ``python datasets/planted.py`` rewrites them byte-identically.

Demand minimums never make a request infeasible (a missing head is a shortage), so every
planted conflict pairs a rule that *forces* work (a fixed assignment, a shift count
minimum) with a rule that *forbids* it. The forcing rules rank early in
``FAMILY_ORDER``; for a later family to rank first, its item must be the only one whose
single relaxation restores feasibility. Those instances force the conflict twice (two
fixed assignments, each enough on its own), so dropping one forcing item changes nothing
while dropping the planted item fixes the whole request.

Where one employee is at fault, a bystander ``e0`` comes first, so the paths checked
are ``employees[1]...``, not the trivial index 0; planted items of shared arrays
(holidays, transitions, pairings) are likewise not the first element.

The requests are put together by :mod:`shiftsched.data.request_body`, like every other request
of the tests and datasets.

Usage: ``python datasets/planted.py [output_dir]`` (default: ``infeasible/`` here).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from shiftsched.data import request_body as build

Json = dict[str, Any]

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "infeasible"
INDEX = "index.json"
START = "2026-03-02"  # a Monday
OPEN_MAX = 9  # a demand maximum no tiny instance reaches
DAY_HOURS = ("08:00", "16:00")  # 8 h
WEEKLY_HOURS = 8  # one 8-hour shift a week


# ------------------------------------------------------------------------- helpers


def date(index: int) -> str:
    """ISO date of day ``index`` of the period."""
    return build.day(START, index)


def shift(shift_id: str, days: int) -> Json:
    """An 8-hour shift with an open demand (0..OPEN_MAX) on every day. Its demand comes
    before its hours, as in the committed files (``build.shift`` puts the hours first)."""
    return {
        "id": shift_id,
        "name": shift_id,
        "staffing_demand": build.demand(days, 0, OPEN_MAX),
        "working_hours": {"start_time": DAY_HOURS[0], "end_time": DAY_HOURS[1]},
    }


def employee(employee_id: str, shift_ids: Iterable[str], **fields: Any) -> Json:
    return build.employee(employee_id, shift_ids, **fields)


def request(
    days: int,
    shifts: Sequence[Json],
    employees: Sequence[Json],
    *,
    duties: Sequence[Json] = (),
    holidays: Sequence[str] = (),
    **constraints: Any,
) -> Json:
    """A v1 request over ``days`` dates from START; keywords are ``constraints``."""
    return build.request_body(
        shifts,
        employees,
        start=START,
        days=days,
        holidays=holidays,
        duties=duties,
        constraints=constraints,
    )


def fix(day: int, shift_id: str = "S", duty_id: str | None = None) -> Json:
    return build.fixed(date(day), shift_id, duty_id)


def bystander(*shift_ids: str) -> Json:
    return employee("e0", shift_ids or ["S"])


class Planted(NamedTuple):
    """A request whose infeasibility is explained first by one item of one family."""

    family: str
    field: str
    mentions: tuple[str, ...]  # employee ids and dates the cause's message must name
    summary: str
    request: Json


# ------------------------------------------------------------------ planted instances


def planted_fixed_assignment() -> Planted:
    # The fixed night shift meets "at most 0 nights": both are single relaxations, the
    # fixed assignment wins the tie by family order.
    e1 = employee(
        "e1",
        ["S", "N"],
        fixed_assignments=[fix(0, "S"), fix(1, "N")],
        shift_count_limits=[{"shift_id": "N", "max": 0}],
    )
    return Planted(
        "fixed_assignment",
        "employees[1].fixed_assignments[1]",
        ("e1", date(1)),
        f"e1 is fixed to a night shift on {date(1)} but may work at most 0 night shifts.",
        request(2, [shift("S", 2), shift("N", 2)], [bystander(), e1]),
    )


def planted_shift_count_limit() -> Planted:
    # Two S shifts wanted in two days, but day 1 is a holiday: the holiday is a single relaxation
    # too, and ranks after the limit.
    e1 = employee(
        "e1",
        ["S", "N"],
        shift_count_limits=[{"shift_id": "N", "max": 2}, {"shift_id": "S", "min": 2}],
    )
    return Planted(
        "shift_count_limit",
        "employees[1].shift_count_limits[1]",
        ("e1",),
        "e1 must work shift S at least twice in two days, but the second day is a holiday.",
        request(2, [shift("S", 2), shift("N", 2)], [bystander(), e1], holidays=[date(1)]),
    )


def planted_pairing_exclude() -> Planted:
    # e0 and e1 are both fixed to S on two dates: no single fixed assignment explains.
    both_days = [fix(0), fix(1)]
    employees = [
        employee("e0", ["S"], fixed_assignments=both_days),
        employee("e1", ["S"], fixed_assignments=both_days),
    ]
    pairings = [
        {"employee_ids": ["e0", "e1"], "rule": "require"},
        {"employee_ids": ["e0", "e1"], "rule": "exclude"},
    ]
    return Planted(
        "pairing_exclude",
        "constraints.employee_pairings[1]",
        ("e0", "e1"),
        "e0 and e1 are both fixed to shift S on both days but may never work the same shift.",
        request(2, [shift("S", 2)], employees, employee_pairings=pairings),
    )


def planted_shift_transition() -> Planted:
    # A then B happens twice (days 0-1 and 2-3).
    e1 = employee(
        "e1", ["A", "B"], fixed_assignments=[fix(0, "A"), fix(1, "B"), fix(2, "A"), fix(3, "B")]
    )
    transitions = [
        {"from_shift_id": "B", "to_shift_id": "B", "rule": "forbid", "enforcement": "hard"},
        {"from_shift_id": "A", "to_shift_id": "B", "rule": "forbid", "enforcement": "hard"},
    ]
    return Planted(
        "shift_transition",
        "constraints.shift_transitions[1]",
        ("e1",),
        "e1 is fixed to shift A followed by shift B twice, and a hard rule forbids A then B.",
        request(
            4, [shift("A", 4), shift("B", 4)], [bystander("A"), e1], shift_transitions=transitions
        ),
    )


def planted_max_consecutive_days() -> Planted:
    # Four fixed days in a row under a cap of 1: every fixed day is part of two runs.
    e1 = employee("e1", ["S"], fixed_assignments=[fix(d) for d in range(4)])
    return Planted(
        "max_consecutive_days",
        "constraints.max_consecutive_working_days",
        ("e1",),
        "e1 is fixed on four days in a row, but nobody may work more than one day in a row.",
        request(4, [shift("S", 4)], [bystander(), e1], max_consecutive_working_days=1),
    )


def planted_days_per_month_max() -> Planted:
    e1 = employee(
        "e1",
        ["S"],
        fixed_assignments=[fix(d) for d in range(3)],
        working_days_per_month={"min": 0, "max": 1},
    )
    return Planted(
        "days_per_month_max",
        "employees[1].working_days_per_month",
        ("e1",),
        "e1 is fixed on three days of one month but may work at most one day a month.",
        request(3, [shift("S", 3)], [bystander(), e1]),
    )


def planted_weekly_hours() -> Planted:
    e1 = employee(
        "e1",
        ["S"],
        fixed_assignments=[fix(d) for d in range(3)],
        weekly_working_hours_limit={"hours": WEEKLY_HOURS, "enforcement": "hard"},
    )
    return Planted(
        "weekly_hours",
        "employees[1].weekly_working_hours_limit",
        ("e1",),
        "e1 is fixed to three 8-hour shifts in one week under a hard limit of 8 hours a week.",
        request(3, [shift("S", 3)], [bystander(), e1]),
    )


def planted_skill_support() -> Planted:
    # A beginner fixed on two dates and no senior anywhere.
    e1 = employee("e1", ["S"], skill_levels={"K": 2}, fixed_assignments=[fix(0), fix(1)])
    duties = [build.duty("K", {"S": [build.span(0, 9)] * 2})]
    return Planted(
        "skill_support",
        "constraints.skill_support",
        ("e1",),  # named through the fixed assignment it cannot hold together with
        "Beginner e1 is fixed on two days, hard skill support needs a senior beside every "
        "beginner, and there is no senior.",
        request(
            2,
            [shift("S", 2)],
            [bystander(), e1],
            duties=duties,
            skill_support={"scope": "shift", "enforcement": "hard"},
        ),
    )


def planted_available_weekday() -> Planted:
    # The period starts on a Monday; e1 works Mondays only but is fixed Tuesday and Wednesday.
    e1 = employee("e1", ["S"], available_weekdays=["mon"], fixed_assignments=[fix(1), fix(2)])
    return Planted(
        "available_weekday",
        "employees[1].available_weekdays",
        ("e1",),
        "e1 works Mondays only but is fixed on a Tuesday and a Wednesday.",
        request(3, [shift("S", 3)], [bystander(), e1]),
    )


def planted_assignable_shift() -> Planted:
    e1 = employee("e1", ["A"], fixed_assignments=[fix(0, "B"), fix(1, "B")])
    return Planted(
        "assignable_shift",
        "employees[1].assignable_shift_ids",
        ("e1",),
        "e1 may only work shift A but is fixed to shift B on two days.",
        request(2, [shift("A", 2), shift("B", 2)], [bystander("A"), e1]),
    )


def planted_skill_level() -> Planted:
    e1 = employee(
        "e1",
        ["S"],
        skill_levels={"L": 5, "K": 0},
        fixed_assignments=[fix(0, "S", "K"), fix(1, "S", "K")],
    )
    open_ = {"S": [build.span(0, 9)] * 2}
    duties = [build.duty("L", open_), build.duty("K", open_)]
    return Planted(
        "skill_level",
        "employees[1].skill_levels.K",
        ("e1", "K"),
        "e1 is fixed to duty K on two days but has skill level 0 (cannot hold it) for K.",
        request(2, [shift("S", 2)], [bystander(), e1], duties=duties),
    )


def planted_holiday() -> Planted:
    # Holiday is last in the family order, so it must be the only single relaxation: two
    # employees are fixed on it, and neither fixed assignment alone explains. Diagnosis
    # works per component of employees tied by exclude pairings; the harmless pairing
    # (their fixed shifts differ) keeps both in one component, see the next instance.
    employees = [
        employee("e0", ["S", "N"], fixed_assignments=[fix(0, "S")]),
        employee("e1", ["S", "N"], fixed_assignments=[fix(0, "N")]),
    ]
    return Planted(
        "holiday",
        "schedule_period.holidays[1]",
        (date(0),),
        f"e0 and e1 are both fixed to work on {date(0)}, which is a holiday.",
        request(
            2,
            [shift("S", 2), shift("N", 2)],
            employees,
            holidays=[date(1), date(0)],
            employee_pairings=[{"employee_ids": ["e0", "e1"], "rule": "exclude"}],
        ),
    )


def planted_holiday_across_components() -> Planted:
    # The same conflict for two unrelated employees: removing the holiday alone makes
    # the request feasible, fixing either employee alone does not.
    employees = [employee(e, ["S"], fixed_assignments=[fix(0)]) for e in ("e0", "e1")]
    return Planted(
        "holiday",
        "schedule_period.holidays[1]",
        (date(0),),
        f"Two unrelated employees, e0 and e1, are each fixed to work on {date(0)}, "
        "which is a holiday.",
        request(2, [shift("S", 2)], employees, holidays=[date(1), date(0)]),
    )


# File name (without .json) -> builder; one per family in FAMILY_ORDER, then the extra one.
PLANTED: dict[str, Callable[[], Planted]] = {
    "fixed_assignment": planted_fixed_assignment,
    "shift_count_limit": planted_shift_count_limit,
    "pairing_exclude": planted_pairing_exclude,
    "shift_transition": planted_shift_transition,
    "max_consecutive_days": planted_max_consecutive_days,
    "days_per_month_max": planted_days_per_month_max,
    "weekly_hours": planted_weekly_hours,
    "skill_support": planted_skill_support,
    "available_weekday": planted_available_weekday,
    "assignable_shift": planted_assignable_shift,
    "skill_level": planted_skill_level,
    "holiday": planted_holiday,
    "holiday_across_components": planted_holiday_across_components,
}


def render(body: Any) -> str:
    return json.dumps(body, indent=2, sort_keys=False) + "\n"


def write_all(directory: Path) -> list[Path]:
    """Write every planted request and ``index.json`` into ``directory``; returns the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    index = []
    for name, plant in PLANTED.items():
        planted = plant()
        path = directory / f"{name}.json"
        path.write_text(render(planted.request), encoding="utf-8")
        written.append(path)
        index.append(
            {
                "file": path.name,
                "family": planted.family,
                "field": planted.field,
                "mentions": list(planted.mentions),
                "summary": planted.summary,
            }
        )
    path = directory / INDEX
    path.write_text(render(index), encoding="utf-8")
    written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for path in write_all(Path(args[0]) if args else OUTPUT):
        print(path.name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
