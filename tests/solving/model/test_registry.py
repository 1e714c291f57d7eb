"""The family registry is the one list every part of the engine reads: these tests check
that it agrees with what the model actually posts, with the audit's codes and with the
documented names, so a family declared in one place cannot drift from the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from shiftsched.checking.audit import HARD_CODES
from shiftsched.contract.parse import parse_request
from shiftsched.data.synthetic import MIXES
from shiftsched.questions.variants import FAMILIES as SWITCHABLE_FAMILIES
from shiftsched.solving.diagnose import FAMILY_ORDER, SOFT_ONLY_FAMILIES
from shiftsched.solving.model.build import build
from shiftsched.solving.model.family import RuleFamily
from shiftsched.solving.model.registry import (
    BY_NAME,
    DIAGNOSIS_ORDER,
    FAMILIES,
    HARD_RULES,
    family_named,
)
from shiftsched.solving.problem import from_request
from tests.factories import full_request_dict

DOCS = Path(__file__).parents[3] / "docs"
SEMANTICS = (DOCS / "semantics.md").read_text()
# Soft families only an importer sets, documented with their benchmark instead.
BENCHMARK_DOCS = {
    "cover": "curtois.md",
    "complete_weekends": "inrc2.md",
    "work_runs": "inrc2.md",
    "off_runs": "inrc2.md",
    "shift_runs": "inrc2.md",
    "total_days": "inrc2.md",
    "weekend_cap": "inrc2.md",
}
STRUCTURAL = {"unknown_reference", "one_shift_per_date", "duty_not_on_shift"}


def test_names_and_codes_are_spelt_once() -> None:
    names = [f.name for f in FAMILIES]
    codes = [r.code for f in FAMILIES for r in f.hard_rules]
    assert len(names) == len(set(names))
    assert len(codes) == len(set(codes))
    assert set(names).isdisjoint({"coverage", "days_per_month", "weekly_hours", "fairness"})


def test_the_diagnosis_order_ranks_exactly_the_relaxable_rules() -> None:
    relaxable = [r for f in FAMILIES for r in f.hard_rules if r.relax is not None]
    assert sorted(r.code for r in DIAGNOSIS_ORDER) == sorted(r.code for r in relaxable)
    assert tuple(r.code for r in DIAGNOSIS_ORDER) == FAMILY_ORDER


def test_relaxable_rules_are_the_audits_hard_codes() -> None:
    relaxable = {r.code for r in HARD_RULES.values() if r.relax is not None}
    assert relaxable == set(HARD_CODES) - STRUCTURAL


def test_every_hard_group_the_model_creates_belongs_to_a_declared_rule() -> None:
    problem = from_request(parse_request(full_request_dict()), gated=True)
    compiled = build(problem)
    assert compiled.hard_groups
    for group in compiled.hard_groups:
        rule = HARD_RULES[group.family]
        assert rule.match(group.field), (group.family, group.field)


def test_every_soft_term_the_model_creates_is_declared_by_a_family() -> None:
    compiled = build(from_request(parse_request(full_request_dict())))
    declared = [t for f in FAMILIES for t in f.soft_terms]
    for term in compiled.terms:
        assert any(
            term.name == t or (t.endswith(":") and term.name.startswith(t)) for t in declared
        ), term.name


@pytest.mark.parametrize("family", [f for f in FAMILIES if f.name not in BENCHMARK_DOCS])
def test_every_name_and_code_of_a_v1_family_is_documented(family: RuleFamily) -> None:
    for rule in family.hard_rules:
        if rule.relax is not None:
            assert f"`{rule.code}`" in SEMANTICS
    for term in family.soft_terms:
        assert f"`{term}" in SEMANTICS, term


@pytest.mark.parametrize("name", sorted(BENCHMARK_DOCS))
def test_every_soft_term_of_a_benchmark_family_is_documented_with_its_benchmark(
    name: str,
) -> None:
    text = (DOCS / BENCHMARK_DOCS[name]).read_text()
    for term in BY_NAME[name].soft_terms:
        assert f"`{term}" in text, term


def test_the_switchable_and_soft_only_families_are_registry_families() -> None:
    assert set(SWITCHABLE_FAMILIES) <= set(BY_NAME)
    assert set(SOFT_ONLY_FAMILIES) <= set(BY_NAME)
    assert all(not BY_NAME[name].hard for name in SOFT_ONLY_FAMILIES)


def test_synthetic_mixes_name_registry_families() -> None:
    for families in MIXES.values():
        assert families <= set(BY_NAME), families - set(BY_NAME)


def test_an_unknown_name_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="working_days_per_month"):
        family_named("days_per_month")
