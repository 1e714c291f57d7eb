"""The side-by-side suite without solving: its requests, its results file and its summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from benchmarks.side_by_side import SCHEMA, append, instances, pending, read, sweep
from benchmarks.side_by_side_report import markdown
from benchmarks.suite import load_suite
from benchmarks.timefold_model.support import unsupported
from shiftsched.contract.size import request_size


def test_the_sweep_is_the_quick_suites_with_its_sizes_and_no_duties() -> None:
    shapes = sweep()
    quick = {i.name: i for i in load_suite("quick").instances}
    assert list(shapes) == [f"syn-{n}k" for n in (1, 3, 8, 20, 40, 60, 80, 120, 200, 280)]
    for name, shape in shapes.items():
        assert shape["duties"] == 0
        size = shape["employees"] * shape["shifts"] * shape["days"]
        assert size == _quick_size(quick[name])


def _quick_size(instance: Any) -> int:
    p = instance.source["synthetic"]
    return int(p["employees"] * p["shifts"] * max(1, p["duties"]) * p["days"])


def test_each_size_and_seed_is_a_request_the_timefold_model_takes_whole() -> None:
    chosen = instances(["syn-1k", "syn-3k"], [0, 1], ["engine@10", "timefold@30"])
    assert [i.name for i in chosen] == ["syn-1k-s0", "syn-1k-s1", "syn-3k-s0", "syn-3k-s1"]
    assert chosen[0].request() != chosen[1].request()  # seeds differ
    for instance in chosen:
        request = instance.request()
        assert unsupported(request) == []
        assert request_size(request) == _quick_size(
            next(i for i in load_suite("quick").instances if i.name == instance.name[:-3])
        )
        assert instance.run_of("timefold@30") == ("timefold", 30.0)
    with pytest.raises(ValueError, match="syn-2k"):
        instances(["syn-2k"], [0], ["engine@10"])


def _row(
    instance: str, method: str, objective: float | None, audit: str = "clean", **more: Any
) -> dict[str, Any]:
    sweep_name, _, seed = instance.rpartition("-s")
    return {
        "instance": instance,
        "method": method,
        "sweep": sweep_name,
        "seed": int(seed),
        "size": 1008 if sweep_name == "syn-1k" else 120_000,
        "objective": objective,
        "audit": audit,
        "first_feasible_seconds": 0.5,
        "peak_memory_mb": 300.0,
        **more,
    }


def test_runs_are_appended_and_only_the_missing_ones_are_pending(tmp_path: Path) -> None:
    path = tmp_path / "side.csv"
    chosen = instances(["syn-1k"], [0, 1], ["engine@10", "timefold@30"])
    assert len(pending(chosen, read(path))) == 4
    append(path, _row("syn-1k-s0", "engine@10", 100.0))
    append(path, _row("syn-1k-s1", "timefold@30", 150.0, audit="hard_violations"))
    done = read(path)
    assert done.height == 2 and done.schema == pl.Schema(SCHEMA)
    left = [(i.name, m) for i, m in pending(chosen, done)]
    assert left == [("syn-1k-s0", "timefold@30"), ("syn-1k-s1", "engine@10")]
    assert len(pending(chosen, done, again=True)) == 4


def _frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame([{k: r.get(k) for k in SCHEMA} for r in rows], schema=SCHEMA, orient="row")


def test_the_summary_compares_clean_rosters_and_judges_the_targets() -> None:
    rows = []
    for seed, (e10, e30, t30, t300) in enumerate(
        [(90, 60, 100, 95), (80, 70, 100, 70), (100, 50, 100, 120)]
    ):
        name = f"syn-1k-s{seed}"
        rows += [
            _row(name, "engine@10", e10),
            _row(name, "engine@30", e30),
            _row(name, "timefold@30", t30),
            _row(name, "timefold@300", t300),
        ]
    rows += [_row("syn-120k-s0", "engine@10", 10.0), _row("syn-120k-s0", "timefold@30", 5.0)]
    text = markdown(_frame(rows))
    assert "| syn-1k (1,008) | engine@30 / timefold@30 | 3 | 0.60 | 0.70 | 0 / 0 |" in text
    assert "syn-1k T1 engine@10 never worse than timefold@30: PASS" in text
    assert "syn-1k T2 engine@30 median ratio to timefold@30 <= 0.70: PASS" in text
    assert "syn-1k moonshot engine@10 <= timefold@300: MISS (median 0.95, worst 1.14" in text
    assert "- syn-1k-s1: engine@10 80.0 (clean) against timefold@300 70.0 (clean)" in text
    assert "syn-120k T1" not in text  # above 80,000: reported, not judged
    assert "- syn-120k-s0: engine@10 10.0 (clean) against timefold@30 5.0 (clean)" in text


def test_a_roster_that_is_not_clean_is_a_verdict_not_a_ratio() -> None:
    rows = [
        _row("syn-1k-s0", "engine@10", 500.0),
        _row("syn-1k-s0", "timefold@30", 100.0, audit="hard_violations"),
        _row("syn-1k-s1", "engine@10", None, audit="no_roster"),
        _row("syn-1k-s1", "timefold@30", 100.0),
    ]
    text = markdown(_frame(rows))
    assert "| syn-1k (1,008) | engine@10 / timefold@30 | 2 | - | - | 1 / 1 |" in text
    assert "T1 engine@10 never worse than timefold@30: MISS" in text
    assert "- syn-1k-s1: engine@10 None (no_roster) against timefold@30 100.0 (clean)" in text
    assert "syn-1k-s0: engine@10" not in text  # Timefold's roster broke a rule: no loss
