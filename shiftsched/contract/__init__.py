"""The contract: the v1 shapes, how a raw request becomes one, and what travels with it.

Here live the pydantic models of the v1 body (``v1``), the one parser with JSON paths
(``parse``), the calendar a period is cut into (``horizon``), a problem's size and
units (``size``), the history and ledger across periods (``history``), and the inputs
and outputs of planning, re-planning and recommendations (``planning``).

May import: ``shiftsched.errors`` only. Everything else in the package stands on this.
"""
