"""What the command line writes: its exit codes, and JSON on stdout.

Why apart: every handler ends the same way, and the codes are the command line's
contract with scripts (``shiftsched.cli``, "Exit codes").
"""

from __future__ import annotations

import json
from typing import Any, TextIO

EXIT_OK, EXIT_FAILED, EXIT_INVALID, EXIT_INTERNAL = 0, 1, 2, 3


def print_json(payload: Any, out: TextIO) -> None:
    """``payload`` as indented JSON, non-ASCII kept, one newline after."""
    out.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
