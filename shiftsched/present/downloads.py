"""The roster files a notebook offers for download: CSV, iCalendar and XLSX.

Each file is shiftsched.present.export's; this module names them and gives their
buttons a label, so every notebook offers the same files under the same names.
"""

from __future__ import annotations

from collections.abc import Sequence

from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.present.export import FILE_TYPES, Format, export, file_name

#: Each file type with the label of its download button, in the order they are shown.
DOWNLOADS: tuple[tuple[Format, str], ...] = (("csv", "CSV"), ("ics", "iCalendar"), ("xlsx", "XLSX"))


def export_files(request: SolveRequest, roster: Sequence[Assignment]) -> dict[Format, bytes]:
    """The roster as each file type, for a spreadsheet or a calendar."""
    return {fmt: export(request, roster, fmt) for fmt in FILE_TYPES}


def roster_file_name(stem: str, fmt: Format) -> str:
    """The name a roster file downloads under: ``roster-<stem>`` and the type's suffix."""
    return file_name(f"roster-{stem}", fmt)


def media_type(fmt: Format) -> str:
    """The media type a roster file is served with."""
    return FILE_TYPES[fmt].media_type
