"""Timefold Solver on two small requests, in one process of their own (it starts a JVM).

Skipped where the optional ``timefold`` extra or Java is missing. Each solve stops after
a count of score calculations, with Timefold's fixed default seed: the same roster on
any machine, however busy. What is asserted holds for any roster anyway: the audit is
the judge, and Timefold's score must agree with it. One process runs the command, a
measured run and the scoring of random rosters, so the JVM starts once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from shiftsched.checking.audit import audit, compare_with_metrics
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import SolveResponse
from tests.benchmarks.test_timefold_model import core_body

pytest.importorskip("timefold.solver", reason="the optional timefold extra is not installed")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("java") is None, reason="Timefold needs a Java runtime"),
]

ROOT = Path(__file__).resolve().parents[2]
CALCULATIONS = 5_000
ROSTERS = 30
SHAPES = [(6, 2, 0, 9), (8, 3, 0, 16), (5, 3, 0, 35), (10, 4, 0, 31)]
TIMEOUT_SECONDS = 180

BOTH = """
import contextlib, io, json, sys
from benchmarks.__main__ import main
from benchmarks.timefold_model.measure import measured
from benchmarks.timefold_model.outcome import Limit
from shiftsched.contract.parse import parse_request
clean, broken, calculations = sys.argv[1], sys.argv[2], sys.argv[3]
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    code = main(["timefold", clean, "--calculations", calculations])
request = parse_request(json.load(open(broken)))
row, _ = measured(request, Limit(calculations=int(calculations)))
print(json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue(), "row": row,
                  "random": random_rosters()}))
"""

RANDOM_ROSTERS = """
import random
from benchmarks.timefold_model.domain import to_roster
from benchmarks.timefold_model.pricing import agreement
from benchmarks.timefold_model.run import scored
from benchmarks.timefold_model.translate import translate
from shiftsched.checking.audit import audit
from shiftsched.data.synthetic import synthetic_request

def random_rosters():
    found = []
    for seed in range(ROSTERS):
        rng = random.Random(seed)
        body = synthetic_request(*rng.choice(SHAPES), seed=seed, mix="core")
        if seed % 3 == 0:
            body["constraints"]["max_consecutive_working_days"] = rng.choice([1, 2, 3])
        request = parse_request(body)
        model = translate(request)
        roster = to_roster(model)
        fill, taken = rng.random(), {(s.person.id, s.day) for s in roster.slots if s.person}
        for slot in roster.slots:
            person = rng.choice(roster.people)
            if slot.pinned or rng.random() > fill or (person.id, slot.day) in taken:
                continue
            taken.add((person.id, slot.day))
            slot.person = person
        run = scored(model, roster)
        report = audit(request, run.assignments)
        found.append({"seed": seed, "hard": len(report.hard_violations), "objective":
                      report.objective_value, "soft": run.soft,
                      "differences": agreement(run, report).differences})
    return found
"""


def holiday_body() -> dict[str, Any]:
    """A fixed day on a holiday: every roster breaks the ``holiday`` rule."""
    body = core_body()
    body["employees"][1]["fixed_assignments"] = [{"date": "2026-03-08", "shift_id": "night"}]
    return body


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("timefold")
    clean, broken = folder / "clean.json", folder / "broken.json"
    clean.write_text(json.dumps(core_body()))
    broken.write_text(json.dumps(holiday_body()))
    script = RANDOM_ROSTERS.replace("ROSTERS", str(ROSTERS)).replace("SHAPES", str(SHAPES))
    done = subprocess.run(
        [sys.executable, "-c", script + BOTH, str(clean), str(broken), str(CALCULATIONS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_command_prints_a_response_the_audit_agrees_with(solved: dict[str, Any]) -> None:
    assert solved["code"] == 0, solved["err"]
    assert "Timefold's score agrees with the audit" in solved["err"]
    response = SolveResponse.model_validate_json(solved["out"])
    assert response.status == "completed" and response.solution is not None
    solution = response.solution
    report = audit(parse_request(core_body()), solution.assignments)
    assert report.hard_violations == []
    assert compare_with_metrics(report, solution.metrics, solution.shortages) == []
    assert solution.metrics.status == "feasible"
    assert solution.metrics.solver is not None
    assert solution.metrics.solver.time_to_first_solution_seconds is not None


def test_a_roster_that_must_break_a_rule_is_measured_with_the_same_verdict(
    solved: dict[str, Any],
) -> None:
    """Timefold's hard score says the roster breaks a rule, as the audit does: the row
    is ``hard_violations`` with no difference between the two."""
    row = solved["row"]
    assert row["audit"] == "hard_violations" and row["status"] == "infeasible"
    assert row["hard_violations"] >= 1 and row["audit_differences"] == 0
    assert row["first_feasible_seconds"] is None
    assert row["cp_sat_status"].startswith("timefold -")
    assert row["variables"] == 2 * 6 * 2 + 1  # two slots per shift and open date, one pinned


def test_timefold_scores_random_rosters_as_the_audit_prices_them(solved: dict[str, Any]) -> None:
    """Rosters of generated requests filled at random, hard rules broken or not (nobody
    twice on a date): the same hard verdict, each soft constraint the sum of the audit's
    terms, and on a clean roster the soft score minus the audit's objective."""
    rosters = solved["random"]
    assert len(rosters) == ROSTERS
    assert [r for r in rosters if r["differences"]] == []
    assert any(r["hard"] for r in rosters) and any(not r["hard"] for r in rosters)
    for roster in rosters:
        if not roster["hard"]:
            assert roster["soft"] == roster["objective"]
