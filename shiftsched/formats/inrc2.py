"""The INRC-II text formats: scenario, history, week data, solution and validator report.

The Second International Nurse Rostering Competition plans a horizon of 4 or 8 weeks one
week at a time, so its input comes in pieces: a scenario common to every week, the history
(each nurse's state when a week starts) and one week data file per week; a roster comes as
one solution file per week. Each ``parse_*`` function reads one file's text into frozen
dataclasses that mirror it (days of a week are 0 for Monday to 6 for Sunday). A malformed
file raises :class:`FormatError` naming the file and the line, since these files are
edited by hand and a silent misread would price a different problem.

:func:`load_sequence` reads one of the solved sequences shipped in ``datasets/inrc2``;
``shiftsched.formats.inrc2_eval`` prices it with the competition's cost function.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

DATASET_DIR = Path(__file__).resolve().parents[2] / "datasets" / "inrc2"
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
ANY = "Any"  # a shift-off request for the whole day
NONE = "None"  # the history's last shift when the nurse was off on the last day
_PAIR = re.compile(r"^\((-?\d+),(-?\d+)\)$")


class FormatError(ValueError):
    """A file that does not follow the INRC-II text format; says which file and line."""

    def __init__(self, source: str, line: int | None, message: str) -> None:
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {message}")
        self.source = source
        self.line = line


@dataclass(frozen=True, slots=True)
class ShiftType:
    name: str
    min_consecutive: int  # bounds on a run of assignments to this type (S2)
    max_consecutive: int
    forbidden_next: tuple[str, ...]  # types that may not be worked the day after (H3)


@dataclass(frozen=True, slots=True)
class Contract:
    name: str
    min_total: int  # assignments over the whole horizon, history included (S6)
    max_total: int
    min_consecutive_work: int  # runs of working days (S2)
    max_consecutive_work: int
    min_consecutive_off: int  # runs of days off (S3)
    max_consecutive_off: int
    max_weekends: int  # working weekends over the whole horizon (S7)
    complete_weekends: bool  # both days of a weekend or neither (S5)


@dataclass(frozen=True, slots=True)
class Nurse:
    name: str
    contract: str
    skills: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    weeks: int
    skills: tuple[str, ...]
    shift_types: tuple[ShiftType, ...]
    contracts: tuple[Contract, ...]
    nurses: tuple[Nurse, ...]

    def shift_type(self, name: str) -> ShiftType:
        return next(s for s in self.shift_types if s.name == name)

    def contract_of(self, nurse: str) -> Contract:
        wanted = next(n.contract for n in self.nurses if n.name == nurse)
        return next(c for c in self.contracts if c.name == wanted)


@dataclass(frozen=True, slots=True)
class NurseHistory:
    """A nurse's state at the start of a week: counters so far and the runs still open."""

    nurse: str
    assignments: int
    weekends: int
    last_shift: str | None  # the shift worked the day before, None if off
    consecutive_shift: int  # length of the open run of ``last_shift`` (0 if off)
    consecutive_work: int  # length of the open run of working days (0 if off)
    consecutive_off: int  # length of the open run of days off (0 if working)


@dataclass(frozen=True, slots=True)
class History:
    week: int  # the stage it starts: 0 for an initial history
    scenario: str
    nurses: tuple[NurseHistory, ...]

    def of(self, nurse: str) -> NurseHistory:
        return next(h for h in self.nurses if h.nurse == nurse)


@dataclass(frozen=True, slots=True)
class Requirement:
    shift: str
    skill: str
    minimum: tuple[int, ...]  # per weekday, Monday first (H2)
    optimal: tuple[int, ...]  # per weekday (S1)


@dataclass(frozen=True, slots=True)
class ShiftOffRequest:
    nurse: str
    shift: str  # a shift type, or ANY for the whole day
    day: int


