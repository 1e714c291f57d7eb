"""Faults that help: a misspelt property names the closest known one, and an unknown
shift or duty lists the request's. Codes and paths stay as they were."""

from __future__ import annotations

import pytest

from shiftsched.contract.parse import parse_request
from shiftsched.errors import InvalidRequest
from tests.factories import full_request_dict


def _fault(data: object) -> tuple[tuple[str | int, ...], str, str]:
    with pytest.raises(InvalidRequest) as raised:
        parse_request(data)
    [fault] = raised.value.errors
    return fault.path, fault.code, fault.message


def test_a_misspelt_property_names_the_one_meant() -> None:
    data = full_request_dict()
    employee = data["employees"][0]
    employee["working_days_per_mnth"] = {"min": 0, "max": 20}
    employee.pop("working_days_per_month", None)
    path, code, message = _fault(data)
    assert (path, code) == (("employees", 0, "working_days_per_mnth"), "unknown_field")
    assert message == (
        "unknown property 'working_days_per_mnth'; did you mean 'working_days_per_month'?"
    )


def test_an_unknown_shift_lists_the_shifts() -> None:
    data = full_request_dict()
    ids = sorted(s["id"] for s in data["shifts"])
    data["employees"][0]["assignable_shift_ids"] = [ids[0] + "x"]
    path, code, message = _fault(data)
    assert (path, code) == (("employees", 0, "assignable_shift_ids", 0), "unknown_shift_id")
    assert message.startswith(f"no shift has id '{ids[0]}x'; did you mean '{ids[0]}'?")
    assert message.endswith(f"(the shifts: {', '.join(ids)})")
