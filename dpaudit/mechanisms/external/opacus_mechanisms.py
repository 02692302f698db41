"""Adapters for Opacus (``pip install 'dpaudit[opacus]'``): DP-SGD as shipped, batch sampler,
per-sample clipping, noise and accountant all Opacus's own code.

**The pipeline.**  A tiny model: one weight w and the loss ℓ(w; x) = w·x, so record x's
per-example gradient is x (the gradient-canary threat model of the ``dpsgd`` family, in which
the analyses are tight).  The user's code is the usual Opacus recipe::

    loader = DataLoader(TensorDataset(x), batch_size=b, shuffle=True)
    model, optimizer, loader = PrivacyEngine(accountant=...).make_private(
        module=nn.Linear(1, 1, bias=False), optimizer=SGD(lr=1), data_loader=loader,
        noise_multiplier=σ, max_grad_norm=C, poisson_sampling=..., loss_reduction="sum")
    for epoch in range(E):
        for (xb,) in loader:
            optimizer.zero_grad(); model(xb).sum().backward(); optimizer.step()

:class:`OpacusPoisson` is ``poisson_sampling=True`` (Opacus swaps the loader for its
``DPDataLoader``, whose batch sampler is ``UniformWithReplacementSampler``: every record joins
every step independently with probability q = 1/len(loader) = b/n); :class:`OpacusShuffle` is
``poisson_sampling=False`` (Opacus keeps the plain shuffled ``DataLoader``: a fresh
``RandomSampler`` permutation per epoch cut into fixed batches of b).  Either way
``DPOptimizer.step`` clips every per-sample gradient g to g·min(1, C/(‖g‖ + 10⁻⁶)) (flat
clipping), sums them, adds ``torch.normal(0, σC)`` to every coordinate and steps, and the
privacy engine's accountant records (σ, q) for the step: **the claim** (:class:`OpacusClaim`)
is what ``privacy_engine.get_epsilon(δ)`` reports after such a training — the PRV accountant
(Opacus's default), the RDP accountant or the GDP (CLT) accountant, Opacus's code, recorded
with its version.  A shuffled pipeline is thus reported with the Poisson ε, as Opacus does.

**The output** (``view``): ``"all"`` — the E·T noisy gradients DPOptimizer applies,
``p.grad`` after each ``step()`` (with SGD at learning rate 1 from w₀ = 0 the iterates are
w_t = −Σ_{s≤t} g_s, a bijection: every iterate released); ``"final"`` — the trained weight
w_{E·T} read off the model.  Datasets, the zero-out relation and the canary pairs are the
``dpsgd`` family's (:mod:`dpaudit.mechanisms.dpsgd.mechanisms`), except that the canary's
gradient is 4C and the shuffle pair's other records −2C, so that Opacus's clipping acts on
both.

**How the runs are vectorised** (``sample``), and why each output row is an independent run.
Training one run per output would cost E·T optimizer steps per row (≈0.5 ms each); instead
one Opacus training does K = :data:`RUNS` runs at once.  The model is ``nn.Linear(K, 1,
bias=False)``: run k owns weight coordinate k, and a record of run k with gradient x enters the
batch as the feature row x·e_k, so its per-sample gradient (computed by Opacus's
GradSampleModule hooks) is x·e_k:

* *clipping* — the row's norm is |x|, so flat clipping scales it exactly as the one-weight
  model of run k would, and coordinate k of the clipped sum is the sum over run k's batch;
* *noise* — ``DPOptimizer.add_noise`` draws one ``torch.normal`` tensor of shape (1, K): i.i.d.
  N(0, σ²C²) coordinates, one per run;
* *batches, Poisson* — Opacus's ``DPDataLoader`` is built over K copies of the dataset (record
  (k, i) is record i of run k; batch size K·b, so len(loader) = T and the sample rate Opacus
  uses and accounts is b/n, checked against the claim's history).  Its
  ``UniformWithReplacementSampler`` draws one independent coin per record and step
  (``torch.rand(K·n) < q``), so the restriction to run k's block is exactly a Poisson-sampled
  epoch of n records, independent across blocks;
* *batches, shuffle* — every run draws its own epochs: K iterators over the batch sampler of
  the very ``DataLoader`` the privacy engine returned, each a fresh ``RandomSampler``
  permutation (``torch.randperm`` from the loader's generator), advanced in lockstep — no
  permutation is shared between runs (one permutation of K·n records would not give fixed
  batches of b per run).

So coordinate k of each step's ``p.grad`` has the law of run k's noisy gradient, independent of
the other coordinates given nothing.  The batches are read off ``loader.batch_sampler`` and the
rows indexed directly: for a ``TensorDataset`` the DataLoader's fetch + collate is exactly that
indexing (tests/mechanisms/test_opacus_adapter.py checks it against iterating the loader), and
skipping its per-item Python loop is what makes 10⁵ runs affordable.  Opacus's accountant hook
runs on every step of the vectorised training too; the sample rate and step count it records
are checked against the claim's (:class:`OpacusAccountingMismatch` otherwise).

Reproducibility: ``seedable`` — the data and noise ``torch.Generator``\\ s are seeded from the
numpy ``rng`` (Opacus's ``secure_mode`` would use torchcsprng and refuse a seed; as in most
training scripts it is off).  Float32 throughout (torch's default dtype, as a user trains);
the float representation of the outputs is not audited (``audit_representation = False``):
the float attack on Opacus's noise is what ``secure_mode`` addresses, outside this suite.

Exact curves: those of the ``dpsgd`` family's twin (``dpsgd-poisson`` / ``dpsgd-shuffle`` with
the same parameters) on the clipped datasets — the law Opacus's outputs have if it implements
DP-SGD as documented (the 10⁻⁶ in Opacus's clip factor shrinks the clipped canary by a
relative 2.5·10⁻⁷, far below the curves' stated accuracy); ``None`` where the twin has none
or ``dp_accounting`` (the Poisson curve) is not installed; ``epsilon_bracket`` is the
twin's [lower, upper] on the pair's ε(δ) (the ``BracketedEpsilon`` capability).
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import Claim
from dpaudit.mechanisms.base import NeighbourPair, Parameter
from dpaudit.mechanisms.capabilities import BracketedEpsilon
from dpaudit.mechanisms.external.common import (ExternalMechanism, library_version, require,
                                                seed_from)
from dpaudit.mechanisms.parameters import choice_parameter
from dpaudit.neighbours import NeighbourRelation

#: runs per vectorised training (a K × K feature matrix per step, 1 MB at K = 500; measured
#: fastest among 125…2000 for b = 1)
RUNS = 500
#: Opacus's accountants by the name ``PrivacyEngine(accountant=...)`` takes
ACCOUNTANTS = {"prv": "PRVAccountant", "rdp": "RDPAccountant", "gdp": "GaussianAccountant"}
#: the canary's raw gradient and the shuffle pair's other records, in units of C (clipped)
CANARY, OTHERS = 4.0, -2.0


#: the adversary's views (as the dpsgd family's ``VIEWS``; not imported from it, so that
#: importing the adapters — every suite's ``requires`` check does — stays light)
VIEWS = ("all", "final")


def _count(default: int, doc: str, minimum: int) -> Parameter:
    return Parameter(default, lambda name, value: int(validation.number(
        name, value, minimum=minimum, integer=True)), doc)


def _positive(default: float, doc: str) -> Parameter:
    return Parameter(default, lambda name, value: validation.number(
        name, value, minimum=0.0, strict_minimum=True), doc)


class OpacusAccountingMismatch(RuntimeError):
    """The vectorised training's accountant recorded another history than the claim's."""


@contextlib.contextmanager
def torch_quietly(torch):
    """One intra-op thread (the matrices are small; workers are processes) and Opacus's
    warnings (secure_mode off, a new dataset per PrivacyEngine) silenced."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        torch.set_num_threads(threads)


