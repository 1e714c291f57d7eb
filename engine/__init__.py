"""The roster engine's front door: read a request, solve it, check the roster.

    import json, pathlib, engine
    request = engine.parse(json.loads(pathlib.Path("datasets/retail_weekdays.json").read_text()))
    response = engine.solve(request, engine.SolveLimits(num_workers=1, random_seed=0))
    report = engine.audit(request, response.solution.assignments)  # the independent check
    print(response.solution.metrics.status, report.feasible)  # optimal True

``parse`` and ``validate`` raise :class:`InvalidRequest` with every fault and its JSON
path; ``solve`` answers a :class:`SolveResponse` whose ``error`` says why there is no
roster (with a ``diagnose``-d cause when the rules admit none). ``plan``, ``replan``
and ``recommend`` take what ``parse_plan``, ``parse_replan`` and ``parse_recommend``
read; a plan follows a ``History`` (the period before it) and answers the ledger for
the next one.

Every name here is loaded on first use (PEP 562): solver worker processes and the web
service import submodules one by one, and ``import engine.size`` must not cost them
OR-Tools. Six names are also submodules (``solve``, ``audit``, ``diagnose``, ``plan``,
``replan``, ``recommend``): as attributes of the package they are always the functions,
however the submodules were imported, so ``engine.solve`` is the same object whichever
code ran first. The modules themselves are reached by ``from engine.solve import ...``
or ``importlib.import_module("engine.solve")``.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what mypy and editors see; at run time, __getattr__ below
    from engine.audit import AuditReport, audit
    from engine.contract import (
        Assignment,
        Diagnosis,
        SolveRequest,
        SolveResponse,
        ValidateResponse,
    )
    from engine.diagnose import DiagnosisLimits, diagnose
    from engine.errors import EngineError, FieldError, InvalidRequest
    from engine.history import History, Ledger
    from engine.plan import plan
    from engine.planning import (
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
    from engine.recommend import recommend
    from engine.replan import replan
    from engine.rules import parse_request as parse
    from engine.solve import SolveLimits, solve
    from engine.validation import validate

#: Each public name: the submodule that defines it, and its name there.
_EXPORTS: dict[str, tuple[str, str]] = {
    "parse": ("engine.rules", "parse_request"),
    "validate": ("engine.validation", "validate"),
    "solve": ("engine.solve", "solve"),
    "audit": ("engine.audit", "audit"),
    "diagnose": ("engine.diagnose", "diagnose"),
    "plan": ("engine.plan", "plan"),
    "replan": ("engine.replan", "replan"),
    "recommend": ("engine.recommend", "recommend"),
    "parse_plan": ("engine.planning", "parse_plan"),
    "parse_replan": ("engine.planning", "parse_replan"),
    "parse_recommend": ("engine.planning", "parse_recommend"),
    "SolveRequest": ("engine.contract", "SolveRequest"),
    "SolveResponse": ("engine.contract", "SolveResponse"),
    "ValidateResponse": ("engine.contract", "ValidateResponse"),
    "Assignment": ("engine.contract", "Assignment"),
    "Diagnosis": ("engine.contract", "Diagnosis"),
    "SolveLimits": ("engine.solve", "SolveLimits"),
    "DiagnosisLimits": ("engine.diagnose", "DiagnosisLimits"),
    "AuditReport": ("engine.audit", "AuditReport"),
    "PlanRequest": ("engine.planning", "PlanRequest"),
    "PlanResponse": ("engine.planning", "PlanResponse"),
    "History": ("engine.history", "History"),
    "Ledger": ("engine.history", "Ledger"),
    "ReplanRequest": ("engine.planning", "ReplanRequest"),
    "ReplanResponse": ("engine.planning", "ReplanResponse"),
    "RecommendRequest": ("engine.planning", "RecommendRequest"),
    "RecommendResponse": ("engine.planning", "RecommendResponse"),
    "EngineError": ("engine.errors", "EngineError"),
    "InvalidRequest": ("engine.errors", "InvalidRequest"),
    "FieldError": ("engine.errors", "FieldError"),
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


def __getattr__(name: str) -> object:
    """Load a public name from its submodule on first use, and keep it."""
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:  # not public: the import system then looks for a submodule
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """The package, where importing ``engine.solve`` does not bind the name ``solve``.

    The import system sets each submodule as an attribute of its package once it has
    loaded it; for a name that is also a public function, that would leave the module
    where callers expect the function, or not, depending on what was imported first.
    """

    def __setattr__(self, name: str, value: object) -> None:
        submodule = isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}"
        if submodule and name in _EXPORTS:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
