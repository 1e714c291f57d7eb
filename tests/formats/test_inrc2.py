"""The INRC-II reader and cost function: the shipped files, the validator's report, and
tiny cases whose costs are worked out by hand from the competition's problem description
(arXiv 1501.04177, section 2.5 and appendix B)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shiftsched.formats.inrc2 import (
    DATASET_DIR,
    Assignment,
    Contract,
    FormatError,
    History,
    NurseHistory,
    Requirement,
    ShiftOffRequest,
    ShiftType,
    load_history,
    load_scenario,
    load_sequence,
    load_week,
    parse_history,
    parse_scenario,
    parse_solution,
    parse_validator_report,
    parse_week,
)
from shiftsched.formats.inrc2_eval import (
    HARD,
    SOFT,
    Day,
    Evaluation,
    evaluate,
    evaluate_roster,
    grid,
    horizon_roster,
    next_history,
    week_roster,
)

FOLDERS = sorted(p for p in DATASET_DIR.iterdir() if p.is_dir())
SEQUENCES = sorted(DATASET_DIR.glob("*/Solution_H_*"))
REFERENCE = DATASET_DIR / "n005w4" / "Solution_H_0-WD_1-2-3-3"


# Initial histories start the counters at 0, except for one nurse in the files as published.
COUNTED_BEFORE = {"H0-n021w4-0.txt": {("NU_5", 3, 0)}}


def _header(text: str, word: str) -> int:
    match = re.search(rf"^{word} = (\d+)", text, re.MULTILINE)
    assert match is not None, word
    return int(match.group(1))


# --- the shipped files ---------------------------------------------------------------


def test_the_data_has_every_dataset_of_the_competition() -> None:
    names = {p.name for p in FOLDERS}
    assert {"n005w4", "n012w8", "n021w4"} <= names
    for nurses in (30, 35, 40, 50, 60, 70, 80, 100, 110, 120):
        assert {f"n{nurses:03d}w4", f"n{nurses:03d}w8"} <= names
    assert len(SEQUENCES) == 9


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_every_scenario_history_and_week_parses_to_its_headers(folder: Path) -> None:
    path = folder / f"Sc-{folder.name}.txt"
    text = path.read_text(encoding="utf-8")
    scenario = load_scenario(path)
    match = re.fullmatch(r"n(\d{3})w(\d)", folder.name)
    assert match is not None
    assert scenario.name.startswith(folder.name)  # n021w4's files all say n021w4_2
    assert scenario.weeks == _header(text, "WEEKS") == int(match.group(2))
    assert len(scenario.nurses) == _header(text, "NURSES") == int(match.group(1))
    assert len(scenario.skills) == _header(text, "SKILLS")
    assert len(scenario.shift_types) == _header(text, "SHIFT_TYPES")
    assert len(scenario.contracts) == _header(text, "CONTRACTS")
    nurses = {n.name for n in scenario.nurses}
    shifts = {s.name for s in scenario.shift_types}
    histories = sorted(folder.glob("H0-*.txt"))
    assert len(histories) == 3
    for path in histories:
        history = load_history(path)
        assert (history.week, history.scenario) == (0, scenario.name)
        assert {h.nurse for h in history.nurses} == nurses
        counted = {(h.nurse, h.assignments, h.weekends) for h in history.nurses}
        counted -= {(h.nurse, 0, 0) for h in history.nurses}
        assert counted == COUNTED_BEFORE.get(path.name, set())
    weeks = sorted(folder.glob("WD-*.txt"))
    assert len(weeks) == 10
    for path in weeks:
        week = load_week(path)
        assert week.scenario == scenario.name
        assert len(week.requests) == _header(path.read_text(encoding="utf-8"), "SHIFT_OFF_REQUESTS")
        # one requirement line per shift type and skill
        assert {(r.shift, r.skill) for r in week.requirements} == {
            (s, k) for s in shifts for k in scenario.skills
        }
        assert len(week.requirements) == len(shifts) * len(scenario.skills)
        assert {q.nurse for q in week.requests} <= nurses


def test_n005w4_parses_to_its_exact_values() -> None:
    folder = DATASET_DIR / "n005w4"
    scenario = load_scenario(folder / "Sc-n005w4.txt")
    assert scenario.skills == ("HeadNurse", "Nurse")
    assert scenario.shift_types == (
        ShiftType("Early", 2, 5, ()),
        ShiftType("Late", 2, 3, ("Early",)),
        ShiftType("Night", 4, 5, ("Early", "Late")),
    )
    assert scenario.contracts[1] == Contract("PartTime", 7, 11, 3, 5, 3, 5, 2, True)
    assert scenario.nurses[3].name == "Sara" and scenario.nurses[3].skills == ("Nurse",)
    assert scenario.contract_of("Nguyen").name == "FullTime"
    history = load_history(folder / "H0-n005w4-0.txt")
    assert history.of("Patrick") == NurseHistory("Patrick", 0, 0, "Night", 1, 4, 0)
    assert history.of("Stefaan") == NurseHistory("Stefaan", 0, 0, None, 0, 0, 3)
    week = load_week(folder / "WD-n005w4-1.txt")
    assert week.requirements[1] == Requirement(
        "Early", "Nurse", (1, 1, 0, 1, 0, 1, 1), (1, 1, 1, 1, 1, 1, 1)
    )
    assert week.requests[0] == ShiftOffRequest("Andrea", "Any", 1)
    assert week.requests[4] == ShiftOffRequest("Sara", "Late", 5)


def test_the_validator_report_is_reproduced_figure_by_figure() -> None:
    report = parse_validator_report((REFERENCE / "validator.txt").read_text(encoding="utf-8"))
    # the report's own figures, as printed
    assert report.total == 1695
    assert report.hard == dict.fromkeys(HARD, 0)
    assert report.costs == {
        "total_assignments": 320,
        "consecutive": 465,
        "days_off": 330,
        "preferences": 70,
        "working_weekends": 210,
        "complete_weekends": 60,
        "optimal_coverage": 240,
    }
    assert sum(report.costs.values()) == report.total
    sequence = load_sequence(REFERENCE)
    result = evaluate(sequence.scenario, sequence.history, sequence.weeks, sequence.solutions)
    assert result.hard == report.hard
    assert result.costs == report.costs
    assert result.total == report.total
    roster, repeated = horizon_roster(sequence.scenario, sequence.solutions)
    assert repeated == 0
    assert grid(sequence.scenario, roster) == report.grid


def _per_week(path: Path) -> tuple[Evaluation, list[Evaluation]]:
    """The whole horizon priced at once, and each week priced from the history before it."""
    sequence = load_sequence(path)
    scenario, history = sequence.scenario, sequence.history
    whole = evaluate(scenario, history, sequence.weeks, sequence.solutions)
    weekly = []
    for week, solution in zip(sequence.weeks, sequence.solutions, strict=True):
        roster, repeated = week_roster(scenario, solution)
        weekly.append(evaluate_roster(scenario, history, [week], roster, repeated))
        history = next_history(history, roster)
    return whole, weekly


@pytest.mark.parametrize("path", SEQUENCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_solutions_are_feasible_and_price_the_same_week_by_week(path: Path) -> None:
    whole, weekly = _per_week(path)
    assert whole.feasible, whole.hard
    assert all(w.feasible for w in weekly)
    # Weekly costs from the carried history add up to the horizon's, for every type that
    # is evaluated per week; the counters (S6, S7) are only final in the last week.
    for kind in SOFT[:5]:
        assert sum(w.costs[kind] for w in weekly) == whole.costs[kind], kind
    for kind in SOFT[5:]:
        assert weekly[-1].costs[kind] == whole.costs[kind], kind
    assert whole.total > 0


def test_the_reference_history_carries_the_counters_of_every_week() -> None:
    sequence = load_sequence(REFERENCE)
    history = sequence.history
    for solution in sequence.solutions:
        roster, _ = week_roster(sequence.scenario, solution)
        history = next_history(history, roster)
    # counted on the validator's grid: Patrick works 23 days and every weekend, ending on
    # two Nights in a run of six working days; Sara works 17 days, two weekends, ends off
    assert history.week == 4
    assert history.of("Patrick") == NurseHistory("Patrick", 23, 4, "Night", 2, 6, 0)
    assert history.of("Sara") == NurseHistory("Sara", 17, 2, None, 0, 0, 2)


# --- tiny cases ----------------------------------------------------------------------

SKILLED = {"E": "Early", "L": "Late", "N": "Night"}


def _scenario(
    shifts: str = "Early (1,14)\nLate (1,14)\nNight (1,14)",
    contract: str = "(0,14) (1,14) (1,14) 2 0",
    weeks: int = 1,
) -> str:
    return f"""SCENARIO = tiny
