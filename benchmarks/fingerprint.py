"""``python -m benchmarks fingerprint``: what a solve of each suite instance starts from.

Prints, per instance of a suite, a digest of the CP-SAT model the engine builds and of
the greedy roster it hints. Two commits with the same digests give every solve of the
suite the same model and the same start, so the same search: a change that must cost
plain requests nothing (a rule read only from new inputs, say) is checked by running
this at both commits and comparing, with no timing and no noise.
"""

from __future__ import annotations

import argparse
import hashlib
import json

from benchmarks.command_help import docstring_help
from benchmarks.suite import load_suite
from shiftsched.solving.greedy import greedy_roster
from shiftsched.solving.model.build import build
from shiftsched.solving.problem import from_request


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fingerprints(suite: str) -> dict[str, dict[str, str]]:
    """Per instance: the digest of its built model's proto and of its greedy roster."""
    out = {}
    for instance in load_suite(suite).instances:
        problem = from_request(instance.request())
        model = str(build(problem).model.proto)
        hint = json.dumps(sorted(greedy_roster(problem).items()))
        out[instance.name] = {"model": digest(model), "hint": digest(hint)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks fingerprint", **docstring_help(__doc__)
    )
    parser.add_argument("--suite", default="quick", help="suite name or file (quick)")
    args = parser.parse_args(argv)
    for name, digests in fingerprints(args.suite).items():
        print(f"{name}\t{digests['model']}\t{digests['hint']}", flush=True)
    return 0


if __name__ == "__main__":  # runnable as a file too, in a checkout older than this command
    raise SystemExit(main())
