"""Problem size, size class and units: the numbers that decide how a solve is handled.

Size approximates the number of decision variables of the roster model (one per
employee, shift, duty and date), so it predicts both solve time and cost. Requests above
:data:`LARGE_SIZE_THRESHOLD` are "large" and go to the queued path; every solve consumes
:func:`units_for` units. These functions are pure so that validation, billing and the
HTTP layer all agree on one figure.
"""

from __future__ import annotations

import math
from typing import Literal

from shiftsched.contract.v1 import SchedulePeriod, SolveRequest

#: Sizes strictly above this are "large" (queued on a pro key, refused elsewhere).
LARGE_SIZE_THRESHOLD = 80_000
#: One unit is charged per started block of this many size points.
SIZE_PER_UNIT = 10_000

SizeClass = Literal["basic", "large"]


def schedule_days(period: SchedulePeriod) -> int:
    """Number of dates in the period, both ends included (0 or less when inverted)."""
    return (period.end_date - period.start_date).days + 1


def problem_size(employees: int, shifts: int, duties: int, days: int) -> int:
    """employees x shifts x max(1, duties) x days; a request without duties counts as one."""
    return employees * shifts * max(1, duties) * days


def request_size(request: SolveRequest) -> int:
    """The size of a parsed request (see :func:`problem_size`)."""
    return problem_size(
        employees=len(request.employees),
        shifts=len(request.shifts),
        duties=len(request.duties),
        days=schedule_days(request.schedule_period),
    )


def size_class(size: int) -> SizeClass:
    """'large' strictly above the threshold, so a size of exactly 80,000 is still 'basic'."""
    return "large" if size > LARGE_SIZE_THRESHOLD else "basic"


def units_for(size: int) -> int:
    """Units a solve of this size consumes: one per started 10,000, at least one."""
    return max(1, -(-size // SIZE_PER_UNIT))  # integer ceiling: exact for any size


#: The suggested time limit grows by one second per this many size points ...
SIZE_PER_SUGGESTED_SECOND = 20_000
#: ... from this floor, up to the synchronous limit of the service.
SUGGESTED_SECONDS_RANGE = (2, 30)


def suggested_time_limit(size: int) -> int:
    """Seconds to give a solve of this size by default (notebooks, tools): enough for the
    greedy roster, its completion and some search. The largest dataset (279,000) gets
    16 s; a 2 s default there ended without a roster."""
    low, high = SUGGESTED_SECONDS_RANGE
    return min(high, max(low, math.ceil(low + size / SIZE_PER_SUGGESTED_SECOND)))
