"""The stopping keys of a suite (sequential, power, require_power) and their overrides."""

from __future__ import annotations

import pytest

from dpaudit.audit.plan import plan_suite
from dpaudit.results.hierarchy import AuditPoint, Certificate, TestResult
from dpaudit.results.provenance import RecordedPair
from tests.support import evidence
from dpaudit.results.options import RunOptions
from dpaudit.stats.sequential import StoppingRule
from dpaudit.suite.spec import SuiteError, parse_suite

AUDIT = {"name": "a", "mechanism": "laplace", "params": {"epsilon": 1.0}, "samples": 2000,
         "white_box": False, "search": False}


def suite(suite_keys=None, **audit_keys):
    return parse_suite({"suite": dict(suite_keys or {}), "audit": [{**AUDIT, **audit_keys}]})


def test_defaults_are_sequential_with_a_power_target_of_1_1():
    s = suite()
    assert s.stopping == StoppingRule(True, 1.1, False) and s.audits[0].stopping is None


def test_an_audits_keys_override_the_suites_key_by_key():
    s = suite({"sequential": False, "power": 1.3}, power=1.05)
    assert s.stopping == StoppingRule(False, 1.3, False)
    assert s.audits[0].stopping == StoppingRule(False, 1.05, False)
    assert suite({"power": False}).stopping.power is None


@pytest.mark.parametrize("keys, message", [
    ({"power": 1.0}, "key 'power': expected a number > 1"),
    ({"power": "1.1"}, "key 'power': expected a number > 1"),
    ({"sequential": 1}, "key 'sequential': expected true or false"),
    ({"require_power": True, "power": False}, "key 'require_power'"),
])
def test_bad_values_name_the_key(keys, message):
    with pytest.raises(SuiteError, match=message):
        suite(keys)


def test_run_options_override_every_suite_and_reach_the_tasks():
    s = suite({"power": 1.3}, power=1.05)
    tasks, _ = plan_suite(s, RunOptions(fixed_n=True, power=1.2, require_power=True))
    assert {t.stopping for t in tasks} == {StoppingRule(False, 1.2, True)}
    assert tasks[0].point.power == StoppingRule(False, 1.2, True)
    assert tasks[0].point.power.to_json() == {"sequential": False, "power": 1.2,
                                              "require_power": True}
    with pytest.raises(ValueError, match="power must be a number > 1"):
        RunOptions(power=0.9)


def _point(rule: StoppingRule, detectable: float) -> AuditPoint:
    cert = Certificate.measured(notion="dp", delta=0.0, alpha=None, claimed_epsilon=1.0,
                                evidence=evidence(0.9, detectable=detectable))
    test = TestResult(pair=RecordedPair("p", [0], [1]), pair_index=0, claim=None,
                      true_epsilon=None, samples=1000, seed=0, seconds=0.0, warnings=(),
                      error=None, certificates=(cert,))
    return AuditPoint(suite="s", suite_file="s.toml", audit="a", audit_index=0,
                      mechanism="laplace", parameters={}, defaulted_parameters={},
                      expect="consistent", confidence=0.95, per_certificate_confidence=0.95,
                      distinguisher="auto", note="", sweep=None, power=rule,
                      tests=(test,)).judged()


def test_an_underpowered_certificate_fails_its_point_only_when_power_is_required():
    weak = _point(StoppingRule(power=1.1), detectable=1.5)
    assert weak.underpowered and weak.met_expectation and weak.verdict == "consistent"
    required = _point(StoppingRule(power=1.1, require_power=True), detectable=1.5)
    assert required.underpowered and not required.met_expectation
    strong = _point(StoppingRule(power=1.1, require_power=True), detectable=1.05)
    assert not strong.underpowered and strong.met_expectation
    (record,) = required.records()
    assert record.underpowered is True and record.power.require_power is True
