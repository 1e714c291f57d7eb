"""No function longer than a screen and a half in the packages listed here.

A function over :data:`MAX_LINES` does several things at once; split, each piece gets a
name that says what it does and can be read (and tested) alone. The span counted is the
physical one, ``def`` to the last line of the body, as :mod:`ast` reports it, so
docstrings, comments and blank lines count too. Methods and nested functions count on
their own (a nested function's lines also count towards the function around it).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 80
PACKAGES = ("shiftsched", "benchmarks", "datasets")


def long_functions(source: str, where: str) -> list[str]:
    """``where:line name (N lines)`` for each function of ``source`` over the limit."""
    found = []
    for node in ast.walk(ast.parse(source, filename=where)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            span = node.end_lineno - node.lineno + 1
            if span > MAX_LINES:
                found.append(f"{where}:{node.lineno} {node.name} ({span} lines)")
    return found


def test_the_span_runs_from_def_to_the_end_of_the_body() -> None:
    lines = [f"x{i} = {i}" for i in range(MAX_LINES - 1)]
    fits = "@decorated\ndef fits():\n" + "".join(f"    {line}\n" for line in lines)
    assert long_functions(fits, "m.py") == []
    over = "class C:\n    async def over(self):\n"
    over += "".join(f"        {line}\n" for line in [*lines, "return None"])
    assert long_functions(over, "m.py") == [f"m.py:2 over ({MAX_LINES + 1} lines)"]


def test_no_function_is_over_the_limit() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = str(path.relative_to(ROOT))
            found += long_functions(path.read_text(encoding="utf-8"), where)
    assert not found, f"functions over {MAX_LINES} lines:\n" + "\n".join(found)
