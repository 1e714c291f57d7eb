"""Whether a page's scenarios differ at all, in words.

Scenarios solved with too little time can come back as one and the same roster (often
the roster the search starts from): a table and charts of three equal columns then look
like a finding about the policies when they are only the search's. The page says so.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from shiftsched.contract.v1 import Assignment


def roster_key(assignments: Sequence[Assignment]) -> frozenset[tuple[object, ...]]:
    """A roster as a set of cells, whatever order its assignments come in."""
    return frozenset((a.employee_id, a.date, a.shift_id, a.duty_id) for a in assignments)


def same_rosters(rosters: Mapping[str, Sequence[Assignment]]) -> list[list[str]]:
    """The scenarios whose rosters are the same, in groups of two or more (in the order
    of ``rosters``)."""
    groups: dict[frozenset[tuple[object, ...]], list[str]] = {}
    for name, assignments in rosters.items():
        groups.setdefault(roster_key(assignments), []).append(name)
    return [names for names in groups.values() if len(names) > 1]


def quoted(names: Sequence[str]) -> str:
    """“a”, “b” and “c”."""
    marked = [f"“{name}”" for name in names]
    return marked[0] if len(marked) == 1 else ", ".join(marked[:-1]) + " and " + marked[-1]


def same_rosters_words(
    groups: Sequence[Sequence[str]], total: int, finished: Collection[str], seconds: float
) -> str:
    """What the page says of :func:`same_rosters`' ``groups`` among ``total`` scenarios
    solved within ``seconds`` each, ``finished`` the ones proven optimal ("" when every
    roster differs)."""
    words = []
    for names in groups:
        which = (
            f"All {total} scenarios came back as the same roster"
            if len(names) == total
            else f"{quoted(names)} came back as the same roster"
        )
        if all(name in finished for name in names):
            words.append(f"**{which}**, proven optimal: here the policy changes nothing.")
        else:
            words.append(
                f"**{which}**, unfinished: the search stopped before the policies made a "
                "difference, so comparing them shows nothing about the policies. Raise the "
                f"time limit per solve (now {seconds:g} s) and the rosters can differ."
            )
    return " ".join(words)
