"""A per-test time limit (issue 39, item 9): a sampler that sleeps forever hung the run
silently; now the test ends as an error after ``time_limit`` seconds (a [suite] key,
``--time-limit``, ``run_suites(time_limit=)``; default 1800 s) and the other audits run."""

from __future__ import annotations

import textwrap
import time

import pytest

from dpaudit.api import run_suites
from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_document
from dpaudit.suite.spec import SuiteError, load_suite

SUITE = """\
[suite]
samples = 2000
{limit}
[[audit]]
name = "sleeps"
sampler = "sleepy.py:sampler"
claim = {{ notion = "pure-dp", epsilon = 1.0 }}
search = false
[[audit.pairs]]
d0 = [0.0]
d1 = [1.0]
[[audit]]
name = "ok"
mechanism = "laplace"
search = false
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "sleepy.py").write_text(textwrap.dedent("""\
        import time
        def sampler(d, n, rng):
            if n > 1000:  # the audit's draws, not the 256-row probes
                time.sleep(3600)
            return float(d[0]) + rng.laplace(size=n)
        """))
    return tmp_path


@pytest.mark.slow  # waits for the limit: 10 s, long enough for the other audit under load
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_test_past_its_time_limit_is_an_error_and_the_others_run(project, workers, capsys):
    (project / "s.toml").write_text(SUITE.format(limit="time_limit = 10"))
    start = time.monotonic()
    status = main(["run", str(project / "s.toml"), "--out", str(project / "out"),
                   "--workers", workers, "-q"])
    assert status == 2 and time.monotonic() - start < 120, capsys.readouterr().err
    records = {r["audit"]: r for r in read_document(project / "out" / "results.json")["audits"]}
    assert "ran longer than its time limit of 10 s" in records["sleeps"]["error"]
    assert records["ok"]["verdict"] == "consistent"


@pytest.mark.slow
def test_the_run_option_replaces_the_suites(project):
    (project / "s.toml").write_text(SUITE.format(limit="time_limit = 3600"))
    run = run_suites([project / "s.toml"], time_limit=1.5)
    (sleeps,) = [r for r in run.records if r.audit == "sleeps"]
    assert "time limit of 1.5 s" in sleeps.error


@pytest.mark.parametrize("value", ["0", "-1", '"1h"', "true", "inf"])
def test_bad_time_limits_are_suite_errors(project, value):
    (project / "s.toml").write_text(SUITE.format(limit=f"time_limit = {value}"))
    with pytest.raises(SuiteError, match="time_limit"):
        load_suite(project / "s.toml")


def test_a_bad_command_line_time_limit_is_one_line(project, capsys):
    (project / "s.toml").write_text(SUITE.format(limit=""))
    assert main(["run", str(project / "s.toml"), "--time-limit", "0"]) == 2
    assert "argument --time-limit: expected a number of seconds > 0" in capsys.readouterr().err
