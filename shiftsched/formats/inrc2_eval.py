"""The INRC-II cost function, computed the way the competition's validator computes it.

The validator joins the weekly solutions into one roster over the horizon and prices it
from the initial history: hard violations by type (H1-H4) and soft costs by type (S1-S7).
Runs of consecutive days are where the details lie (docs/inrc2.md, "Cost function"):

- a run open at the start continues the history's run: its earlier days count towards the
  run's length, but only the days inside the horizon can exceed a maximum, since the
  earlier excess was paid before;
- a run that ends (the next day is of the other kind) is checked against its minimum,
  including a history run that the first day ends;
- a run still open on the last day is checked against its maximum only: whether it
  reaches its minimum is decided by days not planned yet.

:func:`next_history` gives the state a week leaves for the next one, as the competition's
simulator writes it. Pricing each week alone from the history the previous weeks left
gives the same costs as pricing the horizon at once, which the tests check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from shiftsched.formats.inrc2 import (
    ANY,
    FormatError,
    History,
    NurseHistory,
    Scenario,
    Solution,
    WeekData,
)

HARD = ("min_coverage", "required_skill", "succession", "single_assignment")  # H2, H4, H3, H1
SOFT = (  # S1 ... S7, in the competition's order
    "optimal_coverage",
    "consecutive",
    "days_off",
    "preferences",
    "complete_weekends",
    "total_assignments",
    "working_weekends",
)
# Cost of one unit of violation. "consecutive" (S2) has two weights: a run of one shift
# type and a run of working days.
WEIGHT_OPTIMAL_COVERAGE = 30  # per nurse short of the optimum
WEIGHT_CONSECUTIVE_SHIFT = 15  # per day a run of one shift type is too short or too long
WEIGHT_CONSECUTIVE_WORK = 30  # per day a run of working days is too short or too long
WEIGHT_DAYS_OFF = 30  # per day a run of days off is too short or too long
WEIGHT_PREFERENCE = 10  # per shift-off request not granted
WEIGHT_COMPLETE_WEEKEND = 30  # per weekend worked on one day only
WEIGHT_TOTAL_ASSIGNMENTS = 20  # per assignment below the minimum or above the maximum
WEIGHT_WORKING_WEEKENDS = 30  # per working weekend above the maximum
DAYS_PER_WEEK = 7
SATURDAY, SUNDAY = 5, 6

Day = tuple[str, str] | None  # (shift type, skill) worked, or None for a day off
Roster = Mapping[str, Sequence[Day]]  # nurse -> one entry per day


@dataclass(frozen=True)
class Evaluation:
    hard: dict[str, int]  # violations per HARD type
    costs: dict[str, int]  # weighted cost per SOFT type

    @property
    def total(self) -> int:
        return sum(self.costs.values())

    @property
    def feasible(self) -> bool:
        return not any(self.hard.values())


def week_roster(scenario: Scenario, solution: Solution) -> tuple[dict[str, list[Day]], int]:
    """One week's roster from its solution, and how many assignments repeat a nurse's day.

    A repeated (nurse, day) breaks H1; the first assignment read is the one kept.
    """
    roster: dict[str, list[Day]] = {n.name: [None] * DAYS_PER_WEEK for n in scenario.nurses}
    shifts = {s.name for s in scenario.shift_types}
    repeated = 0
    for a in solution.assignments:
        for known, value, what in (
            (roster, a.nurse, "nurse"),
            (shifts, a.shift, "shift type"),
            (scenario.skills, a.skill, "skill"),
        ):
            if value not in known:
                raise FormatError(solution.source, a.line, f"unknown {what} {value!r}")
        if roster[a.nurse][a.day] is not None:
            repeated += 1
        else:
            roster[a.nurse][a.day] = (a.shift, a.skill)
    return roster, repeated


def horizon_roster(
    scenario: Scenario, solutions: Sequence[Solution]
) -> tuple[dict[str, list[Day]], int]:
    """The weekly solutions joined in order, and the repeated (nurse, day) assignments."""
    joined: dict[str, list[Day]] = {n.name: [] for n in scenario.nurses}
    repeated = 0
    for solution in solutions:
        week, extra = week_roster(scenario, solution)
        repeated += extra
        for nurse, days in week.items():
            joined[nurse].extend(days)
    return joined, repeated


def grid(scenario: Scenario, roster: Roster) -> dict[str, str]:
    """Each nurse's days as the validator prints them: a shift's initial, '-' when off."""
    return {
        n.name: "".join("-" if d is None else d[0][0] for d in roster[n.name])
        for n in scenario.nurses
    }


def evaluate(
    scenario: Scenario,
    history: History,
    weeks: Sequence[WeekData],
    solutions: Sequence[Solution],
) -> Evaluation:
    """The validator's figures for a whole sequence: one solution per week data file."""
    if len(weeks) != len(solutions):
        raise ValueError(f"{len(weeks)} weeks of data but {len(solutions)} solutions")
    for stage, solution in enumerate(solutions):
        if (solution.week, solution.scenario) != (history.week + stage, scenario.name):
            raise FormatError(
                solution.source,
                None,
                f"solves week {solution.week} of {solution.scenario!r}, "
                f"expected week {history.week + stage} of {scenario.name!r}",
            )
    roster, repeated = horizon_roster(scenario, solutions)
    return evaluate_roster(scenario, history, weeks, roster, repeated)


