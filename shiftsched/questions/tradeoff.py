"""The fairness trade-off read honestly: each solve's state, and words drawn from the figures.

Between proven-optimal rosters a sweep of a fairness group's ``penalty_weight`` is a
trade-off: a higher weight never gives a larger excess over fair shares, and never
cheaper other terms (for weights w < v with optimal rosters x and y, optimality of each
gives ``(v - w) * (excess(y) - excess(x)) <= 0``, and then ``other(x) <= other(y)``).
An unfinished solve only holds the best roster found in its time, which can sit on either
side of that line. So every figure here carries its solve's state and gap, and every
caption is written from the figures it describes, never a fixed claim: a caption that
says the other terms rise must not stand over figures that fall.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final

from shiftsched.contract.v1 import SolveRequest
from shiftsched.questions.fair_share import GroupBurden, group_burden
from shiftsched.solving.greedy import greedy_roster, roster_assignments
from shiftsched.solving.problem import from_request
from shiftsched.solving.solve import SolveOutcome

FINISHED: Final = "proven optimal"
UNFINISHED: Final = "unfinished"
OTHER_TERMS: Final = "other terms (preferences, workload, coverage, other groups)"


def solve_state(outcome: SolveOutcome) -> str:
    """Whether the solve proved its roster optimal, or stopped with a roster unproven."""
    return FINISHED if outcome.status == "optimal" else UNFINISHED


def gap_percent(outcome: SolveOutcome) -> float | None:
    """The solve's gap to its proven bound, in percent (one decimal); None without a bound."""
    return None if outcome.gap is None else round(100 * outcome.gap, 1)


@dataclass(frozen=True)
class SweepPoint:
    """One weight of the sweep: what its roster costs apart from the group, and how fair."""

    weight: int
    other: float  # the objective less this group's fairness penalty
    excess: int
    gini: float
    state: str  # FINISHED or UNFINISHED
    gap: float | None  # percent


def number(value: float) -> str:
    """A figure as a caption shows it: thousands separated, no needless decimals."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def trend(values: Sequence[float], plural: bool = False) -> str:
    """How a series moves, in words: "falls from 1,350 to 380", "rises from 60 to 140",
    "stays at 60", or each value in turn when it goes both ways (the verb agrees with a
    ``plural`` subject: "fall", "rise", "stay", "go")."""
    s = "" if plural else "s"
    if not values:
        return "has no value"
    first, last = values[0], values[-1]
    steps = list(pairwise(values))
    if all(a == b for a, b in steps):
        return f"stay{s} at {number(first)}"
    if all(a >= b for a, b in steps):
        return f"fall{s} from {number(first)} to {number(last)}"
    if all(a <= b for a, b in steps):
        return f"rise{s} from {number(first)} to {number(last)}"
    return f"go{'es' if s else ''} " + " → ".join(number(v) for v in values)


def _gaps(points: Sequence[SweepPoint]) -> str:
    gaps = [p.gap for p in points if p.gap is not None]
    if not gaps:
        return "no bound proven"
    low, high = min(gaps), max(gaps)
    return f"gap {low:g}%" if low == high else f"gaps {low:g}% to {high:g}%"


def _state_words(points: Sequence[SweepPoint]) -> str:
    unfinished = [p for p in points if p.state != FINISHED]
    if not unfinished:
        return "Every point is proven optimal, so this is what fairness costs here."
    if len(unfinished) == len(points):
        return (
            f"None of these {len(points)} solves finished ({_gaps(points)}; hollow marks): "
            "each point is the best roster found in the time, so the figures show how far "
            "the search got as much as what fairness costs."
        )
    weights = ", ".join(str(p.weight) for p in unfinished)
    return (
        f"The points at weight {weights} are unfinished ({_gaps(unfinished)}; hollow "
        "marks): their figures could still move with more time."
    )


def contradicts_a_finished_sweep(points: Sequence[SweepPoint]) -> bool:
    """Whether the figures do what proven-optimal ones never do: the other terms fall, or
    the excess grows, as the weight rises."""
    steps = list(pairwise(points))
    return any(b.other < a.other or b.excess > a.excess for a, b in steps)


def sweep_caption(points: Sequence[SweepPoint]) -> str:
    """What the sweep shows, from its figures, and whether its solves finished."""
    ordered = sorted(points, key=lambda p: p.weight)
    if not ordered:
        return "No weight swept."
    if len(ordered) == 1:
        only = ordered[0]
        moves = (
            f"At weight {only.weight} the excess over fair shares is {only.excess} and the "
            f"{OTHER_TERMS} cost {number(only.other)}."
        )
    else:
        moves = (
            f"As the penalty weight rises from {ordered[0].weight} to {ordered[-1].weight}, "
            f"the excess over fair shares {trend([p.excess for p in ordered])} and the "
            f"{OTHER_TERMS} {trend([p.other for p in ordered], plural=True)}."
        )
    words = [moves, _state_words(ordered)]
    if contradicts_a_finished_sweep(ordered):
        words.append(
            "Proven-optimal rosters never do that (a higher weight never buys less "
            "fairness or cheaper other terms): the difference is the unfinished search's."
        )
    return " ".join(words)


def starting_burden(request: SolveRequest, index: int) -> GroupBurden:
    """Group ``index``'s burden in the roster the search starts from (the greedy pass
    that every solve is hinted with, shiftsched.solving.greedy)."""
    problem = from_request(request)
    return group_burden(request, roster_assignments(problem, greedy_roster(problem)), index)


def shared_most_burdened(burdens: Mapping[str, GroupBurden]) -> tuple[str, int] | None:
    """The employee who carries the most target shifts with the same count in every
    roster, or None when the rosters differ there."""
    tops = set()
    for burden in burdens.values():
        top = max(burden.shares, key=lambda share: share.count, default=None)
        tops.add((top.employee_id, top.count) if top else None)
    only = tops.pop() if len(tops) == 1 else None
    return only


def scenarios_note(
    states: Mapping[str, tuple[str, float | None]],
    shared: tuple[str, int] | None,
    start_count: int | None,
) -> str:
    """Why the scenarios differ as they do: ``states`` is each roster's state and gap,
    ``shared`` the most burdened employee when every roster gives them the same count,
    ``start_count`` their count in the roster the search starts from."""
    unfinished = {name: gap for name, (state, gap) in states.items() if state != FINISHED}
    if not unfinished:
        return "Every roster is proven optimal: what differs between them is the group's doing."
    gaps = ", ".join(
        f"{name} {'no bound' if gap is None else f'{gap:g}%'}" for name, gap in unfinished.items()
    )
    words = [
        f"Unfinished rosters (gap: {gaps}) are the best found in the time, so part of what "
        "differs between the scenarios is the search's, not the policy's."
    ]
    if shared is not None:
        employee, count = shared
        words.append(
            f"{employee} works {count} of the group's shifts in every roster, so the policy "
            "makes no visible difference to them"
        )
        if start_count == count:
            words[-1] += (
                f": the roster the search starts from (a greedy pass) gives {employee} "
                f"{count} too, and the search stopped before it moved them"
            )
        words[-1] += ". Raise the time limit to let the policies differ."
    return " ".join(words)
