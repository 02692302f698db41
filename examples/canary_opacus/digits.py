"""A user's Opacus training script, as dpaudit's canary audit takes it: a small MLP on
scikit-learn's bundled ``load_digits`` (no download), DP-SGD through Opacus.

The two functions a canary audit needs are ``build(dataset)`` and ``train(model, optimizer,
loader)`` (docs/canaries.md); everything else here is the user's own choice.
:class:`DigitsTraining` is the same training as an audit target of every route (a suite's
``mechanism = "…/digits.py:DigitsTraining"`` with ``kind = "canary"``,
``audit_mechanism(DigitsTraining, kind="canary")``, the pytest fixture).  Used by
docs/canaries.md, audits/external/opacus.toml, benchmarks/canaries.py and the tests of
tests/mechanisms/canaries/ and tests/audit/.
"""

from __future__ import annotations

import functools

import torch
from opacus import PrivacyEngine
from opacus.accountants.utils import get_noise_multiplier
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from dpaudit.mechanisms.canaries.torch_mechanism import OpacusTrainingMechanism
from dpaudit.mechanisms.parameters import Parameter
from dpaudit.util import validation


def digits_dataset(limit: int | None = None) -> TensorDataset:
    """The 1797 8×8 digits, pixels scaled to [0, 1], as a TensorDataset (x, y)."""
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    x = torch.tensor(x / 16.0, dtype=torch.float32)
    y = torch.tensor(y, dtype=torch.long)
    if limit is not None:
        x, y = x[:limit], y[:limit]
    return TensorDataset(x, y)


def mlp(hidden: int = 256) -> nn.Module:
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))


def noise_for(epsilon: float, delta: float, sample_rate: float, epochs: int,
              accountant: str = "prv") -> float:
    """σ at which Opacus's accountant reports ``epsilon`` at ``delta`` after ``epochs``."""
    return float(get_noise_multiplier(target_epsilon=epsilon, target_delta=delta,
                                      sample_rate=sample_rate, epochs=epochs,
                                      accountant=accountant))


def build(dataset, *, batch_size: int, noise_multiplier: float, max_grad_norm: float = 1.0,
          lr: float = 0.5, hidden: int = 256, poisson_sampling: bool = True,
          accountant: str = "prv"):
    """The user's set-up: model, optimizer, loader, ``make_private``."""
    model = mlp(hidden)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True)
    engine = PrivacyEngine(accountant=accountant)
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader,
        noise_multiplier=noise_multiplier, max_grad_norm=max_grad_norm,
        poisson_sampling=poisson_sampling)
    return model, optimizer, loader, engine


def train(model, optimizer, loader, *, epochs: int) -> None:
    """The user's loop: cross-entropy, ``epochs`` passes."""
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()
            optimizer.step()


def accuracy(model, dataset) -> float:
    x, y = dataset.tensors
    with torch.no_grad():
        return float((model(x).argmax(dim=1) == y).float().mean())


def configured(*, batch_size: int, noise_multiplier: float, epochs: int, **kwargs):
    """(build, train) with the parameters bound, as a canary audit takes them."""
    return (functools.partial(build, batch_size=batch_size,
                              noise_multiplier=noise_multiplier, **kwargs),
            functools.partial(train, epochs=epochs))


def _flag(name, value):
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def _limit(name, value):
    return None if value is None else validation.positive_int(name, value, 2)


class DigitsTraining(OpacusTrainingMechanism):
    """The digits MLP trained with Opacus, as an audit target (module docstring).  The
    defaults are a full-batch training (every record in each of 50 steps) at the σ for which
    Opacus's PRV accountant reports ε ≈ 4 at δ = 1e-5 (``noise_for(4, 1e-5, 1.0, 50)``)."""

    batch_size = Parameter(4000, validation.positive_int,
                           "batch size (≥ the dataset with its canaries: every record, every step)")
    noise_multiplier = Parameter(7.676, validation.positive, "Opacus's noise multiplier σ")
    epochs = Parameter(50, validation.positive_int, "epochs")
    lr = Parameter(2.0, validation.positive, "SGD's learning rate")
    hidden = Parameter(256, validation.positive_int, "hidden units")
    poisson_sampling = Parameter(True, _flag, "Opacus's Poisson sampling (else a shuffled "
                                              "DataLoader, still accounted as Poisson)")
    limit = Parameter(None, _limit, "train on the first `limit` digits only (None: all 1797)")

    def dataset(self):
        return digits_dataset(self.limit)

    def build(self, dataset):
        return build(dataset, batch_size=self.batch_size,
                     noise_multiplier=self.noise_multiplier, lr=self.lr, hidden=self.hidden,
                     poisson_sampling=self.poisson_sampling)

    def train(self, model, optimizer, loader):
        train(model, optimizer, loader, epochs=self.epochs)
