"""The advice for a solve without a roster names the next step for each outcome."""

from __future__ import annotations

from shiftsched.present.advice import no_roster_advice


def test_a_timeout_says_to_raise_the_limit_it_names() -> None:
    advice = no_roster_advice("timeout", "no roster found within 2 s", 2)
    assert "within 2 s" in advice and "Raise the time limit" in advice


def test_an_infeasible_request_points_to_the_diagnosis() -> None:
    assert "infeasibility notebook" in no_roster_advice("infeasible", None, 5)


def test_another_outcome_keeps_its_message() -> None:
    assert no_roster_advice("model_invalid", "bad model", 5) == "model_invalid: bad model"
