"""What a constraint family declares about itself, once.

A family is the rules one part of the request states (``working_days_per_month``,
``shift_transitions``, ...). Its descriptor, :class:`RuleFamily`, sits in the model module
that posts it and says everything the rest of the engine needs to know about it: its one
name, how it posts its rules, the hard-rule codes and soft-term names it can cause, how
the diagnosis words each hard rule and how the relaxation changes it, and how a what-if
variant switches it off. :data:`shiftsched.solving.model.registry.FAMILIES` lists the descriptors;
build, diagnose, relax and variants iterate that tuple and keep no table of their own.

The helpers at the end edit a request as JSON, for the relaxations and switch-offs.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shiftsched.contract.v1 import SolveRequest
from shiftsched.solving.model.context import ModelContext
from shiftsched.solving.model.terms import HardGroup

Json = dict[str, Any]
Post = Callable[[ModelContext], None]
Describe = Callable[[SolveRequest, HardGroup, "re.Match[str]"], str]
Relax = Callable[[Json, "re.Match[str]"], None]
SwitchOff = Callable[[Json], None]

EMPLOYEE_PATH = r"employees\[(?P<e>\d+)\]"


@dataclass(frozen=True)
class HardRule:
    """One hard rule an input item states: the unit the diagnosis reports and relaxes.

    ``code`` is the name the audit and ``Cause.cause_type`` use (docs/semantics.md).
    ``path`` matches the JSON path of the item (the hard group's field); its named groups
    reach ``describe`` and ``relax``. ``relax`` is None for the rules of imported
    benchmarks, which no v1 request can state.
    """

    code: str
    path: str
    describe: Describe
    advice: str
    relax: Relax | None = None

    def match(self, field: str) -> re.Match[str] | None:
        return re.fullmatch(self.path, field, re.DOTALL)


@dataclass(frozen=True)
class RuleFamily:
    """A constraint family: the one place its identity is spelt.

    ``name`` is the request field that states the family (a problem field for the rules
    only imported benchmarks have); ``build(skip=...)`` and the what-if variants take it.
    ``post`` adds the family to a model under construction; None when the rules hold by
    the absence of variables (eligibility, see :mod:`shiftsched.solving.model.eligibility`).
    ``hard`` says whether it can forbid a roster: diagnosis and the greedy row re-planner
    build only those families. ``soft_terms`` are the names of its penalty terms (a name
    ending in ``:`` is a prefix). ``switch_off`` edits a request so the family no longer
    applies; None when switching it off makes no sense (staffing demand is the roster's
    purpose).
    """

    name: str
    summary: str
    post: Post | None
    hard: bool
    hard_rules: tuple[HardRule, ...] = ()
    soft_terms: tuple[str, ...] = ()
    switch_off: SwitchOff | None = None


# ------------------------------------------------------------- editing a request's JSON


class NotHard(Exception):
    """The path resolves, but not to a hard rule that could make the request infeasible."""


REMOVED: Any = object()
"""Marks a list item to drop once every relaxation is applied, so indices keep meaning."""


def employee_at(data: Json, match: re.Match[str]) -> Json:
    """The employee the path's ``e`` group points at."""
    employees: list[Json] = data["employees"]
    return employees[int(match["e"])]


def remove_item(items: list[Any], index: int) -> None:
    if index >= len(items):
        raise IndexError(index)
    items[index] = REMOVED


def make_soft(rule: Json | None, what: str) -> None:
    if rule is None:
        raise NotHard(f"the request has no {what}")
    if rule["enforcement"] != "hard":
        raise NotHard(f"the {what} is already soft")
    rule["enforcement"] = "soft"


def drop_employee_field(field: str) -> SwitchOff:
    """A switch-off that removes ``field`` from every employee."""

    def drop(data: Json) -> None:
        for employee in data["employees"]:
            employee.pop(field, None)

    return drop


def drop_constraint(field: str) -> SwitchOff:
    """A switch-off that removes ``constraints.<field>``."""

    def drop(data: Json) -> None:
        data.get("constraints", {}).pop(field, None)

    return drop


def period_days(data: Json) -> int:
    """Days in the request's period (both ends included)."""
    period = data["schedule_period"]
    start = dt.date.fromisoformat(period["start_date"])
    return (dt.date.fromisoformat(period["end_date"]) - start).days + 1


def benchmark_rule(code: str, what: str) -> HardRule:
    """A per-employee hard rule only imported benchmarks state (shiftsched.formats).

    No v1 request reaches it, so it has no relaxation; its code names it in a diagnosis
    of a benchmark problem all the same.
    """

    def describe(request: SolveRequest, group: HardGroup, match: re.Match[str]) -> str:
        return f"{group.employee}: {what}"

    return HardRule(
        code,
        EMPLOYEE_PATH + rf"\.{code}",
        describe,
        "Change the benchmark instance's rule for this employee.",
    )
