"""Extra CP-SAT parameters through ``SolveLimits.parameters`` and ``set_parameter``."""

from __future__ import annotations

import pytest
from ortools.sat.python import cp_model

from shiftsched.solving.solve import SolveLimits, _parameters, set_parameter


def test_strings_are_read_as_the_field_type() -> None:
    solver = cp_model.CpSolver()
    set_parameter(solver, "use_lns_only", "true")
    set_parameter(solver, "num_violation_ls", "1")
    set_parameter(solver, "relative_gap_limit", "0.5")
    set_parameter(solver, "search_branching", "FIXED_SEARCH")
    set_parameter(solver, "subsolvers", "default_lp,ls")
    p = solver.parameters
    assert p.use_lns_only is True
    assert p.num_violation_ls == 1
    assert p.relative_gap_limit == 0.5
    assert p.search_branching == type(p.search_branching).__members__["FIXED_SEARCH"]
    assert list(p.subsolvers) == ["default_lp", "ls"]


def test_typed_values_and_lists() -> None:
    solver = cp_model.CpSolver()
    set_parameter(solver, "linearization_level", 2)
    set_parameter(solver, "ignore_subsolvers", ["ls"])
    assert solver.parameters.linearization_level == 2
    assert list(solver.parameters.ignore_subsolvers) == ["ls"]


def test_unknown_or_malformed_parameters_fail() -> None:
    solver = cp_model.CpSolver()
    with pytest.raises(ValueError, match="unknown"):
        set_parameter(solver, "no_such_parameter", 1)
    with pytest.raises(ValueError, match="bool"):
        set_parameter(solver, "use_lns_only", "maybe")


def test_limits_apply_parameters_after_the_engine_ones() -> None:
    solver = cp_model.CpSolver()
    limits = SolveLimits(num_workers=2, parameters={"num_violation_ls": "1"})
    _parameters(solver, limits, 2, 5.0)
    assert solver.parameters.num_violation_ls == 1
    assert solver.parameters.num_workers == 2
    default = cp_model.CpSolver()
    _parameters(default, SolveLimits(), 2, 5.0)
    assert default.parameters.num_violation_ls == cp_model.CpSolver().parameters.num_violation_ls
