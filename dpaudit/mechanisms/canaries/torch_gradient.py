"""White-box Dirac gradient canaries in the user's own Opacus training.

**The canaries.**  Canary i owns one coordinate j_i of the model's trainable parameters; its
per-sample gradient is c·e_{j_i} with c = the optimizer's ``max_grad_norm`` C (so Opacus's
flat clipping leaves it at C·C/(C + 10⁻⁶) ≈ C, the largest contribution a record may make).
Every canary is an item of the training dataset (:class:`.torch_common.CanaryDataset`), so the
user's own loader samples it like every other record — Poisson through Opacus's
``DPDataLoader``, or once per epoch through a shuffled ``DataLoader`` — and whenever it is in a
batch, dpaudit replaces its row of every ``p.grad_sample`` before Opacus clips, sums, adds
noise and steps: by its Dirac vector when the canary is included, by 0 when it is not (the
*zero-out* neighbouring relation of the ``dpsgd`` family: for Poisson sampling the same law as
add/remove, which every Opacus accountant analyses).  The model's forward pass on the item —
a copy of a real record — only feeds that replaced row.  Since excluded canaries stay in the
dataset, its length and the batches of the real records do not depend on the bits.

**The coordinates** are chosen at the first optimizer step, from the real records of that
batch alone — whose composition does not depend on the canaries' bits (above), so neither does
the choice: the m coordinates where the largest absolute
per-sample gradient is smallest (ties in a seeded random order).  Coordinates no record's
gradient touches — e.g. first-layer weights of inputs that are always 0 — keep the canaries
from interfering with the data, the threat model in which the accountants are tight (Nasr et
al. 2023; Steinke et al. 2023, Sec. 6).  Canaries on coordinates the data does move still
give valid bounds, only weaker.

**The scores** (higher = "looks included"), functions of what the optimizer released:

* ``view = "all"`` (every iterate): x_t = the noisy gradient at j_i after step t, in units of
  C·(the batch normaliser), i.e. canary + data + N(0, σ²); the score is the log-likelihood
  ratio of "a canary of gradient C was sampled like a record" against "it was not" under the
  loader's sampling, ignoring the data's part: Σ_t ln(1 − q + q·e^{(x_t − ½)/σ²}) for
  Poisson batches (q the sample rate), Σ_epochs ln((1/T)·Σ_{t ∈ epoch} e^{(x_t − ½)/σ²}) for
  a shuffled loader (one batch per epoch);
* ``view = "final"`` (last iterate only): θ_0[j_i] − θ_final[j_i], how far training moved the
  coordinate against the canary's gradient.

**The claim** is the user's: ``privacy_engine.get_epsilon(δ)`` after the run
(:class:`dpaudit.claims.get_epsilon.GetEpsilonClaim`), unless a stated claim is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpaudit.mechanisms.canaries.certify import CanaryError
from dpaudit.mechanisms.canaries.design import CanaryPlan, run_seed
from dpaudit.mechanisms.canaries.torch_common import (CanaryDataset, OpacusTraining, built,
                                                      check_all_reached, require_torch)

VIEWS = ("all", "final")


@dataclass
class GradientCanaryRun:
    """``run(index, bits) -> scores`` of white-box gradient canaries (module docstring);
    after a run, ``engine`` is its privacy engine (the accountant of the claim) and
    ``coordinates`` / ``interference`` say where the canaries sat and how much the real
    records' clipped gradients moved those coordinates (in units of C, summed over steps)."""

    plan: CanaryPlan
    training: OpacusTraining
    view: str = "all"
    engine: object = field(default=None, init=False)
    coordinates: np.ndarray | None = field(default=None, init=False)
    interference: float = field(default=0.0, init=False)
    steps: int = field(default=0, init=False)

    def __post_init__(self):
        if self.view not in VIEWS:
            raise CanaryError(f"view must be one of {', '.join(VIEWS)}, got {self.view!r}")

    def __call__(self, index: int, bits) -> np.ndarray:
        torch = require_torch()
        bits = np.asarray(bits, dtype=bool)
        base = self.training.dataset
        rng = np.random.default_rng(run_seed(self.plan, index))
        templates = rng.integers(0, len(base), size=bits.size)
        # every canary is an item; an excluded one's gradient is zeroed (module docstring)
        dataset = CanaryDataset(base, lambda j: base[int(templates[j])], bits.size)
        torch.manual_seed(run_seed(self.plan, index) % (2 ** 63))
        model, optimizer, loader, engine = built(self.training.build(dataset), dataset)
        hook = _Hook(torch, optimizer, dataset, bits, rng, self.view)
        try:
            self.training.train(model, optimizer, loader)
        finally:
            hook.detach()
        check_all_reached(dataset)
        if hook.steps == 0:
            raise CanaryError("the training never stepped the DPOptimizer build() returned")
        self.engine, self.coordinates = engine, hook.coordinates
        self.interference, self.steps = hook.interference, hook.steps
        return hook.scores(loader)