@dataclass(frozen=True, slots=True)
class WeekData:
    scenario: str
    requirements: tuple[Requirement, ...]
    requests: tuple[ShiftOffRequest, ...]


@dataclass(frozen=True, slots=True)
class Assignment:
    nurse: str
    day: int
    shift: str
    skill: str
    line: int = field(default=0, compare=False)  # where it was read, for error messages


@dataclass(frozen=True, slots=True)
class Solution:
    week: int  # the stage, 0 for the first week
    scenario: str
    assignments: tuple[Assignment, ...]
    source: str = field(default="<solution>", compare=False)


@dataclass(frozen=True, slots=True)
class ValidatorReport:
    """The competition validator's report: roster grid, hard counts, soft costs, total."""

    grid: dict[str, str]  # nurse -> one letter per day ('-' off), weeks joined
    hard: dict[str, int]  # keyed as shiftsched.formats.inrc2_eval.HARD
    costs: dict[str, int]  # keyed as shiftsched.formats.inrc2_eval.SOFT
    total: int


class _Lines:
    """The non-blank lines of a file as (line number, words), read front to back."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.rows = [
            (number, line.split())
            for number, line in enumerate(text.splitlines(), start=1)
            if line.strip()
        ]
        self.at = 0

    def error(self, message: str, line: int | None = None) -> FormatError:
        if line is None:
            line = self.rows[self.at][0] if self.at < len(self.rows) else None
        return FormatError(self.source, line, message)

    def next(self, what: str) -> tuple[int, list[str]]:
        if self.at >= len(self.rows):
            raise self.error(f"file ends where {what} was expected")
        row = self.rows[self.at]
        self.at += 1
        return row

    def keyword(self, word: str) -> tuple[int, list[str]]:
        """The next line, which must start with ``word``; its other words."""
        number, words = self.next(word)
        if words[0] != word:
            raise self.error(f"expected {word!r}, found {' '.join(words)!r}", number)
        return number, words[1:]

    def header(self, word: str) -> int:
        """A ``WORD = n`` line: the count n."""
        number, rest = self.keyword(word)
        if len(rest) != 2 or rest[0] != "=":
            raise self.error(f"expected '{word} = <number>'", number)
        return self.integer(rest[1], number, word)

    def integer(self, word: str, line: int, what: str) -> int:
        try:
            return int(word)
        except ValueError:
            raise self.error(f"{what}: {word!r} is not an integer", line) from None

    def pair(self, word: str, line: int, what: str) -> tuple[int, int]:
        match = _PAIR.match(word)
        if match is None:
            raise self.error(f"{what}: expected '(a,b)', found {word!r}", line)
        return int(match.group(1)), int(match.group(2))

    def day(self, word: str, line: int) -> int:
        if word not in DAYS:
            raise self.error(f"unknown day {word!r} (expected one of {', '.join(DAYS)})", line)
        return DAYS.index(word)

    def end(self) -> None:
        if self.at < len(self.rows):
            raise self.error(f"unexpected line {' '.join(self.rows[self.at][1])!r}")

    def block(self, count: int, what: str) -> Iterator[tuple[int, list[str]]]:
        for _ in range(count):
            yield self.next(what)


def _arity(lines: _Lines, number: int, words: Sequence[str], n: int, what: str) -> None:
    if len(words) != n:
        raise lines.error(f"{what}: expected {n} fields, found {len(words)}", number)


def parse_scenario(text: str, source: str = "<scenario>") -> Scenario:
    """A scenario (``Sc-*.txt``): skills, shift types, contracts and nurses."""
    lines = _Lines(text, source)
    number, rest = lines.keyword("SCENARIO")
    if len(rest) != 2 or rest[0] != "=":
        raise lines.error("expected 'SCENARIO = <name>'", number)
    name = rest[1]
    weeks = lines.header("WEEKS")
    skills = tuple(
        _single(lines, n, w, "skill") for n, w in lines.block(lines.header("SKILLS"), "a skill")
    )
    limits = [
        _shift_limits(lines, n, w)
        for n, w in lines.block(lines.header("SHIFT_TYPES"), "a shift type")
    ]
    lines.keyword("FORBIDDEN_SHIFT_TYPES_SUCCESSIONS")
    forbidden = _successions(lines, [s for s, _, _ in limits])
    shift_types = tuple(ShiftType(s, lo, hi, forbidden[s]) for s, lo, hi in limits)
    contracts = tuple(
        _contract(lines, n, w) for n, w in lines.block(lines.header("CONTRACTS"), "a contract")
    )
    known = (skills, {c.name for c in contracts})
    nurses = tuple(
        _nurse(lines, n, w, known) for n, w in lines.block(lines.header("NURSES"), "a nurse")
    )
    lines.end()
    _unique(lines, [s.name for s in shift_types], "shift type")
    _unique(lines, [c.name for c in contracts], "contract")
    _unique(lines, [n.name for n in nurses], "nurse")
    return Scenario(name, weeks, skills, shift_types, contracts, nurses)


def _single(lines: _Lines, number: int, words: list[str], what: str) -> str:
    _arity(lines, number, words, 1, what)
    return words[0]


def _shift_limits(lines: _Lines, number: int, words: list[str]) -> tuple[str, int, int]:
    _arity(lines, number, words, 2, "shift type")
    low, high = lines.pair(words[1], number, f"consecutive bounds of {words[0]}")
    return words[0], low, high


def _successions(lines: _Lines, shifts: list[str]) -> dict[str, tuple[str, ...]]:
    forbidden: dict[str, tuple[str, ...]] = {}
    for _ in shifts:
        number, words = lines.next("a forbidden succession line")
        if len(words) < 2 or words[0] not in shifts or words[0] in forbidden:
            raise lines.error("expected '<shift type> <k> <shift type> ...' for each type", number)
        count = lines.integer(words[1], number, "number of forbidden successors")
        following = tuple(words[2:])
        if len(following) != count:
            raise lines.error(f"{count} successors announced, {len(following)} given", number)
        unknown = [s for s in following if s not in shifts]
        if unknown:
            raise lines.error(f"unknown shift type {unknown[0]!r}", number)
        forbidden[words[0]] = following
    return forbidden


def _contract(lines: _Lines, number: int, words: list[str]) -> Contract:
    _arity(lines, number, words, 6, "contract")
    name = words[0]
    total = lines.pair(words[1], number, f"total assignments of {name}")
    work = lines.pair(words[2], number, f"consecutive working days of {name}")
    off = lines.pair(words[3], number, f"consecutive days off of {name}")
    weekends = lines.integer(words[4], number, f"maximum working weekends of {name}")
    if words[5] not in ("0", "1"):
        raise lines.error(f"complete weekends of {name}: expected 0 or 1", number)
    return Contract(name, *total, *work, *off, weekends, words[5] == "1")


def _nurse(
    lines: _Lines, number: int, words: list[str], known: tuple[tuple[str, ...], set[str]]
) -> Nurse:
    skills, contracts = known
    if len(words) < 3:
        raise lines.error("expected '<nurse> <contract> <k> <skill> ...'", number)
    name, contract = words[0], words[1]
    if contract not in contracts:
        raise lines.error(f"nurse {name}: unknown contract {contract!r}", number)
    count = lines.integer(words[2], number, f"number of skills of {name}")
    own = tuple(words[3:])
    if len(own) != count:
        raise lines.error(f"nurse {name}: {count} skills announced, {len(own)} given", number)
    unknown = [s for s in own if s not in skills]
    if unknown:
        raise lines.error(f"nurse {name}: unknown skill {unknown[0]!r}", number)
    return Nurse(name, contract, own)


def _unique(lines: _Lines, names: list[str], what: str) -> None:
    seen = {n for n in names if names.count(n) > 1}
    if seen:
        raise lines.error(f"{what} {sorted(seen)[0]!r} is defined twice", None)


def parse_history(text: str, source: str = "<history>") -> History:
    """A history (``H0-*.txt``): per nurse the counters so far and the open runs."""
    lines = _Lines(text, source)
    lines.keyword("HISTORY")
    number, words = lines.next("'<week> <scenario>'")
    _arity(lines, number, words, 2, "history header")
    week, scenario = lines.integer(words[0], number, "week"), words[1]
    lines.keyword("NURSE_HISTORY")
    nurses = []
    while lines.at < len(lines.rows):
        number, words = lines.next("a nurse's history")
        _arity(lines, number, words, 7, "nurse history")
        name, shift = words[0], words[3]
        counts = [lines.integer(w, number, f"history of {name}") for w in (words[1:3] + words[4:])]
        if min(counts) < 0:
            raise lines.error(f"history of {name}: negative count", number)
        last = None if shift == NONE else shift
        nurses.append(NurseHistory(name, counts[0], counts[1], last, *counts[2:]))
    _unique(lines, [n.nurse for n in nurses], "history of nurse")
    return History(week, scenario, tuple(nurses))


def parse_week(text: str, source: str = "<week>") -> WeekData:
    """A week data file (``WD-*.txt``): coverage per shift, skill and day; requests."""
    lines = _Lines(text, source)
    lines.keyword("WEEK_DATA")
    scenario = _single(lines, *lines.next("the scenario name"), "scenario name")
    lines.keyword("REQUIREMENTS")
    requirements = []
    while lines.at < len(lines.rows) and lines.rows[lines.at][1][0] != "SHIFT_OFF_REQUESTS":
        number, words = lines.next("a requirement")
        _arity(lines, number, words, 2 + len(DAYS), "requirement")
        pairs = [lines.pair(w, number, f"{words[0]} {words[1]} requirement") for w in words[2:]]
        if any(low > high or low < 0 for low, high in pairs):
            raise lines.error("a requirement's minimum must lie between 0 and its optimum", number)
        requirements.append(
            Requirement(words[0], words[1], tuple(p[0] for p in pairs), tuple(p[1] for p in pairs))
        )
    requests = []
    for number, words in lines.block(lines.header("SHIFT_OFF_REQUESTS"), "a shift-off request"):
        _arity(lines, number, words, 3, "shift-off request")
        requests.append(ShiftOffRequest(words[0], words[1], lines.day(words[2], number)))
    lines.end()
    return WeekData(scenario, tuple(requirements), tuple(requests))


def parse_solution(text: str, source: str = "<solution>") -> Solution:
    """A week's solution (``Sol-*.txt``): one line per assignment; no line is a day off."""
    lines = _Lines(text, source)
    lines.keyword("SOLUTION")
    number, words = lines.next("'<week> <scenario>'")
    _arity(lines, number, words, 2, "solution header")
    week, scenario = lines.integer(words[0], number, "week"), words[1]
    assignments = []
    for number, words in lines.block(lines.header("ASSIGNMENTS"), "an assignment"):
        _arity(lines, number, words, 4, "assignment")
        day = lines.day(words[1], number)
        assignments.append(Assignment(words[0], day, words[2], words[3], number))
    while lines.at < len(lines.rows) and lines.rows[lines.at][1][0].endswith(":"):
        lines.at += 1  # a solver's own 'Name: value' notes after the list, as the validator ignores
    lines.end()
    return Solution(week, scenario, tuple(assignments), source)


