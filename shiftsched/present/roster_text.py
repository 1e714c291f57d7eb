"""A roster as text for a terminal: as many whole weeks side by side as the width holds.

One column per date is wider than any terminal for a period of four weeks, and a
wrapped line is unreadable. So the period is cut into blocks of whole calendar weeks
(Monday to Sunday; the first and last may be partial), each as wide as the width allows.
A block has a weekday row and a day-of-month row over one row per employee; a cell is a
short code of the shift (upper case) followed by one of the duty (lower case), ``.`` a
day off, ``*`` after a cell that changed; a ``short`` row gives the heads missing that
date, and a ``holiday`` row (when the period has one) marks each holiday ``H``. A legend
says what each code stands for, a shift's code alone included. Widths are counted in
terminal cells, so wide characters in an id keep the columns straight.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import partial

from rich.cells import cell_len, set_cell_size

from shiftsched.contract.v1 import Assignment, Shortage, SolveRequest

OFF = "."
CHANGED = "*"
SHORT_LABEL = "short"
HOLIDAY_LABEL = "holiday"
HOLIDAY = "H"
WEEK_GAP = " |"  # between two weeks of one block
MAX_CODE = 4  # characters of a code before it is told apart from the others
WEEKDAYS = ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su")

Cell = tuple[str, dt.date]  # (employee id, date)


# ----------------------------------------------------------------------------- codes


def _initials(identifier: str) -> str:
    """``we_morning`` -> ``wm``, ``e04`` -> ``e04``, ``pk06`` -> ``p06``: one letter per
    word, with the digits a word ends with."""
    words = [w for w in re.split(r"[\W_]+", identifier) if w]
    if not words:
        return identifier[:MAX_CODE]
    parts = []
    for word in words:
        digits = re.search(r"\d*$", word)
        tail = digits.group() if digits else ""
        parts.append(word if word.isdigit() else word[0] + tail)
    return "".join(parts)[:MAX_CODE]


def _compact(identifier: str) -> str:
    return re.sub(r"[\W_]+", "", identifier) or identifier


def unique_codes(ids: Sequence[str], case: Callable[[str], str]) -> dict[str, str]:
    """A short code per id, distinct after ``case``: initials, else a longer prefix,
    else a letter and a number."""
    codes = {i: case(_initials(i)) for i in ids}
    for size in range(2, MAX_CODE + 1):
        clashing = _clashing(codes)
        if not clashing:
            return codes
        for i in clashing:
            codes[i] = case(_compact(i)[:size])
    for number, i in enumerate(sorted(_clashing(codes)), start=1):
        codes[i] = case(_compact(i)[:1] + str(number))
    if _clashing(codes):  # ids alike in every way tried: numbers alone
        codes = {i: case(f"s{n}") for n, i in enumerate(ids, start=1)}
    return codes


def _clashing(codes: Mapping[str, str]) -> list[str]:
    seen: defaultdict[str, list[str]] = defaultdict(list)
    for i, code in codes.items():
        seen[code].append(i)
    return [i for same in seen.values() if len(same) > 1 for i in same]


class Codes:
    """The codes of a request's shifts and duties, and the text of one cell."""

    def __init__(self, request: SolveRequest) -> None:
        self.shifts = unique_codes([s.id for s in request.shifts], str.upper)
        self.duties = unique_codes([k.id for k in request.duties], str.lower)
        self._request = request

    def cell(self, worked: Sequence[Assignment], changed: bool) -> str:
        text = "+".join(self._code(a) for a in worked) or OFF
        return text + CHANGED if changed else text

    def _code(self, a: Assignment) -> str:
        shift = self.shifts.get(a.shift_id, a.shift_id)
        return shift if a.duty_id is None else shift + self.duties.get(a.duty_id, a.duty_id)

    def legend(self, used: Collection[str]) -> list[str]:
        """``E Early`` for each shift (and duty) the roster uses, in the request's order;
        with duties, how a cell joins the two and what a shift's code alone means."""
        shifts = [s for s in self._request.shifts if s.id in used]
        duties = [k for k in self._request.duties if k.id in used]
        listed = ", ".join(f"{self.shifts[s.id]} {s.name}" for s in shifts)
        entries = [f"shifts: {listed or 'none worked'}"]
        if duties:
            entries.append(f"duties: {', '.join(f'{self.duties[k.id]} {k.name}' for k in duties)}")
            shift, duty = shifts[0], duties[0]
            code = self.shifts[shift.id]
            entries.append(
                f"{code}{self.duties[duty.id]} = {shift.name} on {duty.name}; "
                f"{code} alone = {shift.name} with no duty"
            )
        return entries


# ------------------------------------------------------------------------------ text


def fit(text: str, width: int) -> str:
    """``text`` in exactly ``width`` terminal cells: padded, or cut with an ellipsis."""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, max(0, width - 1)) + "…"


def wrap(text: str, width: int, indent: str = "  ") -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken between words; the first
    line keeps the text's own indent, the others get ``indent``."""
    lines: list[str] = []
    line = ""
    lead = text[: len(text) - len(text.lstrip())]
    for word in text.split():
        candidate = f"{line} {word}" if line else (indent if lines else lead) + word
        if line and cell_len(candidate) > width:
            lines.append(line)
            candidate = indent + word
        line = candidate if cell_len(candidate) <= width else fit(candidate, width)
    return [*lines, line] if line else lines


def weeks(dates: Sequence[dt.date]) -> list[list[dt.date]]:
    """Consecutive dates by calendar week, Monday to Sunday."""
    out: list[list[dt.date]] = []
    for day in dates:
        if out and day.weekday() > out[-1][-1].weekday():
            out[-1].append(day)
        else:
            out.append([day])
    return out


