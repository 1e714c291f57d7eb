"""Method labels with a time limit (``engine@10``) and the search targets report.

Everything here works on hand-written result rows: no solver runs, nothing is timed.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from benchmarks import frames, runner, targets
from benchmarks.report import Target
from benchmarks.suite import Instance, parse_method

SIZES = {"syn-1k": 1_008, "syn-80k": 80_000, "syn-120k": 120_000, "syn-280k": 279_000}


def row(
    instance: str,
    method: str,
    objective: float | None,
    *,
    gap: float | None = 0.05,
    status: str = "feasible",
    first: float | None = 0.5,
    wall: float = 10.0,
    audit: str = "clean",
) -> dict[str, Any]:
    base, seed = instance.rsplit("-s", 1)
    limit = parse_method(method)[1]
    return {
        "instance": instance,
        "method": method,
        "mix": "all",
        "source": f"synthetic(employees=12, shifts=3, duties=0, days=28, seed={seed}, mix=all)",
        "size": SIZES[base],
        "time_limit": limit,
        "objective": objective,
        "gap": gap if objective is not None else None,
        "status": status if objective is not None else "timeout",
        "first_feasible_seconds": first if objective is not None else None,
        "wall_seconds": wall,
        "audit": audit if objective is not None else "no_roster",
    }


def instance(
    name: str,
    short: float | None,
    long: float | None,
    plain: float | None,
    **long_fields: Any,
) -> list[dict[str, Any]]:
    return [
        row(name, "engine@10", short),
        row(name, "engine@30", long, **long_fields),
        row(name, "plain@30", plain),
    ]


def frame(*groups: list[dict[str, Any]]) -> pl.DataFrame:
    return frames.runs_frame([r for group in groups for r in group])


def by_name(runs: pl.DataFrame) -> dict[str, Target]:
    return {check.name.split()[0]: check for check in targets.checks(runs)}


# --- labels -------------------------------------------------------------------------------


def test_a_label_names_a_method_and_optionally_its_time_limit() -> None:
    assert parse_method("engine") == ("engine", None)
    assert parse_method("engine@10") == ("engine", 10.0)
    assert parse_method("plain@2.5") == ("plain", 2.5)
    for bad in (
        "cplex",
        "cplex@10",
        "engine@",
        "engine@ten",
        "engine@0",
        "engine@-1",
        "engine@inf",
    ):
        with pytest.raises(ValueError):
            parse_method(bad)


def entry(methods: list[str]) -> dict[str, Any]:
    return {
        "name": "x",
        "time_limit": 30,
        "methods": methods,
        "source": {"dataset": "datasets/ward_24_7.json"},
    }


def test_an_instance_runs_a_label_at_its_own_limit_or_the_instance_limit() -> None:
    item = Instance.from_json(entry(["engine@10", "engine", "plain@30"]))
    assert item.methods == ("engine@10", "engine", "plain@30")
    assert item.run_of("engine@10") == ("engine", 10.0)
    assert item.run_of("engine") == ("engine", 30.0)
    assert Instance.from_json(item.to_json()) == item  # what the child process receives
    with pytest.raises(ValueError, match="unknown methods"):
        Instance.from_json(entry(["engine@10", "cplex@10"]))
    with pytest.raises(ValueError, match="twice"):
        Instance.from_json(entry(["engine@10", "engine@10"]))
    with pytest.raises(ValueError, match="not a number"):
        Instance.from_json(entry(["engine@soon"]))


def test_the_runner_gives_the_child_the_method_and_the_row_the_label(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, float, int]] = []

    def child(item: Instance, method: str, limit: float, workers: int) -> dict[str, Any]:
        calls.append((method, limit, workers))
        run = {"instance": item.name, "method": method, "time_limit": limit, "status": "feasible"}
        return {"run": run, "progress": [{"seconds": 0.1, "series": "objective", "value": 1.0}]}

    monkeypatch.setattr(runner, "run_in_child", child)
    item = Instance.from_json(entry(["engine@10", "engine@30", "plain@30", "greedy"]))
    runs, progress = runner.run_all([item], time_scale=0.5, workers=2, log=lambda _: None)
    assert calls == [
        ("engine", 5.0, 2),
        ("engine", 15.0, 2),
        ("plain", 15.0, 2),
        ("greedy", 15.0, 2),
    ]
    assert runs.select("method", "time_limit").rows() == [
        ("engine@10", 5.0),
        ("engine@30", 15.0),
        ("plain@30", 15.0),
        ("greedy", 15.0),
    ]
    assert progress["method"].to_list() == ["engine@10", "engine@30", "plain@30", "greedy"]


def test_the_summary_reports_targets_for_labelled_runs_and_the_usual_table_for_others() -> None:
    labelled = frame(instance("syn-1k-s0", 10, 10, 20))
    plain = frames.runs_frame([{**row("syn-1k-s0", "engine@10", 10), "method": "engine"}])
    progress = frames.progress_frame([])
    search = runner.summarise(labelled, progress, "t")
    assert "| target | verdict | numbers |" in search and "T1 engine@10" in search
    assert "plain/engine first" not in search
    usual = runner.summarise(plain, progress, "t")
    assert "plain/engine first" in usual and "T1 " not in usual
    both = runner.summarise(pl.concat([labelled, plain]), progress, "t")
    assert "T1 engine@10" in both and "plain/engine first" in both


# --- arithmetic ---------------------------------------------------------------------------


def test_reduction_treats_no_roster_as_infinitely_expensive() -> None:
    assert targets.reduction(80.0, 100.0) == pytest.approx(0.2)
    assert targets.reduction(120.0, 100.0) == pytest.approx(-0.2)
    assert targets.reduction(0.0, 0.0) == 0.0
    assert targets.reduction(5.0, 0.0) == -math.inf
    assert targets.reduction(5.0, math.inf) == 1.0
    assert targets.reduction(math.inf, 5.0) == -math.inf
    assert targets.reduction(math.inf, math.inf) == 0.0


def test_the_seed_is_read_from_the_source() -> None:
    assert targets.seed_of("synthetic(employees=1, seed=12, mix=all)") == 12
    assert targets.seed_of("datasets/ward_24_7.json") is None
    assert targets.seed_of(None) is None


# --- targets ------------------------------------------------------------------------------


def test_every_target_passes_on_a_good_run() -> None:
    runs = frame(
        instance("syn-1k-s0", 50, 50, 50, status="optimal", gap=0.0),
        instance("syn-80k-s0", 90, 70, 100, gap=0.08),
        instance("syn-80k-s1", 90, 60, 100, gap=0.10),
        instance("syn-280k-s0", 900, 800, None, first=4.0, gap=0.5),
    )
    runs = runs.with_columns(
        pl.when((pl.col("instance") == "syn-1k-s0") & (pl.col("method") == "engine@10"))
        .then(pl.lit("optimal"))
        .otherwise(pl.col("status"))
        .alias("status")
    )
    checks = by_name(runs)
    assert {name: check.passed for name, check in checks.items()} == {
        "T1": True,
        "T2": True,
        "T3": True,
        "T4": True,
        "T5": True,
        "every": True,
    }
    # 1 - long/plain: 0 %, 30 %, 40 %, 100 % (no plain roster): median 35 %
    assert "median 35.0 % below over 4 instances" in checks["T2"].detail
    assert "; 1 where only engine@30 has a roster (counted as 100 %)" in checks["T2"].detail
    # gaps up to 80,000: 0 %, 8 %, 10 %
    assert "median 8.0 % over 3 instances" in checks["T4"].detail
    assert "1/1 proven" in checks["T3"].detail
    assert "worst 4.00 s (syn-280k-s0 engine@30)" in checks["T5"].detail


def test_t1_names_every_instance_where_the_short_engine_run_is_worse() -> None:
    runs = frame(
        instance("syn-80k-s0", 101, 90, 100),
        instance("syn-80k-s1", None, 90, 100),  # no roster at 10 s: worse than any
        instance("syn-80k-s2", 100 + 1e-5, 90, 100),  # within the tolerance
        instance("syn-120k-s0", 100, 90, None),  # plain found none: nothing to lose to
    )
    t1 = by_name(runs)["T1"]
    assert t1.passed is False
    assert t1.detail.startswith("2/4 no worse")
    assert "syn-80k-s0 101 > 100" in t1.detail and "syn-80k-s1 - > 100" in t1.detail


def test_t2_is_a_median_over_instances_not_a_ratio_of_medians() -> None:
    runs = frame(
        instance("syn-80k-s0", 10, 10, 10),  # 0 %
        instance("syn-80k-s1", 10, 10, 11),  # 9.1 %
        instance("syn-80k-s2", 10, 10, 1_000_000),  # 100 %
    )
    t2 = by_name(runs)["T2"]
    assert t2.passed is False
    assert "median 9.1 % below" in t2.detail
    assert "least 0.0 % (syn-80k-s0)" in t2.detail


def test_t3_wants_a_proof_from_the_ten_second_run_on_small_instances_only() -> None:
    runs = frame(
        [row("syn-1k-s0", "engine@10", 5, status="optimal", wall=2.5)],
        [row("syn-1k-s1", "engine@10", 5, status="feasible")],
        [row("syn-1k-s2", "engine@30", 5, status="optimal")],  # not the 10 s run
        [row("syn-80k-s0", "engine@10", 5, status="feasible")],  # too large to count
    )
    t3 = by_name(runs)["T3"]
    assert t3.passed is False
    assert t3.detail == "1/2 proven; slowest proof 2.5 s; not proven: syn-1k-s1 feasible"


def test_t4_counts_a_missing_roster_as_a_full_gap_and_ignores_large_sizes() -> None:
    runs = frame(
        instance("syn-1k-s0", 1, 1, 1, gap=0.0),
        instance("syn-80k-s0", 1, None, 1),
        instance("syn-80k-s1", 1, 1, 1, gap=0.2),
        instance("syn-120k-s0", 1, 1, 1, gap=0.0),  # above 80,000: not counted
    )
    t4 = by_name(runs)["T4"]
    assert t4.passed is False
    assert "median 20.0 % over 3 instances" in t4.detail
    assert "1 without a gap (counted as 100 %)" in t4.detail


def test_t5_judges_both_engine_runs_by_size_and_skips_plain_and_mid_sizes() -> None:
    runs = frame(
        [row("syn-80k-s0", "engine@10", 1, first=0.9)],
        [row("syn-80k-s0", "engine@30", 1, first=1.2)],
        [row("syn-80k-s0", "plain@30", 1, first=9.0)],  # plain's time is no target
        [row("syn-120k-s0", "engine@30", 1, first=9.0)],  # between the two lines
        [row("syn-280k-s0", "engine@10", None)],  # no roster: a miss
        [row("syn-280k-s0", "engine@30", 1, first=4.5)],
    )
    t5 = by_name(runs)["T5"]
    assert t5.passed is False
    assert "<= 80,000: 1/2 under 1 s, worst 1.20 s (syn-80k-s0 engine@30)" in t5.detail
    assert "over: syn-80k-s0 engine@30 1.20 s" in t5.detail
    assert ">= 250,000: 1/2 under 5 s, worst 4.50 s" in t5.detail
    assert "syn-280k-s0 engine@10 no roster" in t5.detail


def test_targets_without_the_runs_they_speak_about_are_not_applicable() -> None:
    runs = frame([row("syn-120k-s0", "engine@30", 1)])
    checks = by_name(runs)
    assert [checks[t].passed for t in ("T1", "T2", "T3", "T5")] == [None] * 4
    assert checks["T4"].passed is None  # 120k is above 80,000


def test_a_roster_that_fails_its_audit_is_named() -> None:
    runs = frame(
        [row("syn-1k-s0", "engine@10", 1)],
        [row("syn-1k-s0", "plain@30", 1, audit="metrics_mismatch")],
        [row("syn-1k-s1", "plain@30", None)],
    )
    check = by_name(runs)["every"]
    assert check.passed is False
    assert check.detail == (
        "1/2 clean; 1 run(s) without a roster; syn-1k-s0 plain@30 metrics_mismatch"
    )


# --- the table and the command ------------------------------------------------------------


def test_the_table_has_one_row_per_instance_in_suite_order() -> None:
    runs = frame(
        instance("syn-80k-s1", 12_345, 10_000.5, None, gap=0.125),
        instance("syn-1k-s0", 7, 7, 9, status="optimal", gap=0.0),
    )
    table = targets.instance_table(targets.instances(runs)).splitlines()
    assert table[0] == (
        "| instance | size | seed | engine@10 | engine@30 | plain@30 | engine@30 gap "
        "| optimal at 10 s | first s @10 | first s @30 |"
    )
    assert (
        table[2] == "| syn-80k-s1 | 80,000 | 1 | 12,345 | 10,000 | - | 12.5 % | no | 0.50 | 0.50 |"
    )
    assert table[3].startswith("| syn-1k-s0 | 1,008 | 0 | 7 | 7 | 9 | 0.0 % | no |")


def test_the_command_reads_a_results_file_and_can_fail_on_a_miss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = frame(instance("syn-80k-s0", 10, 5, 100), instance("syn-80k-s1", 20, 5, 100))
    frames.write(runs, frames.progress_frame([]), tmp_path / "search")
    csv = tmp_path / "search.csv"
    assert targets.main([str(csv)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## search\n\nTime limits as run: engine@10 10 s; engine@30 30 s;")
    assert "| T3 size <= 2,000: proven optimal within 10 s (engine@10) | n/a |" in out
    assert targets.main([str(csv), "--fail-on-miss"]) == 0  # nothing missed
    slow = runs.with_columns(pl.lit(2.0).alias("first_feasible_seconds"))
    frames.write(slow, frames.progress_frame([]), tmp_path / "slow")
    assert targets.main([str(tmp_path / "slow.csv"), "--fail-on-miss"]) == 1
    assert "| T5 first roster" in capsys.readouterr().out
