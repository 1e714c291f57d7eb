"""The diagnosis's probes in words: each rule as docs/semantics.md words it, each probe
naming the employees it re-solved and what it switched off."""

from __future__ import annotations

import json
import re
from pathlib import Path

from shiftsched.contract.parse import parse_request
from shiftsched.present.probe_words import RULE_WORDS, item_words, probe_frame, rule_code, who
from shiftsched.solving.diagnose import DiagnosisLimits, Probe, diagnose_with_probes
from shiftsched.solving.model.registry import DIAGNOSIS_ORDER

ROOT = Path(__file__).parent.parent.parent
ROW = re.compile(r"^\| `(\w+)` \| (.+) \|$", re.MULTILINE)


def semantics_rules() -> dict[str, str]:
    """The "Hard rules" table of docs/semantics.md, code -> words without backticks."""
    text = (ROOT / "docs" / "semantics.md").read_text(encoding="utf-8")
    table = text.split("## Hard rules", 1)[1].split("\n## ", 1)[0]
    return {code: words.replace("`", "") for code, words in ROW.findall(table)}


def test_every_rule_a_diagnosis_names_has_the_words_of_the_semantics() -> None:
    documented = semantics_rules()
    assert {rule.code for rule in DIAGNOSIS_ORDER} <= set(RULE_WORDS) <= set(documented)
    for code, words in RULE_WORDS.items():
        if "below" in documented[code]:  # the table refers further down: worded from there
            assert words.startswith(documented[code].split(": see")[0]), code
        else:
            assert words == documented[code], code


def test_an_item_is_named_by_its_path_and_the_words_of_its_rule() -> None:
    assert rule_code("employees[1].fixed_assignments[0]") == "fixed_assignment"
    assert rule_code("schedule_period.holidays[2]") == "holiday"
    assert rule_code("employees[1].preferences[0]") is None  # soft: no hard rule
    assert item_words("schedule_period.holidays[2]") == (
        "schedule_period.holidays[2] (holiday: no assignment on a holiday)"
    )


def test_the_employees_of_a_probe_are_named_or_counted() -> None:
    assert who(("e1",), 20) == "employee e1"
    assert who(("e0", "e1"), 20) == "employees e0, e1"
    assert who(("e0", "e1"), 2) == "both employees"
    assert who(tuple(f"e{i}" for i in range(20)), 20) == "all 20 employees"
    assert who(tuple(f"e{i}" for i in range(6)), 20) == "employees e0, e1, e2, e3 and 2 more"


def test_each_probe_names_its_component_and_what_it_switched_off() -> None:
    # Two employees sharing no hard rule, each fixed to work on a holiday: two components,
    # each checked, probed and narrowed down on its own.
    data = json.loads((ROOT / "datasets/infeasible/holiday_across_components.json").read_text())
    request = parse_request(data)
    _, probes = diagnose_with_probes(request, DiagnosisLimits(60.0, 1))
    frame = probe_frame(probes, len(request.employees))
    assert frame.height == len(probes)
    checks = frame.filter(frame["step"] == "check")
    assert checks["label"].to_list() == [
        "  1. employee e0: every rule on → still no roster",
        f"{checks['order'][1] + 1:>3}. employee e1: every rule on → still no roster",
    ]
    families = frame.filter(frame["step"] == "family")
    assert set(families["label"].str.contains("every holiday rule off")) == {True, False}
    assert (
        families.filter(families["family"] == "holiday")["switched off"].to_list()
        == ["every holiday rule (no assignment on a holiday)"] * 2
    )
    for row in frame.filter(frame["step"].is_in(["deletion", "single_field"])).iter_rows(
        named=True
    ):
        probe = probes[row["order"]]
        assert probe.relaxed[0] in row["label"]  # the JSON path, whole
        assert (
            f"{probe.relaxed[0]} ({probe.family}: {RULE_WORDS[probe.family]})"
            in (row["switched off"])
        )


def test_a_probe_of_a_rule_without_words_keeps_its_path_and_code() -> None:
    # A benchmark rule (no v1 request states it) is named by its code; a path that is no
    # rule's stays bare.
    benchmark = Probe("single_field", ("employees[0].total_minutes",), None, "feasible", 0.1)
    unknown = Probe("deletion", ("constraints.other",), None, "undecided", 0.1)
    frame = probe_frame([benchmark, unknown], 1)
    assert frame["switched off"].to_list() == [
        "employees[0].total_minutes (total_minutes), for everyone",
        "constraints.other, and every rule outside the conflict being narrowed down",
    ]
    assert frame["label"].to_list() == [
        "  1. nobody: only employees[0].total_minutes off → a roster exists",
        "  2. nobody: suspects without constraints.other → undecided in the time",
    ]
