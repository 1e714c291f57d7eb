"""No import cycles between the modules of the project's packages.

A cycle makes the import order matter: a module run first as a worker's entry point, or
imported selectively by the service, can meet its partner half-initialised. Imports
inside functions count too (grimp reads every import statement): a cycle hidden in a
function still ties the two modules together and waits for the first call to bite.

The graph holds every package at once, so an import that crosses packages is seen; each
package's case lists the cycles that pass through one of its modules.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import grimp
import pytest

PACKAGES = ("shiftsched", "benchmarks")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def strongly_connected(graph: grimp.ImportGraph) -> Iterator[list[str]]:
    """Every set of two or more modules that each reach the others (Tarjan, iterative:
    import chains run deeper than the recursion limit would like)."""
    modules = sorted(graph.modules)
    imports = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for root in modules:
        if root in order:
            continue
        work = [(root, iter(imports[root]))]
        order[root] = low[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, pending = work[-1]
            step = next((m for m in pending if m not in order or m in on_stack), None)
            if step is not None and step not in order:
                order[step] = low[step] = len(order)
                stack.append(step)
                on_stack.add(step)
                work.append((step, iter(imports[step])))
                continue
            if step is not None:
                low[module] = min(low[module], order[step])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == order[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    yield sorted(component)


def one_cycle(graph: grimp.ImportGraph, component: list[str]) -> str:
    """A readable cycle through the component's first module: each module with the line
    that imports the next."""
    first = component[0]
    imported = min(m for m in graph.find_modules_directly_imported_by(first) if m in component)
    back = graph.find_shortest_chain(importer=imported, imported=first)
    assert back is not None  # both lie in one component
    chain = [first, *back]
    steps = []
    for importer, target in itertools.pairwise(chain):
        details = graph.get_import_details(importer=importer, imported=target)
        steps.append(f"{importer} (line {details[0]['line_number']})" if details else importer)
    return " -> ".join([*steps, first])


def describe(graph: grimp.ImportGraph, component: list[str]) -> str:
    """The modules a cycle ties together, and one cycle among them."""
    return f"{len(component)} modules ({', '.join(component)}), e.g. {one_cycle(graph, component)}"


def test_the_cycle_finder_finds_a_cycle_and_nothing_else() -> None:
    graph = grimp.ImportGraph()
    for module in ("p", "p.a", "p.b", "p.c", "p.d"):
        graph.add_module(module)
    graph.add_import(importer="p.a", imported="p.b", line_number=1, line_contents="")
    graph.add_import(importer="p.b", imported="p.c", line_number=1, line_contents="")
    graph.add_import(importer="p.c", imported="p.a", line_number=1, line_contents="")
    graph.add_import(importer="p.c", imported="p.d", line_number=1, line_contents="")
    components = list(strongly_connected(graph))
    assert components == [["p.a", "p.b", "p.c"]]
    assert one_cycle(graph, components[0]) == "p.a (line 1) -> p.b (line 1) -> p.c (line 1) -> p.a"


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle(graph: grimp.ImportGraph, package: str) -> None:
    cycles = [
        describe(graph, component)
        for component in strongly_connected(graph)
        if any(m == package or m.startswith(f"{package}.") for m in component)
    ]
    assert not cycles, f"import cycles through {package}:\n" + "\n".join(cycles)
