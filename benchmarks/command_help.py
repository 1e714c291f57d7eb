"""A benchmark command's module docstring as its ``--help``, read as plain text.

The docstrings are written for the source and the docs (reST and Markdown marks, long
paragraphs, numbered lists). argparse would cut a first line mid-sentence or run the
lists together; this keeps the first paragraph as the description, the rest as the
epilog with its line breaks, and takes the marks out.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from typing import Any

_MARKS = (
    (re.compile(r":(?:data|func|class|mod|meth|attr):`~?([^`]+)`"), r"\1"),
    (re.compile(r"``([^`]+)``"), r"\1"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"\1"),
    (re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])"), r"\1"),
)


def plain(text: str) -> str:
    """``text`` without its reST and Markdown marks (code, bold, emphasis, roles)."""
    for pattern, replacement in _MARKS:
        text = pattern.sub(replacement, text)
    return text


def docstring_help(doc: str | None) -> dict[str, Any]:
    """The ``argparse.ArgumentParser`` keywords that show ``doc`` as the help: its first
    paragraph, filled again, as the description; the rest, line breaks kept, as the
    epilog."""
    first, _, rest = plain(doc or "").strip().partition("\n\n")
    return {
        "description": textwrap.fill(" ".join(first.split()), width=88),
        "epilog": rest.strip() or None,
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }
