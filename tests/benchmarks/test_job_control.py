"""The job-control benchmark's verdicts and table on hand-made trials (no service, no
solver, no clock)."""

from __future__ import annotations

from typing import Any

from benchmarks.job_control import Trial, markdown, verdicts


def trial(a: float, b: float, **extra: Any) -> Trial:
    values: dict[str, Any] = {
        "repeat": 1,
        "job_id": "j",
        "started_to_visible": a,
        "submitted_to_visible": a + 0.5,
        "first_record_elapsed": 0.0,
        "stop_to_final": b,
        "final_status": "completed",
        "audit": "clean",
        "charged_once": True,
        **extra,
    }
    return Trial(**values)


def test_medians_within_two_seconds_pass() -> None:
    trials = [trial(0.1, 0.4), trial(3.0, 5.0), trial(0.2, 0.5)]  # one slow job: medians hold
    assert [t.passed for t in verdicts(trials)] == [True, True, True, True]


def test_slow_medians_and_bad_outcomes_miss() -> None:
    trials = [
        trial(2.5, 0.4, audit="hard_violations"),
        trial(2.1, 2.2, charged_once=False),
        trial(0.1, 2.4, final_status="failed", audit="no roster"),
    ]
    a, b, clean, once = verdicts(trials)
    assert (a.passed, b.passed, clean.passed, once.passed) == (False, False, False, False)
    assert a.detail == "2.10 s <= 2 s" and b.detail == "2.20 s <= 2 s"
    assert clean.detail == "1 of 3" and once.detail == "2 of 3"


def test_the_table_has_a_row_per_trial_and_the_targets() -> None:
    trials = [trial(0.25, 0.5), trial(0.5, 0.75, repeat=2)]
    text = markdown(trials, verdicts(trials), "heading", "python -m benchmarks job-control")
    assert "| 2 | 0.500 s | 1.000 s | 0.750 s | completed | clean |" in text
    assert "| (b) DELETE -> final state, median | PASS | 0.62 s <= 2 s |" in text
