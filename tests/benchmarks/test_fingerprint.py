"""Fingerprints tell two models apart, and the same request always gives the same one."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.fingerprint import fingerprints


def _suite(path: Path, seeds: list[int]) -> str:
    instances = [
        {
            "name": f"seed-{seed}",
            "time_limit": 1,
            "methods": ["engine"],
            "source": {
                "synthetic": {
                    "employees": 6,
                    "shifts": 2,
                    "duties": 0,
                    "days": 7,
                    "seed": seed,
                    "mix": "all",
                }
            },
        }
        for seed in seeds
    ]
    path.write_text(json.dumps({"name": "tiny", "description": "", "instances": instances}))
    return str(path)


def test_the_same_request_has_the_same_fingerprint_and_another_a_different_one(
    tmp_path: Path,
) -> None:
    suite = _suite(tmp_path / "tiny.json", [0, 1])
    first, again = fingerprints(suite), fingerprints(suite)
    assert first == again
    assert first["seed-0"] != first["seed-1"]
