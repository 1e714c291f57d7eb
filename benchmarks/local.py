"""``python -m benchmarks local``: the compiled local search alone, on suite instances.

For each instance: the model's arrays (time to read them from the built model), then
three runs of the local search from the greedy start, each a fixed number of moves with
its own seed, so the rosters are the same on any machine and only the speed depends on
it. Prints, per run, the moves evaluated per second (a drawn move that changes nothing
is not evaluated) and the cost reached, against the start's; and the median and worst.
"""

from __future__ import annotations

import argparse
import statistics
import time

from benchmarks.suite import load_suite
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.hint import add_roster_hint, complete_hint
from shiftsched.solving.local.arrays import local_model
from shiftsched.solving.local.search import LocalSearch
from shiftsched.solving.model.build import build
from shiftsched.solving.problem import from_request

CHUNK = 100_000


def _instance(name: str, suite: str, moves: int, seeds: tuple[int, ...]) -> list[str]:
    instance = next(i for i in load_suite(suite).instances if i.name == name)
    problem = from_request(instance.request())
    compiled = build(problem)
    for group in compiled.hard_groups:
        compiled.model.add_bool_and([group.literal])
    add_roster_hint(compiled, greedy_roster(problem))
    start = complete_hint(compiled, 60.0)
    if start is None:
        return [f"| {name} | no start | | | |"]
    began = time.perf_counter()
    model = local_model(compiled)
    arrays = time.perf_counter() - began
    LocalSearch(model, start.values, 0).run(1_000)  # compiled before the clock starts
    rates, costs = [], []
    for seed in seeds:
        search = LocalSearch(model, start.values, seed)
        evaluated, began = 0, time.perf_counter()
        for _ in range(0, moves, CHUNK):
            evaluated += search.run(CHUNK).evaluated
        rates.append(evaluated / (time.perf_counter() - began))
        costs.append(search.best_cost)
    return [
        f"| {name} | {model.variables:,} | {arrays:.2f} | {start.objective:,.0f} | "
        f"{', '.join(f'{c:,}' for c in costs)} | {statistics.median(rates):,.0f} "
        f"(worst {min(rates):,.0f}) |"
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks local", description=__doc__)
    parser.add_argument("instances", nargs="+", help="instance names of the suite")
    parser.add_argument("--suite", default="search")
    parser.add_argument("--moves", type=int, default=3_000_000, help="moves drawn per run")
    args = parser.parse_args(argv)
    print(
        f"| instance | variables | arrays s | start | best after {args.moves:,} moves "
        "(seeds 1, 2, 3) | moves evaluated / s, median |"
    )
    print("|---|---:|---:|---:|---|---:|")
    for name in args.instances:
        for line in _instance(name, args.suite, args.moves, (1, 2, 3)):
            print(line, flush=True)
    return 0
