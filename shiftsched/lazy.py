"""A package's public names, loaded from their submodules on first use (PEP 562).

The package and each engine folder export names this way, so that importing them costs
nothing until a name is used: solver processes and the web service import submodules one
by one, and ``import shiftsched.contract`` must not load OR-Tools.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence


def lazy_names(
    package: str, exports: Mapping[str, tuple[str, str]], public: Sequence[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: each name of ``exports`` is read
    from its submodule (``name -> (module, attribute)``) when first asked for, and kept."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> object:
        try:
            module, attribute = exports[name]
        except KeyError:  # not public: the import system then looks for a submodule
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module), attribute)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *public})

    return __getattr__, __dir__
