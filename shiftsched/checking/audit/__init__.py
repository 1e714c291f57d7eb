"""Independent evaluator of a roster against docs/semantics.md.

This is the test oracle of the CP-SAT model. Both are written from the same semantics
page but share no code: this package does its own date arithmetic (periods, ISO weeks,
calendar months, proration, shift lengths) with :mod:`datetime` and plain loops, and it
never imports ``shiftsched.contract.horizon`` or ``shiftsched.solving``. When the two
disagree, one of them misreads the page.

:func:`audit` returns every broken hard rule (code from the semantics table, with who,
when and what, and ``field``, the JSON path of the input item behind it), every soft
term with a positive magnitude (merged by name, sorted by name), the objective value and
the shortage markers. :func:`compare_with_metrics` and :func:`compare_shortages` list the
differences between an audit and what a solver reported. :func:`read_response` reads a
roster from a response: its assignments strictly (every fault with its JSON path), its
metrics and shortages leniently (a roster written by another tool can still be audited;
what could not be compared is said in notes). :class:`ChangeEvaluator` prices one-cell
edits of a roster without auditing it again.

Readings chosen where the page leaves room:

- An assignment with an ``unknown_reference`` (employee, shift, duty or date) is reported
  once and then left out of every other rule: it cannot be placed on the calendar or
  priced. All other assignments count as listed, even those that break a hard rule (an
  employee listed twice on one date counts twice for heads, shift counts and hours).
- ``one_shift_per_date`` is reported once per employee and date listed more than once,
  however many times: its message gives the count and the distinct shifts with their
  multiplicities (the first :data:`LISTED_SHIFTS`, then how many more), its ``field`` the
  ``roster[i]`` of the second assignment of that cell. A finding per extra assignment,
  each listing them all, would grow with the square of the duplicates.
- Heads, managers and duty holders count assignments on ``(shift, date)``.
- A fixed assignment dated outside the period is not part of this roster and is ignored.
- A ``preferred_shift`` whose date is outside the period, or whose shift is unknown, is
  unmeetable and so always costs its weight (the page: "priced as written").
- Scope ``shift`` of skill support takes the highest value of ``skill_levels``, whatever
  its keys; a highest level of 0 is neither beginner nor senior.
- A ``require`` transition whose next date is a holiday still counts (``to`` is not
  worked on d+1); only the last date of the period is exempt.
- ``employee_pairings`` lists are read as sets (a repeated id counts once).
- A shift without ``working_hours`` lasts 0 minutes (the contract requires hours on every
  shift assignable to an employee with a weekly limit).
- Shortage markers sort by kind, date, ``shift_id``, ``duty_id``, cross-shift index; ids
  compare as strings and an absent id sorts first. A cross-shift marker has no
  ``shift_id``, so markers of one date sort by duty id, then by their index.

The package's attribute ``audit`` is the function (no module of it is named ``audit``),
so ``from shiftsched.checking.audit import audit`` gives the function.
"""

from shiftsched.checking.audit.change import ChangeEvaluator
from shiftsched.checking.audit.context import shift_minutes
from shiftsched.checking.audit.evaluate import audit, audit_json
from shiftsched.checking.audit.findings import AuditReport, HardViolation
from shiftsched.checking.audit.metrics import compare_shortages, compare_with_metrics
from shiftsched.checking.audit.response import ReadResponse, read_response
from shiftsched.checking.audit.terms import (
    CONSECUTIVE_DAYS,
    DAYS_PER_MONTH_MIN,
    DAYS_PER_WEEK,
    DEFAULT_MAX_CONSECUTIVE_DAYS,
    DEMAND_EXCESS,
    FAIRNESS_DEFAULT,
    HARD_CODES,
    LISTED_SHIFTS,
    PAIRING_REQUIRE,
    PREFERENCE,
    SHIFT_TRANSITION,
    SHORTAGE,
    SHORTAGE_KINDS,
    SKILL_SUPPORT,
    WEEKLY_HOURS,
    WEIGHTS,
)

__all__ = [
    "CONSECUTIVE_DAYS",
    "DAYS_PER_MONTH_MIN",
    "DAYS_PER_WEEK",
    "DEFAULT_MAX_CONSECUTIVE_DAYS",
    "DEMAND_EXCESS",
    "FAIRNESS_DEFAULT",
    "HARD_CODES",
    "LISTED_SHIFTS",
    "PAIRING_REQUIRE",
    "PREFERENCE",
    "SHIFT_TRANSITION",
    "SHORTAGE",
    "SHORTAGE_KINDS",
    "SKILL_SUPPORT",
    "WEEKLY_HOURS",
    "WEIGHTS",
    "AuditReport",
    "ChangeEvaluator",
    "HardViolation",
    "ReadResponse",
    "audit",
    "audit_json",
    "compare_shortages",
    "compare_with_metrics",
    "read_response",
    "shift_minutes",
]
