"""One Timefold run as a row of the benchmarks' results frame (``benchmarks.frames``).

``python -m benchmarks _one --method timefold`` lands here, in a process of its own as
every run does, so the peak memory it reports is the JVM's and the model's together.
The roster is priced by the audit; the row's ``audit`` is ``clean``, ``hard_violations``,
or ``metrics_mismatch`` when Timefold's score disagrees with the audit
(:mod:`benchmarks.timefold_model.pricing`). ``variables`` counts the planning variables
(one per slot), ``build_seconds`` the translation of the request, and ``setup_seconds``
the domain and the constraints built in the JVM; the JVM's own start is not counted.
"""

from __future__ import annotations

import time
from typing import Any

from benchmarks.timefold_model.outcome import Limit
from benchmarks.timefold_model.pricing import price
from benchmarks.timefold_model.translate import translate
from shiftsched.contract.v1 import SolveRequest


def _verdict(hard_violations: int, differences: int) -> str:
    if hard_violations:
        return "hard_violations"
    return "metrics_mismatch" if differences else "clean"


def measured(request: SolveRequest, limit: Limit) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Solves with Timefold until ``limit``; the row's fields and progress points."""
    from benchmarks.timefold_model.run import solve  # starts the JVM

    started = time.perf_counter()
    model = translate(request)
    build = time.perf_counter() - started
    run = solve(model, limit)
    priced = price(request, run, limit)
    report, differences = priced.report, priced.agreement.differences
    fields = {
        "workers": 1,
        "variables": len(model.slots),
        "build_seconds": build,
        "setup_seconds": run.setup_seconds,
        "first_feasible_seconds": run.first_feasible_seconds,
        "best_seconds": run.best_seconds,
        "wall_seconds": run.wall_seconds,
        "objective": report.objective_value,
        "status": "feasible" if report.feasible else "infeasible",
        "cp_sat_status": f"timefold {run.score}",
        "solutions": len(run.improvements),
        "shortage_heads": sum(s.missing for s in report.shortages),
        "audit": _verdict(len(report.hard_violations), len(differences)),
        "hard_violations": len(report.hard_violations),
        "audit_differences": len(differences),
    }
    progress = [
        {"seconds": i.seconds, "series": "objective", "value": float(i.soft)}
        for i in run.improvements
        if i.hard == 0
    ]
    return fields, progress
