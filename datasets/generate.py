"""Generate the realistic v1 SolveRequest datasets in this folder.

Each scenario is a small pure function returning a plain dict (a v1 request body) that
models one business, in the package ``scenarios/`` beside this script: one module per
business, on the parts of ``scenarios/builder.py``. Randomness (names, preferences,
skill levels) comes from one ``random.Random`` per scenario with a fixed seed, so
``python datasets/generate.py`` rewrites every file byte-identically and the tests can
compare the committed files with fresh output. Demand is sized against the staff's
capacity so that a sensible roster can meet nearly all of it, and every hard input
(fixed assignments, count minimums, weekday availability) is chosen so that the hard
rules always admit a roster.

The parts and bodies are put together by :mod:`shiftsched.data.request_body`, like every other
request of the tests and datasets.

Usage: ``python datasets/generate.py [output_dir]`` (default: this folder).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

Json = dict[str, Any]

HERE = Path(__file__).resolve().parent
PACKAGE = "datasets_scenarios"  # the name ``scenarios/`` is loaded under


def _scenarios() -> ModuleType:
    """The package ``scenarios/`` beside this file, loaded from its path.

    ``datasets/`` is a folder of scripts, not an installed package, and the tests load
    this file by path too; loading the package the same way (its modules import each
    other relatively) works however this file was reached, without touching sys.path.
    """
    if PACKAGE in sys.modules:
        return sys.modules[PACKAGE]
    folder = HERE / "scenarios"
    spec = importlib.util.spec_from_file_location(
        PACKAGE, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[PACKAGE]
        raise
    return module


SCENARIOS: dict[str, Callable[[], Json]] = _scenarios().SCENARIOS

_RANGE = re.compile(r'\{\s*"min": (\d+),\s*"max": (\d+)\s*\}')
_SHORT_LIST = re.compile(r'\[\s*((?:"[^"\n]*",\s*)*"[^"\n]*")\s*\]')


def render(body: Json) -> str:
    """Indented JSON with {min, max} ranges and short string lists kept on one line."""
    text = json.dumps(body, indent=2, ensure_ascii=False)
    text = _RANGE.sub(r'{"min": \1, "max": \2}', text)
    text = _SHORT_LIST.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    return text + "\n"


def write_all(directory: Path) -> list[Path]:
    """Write every scenario into ``directory``; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, scenario in SCENARIOS.items():
        path = directory / file_name
        path.write_text(render(scenario()), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for path in write_all(Path(args[0]) if args else HERE):
        print(path.name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
