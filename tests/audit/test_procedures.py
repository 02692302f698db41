"""The audit-procedure seam (dpaudit.audit.procedures): every kind of audit plans its tests and
its family share, runs through the same backends and journal, and reports typed evidence; the
exact-curve check is the second kind that ships."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from dpaudit.api import run_suites
from dpaudit.audit.plan import plan_suite
from dpaudit.audit.procedures.base import AuditProcedure, PointSetup, Task
from dpaudit.audit.procedures.exact_curve import ExactCurveTask
from dpaudit.audit.procedures.pair import PairTask
from dpaudit.audit.procedures.table import kinds, procedure
from dpaudit.audit.run import judged_points
from dpaudit.backends.local import LocalBackend
from dpaudit.evidence.exact_curve import EpsilonBracket, ExactCurveEvidence
from dpaudit.spec.kinds import BUILTIN_KINDS, known_kinds
from dpaudit.suite.spec import SuiteError, parse_suite

SUITE = {"suite": {"name": "kinds", "samples": 20_000, "seed": 3}}


def suite(*audits, **top):
    return parse_suite({**SUITE, **top, "audit": list(audits)}, "kinds.toml")


def run(s):
    tasks, info = plan_suite(s)
    results, _ = LocalBackend(1).run(tasks, [])
    return tasks, info, judged_points(tasks, results)


def test_the_kinds_a_suite_may_name_are_the_procedures_table():
    assert tuple(kinds()[:len(BUILTIN_KINDS)]) == BUILTIN_KINDS
    assert set(known_kinds()) == set(kinds())
    for kind in kinds():
        assert procedure(kind).kind == kind and procedure(kind).summary
    with pytest.raises(ValueError, match="did you mean 'exact-curve'"):
        procedure("exact_curve")
    with pytest.raises(SuiteError, match=r"kind.*did you mean 'exact-curve'"):
        suite({"name": "a", "kind": "exact_curv", "mechanism": "laplace"})


def test_an_exact_curve_check_samples_nothing_and_spends_no_share_of_the_family():
    s = suite({"name": "pair", "mechanism": "laplace", "params": {"epsilon": 1.0},
               "search": False},
              {"name": "exact", "kind": "exact-curve", "mechanism": "laplace",
               "params": {"epsilon": 1.0}, "delta": [0.0, 0.01]})
    tasks, info, points = run(s)
    assert [type(t) for t in tasks] == [PairTask, ExactCurveTask]
    assert info.family_size == info.tests == 2  # the pair test and its white-box test only
    assert info.per_certificate_confidence == pytest.approx(1 - 0.05 / 2)
    exact = points[1]
    assert exact.procedure == "exact-curve" and exact.verdict == "consistent"
    (test,) = exact.tests
    assert test.procedure == "exact-curve" and test.family_members == 0 and test.samples == 0
    assert test.sequential is None and test.error is None
    for c in test.certificates:
        (evidence,) = c.evidence
        assert isinstance(evidence, ExactCurveEvidence) and not evidence.certified
        assert evidence.role == "exact" and "closed form" in evidence.describe()
        # Laplace at ε = 1 on its worst-case pair: ε(0) = 1 exactly, ε(0.01) < 1
        assert c.claimed_epsilon == 1.0 and c.bound <= 1.0
        assert c.detectable_epsilon == pytest.approx(1.0 / (1 - 1e-6))
        assert c.underpowered is False
    assert test.certificates[0].bound == pytest.approx(1.0 - 1e-6, rel=1e-9)  # less tolerance
    assert test.curve is not None and test.curve.dense_delta.exact  # the figure's dense curve


def test_a_claim_below_the_exact_curve_is_a_violation_without_one_sample():
    s = suite({"name": "bug", "kind": "exact-curve", "mechanism": "laplace-scale-epsilon",
               "params": {"epsilon": 0.5}, "expect": "violation"})
    _, _, (point,) = run(s)
    (c,) = [c for _, c in point.certificates()]
    assert point.verdict == "violation" and point.met_expectation
    assert c.bound == pytest.approx(2.0, rel=1e-5) and c.claimed_epsilon == 0.5


def test_a_pair_without_an_exact_curve_is_an_error_naming_what_is_missing():
    s = suite({"name": "no-curve", "kind": "exact-curve", "mechanism": "naive-float-laplace",
               "params": {"epsilon": 1.0}})
    _, _, (point,) = run(s)
    assert point.verdict == "error"
    (test,) = point.tests
    assert "no exact or bracketed curve" in test.error and "exact_epsilon" in test.error


class _Bracketed(AuditProcedure):
    """Not registered: only to show the ABC refuses a procedure that misses a method."""


def test_the_abc_refuses_an_incomplete_procedure_and_task():
    with pytest.raises(TypeError):
        _Bracketed()
    with pytest.raises(TypeError):
        Task()  # abstract
    assert PointSetup([], None).defaulted == {}


def test_a_bracket_decides_only_beyond_its_width_and_tolerance():
    bracket = EpsilonBracket(2.0, 2.1, "pessimistic/optimistic PLD", tolerance=1e-9)
    e = ExactCurveEvidence(delta=1e-5, alpha=None, bracket=bracket)
    assert e.bound == pytest.approx(2.0 * (1 - 1e-9))
    assert e.detectable_epsilon(1.9) == pytest.approx(1.9 / (1 - 1e-9) + 0.1)
    assert e.interval() == (2.0, 2.1) and "∈ [2, 2.1]" in e.describe()
    assert ExactCurveEvidence.from_json(json.loads(json.dumps(e.to_json()))) == e
    with pytest.raises(ValueError, match="lower ≤ upper"):
        EpsilonBracket(2.1, 2.0, "x")
    infinite = ExactCurveEvidence(0.0, None, EpsilonBracket.closed_form(math.inf))
    assert infinite.bound == math.inf


def test_a_numerically_bracketed_mechanism_is_judged_on_its_bracket(tmp_path):
    code = Path(tmp_path / "bracketed.py")
    code.write_text('''
from dpaudit.evidence.exact_curve import EpsilonBracket
from dpaudit.mechanisms.capabilities import BracketedEpsilon
from dpaudit.mechanisms.classic import LaplaceMechanism


class Bracketed(BracketedEpsilon, LaplaceMechanism):
    """Laplace whose curve is only known to lie in [ε − 0.2, ε + 0.1] (a numerical bracket)."""

    name = "bracketed-laplace"

    def epsilon_bracket(self, d0, d1, delta):
        e = self.exact_epsilon(d0, d1, delta)
        return EpsilonBracket(e - 0.2, e + 0.1, "a test's bracket", tolerance=0.0)


class Leaky(Bracketed):
    """Its pair's curve lies in [ε + 0.8, ε + 1.1]: above its claim ε."""

    name = "leaky-bracketed-laplace"

    def epsilon_bracket(self, d0, d1, delta):
        e = self.exact_epsilon(d0, d1, delta)
        return EpsilonBracket(e + 0.8, e + 1.1, "a test's bracket", tolerance=0.0)
