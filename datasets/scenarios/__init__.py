"""The realistic datasets, one module per business, on the parts of :mod:`.builder`.

:data:`SCENARIOS` maps each file name of ``datasets/`` to the function that returns its
request body; ``datasets/generate.py`` renders and writes them.
"""

from __future__ import annotations

from collections.abc import Callable

from .airport import max_size
from .builder import Json
from .call_centre import call_centre_duties
from .factory import factory_three_shifts
from .pharmacy import two_month_period
from .retail import retail_weekdays
from .ward import ward_24_7

SCENARIOS: dict[str, Callable[[], Json]] = {
    "ward_24_7.json": ward_24_7,
    "retail_weekdays.json": retail_weekdays,
    "call_centre_duties.json": call_centre_duties,
    "factory_three_shifts.json": factory_three_shifts,
    "two_month_period.json": two_month_period,
    "max_size.json": max_size,
}
