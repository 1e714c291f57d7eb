"""Exceptions raised by the engine.

    EngineError
    └── InvalidRequest   the request breaks a field or cross-field rule (carries every fault)

A solve that ends without a roster is not an exception: ``SolveOutcome.status`` says how
it ended (timeout, infeasible, model_invalid). Faces (CLI, HTTP, MCP) map both to exit
codes and problem+json; the engine never formats HTTP itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def dotted(path: Sequence[str | int]) -> str:
    """A JSON path as people read it: ``("solution", "assignments", 3, "date")`` is
    ``solution.assignments[3].date``."""
    text = ""
    for segment in path:
        if isinstance(segment, int):
            text += f"[{segment}]"
        else:
            text += f".{segment}" if text else segment
    return text or "(root)"


@dataclass(frozen=True, slots=True)
class FieldError:
    """One fault in a request: JSON path of the offending value, message, stable code."""

    path: tuple[str | int, ...]
    message: str
    code: str

    def as_dict(self) -> dict[str, object]:
        return {"path": list(self.path), "message": self.message, "code": self.code}

    def __str__(self) -> str:
        return f"{dotted(self.path)}: {self.message} [{self.code}]"


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class InvalidRequest(EngineError):
    """The request breaks one or more rules of the contract."""

    def __init__(self, errors: list[FieldError]) -> None:
        self.errors = errors
        first = errors[0] if errors else None
        summary = f"{len(errors)} error(s)" + (
            f"; first at {dotted(first.path)}: {first.message}" if first else ""
        )
        super().__init__(summary)
