"""The E-epoch shuffle lower bound: Chua et al.'s max-statistic pair composed over epochs,
bracketed with its discretisation error.

One epoch of shuffled DP-SGD on the canary datasets (Chua, Ghazi, Kamath, Kumar, Manurangsi,
Sinha & Zhang, ICML 2024, Sec. 4; NeurIPS 2024 for several epochs) releases a T-vector with
law MoG(a) = (1/T) Σ_t N(a·e_t, σ²I_T) — the differing record's batch is uniform, a is its
gradient's offset from the others' — and the pair is MoG(a_hi) vs MoG(a_lo).  The statistic
M = max_t x_t has the closed-form CDF

    F_a(c) = Φ((c − a)/σ) · Φ(c/σ)^{T−1}

(certified ``shuffle_max_log_cdf``, proofs/dpsgd.py).  Epochs draw fresh permutations and fresh
noise, so E epochs release E independent copies: (M₁, …, M_E) is a post-processing of the
output, and the E-fold product of the M-pair has ε(δ) **≤ the shuffle mechanism's**.

The bracket of that product's ε(δ) (:func:`shuffle_epochs_bracket`):

* **lower end** (rigorous): M is binned on K + 2 cells — the K cells of a uniform grid over
  [min(a, 0) − 10σ, max(a, 0) + σ(√(2 ln T) + 10)] and the two tails — with masses
  F(c_{k+1}) − F(c_k) computed from the closed form in log space; binning is a further
  post-processing, so the binned pair's ε(δ) is still a lower bound.  Its privacy-loss
  distribution is built with the losses ln(P_k/Q_k) rounded *down* to multiples of the
  discretisation d (optimistic: δ can only shrink) and composed E times by dp_accounting's
  FFT (``PrivacyLossDistribution.create_from_rounded_probability(…, pessimistic_estimate=False)``,
  ``self_compose``).  Nothing is truncated.
* **upper end** (numerical): the same cells with each cell's loss taken at the larger of the
  continuous loss L(c) = ln f_hi(c)/f_lo(c) at its two edges, rounded *up*, and both tails at
  infinite loss — an upper bound on the continuous M-pair's ε(δ) when L is monotone within each
  cell, which is checked on the grid (L monotone on all edges, else no upper end: ∞).

The width upper − lower is therefore the whole numerical error of the lower bound against the
max-statistic pair it stands for: binning, loss rounding (≤ E·d) and tails together
(benchmarks/RESULTS.md records it, with the cost).  At E = 1 the lower end agrees with the
quadrature of :class:`dpaudit.mechanisms.dpsgd.curves.ShuffleMaxCurve` to within the width.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
from scipy import special

from dpaudit.exact.profile import log1mexp
from dpaudit.exact.subsampled_gaussian import Bracket

#: grid cells of M (the tails are two more)
CELLS = 20_000
#: privacy-loss discretisation of the composed PLDs
DISCRETIZATION = 1e-4


def max_log_cdf(c: np.ndarray, a: float, sigma: float, steps: int) -> np.ndarray:
    """ln F_a(c) = ln Φ((c − a)/σ) + (T − 1) ln Φ(c/σ) (module docstring)."""
    return special.log_ndtr((c - a) / sigma) + (steps - 1) * special.log_ndtr(c / sigma)


def max_log_density(c: np.ndarray, a: float, sigma: float, steps: int) -> np.ndarray:
    """ln of the density of M = max_t x_t under MoG(a): d/dc of F_a."""
    z0, za = c / sigma, (c - a) / sigma
    log_phi0 = -0.5 * z0 * z0 - 0.5 * math.log(2 * math.pi) - math.log(sigma)
    log_phia = -0.5 * za * za - 0.5 * math.log(2 * math.pi) - math.log(sigma)
    lc0, lca = special.log_ndtr(z0), special.log_ndtr(za)
    first = log_phia + (steps - 1) * lc0
    if steps == 1:
        return first
    second = math.log(steps - 1) + log_phi0 + lca + (steps - 2) * lc0
    return np.logaddexp(first, second)


def grid_edges(a_hi: float, a_lo: float, sigma: float, steps: int, cells: int) -> np.ndarray:
    lo = min(a_hi, a_lo, 0.0) - 10 * sigma
    hi = max(a_hi, a_lo, 0.0) + sigma * (math.sqrt(2 * math.log(max(steps, 2))) + 10)
    return np.linspace(lo, hi, cells + 1)


def cell_log_masses(edges: np.ndarray, a: float, sigma: float, steps: int) -> np.ndarray:
    """ln P(M in cell) for the left tail, the K grid cells and the right tail (K + 2)."""
    log_f = max_log_cdf(edges, a, sigma, steps)
    inner = log_f[1:] + log1mexp(np.minimum(log_f[:-1] - log_f[1:], 0.0))
    right = log1mexp(log_f[-1])
    return np.concatenate([[log_f[0]], inner, [right]])


def _rounded(mass: np.ndarray, loss: np.ndarray, d: float, up: bool) -> dict[int, float]:
    keep = (mass > 0) & np.isfinite(loss)
    idx = (np.ceil if up else np.floor)(loss[keep] / d).astype(np.int64)
    uniq, inv = np.unique(idx, return_inverse=True)
    sums = np.bincount(inv, weights=mass[keep])
    return {int(k): float(v) for k, v in zip(uniq, sums)}


def _direction(log_p, log_q, edge_loss, d: float, pessimistic: bool):
    """(rounded pmf, infinity mass) of the loss ln(P/Q) under P on the cells."""
    mass = np.exp(log_p)
    if not pessimistic:
        with np.errstate(invalid="ignore"):
            loss = np.where(np.isfinite(log_q), log_p - log_q, np.inf)
        infinite = float(mass[np.isinf(loss) & (mass > 0)].sum())
        return _rounded(mass, loss, d, up=False), infinite
    inner = np.maximum(edge_loss[:-1], edge_loss[1:])
    loss = np.concatenate([[np.inf], inner, [np.inf]])
    infinite = float(mass[~np.isfinite(loss)].sum())
    return _rounded(mass, loss, d, up=True), infinite


@functools.lru_cache(maxsize=32)
def composed_shuffle_pld(a_hi: float, a_lo: float, sigma: float, steps: int, epochs: int,
                         pessimistic: bool, cells: int = CELLS,
                         discretization: float = DISCRETIZATION):
    """dp_accounting's PLD of the binned M-pair (both directions) composed over ``epochs``;
    None for the pessimistic one when the loss is not monotone on the grid."""
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

    edges = grid_edges(a_hi, a_lo, sigma, steps, cells)
    log_hi = cell_log_masses(edges, a_hi, sigma, steps)
    log_lo = cell_log_masses(edges, a_lo, sigma, steps)
    edge_loss = (max_log_density(edges, a_hi, sigma, steps)
                 - max_log_density(edges, a_lo, sigma, steps))
    if pessimistic:
        step = np.diff(edge_loss)
        if not (np.all(step >= -1e-12) or np.all(step <= 1e-12)):
            return None
    remove = _direction(log_hi, log_lo, edge_loss, discretization, pessimistic)
    add = _direction(log_lo, log_hi, -edge_loss, discretization, pessimistic)
    pld = PrivacyLossDistribution.create_from_rounded_probability(
        remove[0], remove[1], discretization, pessimistic_estimate=pessimistic,
        rounded_probability_mass_function_add=add[0], infinity_mass_add=add[1],
        symmetric=False)
    with warnings.catch_warnings():  # scipy's logsumexp over the infinite-loss mass
        warnings.simplefilter("ignore", RuntimeWarning)
        return pld.self_compose(int(epochs)) if epochs > 1 else pld


def shuffle_epochs_bracket(a_hi: float, a_lo: float, sigma: float, steps: int, epochs: int,
                           delta: float, cells: int = CELLS,
                           discretization: float = DISCRETIZATION) -> Bracket:
    """(lower, upper) on ε(δ) of the E-fold max-statistic pair of MoG(a_hi) vs MoG(a_lo) over
    T steps per epoch (module docstring); ``lower`` is a lower bound on the shuffle
    mechanism's ε(δ).

    Raises:
      ValueError: a parameter out of range.
    """
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}")
    for name, value in (("steps", steps), ("epochs", epochs), ("cells", cells)):
        if int(value) != value or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    if not (0.0 < delta < 1.0):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if a_hi == a_lo:
        return Bracket(0.0, 0.0)
    args = (float(a_hi), float(a_lo), float(sigma), int(steps), int(epochs))
    lower = composed_shuffle_pld(*args, False, int(cells), discretization)
    upper = composed_shuffle_pld(*args, True, int(cells), discretization)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return Bracket(float(lower.get_epsilon_for_delta(delta)),
                       math.inf if upper is None else float(upper.get_epsilon_for_delta(delta)))


__all__ = ["CELLS", "DISCRETIZATION", "cell_log_masses", "composed_shuffle_pld", "grid_edges",
           "max_log_cdf", "max_log_density", "shuffle_epochs_bracket"]
