"""The planted infeasible requests of ``datasets/infeasible/``, as the tests read them.

``datasets/planted.py`` writes them; ``index.json`` says, per file, which family and JSON
path the diagnosis must rank first and which words its message must name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INFEASIBLE = Path(__file__).resolve().parent.parent / "datasets" / "infeasible"
INDEX = INFEASIBLE / "index.json"


@dataclass(frozen=True)
class Planted:
    """A request whose infeasibility is explained first by one item of one family."""

    file: str
    family: str
    field: str
    mentions: tuple[str, ...]  # employee ids and dates the cause's message must name
    summary: str
    request: dict[str, Any]

    @property
    def name(self) -> str:
        return self.file.removesuffix(".json")


def load_planted() -> list[Planted]:
    """Every planted request, in the order of ``index.json``."""
    entries = json.loads(INDEX.read_text(encoding="utf-8"))
    return [
        Planted(
            file=entry["file"],
            family=entry["family"],
            field=entry["field"],
            mentions=tuple(entry["mentions"]),
            summary=entry["summary"],
            request=json.loads((INFEASIBLE / entry["file"]).read_text(encoding="utf-8")),
        )
        for entry in entries
    ]
