"""The greedy roster's forward pass: each shift of a day filled, scarcest duty first.

Candidates are ranked by the keys of :func:`_ranked` (a count minimum of this shift to
meet, a run too short to end, a run to continue, no unmet wish, least soft cost, fewest
days worked); where no pick changes another's key the ranking is made once per shift.
"""

from __future__ import annotations

from shiftsched.solving.greedy_state import State
from shiftsched.solving.greedy_views import min_run


def shifts_by_scarcity(state: State, d: int) -> list[int]:
    """Shifts with the fewest candidates per required head first (heads wanted: the
    staffing minimum plus any weighted cover target)."""
    problem = state.problem

    def candidates_per_head(s: int) -> float:
        need = state.need[d, s]
        pool = sum(1 for employee in problem.employees if s in employee.day_options[d])
        return pool / need if need else float("inf")

    return sorted(range(len(problem.shifts)), key=candidates_per_head)


def _pick(state: State, d: int, s: int, wanted: list[int], duty: int | None = None) -> int | None:
    """The best candidate among ``wanted``: below a count minimum of this shift first,
    then no unmet wish, then least soft cost, then fewest days worked so far."""
    ranked = _ranked(state, d, s, wanted, duty)
    return ranked[0] if ranked else None


def _ranked(state: State, d: int, s: int, wanted: list[int], duty: int | None = None) -> list[int]:
    """The candidates among ``wanted`` who can take the shift, best first (see _pick)."""
    ok = [e for e in wanted if state.can_take(e, d, s)]
    return sorted(
        ok,
        key=lambda e: (
            not state.below_minimum(e, s),
            not 0 < state.run_before(e, d) < min_run(state.problem.employees[e]),
            not state.continues_run(e, d),
            state.preference_cost(e, d, s),
            state.soft_cost(e, d, s, duty),
            state.days_worked[e],
            e,
        ),
    )


def fill_shift(state: State, d: int, s: int) -> None:
    problem = state.problem
    employees = problem.employees
    duties_here = [
        (k, max(duty.demand[s].mins[d], state.duty_target.get((d, s, k), 0)))
        for k, duty in enumerate(problem.duties)
        if s in duty.demand
    ]
    # Scarcest duty first: fewest possible holders.
    duties_here.sort(key=lambda kd: sum(1 for e in employees if kd[0] in e.duty_options.get(s, ())))
    for k, need in duties_here:
        held = sum(1 for e in state.on_shift[d, s] if state.roster[e, d, s] == k)
        for _ in range(need - held):
            holders = [e for e, emp in enumerate(employees) if k in emp.duty_options.get(s, ())]
            e = _pick(state, d, s, holders, k)
            if e is None:
                break
            state.place(e, d, s, k)
    shift = problem.shifts[s]
    if shift.managers is not None:
        managers = sum(1 for e in state.on_shift[d, s] if employees[e].is_manager)
        for _ in range(shift.managers.mins[d] - managers):
            e = _pick(state, d, s, [e for e, emp in enumerate(employees) if emp.is_manager])
            if e is None:
                break
            state.place(e, d, s, None)
    missing = state.need[d, s] - len(state.on_shift[d, s])
    if missing <= 0:
        return
    everyone = list(range(len(employees)))
    if state.priced and (problem.skill_support is not None or state.partners):
        # A senior placed supports the beginners after them, a partner placed makes
        # the other welcome: each head changes the others' keys, so pick head by head.
        for _ in range(missing):
            e = _pick(state, d, s, everyone)
            if e is None:
                break
            state.place(e, d, s, None)
        return
    # What _pick would choose head after head: placing one employee changes no other
    # employee's key, and can only rule others out (exclude pairings), so the picks are
    # the candidates in key order, each checked again when its turn comes.
    for e in _ranked(state, d, s, everyone):
        if missing <= 0:
            break
        if state.can_take(e, d, s):
            state.place(e, d, s, None)
            missing -= 1
