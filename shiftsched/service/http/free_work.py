"""A free operation's whole answer, computed in a light process from the body's bytes.

Why the bytes: a free call has nobody to bill and nothing to admit, so nothing needs its
parsed request in the web worker. Parsing a 1 MB body there (JSON, then the contract's
models) and sending the models to another process cost the web worker's interpreter a
second or more, which every other request, a paid solve's answer among them, waited for.
So the light process gets the bytes and gives back the answer's JSON; the web worker only
moves bytes. The outcome is a plain tagged value, so that no exception class has to cross
the process boundary.
"""

from __future__ import annotations

import importlib
from typing import Any, Literal

from shiftsched.errors import FieldError, InvalidRequest
from shiftsched.service.errors import InvalidJson
from shiftsched.service.http.gate import parse_json

Outcome = (
    tuple[Literal["answer"], bytes]
    | tuple[Literal["invalid_json"], str]
    | tuple[Literal["invalid"], list[FieldError]]
)


def answer_free(parse: str, call: str, body: bytes) -> Outcome:
    """``call(parse(body))`` as JSON bytes (``module:function`` names), or what was wrong
    with the body: not JSON (the detail), or faults of the contract (with paths)."""
    try:
        data = parse_json(body)
    except InvalidJson as exc:
        return ("invalid_json", exc.detail or "not JSON")
    try:
        ask = _named(parse)(data)
    except InvalidRequest as exc:
        return ("invalid", list(exc.errors))
    answer = _named(call)(ask)
    return ("answer", answer.model_dump_json(exclude_none=True).encode())


def name_of(function: Any) -> str:
    """``module:function`` of a module-level function, checked to name it again, so a
    light process finds the same function; ValueError otherwise."""
    name = f"{function.__module__}:{function.__qualname__}"
    if _named(name) is not function:
        raise ValueError(f"{name} is not found again by its name")
    return name


def _named(name: str) -> Any:
    module, function = name.split(":")
    return getattr(importlib.import_module(module), function)
