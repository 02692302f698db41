"""The power of a canary audit: what an idealised training would need for its verdict.

**The Gaussian-shift model.**  An included canary's score is N(μ, 1), an excluded one's
N(0, 1) — the law of a μ-GDP training with Dirac canaries.  Each guess of a guess count is
taken as correct with the mixture's precision at its quantile, and the median count
(:func:`_median_correct`) decides.  :func:`gaussian_shift_detectable` is the smallest ε(δ) of
μ-GDP whose median counts make one of the plan's guess counts **reject the claim** — the
verdict's event (:mod:`.evidence`): the (ε, δ) test at the claimed ε, the f-DP test against the
claim's own curve — at the audit's pooled canary count and significance.  It says what the
experiment could have detected in the idealised threat model; real canaries that share a
model do worse.
"""

from __future__ import annotations

import math

from dpaudit.claims.conversions import gdp_to_dp_epsilon
from dpaudit.mechanisms.canaries.design import Statistic
from dpaudit.stats.one_run import Guesses, guess_grid, steinke_p_value
from dpaudit.stats.one_run_fdp import fdp_rejects

_ROOT2 = math.sqrt(2.0)


def _sf(x: float) -> float:
    """1 − Φ(x) (math.erfc: the scalar path of a bisection, ~100× scipy's per call)."""
    return 0.5 * math.erfc(x / _ROOT2)


def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / _ROOT2)


def _median_correct(mu: float, m: int, guesses: Guesses) -> int:
    """Median correct count of ``guesses`` among m canaries under the Gaussian-shift model
    (each guess right with the mixture's precision at its quantile; binomial median)."""
    mixture_sf = lambda t: 0.5 * (_sf(t - mu) + _sf(t))  # noqa: E731
    correct = 0.0
    if guesses.k_plus:
        lo, hi = -40.0, 40.0 + mu
        for _ in range(80):  # the score above which a fraction k₊/m of canaries lie
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if mixture_sf(mid) > guesses.k_plus / m else (lo, mid)
        precision = _sf(lo - mu) / (_sf(lo - mu) + _sf(lo))
        correct += guesses.k_plus * precision
    if guesses.k_minus:
        lo, hi = -40.0, 40.0 + mu
        for _ in range(80):  # the score below which a fraction k₋/m lie
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if 1.0 - mixture_sf(mid) < guesses.k_minus / m else (lo, mid)
        precision = _cdf(lo) / (_cdf(lo) + _cdf(lo - mu))
        correct += guesses.k_minus * precision
    return int(math.floor(correct))


def gaussian_shift_detectable(claimed: float, delta: float, m: int, statistics,
                              two_sided: bool, significance: float, family) -> float:
    """The detectable ε of module docstring, ``significance`` each guess count's share
    (bisection on μ; ∞ when even μ = 64 is not enough)."""
    grid = guess_grid(m, two_sided=two_sided)
    share = significance  # the stored significance is already each guess count's share
    curve = family.curve(claimed) if family is not None else None

    def detects(mu: float) -> bool:
        for g in grid:
            v = _median_correct(mu, m, g)
            if Statistic.EPSILON_DELTA in statistics and steinke_p_value(
                    m, g.total, v, claimed, delta) <= share:
                return True
            if curve is not None and Statistic.FDP in statistics and fdp_rejects(
                    curve, m, g.total, v, share):
                return True
        return False

    hi = 1.0
    while not detects(hi):
        hi *= 2.0
        if hi > 64.0:
            return math.inf
    lo = 0.0
    while hi - lo > 1e-3:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if detects(mid) else (mid, hi)
    return gdp_to_dp_epsilon(hi, delta)


__all__ = ["gaussian_shift_detectable"]
