"""The load and concurrency benchmarks' arithmetic and verdicts on hand-made samples.

No service, no solver and no clock: percentiles, per-concurrency summaries, targets, the
audit verdict of a served roster and the per-cell figures of the concurrency grid.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.concurrency import Solve, cells, pivot_table
from benchmarks.load import (
    Answer,
    Audited,
    audit_solution,
    percentile,
    recorded_args,
    summarise,
    verdicts,
)
from shiftsched.checking.audit import audit
from shiftsched.contract.parse import parse_request
from tests.factories import minimal_request_dict


def answer(status: int | None, seconds: float, **extra: Any) -> Answer:
    return Answer(concurrency=4, round=1, index=0, status=status, seconds=seconds, **extra)


def test_percentile_is_nearest_rank() -> None:
    samples = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert percentile(samples, 50) == 3.0
    assert percentile(samples, 95) == 5.0
    assert percentile(samples, 0) == 1.0
    assert percentile([float(i) for i in range(1, 21)], 95) == 19.0
    assert percentile([], 50) is None


def test_labels_and_allowed_statuses() -> None:
    assert answer(503, 0.1, retry_after="5").label == "503"
    assert answer(503, 0.1).label == "503 no Retry-After"
    assert answer(None, 300.0).label == "no answer"
    allowed = {s: answer(s, 1.0, retry_after="5").allowed for s in (200, 422, 500, 503, 504)}
    assert allowed == {200: True, 422: False, 500: False, 503: True, 504: True}
    assert not answer(503, 0.1).allowed
    assert not answer(None, 300.0).allowed


def sample() -> list[Answer]:
    return [
        answer(200, 5.5, objective=900.0, audit="clean"),
        answer(200, 6.0, objective=1_000.0, audit="clean"),
        answer(200, 11.0, objective=20_900.0, audit="metrics_mismatch", detail="shortage"),
        answer(503, 0.2, retry_after="5"),
        answer(500, 25.0, detail="the solve missed its deadline"),
    ]


def test_summary_counts_spreads_and_notes() -> None:
    level = summarise(4, sample())
    assert level.requests == 5
    assert level.statuses == {"200": 3, "500": 1, "503": 1}
    assert (level.p50, level.p95, level.max_seconds) == (6.0, 25.0, 25.0)
    assert (level.objective_min, level.objective_median, level.objective_max) == (
        900.0,
        1_000.0,
        20_900.0,
    )
    assert (level.rosters, level.clean, level.bad_statuses) == (3, 2, 1)
    assert level.notes == ["500: the solve missed its deadline", "metrics_mismatch: shortage"]


def test_verdicts_flag_each_miss() -> None:
    level = summarise(4, sample())
    passed = {t.name.split(" ", 1)[1]: t.passed for t in verdicts(level, 5, 10)}
    assert passed == {
        "statuses in {200, 503 with Retry-After, 504}": False,
        "rosters audit clean, metrics agree": False,
        "p95 <= 15 s": False,
        "at least one 200": True,
    }


def test_verdicts_pass_a_shedding_service_and_skip_what_was_not_measured() -> None:
    shed = [answer(200, 6.0, objective=1.0, audit="clean"), answer(503, 0.1, retry_after="5")]
    assert all(t.passed for t in verdicts(summarise(2, shed), 5, 10))
    refused = summarise(2, [answer(504, 6.0), answer(503, 0.1, retry_after="5")])
    by_name = {t.name.split(" ", 1)[1]: t.passed for t in verdicts(refused, 5, 10)}
    assert by_name["rosters audit clean, metrics agree"] is None
    assert by_name["at least one 200"] is False


def test_audit_solution_verdicts() -> None:
    request = parse_request(minimal_request_dict())
    truth = audit(request, [])  # an empty roster: every head of demand missing
    metrics = {
        "solver_runtime_seconds": 1.0,
        "objective_value": truth.objective_value,
        "soft_constraint_violations": [
            v.model_dump(mode="json") for v in truth.soft_constraint_violations
        ],
    }
    shortages = [m.model_dump(mode="json", exclude_none=True) for m in truth.shortages]
    honest = {"assignments": [], "metrics": metrics, "shortages": shortages}
    assert audit_solution(request, honest) == Audited("clean", truth.objective_value)
    extra = {**honest, "shortages": [*shortages, shortages[0]]}  # a shortage that is not there
    mismatch = audit_solution(request, extra)
    assert mismatch.verdict == "metrics_mismatch" and "only in the report" in mismatch.detail
    stranger = {"employee_id": "nobody", "date": "2026-03-02", "shift_id": "day"}
    broken = audit_solution(request, {**honest, "assignments": [stranger]})
    assert broken.verdict == "hard_violations" and "unknown_reference" in broken.detail
    assert audit_solution(request, {"assignments": []}).verdict == "unreadable"


def solve(n: int, workers: int, objective: float | None, repeat: int = 0) -> Solve:
    return Solve(
        instance="datasets/ward.json",
        time_limit=5.0,
        solves=n,
        workers=workers,
        repeat=repeat,
        seed=0,
        status="feasible" if objective is not None else "lost",
        objective=objective,
        reported_objective=objective,
        audit="clean" if objective is not None else "no_roster",
        wall_seconds=4.9 if objective is not None else None,
        cpu_seconds=4.0 if objective is not None else None,
        batch_seconds=5.0,
    )


def test_concurrency_cells_against_their_own_baseline() -> None:
    solves = [
        solve(1, 1, 100.0),
        solve(1, 1, 120.0, repeat=1),
        solve(2, 1, 150.0),
        solve(2, 1, 250.0),
        solve(1, 2, 80.0),
        solve(2, 2, 80.0),
        solve(2, 2, None),
    ]
    by_key = {(c.solves, c.workers): c for c in cells(solves)}
    single, pair = by_key[(1, 1)], by_key[(2, 1)]
    assert (single.median_objective, single.versus_baseline) == (110.0, 1.0)
    assert pair.median_objective == 200.0 and pair.worst_objective == 250.0
    assert pair.versus_baseline == pytest.approx(200.0 / 110.0)
    assert pair.per_minute == pytest.approx(24.0)  # two rosters in one 5 s batch
    lossy = by_key[(2, 2)]
    assert (lossy.rosters, lossy.clean, lossy.versus_baseline) == (1, 1, 1.0)
    assert lossy.statuses == {"feasible": 1, "lost": 1}
    assert "| ward | 2 | 200 (1.82x) | 80 (1.00x) |" in pivot_table(cells(solves))


def test_recorded_command_leaves_out_the_log_path() -> None:
    argv = ["--serve", "--serve-log", "x.log", "--rounds", "1", "--serve-log=y.log", "--out"]
    assert recorded_args(argv) == ["--serve", "--rounds", "1", "--out"]
