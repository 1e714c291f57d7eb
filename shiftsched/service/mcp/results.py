"""The tools' results: the operation's answer once, compact, with a line of words.

An answer comes back as the result's structured content (compact JSON, no second copy
in the text), and its text is one short summary: the answer's verdicts, statuses and
figures, and how many items each list holds. A re-plan, an explanation or a why-not
keeps its changed cells; the whole rosters it also holds are left out unless the
caller asks for them (``include_roster``), since a month's roster is tens of KB.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from mcp.types import CallToolResult, TextContent

SAID: Final = ("valid", "status", "verdict", "objective_value", "objective_delta", "job_id")
"""The scalar fields a summary names, when the answer (or each of its items) has them."""
SUMMARY_CHARACTERS: Final = 600


def without_rosters(answer: Any, paths: Sequence[str]) -> Any:
    """``answer`` with the value at each dotted path left out (through lists: the path
    applies to each item); a list left out leaves its length, as ``<key>_total``."""
    for path in paths:
        answer = _dropped(answer, path.split("."))
    return answer


def _dropped(node: Any, keys: list[str]) -> Any:
    if isinstance(node, list):
        return [_dropped(item, keys) for item in node]
    if not isinstance(node, dict) or keys[0] not in node:
        return node
    if len(keys) == 1:
        kept = {key: value for key, value in node.items() if key != keys[0]}
        if isinstance(node[keys[0]], list):
            kept[f"{keys[0]}_total"] = len(node[keys[0]])
        return kept
    return {**node, keys[0]: _dropped(node[keys[0]], keys[1:])}


def answered(answer: dict[str, Any]) -> CallToolResult:
    """A successful call's result."""
    return CallToolResult(content=[TextContent(text=summary(answer))], structured_content=answer)


def failed(problem: dict[str, Any]) -> CallToolResult:
    """A failed call's result: the operation's problem+json, compact, as its text (what
    an assistant reads first) and as structured content."""
    text = json.dumps(problem, separators=(",", ":"), ensure_ascii=False)
    content: list[Any] = [TextContent(text=text)]
    return CallToolResult(content=content, structured_content=problem, is_error=True)


def summary(answer: Mapping[str, Any]) -> str:
    """One line: the answer's own ``summary`` words where it has them, its named
    scalars, and the length of each list; the rest is in the structured content."""
    parts = [f"{key}: {_scalar(answer[key])}" for key in SAID if key in answer]
    if isinstance(answer.get("summary"), str):
        parts.insert(0, answer["summary"])
    for key, value in answer.items():
        if isinstance(value, list):
            parts.append(f"{key}: {len(value)}")
            parts.extend(_item_words(key, value))
        elif isinstance(value, dict) and key == "solution":
            parts.extend(_solution_words(value))
    line = "; ".join(parts) or "done"
    if len(line) > SUMMARY_CHARACTERS:
        line = line[: SUMMARY_CHARACTERS - 1] + "…"
    return line + ". The whole answer is the structured content."


def _solution_words(solution: Mapping[str, Any]) -> list[str]:
    """The roster in one clause: its size, shortages, and its metrics' status, objective
    and gap."""
    listed = [
        f"{key} {len(solution[key])}" for key in ("assignments", "shortages") if key in solution
    ]
    metrics = solution.get("metrics", {})
    named = ("status", "objective_value", "best_bound", "gap")
    figures = [f"{key} {_scalar(metrics[key])}" for key in named if key in metrics]
    return ["roster: " + ", ".join(listed + figures)]


def _item_words(key: str, items: list[Any]) -> list[str]:
    """The ``summary`` of each item that has one (explanations), numbered."""
    return [
        f"{key}[{index}]: {item['summary']}"
        for index, item in enumerate(items[:5])
        if isinstance(item, dict) and isinstance(item.get("summary"), str)
    ]


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
