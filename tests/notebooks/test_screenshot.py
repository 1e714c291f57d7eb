"""Each notebook served by ``marimo run`` shows its charts in a real browser.

Headless Chromium (Debian's package, ``.ci/install-chromium.sh``) is driven by
Playwright. Screenshots are saved under ``artifacts/screenshots/`` for a reader to look
at; the test checks that the notebook's key chart (the roster for the explorer) is
visible, sized and drawn (not blank), and that its key sentence appeared.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from playwright.sync_api import sync_playwright

from shiftsched.contract.parse import parse_request
from tests.audited import solved_and_audited
from tests.notebooks.test_notebooks import short_staffed_data
from tests.service.processes import free_port, stop

pytestmark = pytest.mark.browser  # each test opens Chromium itself, in `opened`
ROOT = Path(__file__).parent.parent.parent
ARTIFACTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Flags for a sandboxed machine without network: no first-run or background traffic.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT_SECONDS = 120  # marimo run on a busy machine; only a broken start reaches it
CHART_TIMEOUT_MS = 90_000
DRAWN_BYTES = 8_000  # a blank rectangle compresses to a few hundred bytes; a chart does not


def require_chromium() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing; .ci/install-chromium.sh installs it")
        pytest.skip("chromium is not installed (bash .ci/install-chromium.sh)")
    return CHROMIUM


@dataclass(frozen=True)
class Page:
    notebook: str
    args: tuple[str, ...]  # small settings, as after `--` on the command line
    ready_text: str  # appears once the notebook's solves are done
    charts: int  # how many charts the page shows at least
    clicks: tuple[tuple[str, str], ...] = ()  # controls to press in turn, and the text each brings
    name: str = ""  # of the screenshots; the notebook's when empty
    role: str = "button"  # the ARIA role of the control to press
    chart: str = ".vega-embed"  # the key chart: the first that matches

    @property
    def shot(self) -> str:
        return self.name or self.notebook


# Settings no load can change (tests/notebooks/test_notebooks.py): one worker with a fixed
# seed (`--work-limit`); the explorer's default dataset ends proven optimal long before its
# limit, the fairness solves end after a fixed amount of deterministic work, the planted
# diagnosis ends long before its budget.
EXACT = ("--work-limit", "30")
ROSTER = "marimo-vega .vega-embed"  # the explorer's roster: the chart a click picks a cell of
PAGES = [
    # The explorer as it opens (its roster drawn, then screenshots), then the next period
    # after the roster (the seam chart joins the roster's four), then the same period
    # inside a horizon (the targets' editor, the progress chart). One page load for all.
    Page(
        "explore",
        ("--time-limit", "60", *EXACT),
        "the independent audit agrees",
        6,
        clicks=(("plan it", "The ledger through"), ("inside a horizon", "Inside the horizon")),
        role="switch",
        chart=ROSTER,
    ),
    # fairness and infeasibility: each has a test of its own below, one page load each.
]


# Failure states: what the page says instead of charts (no chart may be drawn then).
FAILURES = [
    Page(
        "explore",
        ("--time-limit", "60", *EXACT, "--request", "datasets/infeasible/fixed_assignment.json"),
        "The hard rules admit no roster",
        0,
        name="explore-no-roster",
    ),
    Page(
        "infeasibility",
        ("--budget", "60", *EXACT, "--request", "datasets/retail_weekdays.json"),
        "This request has a roster",
        0,
        name="infeasibility-has-a-roster",
    ),
]


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[Page, str]]:
    page: Page = request.param
    with serving(page) as url:
        yield page, url


@contextmanager
def serving(page: Page, log: Path | None = None) -> Iterator[str]:
    """The URL of ``page``'s notebook served by ``marimo run``, once it answers; ``log``
    keeps what the server writes (else it is dropped)."""
    port = free_port()
    marimo = Path(sys.executable).parent / "marimo"
    sink: IO[bytes] | int = subprocess.DEVNULL if log is None else log.open("wb")
    server = subprocess.Popen(
        [
            *(str(marimo), "run", f"notebooks/{page.notebook}.py", "--headless", "--no-token"),
            *("--host", "127.0.0.1", "--port", str(port), "--", *page.args),
        ],
        cwd=ROOT,
        stdout=sink,
        stderr=subprocess.DEVNULL if log is None else subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while True:
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, "marimo run exited early"
            assert time.monotonic() < deadline, "marimo run did not start"
            time.sleep(0.3)
        yield url
    finally:
        stop(server)
        if not isinstance(sink, int):
            sink.close()


@contextmanager
def opened(page_spec: Page, url: str) -> Iterator[Any]:
    """The served notebook in Chromium, once its ``ready_text`` shows (a screenshot of
    what it showed instead when it never does)."""
    executable = require_chromium()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            page.goto(url)
            # Headings recur in the (hidden) outline: wait for the visible one.
            ready = page.get_by_text(page_spec.ready_text).filter(visible=True).first
            try:
                ready.wait_for(timeout=CHART_TIMEOUT_MS)
            except Exception:  # keep what the page showed instead, for the reader
                page.screenshot(path=ARTIFACTS / f"{page_spec.shot}-not-ready.png", full_page=True)
                raise
            yield page
        finally:
            browser.close()


@pytest.mark.parametrize("served", PAGES, ids=[p.shot for p in PAGES], indirect=True)
def test_notebook_charts_are_drawn_in_chromium(served: tuple[Page, str]) -> None:
    page_spec, url = served
    with opened(page_spec, url) as page:
        # Vega draws on a canvas (no DOM text); the key chart is named by the page.
        first = page.locator(page_spec.chart).first
        canvas = first.locator("canvas").first  # locators reach into shadow roots
        canvas.wait_for(state="visible", timeout=CHART_TIMEOUT_MS)
        # Vega may still be drawing on a busy machine: wait until the chart is not blank.
        deadline = time.monotonic() + CHART_TIMEOUT_MS / 1000
        while True:
            image = first.screenshot(path=ARTIFACTS / f"{page_spec.shot}-chart.png")
            if len(image) > DRAWN_BYTES or time.monotonic() > deadline:
                break
            page.wait_for_timeout(250)
        page.screenshot(path=ARTIFACTS / f"{page_spec.shot}.png", full_page=True)
        box = first.bounding_box()
        for i, (button, result) in enumerate(page_spec.clicks):
            page.get_by_role(page_spec.role, name=button).click()
            page.get_by_text(result).filter(visible=True).first.wait_for(timeout=CHART_TIMEOUT_MS)
            after = f"{page_spec.shot}-after-click{f'-{i + 1}' if i else ''}.png"
            page.screenshot(path=ARTIFACTS / after, full_page=True)
        charts = page.locator(".vega-embed").count()
        drawn = canvas.evaluate("c => c.width * c.height")
    assert box is not None and box["width"] > 200 and box["height"] > 150
    assert image.startswith(b"\x89PNG")
    assert len(image) > DRAWN_BYTES
    assert drawn > 0
    assert charts >= page_spec.charts


@pytest.mark.parametrize("served", FAILURES, ids=[p.shot for p in FAILURES], indirect=True)
def test_a_failure_state_says_what_to_do_and_draws_no_chart(served: tuple[Page, str]) -> None:
    page_spec, url = served
    with opened(page_spec, url) as page:
        page.screenshot(path=ARTIFACTS / f"{page_spec.shot}.png", full_page=True)
        charts = page.locator(".vega-embed").count()
        height = page.evaluate("document.documentElement.scrollHeight")
    assert charts == 0
    assert height < 5_000  # no runaway chart making the page endless


def test_a_selected_shortage_is_explained_and_its_fill_compared_in_chromium(
    tmp_path: Path,
) -> None:
    """The explorer's shortage table is clicked as a person clicks it: on an uploaded
    roster, the page's own optimum less one cell (so its shortage is fillable), the row's
    checkbox selects the shortage, the explanation shows with its fill, and the fill's
    switch brings the comparison with its charts."""
    from shiftsched.contract.parse import load_json, parse_request
    from shiftsched.present.notebook_limits import notebook_limits
    from shiftsched.questions.variants import with_max_consecutive_days
    from shiftsched.solving.problem import DEFAULT_MAX_CONSECUTIVE_DAYS, from_request
    from shiftsched.solving.solve import solve_problem

    request = parse_request(load_json((ROOT / "datasets" / "retail_weekdays.json").read_bytes()))
    cap = request.constraints.max_consecutive_working_days or DEFAULT_MAX_CONSECUTIVE_DAYS
    optimum = solve_problem(
        from_request(with_max_consecutive_days(request, cap)), notebook_limits(60, 30)
    ).assignments
    holed = [a for a in optimum if a != optimum[len(optimum) // 2]]
    roster = tmp_path / "holed.json"
    roster.write_text(json.dumps({"assignments": [a.model_dump(mode="json") for a in holed]}))
    page_spec = Page(
        "explore", ("--time-limit", "60", *EXACT), "", 0, name="explore-why-short", chart=ROSTER
    )
    with serving(page_spec) as url, opened(page_spec, url) as page:
        uploader = page.locator("marimo-file").filter(has_text="or upload a request, or a roster")
        uploader.locator("input[type=file]").set_input_files(roster)
        page.get_by_text(UPLOADED).filter(visible=True).first.wait_for(timeout=CHART_TIMEOUT_MS)
        charts_before = settled_chart_count(page)
        row = page.locator("tr").filter(has_text="staffing").first
        row.get_by_role("checkbox").click()
        filled = page.get_by_text("outlined below").filter(visible=True).first
        filled.wait_for(timeout=CHART_TIMEOUT_MS)
        filled.scroll_into_view_if_needed()
        page.screenshot(path=ARTIFACTS / f"{page_spec.shot}.png")
        page.get_by_role("switch", name="compare this fill with the roster above").click()
        compared = page.get_by_text("The roster above →").filter(visible=True).first
        compared.wait_for(timeout=CHART_TIMEOUT_MS)
        compared.scroll_into_view_if_needed()
        page.get_by_text("Both rosters' headline numbers").filter(visible=True).first.wait_for(
            timeout=CHART_TIMEOUT_MS
        )
        # The fill's heatmap, then the comparison's two: cells side by side and per employee.
        charts_after = chart_count_reaching(page, charts_before + 3)
        page.screenshot(path=ARTIFACTS / f"{page_spec.shot}-compared.png", full_page=True)
    assert charts_after >= charts_before + 3


def settled_chart_count(page: Any) -> int:
    """How many charts the page shows once a re-run has stopped adding or dropping them
    (the same count twice, half a second apart)."""
    count = -1
    for _ in range(120):
        now = page.locator(".vega-embed").count()
        if now == count:
            return now
        count = now
        page.wait_for_timeout(500)
    return count


def chart_count_reaching(page: Any, wanted: int) -> int:
    """How many charts the page shows once it shows ``wanted`` of them, or at the chart
    timeout: a loaded machine can pause a re-run for seconds between two charts, so a
    count that holds for half a second is not yet the last."""
    count = int(page.locator(".vega-embed").count())
    for _ in range(CHART_TIMEOUT_MS // 500):
        if count >= wanted:
            return count
        page.wait_for_timeout(500)
        count = int(page.locator(".vega-embed").count())
    return count


# --------------------------------------------------- the explorer's figures, one page load

FIRST_VIEW_BACKSTOP_SECONDS = 60.0  # only a broken page reaches it; the figure is reported
# The first cell of the roster heatmap from the left (its first date, the topmost person
# at work): the first strongly coloured pixel of the canvas, column by column; axis labels
# are grey and the legend lies to the right. Its centre, in CSS pixels of the canvas.
FIRST_CELL_JS = """canvas => {
  const width = canvas.width, height = canvas.height;
  const pixels = canvas.getContext('2d').getImageData(0, 0, width, height).data;
  const scale = width / canvas.clientWidth;
  const coloured = (x, y) => {
    const i = (y * width + x) * 4;
    const [r, g, b, a] = [pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]];
    return a > 200 && Math.max(r, g, b) - Math.min(r, g, b) > 60;
  };
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) {
      if (!coloured(x, y)) continue;
      let right = x, bottom = y;
      while (right + 1 < width && coloured(right + 1, y)) right++;
      while (bottom + 1 < height && coloured(x, bottom + 1)) bottom++;
      return {x: (x + right) / 2 / scale, y: (y + bottom) / 2 / scale};
    }
  }
  return null;
}"""
# Matched in the browser too, so no named groups: (employee, date), (before, after), (objective).
PICKED = re.compile(r"\(([^)]+)\) works .* on (\d{4}-\d{2}-\d{2})")
REPLAN_LINE = re.compile(r"the re-planned one: ([\d,.]+) → ([\d,.]+)")
UPLOADED = re.compile(r"objective ([\d,.]+) by the independent audit")
# The summary wraps its lines anywhere: any run of white space between the words.
FIRST_ROSTER = re.compile(
    r"first\s+roster\s+came\s+([\d.]+)\s+s\s+after\s+the\s+solve\s+was\s+asked\s+for,"
    r"\s+this\s+one\s+after\s+([\d.]+)\s+s"
)


def number(text: str) -> float:
    return float(text.replace(",", ""))


def drawn_within(chart: Any, seconds: float) -> bytes:
    """A screenshot of ``chart`` once Vega has drawn it (not blank), or the last one."""
    deadline = time.monotonic() + seconds
    while True:
        image: bytes = chart.screenshot()
        if len(image) > DRAWN_BYTES or time.monotonic() > deadline:
            return image
        time.sleep(0.1)


def first_row(table: Any) -> dict[str, str]:
    """A marimo table's first row, by column name (a header reads name then type)."""
    names = [
        re.sub(r"(str|i64|f64|bool)$", "", h.text_content()) for h in table.locator("th").all()
    ]
    cells = [c.text_content() for c in table.locator("tbody tr").first.locator("td").all()]
    return dict(zip(names, cells, strict=False))