def blocks(
    parts: Sequence[list[dt.date]], fits: Callable[[list[list[dt.date]]], bool]
) -> list[list[list[dt.date]]]:
    """Whole weeks side by side while they fit, as evenly as the fewest blocks allow
    (four weeks at three a block are two and two, not three and one); a week too wide
    alone is cut in days."""
    fewest = _blocks(parts, fits, len(parts))
    even = _blocks(parts, fits, math.ceil(len(parts) / max(1, len(fewest))))
    return even if len(even) == len(fewest) else fewest


def _blocks(
    parts: Sequence[list[dt.date]], fits: Callable[[list[list[dt.date]]], bool], most: int
) -> list[list[list[dt.date]]]:
    out: list[list[list[dt.date]]] = []
    for week in parts:
        if out and len(out[-1]) < most and fits([*out[-1], week]):
            out[-1].append(week)
        elif fits([week]):
            out.append([week])
        else:
            out.extend([[piece] for piece in _days_that_fit(week, fits)])
    return out


def _days_that_fit(
    week: list[dt.date], fits: Callable[[list[list[dt.date]]], bool]
) -> list[list[dt.date]]:
    pieces: list[list[dt.date]] = []
    for day in week:
        if pieces and fits([[*pieces[-1], day]]):
            pieces[-1].append(day)
        else:
            pieces.append([day])
    return pieces


class RosterText:
    """The lines of one roster: blocks of weeks, then the legend (see module doc)."""

    def __init__(
        self,
        request: SolveRequest,
        assignments: Iterable[Assignment],
        shortages: Iterable[Shortage],
        width: int,
        changed: Collection[Cell] = (),
    ) -> None:
        period = request.schedule_period
        first, last = period.start_date.toordinal(), period.end_date.toordinal()
        self.dates = [dt.date.fromordinal(d) for d in range(first, last + 1)]
        self.codes = Codes(request)
        worked: defaultdict[Cell, list[Assignment]] = defaultdict(list)
        for a in assignments:
            worked[a.employee_id, a.date].append(a)
        self.used = {a.shift_id for same in worked.values() for a in same}
        self.used |= {a.duty_id for same in worked.values() for a in same if a.duty_id}
        self.ids = [e.id for e in request.employees]
        self.cells = {
            (e, d): self.codes.cell(worked.get((e, d), []), (e, d) in changed)
            for e in self.ids
            for d in self.dates
        }
        self.missing: defaultdict[dt.date, int] = defaultdict(int)
        for marker in shortages:
            self.missing[marker.date] += marker.missing
        self.any_change = bool(changed)
        self.holidays = set(period.holidays) & set(self.dates)
        self.width = width
        texts = [*self.cells.values(), *(str(n) for n in self.missing.values()), "Mo"]
        self.cell_width = max(cell_len(t) for t in texts)
        names = max((cell_len(i) for i in self.ids), default=0)
        labels = len(HOLIDAY_LABEL) if self.holidays else len(SHORT_LABEL)
        self.name_width = max(labels, min(names, max(8, width // 4)))

    def lines(self) -> list[str]:
        out: list[str] = []
        for block in blocks(weeks(self.dates), self._fits):
            if out:
                out.append("")
            out += self._block(block)
        return [*out, "", *self._legend()]

    def _row(self, label: str, block: list[list[dt.date]], cell: Callable[[dt.date], str]) -> str:
        parts = [fit(label, self.name_width)]
        for n, week in enumerate(block):
            parts.append(WEEK_GAP if n else "")
            parts += [" " + fit(cell(day), self.cell_width) for day in week]
        return "".join(parts).rstrip()

    def _fits(self, block: list[list[dt.date]]) -> bool:
        days = sum(len(week) for week in block)
        used = self.name_width + days * (self.cell_width + 1) + len(WEEK_GAP) * (len(block) - 1)
        return used <= self.width

    def _block(self, block: list[list[dt.date]]) -> list[str]:
        start, end = block[0][0], block[-1][-1]
        title = f"{start:%a %Y-%m-%d} to {end:%a %Y-%m-%d}"
        return [
            fit(title, self.width).rstrip(),
            self._row("", block, lambda d: WEEKDAYS[d.weekday()]),
            self._row("", block, lambda d: f"{d.day:02d}"),
            *self._holiday_row(block),
            *(self._row(e, block, partial(self._cell, e)) for e in self.ids),
            self._row(SHORT_LABEL, block, lambda d: str(self.missing.get(d) or OFF)),
        ]

    def _holiday_row(self, block: list[list[dt.date]]) -> list[str]:
        if not self.holidays:
            return []
        return [self._row(HOLIDAY_LABEL, block, lambda d: HOLIDAY if d in self.holidays else OFF)]

    def _cell(self, employee_id: str, day: dt.date) -> str:
        return self.cells[employee_id, day]

    def _legend(self) -> list[str]:
        keys = f"{OFF} off; {SHORT_LABEL}: heads missing that date"
        if self.holidays:
            keys += f"; {HOLIDAY_LABEL}: {HOLIDAY} a holiday"
        if self.any_change:
            keys += f"; {CHANGED} changed from the published roster"
        entries = [*self.codes.legend(self.used), keys]
        return [line for entry in entries for line in wrap(entry, self.width)]


def roster_lines(
    request: SolveRequest,
    assignments: Iterable[Assignment],
    shortages: Iterable[Shortage],
    width: int,
    changed: Collection[Cell] = (),
) -> list[str]:
    """The roster in blocks of whole weeks that fit ``width``, then its legend."""
    return RosterText(request, assignments, shortages, width, changed).lines()
