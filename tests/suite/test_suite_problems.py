"""A suite file's problems, all at once and with "did you mean" (issue 26, item 4): every bad
audit of a file is listed — its name, its key, the fix — and a misspelt name gets the closest
known one; the file stays an error as a whole (none of its audits runs)."""

from __future__ import annotations

import textwrap

import pytest

from dpaudit.api import run_suites
from dpaudit.audit.select import AuditFilter, SelectionError
from dpaudit.suite import SuiteError, load_suite

BAD = """
[suite]
samples = 1000
[[audit]]
name = "a"
mechanism = "laplac"
[[audit]]
name = "fine"
mechanism = "laplace"
[[audit]]
name = "b"
mechanism = "laplace"
params = { epsiln = 1.0 }
[[audit]]
name = "c"
mechanism = "laplace"
distinguisher = "logistc"
[[audit]]
name = "d"
mechanism = "laplace"
expct = "violation"
[[audit]]
name = "e"
mechanism = "laplace"
expect = "violaton"
[[audit]]
name = "f"
mechanism = "laplace"
pairs = "worstcase"
[[audit]]
name = "fine"
mechanism = "laplace"
"""


def _write(tmp_path, text: str):
    path = tmp_path / "bad.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_every_bad_audit_is_listed_with_a_hint(tmp_path):
    path = _write(tmp_path, BAD)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    error = info.value
    lines = str(error).splitlines()
    assert lines[0] == f"{path}: 7 problems (all are listed; the file runs once every one is " \
                       f"fixed):"
    assert len(error.problems) == 7 and len(lines) == 8
    expected = [("audit #0 'a': key 'mechanism'", "did you mean 'laplace'"),
                ("audit #2 'b': key 'params'", "did you mean 'epsilon'"),
                ("audit #3 'c': key 'distinguisher'", "did you mean 'logistic'"),
                ("audit #4 'd': key 'expct'", "did you mean 'expect'"),
                ("audit #5 'e': key 'expect'", "did you mean 'violation'"),
                ("audit #6 'f': key 'pairs'", "did you mean 'worst-case'"),
                ("audit #7 'fine': key 'name'", "audit #1 already uses it")]
    for line, problem, (where, hint) in zip(lines[1:], error.problems, expected):
        assert line.startswith(f"  - {where}") and hint in line, line
        assert problem.startswith(f"{path}: {where}") and "\n" not in problem


def test_one_problem_stays_one_line(tmp_path):
    path = _write(tmp_path, '[[audit]]\nname = "a"\nmechanism = "laplac"\n')
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert "\n" not in str(info.value) and info.value.problems == (str(info.value),)


def test_a_run_reports_the_file_as_one_error_listing_all(tmp_path):
    run = run_suites([str(_write(tmp_path, BAD))])
    (suite,) = run.suites
    assert suite.error.startswith(f"{tmp_path / 'bad.toml'}: 7 problems")
    assert not run.records  # the good audits do not run: the file is fixed first


def test_only_patterns_get_did_you_mean():
    with pytest.raises(SelectionError, match="'classic/laplace-eps1' matches no audit "
                                             r"\(did you mean 'classic/laplace-eps-1'"):
        AuditFilter(("classic/laplace-eps1",)).check([("classic", "laplace-eps-1"),
                                                       ("classic", "gaussian")])
