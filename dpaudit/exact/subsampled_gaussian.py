"""Bracketed ε(δ) of the subsampled Gaussian composed T times: the curve every DP-SGD
accountant approximates, with its numerical error stated as a bracket.

One DP-SGD step releases Σ_{x∈S} ψ(x) + N(0, σ²I), ‖ψ(x)‖ ≤ 1 (units of the clipping norm).
With the other records' contributions removed (a post-processing: they are independent of the
differing record), one step is a pair of laws on the line, and T non-adaptive steps its T-fold
product — a valid adversary, so the product's ε(δ) is a **lower bound** on the run's; where the
pair also *dominates* every pair the relation allows, it is the run's ε(δ) itself:

=====================  ==================================================  ==============
sampler, relation      pair (per step)                                     dominating
=====================  ==================================================  ==============
Poisson, add/remove    (1−q)N(0,σ²) + qN(1,σ²)  vs  N(0,σ²), both ways      yes (Zhu, Dong
                                                                            & Wang 2022)
Poisson, replace-one   (1−q)N(0,σ²) + qN(1,σ²)  vs  (1−q)N(0,σ²) + qN(−1,σ²)  yes (dp_accounting's
                                                                            REPLACE adjacency)
full batch (q = 1)     N(0,σ²) vs N(Δ,σ²), Δ = 1 (add/remove), 2 (replace) yes (closed form)
without replacement,   the Poisson replace-one pair at q = b/n, and        no: lower end only
replace-one            (1−q)N(0,σ²) + qN(2,σ²) vs N(0,σ²) (the other       (upper = ∞)
                       records at −1, the batch's b − 1 others shift)
=====================  ==================================================  ==============

The Poisson curves are dp_accounting's privacy-loss distributions of these pairs
(``from_gaussian_mechanism(σ, sampling_prob=q, neighboring_relation=…)``) composed T times by
FFT: the *optimistic* estimate (privacy losses rounded down to the discretisation grid, the
truncated tail dropped) gives δ no larger than the pair's, so its ε(δ) is ≤ the pair's — the
**lower end**; the *pessimistic* one (connect-the-dots, losses rounded up, the truncated tail
counted at infinite loss) gives ε(δ) ≥ the pair's — the **upper end** (Doroshenko, Ghazi,
Kamath, Kumar & Manurangsi 2022, Sec. 2–3).  The bracket's width is the numerical error; at the
default discretisation (:func:`discretization_for`: 1e-4 up to T = 100, 0.01/T beyond) it is
a few 1e-3 in ε (benchmarks/RESULTS.md).
The full-batch curve is the Gaussian shift's closed form (Balle & Wang 2018, Thm. 8) at
μ = Δ√T/σ, exact up to the root finder (1e-12).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from dpaudit.exact.gaussian import gaussian_epsilon

#: dp_accounting's default value_discretization_interval
DISCRETIZATION = 1e-4
RELATIONS = ("add-remove", "replace-one")
SAMPLERS = ("poisson", "full-batch", "without-replacement")


def discretization_for(steps: int) -> float:
    """The privacy-loss discretisation the brackets use for T steps: dp_accounting's default
    1e-4 up to 100 steps, 0.01/T beyond (the bracket's width grows about as T·d)."""
    return min(DISCRETIZATION, 0.01 / steps)


@dataclass(frozen=True)
class Bracket:
    """lower ≤ the true ε(δ) ≤ upper (``upper`` = ∞ where no dominating pair is computed)."""

    lower: float
    upper: float

    @property
    def width(self) -> float:
        return self.upper - self.lower

    def __iter__(self):
        return iter((self.lower, self.upper))


def _require_dp_accounting():
    try:
        import dp_accounting  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the subsampled Gaussian's bracketed curve needs dp_accounting: "
                          "pip install dp-accounting") from exc


@functools.lru_cache(maxsize=16)
def single_step_pld(sigma: float, q: float, discretization: float, pessimistic: bool,
                    relation: str = "add-remove", sensitivity: float = 1.0):
    """dp_accounting's PLD of one step of the Poisson pair of ``relation`` (module
    docstring), optimistic or pessimistic (the expensive part: seconds at small σ)."""
    _require_dp_accounting()
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld

    rel = (NeighboringRelation.ADD_OR_REMOVE_ONE if relation == "add-remove"
           else NeighboringRelation.REPLACE_ONE)
    return pld.from_gaussian_mechanism(
        sigma, sensitivity=sensitivity, pessimistic_estimate=pessimistic,
        value_discretization_interval=discretization, sampling_prob=q,
        use_connect_dots=pessimistic, neighboring_relation=rel)


@functools.lru_cache(maxsize=16)
def composed_pld(sigma: float, q: float, steps: int, discretization: float,
                 pessimistic: bool, relation: str = "add-remove", sensitivity: float = 1.0):
    """:func:`single_step_pld` composed ``steps`` times (FFT); kept (a few MB) for every δ
    asked of it."""
    return single_step_pld(sigma, q, discretization, pessimistic, relation,
                           sensitivity).self_compose(int(steps))


def _pld_bracket(sigma, q, steps, delta, discretization, relation, sensitivity=1.0) -> Bracket:
    lo = composed_pld(sigma, q, steps, discretization, False, relation, sensitivity)
    hi = composed_pld(sigma, q, steps, discretization, True, relation, sensitivity)
    return Bracket(float(lo.get_epsilon_for_delta(delta)),
                   float(hi.get_epsilon_for_delta(delta)))


def _check(sigma, q, steps, delta, relation, sampler):
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}")
    if not (0.0 < q <= 1.0):
        raise ValueError(f"q must be in (0, 1], got {q!r}")
    if int(steps) != steps or steps < 1:
        raise ValueError(f"steps must be a whole number >= 1, got {steps!r}")
    if not (0.0 < delta < 1.0):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {', '.join(RELATIONS)}, got {relation!r}")
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {', '.join(SAMPLERS)}, got {sampler!r}")


@functools.lru_cache(maxsize=1024)
def subsampled_gaussian_bracket(sigma: float, q: float, steps: int, delta: float,
                                relation: str = "add-remove", sampler: str = "poisson",
                                discretization: float | None = None) -> Bracket:
    """(lower, upper) on ε(δ) of T steps of the subsampled Gaussian with noise multiplier σ
    and rate q (module docstring's table), at the privacy-loss discretisation
    ``discretization`` (default :func:`discretization_for` T).

    Raises:
      ValueError: a parameter out of range (one line naming it).
      ImportError: dp_accounting is missing (every sampler but full batch needs it).
    """
    _check(sigma, q, steps, delta, relation, sampler)
    if discretization is None:
        discretization = discretization_for(int(steps))
    if sampler == "full-batch" or q == 1.0:
        shift = 1.0 if relation == "add-remove" else 2.0
        eps = float(gaussian_epsilon(delta, shift * math.sqrt(steps) / sigma))
        return Bracket(eps, eps)
    if sampler == "poisson":
        return _pld_bracket(sigma, q, int(steps), delta, discretization, relation)
    if relation == "add-remove":
        raise ValueError("sampling without replacement is analysed under replace-one only "
                         "(add/remove changes the batch size)")
    swap = _pld_bracket(sigma, q, int(steps), delta, discretization, "replace-one")
    shifted = _pld_bracket(sigma, q, int(steps), delta, discretization, "add-remove", 2.0)
    return Bracket(max(swap.lower, shifted.lower), math.inf)


__all__ = ["Bracket", "DISCRETIZATION", "RELATIONS", "SAMPLERS", "composed_pld",
           "discretization_for",
           "single_step_pld", "subsampled_gaussian_bracket"]
