"""What the Jobs page shows: the filters read from its query, a page of rows, and the
links to older and newer rows.

Why apart from the page handler: the filters are a plain GET form (the dashboard's CSP
allows no inline script), so the query is all the state there is; reading it, keeping
it across pages and naming each operation and status in words are one job, kept here.
A stopped job is named alike here and on its page: the contract's status, with
"stopped at your request" beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import urlencode

from starlette.datastructures import QueryParams

from shiftsched.operations import OPERATIONS as ENGINE_OPERATIONS
from shiftsched.service.http.operations import OPERATIONS
from shiftsched.service.store.job_list import JobFilter, JobRow, JobsPage
from shiftsched.service.store.rows import JobStatus

STATUSES: Final[tuple[JobStatus, ...]] = ("running", "completed", "failed")

STOPPED_WORDS: Final = "stopped at your request"
"""Beside the contract's status of a job its account stopped, wherever the job is named:
its page and the Jobs list say the same status as ``GET /solve/jobs/{id}``."""


def was_stopped(queued: bool, stop_requested: bool, error_code: str | None) -> bool:
    """Whether the account stopped the job: a stop asked of a queued job (a synchronous
    solve heeds none), or a job cancelled before it had a roster."""
    return (queued and stop_requested) or error_code == "cancelled"


def status_words(status: str, error_code: str | None, stopped: bool) -> str:
    """The contract's status, its error code, and why it ended when the account stopped
    it: "completed, stopped at your request", "failed (cancelled), stopped at your request"."""
    words = status if error_code is None else f"{status} ({error_code})"
    return f"{words}, {STOPPED_WORDS}" if stopped and status != "running" else words


def row_status(row: JobRow) -> str:
    """A row's status in the words of its job's page (a row with a stop asked is queued)."""
    return status_words(row.status, row.error_code, was_stopped(True, row.stopped, row.error_code))


def operation_words() -> dict[str, str]:
    """Every operation a job can be, and what a person calls it, in the API's order
    (from the declarations, ``shiftsched.service.http.operations``)."""
    return {op.name: op.called_as for op in OPERATIONS if op.keeps_job}


def roster_operations() -> frozenset[str]:
    """Operations whose completed answer is a roster, which the exports can download
    (the engine's declarations say so, ``shiftsched.operations``)."""
    return frozenset(op.name for op in ENGINE_OPERATIONS if op.roster)


@dataclass(frozen=True)
class JobsQuery:
    """The Jobs page's query: the filter and the page (1: the newest rows)."""

    where: JobFilter
    page: int

    def link(self, page: int) -> str:
        """The query string of another page under the same filter."""
        fields = {
            "status": self.where.status,
            "operation": self.where.operation,
            "key": self.where.key_id,
            "page": str(page) if page > 1 else None,
        }
        kept = {name: value for name, value in fields.items() if value}
        return "?" + urlencode(kept) if kept else "?"

    @property
    def filtered(self) -> bool:
        return self.where != JobFilter()


def read_query(params: QueryParams, key_ids: set[str]) -> JobsQuery:
    """The filter and page asked for. A value that names nothing (an unknown status or
    operation, another account's key, a page that is not a number) filters nothing."""
    status = params.get("status")
    operation = params.get("operation")
    key_id = params.get("key")
    page = params.get("page", "1")
    where = JobFilter(
        status=status if status in STATUSES else None,
        operation=operation if operation in operation_words() else None,
        key_id=key_id if key_id in key_ids else None,
    )
    return JobsQuery(where, int(page) if page.isdigit() and int(page) > 0 else 1)


def page_links(query: JobsQuery, listing: JobsPage) -> tuple[str | None, str | None]:
    """(newer, older): the query strings of the neighbouring pages, None at either end."""
    newer = query.link(listing.page - 1) if listing.page > 1 else None
    older = query.link(listing.page + 1) if listing.has_older else None
    return newer, older
