"""The part of a model a neighbourhood can change, as a small model of its own.

A sub-solve that fixes most of the roster through variable domains still hands CP-SAT
the whole model: on a 364-day, 150-employee request CP-SAT spends about 1.5 s loading
and presolving it before it looks at the few hundred freed cells. This module cuts the
model down instead. From the freed decisions it follows the constraints to the helper
variables they reach (a run indicator, a total, a penalty), and builds a model of only
those variables and the constraints that touch them, with every other variable folded
in as its incumbent value. Everything left out holds as the incumbent holds it: each
dropped constraint mentions only variables that keep their incumbent values.

The sub-model's objective carries the fixed part as its offset, so its objective value
is the full model's. Supported constraints are the kinds the rostering model posts
(linear, clauses, conjunctions, exactly-one, at-most-one, each possibly enforced);
:func:`Extractor.of` returns None for a model with any other kind, and the caller keeps
the whole-model path.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

LINEAR, BOOL_OR, BOOL_AND, EXACTLY_ONE, AT_MOST_ONE = range(5)
_BOOLEAN_KINDS = (
    ("bool_or", BOOL_OR),
    ("bool_and", BOOL_AND),
    ("exactly_one", EXACTLY_ONE),
    ("at_most_one", AT_MOST_ONE),
)
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
CHECK_STOP_EVERY = 10_000  # constraints read between two looks at the stop signal

Ints = np.ndarray  # a one-dimensional integer array


@dataclass(frozen=True)
class SubModel:
    """A cut-down model and how its variables map back to the full model's."""

    model: cp_model.CpModel
    variables: Ints  # full-model index of each sub-model variable, in order
    rows: int  # constraints of the full model it kept (folded)

    def expand(self, values: Ints, sub_solution: Sequence[int]) -> Ints:
        """A full solution: ``values`` with the sub-model's variables replaced."""
        full = values.copy()
        full[self.variables] = np.asarray(sub_solution, dtype=np.int64)
        return full


def _vars(literals: Ints) -> Ints:
    """The variable of each literal (the literal ``-v - 1`` is the negation of ``v``)."""
    return np.where(literals >= 0, literals, -literals - 1)


def _gather(data: Ints, starts: Ints, keys: Ints) -> tuple[Ints, Ints]:
    """``data[starts[k]:starts[k + 1]]`` for every key, concatenated, and their lengths."""
    first, lengths = starts[keys], starts[keys + 1] - starts[keys]
    total = int(lengths.sum())
    if total == 0:
        return data[:0], lengths
    shift = np.repeat(first - (np.cumsum(lengths) - lengths), lengths)
    return data[shift + np.arange(total)], lengths


def _distinct(values: Ints) -> Ints:
    """The sorted distinct values (by sorting: numpy's hashing unique is slower here)."""
    if values.size == 0:
        return values
    ordered = np.sort(values)
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    result: Ints = ordered[keep]
    return result


def _segment_sums(values: Ints, lengths: Ints) -> Ints:
    """The sum of each consecutive segment of ``values`` (exact for integers)."""
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    sums = np.concatenate(([0], np.cumsum(values, dtype=np.int64)))
    result: Ints = sums[bounds[1:]] - sums[bounds[:-1]]
    return result


def _boolean(constraint: object) -> tuple[int, Sequence[int]] | None:
    """The kind and literals of a Boolean constraint; None for any other kind."""
    for name, kind in _BOOLEAN_KINDS:
        if getattr(constraint, "has_" + name)():
            return kind, getattr(constraint, name).literals
    return None


class _Reader:
    """Reads a model's constraints into flat arrays, a few bytes per term."""

    def __init__(self) -> None:
        self.kinds = array("b")
        self.enforcement, self.enforcement_starts = array("q"), array("q", [0])
        self.refs, self.coeffs, self.ref_starts = array("q"), array("q"), array("q", [0])
        self.domains, self.domain_starts = array("q"), array("q", [0])

    def read(self, constraint: object) -> bool:
        """Append one constraint; False when its kind cannot be cut."""
        c = constraint
        if c.has_linear():  # type: ignore[attr-defined]
            kind = LINEAR
            linear = c.linear  # type: ignore[attr-defined]
            self.refs.extend(linear.vars)
            self.coeffs.extend(linear.coeffs)
            self.domains.extend(linear.domain)
        else:
            found = _boolean(c)
            if found is None:
                return False
            kind, literals = found
            self.refs.extend(literals)
            self.coeffs.extend([1] * len(literals))
        self.kinds.append(kind)
        self.enforcement.extend(c.enforcement_literal)  # type: ignore[attr-defined]
        self.enforcement_starts.append(len(self.enforcement))
        self.ref_starts.append(len(self.refs))
        self.domain_starts.append(len(self.domains))
        return True


