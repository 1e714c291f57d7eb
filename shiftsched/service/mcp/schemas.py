"""The tools' input schemas, small enough for an assistant's context.

Every tool but one takes a scheduling request, and the request's schema is about 9 KB:
inlined in each tool it made the tool list 135 KB. So a large shared type is described
once, in its home tool (:data:`HOMES`: the request in the tool that checks one, the
history in the tool that plans with one), and every other tool's argument of that type
says where to read it. Titles, which repeat the property names, are left out, and an
optional field is its type (not "this or null"); descriptions, types, limits and enums
stay, so the list alone is enough to call any tool. The schemas describe; validation is
the HTTP operation's, so a fault comes back with the API's own JSON paths and codes,
never the MCP SDK's words.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel

from shiftsched.contract.v1 import SolveRequest

REQUEST_HOME: Final = "validate_shift_input"
"""The tool whose ``request`` argument carries the request's whole schema."""
HOMES: Final = {"SolveRequest": (REQUEST_HOME, "request"), "History": ("plan_shift", "history")}
"""Each shared type described once: the tool and the argument that carry its schema."""
WORDS: Final = {
    "SolveRequest": "The scheduling request (SolveRequest): its full schema is {where}; "
    "check a request there first (free).",
    "History": "The days before the period: the previous period's answer as it stands, "
    "or {{start_date?, assignments, ledger?}}; its full schema is {where}.",
}
"""What an argument of a shared type says in the other tools (``{where}``: its home)."""
INCLUDE_ROSTER: Final = {
    "type": "boolean",
    "default": False,
    "description": (
        "Also return the whole roster of each answer (large); by default only the "
        "changed cells are returned."
    ),
}
_REF = "#/$defs/"


def whole_request_input(tool: str) -> dict[str, Any]:
    """The input of ``tool``, whose one argument, ``request``, is the whole body."""
    return _input(tool, {"request": {"$ref": _REF + "SolveRequest"}}, ["request"], {})


def spread_input(tool: str, body: type[BaseModel], *, include_roster: bool) -> dict[str, Any]:
    """The input of ``tool``, whose arguments are ``body``'s fields, with
    ``include_roster`` when the answer holds whole rosters."""
    schema = body.model_json_schema()
    properties = dict(schema["properties"])
    if include_roster:
        properties["include_roster"] = INCLUDE_ROSTER
    return _input(tool, properties, schema.get("required", []), schema.get("$defs", {}))


def _input(
    tool: str, properties: dict[str, Any], required: list[str], definitions: dict[str, Any]
) -> dict[str, Any]:
    """An object of ``properties``: a shared type's schema where ``tool`` is its home,
    else its reference; only the definitions used kept."""
    definitions = {**definitions, "SolveRequest": SolveRequest.model_json_schema()}
    definitions.update(definitions["SolveRequest"].pop("$defs", {}))
    shown = {
        name: _referred(value, tool, name) if _shared(value) else value
        for name, value in properties.items()
    }
    top: dict[str, Any] = {"type": "object", "properties": shown, "required": required}
    used = _reachable(shown, definitions)
    if used:
        top["$defs"] = {name: definitions[name] for name in sorted(used)}
    compacted: dict[str, Any] = _compact(_untitled(top))
    return compacted


def _shared(value: Any) -> str | None:
    """The shared type ``value`` (a property's schema) is, optional or not."""
    options = value.get("anyOf", [value]) if isinstance(value, dict) else []
    for option in options:
        name = str(option.get("$ref", "")).removeprefix(_REF)
        if name in HOMES:
            return name
    return None


def _referred(value: dict[str, Any], tool: str, argument: str) -> dict[str, Any]:
    """``value`` as it stands in its home, else an object described by reference."""
    name = _shared(value) or ""
    home, home_argument = HOMES[name]
    if (home, home_argument) == (tool, argument):
        return value
    where = f"{home}'s `{home_argument}` argument"
    return {"type": "object", "description": WORDS[name].format(where=where)}


def _compact(node: Any) -> Any:
    """``node`` with each optional field its type (``anyOf [X, null]`` with a null
    default is X) and each date the short form (the pattern is the format's)."""
    if isinstance(node, list):
        return [_compact(value) for value in node]
    if not isinstance(node, dict):
        return node
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options and len(options) == 2:
        kept = next(option for option in options if option != {"type": "null"})
        rest = {
            key: value
            for key, value in node.items()
            if key != "anyOf" and not (key == "default" and value is None)
        }
        return _compact({**kept, **rest})
    if node.get("format") == "date":
        return {"type": "string", "format": "date"}
    return {key: _compact(value) for key, value in node.items()}


def _reachable(root: Any, definitions: dict[str, Any]) -> set[str]:
    """The definitions ``root`` refers to, directly or through each other."""
    found: set[str] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(_REF):
                name = ref.removeprefix(_REF)
                if name not in found:
                    found.add(name)
                    pending.append(definitions[name])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return found


def _untitled(node: Any, *, named: bool = False) -> Any:
    """``node`` without its schemas' ``title`` keys; ``named``: ``node`` maps names to
    schemas (``properties``, ``$defs``), where a key called title is a name, kept."""
    if isinstance(node, dict):
        return {
            key: _untitled(value, named=key in ("properties", "$defs") and not named)
            for key, value in node.items()
            if named or not (key == "title" and isinstance(value, str))
        }
    if isinstance(node, list):
        return [_untitled(value) for value in node]
    return node