def evaluate_roster(
    scenario: Scenario,
    history: History,
    weeks: Sequence[WeekData],
    roster: Roster,
    repeated: int = 0,
) -> Evaluation:
    """Hard violations and soft costs of ``roster`` (len(weeks) x 7 days) from ``history``.

    ``repeated`` is the number of assignments that repeated a nurse's day (H1), which a
    roster with one entry per day cannot hold itself.
    """
    _check_inputs(scenario, history, weeks, roster)
    hard = dict.fromkeys(HARD, 0)
    costs = dict.fromkeys(SOFT, 0)
    hard["single_assignment"] = repeated
    _cover(scenario, weeks, roster, hard, costs)
    for nurse in scenario.nurses:
        days = roster[nurse.name]
        past = history.of(nurse.name)
        hard["required_skill"] += sum(1 for d in days if d is not None and d[1] not in nurse.skills)
        hard["succession"] += _forbidden_successions(scenario, past.last_shift, days)
        for kind, cost in _nurse_costs(scenario, past, weeks, days).items():
            costs[kind] += cost
    return Evaluation(hard, costs)


def _check_inputs(
    scenario: Scenario, history: History, weeks: Sequence[WeekData], roster: Roster
) -> None:
    """Names that do not belong to the scenario are errors, not silent zeros."""
    shifts = {s.name for s in scenario.shift_types}
    nurses = {n.name for n in scenario.nurses}
    named = {history.scenario, *(w.scenario for w in weeks)}
    if named != {scenario.name}:
        raise ValueError(f"files of scenarios {sorted(named)} priced with {scenario.name!r}")
    if {h.nurse for h in history.nurses} != nurses:
        raise ValueError("the history does not list exactly the scenario's nurses")
    for h in history.nurses:
        if h.last_shift is not None and h.last_shift not in shifts:
            raise ValueError(f"history of {h.nurse}: unknown shift type {h.last_shift!r}")
    for week in weeks:
        for r in week.requirements:
            if r.shift not in shifts or r.skill not in scenario.skills:
                raise ValueError(f"requirement for unknown {r.shift!r} / {r.skill!r}")
        for q in week.requests:
            if q.nurse not in nurses or (q.shift != ANY and q.shift not in shifts):
                raise ValueError(f"shift-off request of {q.nurse!r} for unknown {q.shift!r}")
    horizon = len(weeks) * DAYS_PER_WEEK
    for nurse in nurses:
        if len(roster.get(nurse, ())) != horizon:
            raise ValueError(f"the roster of {nurse} does not have {horizon} days")


def _cover(
    scenario: Scenario,
    weeks: Sequence[WeekData],
    roster: Roster,
    hard: dict[str, int],
    costs: dict[str, int],
) -> None:
    """H2 (nurses short of the minimum) and S1 (nurses short of the optimum)."""
    for w, week in enumerate(weeks):
        for day in range(DAYS_PER_WEEK):
            at = w * DAYS_PER_WEEK + day
            heads: dict[tuple[str, str], int] = {}
            for n in scenario.nurses:
                entry = roster[n.name][at]
                if entry is not None:
                    heads[entry] = heads.get(entry, 0) + 1
            for r in week.requirements:
                count = heads.get((r.shift, r.skill), 0)
                hard["min_coverage"] += max(0, r.minimum[day] - count)
                costs["optimal_coverage"] += WEIGHT_OPTIMAL_COVERAGE * max(
                    0, r.optimal[day] - count
                )


def _forbidden_successions(scenario: Scenario, last: str | None, days: Sequence[Day]) -> int:
    """H3: pairs of consecutive days, the history's last day included, that may not follow."""
    shifts = [last, *(None if d is None else d[0] for d in days)]
    return sum(
        1
        for before, after in pairwise(shifts)
        if before is not None
        and after is not None
        and after in scenario.shift_type(before).forbidden_next
    )