WEEKS = {weeks}
SKILLS = 2
HeadNurse
Nurse
SHIFT_TYPES = 3
{shifts}
FORBIDDEN_SHIFT_TYPES_SUCCESSIONS
Early 0
Late 1 Early
Night 2 Early Late
CONTRACTS = 1
Basic {contract}
NURSES = 1
Ann Basic 1 Nurse
"""


def _week(requirements: str = "", requests: str = "") -> str:
    lines = [r for r in requests.splitlines() if r.strip()]
    return (
        "WEEK_DATA\ntiny\nREQUIREMENTS\n"
        + requirements
        + f"\nSHIFT_OFF_REQUESTS = {len(lines)}\n"
        + "\n".join(lines)
        + "\n"
    )


def _history(ann: str = "0 0 None 0 0 1") -> str:
    return f"HISTORY\n0 tiny\nNURSE_HISTORY\nAnn {ann}\n"


def _days(pattern: str, skill: str = "Nurse") -> list[Day]:
    return [None if c == "-" else (SKILLED[c], skill) for c in pattern]


def _cost(
    ann: str,
    *,
    history: str = "0 0 None 0 0 1",
    shifts: str | None = None,
    contract: str | None = None,
    weeks: list[str] | None = None,
) -> Evaluation:
    """Ann's roster (one letter per day, '-' off), priced from her history."""
    args = {k: v for k, v in (("shifts", shifts), ("contract", contract)) if v is not None}
    week_texts = weeks or [_week()]
    scenario = parse_scenario(_scenario(weeks=len(week_texts), **args))
    roster = {"Ann": _days(ann)}
    return evaluate_roster(
        scenario, parse_history(_history(history)), [parse_week(w) for w in week_texts], roster
    )


