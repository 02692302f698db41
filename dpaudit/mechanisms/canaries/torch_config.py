"""The hand-over for users without a training script of their own: an Opacus configuration.

:class:`OpacusConfig` holds what ``PrivacyEngine.make_private`` and a plain training loop take
— batch size, noise multiplier, clip norm, epochs, learning rate, Poisson or shuffled batches,
the accountant — and :meth:`OpacusConfig.training` turns it, with the user's model factory and
dataset, into the :class:`~dpaudit.mechanisms.canaries.torch_common.OpacusTraining` the canary
harnesses take: ``build`` makes the model, an SGD optimizer and a ``DataLoader`` over the
dataset it is given and calls ``make_private``; ``train`` runs ``epochs`` passes of
``loss(model(x), y)`` (cross-entropy by default).  It is the textbook Opacus recipe, nothing
more: a script with its own loop hands over its own ``build`` and ``train`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from dpaudit.mechanisms.canaries.certify import CanaryError
from dpaudit.mechanisms.canaries.torch_common import OpacusTraining, require_torch
from dpaudit.util import validation

ACCOUNTANTS = ("prv", "rdp", "gdp")


@dataclass(frozen=True)
class OpacusConfig:
    """An Opacus DP-SGD configuration (module docstring)."""

    batch_size: int
    noise_multiplier: float
    epochs: int
    max_grad_norm: float = 1.0
    lr: float = 0.1
    poisson_sampling: bool = True
    accountant: str = "prv"

    def __post_init__(self):
        try:
            validation.number("batch_size", self.batch_size, minimum=1, integer=True)
            validation.number("epochs", self.epochs, minimum=1, integer=True)
            for name in ("noise_multiplier", "max_grad_norm", "lr"):
                validation.number(name, getattr(self, name), minimum=0.0,
                                  strict_minimum=True)
            validation.choice("accountant", self.accountant, ACCOUNTANTS)
        except ValueError as exc:
            raise CanaryError(str(exc)) from None

    def training(self, model: Callable[[], Any], dataset,
                 loss: Callable | None = None) -> OpacusTraining:
        """The hand-over for ``model()`` (a fresh ``nn.Module`` per run) trained on
        ``dataset`` with ``loss`` (default ``nn.CrossEntropyLoss()``)."""
        if not callable(model):
            raise CanaryError("model must be a function returning a fresh torch.nn.Module")

        def build(data):
            torch = require_torch()
            from opacus import PrivacyEngine
            from torch.utils.data import DataLoader

            net = model()
            optimizer = torch.optim.SGD(net.parameters(), lr=self.lr)
            loader = DataLoader(data, batch_size=int(self.batch_size), shuffle=True)
            engine = PrivacyEngine(accountant=self.accountant)
            net, optimizer, loader = engine.make_private(
                module=net, optimizer=optimizer, data_loader=loader,
                noise_multiplier=float(self.noise_multiplier),
                max_grad_norm=float(self.max_grad_norm),
                poisson_sampling=bool(self.poisson_sampling))
            return net, optimizer, loader, engine

        def train(net, optimizer, loader):
            torch = require_torch()
            loss_fn = loss or torch.nn.CrossEntropyLoss()
            net.train()
            for _ in range(int(self.epochs)):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss_fn(net(x), y).backward()
                    optimizer.step()

        return OpacusTraining(build, train, dataset)


__all__ = ["ACCOUNTANTS", "OpacusConfig"]
