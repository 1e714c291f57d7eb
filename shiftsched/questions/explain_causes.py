"""Why no roster covers a shortage's head: a minimal conflict among the request's hard
rules, eligibility included, and the absences, with that many heads enforced.

The diagnosis machinery (shiftsched.solving.conflicts) runs on the gated problem
(shiftsched.solving.problem), so "e3 is absent" and "e7 reaches the weekly hours limit"
are named as input items with their JSON paths; when even every item lifted leaves too
few people, the staff itself is the cause.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from shiftsched.contract.planning import Absence
from shiftsched.contract.v1 import Cause, Shortage, SolveRequest
from shiftsched.periods.replan import Item
from shiftsched.periods.seam import with_history
from shiftsched.questions.explain_heads import demand_slot
from shiftsched.questions.inquiry import ExplainRequest
from shiftsched.solving.conflicts import shrink, solve_assuming
from shiftsched.solving.diagnose import MAX_PROBE_SECONDS, SOFT_ONLY_FAMILIES, describe
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.model.registry import FAMILIES
from shiftsched.solving.problem import from_request

#: The demand families a fill needs in the gated model; every other soft-only family is
#: left out of it (the conflict is among hard rules; the objective is dropped).
_DEMAND_FAMILIES = frozenset(
    family.name
    for family in FAMILIES
    if any(term.endswith("_shortage") for term in family.soft_terms)
)
_GATED_SKIP = tuple(name for name in SOFT_ONLY_FAMILIES if name not in _DEMAND_FAMILIES)


@dataclass
class _Gated:
    """The gated model of the request (every hard rule, eligibility included, behind
    its own literal; no objective), built once for every unavoidable marker."""

    compiled: CompiledModel
    items: list[Item]


class Conflicts:
    """Minimal conflicts that forbid a number of heads on a demand, on the gated model."""

    def __init__(self, ask: ExplainRequest) -> None:
        self.ask = ask
        self._gated: _Gated | None = None

    def gated(self) -> _Gated:
        if self._gated is None:
            request = self.ask.request
            problem = with_history(from_request(request, gated=True), request, self.ask.history)
            compiled = build(problem, skip=_GATED_SKIP)
            compiled.model.clear_objective()  # type: ignore[no-untyped-call]
            items = [
                Item(g.family, g.field, describe(request, g), g.literal)
                for g in compiled.hard_groups
            ]
            items += _absence_items(compiled, self.ask.absences)
            self._gated = _Gated(compiled, items)
        return self._gated

    def causes(self, marker: Shortage, heads: int, deadline: float) -> list[Cause]:
        """What forbids ``heads`` heads on ``marker``'s demand (none found: empty)."""
        gated = self.gated()
        base = gated.compiled.model.clone()
        slot = demand_slot(gated.compiled, marker)
        if slot is not None:
            base.add(slot.assigned >= heads)
        else:
            return []  # no variable at all: nobody can stand there (said in the words)

        def core(kept: Sequence[Item]) -> list[Item] | None:
            seconds = max(0.05, min(MAX_PROBE_SECONDS, deadline - time.perf_counter()))
            outcome, found = solve_assuming(base, kept, seconds)
            return found if outcome == "infeasible" else None

        if core([]) is not None:  # no item to blame: there are too few people
            return [_too_few(self.ask.request, marker, heads)]
        first = core(gated.items)
        if first is None:
            return []
        conflict = shrink(
            first, lambda kept, _dropped: core(kept), lambda: time.perf_counter() < deadline
        )
        return list(
            {
                item.field: Cause(
                    cause_type=item.kind, field=_input_path(item.field), message=item.message
                )
                for item in conflict
            }.values()
        )


def _too_few(request: SolveRequest, marker: Shortage, heads: int) -> Cause:
    """The staff itself as the cause: even with every item lifted, those who could count
    towards the demand at all (managers, for a manager demand) are too few."""
    if marker.kind == "manager":
        pool = [e.id for e in request.employees if e.is_manager]
        what = "managers"
    else:
        pool = [e.id for e in request.employees]
        what = "employees"
    names = f" ({', '.join(pool)})" if 0 < len(pool) <= 8 else ""
    return Cause(
        cause_type="staff",
        field="request.employees",
        message=f"the request has {len(pool)} {what}{names}, each working at most one "
        f"shift a date, and {heads} are wanted",
    )


def _absence_items(compiled: CompiledModel, absences: Sequence[Absence]) -> list[Item]:
    """Each absent date as an item: its literal keeps the employee off every shift."""
    problem = compiled.problem
    employee = {e.id: i for i, e in enumerate(problem.employees)}
    day = {d: i for i, d in enumerate(problem.horizon.dates)}
    items = []
    for i, absence in enumerate(absences):
        e = employee[absence.employee_id]
        for j, date in enumerate(absence.dates):
            literal = compiled.model.new_bool_var(f"absent[{i},{j}]")
            for (xe, xd, _s), x in compiled.x.items():
                if xe == e and xd == day[date]:
                    compiled.model.add_implication(literal, ~x)
            items.append(
                Item(
                    "absence",
                    f"absences[{i}].dates[{j}]",
                    f"{absence.employee_id} is absent on {date.isoformat()}",
                    literal,
                )
            )
    return items


def _input_path(field: str) -> str:
    """A field of the explain input: the request's items under ``request``."""
    return field if field.startswith("absences[") else f"request.{field}"


def who_may_work(request: SolveRequest, marker: Shortage) -> str:
    """``only e1, e2 may work it``: who may work the demand's shift that date at all."""
    shifts = {marker.shift_id} if marker.shift_id is not None else set(marker.shift_ids or ())
    weekday = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")[marker.date.weekday()]
    holiday = marker.date in request.schedule_period.holidays
    eligible = [
        e.id
        for e in request.employees
        if shifts & set(e.assignable_shift_ids)
        and (e.available_weekdays is None or weekday in e.available_weekdays)
        and not holiday
        and (marker.kind != "manager" or e.is_manager)
    ]
    if not eligible:
        return "nobody may work it at all"
    if len(eligible) <= 8:
        return f"only {', '.join(eligible)} may work it"
    return f"{len(eligible)} employees may work it"


def because(causes: Sequence[Cause]) -> str:
    """``, and e3 is absent on ...; ...`` (the first six causes), or nothing."""
    reasons = "; ".join(c.message for c in causes[:6])
    more = f" (and {len(causes) - 6} more)" if len(causes) > 6 else ""
    return f", and {reasons}{more}" if reasons else ""
