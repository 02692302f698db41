"""Parametric scoring of threshold events: normal laws fitted on the selection split.

Empirical scoring (:func:`dpaudit.distinguish.events.score_candidates`) estimates the two
probabilities of each event {s ≤ t}, {s ≥ t} from selection counts.  Where the ε-optimal event
is a far tail — the Gaussian mechanism at δ = 10⁻⁵, whose best event has probability ~5·10⁻⁵
under the denominator law, a handful of selection outputs — those counts are too few to place
the threshold well, and a 20 % selection split is still short of it.  When the statistic's
values on each side are consistent with a normal law, the fitted laws
N(μ₀, σ₀²), N(μ₁, σ₁²) give every threshold's two probabilities with the precision of two
means and two variances instead, from a few thousand outputs.

:func:`fit_normal_pair` accepts the two laws only if each side passes

* D'Agostino–Pearson's test of skewness and kurtosis (``scipy.stats.normaltest``), and
* a check of its tails: at each level q ∈ {10⁻², 10⁻³, 10⁻⁴} with n·q ≥ 20, the number of
  outputs below the fitted q-quantile, and above the (1 − q)-quantile, is consistent with
  Poisson(n·q), and
* a check of its extremes: the smallest and the largest of its n values are no further out
  than n draws of the fitted law would plausibly reach (n·Φ(−|z|) ≥ the significance), so a
  few outputs far beyond the normal law (a rare failure, a support the law does not have)
  reject it,

each at significance :data:`NORMAL_SIGNIFICANCE`.  Only the choice of the event depends on
the model: the event is then certified on fresh samples by counts like any other, so a wrong
model costs power, never validity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: significance of each test of :func:`fit_normal_pair` (a rejected model only means the
#: thresholds are scored by counts)
NORMAL_SIGNIFICANCE = 1e-3
#: tail levels checked by :func:`fit_normal_pair` (those with at least 20 expected outputs)
TAIL_LEVELS = (1e-2, 1e-3, 1e-4)
#: thresholds added on the fitted laws' scale: this many, evenly spaced, over
#: [min μ − 8σ, max μ + 8σ] (a step of 0.04σ for equal spreads; 2001 gave the same oracle
#: ratio, 0.9864 against 0.9862 on the Gaussian at δ = 10⁻⁵, at 5× the Clopper–Pearson
#: evaluations of a selection: benchmarks/RESULTS.md, "Oracle ratio")
MODEL_THRESHOLDS = 401


@dataclass(frozen=True)
class NormalPair:
    """Normal laws fitted to a statistic's selection values on d0 (μ₀, σ₀) and d1 (μ₁, σ₁)."""

    mu0: float
    sd0: float
    mu1: float
    sd1: float

    def thresholds(self) -> np.ndarray:
        low = min(self.mu0 - 8 * self.sd0, self.mu1 - 8 * self.sd1)
        high = max(self.mu0 + 8 * self.sd0, self.mu1 + 8 * self.sd1)
        return np.linspace(low, high, MODEL_THRESHOLDS)

    def probabilities(self, t: np.ndarray, op: str) -> tuple[np.ndarray, np.ndarray]:
        """(P₀, P₁) of {s ≤ t} (op ``le``) or {s ≥ t} (op ``ge``) under the fitted laws."""
        from scipy.special import ndtr

        z0, z1 = (t - self.mu0) / self.sd0, (t - self.mu1) / self.sd1
        if op == "le":
            return ndtr(z0), ndtr(z1)
        return ndtr(-z0), ndtr(-z1)


def _is_normal(v: np.ndarray, mu: float, sd: float) -> bool:
    """Whether the values ``v`` (sorted) pass the tests of :func:`fit_normal_pair`."""
    from scipy.special import ndtr, ndtri
    from scipy.stats import normaltest, poisson

    n = len(v)
    for extreme in (v[0], v[-1]):
        if n * ndtr(-abs(extreme - mu) / sd) < NORMAL_SIGNIFICANCE:
            return False
    if normaltest(v).pvalue < NORMAL_SIGNIFICANCE:
        return False
    for q in TAIL_LEVELS:
        expected = n * q
        if expected < 20:
            continue
        z = float(ndtri(q))
        below = np.searchsorted(v, mu + z * sd, side="left")
        above = n - np.searchsorted(v, mu - z * sd, side="right")
        for k in (below, above):
            tail = min(poisson.cdf(k, expected), poisson.sf(k - 1, expected))
            if 2.0 * tail < NORMAL_SIGNIFICANCE:
                return False
    return True


def fit_normal_pair(v0: np.ndarray, v1: np.ndarray, min_values: int = 1000
                    ) -> NormalPair | None:
    """The normal laws of the sorted, finite selection values ``v0`` and ``v1`` of a
    statistic, or None when either side has fewer than ``min_values`` values, no spread, or
    fails a test (module docstring)."""
    if min(len(v0), len(v1)) < min_values:
        return None
    if not (np.isfinite(v0[[0, -1]]).all() and np.isfinite(v1[[0, -1]]).all()):
        return None
    mu0, sd0 = float(np.mean(v0)), float(np.std(v0))
    mu1, sd1 = float(np.mean(v1)), float(np.std(v1))
    if not (0 < sd0 < np.inf and 0 < sd1 < np.inf and np.isfinite([mu0, mu1]).all()):
        return None  # no spread, or moments beyond float64 (outputs near 1e300, issue 39)
    if not (_is_normal(v0, mu0, sd0) and _is_normal(v1, mu1, sd1)):
        return None
    return NormalPair(mu0, sd0, mu1, sd1)
