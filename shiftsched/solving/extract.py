"""Read a solved model back: the roster, its soft violations and its shortage markers.

The values read are a solution with every auxiliary at its least value (tight_values), so
each penalty and shortage is the exact price of the roster's decisions.
"""

from __future__ import annotations

from collections import defaultdict

from shiftsched.contract.v1 import Assignment, Shortage, SoftConstraintViolation
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.model.tight import evaluate

SHORTAGE_KIND_ORDER = {"staffing": 0, "manager": 1, "duty": 2, "cross_shift": 3}


def extract(
    compiled: CompiledModel, values: list[int]
) -> tuple[list[Assignment], list[SoftConstraintViolation], list[Shortage]]:
    """The roster, its merged soft violations and its shortage markers.

    ``values`` is a solution with every auxiliary at its least value (tight_values), so
    each penalty and shortage is the exact price of the roster's decisions.
    """
    problem = compiled.problem
    duty_of: dict[tuple[int, int, int], int] = {}
    for (e, d, s, k), y in compiled.y.items():
        if values[y.index]:
            duty_of[e, d, s] = k
    assignments = [
        Assignment(
            employee_id=problem.employees[e].id,
            date=problem.horizon.dates[d],
            shift_id=problem.shifts[s].id,
            duty_id=problem.duties[duty_of[e, d, s]].id if (e, d, s) in duty_of else None,
        )
        for (e, d, s), x in compiled.x.items()
        if values[x.index]
    ]
    assignments.sort(key=lambda a: (a.date, a.shift_id, a.employee_id))

    magnitude: dict[str, int] = defaultdict(int)
    weight_of: dict[str, int] = {}
    for term in compiled.terms:
        magnitude[term.name] += evaluate(term.magnitude, values)
        weight_of[term.name] = term.weight
    violations = [
        SoftConstraintViolation(name=name, penalty=float(weight_of[name] * m), violated_by=float(m))
        for name, m in sorted(magnitude.items())
        if m > 0
    ]
    return assignments, violations, _shortages(compiled, values)


def _shortages(compiled: CompiledModel, values: list[int]) -> list[Shortage]:
    problem = compiled.problem
    found = []
    for slot in compiled.shortages:
        missing = evaluate(slot.missing, values)
        if missing <= 0:
            continue
        found.append(
            (
                (
                    SHORTAGE_KIND_ORDER[slot.kind],
                    slot.day,
                    problem.shifts[slot.shift].id if slot.shift is not None else "",
                    problem.duties[slot.duty].id if slot.duty is not None else "",
                    slot.order,
                ),
                Shortage(
                    kind=slot.kind,
                    date=problem.horizon.dates[slot.day],
                    shift_id=problem.shifts[slot.shift].id if slot.shift is not None else None,
                    shift_ids=(
                        [problem.shifts[s].id for s in slot.shifts]
                        if slot.shifts is not None
                        else None
                    ),
                    duty_id=problem.duties[slot.duty].id if slot.duty is not None else None,
                    required=slot.required,
                    assigned=evaluate(slot.assigned, values),
                    missing=missing,
                ),
            )
        )
    found.sort(key=lambda pair: pair[0])
    return [shortage for _, shortage in found]
