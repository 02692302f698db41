"""Canary audits of a real Opacus training (a tiny MLP on load_digits): white-box gradient
canaries, black-box input canaries, and every wrong hand-over as one line.  Without the
``opacus`` extra the tests skip, saying why."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

WHY = "canary audits of PyTorch training need torch and opacus: pip install 'dpaudit[opacus]'"
torch = pytest.importorskip("torch", reason=WHY)
pytest.importorskip("opacus", reason=WHY)

from dpaudit.claims.get_epsilon import GetEpsilonClaim  # noqa: E402
from dpaudit.mechanisms.canaries import CanaryError, CanaryPlan, run_canary_audit  # noqa: E402
from dpaudit.mechanisms.canaries.torch_common import OpacusTraining  # noqa: E402
from dpaudit.mechanisms.canaries.torch_gradient import GradientCanaryRun  # noqa: E402
from dpaudit.mechanisms.canaries.torch_input import InputCanaryRun  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "canary_opacus"))
import digits  # noqa: E402

DELTA = 1e-5


@pytest.fixture(scope="module")
def data():
    return digits.digits_dataset(limit=300)


def _training(data, **kw):
    opts = dict(batch_size=1000, noise_multiplier=3.0, epochs=5, hidden=32, lr=1.0)
    opts.update(kw)
    build, train = digits.configured(**opts)
    return OpacusTraining(build, train, data)


def _audit(plan, run):
    return run_canary_audit(plan, lambda: GetEpsilonClaim(run.engine.get_epsilon,
                                                          source="opacus prv"), run)


@pytest.mark.slow
@pytest.mark.parametrize("view", ["all", "final"])
def test_gradient_canaries_in_full_batch_training(data, view):
    plan = CanaryPlan(200, DELTA, seed=0)
    run = GradientCanaryRun(plan, _training(data), view=view)
    ev = _audit(plan, run)
    assert run.steps == 5 and len(set(run.coordinates.tolist())) == 200
    # 3 always-zero pixels × 32 hidden units: the first 96 coordinates are untouched
    assert run.interference < 1.0
    assert 0.0 < ev.bound < ev.claimed  # signal found, claim (Opacus's ε) not violated
    assert ev.claimed == pytest.approx(run.engine.get_epsilon(DELTA))


@pytest.mark.slow
def test_gradient_canaries_are_reproducible(data):
    plan = CanaryPlan(100, DELTA, seed=4)
    a = GradientCanaryRun(plan, _training(data))(0, np.arange(100) % 2 == 0)
    b = GradientCanaryRun(plan, _training(data))(0, np.arange(100) % 2 == 0)
    assert np.array_equal(a, b)


@pytest.mark.slow
def test_a_broken_noise_multiplier_is_a_violation(data):
    """The accountant records σ = 3, the noise added has σ = 0.3 (a bug in the user's own
    optimizer code): the claim is false, and one run shows it."""
    def build(dataset):
        model, optimizer, loader, engine = digits.build(dataset, batch_size=1000,
                                                        noise_multiplier=3.0, hidden=32)

        def add_noise():
            for p in optimizer.params:
                noise = torch.normal(0.0, 0.3 * optimizer.max_grad_norm,
                                     size=p.summed_grad.shape)
                p.grad = (p.summed_grad + noise).view_as(p)

        optimizer.add_noise = add_noise
        return model, optimizer, loader, engine

    plan = CanaryPlan(200, DELTA, seed=1)
    run = GradientCanaryRun(plan, OpacusTraining(build, lambda *a: digits.train(*a, epochs=5),
                                                 data))
    ev = _audit(plan, run)
    # the claim's curve is rejected; 200 canaries in one run cap the bound valid for any
    # mechanism near 3, so when it does not exceed the claim the evidence says why
    assert ev.violation
    assert ev.bound > ev.claimed or "rejects the claim's trade-off curve" in ev.describe()


@pytest.mark.slow
def test_input_canaries_run_black_box(data):
    plan = CanaryPlan(100, DELTA, seed=2)
    run = InputCanaryRun(plan, _training(data, batch_size=64, noise_multiplier=1.0,
                                         epochs=2))
    ev = _audit(plan, run)
    assert not ev.violation and run.canaries[0].shape == (100, 64)


def _bad(data, build=None, train=None):
    good_build, good_train = digits.configured(batch_size=1000, noise_multiplier=3.0,
                                               epochs=2, hidden=32)
    return OpacusTraining(build or good_build, train or good_train, data)


@pytest.mark.parametrize("case, message", [
    ("raises", "run 0: the training raised RuntimeError: out of memory"),
    ("three", r"must return \(model, optimizer, data_loader, privacy_engine\), got tuple of 3"),
    ("plain-sgd", "returned a SGD as the optimizer"),
    ("own-data", "trains on another dataset than the one it was given"),
    ("evaluates", "never reached the optimizer: do not evaluate on the dataset"),
])
def test_wrong_hand_overs_are_one_line(data, case, message):
    good_build = digits.configured(batch_size=1000, noise_multiplier=3.0, epochs=2,
                                   hidden=32)[0]

    def build(dataset):
        if case == "three":
            return good_build(dataset)[:3]
        if case == "plain-sgd":
            model, _, loader, engine = good_build(dataset)
            return model, torch.optim.SGD(model.parameters(), lr=0.1), loader, engine
        if case == "own-data":
            return good_build(data)
        return good_build(dataset)

    def train(model, optimizer, loader):
        if case == "raises":
            raise RuntimeError("out of memory\nmore lines")
        digits.train(model, optimizer, loader, epochs=1)
        if case == "evaluates":
            digits.accuracy(model, data)  # fine: other data
            for i in range(10):
                loader.dataset[i]

    plan = CanaryPlan(50, DELTA)
    with pytest.raises(CanaryError, match=message) as info:
        _audit(plan, GradientCanaryRun(plan, _bad(data, build, train)))
    assert "\n" not in str(info.value)


@pytest.mark.slow
def test_an_opacus_configuration_is_a_hand_over(data):
    from torch import nn

    from dpaudit.mechanisms.canaries.torch_config import OpacusConfig

    config = OpacusConfig(batch_size=1000, noise_multiplier=3.0, epochs=3, lr=1.0)
    plan = CanaryPlan(100, DELTA, seed=5)
    run = GradientCanaryRun(plan, config.training(
        lambda: nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 10)), data))
    ev = _audit(plan, run)
    assert run.steps == 3 and not ev.violation
    with pytest.raises(CanaryError, match="noise_multiplier"):
        OpacusConfig(batch_size=10, noise_multiplier=0.0, epochs=1)
    with pytest.raises(CanaryError, match="accountant"):
        OpacusConfig(batch_size=10, noise_multiplier=1.0, epochs=1, accountant="moments")
