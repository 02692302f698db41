"""Canary runs of mechanisms whose laws are known exactly: the test oracles of the canary audit.

* :class:`GaussianDiracRun` — the idealised experiment: the Gaussian mechanism
  y = Σ_{i included} Δ·e_i + N(0, σ²I) with m Dirac canaries, one coordinate each; canary i's
  score is y_i.  Per canary it is the Gaussian mechanism of sensitivity Δ, exactly μ-GDP with
  μ = Δ/σ, and the scores are independent given the bits (scores N(μ·bit, 1) in units of σ).
* :class:`DPSGDCanaryRun` — the ``dpsgd`` family's one-run mode: an ABLQ mechanism
  (:mod:`dpaudit.mechanisms.dpsgd.mechanisms`: Poisson, shuffled, balls-and-bins or
  deterministic batches, E epochs of T steps, noise σC per coordinate and step) with m Dirac
  gradient canaries on coordinates no other record touches (the gradient-canary threat model in
  which the accountants are tight).  Canary i's observations are x_{i,t} = C·member_{i,t} +
  N(0, σ²C²), member drawn by the family's own batch sampler
  (``BatchSampler.canary_epoch``, one canary per row: the canaries' memberships are drawn
  independently, the law of each one exact; in a real shuffled training several canaries
  share one permutation, which no one-run test relies on).  The score is the log-likelihood
  ratio of "included" against "excluded" given the sampler (a function of the output alone,
  the most powerful score for one canary, by Neyman–Pearson):

      view "all":   Poisson     Σ_t ln(1 − q + q·e^{(x_t − ½)/σ²})           (x in units of C)
                    fixed-size  Σ_epochs ln((1/T)·Σ_{t in epoch} e^{(x_t − ½)/σ²})
      view "final": Σ_t x_t (the last iterate of SGD on a linear loss).

  The claim is the mechanism's own (the Poisson accountant at q = b/n, whatever the sampler),
  so a shuffled pipeline reported with the Poisson ε is audited in one run here.

Both take ``run(index, bits) -> scores`` with the randomness of run ``index`` from
:func:`dpaudit.mechanisms.canaries.design.run_seed`: the same seed gives the same scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from dpaudit.mechanisms.canaries.design import CanaryPlan, run_seed


@dataclass(frozen=True)
class GaussianDiracRun:
    """The idealised Gaussian experiment (module docstring); ``mu`` = Δ/σ."""

    plan: CanaryPlan
    mu: float

    def __call__(self, index: int, bits) -> np.ndarray:
        rng = np.random.default_rng(run_seed(self.plan, index))
        bits = np.asarray(bits, dtype=bool)
        return self.mu * bits + rng.standard_normal(bits.size)


@dataclass(frozen=True)
class DPSGDCanaryRun:
    """The ``dpsgd`` family's one-run mode (module docstring) for the ABLQ ``mechanism``."""

    plan: CanaryPlan
    mechanism: object

    def __call__(self, index: int, bits) -> np.ndarray:
        mech = self.mechanism
        rng = np.random.default_rng(run_seed(self.plan, index))
        bits = np.asarray(bits, dtype=bool)
        m, T, s = bits.size, mech.steps_per_epoch, float(mech.noise_multiplier)
        epochs = []
        for _ in range(mech.epochs):
            _, member = mech.batches.canary_epoch(mech.n, T, mech.n - 1, m, rng,
                                                  count_others=False)
            epochs.append(member)
        member = np.concatenate(epochs, axis=1) * bits[:, None]
        x = member + s * rng.standard_normal(member.shape)  # in units of C
        if mech.view == "final":
            return x.sum(axis=1)
        log_ratio = (x - 0.5) / (s * s)
        if mech.batch_sampler == "poisson":
            q = mech.q
            return np.logaddexp(math.log1p(-q), math.log(q) + log_ratio).sum(axis=1)
        if mech.batch_sampler == "deterministic":
            return log_ratio[:, (mech.n - 1) // mech.batch_size::T].sum(axis=1)
        blocks = log_ratio.reshape(m, mech.epochs, T)
        return (logsumexp(blocks, axis=2) - math.log(T)).sum(axis=1)


__all__ = ["DPSGDCanaryRun", "GaussianDiracRun"]
