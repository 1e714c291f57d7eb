"""Presenting: rosters and answers as text, tables, frames, charts, files and words.

``roster_text`` and ``answer_text`` fit a terminal; ``console`` is what the command line
shows on stderr; ``frames`` and ``charts`` are polars tables and Altair charts for the
notebooks; ``export`` writes CSV, iCalendar and XLSX; ``advice`` and ``probe_words``
put outcomes and diagnoses in words; ``notebook_limits`` is how the notebooks solve.

May import: every engine folder below it (questions, periods, checking, solving,
contract). Nothing in the engine imports this folder.
"""