_HARD_LABELS = {
    "Minimal coverage constraints": "min_coverage",
    "Required skill constraints": "required_skill",
    "Illegal shift type succession constraints": "succession",
    "Single assignment per day": "single_assignment",
}
_SOFT_LABELS = {
    "Optimal coverage constraints": "optimal_coverage",
    "Consecutive constraints": "consecutive",
    "Non working days constraints": "days_off",
    "Preferences": "preferences",
    "Complete weekends": "complete_weekends",
    "Total assignment constraints": "total_assignments",
    "Max working weekend": "working_weekends",
}


def parse_validator_report(text: str, source: str = "<validator report>") -> ValidatorReport:
    """The competition validator's printed report, every figure it lists."""
    grid: dict[str, str] = {}
    hard: dict[str, int] = {}
    costs: dict[str, int] = {}
    total: int | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if "|" in line and not line.startswith("|"):
            name, _, cells = line.partition("|")
            grid[name.strip()] = "".join(c.strip() for c in cells.split("|") if c.strip())
        elif ":" in line:
            label, _, value = line.rpartition(":")
            try:
                count = int(value)
            except ValueError:
                raise FormatError(source, number, f"{value.strip()!r} is not an integer") from None
            if label in _HARD_LABELS:
                hard[_HARD_LABELS[label]] = count
            elif label in _SOFT_LABELS:
                costs[_SOFT_LABELS[label]] = count
            elif label == "Total cost":
                total = count
            else:
                raise FormatError(source, number, f"unknown figure {label!r}")
    if total is None:
        raise FormatError(source, None, "no 'Total cost' line")
    return ValidatorReport(grid, hard, costs, total)


