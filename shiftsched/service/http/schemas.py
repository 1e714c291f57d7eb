"""The schemas of the operations beside v1 (re-planning, recommendations, and any
operation declared after them), for the OpenAPI document (``shiftsched.service.http.openapi``).

The v1 schemas stay exactly as they are: these are generated apart from them, since
generating them together would split the v1 ``Assignment`` into request and response
copies (a published roster is input here, while v1 only ever answers assignments). An
assignment in a body is named and titled ``RosterAssignment`` (a client generator names
a model by its title, and drops the duplicate model with every schema that refers to
it); every other schema these share with v1 is v1's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

REF: Final = "#/components/schemas/{model}"
ROSTER_ASSIGNMENT: Final = "RosterAssignment"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


def _renamed(node: Any, old: str, new: str) -> Any:
    """``node`` with every reference to schema ``old`` pointed at ``new``."""
    if isinstance(node, dict):
        if node.get("$ref") == REF.format(model=old):
            return {**node, "$ref": REF.format(model=new)}
        return {key: _renamed(value, old, new) for key, value in node.items()}
    if isinstance(node, list):
        return [_renamed(value, old, new) for value in node]
    return node


def beside_v1_schemas(
    bodies: Iterable[type[BaseModel]], answers: Iterable[type[BaseModel]]
) -> dict[str, Any]:
    """The schemas of these bodies and answers and of what they hold, named as above."""
    inputs: list[tuple[type[BaseModel], JsonSchemaMode]] = [(m, "validation") for m in bodies]
    outputs: list[tuple[type[BaseModel], JsonSchemaMode]] = [(m, "serialization") for m in answers]
    _, given = models_json_schema(inputs, ref_template=REF)
    _, answered = models_json_schema(outputs, ref_template=REF)
    schemas = dict(answered.get("$defs", {}))
    for name, schema in given.get("$defs", {}).items():
        if name == "Assignment":  # its own title too: generators name models by title
            schemas[ROSTER_ASSIGNMENT] = {**schema, "title": ROSTER_ASSIGNMENT}
        else:
            schemas.setdefault(name, _renamed(schema, "Assignment", ROSTER_ASSIGNMENT))
    return schemas