class Extractor:
    """The model read once and indexed by variable; cuts a sub-model per neighbourhood.

    The index is built once per search (on a 364-day request of 1.1 million variables,
    about as long as building the model); each cut then costs in proportion to the part.
    """

    def __init__(self, model: cp_model.CpModel, read: _Reader, decisions: Collection[int]) -> None:
        proto = model.proto
        count = len(proto.variables)

        def ints(data: array) -> Ints:  # type: ignore[type-arg]
            return np.frombuffer(data, dtype=np.int64) if len(data) else np.zeros(0, np.int64)

        self.kinds = (
            np.frombuffer(read.kinds, dtype=np.int8) if len(read.kinds) else np.zeros(0, np.int8)
        )
        self.enforcement, self.enforcement_starts = (
            ints(read.enforcement),
            ints(read.enforcement_starts),
        )
        self.refs, self.coeffs, self.ref_starts = (
            ints(read.refs),
            ints(read.coeffs),
            ints(read.ref_starts),
        )
        self.domains, self.domain_starts = ints(read.domains), ints(read.domain_starts)
        rows = len(self.kinds)
        self.rows = rows
        self.decision = np.zeros(count, dtype=bool)
        self.decision[np.fromiter(decisions, dtype=np.int64)] = True
        self._variables = proto.variables  # domains are read per cut: 5 us a variable
        # A literal that an unconditional conjunction forces is a constant, not a helper
        # to follow: a hard group's literal is enforced true, and following it would
        # reach every constraint of its group.
        constant = np.zeros(count, dtype=bool)
        enforcement_lengths = np.diff(self.enforcement_starts)
        ref_lengths = np.diff(self.ref_starts)
        forced = np.flatnonzero((self.kinds == BOOL_AND) & (enforcement_lengths == 0))
        forced_refs, _ = _gather(self.refs, self.ref_starts, forced)
        constant[_vars(forced_refs)] = True
        self.constant = constant
        # Each row's variables (enforcement, then terms), and each variable's rows.
        row_ids = np.arange(rows)
        member_rows = np.concatenate(
            [np.repeat(row_ids, enforcement_lengths), np.repeat(row_ids, ref_lengths)]
        )
        members = _vars(np.concatenate([self.enforcement, self.refs])).astype(np.int32)
        by_row = np.argsort(member_rows, kind="stable")
        self.members = members[by_row]
        self.member_starts = np.concatenate(([0], np.cumsum(enforcement_lengths + ref_lengths)))
        by_variable = np.argsort(members, kind="stable")
        self.touching = member_rows[by_variable].astype(np.int32)
        self.variable_starts = np.searchsorted(members[by_variable], np.arange(count + 1))
        objective = proto.objective
        self.objective_vars = np.asarray(list(objective.vars), dtype=np.int64)
        self.objective_coeffs = np.asarray(list(objective.coeffs), dtype=np.int64)
        self.offset = objective.offset
        self.scaling = objective.scaling_factor
        # A helper in the objective and in no row is free in every part (nothing ties it).
        loose = self.objective_vars[np.diff(self.variable_starts)[self.objective_vars] == 0]
        self.loose = loose[~(self.constant[loose] | self.decision[loose])]

    @classmethod
    def of(
        cls,
        model: cp_model.CpModel,
        decisions: Collection[int],
        stopped: Callable[[], bool] = lambda: False,
    ) -> Extractor | None:
        """Read ``model``; None when it has a kind of constraint this module cannot cut,
        or when ``stopped()`` turns true while reading (1.1 million variables: 12 s)."""
        proto = model.proto
        if proto.has_floating_point_objective() or len(proto.search_strategy):
            return None
        if len(proto.objective.domain):
            return None
        reader = _Reader()
        for index, constraint in enumerate(proto.constraints):
            if not reader.read(constraint):
                return None
            if index % CHECK_STOP_EVERY == 0 and stopped():
                return None
        return cls(model, reader, decisions)

    def reach(self, free: Ints) -> tuple[Ints, Ints]:
        """The variables and rows a change of the decisions ``free`` can reach.

        A row is reached when it holds a variable that may change; a helper variable
        (neither a decision nor a constant) in a reached row may change too. Decisions
        outside ``free`` keep their values.
        """
        chosen = np.zeros(len(self.decision), dtype=bool)
        active = np.zeros(self.rows, dtype=bool)
        frontier = np.concatenate([free[~self.constant[free]], self.loose])
        chosen[frontier] = True
        while frontier.size:
            rows, _ = _gather(self.touching, self.variable_starts, frontier)
            rows = _distinct(rows)
            rows = rows[~active[rows]]
            active[rows] = True
            found, _ = _gather(self.members, self.member_starts, rows)
            found = _distinct(found)
            frontier = found[~(chosen[found] | self.decision[found] | self.constant[found])]
            chosen[frontier] = True
        return np.flatnonzero(chosen), np.flatnonzero(active)

    def extract(self, free: Collection[int], values: Ints) -> SubModel:
        """The sub-model in which the decisions ``free`` may change (see :meth:`reach`);
        ``values`` is a full solution, the incumbent."""
        variables, rows = self.reach(np.fromiter(free, dtype=np.int64))
        model = cp_model.CpModel()
        proto = model.proto
        local = np.full(len(self.decision), -1, dtype=np.int64)
        local[variables] = np.arange(variables.size)
        full = self._variables
        for v in variables.tolist():
            proto.variables.add().domain.extend(full[v].domain)
        _Folder(self, local, values, proto).add(rows)
        objective = proto.objective
        where = local[self.objective_vars]
        kept = where >= 0
        fixed = self.objective_coeffs[~kept] @ values[self.objective_vars[~kept]]
        objective.vars.extend(where[kept].tolist())
        objective.coeffs.extend(self.objective_coeffs[kept].tolist())
        objective.offset = self.offset + float(fixed)
        if self.scaling:
            objective.scaling_factor = self.scaling
        hint = proto.solution_hint
        hint.vars.extend(range(variables.size))
        hint.values.extend(values[variables].tolist())
        return SubModel(model, variables, int(rows.size))


