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

**Families** (:class:`TradeOffFamily`).  A family t ↦ f_t is indexed by t = ε(δ) of its
member at the audit's δ and is pointwise nonincreasing in t (a larger t is a weaker curve,
harder to reject), so the t a test rejects form an interval [0, t*]; ``weakest()`` is the
limit of f_t as t → ∞ where that is not the trivial curve, and a point below it rejects
*every* member (t* = ∞).

* :class:`ApproxDPFamily` — f_t = f_{t,δ}, the curve of (t, δ)-DP.  Every mechanism whose
  ε(δ) is t is f_{t,δ}-DP, so a rejected t is a **lower bound on ε(δ) valid for any
  mechanism**: the number a canary audit reports as its ε_LB.
* :class:`GaussianFamily` — μ-GDP curves (μ(t) the μ whose ε(δ) is t): the family of
  Mahloujifar, Melis & Chaudhuri 2024 and of ``jax_privacy.auditing``.  Rejecting G_μ is sound
  for any mechanism ("it is not μ-GDP"), but t* = ε_μ*(δ) is a lower bound on ε(δ) only if the
  mechanism's curve is Gaussian: a non-GDP mechanism can fail G_μ at one point while its ε(δ)
  lies far below ε_μ(δ).  A canary audit reports it as a labelled figure, never as ε_LB.
* :class:`ScaledProfileFamily` — for any other claim, f_t = curve of {(εᵢ·t/ε_c, δᵢ)} with ε_c
  the claim's ε(δ): at t = ε_c the claim's own (conservative) curve, weaker as t grows.  Its
  t* is an ε(δ) only for a mechanism whose curve is the claim's profile with ε scaled; and the
  members never drop below 1 − δ(0) − α (the claim's points at ε = 0 do not scale), so a
  certified point below that line rejects every member.  Also a labelled figure only.

Whatever the family, "t* > the claimed ε" is "the test rejects the claim's own curve": the
verdict of a canary audit is that rejection (:mod:`dpaudit.mechanisms.canaries.evidence`).

Curves are evaluated in log space (e^ε is never formed), so a large t (a weak member) gives
no overflow.

This module imports scipy, :mod:`dpaudit.claims`, the capability
:class:`~dpaudit.stats.threshold_tradeoff.ClosedFormRule` and its (ε, δ) conversion.
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
from dpaudit.exact.gaussian import gaussian_log_delta
from dpaudit.stats.threshold_tradeoff import ClosedFormRule, approx_dp_epsilon

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
        object.__setattr__(self, "_eps", eps)
        object.__setattr__(self, "_one_minus_delta", 1.0 - dl)

    def __call__(self, alpha: float) -> float:
        a = min(max(float(alpha), 0.0), 1.0)
        # 1 − δᵢ − e^{εᵢ}α ≥ 0 needs εᵢ + ln α ≤ ln(1 − δᵢ) ≤ 0: exp of a clipped exponent
        first = (self._one_minus_delta - np.exp(np.minimum(self._eps + math.log(a), 1.0))
                 if a > 0 else self._one_minus_delta)
        second = (self._one_minus_delta - a) * np.exp(-self._eps)
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

    def weakest(self) -> TradeOffCurve | None:
        """The pointwise limit of f_t as t → ∞, below every member; None when it is the
        trivial curve (0 on (0, 1]), which no certified point lies below."""
        return None

    def describe_member(self, t: float) -> str:
        """What rejecting every member up to ``t`` says, in words."""
        return f"every {self.name} curve up to ε(δ) = {t:.4g} rejected"


@dataclass(frozen=True)
class ApproxDPFamily(ClosedFormRule, TradeOffFamily):
    """f_t = f_{t,δ}, the trade-off curve of (t, δ)-DP: its t* is a lower bound on ε(δ)
    valid for any mechanism (module docstring)."""

    delta: float
    claimed: float = math.nan
    name: str = "eps-delta"

    def curve(self, t: float) -> TradeOffCurve:
        return ProfileTradeOff((max(float(t), 0.0),), (self.delta,))

    def largest_rejecting(self, alpha: float, beta: float) -> float:
        """sup{t : β < f_{t,δ}(α)} = max(0, ln((1 − δ − α)/β), ln((1 − δ − β)/α))
        (:func:`~dpaudit.stats.threshold_tradeoff.approx_dp_epsilon`)."""
        return float(approx_dp_epsilon(alpha, beta, self.delta))


@dataclass(frozen=True)
class GaussianFamily(ClosedFormRule, TradeOffFamily):
    """μ-GDP curves indexed by their ε(δ); μ(t) solved and nudged *up* (a weaker curve: a
    rejection at t is a rejection of every μ-GDP claim with ε(δ) ≤ t)."""

    delta: float
    claimed: float
    name: str = "gdp"

    def mu(self, t: float) -> float:
        """The μ whose ε(δ) is ``t``: the root of ln δ_μ(t) = ln δ, δ_μ(t) the μ-GDP curve's
        δ at ε = t (Dong, Roth & Su 2022, Cor. 2.13), increasing in μ — one root-find in
        log space, not a root-find over ε(δ)'s own root-find; 0 at t ≤ 0 or δ = 0 (every
        μ > 0 has ε(0) = ∞)."""
        if t <= 0.0 or self.delta <= 0.0:
            return 0.0
        target = math.log(self.delta)

        def g(mu: float) -> float:  # increasing in μ; −∞ (δ underflows) clipped for brentq
            return max(gaussian_log_delta(t, mu), -1e300) - target

        hi = 1.0
        while g(hi) < 0:
            hi *= 2.0
            if hi > 1e4:
                return math.inf
        lo = hi / 2.0
        while g(lo) >= 0:
            lo /= 2.0
        mu = float(brentq(g, lo, hi, xtol=1e-13, maxiter=300))
        return mu * (1.0 + 1e-12) + 2e-13  # above the root whatever brentq's side

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

    def describe_member(self, t: float) -> str:
        return (f"not μ-GDP for any μ ≤ {self.mu(t):.4g} (ε(δ) ≥ {t:.4g} if the curve is "
                f"Gaussian)")


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

    @property
    def floor_delta(self) -> float | None:
        """δ(0): the smallest δ of the claim's points at ε = 0 (None without one)."""
        zeros = [d for e, d in zip(self.epsilons, self.deltas) if e == 0.0]
        return min(zeros) if zeros else None

    def weakest(self) -> TradeOffCurve | None:
        """max(0, 1 − δ(0) − α): the points at ε = 0 do not scale (module docstring)."""
        floor = self.floor_delta
        return None if floor is None else ProfileTradeOff((0.0,), (floor,))

    def describe_member(self, t: float) -> str:
        return (f"the claim's profile with ε scaled to ε(δ) ≤ {t:.4g} rejected (ε(δ) ≥ "
                f"{t:.4g} if the curve has that shape)")


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


__all__ = ["ApproxDPFamily", "GaussianFamily", "GaussianTradeOff", "PROFILE_DELTAS", "ProfileTradeOff",
           "ScaledProfileFamily", "TradeOffCurve", "TradeOffFamily", "claim_family",
           "claim_profile_points"]
