"""The built CP-SAT model as flat arrays: what the compiled local search reads.

The local search does not restate any rule. It reads the model every family posted
(:mod:`shiftsched.solving.model`), so each family, its history seam included, is priced
and checked exactly as the model prices and checks it:

- every hard rule is a row ``lo <= sum coef x var + offset <= hi`` that holds while its
  enforcement literals are true (linear rows, clauses, at-most-one and exactly-one
  constraints all take this form);
- every auxiliary variable is *defined* (:class:`shiftsched.solving.model.terms.SlackDefinition`):
  its value is ``max(0, ceil(lower / divisor))`` over rows of the variables defined before
  it, so a roster's decisions alone fix every value;
- the objective is one more row.

A model with an auxiliary that no definition fixes, or a constraint of another kind,
cannot be evaluated this way: :class:`NotEvaluable` says which, and the search leaves
that model to CP-SAT (a test checks that no family of the registry does this).

Rows are stored twice, by row (``rv_*``) and by variable (``vr_*``), so a change of one
variable reaches exactly the rows that read it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from ortools.sat.python import cp_model

from shiftsched.solving.local.hot import hot_cells
from shiftsched.solving.model.build import CompiledModel

Ints = npt.NDArray[np.int64]
INFINITY = 2**62  # a bound no activity reaches
CONSTRAINT, LOWER, OBJECTIVE = 0, 1, 2  # row kinds


class NotEvaluable(ValueError):
    """The model holds something the local search cannot evaluate from the decisions."""


@dataclass(frozen=True)
class LocalModel:
    """The model's rows, definitions and roster cells, as arrays (see the module docstring).

    Cells: ``cell_start[e * days + d]`` opens employee ``e``'s options on day ``d`` in
    ``opt_x`` (the shift literal) and ``opt_shift``; ``oy_start[i]`` opens option ``i``'s
    duty literals in ``oy_var`` and ``oy_duty``.
    """

    employees: int
    days: int
    variables: int
    initial: Ints  # constants (enforced hard-group literals) and zeros
    rv_start: Ints
    rv_var: Ints
    rv_coef: Ints
    vr_start: Ints
    vr_row: Ints
    vr_coef: Ints
    row_offset: Ints
    row_lo: Ints
    row_hi: Ints
    row_kind: Ints
    row_def: Ints
    en_start: Ints
    en_lit: Ints  # 2 x variable + 1 when negated
    ve_start: Ints
    ve_row: Ints
    def_var: Ints
    def_div: Ints
    dl_start: Ints
    dl_row: Ints
    objective_row: int
    cell_start: Ints
    opt_x: Ints
    opt_shift: Ints
    oy_start: Ints
    oy_var: Ints
    oy_duty: Ints
    hot_start: Ints  # per entry of the objective row: the cells its term reads ...
    hot_cell: Ints  # ... (:func:`_hot_cells`), in ``hot_cell[hot_start[i]:hot_start[i + 1]]``

    @property
    def rows(self) -> int:
        return len(self.row_offset)

    def kernel_arrays(self) -> tuple[Ints, ...]:
        """The arrays every kernel takes, in its argument order."""
        return (
            self.rv_start,
            self.rv_var,
            self.rv_coef,
            self.vr_start,
            self.vr_row,
            self.vr_coef,
            self.row_offset,
            self.row_lo,
            self.row_hi,
            self.row_kind,
            self.row_def,
            self.en_start,
            self.en_lit,
            self.ve_start,
            self.ve_row,
            self.def_var,
            self.def_div,
            self.dl_start,
            self.dl_row,
        )

    def cell_arrays(self) -> tuple[Ints, ...]:
        return (
            self.cell_start,
            self.opt_x,
            self.opt_shift,
            self.oy_start,
            self.oy_var,
            self.oy_duty,
            self.hot_start,
            self.hot_cell,
        )


class _Rows:
    """Rows under construction: plain lists, turned into arrays once."""

    def __init__(self) -> None:
        self.start = [0]
        self.var: list[int] = []
        self.coef: list[int] = []
        self.offset: list[int] = []
        self.lo: list[int] = []
        self.hi: list[int] = []
        self.kind: list[int] = []
        self.definition: list[int] = []
        self.en_start = [0]
        self.en_lit: list[int] = []

    def add(
        self,
        variables: list[int],
        coefficients: list[int],
        offset: int,
        bounds: tuple[int, int],
        kind: int,
        definition: int = -1,
        enforcement: list[int] | tuple[int, ...] = (),
    ) -> int:
        self.var.extend(variables)
        self.coef.extend(coefficients)
        self.start.append(len(self.var))
        self.offset.append(offset)
        self.lo.append(max(-INFINITY, bounds[0]))
        self.hi.append(min(INFINITY, bounds[1]))
        self.kind.append(kind)
        self.definition.append(definition)
        self.en_lit.extend(enforcement)
        self.en_start.append(len(self.en_lit))
        return len(self.offset) - 1


def _literal_row(literals: list[int]) -> tuple[list[int], list[int], int]:
    """``sum of literals`` as a row: a negated literal ``~v`` (index ``-v - 1``) is ``1 - v``."""
    variables, coefficients, offset = [], [], 0
    for literal in literals:
        if literal >= 0:
            variables.append(literal)
            coefficients.append(1)
        else:
            variables.append(-literal - 1)
            coefficients.append(-1)
            offset += 1
    return variables, coefficients, offset


def _flat(expression: object) -> tuple[list[int], list[int], int]:
    if not isinstance(expression, cp_model.LinearExpr):
        return [], [], int(expression)  # type: ignore[call-overload]
    flat = cp_model.FlatIntExpr(expression)
    return [v.index for v in flat.vars], [int(c) for c in flat.coeffs], int(flat.offset)


def local_model(compiled: CompiledModel) -> LocalModel:
    """The arrays of ``compiled``, whose hard groups must be enforced (posted true, as a
    solve posts them); :class:`NotEvaluable` when the search cannot evaluate it."""
    proto = compiled.model.proto
    variables = len(proto.variables)
    constant = _enforced_literals(compiled)
    defined = {d.var.index: j for j, d in enumerate(compiled.definitions)}
    decisions = {x.index for x in compiled.x.values()} | {y.index for y in compiled.y.values()}
    for index in range(variables):
        if index not in defined and index not in decisions and index not in constant:
            name = proto.variables[index].name
            raise NotEvaluable(f"variable {index} ({name or 'unnamed'}) has no definition")
    rows = _Rows()
    for ct in proto.constraints:
        _add_constraint(rows, ct, constant)
    def_var, def_div, dl_start, dl_row = [], [], [0], []
    for j, definition in enumerate(compiled.definitions):
        def_var.append(definition.var.index)
        def_div.append(definition.divisor)
        for lower in definition.lowers:
            dl_row.append(rows.add(*_flat(lower), (-INFINITY, INFINITY), LOWER, j))
        dl_start.append(len(dl_row))
        domain = list(proto.variables[definition.var.index].domain)
        rows.add([definition.var.index], [1], 0, (domain[0], domain[-1]), CONSTRAINT)
    objective = proto.objective
    if objective.scaling_factor not in (0.0, 1.0):
        raise NotEvaluable("the objective is scaled")
    objective_row = rows.add(
        list(objective.vars),
        [int(c) for c in objective.coeffs],
        int(objective.offset),
        (-INFINITY, INFINITY),
        OBJECTIVE,
    )
    initial = np.zeros(variables, np.int64)
    for index, value in constant.items():
        initial[index] = value
    return _arrays(
        compiled, rows, variables, initial, def_var, def_div, dl_start, dl_row, objective_row
    )


def _enforced_literals(compiled: CompiledModel) -> dict[int, int]:
    """The hard groups' literals, each fixed to 1 by a one-literal ``bool_and``."""
    literals = {g.literal.index for g in compiled.hard_groups}
    fixed: dict[int, int] = {}
    for ct in compiled.model.proto.constraints:
        if ct.has_bool_and() and not len(ct.enforcement_literal):
            for literal in ct.bool_and.literals:
                if literal in literals:
                    fixed[literal] = 1
    if len(fixed) != len(literals):
        raise NotEvaluable("a hard group is not enforced (a diagnostic model)")
    return fixed


