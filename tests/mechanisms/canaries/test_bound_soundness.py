"""The canary evidence's ε_LB is a lower bound on ε(δ) valid for any mechanism (issue 34,
part 3): finite and below the exact ε(δ) where the claim's family rejects every member, never
above the truth on Gaussian sources, and 0 on a non-Gaussian source whose ε(δ) is 0 — where a
family's ε(δ) (the number the evidence used to report) is not."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpaudit.claims import GDP
from dpaudit.claims.conversions import gdp_to_dp_epsilon
from dpaudit.mechanisms.canaries import CanaryPlan, run_canary_audit
from dpaudit.mechanisms.canaries.design import run_seed
from dpaudit.mechanisms.canaries.simulated import GaussianDiracRun

ALL = ("one-run-fdp", "one-run-eps-delta", "gdp-threshold")


@pytest.fixture(scope="module")
def deterministic_poisson():
    """dpsgd-deterministic (a Gaussian shift μ = 1/σ = 1.25 per canary) against its Poisson
    claim, 10 000 canaries at δ = 1e-3, the gdp-threshold statistic alone (where the bound
    was the claim-profile family's search cap, 512, with overflow warnings)."""
    pytest.importorskip("dp_accounting")
    from dpaudit.mechanisms.registry import create_mechanism

    mech = create_mechanism("dpsgd-deterministic", n=1000, batch_size=10,
                            noise_multiplier=0.8)
    plan = CanaryPlan(10_000, 1e-3, statistics=("gdp-threshold",), independent_scores=True,
                      seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow (or any other) warning on the way
        evidence = run_canary_audit(plan, mech.claim(), mech.canary_source(plan, {}).run)
    (pair,) = mech.worst_case_pairs()
    truth = mech.epsilon_bracket(pair.d0, pair.d1, 1e-3)
    return evidence, truth


def test_every_member_rejected_gives_a_finite_sound_bound(deterministic_poisson):
    evidence, truth = deterministic_poisson
    assert truth.lower == truth.upper == pytest.approx(4.1454, abs=1e-3)
    assert 0.5 < evidence.bound <= truth.lower  # finite, and below the exact ε(δ)
    (result,) = evidence.results
    assert result.family.all_rejected and result.family.name == "claim-profile"
    # the bound is the (ε, δ) conversion of its certified point
    a, b = result.rule["fpr_upper"], result.rule["fnr_upper"]
    assert evidence.bound == pytest.approx(max(math.log((1 - 1e-3 - a) / b),
                                               math.log((1 - 1e-3 - b) / a)))
    assert evidence.violation and evidence.bound > evidence.claimed


def test_the_all_rejected_case_is_said_in_words(deterministic_poisson):
    evidence, _ = deterministic_poisson
    (result,) = evidence.results
    text = evidence.describe()
    assert text.startswith("canary audit, 10000 canaries in 1 run: gdp-threshold: rule in "
                           "iff score ")
    assert f"→ ε_LB = {evidence.bound:.4g} (any mechanism); every curve of the claim-profile " \
           f"family rejected: the certified point lies below 1 − " \
           f"{result.family.floor_delta:.4g} − α, under every scaled curve at δ = 0.001 " \
           f"(claimed 0.6427)" in text
    assert "512" not in text and "inf" not in text
    assert 0.05 < result.family.floor_delta < 0.1  # δ(0) of the Poisson claim


@pytest.mark.parametrize("seed", range(4))
def test_a_gaussian_source_never_certifies_above_its_true_epsilon(seed):
    """μ = 2 Dirac canaries (exact ε(δ) known), claim a weaker GDP: every statistic's bound
    and the evidence's stay ≤ the true ε(δ) (the benchmark measures the rate over 500 seeds,
    benchmarks/canaries.py soundness)."""
    delta, mu = 1e-5, 2.0
    truth = gdp_to_dp_epsilon(mu, delta)
    plan = CanaryPlan(4000, delta, statistics=ALL, independent_scores=True, seed=seed)
    evidence = run_canary_audit(plan, GDP(3.0), GaussianDiracRun(plan, mu))
    assert all(0 <= r.bound <= truth for r in evidence.results)
    assert 0 < evidence.bound <= truth and not evidence.violation


def test_an_epsilon_zero_source_gets_no_positive_bound():
    """A canary revealed with probability p = 0.2 and pure noise otherwise is (0, p)-DP per
    canary: ε(δ) = 0 at δ ≥ p.  The GDP family rejects μ > 0 from its certified points (the
    labelled figure may be large), but no bound in the ε_LB column is above 0."""
    plan = CanaryPlan(4000, 0.2, statistics=ALL, independent_scores=True, seed=3)

    def revealing(index, bits):
        rng = np.random.default_rng(run_seed(plan, index))
        revealed = rng.random(bits.size) < 0.2
        return np.where(revealed, np.where(bits, 10.0, -10.0), rng.standard_normal(bits.size))

    evidence = run_canary_audit(plan, GDP(1.0), revealing)
    assert evidence.bound == 0 and all(r.bound == 0 for r in evidence.results)
    figures = [r.family for r in evidence.results if r.family is not None]
    assert max(f.epsilon for f in figures) > 1.0  # what the old ε_LB column reported
    assert evidence.violation  # the claim (1-GDP) is false, and rejected: said why
    assert "rejects the claim's trade-off curve" in evidence.describe()