@dataclass(frozen=True)
class ExploreSeen:
    """What one page load of the explorer showed, read off the page."""

    first_view_seconds: float
    first_roster: tuple[float, float]  # the summary's: the first roster, and this one
    first_violation: str
    picked: tuple[str, dt.date]
    replan_line: tuple[float, float]
    best_fill: tuple[str, float]
    uploaded_objective: float
    day_off_said: str  # what the sick call says of someone off on the picked date


def explore_in_chromium(
    url: str, uploads: dict[str, Path], off_duty: Callable[[dt.date], str]
) -> ExploreSeen:
    """Open the explorer as a person does, time its first roster, click a cell, mark that
    person sick, then someone ``off_duty`` that date, upload a published roster, then
    upload a request and choose a dataset again; screenshots of each step."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            started = time.monotonic()
            page.goto(url)
            roster = page.locator(ROSTER).first
            canvas = roster.locator("canvas").first
            canvas.wait_for(state="visible", timeout=CHART_TIMEOUT_MS)
            drawn_within(roster, CHART_TIMEOUT_MS / 1000)
            first_view = time.monotonic() - started
            page.screenshot(path=ARTIFACTS / "explore-first-view.png")
            summary = page.get_by_text(FIRST_ROSTER).filter(visible=True).first
            times = FIRST_ROSTER.search(summary.text_content() or "")
            assert times is not None
            page.get_by_role("tab", name=re.compile("Violations")).click()
            violation = page.locator("table").filter(has_text="violated_by").first
            violation.scroll_into_view_if_needed()
            first_violation = first_row(violation)["what"]
            page.screenshot(path=ARTIFACTS / "explore-violations-in-words.png")
            picked, replan_line, best_fill = sick_call_by_click(page, canvas)
            day_off_said = sick_call_off_duty(page, off_duty(picked[1]), picked[1])
            uploaded = uploads_in_chromium(page, uploads)
        finally:
            browser.close()
    first_roster = (float(times[1]), float(times[2]))
    return ExploreSeen(
        first_view,
        first_roster,
        first_violation,
        picked,
        replan_line,
        best_fill,
        uploaded,
        day_off_said,
    )


def sick_call_off_duty(page: Any, employee_id: str, day: dt.date) -> str:
    """Mark sick, from the same date, someone who does not work it: what the page says."""
    page.get_by_label("Sick employee").select_option(employee_id)
    said = page.get_by_text(f"{employee_id} does not work on {day.isoformat()}")
    said.filter(visible=True).first.wait_for(timeout=CHART_TIMEOUT_MS)
    said.first.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "explore-sick-call-day-off.png")
    return said.first.text_content() or ""


def sick_call_by_click(
    page: Any, canvas: Any
) -> tuple[tuple[str, dt.date], tuple[float, float], tuple[str, float]]:
    """Click the roster's first cell, then *Mark sick*: the cell picked, the re-plan line
    (published → re-planned objective) and the best fill (employee, delta)."""
    roster = page.locator(ROSTER).first
    roster.scroll_into_view_if_needed()
    canvas.click(position=canvas.evaluate(FIRST_CELL_JS))
    said = page.get_by_text(PICKED).filter(visible=True).first
    said.wait_for(timeout=CHART_TIMEOUT_MS)
    picked = PICKED.search(said.text_content() or "")
    assert picked is not None
    page.screenshot(path=ARTIFACTS / "explore-cell-picked.png")
    page.get_by_role("button", name="Mark sick").click()
    line = page.get_by_text(REPLAN_LINE).filter(visible=True).first
    line.wait_for(timeout=CHART_TIMEOUT_MS)
    objectives = REPLAN_LINE.search(line.text_content() or "")
    assert objectives is not None
    fills = page.locator("table").filter(has_text="objective_delta").first
    fills.wait_for(timeout=CHART_TIMEOUT_MS)
    best = first_row(fills)
    line.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "explore-sick-call.png")
    fills.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "explore-sick-call-fills.png")
    return (
        (picked[1], dt.date.fromisoformat(picked[2])),
        (number(objectives[1]), number(objectives[2])),
        (best["employee_id"], number(best["objective_delta"])),
    )


def uploads_in_chromium(page: Any, uploads: dict[str, Path]) -> float:
    """Upload the published roster (its objective as shown), then a request, and choose
    the dataset again: the list switches back to it."""
    uploader = page.locator("marimo-file").filter(has_text="or upload a request, or a roster")
    uploader.locator("input[type=file]").set_input_files(uploads["roster"])
    audited = page.get_by_text(UPLOADED).filter(visible=True).first
    audited.wait_for(timeout=CHART_TIMEOUT_MS)
    objective = UPLOADED.search(audited.text_content() or "")
    assert objective is not None
    audited.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "explore-uploaded-roster.png")
    uploader.locator("input[type=file]").set_input_files(uploads["request"])
    name = uploads["request"].name
    page.get_by_text(f"Using the uploaded request {name}").filter(visible=True).first.wait_for(
        timeout=CHART_TIMEOUT_MS
    )
    page.get_by_label("Dataset").select_option("retail_weekdays")
    solved = page.get_by_text("retail_weekdays: optimal").filter(visible=True).first
    solved.wait_for(timeout=CHART_TIMEOUT_MS)
    solved.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "explore-dataset-after-upload.png")
    return number(objective[1])


def test_explore_figures_agree_with_the_audit_in_chromium(tmp_path: Path) -> None:
    """One page load of the explorer, as a person uses it: the first roster is timed from
    navigation (written to explore-first-view.json and printed; only a backstop is
    asserted), the soft terms read in words, a click on a roster cell and *Mark sick*
    give a re-plan line and fills whose figures are the audits computed here, an
    uploaded SolveResponse is shown with the audit's objective, and choosing a dataset
    after uploading a request switches back to it."""
    from shiftsched.checking.audit import audit
    from shiftsched.checking.items import term_words
    from shiftsched.contract.parse import load_json, parse_request
    from shiftsched.contract.planning import Absence, ReplanRequest
    from shiftsched.periods.replan import replan
    from shiftsched.present.notebook_limits import notebook_limits
    from shiftsched.questions.edit import reassign
    from shiftsched.questions.variants import with_max_consecutive_days
    from shiftsched.solving.problem import DEFAULT_MAX_CONSECUTIVE_DAYS, from_request
    from shiftsched.solving.solve import solve_problem, to_response

    # The page's solve, here: the same request, settings, worker and seed.
    request = parse_request(load_json((ROOT / "datasets" / "retail_weekdays.json").read_bytes()))
    cap = request.constraints.max_consecutive_working_days or DEFAULT_MAX_CONSECUTIVE_DAYS
    variant = with_max_consecutive_days(request, cap)
    limits = notebook_limits(60, 30)  # the page's `--time-limit 60 --work-limit 30`
    solved = solve_problem(from_request(variant), limits)
    published = solved.assignments
    uploads = {"roster": tmp_path / "published.json", "request": tmp_path / "short_staffed.json"}
    uploads["roster"].write_text(to_response(solved, "published").model_dump_json())
    uploads["request"].write_text(json.dumps(short_staffed_data()))
    page_spec = Page("explore", ("--time-limit", "60", *EXACT), "", 4, chart=ROSTER)
    worked = {(a.employee_id, a.date) for a in published}

    def off_duty(day: dt.date) -> str:
        return next(e.id for e in variant.employees if (e.id, day) not in worked)

    with serving(page_spec) as url:
        seen = explore_in_chromium(url, uploads, off_duty)
    report = {
        "notebook": "explore",
        "dataset": "retail_weekdays",
        "settings": list(page_spec.args),
        "first_roster_drawn_seconds": round(seen.first_view_seconds, 2),
        "measured": "from navigation (page.goto) until the roster heatmap is drawn",
        "cores": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    (ARTIFACTS / "explore-first-view.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"explore: first roster drawn {seen.first_view_seconds:.2f} s after navigation")
    assert seen.first_view_seconds < FIRST_VIEW_BACKSTOP_SECONDS
    first, this_one = seen.first_roster  # shown to 2 and 1 decimals: counted from the call
    assert 0 < first <= this_one + 0.05

    before = audit(variant, published)
    first_term = before.soft_constraint_violations[0]
    assert seen.first_violation == term_words(variant, first_term.name, first_term.violated_by)
    employee, day = seen.picked
    cell = next(a for a in published if (a.employee_id, a.date) == (employee, day))
    absent = [Absence(employee_id=employee, dates=[day])]  # lowers their day minimums
    ask = ReplanRequest(request=variant, roster=published, absences=absent)
    replanned = replan(ask.model_copy(update={"pin_before": day}), limits)
    assert replanned.solution is not None
    sick_before = audit(variant, published, absences=absent)
    after = audit(variant, replanned.solution.assignments, absences=absent)
    assert seen.replan_line == (sick_before.objective_value, after.objective_value)
    candidate, delta = seen.best_fill
    hole = reassign(published, employee, day, None)
    filled = reassign(hole, candidate, day, cell.shift_id, cell.duty_id)
    filled_value = audit(variant, filled, absences=absent).objective_value
    assert delta == filled_value - sick_before.objective_value
    assert seen.uploaded_objective == before.objective_value
    assert "nothing to re-plan" in seen.day_off_said


# ------------------------------------------------------------- fairness, infeasibility


def drawn_chart(page: Any, chart: Any, name: str) -> bytes:
    """A screenshot of ``chart`` once Vega has drawn it (not blank), or when time is up."""
    deadline = time.monotonic() + CHART_TIMEOUT_MS / 1000
    while True:
        image: bytes = chart.screenshot(path=ARTIFACTS / name)
        if len(image) > DRAWN_BYTES or time.monotonic() > deadline:
            return image
        page.wait_for_timeout(250)


# The fairness notebook's first table (three rosters side by side) should show within
# this many seconds of navigation with the default settings; the time is measured and
# written beside the screenshots. Only the backstop is asserted, so a busy machine makes
# the test slower, never red.
FIRST_TABLE_TARGET_SECONDS = 15
FIRST_TABLE_BACKSTOP_SECONDS = 90


@pytest.mark.multi_worker  # the settings a person gets: asserts what holds for any roster
def test_fairness_first_table_is_soon_and_every_solve_says_if_it_finished_in_chromium() -> None:
    """The default view as a person opens it (two workers, the size's time limit): the
    first table's time from navigation, its status and gap columns, and the sweep's
    caption, chart and table (the sweep shortened, which the first table never waits for)."""
    page_spec = Page("fairness", ("--sweep-time-limit", "1"), "Three rosters side by side", 2)
    with serving(page_spec) as url, opened(page_spec, url) as page:
        first_table = page.evaluate("performance.now()") / 1000  # since navigation began
        page.screenshot(path=ARTIFACTS / "fairness-first-table.png", full_page=True)
        headers = page.locator("th").filter(visible=True).all_inner_texts()
        states = page.get_by_text("unfinished").or_(page.get_by_text("proven optimal"))
        caption = page.get_by_text("As the penalty weight rises").filter(visible=True).first
        caption.wait_for(timeout=CHART_TIMEOUT_MS)
        words = caption.inner_text()
        cost = page.locator(".vega-embed").last  # the cost of fairness, below the caption
        cost.locator("canvas").first.wait_for(state="visible", timeout=CHART_TIMEOUT_MS)
        cost.scroll_into_view_if_needed()
        drawn = drawn_chart(page, cost, "fairness-cost-chart.png")
        caption.scroll_into_view_if_needed()
        page.screenshot(path=ARTIFACTS / "fairness-sweep.png")
        page.screenshot(path=ARTIFACTS / "fairness.png", full_page=True)
        charts = page.locator(".vega-embed").count()
        shown_states = states.count()
    report = {
        "first_table_seconds": round(first_table, 2),
        "target_seconds": FIRST_TABLE_TARGET_SECONDS,
        "backstop_seconds": FIRST_TABLE_BACKSTOP_SECONDS,
        "settings": "defaults (ward_24_7, the size's time limit, two workers)",
    }
    (ARTIFACTS / "fairness-first-view.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"fairness: first table {first_table:.1f} s after navigation")
    assert first_table < FIRST_TABLE_BACKSTOP_SECONDS
    assert {"status", "gap %"} <= {h.split("\n")[0].strip() for h in headers}  # name, dtype
    assert shown_states >= 6  # the three scenarios and the three weights, each with its state
    assert "hollow marks" in words or "Every point is proven optimal" in words
    assert charts >= 2  # the burden charts, the cost of fairness
    assert len(drawn) > DRAWN_BYTES


def test_infeasibility_probes_name_their_employees_and_the_relaxed_request_downloads_in_chromium(
    tmp_path: Path,
) -> None:
    """Two employees who share no hard rule, each fixed on a holiday: every probe's row
    names whose roster it re-solved and what it switched off, the chart's labels are drawn
    whole, and the relaxed request downloads, parses and has a roster the audit accepts."""
    example = "holiday_across_components"
    page_spec = Page(
        "infeasibility",
        ("--example", example, "--budget", "60", *EXACT),
        "the planted cause is ranked first",
        1,
    )
    with serving(page_spec) as url, opened(page_spec, url) as page:
        cells = page.get_by_text("every hard rule on, to see whether these employees")
        named = page.get_by_role("cell", name="employee e1", exact=True).count()
        chart = page.locator(".vega-embed").first
        chart.locator("canvas").first.wait_for(state="visible", timeout=CHART_TIMEOUT_MS)
        chart.scroll_into_view_if_needed()
        drawn = drawn_chart(page, chart, "infeasibility-probes-chart.png")
        box = chart.bounding_box()
        checks = cells.count()
        page.screenshot(path=ARTIFACTS / "infeasibility.png", full_page=True)
        page.get_by_role("button", name="Relax it and solve again").click()
        button = page.get_by_text(f"Download the relaxed request ({example}").first
        button.wait_for(timeout=CHART_TIMEOUT_MS)
        button.scroll_into_view_if_needed()
        page.screenshot(path=ARTIFACTS / "infeasibility-after-click.png")
        with page.expect_download(timeout=CHART_TIMEOUT_MS) as download_info:
            button.click()
        download = download_info.value
        saved = tmp_path / download.suggested_filename
        download.save_as(saved)
    assert len(drawn) > DRAWN_BYTES
    assert checks == 2  # one check per group of employees, each named
    assert named > 0
    assert box is not None and box["width"] > 600  # long labels drawn whole, not cut at 360 px
    assert download.suggested_filename == f"{example}-relaxed.json"
    relaxed = parse_request(json.loads(saved.read_bytes()))
    assert solved_and_audited(relaxed).assignments