def _add_constraint(rows: _Rows, ct: object, constant: dict[int, int]) -> None:
    enforcement: list[int] = []
    for literal in ct.enforcement_literal:  # type: ignore[attr-defined]
        if literal >= 0 and constant.get(literal) == 1:
            continue  # an enforced hard group: always true
        enforcement.append(2 * literal if literal >= 0 else 2 * (-literal - 1) + 1)
    if ct.has_linear():  # type: ignore[attr-defined]
        linear = ct.linear  # type: ignore[attr-defined]
        domain = list(linear.domain)
        if len(domain) != 2:
            raise NotEvaluable("a linear constraint with holes in its domain")
        rows.add(
            list(linear.vars),
            [int(c) for c in linear.coeffs],
            0,
            (domain[0], domain[1]),
            CONSTRAINT,
            enforcement=enforcement,
        )
        return
    for kind, bounds in (
        ("bool_or", (1, INFINITY)),
        ("at_most_one", (-INFINITY, 1)),
        ("exactly_one", (1, 1)),
        ("bool_and", None),
    ):
        if getattr(ct, f"has_{kind}")():
            literals = list(getattr(ct, kind).literals)
            if bounds is None:  # every literal true
                if not enforcement and all(constant.get(v) == 1 for v in literals):
                    return  # the hard groups' own fixing
                bounds = (len(literals), len(literals))
            variables, coefficients, offset = _literal_row(literals)
            rows.add(variables, coefficients, offset, bounds, CONSTRAINT, enforcement=enforcement)
            return
    raise NotEvaluable(f"a constraint of a kind the local search does not read: {ct}")


