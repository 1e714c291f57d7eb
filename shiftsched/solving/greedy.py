"""A greedy starting roster, given to CP-SAT as a solution hint.

On large instances the solver's own first solutions leave hundreds of heads missing and
its local search needs far longer than a synchronous request allows to fill them. This
heuristic fills demand day by day, scarcest duty first, choosing among the employees
who may work the shift the one who has worked least, and it keeps the hard rules that
can be checked looking backwards: one shift per date, fixed assignments, consecutive-day
cap (period-wide and per employee), monthly maximum, hard weekly hours, total-minutes
maximum, shift count maxima, worked-weekend maximum, minimum days-off runs, hard
forbidden transitions and exclude pairings. Weighted cover targets count as demand (a
duty's target as that duty's: holders are placed up to the larger of minimum and target).

Among candidates equal on those keys, a second pass prefers the one whose pick costs
least in the soft terms the roster so far decides: a soft transition from yesterday,
a beginner without a senior (or a senior joining one), require pairings, the weekly
soft maxima. It can spend a scarce manager or duty holder the plain pass kept, so
both passes run and the one leaving less demand unmet is kept (:func:`greedy_roster`).

Minimums it cannot see looking backwards get passes of their own. Shift count minimums
are topped up on free days, and where those are not enough (a month's maximum reached)
by trading worked days of other shifts. Under a minimum run of worked days, an employee
whose run is still too short is picked first, and so is one continuing a run (fewer,
longer runs leave room for work between the days-off minimums); a run that still ends
too short is lengthened or dropped, and total-minutes minimums are topped up by
lengthening runs or adding runs of the minimum length. A benchmark row (shiftsched.formats:
only per-employee hard rules) that still breaks a minimum is replanned alone by the
model's own encoding of that employee's rules (shiftsched.solving.model.build on a one-employee
problem), the other rows fixed; its search stops on CP-SAT's deterministic work, so the
whole roster is the same on any machine. A hint breaking no hard rule is completed into
a first solution at once (shiftsched.solving.hint.complete_hint). What is left is
left to the solver, which repairs or improves the hint; the hint never changes what is
optimal, only where the search starts.

Large benchmark instances (a year, 150 staff, 32 shift types) ask millions of questions
of the state, so the problem's lookups are built once (greedy_views) and the two passes that
rescanned everything per placed head (filling a shift, extending runs) keep their
candidates ranked instead; both choose exactly what the rescans chose.
"""

from __future__ import annotations

from shiftsched.contract.v1 import Assignment
from shiftsched.solving.decompose.rows import CoverRow, Member, cover_rows
from shiftsched.solving.greedy_fill import fill_shift, shifts_by_scarcity
from shiftsched.solving.greedy_minimums import (
    meet_count_minimums,
    meet_minute_minimums,
    repair_short_runs,
)
from shiftsched.solving.greedy_replan import replan_row, replannable, row_breaks
from shiftsched.solving.greedy_state import State
from shiftsched.solving.greedy_views import Roster
from shiftsched.solving.problem import Problem


def greedy_roster(problem: Problem) -> Roster:
    """A roster that meets as much minimum demand as a single forward pass can.

    Where the request has soft rules a pick can price (:meth:`State.soft_cost`), two
    passes are made, one picking by those costs and one without, and the roster that
    leaves less demand unmet is kept, the priced one on a tie. Picking by soft costs took
    the first roster of generated requests of 40,000-280,000 from 15,500-39,440 to
    5,070-16,325 (mostly skill support and soft transitions), but on smaller ones it
    used scarce managers and duty holders where the plain pass kept them, and left
    more heads missing (a missing head costs more than any soft term a pick prices).
    """
    plain = _greedy(problem, priced=False)
    if not _prices_soft_terms(problem):
        return plain
    priced = _greedy(problem, priced=True)
    rows = cover_rows(problem)
    return priced if _unmet(rows, priced) <= _unmet(rows, plain) else plain


def _prices_soft_terms(problem: Problem) -> bool:
    """Whether the request has a soft rule that :meth:`State.soft_cost` prices."""
    return (
        any(not t.hard for t in problem.transitions)
        or any(not pairing.exclude for pairing in problem.pairings)
        or problem.skill_support is not None
        or any(
            employee.days_per_week is not None
            or (employee.weekly_hours is not None and not employee.weekly_hours[1])
            or (
                problem.start_prices_shares
                and (employee.total_days is not None or employee.weekend_cap is not None)
            )
            for employee in problem.employees
        )
    )


def _unmet(rows: list[CoverRow], roster: Roster) -> int:
    """What the demand rows (staffing, managers, duties, cross-shift, cover targets)
    charge a roster for the heads it leaves missing."""
    worked: set[Member] = set()
    for (e, d, s), k in roster.items():
        worked.add((e, d, s, None))
        if k is not None:
            worked.add((e, d, s, k))
    return sum(
        row.under_weight * max(0, row.low - sum(1 for m in row.members if m in worked))
        for row in rows
    )


def _greedy(problem: Problem, *, priced: bool) -> Roster:
    state = State(problem, priced=priced)
    for e, employee in enumerate(problem.employees):
        for fixed in employee.fixed:  # a fixed shift breaking a hard rule is left to the solver
            if state.can_take(e, fixed.day, fixed.shift):
                allowed = employee.duty_options.get(fixed.shift, ())
                duty = fixed.duty if fixed.duty in allowed else None
                state.place(e, fixed.day, fixed.shift, duty)
    for d in range(problem.num_days):
        for s in shifts_by_scarcity(state, d):
            fill_shift(state, d, s)
    meet_count_minimums(state)
    repair_short_runs(state)
    meet_minute_minimums(state)
    for e in range(len(problem.employees)):
        if replannable(problem, e) and row_breaks(state, e):
            replan_row(state, e)
    return state.roster


def roster_assignments(problem: Problem, roster: Roster) -> list[Assignment]:
    """A greedy roster as v1 assignments, in the order the engine reports them."""
    assignments = [
        Assignment(
            employee_id=problem.employees[e].id,
            date=problem.horizon.dates[d],
            shift_id=problem.shifts[s].id,
            duty_id=problem.duties[k].id if k is not None else None,
        )
        for (e, d, s), k in roster.items()
    ]
    assignments.sort(key=lambda a: (a.date, a.shift_id, a.employee_id))
    return assignments
