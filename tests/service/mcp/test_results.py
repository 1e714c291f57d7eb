"""The tools' results: rosters left out by path, and a summary that is one short line."""

from __future__ import annotations

from shiftsched.service.mcp.results import SUMMARY_CHARACTERS, summary, without_rosters


def test_a_path_through_lists_leaves_out_each_items_roster_and_nothing_else() -> None:
    answer = {
        "objective_value": 3.0,
        "explanations": [{"verdict": "avoidable", "roster": [1]}, {"verdict": "undecided"}],
        "solution": {"assignments": [1, 2], "metrics": {"status": "optimal"}},
    }
    left = without_rosters(answer, ("explanations.roster", "solution.assignments"))
    assert left == {
        "objective_value": 3.0,
        "explanations": [{"verdict": "avoidable", "roster_total": 1}, {"verdict": "undecided"}],
        "solution": {"metrics": {"status": "optimal"}, "assignments_total": 2},
    }
    assert answer["explanations"][0]["roster"] == [1]  # the answer itself is untouched
    assert without_rosters(answer, ("missing.roster",)) == answer


def test_a_summary_names_the_verdicts_and_counts_and_stays_short() -> None:
    line = summary(
        {
            "valid": False,
            "errors": [{"path": ["shifts"], "code": "missing"}] * 40,
            "explanations": [{"summary": "x" * 300}] * 8,
        }
    )
    assert line.startswith("valid: false; errors: 40; explanations: 8; explanations[0]: x")
    assert len(line) <= SUMMARY_CHARACTERS + len(". The whole answer is the structured content.")
    roster = summary({"status": "completed", "solution": {"assignments": [1], "metrics": {}}})
    assert roster.startswith("status: completed; roster: assignments 1")
