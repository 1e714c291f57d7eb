"""Counts in words: ``1 duty``, ``2 duties``, ``no shortage``.

Why one helper: every line the command line, the notebooks and the engine's answers
print counts something, and a count phrase built by hand in each place ends up as
"1 duties" somewhere. It sits at the package's top, beside the errors, so the engine's
sentences (an explanation's summary) and the faces' share it.
"""

from __future__ import annotations

#: Plurals that are not the singular with an ``s``.
_PLURALS = {"duty": "duties", "holiday": "holidays", "person": "people", "entry": "entries"}


def plural(singular: str) -> str:
    """``duty`` -> ``duties``, ``shift`` -> ``shifts``; the last word of a phrase is the
    one that changes (``hard rule`` -> ``hard rules``)."""
    head, space, last = singular.rpartition(" ")
    if last in _PLURALS:
        return head + space + _PLURALS[last]
    if last.endswith("y") and last[-2:-1] not in "aeiou":
        return head + space + last[:-1] + "ies"
    return singular + "s"


def many(count: float, singular: str, plural_form: str | None = None) -> str:
    """``1 duty``, ``2 duties``, ``1,350 heads``: the count with its noun agreeing."""
    shown = f"{count:,.0f}" if float(count).is_integer() else f"{count:,g}"
    noun = singular if count == 1 else (plural_form or plural(singular))
    return f"{shown} {noun}"


def many_or_none(count: float, singular: str, plural_form: str | None = None) -> str:
    """``no shortage`` for 0, else :func:`many`."""
    return f"no {singular}" if count == 0 else many(count, singular, plural_form)
