"""The ledger benchmark's arithmetic: three calendar months, and the spread of a group."""

from __future__ import annotations

import datetime as dt

from benchmarks.ledger import GroupSpread, months, spreads, ward
from shiftsched.contract.parse import parse_request
from shiftsched.contract.v1 import Assignment
from tests.factories import employee_dict, minimal_request_dict


def test_the_ward_is_cut_into_june_july_and_august() -> None:
    parts = months(ward(seed=0))
    periods = [(p.schedule_period.start_date, p.schedule_period.end_date) for p in parts]
    assert periods == [
        (dt.date(2026, 6, 1), dt.date(2026, 6, 30)),
        (dt.date(2026, 7, 1), dt.date(2026, 7, 31)),
        (dt.date(2026, 8, 1), dt.date(2026, 8, 31)),
    ]
    assert all(not f for p in parts[1:] for e in p.employees for f in [e.fixed_assignments])


def test_a_spread_is_max_minus_min_over_the_eligible_employees() -> None:
    data = minimal_request_dict()
    data["employees"].append(employee_dict("e4", assignable_shift_ids=["day"]))
    data["constraints"] = {"fairness_groups": [{"target_shift_ids": ["night"], "policy": "equal"}]}
    request = parse_request(data)
    day = dt.date(2026, 3, 2)
    roster = [
        Assignment(employee_id="e1", date=day + dt.timedelta(days=k), shift_id="night")
        for k in range(3)
    ] + [Assignment(employee_id="e2", date=day, shift_id="night")]
    # e1 3, e2 1, e3 0; e4 cannot work nights and is not counted.
    assert spreads(request, roster) == [3]
    assert spreads(request, None) == [None]


def test_the_target_is_the_one_solve_spread_plus_one() -> None:
    row = GroupSpread(0, 0, "n", "equal", alone=6, ledger=3, one_solve=2)
    assert row.met
    assert not GroupSpread(0, 0, "n", "equal", alone=6, ledger=4, one_solve=2).met
    assert not GroupSpread(0, 0, "n", "equal", alone=6, ledger=None, one_solve=2).met