def _private_pipeline(torch, *, values, batch_size: int, poisson: bool, runs: int,
                      noise_multiplier: float, clip_norm: float, accountant: str,
                      seed: int):
    """(engine, model, optimizer, loader, features) of ``runs`` vectorised runs (module
    docstring) built with ``PrivacyEngine.make_private``; ``features`` is the loader's
    TensorDataset tensors."""
    from opacus import PrivacyEngine
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    data_gen = torch.Generator().manual_seed(seed)
    noise_gen = torch.Generator().manual_seed(seed ^ 0x5EED)
    x = torch.as_tensor(values, dtype=torch.float32)
    if poisson:  # K copies: record (k, i) is record i of run k
        tensors = (torch.arange(runs).repeat_interleave(x.numel()), x.repeat(runs))
        loader = DataLoader(TensorDataset(*tensors), batch_size=runs * batch_size,
                            generator=data_gen)
    else:
        tensors = (x,)
        loader = DataLoader(TensorDataset(x), batch_size=batch_size, shuffle=True,
                            generator=data_gen)
    model = nn.Linear(runs, 1, bias=False)
    nn.init.zeros_(model.weight)
    engine = PrivacyEngine(accountant=accountant)
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=torch.optim.SGD(model.parameters(), lr=1.0),
        data_loader=loader, noise_multiplier=noise_multiplier, max_grad_norm=clip_norm,
        poisson_sampling=poisson, noise_generator=noise_gen, loss_reduction="sum")
    return engine, model, optimizer, loader, tensors


