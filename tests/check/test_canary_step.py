"""dpaudit check's canary step: one run of canaries where the mechanism has canary runs,
skipped elsewhere; a training only canaries can audit is refused with one line."""

from __future__ import annotations

import pytest

from dpaudit.check.canary_step import CHECK_CANARIES, step_canary
from dpaudit.check.runner import check_mechanism
from dpaudit.mechanisms.registry import create_mechanism

pytest.importorskip("dp_accounting")


@pytest.mark.slow
def test_the_deterministic_pipeline_with_the_poisson_claim_fails_the_canary_step():
    mech = create_mechanism("dpsgd-deterministic", n=1000, batch_size=10, noise_multiplier=0.8)
    step = step_canary(mech, mech.claim(), seed=0)
    assert step.verdict == "violation" and f"one run of {CHECK_CANARIES} canaries" in step.summary
    assert step.data["delta"] == 1e-6 and step.data["evidence"]["kind"] == "canary"
    # the sound ε_LB (any mechanism) is below the claim here: the verdict says why instead
    # — the one run rejects the Poisson claim's trade-off curve — and never "ε_LB > claimed"
    evidence = step.data["evidence"]
    assert 0 < evidence["bound"] <= step.data["claimed_epsilon"]
    assert "≤ claimed" in step.summary and "the claim is rejected: one-run-fdp rejects the " \
        "claim's trade-off curve" in step.summary
    assert any(line.startswith("one-run-fdp:") for line in step.lines)
    assert step_canary(mech, mech.claim(), seed=0).data == step.data  # the seed decides


def test_its_own_gaussian_claim_passes_and_says_what_one_run_can_detect():
    mech = create_mechanism("dpsgd-deterministic", n=1000, batch_size=10, noise_multiplier=0.8,
                            accountant="gaussian")
    step = step_canary(mech, mech.claim(), seed=0)
    assert step.verdict == "consistent"
    assert "could detect ε ≥" in step.summary or "no true ε this run" in step.summary
    assert 0 < step.data["evidence"]["bound"] < step.data["claimed_epsilon"]


def test_skipped_without_canary_runs_or_a_claim():
    laplace = create_mechanism("laplace")
    assert step_canary(laplace, laplace.claim(), 0).verdict == "skipped"
    mech = create_mechanism("dpsgd-poisson", n=100, batch_size=10)
    assert "step 1 failed" in step_canary(mech, None, 0).summary


def test_a_training_only_canaries_can_audit_is_refused_in_one_line():
    from dpaudit.mechanisms.canaries.torch_mechanism import OpacusTrainingMechanism

    class Training(OpacusTrainingMechanism):
        def dataset(self):
            return [0]

        def build(self, dataset):
            raise AssertionError("never built")

        def train(self, model, optimizer, loader):
            raise AssertionError("never trained")

    with pytest.raises(ValueError, match='audited by canaries in one run only: give its '
                                         'audit kind = "canary"') as info:
        check_mechanism(Training(), samples=1000)
    assert "\n" not in str(info.value)
