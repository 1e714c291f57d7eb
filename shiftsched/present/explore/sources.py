"""Where the explorer's request and rosters come from: a dataset file or an upload.

An upload is read by what it holds: a request (it has a schedule period, shifts or
employees) or a roster (a SolveResponse, ``{"assignments": [...]}`` or a bare list),
checked against the chosen request before anything shows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shiftsched.checking.audit import read_response
from shiftsched.contract.parse import load_json, parse_request
from shiftsched.contract.v1 import Assignment, SolveRequest
from shiftsched.errors import FieldError, InvalidRequest
from shiftsched.present.export import assignments_path
from shiftsched.questions.inquiry import fit_faults

REQUEST_KEYS = frozenset({"schedule_period", "shifts", "employees"})


@dataclass(frozen=True)
class Upload:
    """A file uploaded: ``request`` or ``roster`` is its (name, JSON), the other None."""

    request: tuple[str, Any] | None
    roster: tuple[str, Any] | None


def fault_lines(faults: Sequence[object]) -> str:
    """Faults as a markdown list, each in code."""
    return "\n".join(f"- `{fault}`" for fault in faults)


def read_upload(contents: bytes, name: str) -> Upload:
    """What an uploaded file holds; :class:`InvalidRequest` when it is not JSON."""
    data = load_json(contents, name)
    if isinstance(data, dict) and REQUEST_KEYS & set(data):
        return Upload(request=(name, data), roster=None)
    return Upload(request=None, roster=(name, data))


def dataset_files(notebook_dir: Path | None, default_request: str) -> dict[str, Path]:
    """The datasets beside the notebooks, by name, with ``--request``'s file among them."""
    dataset_dir = (notebook_dir or Path(".")).parent / "datasets"
    paths = {p.stem: p for p in sorted(dataset_dir.glob("*.json"))}
    if default_request:
        paths[Path(default_request).stem] = Path(default_request)
    return paths


def chosen_request(
    source: str, uploaded_request: tuple[str, Any] | None, paths: Mapping[str, Path]
) -> SolveRequest:
    """The request chosen in the Dataset list: the upload when it is chosen, else a
    dataset file; :class:`InvalidRequest` with every fault when it is not valid."""
    if uploaded_request is not None and source == uploaded_request[0]:
        return parse_request(uploaded_request[1])
    return parse_request(load_json(paths[source].read_bytes(), source))


def uploaded_note(source: str, uploaded_request: tuple[str, Any] | None) -> str | None:
    """Where the request comes from, when it is an upload (the list holds it too)."""
    if uploaded_request is not None and source == uploaded_request[0]:
        return f"Using the uploaded request **{source}**; choose a dataset to leave it."
    return None


def roster_fit(
    request: SolveRequest, name: str, data: object
) -> tuple[list[FieldError], list[Assignment] | None]:
    """The faults of a roster read from ``data`` against ``request``, and the roster
    when it has none (a roster of another request is one fault)."""
    try:
        read = read_response(data)
        faults = fit_faults(request, read.assignments, assignments_path(data) or (name,))
    except InvalidRequest as exc:
        return exc.errors, None
    return faults, None if faults else read.assignments


def misfit_words(name: str, faults: Sequence[FieldError]) -> str:
    """Why an uploaded roster is not shown: it is not one of this request."""
    return (
        f"**{name} is not a roster of this request**, so the request is "
        f"solved instead. The first fault: `{faults[0]}`"
        + "".join(f"\n- `{fault}`" for fault in faults[1:5])
    )


def uploaded_roster_fit(
    request: SolveRequest, contents: bytes, name: str
) -> tuple[list[FieldError], list[Assignment] | None]:
    """:func:`roster_fit` of an uploaded file, a file that is not JSON one more fault."""
    try:
        data = load_json(contents, name)
    except InvalidRequest as exc:
        return exc.errors, None
    return roster_fit(request, name, data)
