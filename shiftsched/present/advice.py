"""What to tell a person when a solve ends without a roster, and what to do next.

The notebooks and the command line say the same thing for the same outcome.
"""

from __future__ import annotations


def no_roster_advice(status: str, message: str | None, time_limit: float | None) -> str:
    """One or two sentences for a solve of this outcome status (``SolveOutcome.status``)."""
    if status == "timeout":
        within = f" within {time_limit:g} s" if time_limit else ""
        return f"No roster was found{within}. Raise the time limit and solve again."
    if status == "infeasible":
        return (
            "The hard rules admit no roster. The infeasibility notebook (or the response's "
            "error.diagnosis) names the rules that conflict."
        )
    return f"{status}: {message}" if message else status