def _only(result: Evaluation, **expected: int) -> None:
    assert result.costs == {**dict.fromkeys(SOFT, 0), **expected}


def test_a_run_of_one_shift_type_one_over_its_maximum_costs_15() -> None:
    _only(_cost("EEEELLL", shifts="Early (1,3)\nLate (1,14)\nNight (1,14)"), consecutive=15)


def test_a_history_run_continues_into_the_first_week() -> None:
    # two Earlies before the week and two in it: a run of 4 against a maximum of 3
    shifts = "Early (1,3)\nLate (1,14)\nNight (1,14)"
    _only(_cost("EELLLLL", history="0 0 Early 2 2 0", shifts=shifts), consecutive=15)
    # the same two Earlies in the week with no history run are within the maximum
    _only(_cost("EELLLLL", history="0 0 Late 1 1 0", shifts=shifts))


def test_only_the_excess_inside_the_horizon_is_paid_for_a_history_run_over_the_maximum() -> None:
    # five Earlies before (max 3, paid before), one more on Monday: one day over
    shifts = "Early (1,3)\nLate (1,14)\nNight (1,14)"
    _only(_cost("ELLLLLL", history="0 0 Early 5 5 0", shifts=shifts), consecutive=15)


def test_a_history_run_that_monday_ends_is_checked_against_its_minimum() -> None:
    # one Night before, then off: Night run short of 3 by 2, working run short of 2 by 1
    shifts = "Early (1,14)\nLate (1,14)\nNight (3,14)"
    contract = "(0,14) (2,14) (1,14) 2 0"
    result = _cost("-------", history="0 0 Night 1 1 0", shifts=shifts, contract=contract)
    _only(result, consecutive=2 * 15 + 1 * 30)


