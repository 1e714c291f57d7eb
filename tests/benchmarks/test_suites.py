"""The suite files: their shapes give the sizes they are named for, and they load."""

from __future__ import annotations

import pytest

from benchmarks.suite import ROOT, load_suite
from shiftsched.contract.size import LARGE_SIZE_THRESHOLD, problem_size

QUICK_BUDGET_SECONDS = 480  # time limits alone; process start, build and audit come on top
SEARCH_BUDGET_SECONDS = 30 * (10 + 30 + 30)  # 35 min; about 40 with the rest


@pytest.mark.parametrize("name", ["quick", "full"])
def test_synthetic_shapes_hit_their_nominal_size(name: str) -> None:
    suite = load_suite(name)
    for instance in suite.instances:
        if "synthetic" not in instance.source:
            continue
        p = instance.source["synthetic"]
        size = problem_size(p["employees"], p["shifts"], p["duties"], p["days"])
        assert instance.nominal_size is not None
        assert abs(size - instance.nominal_size) <= 0.01 * instance.nominal_size, instance.name
        assert (size <= LARGE_SIZE_THRESHOLD) == (instance.nominal_size <= LARGE_SIZE_THRESHOLD)


@pytest.mark.parametrize("name", ["quick", "full"])
def test_the_sweep_crosses_the_threshold_from_1k_to_280k(name: str) -> None:
    sweep = sorted(
        i.nominal_size
        for i in load_suite(name).instances
        if i.mix == "all" and i.nominal_size is not None
    )
    assert sweep[0] <= 1_000 and sweep[-1] >= 270_000
    assert LARGE_SIZE_THRESHOLD in sweep
    assert len([s for s in sweep if s > LARGE_SIZE_THRESHOLD]) >= 3
    assert len(sweep) >= 10


@pytest.mark.parametrize("name", ["quick", "full"])
def test_every_dataset_and_mix_is_there_and_parses(name: str) -> None:
    suite = load_suite(name)
    datasets = {i.source["dataset"] for i in suite.instances if "dataset" in i.source}
    assert datasets == {f"datasets/{p.name}" for p in (ROOT / "datasets").glob("*.json")}
    assert {i.mix for i in suite.instances} >= {
        "coverage",
        "workload",
        "sequences",
        "teams",
        "fairness",
        "all",
        "dataset",
    }
    for instance in suite.instances:
        if instance.nominal_size is None or instance.nominal_size <= 40_000:
            instance.request()  # valid (the large ones are covered by the generator tests)


def test_quick_suite_time_limits_leave_room_for_the_ten_minute_budget() -> None:
    runs = [(i.time_limit, m) for i in load_suite("quick").instances for m in i.methods]
    assert sum(limit for limit, method in runs if method != "greedy") <= QUICK_BUDGET_SECONDS


def test_search_suite_is_the_quick_sweep_at_three_seeds_and_two_engine_limits() -> None:
    quick = {
        i.name: i.source["synthetic"]
        for i in load_suite("quick").instances
        if i.mix == "all" and i.name.startswith("syn-")
    }
    search = load_suite("search").instances
    assert [i.name for i in search] == [f"{name}-s{seed}" for name in quick for seed in (0, 1, 2)]
    for instance in search:
        base, seed = instance.name.rsplit("-s", 1)
        assert instance.source["synthetic"] == {**quick[base], "seed": int(seed)}
        assert instance.methods == ("engine@10", "engine@30", "plain@30")
        assert [instance.run_of(m) for m in instance.methods] == [
            ("engine", 10.0),
            ("engine", 30.0),
            ("plain", 30.0),
        ]
    limits = sum(i.run_of(m)[1] for i in search for m in i.methods)
    assert limits == SEARCH_BUDGET_SECONDS
