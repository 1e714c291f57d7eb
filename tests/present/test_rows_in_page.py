"""A clickable chart of a served notebook carries its rows inside the page
(shiftsched.present.charts.rows_in_page), not as a file the server drops when the chart's
cell runs again (tests/notebooks/test_server_log.py serves the explorer and reads the log)."""

from __future__ import annotations

import altair as alt
import marimo as mo
import polars as pl

from shiftsched.present.charts import INLINE_ROWS, rows_in_page

ROWS = pl.DataFrame({"employee_id": ["A", "B"], "shifts": [3, 5]})


def test_a_clickable_chart_made_in_the_block_has_its_rows_in_the_page() -> None:
    chart = alt.Chart(ROWS).mark_bar().encode(x="shifts:Q", y="employee_id:N")
    mo.ui.altair_chart(chart)  # marimo registers its transformers, as its server does
    assert INLINE_ROWS in alt.data_transformers.names()
    before = alt.data_transformers.active
    with rows_in_page():
        picker = mo.ui.altair_chart(chart)
    assert "data:text/csv;base64," in picker.text and "arrow" not in picker.text
    assert alt.data_transformers.active == before  # only the block's charts