def test_a_run_open_at_the_end_of_the_horizon_under_its_minimum_costs_nothing() -> None:
    shifts = "Early (1,14)\nLate (1,14)\nNight (3,14)"
    contract = "(0,14) (2,14) (1,14) 2 0"
    _only(_cost("------N", shifts=shifts, contract=contract))
    # the same single Night one day earlier ends inside the week and is short
    _only(_cost("-----N-", shifts=shifts, contract=contract), consecutive=2 * 15 + 1 * 30)


def test_a_run_open_at_the_end_is_still_checked_against_its_maximum() -> None:
    _only(_cost("---EEEE", contract="(0,14) (1,3) (1,14) 2 0"), consecutive=30)


def test_runs_across_the_week_border_are_one_run() -> None:
    # Sun of week 1 and Mon-Tue of week 2: three Earlies against a maximum of 2
    shifts = "Early (1,2)\nLate (1,14)\nNight (1,14)"
    _only(_cost("------EEE-----", shifts=shifts, weeks=[_week(), _week()]), consecutive=15)


def test_consecutive_days_off_at_the_start_and_inside_the_week() -> None:
    # appendix B, table 11: one day off before, minimum 3, Monday worked: two short
    contract = "(0,14) (1,14) (3,14) 2 0"
    _only(_cost("LLLLLLL", history="0 0 None 0 0 1", contract=contract), days_off=60)
    # table 9: two days off before, maximum 3, off Mon-Tue then work: one day over
    contract = "(0,14) (1,14) (1,3) 2 0"
    _only(_cost("--LLLLL", history="0 0 None 0 0 2", contract=contract), days_off=30)
    # a lone day off between working days, minimum 2: one short
    contract = "(0,14) (1,14) (2,14) 2 0"
    _only(_cost("LLL-LLL", history="0 0 Late 1 1 0", contract=contract), days_off=30)


def test_preferences_any_day_and_one_shift() -> None:
    week = _week(requests="Ann Any Tue\nAnn Early Wed\nAnn Late Thu\nAnn Any Sun")
    # Tue worked (refused), Wed Late (Early asked off: granted), Thu Late (refused), Sun off
    _only(_cost("LLLLLL-", weeks=[week]), preferences=20)


def test_complete_weekends_only_for_contracts_that_ask_for_them() -> None:
    _only(_cost("LLLLLL-", contract="(0,14) (1,14) (1,14) 2 1"), complete_weekends=30)
    _only(_cost("LLLLLLL", contract="(0,14) (1,14) (1,14) 2 1"))
    _only(_cost("LLLLLL-", contract="(0,14) (1,14) (1,14) 2 0"))


def test_total_assignments_count_the_history_and_both_directions() -> None:
    contract = "(3,5) (1,14) (1,14) 2 0"
    # 2 before + 4 in the week = 6 > 5
    _only(_cost("LLLL---", history="2 0 None 0 0 1", contract=contract), total_assignments=20)
    # 0 + 1 = 1 < 3
    _only(_cost("L------", contract=contract), total_assignments=40)


def test_working_weekends_count_the_history_and_one_day_is_enough() -> None:
    contract = "(0,14) (1,14) (1,14) 1 0"
    _only(_cost("------L", history="0 1 None 0 0 1", contract=contract), working_weekends=30)
    _only(_cost("-------", history="0 1 None 0 0 1", contract=contract))


def test_coverage_counts_nurses_with_the_skill_of_the_requirement() -> None:
    rows = [
        "Early HeadNurse (1,1) (0,0) (0,0) (0,0) (0,0) (0,0) (0,0)",
        "Early Nurse (0,2) (0,0) (0,0) (0,0) (0,0) (0,0) (0,0)",
    ]
    week = _week("\n".join(rows))
    # Ann covers Early/Nurse on Monday: one short of 2 (30); HeadNurse short of its minimum
    result = _cost("E------", weeks=[week])
    _only(result, optimal_coverage=30 + 30)
    assert result.hard["min_coverage"] == 1


