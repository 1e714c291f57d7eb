"""Deletion with core refinement (shiftsched.solving.conflicts) on an oracle whose conflicts are
known: a set of items is infeasible exactly when it contains one of the planted conflict sets."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from shiftsched.solving.conflicts import shrink


class Oracle:
    def __init__(self, conflicts: Sequence[frozenset[int]], *, name_cores: bool) -> None:
        self.conflicts = conflicts
        self.name_cores = name_cores  # False: the solver names the whole set as its core
        self.probes = 0

    def infeasible(self, items: Sequence[int]) -> bool:
        return any(c <= set(items) for c in self.conflicts)

    def probe(self, kept: list[int], dropped: int) -> list[int] | None:
        self.probes += 1
        if not self.infeasible(kept):
            return None
        if not self.name_cores:
            return kept
        first = next(c for c in self.conflicts if c <= set(kept))
        return [i for i in kept if i in first]


conflict_sets = st.lists(
    st.frozensets(st.integers(0, 15), min_size=1, max_size=4), min_size=1, max_size=4
)


@given(conflict_sets, st.booleans())
def test_the_result_is_a_minimal_conflict_within_the_core(
    conflicts: list[frozenset[int]], name_cores: bool
) -> None:
    oracle = Oracle(conflicts, name_cores=name_cores)
    core = sorted(set().union(*conflicts))
    found = shrink(core, oracle.probe)
    assert set(found) <= set(core)
    assert oracle.infeasible(found)
    for item in found:
        assert len(found) == 1 or not oracle.infeasible([i for i in found if i != item])


def test_core_refinement_drops_everything_outside_the_named_core_at_once() -> None:
    conflict = frozenset({40, 41})
    core = list(range(50))
    refined = Oracle([conflict], name_cores=True)
    assert sorted(shrink(core, refined.probe)) == [40, 41]
    plain = Oracle([conflict], name_cores=False)
    assert sorted(shrink(core, plain.probe)) == [40, 41]
    assert refined.probes <= 3 < plain.probes == 50


def test_out_of_time_returns_what_is_left_still_a_conflict() -> None:
    oracle = Oracle([frozenset({3, 4})], name_cores=False)
    budget = iter([True, True, False])
    found = shrink(list(range(8)), oracle.probe, lambda: next(budget))
    assert oracle.probes == 2 and found == [2, 3, 4, 5, 6, 7]
