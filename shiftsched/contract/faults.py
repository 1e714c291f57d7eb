"""The faults a request can have: stable codes (:class:`ErrorCode`) and JSON paths.

Kept apart from the rules that find them (shiftsched.contract.parse for the field rules,
shiftsched.contract.cross_field for the cross-field ones), which both report in these terms.
"""

from __future__ import annotations

from enum import StrEnum

from shiftsched.contract.v1 import MAX_PERIOD_DAYS
from shiftsched.errors import FieldError

Path = tuple[str | int, ...]


class ErrorCode(StrEnum):
    """Stable codes of :class:`FieldError`. Clients match on these: never rename one."""

    # Field rules, derived from pydantic's error types.
    MISSING_FIELD = "missing_field"  # a required property is absent
    UNKNOWN_FIELD = "unknown_field"  # a property the contract does not define
    WRONG_TYPE = "wrong_type"  # e.g. a string where an integer or object is expected
    TOO_SHORT = "too_short"  # string shorter than allowed (ids, names: at least 1)
    TOO_LONG = "too_long"  # string longer than allowed (ids 128, names 200)
    TOO_FEW_ITEMS = "too_few_items"  # array or map with fewer items than allowed
    TOO_MANY_ITEMS = "too_many_items"  # array with more items than allowed
    OUT_OF_RANGE = "out_of_range"  # number or date outside its bounds; a period too long
    INVALID_ENUM = "invalid_enum"  # value not among the allowed literals (incl. preference type)
    INVALID_FORMAT = "invalid_format"  # date not YYYY-MM-DD / not a calendar date; time not HH:MM
    INVALID_VALUE = "invalid_value"  # any other field-level fault
    # Cross-field rules.
    PERIOD_START_AFTER_END = "period_start_after_end"  # schedule_period.start_date > end_date
    INVALID_TIMEZONE = "invalid_timezone"  # not an IANA time zone name
    DATE_OUTSIDE_PERIOD = "date_outside_period"  # a date not within start_date..end_date
    DUPLICATE_ID = "duplicate_id"  # two shifts, duties or employees share an id
    DUPLICATE_REFERENCE = "duplicate_reference"  # an id listed twice in a pairing / cross-shift
    DEMAND_LENGTH_MISMATCH = "demand_length_mismatch"  # demand array length != days in period
    MIN_GREATER_THAN_MAX = "min_greater_than_max"  # a {min, max} with min > max
    MISSING_BOUND = "missing_bound"  # shift count limit / cross-shift demand without min or max
    UNKNOWN_SHIFT_ID = "unknown_shift_id"  # reference to a shift id that is not defined
    UNKNOWN_DUTY_ID = "unknown_duty_id"  # reference to a duty id that is not defined
    UNKNOWN_EMPLOYEE_ID = "unknown_employee_id"  # reference to an employee id not defined
    MISSING_WORKING_HOURS = "missing_working_hours"  # hours limit on a shift without hours
    DUTY_NOT_ON_SHIFT = "duty_not_on_shift"  # fixed duty not defined on the fixed shift
    CONFLICTING_FIXED_ASSIGNMENTS = "conflicting_fixed_assignments"  # two fixes, one date
    # Re-planning and recommendations (shiftsched.contract.planning).
    DUPLICATE_ASSIGNMENT = "duplicate_assignment"  # a roster lists one employee twice a date
    ROSTER_OF_ANOTHER_REQUEST = "roster_of_another_request"  # no employee or date of the request
    # Planning across periods (shiftsched.contract.history).
    NOT_BEFORE_PERIOD = "not_before_period"  # a history date on or after the period's start
    HISTORY_OF_ANOTHER_REQUEST = "history_of_another_request"  # no employee or shift of it
    HISTORY_OVERLAPS_PERIOD = "history_overlaps_period"  # cells dated in the period (its roster?)


def fault(path: Path, code: ErrorCode, message: str) -> FieldError:
    return FieldError(path=path, message=message, code=code.value)


def period_too_long(path: Path, days: int) -> FieldError:
    return fault(
        path,
        ErrorCode.OUT_OF_RANGE,
        f"the period has {days:,} days; at most {MAX_PERIOD_DAYS} are planned at once. "
        "Plan a longer horizon period by period, each with the history of the ones "
        "before it (POST /solve/plan, history)",
    )
