"""The two things every constraint family produces: penalty terms and hard groups.

Soft rules are *instrumented*: each is a :class:`PenaltyTerm` with a stable name, a
weight and a magnitude expression, so the objective and the violation report are the
same decomposition, read back from the solved model. Hard rules are posted under a
:class:`HardGroup` enforcement literal, so diagnosis can relax them one group at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ortools.sat.python import cp_model

Expr = cp_model.LinearExprT


@dataclass(frozen=True, slots=True)
class PenaltyTerm:
    """``weight x magnitude`` enters the objective; ``name`` says which input caused it."""

    name: str
    family: str
    weight: int
    magnitude: Expr
    unit: str


@dataclass(frozen=True, slots=True)
class HardGroup:
    """A hard rule of one input item; its constraints hold only while ``literal`` is true."""

    family: str
    field: str
    literal: cp_model.IntVar
    employee: str | None = None  # the employee it binds, for per-employee rules


ShortageKind = Literal["staffing", "manager", "duty", "cross_shift"]


@dataclass(frozen=True, slots=True)
class ShortageSlot:
    """A demand minimum with its missing-heads variable (becomes a shortage marker)."""

    kind: ShortageKind
    day: int
    shift: int | None
    shifts: tuple[int, ...] | None
    duty: int | None
    order: int  # cross-shift index, for a stable sort
    required: int
    assigned: Expr
    missing: Expr


@dataclass(frozen=True, slots=True)
class SlackDefinition:
    """The least value ``var`` can take once the decisions are fixed.

    ``var`` is an auxiliary the objective pushes down (a slack, a violation indicator, a
    running total); the constraints that bound it from below are, together, equivalent
    to ``divisor x var >= lower`` for each expression in ``lowers``. So its tight value is
    ``max(0, ceil(lower / divisor) for each lower)``, computed from the decisions and the
    auxiliaries defined before it. Declaring this beside the constraint lets a roster be
    priced exactly from its decisions alone, whatever the search left in the slack
    (shiftsched.solving.model.tight).
    """

    var: cp_model.IntVar
    lowers: tuple[Expr, ...]
    divisor: int = 1


@dataclass(frozen=True, slots=True)
class ImpliedRow:
    """A redundant row ``row >= 0``, enforced by a hard group's ``literal``.

    Every roster the hard rules allow satisfies it once the auxiliaries are at their
    least values (:class:`SlackDefinition`), so it removes no roster and changes no
    price; it cuts off fractional rosters the LP relaxation would otherwise accept,
    which raises the proven bound. The enforcement literal is the hard rule the argument
    rests on, so relaxing that rule (diagnosis) relaxes the row too.
    """

    row: Expr
    literal: cp_model.IntVar
