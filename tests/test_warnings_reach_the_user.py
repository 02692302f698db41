"""Issue 23, item B: the warnings an audit records reach the user — as pytest warnings from
the ``dpaudit_audit`` fixture and from collected suite items, as lines of ``dpaudit run``'s
final summary (deduplicated, capped), and as ``AuditResult.warnings``."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dpaudit.results.recorded_warnings import DpauditWarning, distinct_warnings, warning_lines

# the in-process pytester runs below restore sys.modules afterwards: what an audit imports
# (numpy.fft, scipy.linalg …) must be imported before them, or a later import in this
# process fails ("cannot load module more than once per process")
import dpaudit.api  # noqa: E402,F401
import dpaudit.distinguish.lower_bound  # noqa: E402,F401
import scipy.linalg  # noqa: E402,F401

pytest_plugins = ["pytester"]

#: a sampler that draws from its own generator: dpaudit warns that it ignores the rng
OWN_RNG = ("import numpy as np\n"
           "def sampler(d, n, rng):\n"
           "    return float(d[0]) + np.random.default_rng().laplace(0.0, 1.0, size=n)\n")

#: claim 5 against a true ε of 1 (the draws differ run to run: the verdict must not)
SUITE = ('[[audit]]\nname = "own-rng"\nsampler = "own_rng.py:sampler"\n'
         'claim = { notion = "pure-dp", epsilon = 5.0 }\nsamples = 1000\n'
         '[[audit.pairs]]\nname = "shift"\nd0 = [0.0]\nd1 = [1.0]\n')


def _own_rng(d, n, rng):
    return float(d[0]) + np.random.default_rng().laplace(0.0, 1.0, size=n)


@pytest.mark.slow
def test_audit_result_exposes_distinct_warning_texts():
    from dpaudit.api import audit_sampler

    result = audit_sampler(_own_rng, epsilon=5.0, pairs=[([0.0], [1.0]), ([0.0], [-1.0])],
                           samples=1000, workers=1)
    rng_warnings = [w for w in result.warnings if "only the named pairs" not in w]
    assert len(rng_warnings) == 1 and "ignores the rng" in rng_warnings[0]
    # a sampler has no dataset space: the result says only the named pairs were audited
    assert sum("only the named pairs were audited" in w for w in result.warnings) == 1


@pytest.mark.slow
def test_fixture_issues_dpaudit_warnings_into_pytests_summary(pytester):
    pytester.makepyfile(own_rng=OWN_RNG)
    pytester.makepyfile(test_own="""
        from own_rng import sampler

        def test_own_rng(dpaudit_audit):
            dpaudit_audit.sampler(sampler, epsilon=5.0, pairs=[([0.0], [1.0])], samples=1000)
    """)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*warnings summary*", "*test_own_rng*",
                                 "*DpauditWarning: dpaudit: *(pair *): *ignores the rng*"])


@pytest.mark.slow
def test_suite_items_issue_dpaudit_warnings_into_pytests_summary(pytester):
    pytester.makepyfile(own_rng=OWN_RNG)
    pytester.makefile(".toml", suite=SUITE)
    result = pytester.runpytest("--dpaudit-suites", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*warnings summary*", "suite.toml::own-rng",
                                 "*DpauditWarning: dpaudit: suite/own-rng (pair shift): "
                                 "*ignores the rng*"])


@pytest.mark.slow
def test_dpaudit_run_prints_each_distinct_warning_once(tmp_path, capsys, monkeypatch):
    from dpaudit.cli.commands import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "own_rng.py").write_text(OWN_RNG)
    (tmp_path / "a.toml").write_text(SUITE + '[[audit.pairs]]\nname = "back"\n'
                                     'd0 = [0.0]\nd1 = [-1.0]\n')
    assert main(["run", "a.toml", "--out", str(tmp_path / "out"), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("  warning: ")
             and "only the named pairs" not in line]
    assert len(lines) == 1, out  # two pairs, one text: printed once, naming both pairs
    # a sampler has no dataset space to search: the run says the named pairs were all it saw
    assert out.count("  warning: a/own-rng: only the named pairs were audited") == 1, out
    assert lines[0].startswith("  warning: a/own-rng (pair shift, back): ")
    assert "ignores the rng" in lines[0]


def _point(audit, *tests):
    return SimpleNamespace(suite="s", audit=audit, tests=[
        SimpleNamespace(pair_name=pair, warnings=texts) for pair, texts in tests])


def test_warning_lines_dedupe_per_audit_and_cap():
    points = [_point("a", ("p", ["W1", "W2"]), ("q", ["W1"])), _point("b", ("p", ["W1"]))]
    assert [str(w) for w in distinct_warnings(points)] == [
        "s/a (pair p, q): W1", "s/a (pair p): W2", "s/b (pair p): W1"]
    many = [_point("a", ("p", [f"W{i}" for i in range(25)]))]
    lines = warning_lines(many, limit=20)
    assert lines[0].startswith("25 distinct warning(s)") and len(lines) == 22
    assert lines[-1] == "  … and 5 more in results.json"
    assert warning_lines([_point("a", ("p", []))]) == []


def test_issue_warnings_warns_dpaudit_warnings():
    from dpaudit.results.recorded_warnings import issue_warnings

    with pytest.warns(DpauditWarning, match=r"dpaudit: s/a \(pair p\): W1"):
        issue_warnings([_point("a", ("p", ["W1"]))])
    import dpaudit
    assert dpaudit.DpauditWarning is DpauditWarning
