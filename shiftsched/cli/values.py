"""The command line's own value syntax: an absence and a slot written on one argument.

Why apart: the declarations of the operations (``shiftsched.operations``) name these as
the types of their arguments, and must stay light; the engine checks the values (the
dates, the ids) once they are in a request.
"""

from __future__ import annotations

import argparse
from typing import Any


def absence(text: str) -> dict[str, Any]:
    """``EMPLOYEE_ID:DATE[,DATE...]`` as an absence (dates are checked by the engine)."""
    employee_id, sep, dates = text.rpartition(":")
    if not sep or not employee_id or not dates:
        raise argparse.ArgumentTypeError(f"expected EMPLOYEE_ID:DATE[,DATE...], got {text!r}")
    return {"employee_id": employee_id, "dates": [d for d in dates.split(",") if d]}


def slot(text: str) -> dict[str, Any]:
    """``DATE:SHIFT_ID[:DUTY_ID]`` as a slot."""
    day, sep, rest = text.partition(":")
    shift_id, _, duty_id = rest.partition(":")
    if not sep or not day or not shift_id:
        raise argparse.ArgumentTypeError(f"expected DATE:SHIFT_ID[:DUTY_ID], got {text!r}")
    found = {"date": day, "shift_id": shift_id}
    return found | ({"duty_id": duty_id} if duty_id else {})
