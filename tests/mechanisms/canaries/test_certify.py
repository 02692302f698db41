"""The canary procedure (plan, bits, looks, stopping, bad input) on the simulated oracles."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpaudit.claims import GDP
from dpaudit.claims.conversions import dp_to_gdp_mu
from dpaudit.mechanisms.canaries import (CanaryError, CanaryEvidence, CanaryPlan, Statistic,
                                         inclusion_bits, run_canary_audit)
from dpaudit.mechanisms.canaries.simulated import GaussianDiracRun

DELTA = 1e-5


def test_bits_depend_on_seed_and_run_only():
    plan = CanaryPlan(1000, DELTA, runs=2, seed=7)
    a, b = inclusion_bits(plan, 0), inclusion_bits(plan, 1)
    assert np.array_equal(a, inclusion_bits(CanaryPlan(1000, DELTA, runs=2, seed=7), 0))
    assert not np.array_equal(a, b) and 400 < a.sum() < 600


def test_plan_family_and_looks():
    plan = CanaryPlan(500, DELTA, runs=5)
    assert plan.looks == (1, 2, 4, 5) and plan.family_size == 8
    assert plan.member_significance() == pytest.approx(0.05 / 8)
    with pytest.raises(ValueError, match="independent canary scores"):
        CanaryPlan(500, DELTA, statistics=("gdp-threshold",))
    with pytest.raises(ValueError, match="looks must"):
        CanaryPlan(500, DELTA, runs=3, looks=(1, 2))


def test_gaussian_oracle_certifies_below_the_truth_and_reproducibly():
    mu = dp_to_gdp_mu(4.0, DELTA)
    plan = CanaryPlan(1000, DELTA, seed=1, independent_scores=True,
                      statistics=("one-run-fdp", "one-run-eps-delta", "gdp-threshold"))
    ev = run_canary_audit(plan, GDP(mu), GaussianDiracRun(plan, mu))
    again = run_canary_audit(plan, GDP(mu), GaussianDiracRun(plan, mu))
    assert ev == again
    assert 0.5 < ev.bound < 4.0 and not ev.violation
    by = {r.statistic: r for r in ev.results}
    assert by["one-run-fdp"].bound > by["one-run-eps-delta"].bound
    assert "1000 canaries in 1 run" in ev.describe()
    back = CanaryEvidence.from_json(json.loads(json.dumps(ev.to_json())))
    assert back.describe() == ev.describe() and back.bound == ev.bound
    assert sum(ev.histogram.counts_in) + sum(ev.histogram.counts_out) == 1000


def test_a_false_claim_is_a_violation_and_stops_early():
    """The mechanism is 2-GDP, the claim 0.3-GDP: the first look certifies it."""
    plan = CanaryPlan(1000, DELTA, runs=4, seed=2)
    calls = []

    def run(index, bits):
        calls.append(index)
        return GaussianDiracRun(plan, 2.0)(index, bits)

    ev = run_canary_audit(plan, GDP(0.3), run)
    assert ev.violation and ev.stopped_after == 1 and calls == [0]


def test_a_correct_claim_uses_every_run():
    plan = CanaryPlan(300, DELTA, runs=3, seed=3)
    ev = run_canary_audit(plan, GDP(1.0), GaussianDiracRun(plan, 1.0))
    assert not ev.violation and ev.stopped_after == 3
    assert max(r.canaries for r in ev.results) <= 900


@pytest.mark.parametrize("run, message", [
    (lambda i, bits: 1 / 0, "run 0: the training raised ZeroDivisionError: division by zero"),
    (lambda i, bits: np.zeros(3), r"shape \(3,\), expected \(100,\)"),
    (lambda i, bits: "scores", "not one score per canary|shape"),
    (lambda i, bits: np.full(100, np.nan), "100 canary scores are not finite"),
])
def test_bad_training_functions_are_one_line(run, message):
    plan = CanaryPlan(100, DELTA)
    with pytest.raises(CanaryError, match=message) as info:
        run_canary_audit(plan, GDP(1.0), run)
    assert "\n" not in str(info.value)


def test_a_failing_accountant_is_one_line():
    from dpaudit.claims.get_epsilon import GetEpsilonClaim

    def broken(delta):
        raise RuntimeError("no history")

    plan = CanaryPlan(100, DELTA)
    with pytest.raises(CanaryError, match="the claim: .*raised RuntimeError: no history"):
        run_canary_audit(plan, lambda: GetEpsilonClaim(broken, source="engine"),
                         GaussianDiracRun(plan, 1.0))


def test_power_of_the_idealised_experiment():
    plan = CanaryPlan(1000, DELTA, seed=1)
    mu = dp_to_gdp_mu(1.0, DELTA)
    ev = run_canary_audit(plan, GDP(mu), GaussianDiracRun(plan, mu))
    detectable = ev.detectable_epsilon()
    assert 1.0 < detectable < 20.0
    assert ev.detectable_epsilon(2.0) > detectable


def test_a_violation_below_the_bound_says_why():
    """μ = 2 canaries against a 1.5-GDP claim at δ = 1e-5: the claim's curve is rejected,
    while the bound valid for any mechanism stays below the claim's ε(δ): a violation that
    says why, never "ε_LB > claimed"; against another claimed ε only the bound speaks."""
    plan = CanaryPlan(4000, DELTA, seed=0, independent_scores=True,
                      statistics=("gdp-threshold",))
    ev = run_canary_audit(plan, GDP(1.5), GaussianDiracRun(plan, 2.0))
    assert ev.violation and ev.bound <= ev.claimed and ev.rejects(ev.claimed)
    (r,) = ev.results
    assert r.family.mu > 1.5  # "not μ-GDP for any μ ≤ …" above the claimed μ
    reason = ev.rejection_reason(ev.claimed)
    assert reason.startswith("gdp-threshold rejects the claim's trade-off curve: the "
                             "certified point of rule in iff score ")
    assert f"; violation: {reason}" in ev.describe()
    assert not ev.rejects(ev.claimed * 2) and ev.rejection_reason(ev.claimed * 2) is None
    assert ev.rejects(ev.bound / 2) and ev.rejection_reason(ev.bound / 2) is None


def test_a_delta_above_the_tests_level_is_said():
    """One run at δ ≥ the tests' level: ε_LB is necessarily 0 (a mechanism revealing every
    canary with probability δ is (0, δ)-DP) and the evidence says so."""
    plan = CanaryPlan(1000, 1e-3, seed=0, confidence=0.99)
    ev = run_canary_audit(plan, GDP(1.0), GaussianDiracRun(plan, 1.0))
    assert ev.bound == 0 and len(ev.notes) == 1
    assert "is not below the one-run tests' level" in ev.describe()
    assert run_canary_audit(CanaryPlan(1000, DELTA), GDP(1.0),
                            GaussianDiracRun(plan, 1.0)).notes == ()


def test_looks_merge_into_one_result_per_statistic():
    """Several looks: each statistic's largest bound, its rejection, its largest family
    figure — and the stop at the first look that rejects the claim."""
    plan = CanaryPlan(500, DELTA, runs=4, seed=4)
    ev = run_canary_audit(plan, GDP(0.5), GaussianDiracRun(plan, 1.5))
    assert sorted(r.statistic for r in ev.results) == sorted(s.value for s in plan.statistics)
    assert ev.violation and ev.stopped_after < 4
    assert any(r.rejection for r in ev.results)


def test_results_written_before_the_sound_bound_are_read():
    """A record whose bound was the family's ε(δ) (``curve_family``): the sound bound is
    recomputed from its counts or point, the old number becomes the family figure."""
    old = {"kind": "canary", "delta": 1e-3, "claimed": 0.6427, "plan": {}, "stopped_after": 1,
           "results": [
               {"statistic": "gdp-threshold", "bound": 512.0, "canaries": 10000, "runs": 1,
                "guesses": None, "correct": None, "significance": 0.003, "curve_family":
                "claim-profile", "rule": {"text": "in iff score ≥ 1.36", "threshold": 1.36,
                                          "forward": True, "fpr_upper": 0.079,
                                          "fnr_upper": 0.771}},
               {"statistic": "one-run-eps-delta", "bound": 0.0, "canaries": 10000, "runs": 1,
                "guesses": [5, 5], "correct": 10, "significance": 1e-4,
                "curve_family": "eps-delta", "rule": None}]}
    ev = CanaryEvidence.from_json(old)
    by = {r.statistic: r for r in ev.results}
    assert by["gdp-threshold"].bound == pytest.approx(np.log((1 - 1e-3 - 0.771) / 0.079))
    assert by["gdp-threshold"].family.epsilon == 512.0 and ev.violation
    assert by["one-run-eps-delta"].bound == 0.0
    back = CanaryEvidence.from_json(json.loads(json.dumps(ev.to_json())))
    assert back == ev
