"""Opacus with ``loss_reduction="mean"`` under add/remove neighbours (Opacus issues 571, 819).

**The pipeline.**  The usual Opacus recipe with a mean loss::

    loader = DataLoader(TensorDataset(x), batch_size=b)
    model, optimizer, loader = PrivacyEngine(accountant="prv").make_private(
        module=nn.Linear(d, 1, bias=False), optimizer=SGD(lr=1), data_loader=loader,
        noise_multiplier=σ, max_grad_norm=C, poisson_sampling=True, loss_reduction="mean")

``make_private`` sets the sample rate q(m) = 1/len(loader) = 1/⌈m/b⌉ and, for the mean,
``expected_batch_size`` E(m) = int(m·q(m)) from the dataset's size m; every
``DPOptimizer.step`` releases (Σ clipped per-sample gradients + N(0, σ²C²I_d)) / E(m).  The
privacy engine reports the accountant's ε for (σ, q(m), T) — the claim
(:class:`~dpaudit.mechanisms.external.opacus_mechanisms.OpacusClaim`, for the run on
``n`` records).  Under add/remove the neighbour has m = n + 1 records, and E(n + 1) may differ
from E(n): the noise scale σC/E(m) itself tells the two datasets apart, whatever the records
are — a leak no accountant sees (it analyses the sum's sensitivity C against noise σC, the
scale being post-processing only when it does not depend on the data).

**The records** are zero gradients (a dataset is a list of m zeros, or ``{"values": [0.0],
"counts": [m]}``): then every released coordinate is N(0, (σC/E(m))²), independent of which
records a step drew, and the output law depends on m alone.  The adversary's view is the
``parameters``·``steps`` released gradient coordinates (d parameters, T steps).

**Vectorised** (``sample``): one training of a model with W = :data:`WIDTH` parameters
(W/d views side by side) on m zero records of width W releases W/d independent views per step
— with zero data the per-sample gradients vanish, so the views share nothing but the
data-independent divisor and their noise coordinates are i.i.d.  The feature tensor is one zero
row expanded to m (no m × W copy).  The accountant's history after each training is checked
against (σ, q(m), T) (:class:`~.opacus_mechanisms.OpacusAccountingMismatch`).

Exact curve: N(0, s₀²I_k) vs N(0, s₁²I_k), s = σC/E(m), k = d·T
(:class:`~dpaudit.exact.IsotropicGaussianProfile`, both directions), 0 when E(n) = E(n + 1).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.mechanisms.base import NeighbourPair
from dpaudit.mechanisms.external.common import (ExternalMechanism, library_version, require,
                                                seed_from)
from dpaudit.mechanisms.external.opacus_mechanisms import (ACCOUNTANTS, OpacusAccountingMismatch,
                                                           OpacusClaim, torch_quietly)
from dpaudit.mechanisms.parameters import choice_parameter
from dpaudit.mechanisms.sgld.parameters import count_parameter, positive_parameter
from dpaudit.neighbours import NeighbourRelation
from dpaudit.neighbours.relations import add_remove_one

#: parameters of one vectorised training (W/d views per training, one zero row expanded)
WIDTH = 20_000


def opacus_rate(m: int, b: int) -> tuple[float, int]:
    """(q, expected batch size) ``make_private`` derives for m records in batches of b."""
    q = 1.0 / math.ceil(m / b)
    return q, int(m * q)


class OpacusMeanReduction(ExternalMechanism):
    """Opacus trained with ``loss_reduction="mean"`` on zero records (module docstring)."""

    name = "opacus-mean-reduction"
    library = "opacus"
    seedable = True
    audit_representation = False
    wraps = ("opacus PrivacyEngine.make_private(poisson_sampling=True, loss_reduction='mean') "
             "+ DPOptimizer")

    n = count_parameter(1000, "records of the run whose ε Opacus reports (the claim)", 1)
    batch_size = count_parameter(10, "the DataLoader's batch size b", 1)
    steps = count_parameter(10, "optimizer steps T", 1)
    parameters = count_parameter(10, "model parameters d in the view (d·T released "
                                 "coordinates)", 1)
    noise_multiplier = positive_parameter(1.0, "Opacus's noise_multiplier σ")
    clip_norm = positive_parameter(1.0, "Opacus's max_grad_norm C")
    accountant = choice_parameter("prv", tuple(ACCOUNTANTS), "the privacy engine's "
                                  "accountant: prv (Opacus's default), rdp or gdp")

    def check_parameters(self) -> None:
        require("torch")
        if self.parameters > WIDTH:
            raise ValueError(f"parameters must be at most {WIDTH}, got {self.parameters}")

    # -- contract -----------------------------------------------------------------------------
    def claim(self) -> OpacusClaim:
        q, _ = opacus_rate(self.n, self.batch_size)
        return OpacusClaim(accountant=self.accountant,
                           history=((float(self.noise_multiplier), q, int(self.steps)),),
                           source=f"opacus.accountants.{ACCOUNTANTS[self.accountant]}",
                           version=library_version("opacus"))

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation("add-remove-one", "add or remove one record (here: zero "
                                 "gradients, so only the dataset's size matters)",
                                 add_remove_one)

    def validate_dataset(self, dataset) -> np.ndarray:
        from dpaudit.mechanisms.dpsgd.datasets import expand_gradients

        values = expand_gradients(dataset)
        if values.size < 1 or np.any(values != 0.0):
            raise ValueError(f"{self.name}: a dataset is m ≥ 1 zero gradients (the adapter "
                             f"audits the noise scale σC/E(m)), e.g. {{\"values\": [0.0], "
                             f"\"counts\": [m]}}")
        return values

    def worst_case_pairs(self) -> list[NeighbourPair]:
        return [NeighbourPair("one-more-record", {"values": [0.0], "counts": [self.n]},
                              {"values": [0.0], "counts": [self.n + 1]},
                              "n vs n + 1 zero records: the divisor int(m·q(m)) of the "
                              "mean reduction moves with m")]

    def scale(self, m: int) -> float:
        """σC/E(m): the released coordinates' standard deviation on m zero records."""
        _, expected = opacus_rate(m, self.batch_size)
        return float(self.noise_multiplier) * float(self.clip_norm) / expected

    def exact_epsilon(self, d0, d1, delta: float = 0.0):
        """The pair's ε(δ) (module docstring)."""
        from dpaudit.exact import IsotropicGaussianProfile

        s0, s1 = self.scale(len(d0)), self.scale(len(d1))
        if s0 == s1:
            return 0.0
        return float(IsotropicGaussianProfile(0.0, s0, 0.0, s1, dim=self.parameters * self.steps)
                     .symmetric().epsilon(delta))

    # -- sampling -----------------------------------------------------------------------------
    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        from dpaudit.util import validation

        m = len(self.validate_dataset(dataset))
        n = validation.draw_request(n, rng)
        torch = require("torch")
        per_training = WIDTH // self.parameters
        out = []
        with torch_quietly(torch):
            for _ in range(math.ceil(n / per_training)):
                out.append(self._train(torch, m, seed_from(rng)))
        return np.concatenate(out)[:n]

    def _train(self, torch, m: int, seed: int) -> np.ndarray:
        """One training on m zero records: (W/d, d·T) views (module docstring)."""
        from opacus import PrivacyEngine
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        d, T = self.parameters, self.steps
        width = (WIDTH // d) * d
        model = nn.Linear(width, 1, bias=False)
        nn.init.zeros_(model.weight)
        engine = PrivacyEngine(accountant=self.accountant)
        loader = DataLoader(TensorDataset(torch.zeros(1, width).expand(m, width)),
                            batch_size=self.batch_size,
                            generator=torch.Generator().manual_seed(seed))
        model, optimizer, loader = engine.make_private(
            module=model, optimizer=torch.optim.SGD(model.parameters(), lr=1.0),
            data_loader=loader, noise_multiplier=float(self.noise_multiplier),
            max_grad_norm=float(self.clip_norm), poisson_sampling=True,
            loss_reduction="mean", noise_generator=torch.Generator().manual_seed(seed ^ 0x5EED))
        grads, batches = [], iter(loader)
        for _ in range(T):
            try:
                (xb,) = next(batches)
            except StopIteration:  # a new epoch
                batches = iter(loader)
                (xb,) = next(batches)
            optimizer.zero_grad()
            model(xb).sum().backward()
            optimizer.step()
            grads.append(model._module.weight.grad[0].numpy().astype(float))
        q, _ = opacus_rate(m, self.batch_size)
        history = tuple((float(s), float(r), int(k)) for s, r, k in engine.accountant.history)
        if history != ((float(self.noise_multiplier), q, T),):
            raise OpacusAccountingMismatch(f"the training's accountant recorded {history}, "
                                           f"expected {((self.noise_multiplier, q, T),)}")
        # (T, width) -> (views, d·T): view v holds parameters v·d … v·d + d − 1 at every step
        return np.stack(grads).reshape(T, width // d, d).transpose(1, 0, 2).reshape(-1, d * T)


MECHANISMS = (OpacusMeanReduction,)

__all__ = ["MECHANISMS", "OpacusMeanReduction", "WIDTH", "opacus_rate"]