class _Hook:
    """The instance-level wrappers of one run's DPOptimizer (module docstring)."""

    def __init__(self, torch, optimizer, dataset: CanaryDataset, bits, rng, view: str):
        self.torch, self.opt, self.dataset = torch, optimizer, dataset
        self.bits, self.m, self.rng, self.view = bits, bits.size, rng, view
        self.params = [p for p in optimizer.params]
        self.sizes = [p.numel() for p in self.params]
        if sum(self.sizes) < self.m:
            raise CanaryError(f"{self.m} canaries need {self.m} coordinates; the model has "
                              f"{sum(self.sizes)} trainable parameters")
        self.coordinates = self.param_of = self.local = None
        self.observed: list[np.ndarray] = []
        self.initial = None
        self.interference, self.steps = 0.0, 0
        self._clip, self._step = optimizer.clip_and_accumulate, optimizer.step
        optimizer.clip_and_accumulate = self.clip_and_accumulate
        optimizer.step = self.step

    def detach(self) -> None:
        self.opt.clip_and_accumulate, self.opt.step = self._clip, self._step

    def _rows(self) -> list:
        """Each parameter's per-sample gradients as one (batch, size) view."""
        rows = []
        for p in self.params:
            g = p.grad_sample
            if isinstance(g, list) or not g.is_contiguous():  # rows are written in place
                g = self.torch.cat(g, dim=0) if isinstance(g, list) else g.contiguous()
                p.grad_sample = g
            rows.append(g.reshape(g.shape[0], -1))
        return rows

    def _choose(self, rows, real) -> None:
        """The m quietest coordinates on this batch's real records (module docstring)."""
        torch = self.torch
        loud = torch.cat([r[real].abs().amax(dim=0) if bool(real.any()) else
                          torch.zeros(r.shape[1]) for r in rows]).numpy()
        order = np.lexsort((self.rng.permutation(loud.size), loud))
        self.coordinates = order[:self.m]
        bounds = np.cumsum([0] + self.sizes)
        self.param_of = np.searchsorted(bounds, self.coordinates, side="right") - 1
        self.local = self.coordinates - bounds[self.param_of]
        flat = torch.cat([p.detach().reshape(-1) for p in self.params]).numpy()
        self.initial = flat[self.coordinates].astype(float)

    def clip_and_accumulate(self):
        torch = self.torch
        fetched = self.dataset.take_fetched()
        rows = self._rows()
        batch = rows[0].shape[0]
        if len(fetched) != batch:
            raise CanaryError(f"the optimizer got {batch} per-sample gradients but the loader "
                              f"read {len(fetched)} items of the training dataset: evaluate on "
                              f"other data (canaries would leak into evaluation) and keep "
                              f"num_workers = 0")
        fetched = np.asarray(fetched, dtype=np.int64)
        is_canary = fetched >= self.dataset.n
        real = torch.as_tensor(~is_canary)
        if self.coordinates is None:
            self._choose(rows, real)
        C = float(self.opt.max_grad_norm)
        if bool(real.any()):  # how much the real records move the canaries' coordinates
            norms = torch.stack([r[real].norm(dim=1) for r in rows], dim=1).norm(dim=1)
            factor = (C / (norms + 1e-6)).clamp(max=1.0)
            moved = 0.0
            for k, r in enumerate(rows):
                mine = np.flatnonzero(self.param_of == k)
                if mine.size:
                    moved += float((r[real][:, torch.as_tensor(self.local[mine])]
                                    * factor[:, None]).sum(dim=0).abs().sum())
            self.interference += moved / (C * self.m)
        positions = np.flatnonzero(is_canary)
        if positions.size:  # zero every canary row, then its Dirac entry if it is included
            canary_of = fetched[positions] - self.dataset.n
            live = self.bits[canary_of]
            positions, canary_of = positions[live], canary_of[live]
            where = self.param_of[canary_of]
            for k, r in enumerate(rows):
                r[torch.as_tensor(np.flatnonzero(is_canary))] = 0.0
                mine = np.flatnonzero(where == k)
                if mine.size:
                    r[torch.as_tensor(positions[mine]),
                      torch.as_tensor(self.local[canary_of[mine]])] = C
        return self._clip()

    def step(self, *args, **kwargs):
        out = self._step(*args, **kwargs)
        self.steps += 1
        if self.view == "all" and self.coordinates is not None:
            grads = self.torch.cat([p.grad.detach().reshape(-1) if p.grad is not None else
                                    self.torch.zeros(p.numel()) for p in self.params])
            self.observed.append(grads[self.torch.as_tensor(self.coordinates)].numpy()
                                 .astype(float))
        return out

    def scores(self, loader) -> np.ndarray:
        """The m scores of module docstring, in canary order."""
        opt, C = self.opt, float(self.opt.max_grad_norm)
        if self.view == "final":
            flat = self.torch.cat([p.detach().reshape(-1) for p in self.params]).numpy()
            return (self.initial - flat[self.coordinates]) / C
        scale = (float(opt.expected_batch_size) if opt.loss_reduction == "mean" else 1.0) / C
        x = np.stack(self.observed, axis=1) * scale  # (m, steps), units of C
        s = float(opt.noise_multiplier)
        log_ratio = (x - 0.5) / (s * s)
        from opacus.data_loader import DPDataLoader

        if isinstance(loader, DPDataLoader):
            q = 1.0 / len(loader)
            if q >= 1.0:  # every record in every step: the ratio of a Gaussian shift
                return log_ratio.sum(axis=1)
            return np.logaddexp(math.log1p(-q), math.log(q) + log_ratio).sum(axis=1)
        per_epoch = len(loader)
        whole = log_ratio.shape[1] - log_ratio.shape[1] % per_epoch
        from scipy.special import logsumexp

        blocks = log_ratio[:, :whole].reshape(self.m, -1, per_epoch)
        out = (logsumexp(blocks, axis=2) - math.log(per_epoch)).sum(axis=1)
        if whole < log_ratio.shape[1]:  # a last, partial epoch
            rest = log_ratio[:, whole:]
            out += logsumexp(rest, axis=1) - math.log(rest.shape[1])
        return out


__all__ = ["GradientCanaryRun", "VIEWS"]
