"""The differences between an audit and what a solver reported: metrics and markers."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Final

from shiftsched.checking.audit.findings import AuditReport
from shiftsched.checking.audit.response import ReportedMetrics
from shiftsched.contract.v1 import Metrics, Shortage, SoftConstraintViolation

_TOLERANCE: Final = 1e-6


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=0.0, abs_tol=_TOLERANCE)


def compare_with_metrics(
    report: AuditReport,
    metrics: Metrics | ReportedMetrics | Mapping[str, Any],
    shortages: Sequence[Shortage | Mapping[str, Any]] | None = None,
) -> list[str]:
    """Differences between the audit and a solver's ``solution.metrics`` (empty: agree).

    Violations are compared as multisets keyed by name: a name reported twice, missing on
    one side, or with another penalty/violated_by is a difference. When ``shortages`` is
    given, the reported markers are compared too (see :func:`compare_shortages`).
    """
    reported = (
        metrics
        if isinstance(metrics, Metrics | ReportedMetrics)
        else Metrics.model_validate(metrics)
    )
    differences: list[str] = []

    if reported.objective_value is None:
        differences.append(f"objective_value: audit {report.objective_value}, reported none")
    elif not _close(reported.objective_value, report.objective_value):
        differences.append(
            f"objective_value: audit {report.objective_value}, reported {reported.objective_value}"
        )

    audited_by_name: dict[str, list[SoftConstraintViolation]] = defaultdict(list)
    for v in report.soft_constraint_violations:
        audited_by_name[v.name].append(v)
    reported_by_name: dict[str, list[SoftConstraintViolation]] = defaultdict(list)
    for v in reported.soft_constraint_violations:
        reported_by_name[v.name].append(v)

    for name in sorted(set(audited_by_name) | set(reported_by_name)):
        mine, theirs = audited_by_name.get(name, []), reported_by_name.get(name, [])
        if len(mine) != len(theirs):
            differences.append(
                f"{name}: audit has {len(mine)} entr{'y' if len(mine) == 1 else 'ies'}, "
                f"reported {len(theirs)}"
                + (f" (audit penalty {mine[0].penalty})" if mine else "")
                + (f" (reported penalty {theirs[0].penalty})" if theirs else "")
            )
            continue
        for a, r in zip(mine, theirs, strict=True):
            if not _close(a.penalty, r.penalty):
                differences.append(f"{name}: penalty audit {a.penalty}, reported {r.penalty}")
            if r.violated_by is None or a.violated_by is None:
                if r.violated_by != a.violated_by:
                    differences.append(
                        f"{name}: violated_by audit {a.violated_by}, reported {r.violated_by}"
                    )
            elif not _close(a.violated_by, r.violated_by):
                differences.append(
                    f"{name}: violated_by audit {a.violated_by}, reported {r.violated_by}"
                )

    if shortages is not None:
        differences.extend(compare_shortages(report, shortages))
    return differences


def _shortage_key(marker: Shortage) -> tuple[Any, ...]:
    return (
        marker.kind,
        marker.date.isoformat(),
        marker.shift_id,
        tuple(marker.shift_ids) if marker.shift_ids is not None else None,
        marker.duty_id,
        marker.required,
        marker.assigned,
        marker.missing,
    )


def compare_shortages(
    report: AuditReport,
    shortages: Sequence[Shortage | Mapping[str, Any]],
    *,
    check_order: bool = True,
) -> list[str]:
    """Differences between audited and reported shortage markers (multiset, then order)."""
    reported = [m if isinstance(m, Shortage) else Shortage.model_validate(m) for m in shortages]
    mine = Counter(_shortage_key(m) for m in report.shortages)
    theirs = Counter(_shortage_key(m) for m in reported)
    differences = [
        f"shortage only in the audit: {key}" for key in sorted((mine - theirs).elements(), key=repr)
    ]
    differences += [
        f"shortage only in the report: {key}"
        for key in sorted((theirs - mine).elements(), key=repr)
    ]
    reported_order = [_shortage_key(m) for m in reported]
    audited_order = [_shortage_key(m) for m in report.shortages]
    if check_order and not differences and reported_order != audited_order:
        differences.append("shortages: same markers, reported in another order")
    return differences
