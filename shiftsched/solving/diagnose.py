"""Infeasibility diagnosis: which input items to change, not just which rule family.

Runs only when the hard rules admit no roster. The request is rebuilt as a *gated*
problem (shiftsched.solving.problem): every hard rule of every input item, eligibility included,
sits behind its own enforcement literal, and the objective is dropped (CP-SAT does not
support an objective together with assumptions). Then:

1. Family probes: for each hard family the request uses, re-solve with that family
   relaxed and the others enforced. A family whose relaxation restores feasibility is a
   cause family.
2. Conflicts: with every item enforced as an assumption, CP-SAT returns a sufficient
   core of items; it is shrunk to a minimal conflict by deletion with core refinement
   (:mod:`shiftsched.solving.conflicts`: each deletion is a probe under assumptions, and the core it
   returns drops every item outside it at once). The conflict's items are relaxed and
   the search repeats, so independent conflicts are all found.
3. Ranking: items whose single relaxation restores feasibility first, then items of
   cause families, then items that only help together; ties by family order.

Every re-solve counts in ``probes``. The whole diagnosis has a wall-clock budget
(``DEFAULT_BUDGET_SECONDS``); probes of step 1 run in parallel on the available cores.
When the budget runs out, what was found so far is reported.

:func:`diagnose_with_probes` also returns the log of those re-solves (:class:`Probe`:
which step, what it relaxed, the outcome, how long it took), so that a notebook can
show how the diagnosis reached its answer. Recording costs one small object per probe.
Each cause is worded by its family's descriptor (:mod:`shiftsched.solving.model.registry`).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

from ortools.sat.python import cp_model

from shiftsched.contract.v1 import Cause, Diagnosis, SolveRequest
from shiftsched.solving.conflicts import shrink
from shiftsched.solving.model.build import CompiledModel, build
from shiftsched.solving.model.registry import DIAGNOSIS_ORDER, FAMILIES, hard_rule
from shiftsched.solving.model.terms import HardGroup
from shiftsched.solving.problem import from_request

DEFAULT_BUDGET_SECONDS = 10.0
MAX_PROBE_SECONDS = 3.0
MAX_CONFLICTS = 5
SOFT_ONLY_FAMILIES = tuple(family.name for family in FAMILIES if not family.hard)

# Ties are broken by how specific and how easily changed an input is.
FAMILY_ORDER = tuple(rule.code for rule in DIAGNOSIS_ORDER)


@dataclass(frozen=True)
class DiagnosisLimits:
    budget_seconds: float = DEFAULT_BUDGET_SECONDS
    num_workers: int = 2


ProbeKind = Literal["check", "family", "core", "deletion", "single_field"]
ProbeOutcome = Literal["feasible", "infeasible", "undecided"]


@dataclass(frozen=True)
class Probe:
    """One re-solve of the diagnosis, for showing how it reached its answer.

    ``kind`` is the step: ``check`` (every item enforced: is the component infeasible?),
    ``family`` (one family relaxed), ``core`` (assumptions, for a core of items),
    ``deletion`` (shrinking a core to a minimal conflict), ``single_field`` (one item
    relaxed everywhere). ``relaxed`` names what the probe does not enforce, compared with
    its step's starting point: the family for a family probe; the fields of conflicts
    already set aside for a core; the field dropped from the candidate conflict for a
    deletion (items outside the candidate are not enforced either); the field for a
    single-field probe. Fields are JSON paths of the original request. ``family`` is the
    relaxed family, or the dropped item's family; ``started`` and ``seconds`` are wall
    clock, from the start of the diagnosis and for this probe alone. ``employees`` are
    the ids of the component the probe re-solved (each component is diagnosed apart, so
    two checks of one request may disagree).
    """

    kind: ProbeKind
    relaxed: tuple[str, ...]
    family: str | None
    outcome: ProbeOutcome
    seconds: float
    started: float = 0.0
    employees: tuple[str, ...] = ()


def _outcome(decided: bool | None) -> ProbeOutcome:
    return "undecided" if decided is None else "feasible" if decided else "infeasible"


class _Prober:
    """Re-solves the gated model with chosen groups enforced; logs every probe."""

    def __init__(
        self,
        compiled: CompiledModel,
        deadline: float,
        started: float,
        original_field: Callable[[str], str] = str,
        employees: tuple[str, ...] = (),
    ) -> None:
        self.compiled = compiled
        self.employees = employees  # ids of the component, for the probe log
        self.deadline = deadline
        self.started = started  # perf_counter() at the start of the diagnosis
        self.original_field = original_field
        self.log: list[Probe] = []
        self._lock = threading.Lock()

    @property
    def probes(self) -> int:
        return len(self.log)

    def fields(self, groups: Sequence[HardGroup]) -> tuple[str, ...]:
        """Distinct original fields of ``groups``, in order (a field may span employees)."""
        return tuple(dict.fromkeys(self.original_field(g.field) for g in groups))

    def _record(
        self,
        kind: ProbeKind,
        relaxed: tuple[str, ...],
        family: str | None,
        outcome: ProbeOutcome,
        began: float,
    ) -> None:
        now = time.perf_counter()
        probe = Probe(
            kind, relaxed, family, outcome, now - began, began - self.started, self.employees
        )
        with self._lock:  # family probes run in threads
            self.log.append(probe)

    def seconds_left(self) -> float:
        return self.deadline - time.perf_counter()

    def _solver(self) -> cp_model.CpSolver:
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_time_in_seconds = max(
            0.05, min(MAX_PROBE_SECONDS, self.seconds_left())
        )
        return solver

    def feasible(
        self,
        enforced: Sequence[HardGroup],
        kind: ProbeKind,
        relaxed: tuple[str, ...] = (),
        family: str | None = None,
    ) -> bool | None:
        """True/False when decided, None when the probe ran out of time."""
        began = time.perf_counter()
        model = self.compiled.model.clone()
        model.add_bool_and([model.get_bool_var_from_proto_index(g.literal.index) for g in enforced])
        status = self._solver().solve(model)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            decided: bool | None = True
        else:
            decided = False if status == cp_model.INFEASIBLE else None
        self._record(kind, relaxed, family, _outcome(decided), began)
        return decided

    def core(
        self,
        assumed: Sequence[HardGroup],
        relaxed: tuple[str, ...] = (),
        kind: ProbeKind = "core",
        family: str | None = None,
    ) -> list[HardGroup] | None:
        """A sufficient subset of ``assumed`` that is infeasible; [] when feasible, None
        when undecided."""
        began = time.perf_counter()
        model = self.compiled.model.clone()
        by_index = {g.literal.index: g for g in assumed}
        model.add_assumptions([model.get_bool_var_from_proto_index(i) for i in by_index])
        solver = self._solver()
        status = solver.solve(model)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            self._record(kind, relaxed, family, "feasible", began)
            return []
        if status != cp_model.INFEASIBLE:
            self._record(kind, relaxed, family, "undecided", began)
            return None
        self._record(kind, relaxed, family, "infeasible", began)
        # The core may name literals outside the assumptions (google/or-tools#5141).
        found = [
            by_index[i] for i in solver.sufficient_assumptions_for_infeasibility() if i in by_index
        ]
        return found or list(assumed)


@dataclass(frozen=True)
class _Component:
    """Employees whose hard rules interact, as a request of their own.

    Demand is soft, so rosters of unrelated employees never conflict: only exclude
    pairings (and hard skill support, which spans everyone) tie employees together.
    Diagnosing each component apart keeps every probe small, whatever the request size.
    """

    request: SolveRequest
    employees: tuple[int, ...]  # original index of each employee of the sub-request
    pairings: tuple[int, ...]  # original index of each pairing of the sub-request

    def original_field(self, field: str) -> str:
        field = _EMPLOYEE_PATH.sub(lambda m: f"employees[{self.employees[int(m[1])]}]", field)
        return _PAIRING_PATH.sub(
            lambda m: f"constraints.employee_pairings[{self.pairings[int(m[1])]}]", field
        )


_EMPLOYEE_PATH = re.compile(r"^employees\[(\d+)\]")
_PAIRING_PATH = re.compile(r"^constraints\.employee_pairings\[(\d+)\]")


def components(request: SolveRequest) -> list[_Component]:
    """Split the request into groups of employees linked by exclude pairings."""
    everyone = tuple(range(len(request.employees)))
    pairings = request.constraints.employee_pairings
    support = request.constraints.skill_support
    if support is not None and support.enforcement == "hard":
        return [_Component(request, everyone, tuple(range(len(pairings))))]
    index = {e.id: i for i, e in enumerate(request.employees)}
    root = list(everyone)

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    excludes = [j for j, p in enumerate(pairings) if p.rule == "exclude"]
    for j in excludes:
        first, *others = (index[x] for x in pairings[j].employee_ids)
        for other in others:
            root[find(other)] = find(first)
    members: dict[int, list[int]] = {}
    for i in everyone:
        members.setdefault(find(i), []).append(i)
    result = []
    for group in members.values():
        inside = tuple(j for j in excludes if index[pairings[j].employee_ids[0]] in group)
        sub = request.model_copy(
            update={
                "employees": [request.employees[i] for i in group],
                "constraints": request.constraints.model_copy(
                    update={"employee_pairings": [pairings[j] for j in inside]}
                ),
            }
        )
        result.append(_Component(sub, tuple(group), inside))
    return result


@dataclass
class _Findings:
    component: _Component
    prober: _Prober
    groups: list[HardGroup]
    cause_families: set[str]
    conflicts: list[list[HardGroup]]


def diagnose(request: SolveRequest, limits: DiagnosisLimits | None = None) -> Diagnosis:
    """Explain why a request has no roster: the input items to change, most likely first."""
    return diagnose_with_probes(request, limits)[0]


def diagnose_with_probes(
    request: SolveRequest, limits: DiagnosisLimits | None = None
) -> tuple[Diagnosis, list[Probe]]:
    """:func:`diagnose`, plus the log of its probes in the order they started."""
    limits = limits or DiagnosisLimits()
    started = time.perf_counter()
    deadline = started + limits.budget_seconds
    probers: list[_Prober] = []
    findings: list[_Findings] = []
    for component in components(request):
        if time.perf_counter() >= deadline:
            break
        compiled = build(from_request(component.request, gated=True), skip=SOFT_ONLY_FAMILIES)
        compiled.model.clear_objective()  # type: ignore[no-untyped-call]
        who = tuple(employee.id for employee in component.request.employees)
        prober = _Prober(compiled, deadline, started, component.original_field, who)
        probers.append(prober)
        groups = compiled.hard_groups
        if groups and prober.feasible(groups, "check") is not True:
            families = _family_probes(prober, groups, limits.num_workers)
            conflicts = _conflicts(prober, groups)
            findings.append(_Findings(component, prober, groups, families, conflicts))
    causes = _rank(findings, _single_fields(findings))
    log = sorted((probe for p in probers for probe in p.log), key=lambda probe: probe.started)
    diagnosis = Diagnosis(
        status="identified" if causes else "no_cause_identified",
        causes=causes,
        probes=sum(p.probes for p in probers),
    )
    return diagnosis, log


def _family_probes(prober: _Prober, groups: list[HardGroup], workers: int) -> set[str]:
    families = sorted({g.family for g in groups}, key=_family_rank)

    def restores(family: str) -> bool:
        enforced = [g for g in groups if g.family != family]
        return prober.feasible(enforced, "family", (family,), family) is True

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(restores, families))
    return {family for family, ok in zip(families, results, strict=True) if ok}


def _conflicts(prober: _Prober, groups: list[HardGroup]) -> list[list[HardGroup]]:
    """Disjoint minimal conflicts, found one after the other until the rest is feasible."""
    active = list(groups)
    conflicts: list[list[HardGroup]] = []
    while len(conflicts) < MAX_CONFLICTS and prober.seconds_left() > 0:
        core = prober.core(active, prober.fields([g for c in conflicts for g in c]))
        if not core:  # feasible (or undecided): nothing more to explain
            break
        conflict = _shrink(prober, core)
        conflicts.append(conflict)
        relaxed = {id(g) for g in conflict}
        active = [g for g in active if id(g) not in relaxed]
    return conflicts


def _shrink(prober: _Prober, core: list[HardGroup]) -> list[HardGroup]:
    """A minimal conflict within ``core`` (:func:`shiftsched.solving.conflicts.shrink`): general
    rules are tried first, so the conflict keeps the specific items people can change."""

    def still_infeasible(kept: list[HardGroup], dropped: HardGroup) -> list[HardGroup] | None:
        relaxed = prober.fields([dropped])
        found = prober.core(kept, relaxed, "deletion", dropped.family)
        return found or None  # [] feasible, None undecided: the dropped item stays

    ordered = sorted(core, key=lambda g: -_family_rank(g.family))
    kept = shrink(ordered, still_infeasible, lambda: prober.seconds_left() > 0)
    return sorted(kept, key=lambda g: _family_rank(g.family))


def _single_fields(findings: list[_Findings]) -> set[str]:
    """Input items (by field) whose relaxation alone makes every component feasible.

    An item may bind several components (a holiday, a transition rule of many
    employees), so relaxing it means relaxing every group with its field, everywhere.
    Only items present in the conflicts of every infeasible component can qualify.
    """
    if not findings:
        return set()
    candidates = set.intersection(
        *(
            {f.component.original_field(g.field) for conflict in f.conflicts for g in conflict}
            for f in findings
        )
    )
    return {
        field
        for field in sorted(candidates)
        if all(_feasible_without(finding, field) for finding in findings)
    }


def _feasible_without(finding: _Findings, field: str) -> bool:
    if finding.prober.seconds_left() <= 0:
        return False
    original = finding.component.original_field
    rest = [g for g in finding.groups if original(g.field) != field]
    family = next((g.family for g in finding.groups if original(g.field) == field), None)
    return finding.prober.feasible(rest, "single_field", (field,), family) is True


def _family_rank(family: str) -> int:
    return FAMILY_ORDER.index(family) if family in FAMILY_ORDER else len(FAMILY_ORDER)


@dataclass
class _Entry:
    """One cause being assembled: an item may turn up in several components' conflicts."""

    key: tuple[int, int]
    group: HardGroup
    request: SolveRequest
    partners: list[str]


