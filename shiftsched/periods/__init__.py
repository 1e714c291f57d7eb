"""Periods: planning with absences, re-planning a published roster, and the seam between.

``plan`` solves a period after a history; ``replan`` moves as few people as possible
after a change; ``seam`` reads a history into per-employee counters and hands the
ledger on; ``split`` cuts one request into consecutive periods and joins the rosters.

May import: ``shiftsched.solving``, ``shiftsched.contract``, ``shiftsched.errors``.
"""
