"""``python -m benchmarks certificate``: the decomposition's bound alone, on Curtois & Qu.

One instance at a time, in this process, nothing beside it: the column generation of
:mod:`shiftsched.solving.decompose` runs until it converges, stalls or reaches its time limit, and
the row printed says what it proved and when. This is how the tables of
benchmarks/docs/certificate.md, "The bound alone (one thread, nothing beside it)", were
measured. A bound above the best-known value would be a wrong proof: the command then
exits 1.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import get_args

from benchmarks.curtois import BEST_KNOWN
from shiftsched.formats import curtois
from shiftsched.solving.decompose import ColumnGeneration
from shiftsched.solving.decompose.generation import Pricing

SHARES = (0.90, 0.95, 0.98, 0.99)  # the milestones reported, as shares of best known


@dataclass(frozen=True)
class Measured:
    instance: int
    best_known: int
    bound: int | None
    converged: bool
    rounds: int
    seconds: float
    reached: dict[float, float]  # share of best known -> seconds to first reach it

    @property
    def share(self) -> float | None:
        return None if self.bound is None else self.bound / self.best_known

    def row(self) -> str:
        """The run as a row of the README's table."""
        share = "" if self.share is None else f"{100 * self.share:.1f} %"
        marks = ", ".join(f"{100 * s:.0f} % at {t:.1f} s" for s, t in sorted(self.reached.items()))
        return (
            f"| {self.instance} | {self.best_known} | {self.bound} | {share} | "
            f"{'yes' if self.converged else 'no'} | {self.rounds} | {self.seconds:.1f} | "
            f"{marks} |"
        )


def measure(number: int, seconds: float, pricing: Pricing) -> Measured:
    """One instance's run, and when its bound first reached each share of
    :data:`SHARES` of the best-known value."""
    problem = curtois.to_problem(curtois.load(number))
    best = BEST_KNOWN[number]
    started = time.perf_counter()
    reached: dict[float, float] = {}

    def heard(bound: int) -> None:
        for share in SHARES:
            if share not in reached and bound >= share * best:
                reached[share] = time.perf_counter() - started

    result = ColumnGeneration(problem, pricing=pricing).run(
        deadline=started + seconds, on_bound=heard
    )
    return Measured(
        number,
        best,
        result.bound,
        result.converged,
        result.rounds,
        time.perf_counter() - started,
        reached,
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks certificate",
        description="The decomposition's bound alone on Curtois & Qu instances, one at a time.",
    )
    parser.add_argument("instances", nargs="+", type=int, metavar="N", help="instances, 1-24")
    parser.add_argument("--seconds", type=float, default=120.0, help="limit per instance")
    parser.add_argument(
        "--pricing",
        choices=get_args(Pricing),
        default="paths_then_exact",
        help="how employees are priced (default: paths, then CP-SAT once they converge)",
    )
    args = parser.parse_args(argv)
    if bad := [n for n in args.instances if n not in BEST_KNOWN]:
        parser.error(f"no instance {bad[0]}: give 1-24")
    print("| instance | best known | bound | share | converged | rounds | seconds | reached |")
    print("|---|---|---|---|---|---|---|---|")
    wrong = False
    for number in args.instances:
        found = measure(number, args.seconds, args.pricing)
        print(found.row(), flush=True)
        wrong = wrong or (found.bound is not None and found.bound > found.best_known)
    return 1 if wrong else 0
