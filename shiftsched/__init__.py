"""The roster engine's front door: read a request, solve it, check the roster.

    import json, pathlib, shiftsched
    data = json.loads(pathlib.Path("datasets/retail_weekdays.json").read_text())
    request = shiftsched.parse(data)
    response = shiftsched.solve(request, shiftsched.SolveLimits(num_workers=1, random_seed=0))
    report = shiftsched.audit(request, response.solution.assignments)  # the independent check
    print(response.solution.metrics.status, report.feasible)  # optimal True

``parse`` and ``validate`` raise :class:`InvalidRequest` with every fault and its JSON
path; ``solve`` answers a :class:`SolveResponse` whose ``error`` says why there is no
roster (with a ``diagnose``-d cause when the rules admit none). ``plan``, ``replan``
and ``recommend`` take what ``parse_plan``, ``parse_replan`` and ``parse_recommend``
read; a plan follows a ``History`` (the period before it) and answers the ledger for
the next one.

Every name here is loaded on first use (PEP 562): solver worker processes and the web
service import submodules one by one, and ``import shiftsched.contract.size`` must not
cost them OR-Tools. The engine's folders hold the rest, each saying what it may import:
``contract`` (the v1 shapes and their parser), ``solving``, ``checking`` (the audit),
``periods``, ``questions``, ``present``, ``formats`` and ``data``; ``service`` is the
HTTP service, whose dependencies come with the ``service`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shiftsched.lazy import lazy_names

if TYPE_CHECKING:  # what mypy and editors see; at run time, __getattr__ below
    from shiftsched.checking.audit import AuditReport, audit
    from shiftsched.contract.history import History, Ledger
    from shiftsched.contract.parse import parse_request as parse
    from shiftsched.contract.planning import (
        PlanRequest,
        PlanResponse,
        RecommendRequest,
        RecommendResponse,
        ReplanRequest,
        ReplanResponse,
        parse_plan,
        parse_recommend,
        parse_replan,
    )
    from shiftsched.contract.v1 import (
        Assignment,
        Diagnosis,
        SolveRequest,
        SolveResponse,
        ValidateResponse,
    )
    from shiftsched.errors import EngineError, FieldError, InvalidRequest
    from shiftsched.periods.plan import plan
    from shiftsched.periods.replan import replan
    from shiftsched.questions.recommend import recommend
    from shiftsched.questions.validation import validate
    from shiftsched.solving.diagnose import DiagnosisLimits, diagnose
    from shiftsched.solving.solve import SolveLimits, solve

#: Each public name: the submodule that defines it, and its name there.
_EXPORTS: dict[str, tuple[str, str]] = {
    "parse": ("shiftsched.contract.parse", "parse_request"),
    "validate": ("shiftsched.questions.validation", "validate"),
    "solve": ("shiftsched.solving.solve", "solve"),
    "audit": ("shiftsched.checking.audit", "audit"),
    "diagnose": ("shiftsched.solving.diagnose", "diagnose"),
    "plan": ("shiftsched.periods.plan", "plan"),
    "replan": ("shiftsched.periods.replan", "replan"),
    "recommend": ("shiftsched.questions.recommend", "recommend"),
    "parse_plan": ("shiftsched.contract.planning", "parse_plan"),
    "parse_replan": ("shiftsched.contract.planning", "parse_replan"),
    "parse_recommend": ("shiftsched.contract.planning", "parse_recommend"),
    "SolveRequest": ("shiftsched.contract.v1", "SolveRequest"),
    "SolveResponse": ("shiftsched.contract.v1", "SolveResponse"),
    "ValidateResponse": ("shiftsched.contract.v1", "ValidateResponse"),
    "Assignment": ("shiftsched.contract.v1", "Assignment"),
    "Diagnosis": ("shiftsched.contract.v1", "Diagnosis"),
    "SolveLimits": ("shiftsched.solving.solve", "SolveLimits"),
    "DiagnosisLimits": ("shiftsched.solving.diagnose", "DiagnosisLimits"),
    "AuditReport": ("shiftsched.checking.audit", "AuditReport"),
    "PlanRequest": ("shiftsched.contract.planning", "PlanRequest"),
    "PlanResponse": ("shiftsched.contract.planning", "PlanResponse"),
    "History": ("shiftsched.contract.history", "History"),
    "Ledger": ("shiftsched.contract.history", "Ledger"),
    "ReplanRequest": ("shiftsched.contract.planning", "ReplanRequest"),
    "ReplanResponse": ("shiftsched.contract.planning", "ReplanResponse"),
    "RecommendRequest": ("shiftsched.contract.planning", "RecommendRequest"),
    "RecommendResponse": ("shiftsched.contract.planning", "RecommendResponse"),
    "EngineError": ("shiftsched.errors", "EngineError"),
    "InvalidRequest": ("shiftsched.errors", "InvalidRequest"),
    "FieldError": ("shiftsched.errors", "FieldError"),
}

__all__ = [
    "Assignment",
    "AuditReport",
    "Diagnosis",
    "DiagnosisLimits",
    "EngineError",
    "FieldError",
    "History",
    "InvalidRequest",
    "Ledger",
    "PlanRequest",
    "PlanResponse",
    "RecommendRequest",
    "RecommendResponse",
    "ReplanRequest",
    "ReplanResponse",
    "SolveLimits",
    "SolveRequest",
    "SolveResponse",
    "ValidateResponse",
    "audit",
    "diagnose",
    "parse",
    "parse_plan",
    "parse_recommend",
    "parse_replan",
    "plan",
    "recommend",
    "replan",
    "solve",
    "validate",
]

__getattr__, __dir__ = lazy_names(__name__, _EXPORTS, __all__)