''', encoding="utf-8")
    (tmp_path / "s.toml").write_text('''
[suite]
name = "bracketed"

[[audit]]
name = "inside"
kind = "exact-curve"
mechanism = "bracketed.py:Bracketed"
params = { epsilon = 1.0 }

[[audit]]
name = "claims-too-little"
kind = "exact-curve"
mechanism = "bracketed.py:Leaky"
params = { epsilon = 1.0 }
expect = "violation"
''', encoding="utf-8")
    run_ = run_suites([str(tmp_path / "s.toml")])
    inside, bad = run_.points
    # the claim (1) lies inside [0.8, 1.1]: not a violation, and only a true ε above
    # 1 + 0.3 would surely be flagged
    (c,) = [c for _, c in inside.certificates()]
    assert inside.verdict == "consistent" and c.bound == pytest.approx(0.8)
    assert c.detectable_epsilon == pytest.approx(1.3)
    assert c.underpowered is True  # 1.3 > 1.1 × the claim: the bracket is too wide to tell
    (c,) = [c for _, c in bad.certificates()]  # bracket [1.8, 2.1] above the claim 1
    assert bad.verdict == "violation" and c.bound == pytest.approx(1.8)


def test_a_procedure_checks_its_options_before_anything_runs():
    s = suite({"name": "a", "mechanism": "laplace", "options": {"threshold": 1.0}})
    with pytest.raises(SuiteError, match="'pair' audit takes no options"):
        plan_suite(s)
    with pytest.raises(SuiteError, match="options"):
        suite({"name": "a", "mechanism": "laplace", "options": 3})


class _NothingToTest(AuditProcedure):
    """A procedure that finds nothing to test (for the plan's guard)."""

    kind = "test-nothing"
    summary = "tests nothing"

    def setup(self, audit, params, memory_limit):
        return PointSetup([], None)

    def family_members(self, audit, setup):
        return 1

    def tasks(self, point, audit, setup, context):
        return []


def test_a_point_its_procedure_makes_no_test_for_is_an_error_not_a_pass():
    import dataclasses

    from dpaudit.audit.procedures import table

    table.register_procedure(_NothingToTest)
    try:
        s = suite({"name": "a", "mechanism": "laplace"})
        s = dataclasses.replace(s, audits=(dataclasses.replace(s.audits[0],
                                                               kind="test-nothing"),))
        tasks, info, (point,) = run(s)
        assert len(tasks) == 1 and point.verdict == "error"
        assert "made no tests" in point.tests[0].error
        assert point.tests[0].procedure == "test-nothing"
    finally:
        table._TABLE.pop("test-nothing", None)
