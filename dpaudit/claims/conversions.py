"""Conversions from privacy notions to (ε, δ)-DP, and between GDP and (ε, δ).

Contract: each function maps a notion's parameters and a target δ (or ε) to an (ε, δ)
guarantee the notion *provably implies*.  Its docstring cites the source and says whether it is

* **exact** — no smaller ε is implied: some mechanism satisfying the notion (or, for the
  functions named after one mechanism, that mechanism itself) has exactly this privacy
  profile; or
* **conservative** — a valid upper bound on the smallest implied ε, possibly loose.

Every RDP → DP bound holds at *every* order α, so optimising over α (grid search plus
bounded refinement in :func:`optimal_rdp_to_dp`) can only make a bound tighter, never invalid:
whatever α the optimiser ends on, the returned ε is a valid bound at that α.

All functions return ``math.inf`` when nothing finite is implied (δ = 0 for RDP-type notions)
and raise ``ValueError`` naming the parameter for malformed inputs (ρ ≤ 0, ω ≤ 1, δ ∉ [0, 1),
α outside the curve's valid range).  This module is numeric only; the claim classes in
:mod:`dpaudit.claims.notions` call it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np
from scipy.optimize import brentq, minimize_scalar

from dpaudit.util import validation
from dpaudit.exact.gaussian import gaussian_delta, gaussian_epsilon


# -- input checks (messages name the offending parameter) -----------------------------------

def check_positive(value: float, what: str) -> float:
    return validation.positive(what, value)


def check_delta(value: float, what: str = "delta") -> float:
    return validation.delta(what, value)


def check_target_epsilon(value: float, what: str = "eps") -> float:
    value = float(value)
    if math.isnan(value) or value < 0:
        raise ValueError(f"{what} must be ≥ 0, got {value!r}")
    return value


def check_omega(value: float) -> float:
    value = float(value)
    if math.isnan(value) or value <= 1.0:
        raise ValueError(f"omega must be > 1 (it may be inf), got {value!r}")
    return value


def check_alpha_range(alpha_range) -> tuple[float, float]:
    try:
        lo, hi = (float(a) for a in alpha_range)
    except (TypeError, ValueError):
        raise ValueError(f"alpha_range must be a pair (lo, hi), got {alpha_range!r}") from None
    if not (math.isfinite(lo) and lo >= 1.0):
        raise ValueError(f"alpha_range lower end must be a finite number ≥ 1, got {lo!r}")
    if math.isnan(hi) or hi <= lo:
        raise ValueError(f"alpha_range upper end must exceed the lower end {lo}, got {hi!r}")
    return lo, hi


def alpha_in_range(alpha: float, lo: float, hi: float, hi_inclusive: bool = True) -> bool:
    return lo < alpha < hi or (hi_inclusive and alpha == hi and math.isfinite(hi))


# -- pure DP -------------------------------------------------------------------------------

def pure_dp_to_approx_dp(eps: float, delta: float) -> float:
    """Smallest ε′ such that every ε-DP mechanism is (ε′, δ)-DP.  **Exact.**

    Kairouz, Oh & Viswanath 2015 (Thm 2.4): every ε-DP pair is a post-processing of binary
    randomized response with parameter ε, whose profile is δ(ε′) = (e^ε − e^ε′)/(1 + e^ε) for
    0 ≤ ε′ ≤ ε.  Inverting: ε′ = ln(e^ε − δ(1 + e^ε)), or 0 when δ ≥ (e^ε − 1)/(e^ε + 1).
    (:class:`~dpaudit.claims.notions.PureDP` keeps the simpler, conservative identity ε′ = ε.)"""
    eps, delta = check_positive(eps, "eps"), check_delta(delta)
    # ln(e^ε − δ(1+e^ε)) = ε + ln(1 − δ(1 + e^−ε))
    arg = delta * (1.0 + math.exp(-eps))
    if arg >= 1.0:
        return 0.0
    return max(0.0, eps + math.log1p(-arg))


# -- RDP → (ε, δ) --------------------------------------------------------------------------

def rdp_to_dp_mironov(rdp_epsilon: float, alpha: float, delta: float) -> float:
    """ε = ε(α) + ln(1/δ)/(α − 1).  **Conservative.**

    Mironov 2017, "Rényi differential privacy", Prop. 3: (α, ε(α))-RDP ⇒ (ε, δ)-DP for every
    δ ∈ (0, 1).  Valid at every α > 1; δ = 0 gives ∞."""
    return _rdp_convert(rdp_epsilon, alpha, delta, _mironov)


def rdp_to_dp_cks(rdp_epsilon: float, alpha: float, delta: float) -> float:
    """ε = ε(α) + ln((α − 1)/α) − (ln δ + ln α)/(α − 1), clipped below at 0.  **Conservative.**

    Canonne, Kamath & Steinke 2020, "The discrete Gaussian for differential privacy",
    Prop. 12 (also Asoodeh et al. 2020, eq. 20; Prop. 1 of the Gaussian-mixing paper).  It is
    below Mironov's bound at every α > 1 by ln α/(α − 1) − ln(1 − 1/α) > 0.  This is the
    form ``dp_accounting.rdp.compute_epsilon`` uses: ε(α) + log1p(−1/α) − ln(δα)/(α − 1).
    Clipping at 0 is valid because the proposition holds for every ε ≥ 0 and its δ decreases
    in ε.  δ = 0 gives ∞."""
    return _rdp_convert(rdp_epsilon, alpha, delta, _cks)


def _mironov(r: float, a: float, log_delta: float) -> float:
    return r - log_delta / (a - 1.0)


def _cks(r: float, a: float, log_delta: float) -> float:
    return r + math.log1p(-1.0 / a) - (log_delta + math.log(a)) / (a - 1.0)


RDP_CONVERSIONS = {"cks": _cks, "mironov": _mironov}


def _rdp_convert(r, a, delta, formula) -> float:
    r, a, delta = float(r), float(a), check_delta(delta)
    if math.isnan(r) or r < 0:
        raise ValueError(f"rdp_epsilon must be ≥ 0, got {r!r}")
    if not (math.isfinite(a) and a > 1.0):
        raise ValueError(f"alpha must be a finite number > 1, got {a!r}")
    if delta == 0.0 or math.isinf(r):
        return math.inf
    return max(0.0, formula(r, a, math.log(delta)))


@dataclass(frozen=True)
class RdpConversion:
    """An RDP → DP conversion result: ``epsilon`` holds at ``delta`` via order ``alpha``."""

    epsilon: float
    alpha: float
    delta: float
    method: str


def optimal_rdp_to_dp(curve: Callable[[float], float], delta: float, *,
                      alpha_range=(1.0, math.inf), alpha_max_inclusive: bool = True,
                      method: str = "cks", orders: Iterable[float] | None = None,
                      grid_size: int = 400) -> RdpConversion:
    """min over α of an RDP → DP conversion of the curve ε(α).  **Conservative.**

    ``method`` is ``"cks"`` (:func:`rdp_to_dp_cks`, the default and always the tighter) or
    ``"mironov"`` (:func:`rdp_to_dp_mironov`).  With ``orders`` the minimum is over exactly
    those orders (each must lie in the valid range), as an order-list accountant such as
    ``dp_accounting.rdp.RdpAccountant`` does.  Otherwise over a log-spaced grid of α − lo on
    the valid range (lo, hi] (when hi = ∞: α − lo from 1e-5 to 1e7, extended up to 1e12 while
    the minimum sits at the top), followed by ``scipy.optimize.minimize_scalar`` (bounded)
    between the grid neighbours of the best grid point.  Any α gives a valid bound, so the
    best value found is returned with the α achieving it.  Curve values that overflow count
    as ∞; NaN or negative values raise ``ValueError``."""
    delta = check_delta(delta)
    lo, hi = check_alpha_range(alpha_range)
    if method not in RDP_CONVERSIONS:
        raise ValueError(f"method must be one of {sorted(RDP_CONVERSIONS)}, got {method!r}")
    formula = RDP_CONVERSIONS[method]
    if delta == 0.0:
        return RdpConversion(math.inf, math.nan, delta, method)
    log_delta = math.log(delta)

    def value(a: float) -> float:
        try:
            r = float(curve(a))
        except (OverflowError, ZeroDivisionError):
            return math.inf
        if math.isnan(r):
            raise ValueError(f"RDP curve is NaN at alpha={a!r}")
        if r < 0:
            raise ValueError(f"RDP curve is negative ({r!r}) at alpha={a!r}")
        return math.inf if math.isinf(r) else max(0.0, formula(r, a, log_delta))

    if orders is not None:
        alphas = [float(a) for a in orders]
        if not alphas:
            raise ValueError("orders must not be empty")
        for a in alphas:
            if not alpha_in_range(a, lo, hi, alpha_max_inclusive):
                raise ValueError(f"alpha={a!r} in orders lies outside the valid range "
                                 f"({lo}, {hi}{']' if alpha_max_inclusive else ')'}")
        vals = [value(a) for a in alphas]
        i = int(np.argmin(vals))
        return RdpConversion(vals[i], alphas[i], delta, method)

    # grid in t = ln(α − lo)
    if math.isfinite(hi):
        span = hi - lo
        t_hi = math.log(span) if alpha_max_inclusive else math.log(span * (1.0 - 1e-9))
        t_lo = math.log(span * 1e-8)
    else:
        t_lo, t_hi = math.log(1e-5), math.log(1e7)
    ts = list(np.linspace(t_lo, t_hi, grid_size))
    vals = [value(lo + math.exp(t)) for t in ts]
    step = ts[1] - ts[0]
    while math.isinf(hi) and int(np.argmin(vals)) == len(vals) - 1 and ts[-1] < math.log(1e12):
        ts.append(ts[-1] + step)
        vals.append(value(lo + math.exp(ts[-1])))
    i = int(np.argmin(vals))
    best_t, best = ts[i], vals[i]
    if math.isfinite(best):
        a_, b_ = ts[max(i - 1, 0)], ts[min(i + 1, len(ts) - 1)]
        res = minimize_scalar(lambda t: value(lo + math.exp(t)), bounds=(a_, b_),
                              method="bounded", options={"xatol": 1e-12, "maxiter": 200})
        if math.isfinite(res.x):
            refined = value(lo + math.exp(res.x))  # re-evaluate: never trust res.fun blindly
            if refined < best:
                best_t, best = float(res.x), refined
    return RdpConversion(best, lo + math.exp(best_t), delta, method)


# -- zCDP and truncated CDP -----------------------------------------------------------------

def zcdp_to_dp_bun_steinke(rho: float, delta: float) -> float:
    """ε = ρ + 2√(ρ ln(1/δ)).  **Conservative.**

    Bun & Steinke 2016, "Concentrated differential privacy", Prop. 1.3 (Mironov's bound at
    the optimal real α = 1 + √(ln(1/δ)/ρ)).  δ = 0 gives ∞."""
    rho, delta = check_positive(rho, "rho"), check_delta(delta)
    if delta == 0.0:
        return math.inf
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def zcdp_to_dp_cks(rho: float, delta: float) -> float:
    """min over α > 1 of the CKS conversion (:func:`rdp_to_dp_cks`) of the RDP curve ρα.
    **Conservative** (Canonne, Kamath & Steinke 2020, Prop. 12 applied to ρ-zCDP)."""
    rho = check_positive(rho, "rho")
    return optimal_rdp_to_dp(lambda a: rho * a, delta, method="cks").epsilon


def zcdp_to_dp(rho: float, delta: float) -> float:
    """Best of :func:`zcdp_to_dp_bun_steinke` and :func:`zcdp_to_dp_cks` (both valid for any
    ρ-zCDP mechanism, so their minimum is too).  **Conservative.**"""
    return min(zcdp_to_dp_bun_steinke(rho, delta), zcdp_to_dp_cks(rho, delta))


def gaussian_mechanism_zcdp_to_dp(rho: float, delta: float) -> float:
    """Exact ε(δ) of the *Gaussian mechanism* with ρ = Δ²/(2σ²).  **Exact, Gaussian only.**

    Valid only when the mechanism is the Gaussian mechanism (or any μ-GDP one): then
    μ = Δ/σ = √(2ρ) and ε(δ) is the GDP/analytic-Gaussian curve (Balle & Wang 2018, Thm 8;
    Dong, Roth & Su 2022, Cor. 2.13).  A general ρ-zCDP mechanism is *not* covered: use
    :func:`zcdp_to_dp`."""
    rho, delta = check_positive(rho, "rho"), check_delta(delta)
    return gaussian_epsilon(delta, math.sqrt(2.0 * rho))


def tcdp_to_dp(rho: float, omega: float, delta: float) -> float:
    """(ρ, ω)-tCDP ⇒ (ε, δ)-DP.  **Conservative.**

    Bun, Dwork, Rothblum & Steinke 2018, "Composable and versatile privacy via truncated CDP",
    Lemma 6: with L = ln(1/δ),
        ε = ρ + 2√(ρL)            if L ≤ (ω − 1)²ρ,
        ε = ρω + L/(ω − 1)        otherwise.
    (Mironov's bound at α = min(1 + √(L/ρ), ω); both branches equal ρ(2ω − 1) at the
    boundary.)  ω = ∞ reduces to zCDP (Bun & Steinke Prop. 1.3).  δ = 0 gives ∞."""
    rho, omega, delta = check_positive(rho, "rho"), check_omega(omega), check_delta(delta)
    if delta == 0.0:
        return math.inf
    L = -math.log(delta)
    try:
        boundary = (omega - 1.0) ** 2 * rho
    except OverflowError:  # (ω − 1)² beyond a float: the boundary is ∞, as for ω = ∞
        boundary = math.inf
    if math.isinf(omega) or L <= boundary:
        return rho + 2.0 * math.sqrt(rho * L)
    return rho * omega + L / (omega - 1.0)


# -- Gaussian differential privacy ----------------------------------------------------------

def gdp_to_dp_delta(mu: float, eps: float) -> float:
    """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) of μ-GDP.  **Exact.**

    Dong, Roth & Su 2022, "Gaussian differential privacy", Cor. 2.13: μ-GDP ⇔ (ε, δ(ε))-DP for
    all ε ≥ 0 (computed by :func:`dpaudit.exact.gaussian.gaussian_delta`)."""
    return float(gaussian_delta(check_target_epsilon(eps), check_positive(mu, "mu")))


def gdp_to_dp_epsilon(mu: float, delta: float) -> float:
    """Smallest ε with δ_μ(ε) ≤ δ for μ-GDP.  **Exact** (inverse of :func:`gdp_to_dp_delta`,
    :func:`dpaudit.exact.gaussian.gaussian_epsilon`), rounded up by ulps if needed so that
    δ_μ(ε) ≤ δ holds at the result; δ = 0 gives ∞."""
    delta, mu = check_delta(delta), check_positive(mu, "mu")
    eps = gaussian_epsilon(delta, mu)
    while 0.0 < eps < math.inf and gaussian_delta(eps, mu) > delta:
        eps = math.nextafter(eps, math.inf)
    return eps


def dp_to_gdp_mu(eps: float, delta: float) -> float:
    """The μ whose GDP curve passes through (ε, δ): the *largest* μ such that μ-GDP implies
    (ε, δ)-DP (δ_μ(ε) increases strictly in μ).  **Exact** (inversion in μ of Dong, Roth & Su
    2022, Cor. 2.13); the result is rounded down so that δ_μ(ε) ≤ δ holds at it.  This is the
    noise calibration direction: σ = Δ/μ is the smallest σ for which the Gaussian mechanism is
    (ε, δ)-DP.  δ = 0 gives 0 (no μ > 0 is pure DP)."""
    eps, delta = check_positive(eps, "eps"), check_delta(delta)
    if delta == 0.0:
        return 0.0
    target = math.log(delta)

    def g(mu: float) -> float:  # ln δ_μ(ε) − ln δ, increasing in μ
        d = float(gaussian_delta(eps, mu))
        return (math.log(d) if d > 0 else -800.0) - target

    lo, hi = 1.0, 1.0
    while g(lo) >= 0:
        lo /= 2.0
    while g(hi) < 0:
        hi *= 2.0
    mu = float(brentq(g, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500))
    while gaussian_delta(eps, mu) > delta:  # round down: δ_μ(ε) ≤ δ must hold at the result
        mu = math.nextafter(mu, 0.0)
    return mu


def analytic_gaussian_epsilon(delta: float, sigma: float, sensitivity: float = 1.0) -> float:
    """Exact ε(δ) of the Gaussian mechanism N(f(D), σ²) with ℓ₂-sensitivity Δ.  **Exact.**

    Balle & Wang 2018, "Improving the Gaussian mechanism", Thm 8 (the analytic Gaussian
    mechanism); equal to μ-GDP with μ = Δ/σ."""
    mu = check_positive(sensitivity, "sensitivity") / check_positive(sigma, "sigma")
    return gdp_to_dp_epsilon(mu, delta)


def analytic_gaussian_delta(eps: float, sigma: float, sensitivity: float = 1.0) -> float:
    """Exact δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Thm 8).  **Exact.**"""
    mu = check_positive(sensitivity, "sensitivity") / check_positive(sigma, "sigma")
    return gdp_to_dp_delta(mu, eps)

