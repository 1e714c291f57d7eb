"""Settings for the whole suite.

Hypothesis fails an example that runs past its deadline (200 ms by default), so a busy
machine could fail a test the code passes; no test here is about how fast an example
runs, so there is no deadline.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("suite", deadline=None)
settings.load_profile("suite")
