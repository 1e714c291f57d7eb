"""Checking: the independent audit of a roster, and the plain figures read from it.

``audit`` prices any roster against docs/semantics.md from the contract alone;
``items`` names the input item behind each soft term or shortage; ``figures`` gives
per-person and per-plan numbers. They are the referee of the solver, so none of them
imports ``shiftsched.solving``.

May import: ``shiftsched.contract`` and ``shiftsched.errors``.
"""