@dataclass(frozen=True, slots=True)
class SolvedSequence:
    """One shipped run: scenario, initial history, week data and solution of each week."""

    scenario: Scenario
    history: History
    weeks: tuple[WeekData, ...]
    solutions: tuple[Solution, ...]


def load_scenario(path: Path) -> Scenario:
    return parse_scenario(path.read_text(encoding="utf-8"), str(path))


def load_history(path: Path) -> History:
    return parse_history(path.read_text(encoding="utf-8"), str(path))


def load_week(path: Path) -> WeekData:
    return parse_week(path.read_text(encoding="utf-8"), str(path))


def load_solution(path: Path) -> Solution:
    return parse_solution(path.read_text(encoding="utf-8"), str(path))


_FOLDER = re.compile(r"^Solution_H_(\d+)-WD_(\d+(?:-\d+)*)$")
_SOLUTION_FILE = re.compile(r"^Sol-[^-]+-(\d+)-(\d+)\.txt$")


def load_sequence(folder: Path) -> SolvedSequence:
    """A ``Solution_H_<h>-WD_<w1-w2-...>`` folder with the dataset's files beside it.

    The folder's name says which initial history and week files were planned; its
    ``Sol-<dataset>-<week file>-<stage>.txt`` files give one week each, ordered by stage.
    """
    match = _FOLDER.match(folder.name)
    if match is None:
        raise FormatError(str(folder), None, "not a Solution_H_<h>-WD_<w1-w2-...> folder")
    data = folder.parent
    name = data.name
    scenario = load_scenario(data / f"Sc-{name}.txt")
    history = load_history(data / f"H0-{name}-{match.group(1)}.txt")
    week_files = [int(w) for w in match.group(2).split("-")]
    weeks = tuple(load_week(data / f"WD-{name}-{w}.txt") for w in week_files)
    staged: dict[int, Path] = {}
    for path in folder.glob("Sol-*.txt"):
        found = _SOLUTION_FILE.match(path.name)
        if found is None:
            raise FormatError(str(path), None, "not a Sol-<dataset>-<week>-<stage>.txt file")
        stage = int(found.group(2))
        if stage >= len(week_files) or int(found.group(1)) != week_files[stage]:
            raise FormatError(str(path), None, "stage or week file not in the folder's sequence")
        staged[stage] = path
    if sorted(staged) != list(range(len(week_files))):
        raise FormatError(
            str(folder), None, f"expected one solution per stage 0-{len(week_files) - 1}"
        )
    solutions = tuple(load_solution(staged[stage]) for stage in range(len(week_files)))
    return SolvedSequence(scenario, history, weeks, solutions)
