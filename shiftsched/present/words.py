"""Counts in words, for the faces: :mod:`shiftsched.words`, where the engine's answers
use them too."""

from __future__ import annotations

from shiftsched.words import many, many_or_none, plural

__all__ = ["many", "many_or_none", "plural"]
