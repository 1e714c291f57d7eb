"""Polars tables of a roster's soft terms: each violation with its family, and the penalty
summed per family."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from shiftsched.checking.items import term_field, term_words
from shiftsched.contract.v1 import SoftConstraintViolation, SolveRequest


def family_of(violation_name: str) -> str:
    """The soft-term family of a violation name: its part before the first ``:``."""
    return violation_name.split(":", 1)[0]


def violations_frame(
    violations: Sequence[SoftConstraintViolation], request: SolveRequest | None = None
) -> pl.DataFrame:
    """One row per soft term: its family, what it means in the words of
    docs/semantics.md and the JSON path of the input item behind it (with ``request``;
    the name alone otherwise), its penalty and amount, and its name."""
    return pl.DataFrame(
        {
            "family": [family_of(v.name) for v in violations],
            "what": [
                v.name if request is None else term_words(request, v.name, v.violated_by)
                for v in violations
            ],
            "penalty": [v.penalty for v in violations],
            "violated_by": [v.violated_by for v in violations],
            "field": [None if request is None else term_field(request, v.name) for v in violations],
            "name": [v.name for v in violations],
        },
        schema={
            "family": pl.String,
            "what": pl.String,
            "penalty": pl.Float64,
            "violated_by": pl.Float64,
            "field": pl.String,
            "name": pl.String,
        },
    )


def penalty_by_family(violations: Sequence[SoftConstraintViolation]) -> pl.DataFrame:
    """Total penalty per soft-term family, largest first."""
    return (
        violations_frame(violations)
        .group_by("family")
        .agg(pl.col("penalty").sum(), pl.len().alias("terms"))
        .sort(["penalty", "family"], descending=[True, False])
    )