def run_violations(flags: Sequence[bool], carried: int, low: int, high: int) -> int:
    """Days of violation of the runs of True in ``flags``, given ``carried`` earlier days.

    ``carried`` is the length of the run open just before the first day (0 if none). A
    run is short of ``low`` by so many days when it ends; each day on which the run is
    longer than ``high`` is one day over. A run open after the last day is not checked
    against ``low``.
    """
    violations, run = 0, carried
    for flag in flags:
        if flag:
            run += 1
            violations += run > high
        elif run:
            violations += max(0, low - run)
            run = 0
    return violations


def _nurse_costs(
    scenario: Scenario, past: NurseHistory, weeks: Sequence[WeekData], days: Sequence[Day]
) -> dict[str, int]:
    """S2-S7 for one nurse over the horizon."""
    contract = scenario.contract_of(past.nurse)
    worked = [d is not None for d in days]
    open_work = past.consecutive_work if past.last_shift is not None else 0
    open_off = past.consecutive_off if past.last_shift is None else 0
    consecutive = WEIGHT_CONSECUTIVE_WORK * run_violations(
        worked, open_work, contract.min_consecutive_work, contract.max_consecutive_work
    )
    for shift in scenario.shift_types:
        on_it = [d is not None and d[0] == shift.name for d in days]
        carried = past.consecutive_shift if past.last_shift == shift.name else 0
        consecutive += WEIGHT_CONSECUTIVE_SHIFT * run_violations(
            on_it, carried, shift.min_consecutive, shift.max_consecutive
        )
    off = [not w for w in worked]
    days_off = WEIGHT_DAYS_OFF * run_violations(
        off, open_off, contract.min_consecutive_off, contract.max_consecutive_off
    )
    weekends = [
        (worked[w * DAYS_PER_WEEK + SATURDAY], worked[w * DAYS_PER_WEEK + SUNDAY])
        for w in range(len(weeks))
    ]
    incomplete = sum(1 for sat, sun in weekends if sat != sun) if contract.complete_weekends else 0
    total = past.assignments + sum(worked)
    working_weekends = past.weekends + sum(1 for sat, sun in weekends if sat or sun)
    return {
        "consecutive": consecutive,
        "days_off": days_off,
        "preferences": WEIGHT_PREFERENCE * _refused_requests(past.nurse, weeks, days),
        "complete_weekends": WEIGHT_COMPLETE_WEEKEND * incomplete,
        "total_assignments": WEIGHT_TOTAL_ASSIGNMENTS
        * (max(0, contract.min_total - total) + max(0, total - contract.max_total)),
        "working_weekends": WEIGHT_WORKING_WEEKENDS
        * max(0, working_weekends - contract.max_weekends),
    }


def _refused_requests(nurse: str, weeks: Sequence[WeekData], days: Sequence[Day]) -> int:
    """S4: shift-off requests of ``nurse`` whose day (or that day's shift) is worked."""
    refused = 0
    for w, week in enumerate(weeks):
        for q in week.requests:
            entry = days[w * DAYS_PER_WEEK + q.day]
            if q.nurse == nurse and entry is not None and q.shift in (ANY, entry[0]):
                refused += 1
    return refused


def next_history(history: History, week: Roster) -> History:
    """The history a week of 7 days leaves for the next week, as the simulator writes it.

    Counters add the week's assignments and whether its weekend was worked; the runs are
    those open on Sunday, lengthened by the history's own run when the week never broke it.
    """
    return History(
        history.week + 1,
        history.scenario,
        tuple(_next_nurse(past, week[past.nurse]) for past in history.nurses),
    )


def _trailing(days: Sequence[Day], same: Callable[[Day], bool]) -> int:
    """How many of the last days satisfy ``same`` without a break."""
    count = 0
    for day in reversed(days):
        if not same(day):
            break
        count += 1
    return count


def _next_nurse(past: NurseHistory, days: Sequence[Day]) -> NurseHistory:
    if len(days) != DAYS_PER_WEEK:
        raise ValueError(f"a week of {past.nurse} has {len(days)} days, not {DAYS_PER_WEEK}")
    worked = sum(1 for d in days if d is not None)
    weekend = days[SATURDAY] is not None or days[SUNDAY] is not None
    counters = (past.assignments + worked, past.weekends + weekend)
    last = days[-1]
    if last is None:
        off = _trailing(days, lambda d: d is None)
        if off == DAYS_PER_WEEK:
            off += past.consecutive_off
        return NurseHistory(past.nurse, *counters, None, 0, 0, off)
    work = _trailing(days, lambda d: d is not None)
    if work == DAYS_PER_WEEK:
        work += past.consecutive_work
    same = _trailing(days, lambda d: d is not None and d[0] == last[0])
    if same == DAYS_PER_WEEK and past.last_shift == last[0]:
        same += past.consecutive_shift
    return NurseHistory(past.nurse, *counters, last[0], same, work, 0)
