"""The dpsgd family's one-run mode: Dirac gradient canaries in the ABLQ mechanism."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.claims import GDP
from dpaudit.mechanisms.canaries import CanaryPlan, run_canary_audit
from dpaudit.mechanisms.canaries.simulated import DPSGDCanaryRun
from dpaudit.mechanisms.dpsgd import DeterministicABLQ, PoissonABLQ, ShuffleABLQ

DELTA = 1e-5


def test_deterministic_batches_are_the_gaussian_shift():
    """One canary step per epoch: the log-likelihood ratio is a Gaussian shift of
    √E/σ (in units of its own sd), exactly the claim's 'gaussian' accountant."""
    mech = DeterministicABLQ(n=100, batch_size=10, epochs=4, noise_multiplier=2.0,
                             accountant="gaussian")
    plan = CanaryPlan(4000, DELTA, seed=0)
    bits = np.arange(4000) % 2 == 0
    scores = DPSGDCanaryRun(plan, mech)(0, bits)
    shift = (scores[bits].mean() - scores[~bits].mean()) / scores[~bits].std()
    assert shift == pytest.approx(np.sqrt(4) / 2.0, rel=0.1)
    ev = run_canary_audit(plan, mech.claim(), DPSGDCanaryRun(plan, mech))
    assert isinstance(mech.claim(), GDP) and 0 < ev.bound < ev.claimed


@pytest.mark.parametrize("cls", [PoissonABLQ, ShuffleABLQ])
def test_views_and_samplers_give_one_score_per_canary(cls):
    for view in ("all", "final"):
        mech = cls(n=100, batch_size=10, epochs=2, noise_multiplier=1.0, view=view,
                   accountant="rdp")
        plan = CanaryPlan(50, DELTA, seed=1)
        scores = DPSGDCanaryRun(plan, mech)(0, np.arange(50) % 2 == 0)
        assert scores.shape == (50,) and np.all(np.isfinite(scores))
