"""The diagnosis's probes in words: whom each re-solve covered, what it switched off, and
what came of it.

A probe (:class:`shiftsched.solving.diagnose.Probe`) names a rule family by its code and an input
item by its JSON path; a person reading the infeasibility notebook needs both the words
and the path. Each hard rule is worded as in docs/semantics.md, "Hard rules (a roster
that breaks one is invalid)", so the notebook and the documentation say the same thing
(a test compares the two; the two rules that table words by a reference further down are
worded from those sections). Each probe also names the employees it re-solved: the
diagnosis splits a request into groups of employees that share no hard rule, so one
group may have a roster while another has none, and two "every rule on" probes with
different answers are not a contradiction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import polars as pl

from shiftsched.solving.diagnose import Probe
from shiftsched.solving.model.registry import HARD_RULES

#: Each hard rule in the words of the semantics' table of hard rules.
RULE_WORDS: Final[Mapping[str, str]] = {
    "assignable_shift": "the shift is in the employee's assignable_shift_ids",
    "holiday": "no assignment on a holiday",
    "available_weekday": "the date's weekday is in available_weekdays (when given)",
    "skill_level": "no duty with skill level 0",
    "fixed_assignment": "each fixed assignment is worked (with its duty when it names one)",
    "shift_count_limit": "per employee and shift, count over the period within [min, max]",
    "max_consecutive_days": (
        "no run of more than N consecutive worked dates "
        "(N = max_consecutive_working_days, default 6)"
    ),
    "days_per_month_max": (
        "worked dates in each calendar month overlapping the period <= working_days_per_month.max"
    ),
    "weekly_hours": "enforcement: hard: worked minutes per ISO week <= 60 * hours",
    # The table points further down for these two; their words are from those sections.
    "shift_transition": (
        "enforcement: hard: forbid, never from on one date and to on the next; "
        "require, from on one date is followed by to on the next"
    ),
    "pairing_exclude": "no two employees of an exclude pairing on the same shift and date",
    "skill_support": (
        "enforcement: hard: a group with a beginner (level 1..3) has a senior (level 7..10)"
    ),
}

OUTCOME_WORDS: Final[Mapping[str, str]] = {
    "feasible": "a roster exists",
    "infeasible": "still no roster",
    "undecided": "undecided in the time",
}
MAX_NAMED_EMPLOYEES = 4
PROBE_SCHEMA: Final = {
    "order": pl.Int64,
    "step": pl.String,
    "employees": pl.String,
    "label": pl.String,
    "switched off": pl.String,
    "family": pl.String,
    "outcome": pl.String,
    "result": pl.String,
    "seconds": pl.Float64,
}


def rule_code(field: str) -> str | None:
    """The code of the hard rule whose item sits at ``field`` (a JSON path), if any."""
    return next((code for code, rule in HARD_RULES.items() if rule.match(field)), None)


def rule_words(code: str | None) -> str:
    """A hard rule's code with its words: ``fixed_assignment: each fixed assignment ...``."""
    if code is None:
        return "a rule"
    words = RULE_WORDS.get(code)
    return f"{code}: {words}" if words else code


def item_words(field: str) -> str:
    """An input item by its JSON path and the words of the rule it states."""
    code = rule_code(field)
    return f"{field} ({rule_words(code)})" if code else field


def who(employees: Sequence[str], everyone: int) -> str:
    """The employees a probe re-solved, named (a few) or counted (many)."""
    if not employees:
        return "nobody"
    if len(employees) == everyone and everyone > 1:
        return "both employees" if everyone == 2 else f"all {everyone} employees"
    if len(employees) == 1:
        return f"employee {employees[0]}"
    if len(employees) <= MAX_NAMED_EMPLOYEES:
        return f"employees {', '.join(employees)}"
    named = ", ".join(employees[:MAX_NAMED_EMPLOYEES])
    return f"employees {named} and {len(employees) - MAX_NAMED_EMPLOYEES} more"


def switched_short(probe: Probe) -> str:
    """What the probe switched off, short enough for a chart's axis (codes and paths)."""
    paths = ", ".join(probe.relaxed)
    if probe.kind == "check":
        return "every rule on"
    if probe.kind == "family":
        return f"every {probe.family} rule off"
    if probe.kind == "core":
        if not paths:
            return "every rule on, asking for a conflict"
        return f"conflicts found so far off: {paths}"
    if probe.kind == "deletion":
        return f"suspects without {paths}"
    return f"only {paths} off"


def switched_words(probe: Probe) -> str:
    """What the probe switched off, whole: each rule in semantics.md's words, each item by
    its JSON path and its rule."""
    items = "; ".join(item_words(field) for field in probe.relaxed)
    if probe.kind == "check":
        return "nothing: every hard rule on, to see whether these employees have a roster"
    if probe.kind == "family":
        words = RULE_WORDS.get(probe.family or "")
        return f"every {probe.family} rule" + (f" ({words})" if words else "")
    if probe.kind == "core":
        if not items:
            return "nothing: every hard rule on, asking the solver which rules conflict"
        return f"the conflicts already found: {items}"
    if probe.kind == "deletion":
        return f"{items}, and every rule outside the conflict being narrowed down"
    return f"{items}, for everyone"


def probe_frame(probes: Sequence[Probe], everyone: int) -> pl.DataFrame:
    """One row per probe, in order: a chart label (number, employees, what was off,
    result) and the same in whole words. ``everyone``: employees in the request."""
    rows = []
    for i, probe in enumerate(probes):
        employees = who(probe.employees, everyone)
        result = OUTCOME_WORDS.get(probe.outcome, probe.outcome)
        rows.append(
            {
                "order": i,
                "step": probe.kind,
                "employees": employees,
                "label": f"{i + 1:>3}. {employees}: {switched_short(probe)} → {result}",
                "switched off": switched_words(probe),
                "family": probe.family,
                "outcome": probe.outcome,
                "result": result,
                "seconds": probe.seconds,
            }
        )
    return pl.DataFrame(rows, schema=PROBE_SCHEMA)