def _rank(findings: list[_Findings], single: set[str]) -> list[Cause]:
    conflicts = sum(len(f.conflicts) for f in findings)
    entries: dict[str, _Entry] = {}
    for finding in findings:
        request = finding.component.request
        for conflict in finding.conflicts:
            for g in conflict:
                field = finding.component.original_field(g.field)
                tier = 0 if field in single else 1 if g.family in finding.cause_families else 2
                key = (tier, _family_rank(g.family))
                partners = [describe(request, o) for o in conflict if o is not g]
                entry = entries.setdefault(field, _Entry(key, g, request, []))
                entry.key = min(entry.key, key)
                entry.partners.extend(p for p in partners if p not in entry.partners)
    ordered = sorted(entries.items(), key=lambda item: item[1].key)
    return [_cause(field, entry, conflicts, bool(single)) for field, entry in ordered]


def _cause(field: str, entry: _Entry, conflicts: int, any_single: bool) -> Cause:
    group = entry.group
    what = describe(entry.request, group)
    if entry.partners:
        what += ". It cannot hold together with: " + "; ".join(entry.partners)
    if conflicts > 1 and entry.key[0] == 0:
        what += f". Changing it alone resolves all {conflicts} conflicts"
    elif conflicts > 1 and not any_single:
        what += f". This is one of {conflicts} independent conflicts; each needs a change"
    rule = hard_rule(group.family)
    advice = rule.advice if rule is not None else "Relax this rule."
    return Cause(cause_type=group.family, field=field, message=f"{what}. {advice}")


def describe(request: SolveRequest, group: HardGroup) -> str:
    """Plain words for one hard-rule item (who, what, when), as its family words it."""
    rule = hard_rule(group.family)
    match = rule.match(group.field) if rule is not None else None
    if rule is None or match is None:
        return f"{group.family} at {group.field}"
    return rule.describe(request, group, match)
