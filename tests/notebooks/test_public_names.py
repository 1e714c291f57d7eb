"""The notebooks reach the engine only through its public names.

A notebook imports from ``shiftsched`` or one of its folders (``shiftsched.present``,
``shiftsched.questions``, ...), never from a module inside a folder: the folders'
``__init__`` files name what is public (``__all__``, loaded lazily from ``_EXPORTS``),
so a module can be split or renamed behind them without touching a notebook. Read
with :mod:`ast`, without running the notebooks.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).parent.parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
ENGINE = "shiftsched"


def engine_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """Each import of the engine in a notebook: its line, the module and the names."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == ENGINE:
                    found.append((node.lineno, alias.name, []))
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.split(".")[0] == ENGINE
        ):
            found.append((node.lineno, node.module, [a.name for a in node.names]))
    return found


def faults_of(path: Path) -> list[str]:
    """What is not public in a notebook's imports of the engine."""
    faults = []
    for line, module, names in engine_imports(path):
        where = f"{path.name}:{line}"
        if len(module.split(".")) > 2:
            faults.append(f"{where}: {module} is inside a folder; import from its folder")
            continue
        public = set(getattr(importlib.import_module(module), "__all__", ()))
        for name in names:
            if name.startswith("_"):
                faults.append(f"{where}: {module}.{name} is private")
            elif name not in public:
                faults.append(f"{where}: {module}.{name} is not in {module}.__all__")
    return faults


def test_the_scan_finds_the_notebooks_and_their_imports() -> None:
    assert {p.name for p in NOTEBOOKS} >= {"explore.py", "fairness.py", "infeasibility.py"}
    assert all(engine_imports(path) for path in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_imports_only_public_names(path: Path) -> None:
    assert faults_of(path) == []


def test_the_check_refuses_a_deep_module_a_private_name_and_a_module_name(
    tmp_path: Path,
) -> None:
    notebook = tmp_path / "deep.py"
    notebook.write_text(
        "import shiftsched.present.frames\n"
        "from shiftsched.present.frames import assignments_frame\n"
        "from shiftsched.present import _EXPORTS\n"
        "from shiftsched.present import frames\n"
        "from shiftsched import audit\n",
        encoding="utf-8",
    )
    faults = faults_of(notebook)
    assert len(faults) == 4, faults
    assert "deep.py:3: shiftsched.present._EXPORTS is private" in faults


def surfaces() -> list[ModuleType]:
    """Every folder of the engine that declares public names."""
    package = importlib.import_module(ENGINE)
    folders = [
        importlib.import_module(f"{ENGINE}.{info.name}")
        for info in pkgutil.iter_modules(package.__path__)
        if info.ispkg
    ]
    return [package, *(folder for folder in folders if hasattr(folder, "_EXPORTS"))]


@pytest.mark.parametrize("surface", surfaces(), ids=lambda m: m.__name__)
def test_each_public_name_loads_and_is_no_submodule(surface: ModuleType) -> None:
    """``__all__`` is the table of exports; each loads; none shares its name with a
    submodule of the folder, which importing the submodule would put in its place."""
    exports = surface._EXPORTS
    assert sorted(surface.__all__) == sorted(exports)
    submodules = {info.name for info in pkgutil.iter_modules(surface.__path__)}
    assert not submodules & set(exports)
    for name in exports:
        assert getattr(surface, name) is not None