def test_hard_violations_skill_succession_and_history_border() -> None:
    scenario = parse_scenario(_scenario())
    history = parse_history(_history(ann="0 0 Late 1 1 0"))
    roster = {"Ann": _days("EL-NE--")}
    roster["Ann"][6] = ("Late", "HeadNurse")  # Ann lacks the skill
    result = evaluate_roster(scenario, history, [parse_week(_week())], roster)
    # Late (history) -> Early on Monday, Night -> Early on Friday
    assert result.hard == {**dict.fromkeys(HARD, 0), "succession": 2, "required_skill": 1}
    assert not result.feasible


def test_a_nurse_twice_on_one_day_breaks_single_assignment() -> None:
    scenario = parse_scenario(_scenario())
    solution = parse_solution(
        "SOLUTION\n0 tiny\nASSIGNMENTS = 2\nAnn Mon Early Nurse\nAnn Mon Late Nurse\n"
    )
    roster, repeated = week_roster(scenario, solution)
    assert repeated == 1 and roster["Ann"][0] == ("Early", "Nurse")
    assert solution.assignments[1] == Assignment("Ann", 0, "Late", "Nurse")
    result = evaluate(scenario, parse_history(_history()), [parse_week(_week())], [solution])
    assert result.hard["single_assignment"] == 1


def test_next_history_as_the_problem_description_defines_it() -> None:
    history = History(
        0,
        "tiny",
        (
            NurseHistory("Ann", 3, 1, "Early", 2, 4, 0),
            NurseHistory("Bob", 0, 0, None, 0, 0, 2),
        ),
    )
    after = next_history(history, {"Ann": _days("EE--LLL"), "Bob": _days("-------")})
    assert after.week == 1
    assert after.of("Ann") == NurseHistory("Ann", 8, 2, "Late", 3, 3, 0)
    assert after.of("Bob") == NurseHistory("Bob", 0, 0, None, 0, 0, 9)
    # a week that never breaks the history's runs lengthens them
    after = next_history(history, {"Ann": _days("EEEEEEE"), "Bob": _days("LLLLL--")})
    assert after.of("Ann") == NurseHistory("Ann", 10, 2, "Early", 9, 11, 0)
    assert after.of("Bob") == NurseHistory("Bob", 5, 0, None, 0, 0, 2)


# --- malformed input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (_scenario().replace("Early (1,14)", "Early (1;14)"), 7, "(a,b)"),
        (_scenario().replace("Late 1 Early", "Late 2 Early"), 12, "2 successors"),
        (_scenario().replace("Ann Basic 1 Nurse", "Ann Basic 1 Cook"), 17, "unknown skill"),
        (_scenario().replace("Basic (0,14)", "Basic (0,x)"), 15, "(a,b)"),
        (_scenario().replace("NURSES = 1", "NURSES = 2"), None, "file ends"),
    ],
)
def test_a_malformed_scenario_names_file_and_line(text: str, line: int | None, words: str) -> None:
    with pytest.raises(FormatError, match=re.escape(words)) as caught:
        parse_scenario(text, "Sc-tiny.txt")
    assert caught.value.source == "Sc-tiny.txt" and caught.value.line == line
    assert str(caught.value).startswith("Sc-tiny.txt")


def test_malformed_history_week_solution_and_report_name_file_and_line() -> None:
    with pytest.raises(FormatError, match=r"^H\.txt:4: history of Ann: 'x'"):
        parse_history(_history(ann="0 x None 0 0 1"), "H.txt")
    with pytest.raises(FormatError, match=r"^W\.txt:6: unknown day 'Funday'"):
        parse_week(_week(requests="Ann Any Funday"), "W.txt")
    with pytest.raises(FormatError, match=r"^S\.txt:4: assignment: expected 4 fields"):
        parse_solution("SOLUTION\n0 tiny\nASSIGNMENTS = 1\nAnn Mon Early\n", "S.txt")
    with pytest.raises(FormatError, match=r"^V\.txt:1: unknown figure 'Overtime'"):
        parse_validator_report("Overtime: 3\nTotal cost: 3\n", "V.txt")
    scenario = parse_scenario(_scenario())
    solution = parse_solution("SOLUTION\n0 tiny\nASSIGNMENTS = 1\nZoe Mon Early Nurse\n", "S.txt")
    with pytest.raises(FormatError, match=r"^S\.txt:4: unknown nurse 'Zoe'"):
        week_roster(scenario, solution)