def _transpose(start: Ints, index: Ints, values: Ints | None, size: int) -> tuple[Ints, ...]:
    """CSR by the other axis: for each of ``size`` targets, the rows that list it."""
    rows = np.repeat(np.arange(len(start) - 1, dtype=np.int64), np.diff(start))
    order = np.argsort(index, kind="stable")
    counts = np.bincount(index, minlength=size)
    new_start = np.zeros(size + 1, np.int64)
    np.cumsum(counts, out=new_start[1:])
    if values is None:
        return new_start, rows[order]
    return new_start, rows[order], values[order]


def _arrays(
    compiled: CompiledModel,
    rows: _Rows,
    variables: int,
    initial: Ints,
    def_var: list[int],
    def_div: list[int],
    dl_start: list[int],
    dl_row: list[int],
    objective_row: int,
) -> LocalModel:
    def ints(values: list[int]) -> Ints:
        return np.asarray(values, dtype=np.int64)

    rv_start, rv_var, rv_coef = ints(rows.start), ints(rows.var), ints(rows.coef)
    vr_start, vr_row, vr_coef = _transpose(rv_start, rv_var, rv_coef, variables)
    en_start, en_lit = ints(rows.en_start), ints(rows.en_lit)
    ve_start, ve_row = _transpose(en_start, en_lit // 2, None, variables)
    problem = compiled.problem
    employees, days = len(problem.employees), problem.num_days
    cell_start, opt_x, opt_shift, oy_start, oy_var, oy_duty = _cells(compiled, employees, days)
    var_cell = np.full(variables, -1, np.int64)
    for c in range(len(cell_start) - 1):
        for i in range(cell_start[c], cell_start[c + 1]):
            var_cell[opt_x[i]] = c
            var_cell[oy_var[oy_start[i] : oy_start[i + 1]]] = c
    hot_start, hot_cell = hot_cells(
        rv_start, rv_var, ints(dl_start), ints(dl_row), ints(def_var), objective_row, var_cell
    )
    return LocalModel(
        employees=employees,
        days=days,
        variables=variables,
        initial=initial,
        rv_start=rv_start,
        rv_var=rv_var,
        rv_coef=rv_coef,
        vr_start=vr_start,
        vr_row=vr_row,
        vr_coef=vr_coef,
        row_offset=ints(rows.offset),
        row_lo=ints(rows.lo),
        row_hi=ints(rows.hi),
        row_kind=ints(rows.kind),
        row_def=ints(rows.definition),
        en_start=en_start,
        en_lit=en_lit,
        ve_start=ve_start,
        ve_row=ve_row,
        def_var=ints(def_var),
        def_div=ints(def_div),
        dl_start=ints(dl_start),
        dl_row=ints(dl_row),
        objective_row=objective_row,
        cell_start=ints(cell_start),
        opt_x=ints(opt_x),
        opt_shift=ints(opt_shift),
        oy_start=ints(oy_start),
        oy_var=ints(oy_var),
        oy_duty=ints(oy_duty),
        hot_start=hot_start,
        hot_cell=hot_cell,
    )


def _cells(
    compiled: CompiledModel, employees: int, days: int
) -> tuple[list[int], list[int], list[int], list[int], list[int], list[int]]:
    """The roster's cells: each (employee, day)'s shift options and each option's duties."""
    cells: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for (e, d, s), literal in compiled.x.items():
        cells.setdefault((e, d), []).append((s, literal.index))
    duties: dict[tuple[int, int, int], list[tuple[int, int]]] = {}
    for (e, d, s, k), literal in compiled.y.items():
        duties.setdefault((e, d, s), []).append((k, literal.index))
    cell_start, oy_start = [0], [0]
    opt_x: list[int] = []
    opt_shift: list[int] = []
    oy_var: list[int] = []
    oy_duty: list[int] = []
    for e in range(employees):
        for d in range(days):
            for s, x in sorted(cells.get((e, d), ())):
                opt_x.append(x)
                opt_shift.append(s)
                for k, y in sorted(duties.get((e, d, s), ())):
                    oy_var.append(y)
                    oy_duty.append(k)
                oy_start.append(len(oy_var))
            cell_start.append(len(opt_x))
    return cell_start, opt_x, opt_shift, oy_start, oy_var, oy_duty
