"""``python -m benchmarks certificate``: the decomposition's bound alone, as a table row,
and a bound above the best-known value fails the command."""

from __future__ import annotations

import pytest

from benchmarks import certificate
from benchmarks.__main__ import main


@pytest.mark.slow
def test_a_row_reports_the_converged_bound_of_instance_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The loop ends at convergence (about a second); the limit is only a backstop.
    assert main(["certificate", "2", "--seconds", "600"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("| instance | best known | bound |")
    cells = [c.strip() for c in rows[2].strip("|").split("|")]
    assert cells[:5] == ["2", "828", "828", "100.0 %", "yes"]  # proven at the root


@pytest.mark.slow
def test_a_bound_above_the_best_known_value_fails_the_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Pretend the literature knew a roster of 800: a bound of 828 would then be wrong.
    monkeypatch.setitem(certificate.BEST_KNOWN, 2, 800)
    assert certificate.main(["2", "--seconds", "600"]) == 1


def test_an_unknown_instance_is_refused() -> None:
    with pytest.raises(SystemExit):
        certificate.main(["25"])
