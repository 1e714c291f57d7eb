"""What a fault adds to help fix it: the known name closest to a misspelt one, and the
ids a reference could have named.

Why apart: the field rules (:mod:`shiftsched.contract.parse`) and the reference rules
(:mod:`shiftsched.contract.cross_field`, the planning and history checks) word their
faults alike, and a message is all a person reads; the code and the path stay as they
are, for programs.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

#: How alike a name must be to be suggested (difflib's ratio): a letter or two wrong.
CLOSE = 0.75
#: The ids a message lists before it says how many more there are.
LISTED = 12


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known name most like ``word``, when one is close enough."""
    found = difflib.get_close_matches(word, list(known), n=1, cutoff=CLOSE)
    return found[0] if found else None


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"; did you mean 'working_days_per_month'?"``, or nothing when no name is close."""
    match = closest(word, known)
    return "" if match is None else f"; did you mean '{match}'?"


def listing(ids: Collection[str]) -> str:
    """``early, late, night`` (sorted), cut after :data:`LISTED` with how many more."""
    shown = sorted(ids)
    text = ", ".join(shown[:LISTED])
    return text + (f" and {len(shown) - LISTED} more" if len(shown) > LISTED else "")


def unknown_id(kind: str, value: str, ids: Collection[str]) -> str:
    """``no shift has id 'erly'; did you mean 'early'? (the shifts: early, late)``."""
    known = f" (the {kind}s: {listing(ids)})" if ids else f" (the request has no {kind})"
    return f"no {kind} has id '{value}'{did_you_mean(value, ids)}{known}"


# ------------------------------------------------------------------- model fields


def _members(annotation: Any) -> list[Any]:
    """The concrete types an annotation may hold: Annotated and unions unwrapped."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _members(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return [m for arg in get_args(annotation) for m in _members(arg)]
    return [annotation]


def _step(annotation: Any, segment: str | int) -> list[Any]:
    """What one segment of a path leads to inside ``annotation``."""
    origin, args = get_origin(annotation), get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        field = annotation.model_fields.get(segment) if isinstance(segment, str) else None
        return [] if field is None else _members(field.annotation)
    if isinstance(segment, int) and isinstance(origin, type) and issubclass(origin, Sequence):
        return _members(args[0]) if args else []
    if isinstance(segment, str) and isinstance(origin, type) and issubclass(origin, Mapping):
        return _members(args[-1]) if args else []
    return []


def fields_at(model: type[BaseModel], loc: Sequence[str | int]) -> set[str]:
    """The properties the object at ``loc`` (pydantic's location of a property in it)
    may have. A segment that leads nowhere (a union's tag) is passed over."""
    here = _members(model)
    for segment in loc[:-1]:
        here = [found for annotation in here for found in _step(annotation, segment)] or here
    models = [m for m in here if isinstance(m, type) and issubclass(m, BaseModel)]
    return {name for m in models for name in m.model_fields}
