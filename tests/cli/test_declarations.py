"""The engine's declarations of its operations: light to import, and every name in them
names what it says (``shiftsched.operations``)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from shiftsched.cli.main import commands
from shiftsched.operations import OPERATIONS, Operation, by_name, named
from tests.test_public_api import loaded_after


def test_the_declarations_load_no_heavy_package() -> None:
    assert loaded_after("import shiftsched.operations") == []


@pytest.mark.parametrize("operation", list(OPERATIONS), ids=lambda op: op.name)
def test_each_name_in_a_declaration_is_importable(operation: Operation) -> None:
    assert issubclass(named(operation.request), BaseModel)
    assert issubclass(named(operation.response), BaseModel)
    for function in (operation.parser, operation.function, operation.about):
        assert callable(named(function))
    if operation.command is not None and operation.command.handler:
        assert callable(named(operation.command.handler))
    assert by_name(operation.name) is operation


def test_the_subcommands_are_the_declared_ones_export_and_next_period() -> None:
    names = [name for name, _, _ in commands()]
    expected = ["validate", "solve", "audit", "compare", "explain", "why", "export"]
    assert names == [*expected, "replan", "recommend", "next-period"]
    with pytest.raises(LookupError):
        by_name("teleport")
