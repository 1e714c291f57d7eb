"""The model under construction (:class:`ModelContext`) and the built model
(:class:`CompiledModel`): what every constraint family module works on. Kept apart from
:mod:`shiftsched.solving.model.build`, which runs the families, so the families can import it
without an import cycle.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from ortools.sat.python import cp_model
from ortools.util.python.sorted_interval_list import Domain

from shiftsched.solving.model.terms import (
    Expr,
    HardGroup,
    ImpliedRow,
    PenaltyTerm,
    ShortageSlot,
    SlackDefinition,
)
from shiftsched.solving.problem import Problem

Var = cp_model.IntVar
BOOLEAN = Domain(0, 1)


def bool_var_factory(model: cp_model.CpModel) -> Callable[[str], Var]:
    """``model.new_bool_var`` with one shared [0, 1] domain object.

    The same variable, about a third cheaper to create: it counts at a million decisions.
    """
    proto = model.proto

    def new_bool(name: str) -> Var:
        return cp_model.IntVar(proto).with_name(name).with_domain(BOOLEAN)

    return new_bool


@dataclass
class ModelContext:
    """The model under construction and indexed views of its variables."""

    problem: Problem
    model: cp_model.CpModel = field(default_factory=cp_model.CpModel)
    prune: bool = True  # False: variables for every option, forbidden ones fixed to 0
    x: dict[tuple[int, int, int], Var] = field(default_factory=dict)
    y: dict[tuple[int, int, int, int], Var] = field(default_factory=dict)
    work: dict[tuple[int, int], Var] = field(default_factory=dict)
    staff: dict[tuple[int, int], list[tuple[int, Var]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    holders: dict[tuple[int, int, int], list[tuple[int, Var]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    hard_groups: list[HardGroup] = field(default_factory=list)
    terms: list[PenaltyTerm] = field(default_factory=list)
    shortages: list[ShortageSlot] = field(default_factory=list)
    definitions: list[SlackDefinition] = field(default_factory=list)
    implied_rows: bool = True  # False: leave out the redundant rows (for comparison)
    implied: list[ImpliedRow] = field(default_factory=list)
    _group_literals: dict[tuple[str, str, str | None], Var] = field(default_factory=dict)

    def hard_group(self, family: str, field_path: str, employee: str | None = None) -> Var:
        """The enforcement literal of one input item's hard rule (created on first use)."""
        key = (family, field_path, employee)
        literal = self._group_literals.get(key)
        if literal is None:
            literal = self.model.new_bool_var(f"hard[{family}:{field_path}:{employee or ''}]")
            self._group_literals[key] = literal
            self.hard_groups.append(HardGroup(family, field_path, literal, employee))
        return literal

    def posted_hard_group(
        self, family: str, field_path: str, employee: str | None = None
    ) -> Var | None:
        """The enforcement literal of a hard rule already posted, or None (never creates)."""
        return self._group_literals.get((family, field_path, employee))

    def imply(self, row: Expr, literal: Var) -> None:
        """Post the redundant row ``row >= 0`` under ``literal`` (see ImpliedRow)."""
        if not self.implied_rows:
            return
        self.model.add(row >= 0).only_enforce_if(literal)
        self.implied.append(ImpliedRow(row, literal))

    def shift_options(self, e: int, d: int) -> tuple[int, ...]:
        """Shifts that have a variable for e on d: e's options, or all shifts when unpruned."""
        if self.prune:
            return self.problem.employees[e].day_options[d]
        return tuple(range(len(self.problem.shifts)))

    def shift_var(self, e: int, d: int, s: int) -> Var | None:
        return self.x.get((e, d, s))

    def works(self, e: int, d: int) -> Var | None:
        """Literal 'employee e works on day d', or None when e has no option that day."""
        return self.work.get((e, d))

    def penalize(self, name: str, family: str, weight: int, magnitude: Expr, unit: str) -> None:
        self.terms.append(PenaltyTerm(name, family, weight, magnitude, unit))

    def define(self, var: Var, *lowers: Expr, divisor: int = 1) -> Var:
        """Declare ``var``'s tight value (see SlackDefinition); the caller posts the rows.

        Every auxiliary variable that a penalty term or a shortage reads must be defined,
        after the auxiliaries its lower bounds read, so a roster can be priced exactly.
        """
        self.definitions.append(SlackDefinition(var, lowers, divisor))
        return var

    def at_least(self, lower: Expr, low: int, high: int, name: str = "", divisor: int = 1) -> Var:
        """A new slack in ``[low, high]`` with ``divisor x slack >= lower``, defined as such."""
        slack = self.model.new_int_var(low, high, name)
        self.model.add(divisor * slack >= lower)
        return self.define(slack, lower, divisor=divisor)


@dataclass(frozen=True)
class CompiledModel:
    """A built model: CP-SAT model, decision variables, hard groups, penalty terms."""

    model: cp_model.CpModel
    problem: Problem
    x: dict[tuple[int, int, int], Var]
    y: dict[tuple[int, int, int, int], Var]
    hard_groups: list[HardGroup]
    terms: list[PenaltyTerm]
    shortages: list[ShortageSlot]
    definitions: list[SlackDefinition] = field(default_factory=list)
    implied: list[ImpliedRow] = field(default_factory=list)

    def decision_vars(self) -> list[Var]:
        return [*self.x.values(), *self.y.values()]


Family = Callable[[ModelContext], None]
