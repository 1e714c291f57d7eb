"""Following a queued job (a 202) to its end, with a progress bar when asked.

Why the job is polled at its ``Retry-After``: the service says when a new look is
worth it (15 s for a queued solve) and every poll costs it a request. A progress bar
reads ``GET /solve/jobs/{id}/progress`` instead, about once a second (the solving
process writes it that often), and fetches the job itself once the progress says it
ended: the bar shows the best objective, the best bound and their gap as they move.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from shiftsched.client.http import Transport
from shiftsched.client.problems import retry_after
from shiftsched.client.session import Answer

JOB_RETRY_SECONDS = 15.0  # the service's Retry-After on a running job, when it sends none
PROGRESS_SECONDS = 1.0  # how often a shown progress bar reads the progress resource

Sleep = Callable[[float], None]


def job_path(job_id: str) -> str:
    return f"/solve/jobs/{job_id}"


def gap(progress: dict[str, Any]) -> float | None:
    """(objective - bound) / max(1, |objective|), as the solver reports it; None until
    both are known."""
    objective, bound = progress.get("best_objective"), progress.get("best_bound")
    if objective is None or bound is None:
        return None
    return max(0.0, float(objective) - float(bound)) / max(1.0, abs(float(objective)))


def progress_words(progress: dict[str, Any]) -> str:
    """What the bar says of a job's progress, in one line."""
    if progress.get("state") == "queued":
        return "queued"
    objective, bound, ratio = (
        progress.get("best_objective"),
        progress.get("best_bound"),
        gap(progress),
    )
    said = f"{progress.get('state', 'solving')} {float(progress.get('elapsed_seconds', 0)):.0f} s"
    if objective is not None:
        said += f", objective {float(objective):g}"
    if bound is not None:
        said += f", bound {float(bound):g}"
    if ratio is not None:
        said += f", gap {ratio:.1%}"
    return said


def follow(
    transport: Transport,
    accepted: Answer,
    *,
    progress: TextIO | None = None,
    sleep: Sleep = time.sleep,
) -> dict[str, Any]:
    """The JSON answer of the job that ``accepted`` (a 202) queued, once it ended
    (completed or failed); with ``progress``, a bar on that stream meanwhile."""
    answer: dict[str, Any] = accepted.json()
    path = job_path(str(answer["job_id"]))
    wait = retry_after(accepted) or JOB_RETRY_SECONDS
    with _bar(progress) as show:
        while answer.get("status") == "running":
            if show is not None:
                sleep(PROGRESS_SECONDS)
                report = transport.call("GET", path + "/progress").json()
                show(report)
                if report.get("status") == "running":
                    continue
            else:
                sleep(wait)
            polled = transport.call("GET", path)
            answer = polled.json()
            wait = retry_after(polled) or wait
    return answer


@contextmanager
def _bar(stream: TextIO | None) -> Iterator[Callable[[dict[str, Any]], None] | None]:
    """A rich progress line on ``stream`` (None: no bar), and how to update it."""
    if stream is None:
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=Console(file=stream), transient=False) as bar:
        task = bar.add_task("queued", total=None)

        def show(report: dict[str, Any]) -> None:
            bar.update(task, description=progress_words(report))

        yield show


__all__ = ["follow", "gap", "job_path", "progress_words"]
