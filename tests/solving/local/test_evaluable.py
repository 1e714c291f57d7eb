"""The local search reads the model of every problem source (no ``NotEvaluable``).

Sources: synthetic requests of every family mix with duties, every shipped v1 dataset
and every planted-infeasible one, requests with a history (with and without a ledger),
Curtois & Qu instances 1-12, and INRC-II weeks (every week file of n005w4,
the first week of three more datasets, one week modelled with a forecast), pruned as a
solve builds them, and a few built as the full tensor (``prune=False``).

Curtois & Qu 13-24 are left out for time only: they took 0.2-48 s each to build and
read (24 builds a model of 1.1 million variables); all of 1-24 read without
``NotEvaluable`` when measured. So are the first weeks of the other INRC-II datasets
(13 s for all 23, up to 1.2 s each), which read as well.

Beyond not raising, the arrays must hold the model: every shift and duty decision is one
option of its cell, each decision's domain is {0, 1} (the search writes 0 and 1 to a
decision and checks no domain row for it), and the all-off roster is priced as the
model prices it.
"""

from __future__ import annotations

import numpy as np
import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.data.synthetic import MIXES, synthetic_request
from shiftsched.solving.local.arrays import local_model
from shiftsched.solving.local.search import LocalSearch
from shiftsched.solving.model.build import CompiledModel
from shiftsched.solving.problem import Problem, from_request
from tests.solving.local.cases import (
    ALL,
    DATASET_NAMES,
    HISTORY,
    INFEASIBLE_NAMES,
    SHAPE,
    case,
    enforced,
    inrc2_problem,
    model_price,
    problem_of,
)

pytestmark = pytest.mark.slow  # builds about sixty models

CURTOIS_NUMBERS = tuple(range(1, 13))
INRC2_WEEKS = 10  # week files of n005w4
SOURCES = (
    *(f"synthetic-{mix}-0" for mix in sorted(MIXES)),
    *(f"dataset-{name}" for name in DATASET_NAMES),
    *(f"infeasible-{name}" for name in INFEASIBLE_NAMES),
    *HISTORY,
    *(f"curtois-{n}" for n in CURTOIS_NUMBERS),
    *(f"inrc2-n005w4-week{k}" for k in range(INRC2_WEEKS)),
    "inrc2-n012w8",
    "inrc2-n021w4",
    "inrc2-n030w4",
    "inrc2-n005w4-forecast",
)
FULL_TENSOR = ("curtois-1", "curtois-3", "synthetic-all-0", "dataset-retail_weekdays")


def source(label: str) -> Problem:
    kind, _, name = label.partition("-")
    if kind == "synthetic":
        mix, _, seed = name.rpartition("-")
        data = synthetic_request(*SHAPE, seed=int(seed), mix=mix)
        return from_request(parse_request(data))
    if kind == "inrc2" and "-week" in name:
        dataset, _, week = name.partition("-week")
        return inrc2_problem(dataset, int(week))
    return problem_of(label)


def assert_read_whole(compiled: CompiledModel) -> None:
    local = local_model(compiled)  # raises NotEvaluable for a model it cannot read
    proto = compiled.model.proto
    options = {(e, d, s): x.index for (e, d, s), x in compiled.x.items()}
    read = {}
    for c in range(local.employees * local.days):
        e, d = divmod(c, local.days)
        for i in range(local.cell_start[c], local.cell_start[c + 1]):
            read[e, d, int(local.opt_shift[i])] = int(local.opt_x[i])
    assert read == options
    assert sorted(local.oy_var.tolist()) == sorted(y.index for y in compiled.y.values())
    for var in (*compiled.x.values(), *compiled.y.values()):
        assert list(proto.variables[var.index].domain) == [0, 1], var
    off = [0] * local.variables
    assert LocalSearch(local, off, seed=0).cost == model_price(compiled, off)
    assert np.array_equal(local.initial[local.opt_x], np.zeros(len(local.opt_x)))


@pytest.mark.parametrize("label", SOURCES)
def test_the_model_of_every_source_is_read_whole(label: str) -> None:
    shared = label in ALL  # a case the other tests build too: its model, built once
    assert_read_whole(case(label).compiled if shared else enforced(source(label)))


@pytest.mark.parametrize("label", FULL_TENSOR)
def test_the_full_tensor_model_is_read_whole(label: str) -> None:
    assert_read_whole(enforced(source(label), prune=False))
