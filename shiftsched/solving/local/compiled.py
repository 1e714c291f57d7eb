"""The kernels, compiled with numba on first use.

numba is imported only then: a process that never runs the local search pays nothing
for it. Every function of the two modules is compiled where it is called; the entries
release the interpreter (``nogil``), so the search runs on a core of its own beside the
other threads of the portfolio.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from typing import Any

from shiftsched.solving.local import kernels, moves

_ENTRIES = ("run_moves", "read_cells", "write_cells", "evaluate_all")
_MODULES = (kernels, moves)  # every function of these is compiled where it is called
_COMPILED: dict[str, Callable[..., Any]] = {}
_COMPILING = threading.Lock()


def entry(name: str) -> Callable[..., Any]:
    """The compiled entry ``name`` (compiling every entry the first time)."""
    if not _COMPILED:
        with _COMPILING:
            if not _COMPILED:
                _COMPILED.update(_compile())
    return _COMPILED[name]


def _compile() -> dict[str, Callable[..., Any]]:
    from numba import njit
    from numba.extending import register_jitable

    for module in _MODULES:
        for function in vars(module).values():
            if inspect.isfunction(function) and function.__module__ == module.__name__:
                register_jitable(function)
    compiled: dict[str, Callable[..., Any]] = {}
    for name in _ENTRIES:
        function = getattr(moves, name, None) or getattr(kernels, name)
        try:  # cached on disk where numba finds a writable place
            compiled[name] = njit(cache=True, nogil=True)(function)
        except RuntimeError:  # a read-only install: compiled in each process
            compiled[name] = njit(nogil=True)(function)
    return compiled
