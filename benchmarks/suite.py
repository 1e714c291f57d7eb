"""Benchmark suites: which instances to solve, how long, and with which methods.

A suite is a JSON file (``benchmarks/suites/quick.json``, ``full.json`` or any path)
so that a result file can name exactly what was run, and a new sweep needs no code:

    {"name": "quick", "description": "...", "instances": [
      {"name": "syn-80k", "nominal_size": 80000, "time_limit": 10,
       "methods": ["engine", "plain", "greedy"],
       "source": {"synthetic": {"employees": 40, "shifts": 8, "duties": 10, "days": 25,
                                "seed": 0, "mix": "all"}}},
      {"name": "ward_24_7", "time_limit": 10, "methods": ["engine"],
       "source": {"dataset": "datasets/ward_24_7.json"}}]}

A synthetic source is :func:`shiftsched.data.synthetic.synthetic_request`'s arguments; a dataset
path is relative to the repository root (or absolute).

A method may carry its own time limit as a suffix, ``engine@10``: that run gets 10 s
instead of the instance's ``time_limit``, so one instance can be solved by the same method
at several limits (``suites/search.json``). The label, suffix included, is the run's
``method`` in the results, which keeps (instance, method) a key of every result file;
``--time-limit-scale`` scales a suffix's limit like any other.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveRequest
from shiftsched.data.synthetic import synthetic_request

ROOT = Path(__file__).resolve().parent.parent
SUITES = Path(__file__).resolve().parent / "suites"
METHODS = ("engine", "plain", "greedy", "timefold")


def parse_method(label: str) -> tuple[str, float | None]:
    """A suite's method label: ``engine`` -> ("engine", None), ``engine@10`` -> ("engine", 10.0).

    Raises ValueError for an unknown method or a limit that is not a positive number.
    """
    method, suffixed, limit = label.partition("@")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} in {label!r}")
    if not suffixed:
        return method, None
    try:
        seconds = float(limit)
    except ValueError:
        raise ValueError(f"time limit of {label!r} is not a number") from None
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"time limit of {label!r} must be positive")
    return method, seconds


@dataclass(frozen=True)
class Instance:
    """One request of a suite and how to run it."""

    name: str
    source: dict[str, Any]
    time_limit: float
    methods: tuple[str, ...]
    nominal_size: int | None = None

    @classmethod
    def from_json(cls, item: dict[str, Any]) -> Instance:
        methods = tuple(item["methods"])
        unknown = {m for m in methods if m.partition("@")[0] not in METHODS}
        if unknown:
            raise ValueError(f"{item['name']}: unknown methods {sorted(unknown)}")
        if len(set(methods)) != len(methods):
            raise ValueError(f"{item['name']}: a method is listed twice")
        for label in methods:
            try:
                parse_method(label)
            except ValueError as error:
                raise ValueError(f"{item['name']}: {error}") from None
        if not ("synthetic" in item["source"]) ^ ("dataset" in item["source"]):
            raise ValueError(f"{item['name']}: source needs 'synthetic' or 'dataset'")
        return cls(
            name=item["name"],
            source=item["source"],
            time_limit=float(item["time_limit"]),
            methods=methods,
            nominal_size=item.get("nominal_size"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "nominal_size": self.nominal_size,
            "source": self.source,
            "time_limit": self.time_limit,
            "methods": list(self.methods),
        }

    def run_of(self, label: str) -> tuple[str, float]:
        """The method a label runs and its time limit (the suffix's, else the instance's)."""
        method, limit = parse_method(label)
        return method, self.time_limit if limit is None else limit

    @property
    def mix(self) -> str:
        """The family mix of a synthetic instance; ``dataset`` for a realistic one."""
        if "synthetic" in self.source:
            return str(self.source["synthetic"].get("mix", "all"))
        return "dataset"

    @property
    def source_text(self) -> str:
        """A short description for tables: the dataset path or the generator's arguments."""
        if "dataset" in self.source:
            return str(self.source["dataset"])
        params = self.source["synthetic"]
        return "synthetic(" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")"

    def body(self) -> dict[str, Any]:
        if "synthetic" in self.source:
            params = dict(self.source["synthetic"])
            return synthetic_request(
                params.pop("employees"),
                params.pop("shifts"),
                params.pop("duties"),
                params.pop("days"),
                **params,
            )
        path = Path(self.source["dataset"])
        body: dict[str, Any] = json.loads((path if path.is_absolute() else ROOT / path).read_text())
        return body

    def request(self) -> SolveRequest:
        return parse_request(self.body())


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    instances: tuple[Instance, ...]
    path: Path

    def select(self, names: list[str] | None) -> list[Instance]:
        """The instances named (all when None); an unknown name is an error."""
        if not names:
            return list(self.instances)
        known = {i.name: i for i in self.instances}
        missing = [n for n in names if n not in known]
        if missing:
            raise ValueError(f"not in suite {self.name}: {', '.join(missing)}")
        return [known[n] for n in names]


def suite_path(ref: str) -> Path:
    """``quick``/``full`` (a file in benchmarks/suites/) or a path to a suite file."""
    candidate = SUITES / f"{ref}.json"
    return candidate if candidate.exists() else Path(ref)


def load_suite(ref: str) -> Suite:
    path = suite_path(ref)
    data = json.loads(path.read_text(encoding="utf-8"))
    instances = tuple(Instance.from_json(item) for item in data["instances"])
    names = [i.name for i in instances]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: instance names must be unique")
    return Suite(data.get("name", path.stem), data.get("description", ""), instances, path)