@functools.lru_cache(maxsize=64)
def trained_history(poisson: bool, n: int, batch_size: int, epochs: int,
                    noise_multiplier: float, clip_norm: float, accountant: str) -> tuple:
    """The accountant's history after one real training of the pipeline (module docstring's
    user loop, iterating the loader Opacus returned): ((σ, q, steps), …)."""
    torch = require("torch")
    from opacus import PrivacyEngine
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    with torch_quietly(torch):
        gen = torch.Generator().manual_seed(0)
        data = TensorDataset(torch.zeros(n, 1))
        model = nn.Linear(1, 1, bias=False)
        engine = PrivacyEngine(accountant=accountant)
        model, optimizer, loader = engine.make_private(
            module=model, optimizer=torch.optim.SGD(model.parameters(), lr=1.0),
            data_loader=DataLoader(data, batch_size=batch_size, shuffle=True, generator=gen),
            noise_multiplier=noise_multiplier, max_grad_norm=clip_norm,
            poisson_sampling=poisson, noise_generator=torch.Generator().manual_seed(1),
            loss_reduction="sum")
        for _ in range(epochs):
            for (xb,) in loader:
                optimizer.zero_grad()
                model(xb).sum().backward()
                optimizer.step()
    return tuple((float(s), float(q), int(k)) for s, q, k in engine.accountant.history)


@functools.lru_cache(maxsize=1024)
def accountant_epsilon(accountant: str, history: tuple, delta: float) -> float:
    """ε(δ) of Opacus's accountant ``accountant`` holding ``history``."""
    require("opacus")
    from opacus.accountants import create_accountant

    acc = create_accountant(mechanism=accountant)
    acc.history = [tuple(h) for h in history]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(acc.get_epsilon(delta=delta))


@dataclass(frozen=True)
class OpacusClaim(Claim):
    """(ε(δ), δ)-DP for every δ > 0, ε(δ) = ``get_epsilon(δ)`` of Opacus's accountant
    ``accountant`` holding ``history`` — the (noise multiplier, sample rate, steps) entries its
    optimizer hook recorded during a training of the audited pipeline.  Every Opacus
    accountant analyses Poisson subsampling (add/remove neighbours); the PRV accountant returns
    the upper end of its error bracket (``eps_error`` 0.01), the RDP accountant converts over
    its default orders, the GDP accountant is the central-limit approximation (not an upper
    bound).  ``source`` and ``version`` say which code computed it."""

    accountant: str = "prv"
    history: tuple = ()
    source: str = ""
    version: str = ""
    notion = "opacus-accountant"

    def epsilon(self, delta: float) -> float:
        delta = validation.delta("delta", delta)
        if delta == 0.0:
            return float("inf")
        return accountant_epsilon(self.accountant, self.history, float(delta))

    def parameters(self) -> dict:
        sigma, q, _ = self.history[0]
        return {"noise_multiplier": sigma, "sample_rate": q,
                "steps": sum(k for _, _, k in self.history)}

    def describe(self) -> str:
        entries = ", ".join(f"(σ={s:g}, q={q:g}) × {k}" for s, q, k in self.history)
        return f"{self.source} (opacus {self.version}): {entries}"

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["source"], out["version"] = self.source, self.version
        out["history"] = [list(h) for h in self.history]
        return out


