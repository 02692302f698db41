"""Trade-off curves of claims, and the one-parameter families a canary audit tests against.

**Trade-off functions** (Dong, Roth & Su 2022, Def. 2.1–2.2).  For a pair of output laws
(P, Q), T(P, Q)(α) = inf{β_φ : α_φ ≤ α} over rejection rules φ, with α_φ = E_P[φ] the type-I
and β_φ = 1 − E_Q[φ] the type-II error.  A mechanism is f-DP when T(M(D), M(D′)) ≥ f for
every pair of neighbours.  The curves here are *symmetric* (f = f⁻¹: the claim holds for both
orders of a pair, as every DP notion dpaudit holds does), convex, continuous and
nonincreasing on [0, 1] with f(α) ≤ 1 − α.

* :class:`GaussianTradeOff` — G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the curve of μ-GDP (their Def. 2.7).
* :class:`ProfileTradeOff` — the curve implied by finitely many (εᵢ, δᵢ)-DP statements
  (their Prop. 2.5 and 2.12: (ε, δ)-DP ⇔ f_{ε,δ}-DP with
  f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)), and a set of such statements is
  f-DP for the pointwise maximum).  Built from any :class:`~dpaudit.claims.base.Claim`
  through its ``epsilon(δ)`` on a δ grid (:func:`claim_profile_points`): every point is implied
  by the claim (``epsilon(δ)`` is exact or conservative), so the curve is ≤ the claim's true
  curve pointwise — *conservative*: a test that rejects it rejects the claim.  It equals the
  claim's curve in the limit of a dense grid (their Prop. 2.12), which is how an accountant's
  privacy profile (PLD, PRV, RDP converted by CKS) becomes a trade-off curve.

**Families** (:class:`TradeOffFamily`): a canary audit reports one number, the ε at the audit's
δ of the weakest curve of a family it rejects.  A family t ↦ f_t is indexed by t = ε(δ) of
its member, is pointwise nonincreasing in t (a larger t is a weaker claim, harder to reject),
and passes through the claim at t = claim.epsilon(δ).  So "the bound exceeds the claimed ε" is
exactly "the test rejects the claim's own curve", whatever the family.

* GDP claims: the GDP family (μ(t) the μ whose ε(δ) is t) — the family of Mahloujifar, Melis &
  Chaudhuri 2024 and of ``jax_privacy.auditing``;
* any other claim: the *scaled profile* f_t = curve of {(εᵢ·t/ε_c, δᵢ)} with ε_c the claim's
  ε(δ): at t = ε_c the claim's own profile curve, weaker as t grows.

This module imports scipy, :mod:`dpaudit.claims` and the capability
:class:`~dpaudit.stats.threshold_tradeoff.ClosedFormRule`.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from scipy.optimize import brentq

from dpaudit.claims.base import Claim
from dpaudit.claims.capabilities import ProfileCurve
from dpaudit.claims.conversions import gdp_to_dp_epsilon
from dpaudit.claims.notions import GDP
from dpaudit.stats.threshold_tradeoff import ClosedFormRule

_NORMAL = NormalDist()
#: δ grid of :func:`claim_profile_points` (log-spaced, plus the audit's own δ)
PROFILE_DELTAS = tuple(float(d) for d in np.logspace(-10, math.log10(0.5), 16))
#: ε grid of a claim that states δ(ε): PROFILE_EPSILON_POINTS points on [0, span × claimed ε]
PROFILE_EPSILON_SPAN, PROFILE_EPSILON_POINTS = 3.0, 61


class TradeOffCurve(abc.ABC):
    """A symmetric trade-off function f on [0, 1] (module docstring)."""

    @abc.abstractmethod
    def __call__(self, alpha: float) -> float:
        """f(α), the smallest type-II error of a test whose type-I error is ≤ α."""

    @abc.abstractmethod
    def describe(self) -> str:
        """One line naming the curve and its parameters."""


@dataclass(frozen=True)
class GaussianTradeOff(TradeOffCurve):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), μ ≥ 0 (μ-GDP)."""

    mu: float

    def __call__(self, alpha: float) -> float:
        if alpha <= 0.0:
            return 1.0
        if alpha >= 1.0:
            return 0.0
        return _NORMAL.cdf(_NORMAL.inv_cdf(1.0 - alpha) - self.mu)

    def describe(self) -> str:
        return f"G_μ, μ = {self.mu:.6g}"


@dataclass(frozen=True)
class ProfileTradeOff(TradeOffCurve):
    """max(0, maxᵢ(1 − δᵢ − e^{εᵢ}α), maxᵢ e^{−εᵢ}(1 − δᵢ − α)) over the points (εᵢ, δᵢ)."""

    epsilons: tuple
    deltas: tuple

    def __post_init__(self):
        eps = np.asarray(self.epsilons, dtype=float)
        dl = np.asarray(self.deltas, dtype=float)
        if eps.shape != dl.shape or eps.ndim != 1 or eps.size == 0:
            raise ValueError("a profile curve needs one δ per ε, at least one point")
        if np.any(~np.isfinite(eps)) or np.any(eps < 0) or np.any(dl < 0) or np.any(dl >= 1):
            raise ValueError("profile points need finite ε ≥ 0 and δ in [0, 1)")
        object.__setattr__(self, "_e", np.exp(eps))
        object.__setattr__(self, "_one_minus_delta", 1.0 - dl)

    def __call__(self, alpha: float) -> float:
        a = min(max(float(alpha), 0.0), 1.0)
        first = self._one_minus_delta - self._e * a
        second = (self._one_minus_delta - a) / self._e
        return float(max(0.0, first.max(), second.max()))

    def describe(self) -> str:
        return f"the trade-off curve of {len(self.epsilons)} (ε, δ) points of the claim"


