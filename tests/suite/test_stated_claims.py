"""A claim stated for a registered mechanism (a library's budget, an accountant, a number):
``claim = { … }`` in a suite row judges the mechanism against it, in every kind of audit."""

from __future__ import annotations

import pytest

from dpaudit.api import run_suites
from dpaudit.suite.spec import SuiteError, parse_suite


def _suite(tmp_path, body: str):
    path = tmp_path / "stated.toml"
    path.write_text("[suite]\nname = \"stated\"\nsamples = 20000\nseed = 5\n" + body,
                    encoding="utf-8")
    return str(path)


def test_a_stated_claim_replaces_the_mechanisms_own_in_both_kinds(tmp_path):
    run = run_suites([_suite(tmp_path, '''
[[audit]]
name = "too-small-sampled"
mechanism = "laplace"
params = { epsilon = 1.0 }
claim = { notion = "pure-dp", epsilon = 0.5 }
search = false
expect = "violation"

[[audit]]
name = "too-small-exact"
kind = "exact-curve"
mechanism = "laplace"
params = { epsilon = 1.0 }
claim = { notion = "pure-dp", epsilon = 0.5 }
expect = "violation"

[[audit]]
name = "from-params"
kind = "exact-curve"
mechanism = "laplace"
sweep = { epsilon = [0.5, 1.0] }
claim = { notion = "pure-dp" }
''')])
    sampled, exact, *swept = run.points
    assert sampled.verdict == exact.verdict == "violation" and sampled.met_expectation
    for point in (sampled, exact):
        test = point.tests[0]
        assert test.claim["text"] == "pure-dp(epsilon=0.5)"
        assert all(c.claimed_epsilon == 0.5 for c in test.certificates)
    # a number the stated claim leaves out comes from each point's params: consistent
    assert [p.verdict for p in swept] == ["consistent", "consistent"]
    assert [p.tests[0].certificates[0].claimed_epsilon for p in swept] == [0.5, 1.0]


def test_a_bad_stated_claim_refuses_the_file_naming_the_key():
    with pytest.raises(SuiteError, match="key 'claim'.*did you mean 'pure-dp'"):
        parse_suite({"audit": [{"name": "a", "mechanism": "laplace",
                                "claim": {"notion": "pure_dp", "epsilon": 1.0}}]})
