"""summary.md names the searched pair that found a violation with its datasets and where it
came from (issue 36: it showed only ``searched-random-10``)."""

from __future__ import annotations

import pytest

from pathlib import Path

from dpaudit.api import run_suites
from dpaudit.report.json_report import build_report
from dpaudit.report.markdown import render_markdown
from dpaudit.results.provenance import SearchProvenance
from dpaudit.results.records import exit_status

DATA = Path(__file__).resolve().parents[1] / "data" / "privstats" / "bounded_sum.py"


@pytest.mark.slow  # an audit of 20 000 samples per side
def test_the_violation_table_shows_a_searched_pairs_datasets(tmp_path):
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")  # the project: tmp_path
    (tmp_path / "bounded_sum.py").write_text(DATA.read_text(encoding="utf-8"), encoding="utf-8")
    suite = tmp_path / "s.toml"
    suite.write_text('[suite]\nname = "s"\nsamples = 20000\nseed = 1\n\n[[audit]]\n'
                     'name = "buggy"\nmechanism = "bounded_sum.py:BoundedSumBuggy"\n',
                     encoding="utf-8")
    run = run_suites([str(suite)], workers=1)
    text = render_markdown(build_report(run, command="t", exit_status=exit_status(run)))
    table = text.split("Unexpected violations", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if "searched-" in line]
    assert rows and all("(d0 = " in row and ", d1 = " in row for row in rows)
    assert any("proposal: " in row for row in rows), rows


def test_a_searched_pairs_provenance_names_a_proposal_and_why():
    search = {"rank": 1, "candidates": 30, "source": "proposal", "proposal": "nan-record",
              "why": "a NaN record", "score": 1.0, "named_pairs_score": 0.5,
              "stronger_than_named": True, "rejected": 0, "screen_samples": 2000,
              "sources": ["proposal", "random"]}
    assert SearchProvenance.from_json(search).describe() == (
        "pair found by the pair search (rank 1 of 30 candidates screened, a proposal "
        "candidate 'nan-record': a NaN record)")
    random = SearchProvenance.from_json({**search, "source": "random", "proposal": None})
    assert "nan-record" not in random.describe()