def claim_profile_points(claim: Claim, delta: float,
                         deltas=PROFILE_DELTAS) -> tuple[tuple, tuple]:
    """(εᵢ, δᵢ): the claim's ε at δ = ``delta``, and either its δ(ε) on an ε grid (a
    :class:`~dpaudit.claims.capabilities.ProfileCurve`: 0 to 3× the claimed ε) or
    ``claim.epsilon(δᵢ)`` on the δ grid, the points with a finite ε kept (a grid point where the claim raises ValueError is dropped: fewer points give a
    lower, still conservative curve).

    Raises:
      ValueError: the claim implies no finite ε at ``delta`` (nothing to test against).
    """
    claimed = claim.epsilon(delta)  # errors at the audit's own δ are the caller's to report
    if not math.isfinite(claimed):
        raise ValueError(f"the claim {claim.describe()} implies no finite ε at δ = {delta:g}")
    points = [(claimed, float(delta))]
    if isinstance(claim, ProfileCurve):  # tabulate δ(ε) directly: one call per point
        for e in claimed * np.linspace(0.0, PROFILE_EPSILON_SPAN, PROFILE_EPSILON_POINTS):
            d = float(claim.delta(float(e)))
            if 0.0 <= d < 1.0:
                points.append((float(e), d))
        points.sort(key=lambda p: p[1])
        return tuple(e for e, _ in points), tuple(d for _, d in points)
    for d in sorted(set(deltas) - {float(delta)}):
        try:
            e = claim.epsilon(d)
        except ValueError:  # e.g. an accountant that cannot go that far: the point is dropped
            continue
        if math.isfinite(e):
            points.append((e, d))
    points.sort(key=lambda p: p[1])
    return tuple(e for e, _ in points), tuple(d for _, d in points)


class TradeOffFamily(abc.ABC):
    """t ↦ f_t, t = ε(δ) of the member, pointwise nonincreasing in t (module docstring)."""

    #: the t of the claim itself
    claimed: float
    #: a short name for reports
    name: str = "abstract"

    @abc.abstractmethod
    def curve(self, t: float) -> TradeOffCurve:
        """The member whose ε at the audit's δ is ``t`` (t ≥ 0)."""


@dataclass(frozen=True)
class GaussianFamily(ClosedFormRule, TradeOffFamily):
    """μ-GDP curves indexed by their ε(δ); μ(t) solved and nudged *up* (a weaker curve: a
    rejection at t is a rejection of every μ-GDP claim with ε(δ) ≤ t)."""

    delta: float
    claimed: float
    name: str = "gdp"

    def mu(self, t: float) -> float:
        if t <= 0.0:
            return 0.0
        g = lambda mu: gdp_to_dp_epsilon(mu, self.delta) - t  # noqa: E731 (increasing in μ)
        hi = 1.0
        while g(hi) < 0:
            hi *= 2.0
            if hi > 1e4:
                return math.inf
        mu = float(brentq(g, 1e-9, hi, xtol=1e-13, maxiter=300))
        return mu * (1.0 + 1e-12)

    def curve(self, t: float) -> TradeOffCurve:
        return GaussianTradeOff(self.mu(t))

    def largest_rejecting(self, alpha: float, beta: float) -> float:
        """The largest t with β < f_t(α) in closed form: G_μ(α) > β iff
        μ < μ* = Φ⁻¹(1 − α) − Φ⁻¹(β), so t* = ε(δ) of μ* (0 when μ* ≤ 0)."""
        if alpha >= 1.0 or beta >= 1.0:
            return 0.0
        if alpha <= 0.0 or beta <= 0.0:
            return math.inf
        mu = _NORMAL.inv_cdf(1.0 - alpha) - _NORMAL.inv_cdf(beta)
        return 0.0 if mu <= 0 else gdp_to_dp_epsilon(mu, self.delta)


@dataclass(frozen=True)
class ScaledProfileFamily(TradeOffFamily):
    """The profile curve of the points (εᵢ·t/ε_c, δᵢ); ε_c = ``claimed``."""

    epsilons: tuple
    deltas: tuple
    claimed: float
    name: str = "claim-profile"

    def curve(self, t: float) -> TradeOffCurve:
        scale = max(float(t), 0.0) / self.claimed
        return ProfileTradeOff(tuple(e * scale for e in self.epsilons), self.deltas)


def claim_family(claim: Claim, delta: float) -> TradeOffFamily:
    """The family a canary audit tests ``claim`` with at ``delta`` (module docstring).

    Raises:
      ValueError: the claim implies no finite ε > 0 at ``delta``.
    """
    claimed = claim.epsilon(delta)
    if not math.isfinite(claimed) or claimed <= 0:
        raise ValueError(f"the claim {claim.describe()} implies no finite ε > 0 at "
                         f"δ = {delta:g}: nothing a canary audit can test")
    if isinstance(claim, GDP):
        return GaussianFamily(float(delta), float(claimed))
    epsilons, deltas = claim_profile_points(claim, delta)
    return ScaledProfileFamily(epsilons, deltas, float(claimed))


__all__ = ["GaussianFamily", "GaussianTradeOff", "PROFILE_DELTAS", "ProfileTradeOff",
           "ScaledProfileFamily", "TradeOffCurve", "TradeOffFamily", "claim_family",
           "claim_profile_points"]
