"""The benchmark CLI end to end on a tiny suite: files, columns, audits, compare, scaling.

These run the real ``python -m benchmarks`` in a subprocess on instances that every
method solves to proven optimality in well under a second, with limits far above that
(so a busy machine changes no row); they check what is written, never how fast anything
was.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from benchmarks.compare import regressions
from benchmarks.frames import PROGRESS_SCHEMA, RUN_SCHEMA, read_progress, read_runs
from benchmarks.suite import ROOT

LIMIT = 60  # seconds; each run ends on its proof long before

SMOKE = {
    "name": "smoke",
    "instances": [
        {
            "name": "tiny-teams",
            "nominal_size": 170,
            "time_limit": LIMIT,
            "methods": ["engine", "plain", "greedy"],
            "source": {
                "synthetic": {
                    "employees": 6,
                    "shifts": 2,
                    "duties": 0,
                    "days": 14,
                    "seed": 0,
                    "mix": "teams",
                }
            },
        },
        {
            "name": "tiny-sequences",
            "nominal_size": 670,
            "time_limit": LIMIT,
            "methods": ["engine", "greedy"],
            "source": {
                "synthetic": {
                    "employees": 8,
                    "shifts": 3,
                    "duties": 2,
                    "days": 14,
                    "seed": 1,
                    "mix": "sequences",
                }
            },
        },
    ],
}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # the whole command; only a broken run comes near it
        check=False,
    )


@pytest.mark.slow
def test_a_smoke_suite_writes_results_charts_and_compares(tmp_path: Path) -> None:
    suite = tmp_path / "smoke.json"
    suite.write_text(json.dumps(SMOKE))
    out = tmp_path / "results"
    done = cli("run", "--suite", str(suite), "--out", str(out), "--workers", "1")
    assert done.returncode == 0, done.stderr

    (csv,) = out.glob("*-smoke.csv")
    runs = read_runs(csv)
    assert pl.read_csv(csv).columns == list(RUN_SCHEMA)
    assert read_runs(csv.with_suffix(".parquet")).equals(runs)
    assert runs.select("instance", "method").rows() == [
        ("tiny-teams", "engine"),
        ("tiny-teams", "plain"),
        ("tiny-teams", "greedy"),
        ("tiny-sequences", "engine"),
        ("tiny-sequences", "greedy"),
    ]
    assert runs["audit"].to_list() == ["clean"] * 5
    assert runs["hard_violations"].to_list() == [0] * 5
    assert runs["objective"].null_count() == 0
    assert runs["peak_memory_mb"].min() > 0  # type: ignore[operator]
    solver = runs.filter(pl.col("method") != "greedy")
    assert solver["variables"].min() > 0  # type: ignore[operator]
    assert solver["first_feasible_seconds"].null_count() == 0

    progress = read_progress(csv)
    assert progress.columns == list(PROGRESS_SCHEMA)
    assert set(progress["series"]) == {"objective", "bound"}

    sidecar = json.loads(csv.with_suffix(".json").read_text())
    assert sidecar["machine"]["cores_available"] >= 1
    assert sidecar["machine"]["ortools"]
    assert len(sidecar["git"]["commit"]) == 40
    for chart in ("first-feasible", "gap", "progress"):
        for fmt in ("png", "svg", "html"):
            assert (out / f"{csv.stem}-{chart}.{fmt}").stat().st_size > 0
    assert "| target | verdict | numbers |" in done.stdout
    assert "| tiny-teams |" in done.stdout

    same = cli("compare", str(csv), str(csv), "--fail-on-regression")
    assert same.returncode == 0, same.stdout
    assert "0 regression(s) flagged" in same.stdout

    slower = tmp_path / "slower.csv"
    is_engine = (pl.col("instance") == "tiny-teams") & (pl.col("method") == "engine")
    runs.with_columns(
        pl.when(is_engine)
        .then(pl.col("first_feasible_seconds") * 2 + 1)
        .otherwise(pl.col("first_feasible_seconds"))
        .alias("first_feasible_seconds")
    ).write_csv(slower)
    flagged = cli("compare", str(csv), str(slower), "--fail-on-regression")
    assert flagged.returncode == 1, flagged.stdout
    assert "1 regression(s) flagged" in flagged.stdout
    assert "**first feasible**" in flagged.stdout
    assert cli("compare", str(csv), str(slower)).returncode == 0  # flagged, but no gate

    redrawn = cli("charts", str(csv))
    assert redrawn.returncode == 0, redrawn.stderr
    assert len(redrawn.stdout.split()) == 9


@pytest.mark.slow
@pytest.mark.multi_worker  # the point is two workers; only the audit and shape are asserted
def test_scaling_runs_each_worker_count_and_charts_it(tmp_path: Path) -> None:
    suite = tmp_path / "smoke.json"
    suite.write_text(json.dumps(SMOKE))
    out = tmp_path / "scaling"
    done = cli(
        "scaling",
        "--suite",
        str(suite),
        "--instance",
        "tiny-teams",
        "--workers",
        "1,2",
        "--time-limit",
        str(LIMIT),
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    (csv,) = out.glob("*-scaling-tiny-teams.csv")
    runs = read_runs(csv)
    assert runs["workers"].to_list() == [1, 2]
    assert runs["audit"].to_list() == ["clean", "clean"]
    cores = runs["cores"][0]
    assert runs["oversubscribed"].to_list() == [cores < 1, cores < 2]
    assert (out / f"{csv.stem}-chart.png").stat().st_size > 0


ROW = {
    "first_feasible_seconds": 1.0,
    "gap": 0.02,
    "objective": 100.0,
    "audit": "clean",
    "status": "feasible",
}


def test_regressions_follow_the_documented_thresholds() -> None:
    assert regressions(ROW, ROW) == []
    assert regressions(ROW, {**ROW, "first_feasible_seconds": 1.3}) == ["first feasible"]
    assert regressions(ROW, {**ROW, "first_feasible_seconds": 1.15}) == []
    tiny = {**ROW, "first_feasible_seconds": 0.02}
    assert regressions(tiny, {**tiny, "first_feasible_seconds": 0.06}) == []  # +200 %, 0.04 s
    assert regressions(ROW, {**ROW, "gap": 0.035}) == ["gap"]
    assert regressions(ROW, {**ROW, "gap": 0.025}) == []
    assert regressions(ROW, {**ROW, "objective": 101.0}) == ["objective"]
    assert regressions(ROW, {**ROW, "objective": 90.0}) == []
    assert regressions(ROW, {**ROW, "audit": "hard_violations"}) == ["audit"]
    assert regressions(ROW, {**ROW, "status": "timeout"}) == ["status"]
    assert regressions({**ROW, "status": "timeout"}, ROW) == []


@pytest.mark.slow
def test_help_lists_every_command_and_each_command_has_its_own_help() -> None:
    from benchmarks.__main__ import COMMANDS

    done = cli("--help")
    assert done.returncode == 0
    for name in COMMANDS:
        assert f"  {name} " in done.stdout
    for name in ("run", "curtois-report", "compare"):
        own = cli(name, "--help")
        assert own.returncode == 0, own.stderr
        assert f"python -m benchmarks {name}" in own.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run", "--suite", "nope"), "no suite 'nope'"),
        (("report", "absent.csv"), "absent.csv"),
        (("frobnicate",), "invalid choice: 'frobnicate'"),
        ((), "usage: python -m benchmarks"),
    ],
)
def test_mistakes_are_one_line_errors_not_tracebacks(args: tuple[str, ...], message: str) -> None:
    done = cli(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "module",
    [
        "concurrency",
        "fingerprint",
        "inquiry",
        "inrc2",
        "job_control",
        "ledger",
        "load",
        "replanning",
        "seam",
        "side_by_side",
        "timefold_model.command",
        "year",
    ],
)
def test_a_command_read_from_its_docstring_says_whole_sentences_in_plain_text(
    module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The help shows the first paragraph whole (never cut mid-sentence) and no reST or
    Markdown marks."""
    import importlib

    with pytest.raises(SystemExit) as done:
        importlib.import_module(f"benchmarks.{module}").main(["--help"])
    assert done.value.code == 0
    shown = capsys.readouterr().out
    description = shown.split("\n\n")[1]
    assert description.rstrip().endswith((".", ":")), description
    for mark in ("``", "**", ":data:`", ":func:`"):
        assert mark not in shown, mark