class _Folder:
    """Writes rows into a sub-model, with every variable outside it as its value."""

    def __init__(self, source: Extractor, local: Ints, values: Ints, proto: object) -> None:
        self._source = source
        self._local = local
        self._values = values
        self._constraints = proto.constraints  # type: ignore[attr-defined]

    def _map(self, literals: Ints) -> tuple[Ints, Ints, Ints]:
        """Per literal: its sub-model literal, whether it is held, and its held truth."""
        variables = _vars(literals)
        index = self._local[variables]
        held = index < 0
        positive = literals >= 0
        mapped = np.where(positive, index, -index - 1)
        truth = np.where(positive, self._values[variables] != 0, self._values[variables] == 0)
        return mapped, held, truth

    def add(self, rows: Ints) -> None:
        s = self._source
        e_literals, e_lengths = _gather(s.enforcement, s.enforcement_starts, rows)
        e_mapped, e_held, e_truth = self._map(e_literals)
        dead = _segment_sums((e_held & ~e_truth).astype(np.int64), e_lengths) > 0
        e_keep = ~e_held
        refs, r_lengths = _gather(s.refs, s.ref_starts, rows)
        coeffs, _ = _gather(s.coeffs, s.ref_starts, rows)
        kinds = s.kinds[rows]
        linear_term = np.repeat(kinds == LINEAR, r_lengths)
        # Linear rows: fold held terms into the bounds. Boolean rows: count held literals.
        # (A linear row's terms are variables, never negated, so one mapping serves both.)
        variables = _vars(refs)
        r_mapped, r_held, r_truth = self._map(refs)
        fixed = _segment_sums(
            np.where(linear_term & r_held, coeffs * self._values[variables], 0), r_lengths
        )
        held_true = _segment_sums((~linear_term & r_held & r_truth).astype(np.int64), r_lengths)
        free_count = _segment_sums((~r_held).astype(np.int64), r_lengths)
        # Only the free literals and terms are written: slice them out once.
        e_bounds = np.concatenate(
            ([0], np.cumsum(_segment_sums(e_keep.astype(np.int64), e_lengths)))
        )
        f_bounds = np.concatenate(([0], np.cumsum(free_count)))
        e_list = e_mapped[e_keep].tolist()
        r_list, c_list = r_mapped[~r_held].tolist(), coeffs[~r_held].tolist()
        e_starts, f_starts = e_bounds.tolist(), f_bounds.tolist()
        sizes = r_lengths.tolist()
        for i, row in enumerate(rows.tolist()):
            if dead[i]:
                continue  # never enforced while its held enforcement is false
            enforcement = e_list[e_starts[i] : e_starts[i + 1]]
            f0, f1 = f_starts[i], f_starts[i + 1]
            free = r_list[f0:f1]
            kind = int(kinds[i])
            if kind == LINEAR:
                d0, d1 = s.domain_starts[row], s.domain_starts[row + 1]
                domain = [_shift(b, int(fixed[i])) for b in s.domains[d0:d1].tolist()]
                if not free:
                    if not _inside(0, domain):
                        self._forbid(enforcement)
                    continue
                self._linear(enforcement, free, c_list[f0:f1], domain)
                continue
            true = int(held_true[i])
            held = sizes[i] - (f1 - f0)
            if kind == BOOL_OR:
                if true:
                    continue
                if free:
                    self._post(enforcement, "bool_or", free)
                else:
                    self._forbid(enforcement)
            elif kind == BOOL_AND:
                if true < held:  # a literal held false
                    self._forbid(enforcement)
                elif free:
                    self._post(enforcement, "bool_and", free)
            elif true > 1:  # EXACTLY_ONE, AT_MOST_ONE
                self._forbid(enforcement)
            elif true == 1:
                if free:
                    self._post(enforcement, "bool_and", [-lit - 1 for lit in free])
            elif kind == EXACTLY_ONE:
                if not free:
                    self._forbid(enforcement)
                    continue
                self._post(enforcement, "bool_or", free)
                if len(free) > 1:
                    self._at_most_one(enforcement, free)
            elif len(free) > 1:
                self._at_most_one(enforcement, free)

    def _linear(
        self, enforcement: list[int], variables: list[int], coeffs: list[int], domain: list[int]
    ) -> None:
        constraint = self._constraints.add()
        constraint.enforcement_literal.extend(enforcement)
        linear = constraint.linear
        linear.vars.extend(variables)
        linear.coeffs.extend(coeffs)
        linear.domain.extend(domain)

    def _post(self, enforcement: list[int], kind: str, literals: list[int]) -> None:
        constraint = self._constraints.add()
        constraint.enforcement_literal.extend(enforcement)
        getattr(constraint, kind).literals.extend(literals)

    def _at_most_one(self, enforcement: list[int], literals: list[int]) -> None:
        if not enforcement:
            self._post(enforcement, "at_most_one", literals)
            return
        # An enforced at-most-one, as a linear row (not x is 1 - x).
        variables = [lit if lit >= 0 else -lit - 1 for lit in literals]
        coeffs = [1 if lit >= 0 else -1 for lit in literals]
        negated = sum(1 for lit in literals if lit < 0)
        self._linear(enforcement, variables, coeffs, [INT_MIN, 1 - negated])

    def _forbid(self, enforcement: list[int]) -> None:
        """The row cannot hold: its enforcement must not all be true."""
        self._constraints.add().bool_or.literals.extend(-lit - 1 for lit in enforcement)


def _shift(bound: int, fixed: int) -> int:
    """A domain bound moved by the held part, keeping infinite bounds infinite."""
    if bound <= INT_MIN or bound >= INT_MAX:
        return bound
    return max(INT_MIN + 1, min(INT_MAX - 1, bound - fixed))


def _inside(value: int, domain: list[int]) -> bool:
    return any(domain[i] <= value <= domain[i + 1] for i in range(0, len(domain), 2))