class OpacusDPSGD(BracketedEpsilon, ExternalMechanism):
    """DP-SGD trained by Opacus on the one-weight linear model (module docstring); the
    subclasses fix ``poisson_sampling``."""

    library = "opacus"
    family = "external"
    seedable = True
    audit_representation = False
    poisson_sampling: ClassVar[bool] = True
    #: the dpsgd family's mechanism with the same batch sampler (exact curves)
    #: the class of the same pipeline in :mod:`dpaudit.mechanisms.dpsgd.mechanisms` (a name: that
    #: module is imported only when an exact curve is asked for)
    twin: ClassVar[str] = ""

    n = _count(100, "dataset size n", 2)
    batch_size = _count(1, "the DataLoader's batch size b (divides n; T = n/b steps per "
                        "epoch)", 1)
    epochs = _count(1, "epochs E", 1)
    noise_multiplier = _positive(1.0, "Opacus's noise_multiplier σ")
    clip_norm = _positive(1.0, "Opacus's max_grad_norm C (flat clipping)")
    view = choice_parameter("all", VIEWS, "the adversary's view: every noisy gradient "
                            "(all iterates) or the final weight")
    accountant = choice_parameter("prv", tuple(ACCOUNTANTS), "the privacy engine's "
                                  "accountant: prv (Opacus's default), rdp or gdp")

    @property
    def wraps(self) -> str:  # type: ignore[override]
        loader = ("DPDataLoader (UniformWithReplacementSampler)" if self.poisson_sampling
                  else "DataLoader(shuffle=True)")
        return (f"opacus PrivacyEngine.make_private(poisson_sampling={self.poisson_sampling}) "
                f"+ DPOptimizer + {ACCOUNTANTS[self.accountant]}; {loader}")

    def check_parameters(self) -> None:
        require("torch")
        if self.n % self.batch_size:
            raise ValueError(f"batch_size must divide n = {self.n}, got {self.batch_size}")

    @property
    def steps_per_epoch(self) -> int:
        return self.n // self.batch_size

    # -- contract -----------------------------------------------------------------------------
    def claim(self) -> OpacusClaim:
        history = trained_history(self.poisson_sampling, self.n, self.batch_size, self.epochs,
                                  float(self.noise_multiplier), float(self.clip_norm),
                                  self.accountant)
        return OpacusClaim(accountant=self.accountant, history=history,
                           source=f"opacus.accountants.{ACCOUNTANTS[self.accountant]}",
                           version=library_version("opacus"))

    def relation(self) -> NeighbourRelation:
        from dpaudit.mechanisms.dpsgd.mechanisms import zero_out_relation

        return zero_out_relation()

    def validate_dataset(self, dataset) -> np.ndarray:
        from dpaudit.mechanisms.dpsgd.mechanisms import gradient_dataset

        return gradient_dataset(dataset, self.n)

    def worst_case_pairs(self) -> list[NeighbourPair]:
        C = self.clip_norm
        other = OTHERS * C if not self.poisson_sampling else 0.0
        canary = {"values": [other, CANARY * C], "counts": [self.n - 1, 1]}
        zeroed = {"values": [other, 0.0], "counts": [self.n - 1, 1]}
        why = ("Chua et al.'s shuffle pair: the other records at −2C (clipped to −C), so both "
               "the canary's and the zero record's batch stand out" if other else
               "the gradient canary: the other records contribute 0")
        return [NeighbourPair("canary", canary, zeroed,
                              f"the last record's gradient 4C (clipped to C) vs the zero "
                              f"record ⊥; {why}")]

    def _twin(self):
        from dpaudit.mechanisms.dpsgd import mechanisms as family  # imported when used

        return getattr(family, self.twin)(
            n=self.n, batch_size=self.batch_size, epochs=self.epochs,
            noise_multiplier=self.noise_multiplier, clip_norm=self.clip_norm, view=self.view)

    def exact_epsilon(self, d0, d1, delta: float = 0.0):
        """The ``dpsgd`` twin's ε(δ) of the pair (module docstring), or ``None``."""
        twin = self._twin()
        try:
            return twin.exact_epsilon(twin.validate_dataset(d0), twin.validate_dataset(d1),
                                      delta)
        except ImportError:  # the Poisson curve needs dp_accounting
            return None

    def epsilon_bracket(self, d0, d1, delta: float):
        """The ``dpsgd`` twin's [lower, upper] on the pair's ε(δ), or ``None``."""
        twin = self._twin()
        try:
            return twin.epsilon_bracket(twin.validate_dataset(d0),
                                              twin.validate_dataset(d1), delta)
        except ImportError:
            return None

    # -- sampling -----------------------------------------------------------------------------
    def draw(self, value: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        torch = require("torch")
        expected = self.claim().history
        width = self.epochs * self.steps_per_epoch if self.view == "all" else None
        out = np.empty((n, width) if width else n)
        with torch_quietly(torch):
            for lo in range(0, n, RUNS):
                runs = min(RUNS, n - lo)
                out[lo:lo + runs] = self._train(torch, value, runs, seed_from(rng), expected)
        return out

    def _train(self, torch, values, runs: int, seed: int, expected: tuple) -> np.ndarray:
        """``runs`` independent trainings at once (module docstring): (runs, E·T) gradients
        or the (runs,) final weights."""
        b, T = self.batch_size, self.steps_per_epoch
        engine, model, optimizer, loader, tensors = _private_pipeline(
            torch, values=values, batch_size=b, poisson=self.poisson_sampling, runs=runs,
            noise_multiplier=float(self.noise_multiplier), clip_norm=float(self.clip_norm),
            accountant=self.accountant, seed=seed)
        weight = model._module.weight
        grads = np.empty((runs, self.epochs * T))
        fixed_rows = torch.arange(runs).repeat_interleave(b)
        step = 0
        for _ in range(self.epochs):
            if self.poisson_sampling:
                run_of, feature = tensors
                batches = ((run_of[idx], feature[idx]) for idx in
                           (torch.as_tensor(i, dtype=torch.long) for i in loader.batch_sampler))
            else:
                epochs = [iter(loader.batch_sampler) for _ in range(runs)]
                batches = ((fixed_rows, tensors[0][torch.tensor([next(e) for e in epochs])
                                                   .reshape(-1)]) for _ in range(T))
            for rows, x in batches:
                features = torch.zeros(len(x), runs)
                features[torch.arange(len(x)), rows] = x
                optimizer.zero_grad()
                model(features).sum().backward()
                optimizer.step()
                grads[:, step] = weight.grad[0].numpy()
                step += 1
        history = tuple((float(s), float(q), int(k)) for s, q, k in engine.accountant.history)
        if history != expected:
            raise OpacusAccountingMismatch(
                f"the vectorised training's accountant recorded {history}, the claim's "
                f"training {expected}")
        if self.view == "final":
            return weight.detach()[0].numpy().astype(float)
        return grads


class OpacusPoisson(OpacusDPSGD):
    """Opacus with ``poisson_sampling=True`` (DPDataLoader): DP-SGD as its accountant
    analyses it."""

    name = "opacus-poisson"
    poisson_sampling = True
    twin = "PoissonABLQ"


class OpacusShuffle(OpacusDPSGD):
    """Opacus with ``poisson_sampling=False`` and a shuffled DataLoader: fixed-size batches
    reported with the Poisson accountant."""

    name = "opacus-shuffle"
    poisson_sampling = False
    twin = "ShuffleABLQ"


MECHANISMS = (OpacusPoisson, OpacusShuffle)

__all__ = ["ACCOUNTANTS", "MECHANISMS", "OpacusAccountingMismatch", "OpacusClaim",
           "OpacusDPSGD", "OpacusPoisson", "OpacusShuffle", "RUNS", "accountant_epsilon",
           "torch_quietly", "trained_history"]
