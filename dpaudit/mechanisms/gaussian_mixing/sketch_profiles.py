"""Exact privacy profiles of Gaussian sketches: k i.i.d. zero-mean Gaussian rows.

A Gaussian sketch releases a k × d matrix whose rows are i.i.d. N(0, Σ) (GaussMix:
Σ = XᵀX + σ²I).  A pair of datasets gives P₀ = N(0, Σ₀)^{⊗k} and P₁ = N(0, Σ₁)^{⊗k}.  With the
generalised eigenvalues λᵢ of (Σ₀, Σ₁) (Σ₀uᵢ = λᵢΣ₁uᵢ, uᵢᵀΣ₁uⱼ = δᵢⱼ) the coordinates
wᵢⱼ = (row j)·uᵢ are independent, N(0, λᵢ) under P₀ and N(0, 1) under P₁; coordinates with
λᵢ = 1 carry no information, so the pair is equivalent (a sufficient statistic) to
⊗_{λᵢ≠1} [N(0, λᵢ I_k) vs N(0, I_k)].

**Rank one** (one λ ≠ 1 — every zero-out neighbour pair of GaussMix, where Σ₀ − Σ₁ = ±xxᵀ):
the pair is N(0, v₀I_k) vs N(0, v₁I_k) and its privacy loss is a scaled χ²_k,

    L(z) = (k/2) ln(v₁/v₀) + c‖z‖²,   c = 1/(2v₁) − 1/(2v₀),

so with T the threshold where L = ε, in closed form (:class:`ScaledChiSquareProfile`):

    v₀ > v₁:  {L > ε} = {‖z‖² > T},  δ(ε) = Q_k(T/v₀) − e^ε Q_k(T/v₁),
    v₀ < v₁:  {L > ε} = {‖z‖² < T},  δ(ε) = P_k(T/v₀) − e^ε P_k(T/v₁),

with T = (ε − (k/2) ln(v₁/v₀))/c and P_k, Q_k the χ²_k distribution and survival functions
(scipy's regularised incomplete gamma functions, evaluated in log space; the difference is
taken as P₀(A)·(−expm1(ε + ln P₁(A) − ln P₀(A))), so no cancellation beyond that of the two
masses).  For v₀ < v₁ the loss is bounded by (k/2) ln(v₁/v₀) (the max loss).  Rényi:
D_α = −k/(2(α−1))·[ln v_α − (1−α) ln v₀ − α ln v₁], v_α = αv₁ + (1−α)v₀ (∞ if v_α ≤ 0),
i.e. k times the one-row divergence (:func:`dpaudit.exact.renyi.isotropic_gaussian_renyi`).
Tolerance: rtol 1e-10 (incomplete gamma functions to ~1e-14 relative).

**General rank** r > 1: the loss is a generalised χ² with each λᵢ repeated k times, handled by
:class:`~dpaudit.exact.gaussian_general.GaussianProfile` on the kr informative coordinates
(diagonal covariances), so only r·k ≤ :data:`MAX_GENERAL_COORDINATES` is accepted.

:func:`sketch_pair_profile` builds the profile of a pair from Σ₀, Σ₁ and k;
:func:`sketch_pair_renyi` is the closed-form D_α (k × Gil et al.'s formula, any rank).

**Scale mixtures, one column** (:class:`ChiSquareScaleMixtureProfile`): when the noise level is
itself random (ModifiedGaussMix draws it from a private λ_min estimate) and d = 1, the output
is a k-vector whose law is a mixture Σⱼ wⱼ N(0, vⱼI_k); r = ‖z‖² is sufficient, with density
f(r) = Σⱼ wⱼ g_k(r/vⱼ)/vⱼ (g_k the χ²_k density).  δ(ε) = ∫ (f₀ − e^ε f₁)₊ dr is integrated
numerically in u = ln r over the range where every component has mass above 10⁻¹⁶, by the
trapezoidal rule on 2¹⁵ points (the densities are computed once; O(h²) error, h ≈ 10⁻³, also at
the kinks of (·)₊), plus the atom at r = 0 of zero-variance components.  Not a closed form: its
stated tolerance (rtol 1e-4) is the quadrature's; against :class:`ScaledChiSquareProfile` on
one-component mixtures the error is ≤ 1e-5 (k = 1, where the χ²₁ density is steepest) and
≤ 2e-7 for k ≥ 5.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats
from scipy.special import logsumexp

from dpaudit.exact.gaussian_general import GaussianProfile
from dpaudit.exact.profile import PrivacyProfile, Tolerance, log_hockey_piece
from dpaudit.exact.renyi import gaussian_renyi, isotropic_gaussian_renyi

#: generalised eigenvalues within this relative distance of 1 count as 1 (no information)
EIGEN_TOL = 1e-10
#: largest r·k accepted for a pair whose covariances differ in r > 1 directions
MAX_GENERAL_COORDINATES = 400
#: grid points in ln ‖z‖² for the scale-mixture quadrature
MIXTURE_GRID = 1 << 15


def _log_chi2_sf(x: float, k: float) -> float:
    """ln Q_k(x) = ln P(χ²_k > x)."""
    if x <= 0:
        return 0.0
    v = special.gammaincc(k / 2.0, x / 2.0)
    if v > 0:
        return math.log(v)
    # far tail: Q_k(x) ~ (x/2)^{k/2−1} e^{−x/2} / Γ(k/2)
    return (k / 2.0 - 1.0) * math.log(x / 2.0) - x / 2.0 - special.gammaln(k / 2.0)


def _log_chi2_cdf(x: float, k: float) -> float:
    """ln P_k(x) = ln P(χ²_k ≤ x)."""
    if x <= 0:
        return -math.inf
    v = special.gammainc(k / 2.0, x / 2.0)
    if v > 0:
        return math.log(v)
    # small x: P_k(x) ~ (x/2)^{k/2} / Γ(k/2 + 1)
    return (k / 2.0) * math.log(x / 2.0) - special.gammaln(k / 2.0 + 1.0)


class ScaledChiSquareProfile(PrivacyProfile):
    """N(0, v₀ I_k) vs N(0, v₁ I_k) — the rank-one Gaussian sketch pair (module docstring)."""

    tolerance = Tolerance(1e-10, 1e-300)

    def __init__(self, var0: float, var1: float, k: int):
        v0, v1 = float(var0), float(var1)
        if not (v0 > 0 and v1 > 0 and math.isfinite(v0) and math.isfinite(v1)):
            raise ValueError(f"variances must be finite and > 0, got {var0!r}, {var1!r}")
        if isinstance(k, bool) or int(k) != k or int(k) < 1:
            raise ValueError(f"k must be an integer ≥ 1, got {k!r}")
        self.v0, self.v1, self.k = v0, v1, int(k)
        self.c = 0.5 / v1 - 0.5 / v0
        self.offset = 0.5 * self.k * math.log(v1 / v0)
        self.name = f"N(0,{v0:.6g}·I_{self.k}) vs N(0,{v1:.6g}·I_{self.k})"

    def reversed(self) -> "ScaledChiSquareProfile":
        return ScaledChiSquareProfile(self.v1, self.v0, self.k)

    def _log_masses(self, eps: float) -> tuple[float, float]:
        """(ln P₀(L > ε), ln P₁(L > ε))."""
        if self.c == 0.0:
            return (0.0, 0.0) if self.offset > eps else (-math.inf, -math.inf)
        T = (eps - self.offset) / self.c
        if self.c > 0:  # {‖z‖² > T}
            return _log_chi2_sf(T / self.v0, self.k), _log_chi2_sf(T / self.v1, self.k)
        return _log_chi2_cdf(T / self.v0, self.k), _log_chi2_cdf(T / self.v1, self.k)

    def _log_delta(self, eps: float) -> float:
        lp0, lp1 = self._log_masses(float(eps))
        return float(log_hockey_piece(lp0, lp1, float(eps)))

    def _delta(self, eps: float) -> float:
        return math.exp(self._log_delta(eps))

    def max_loss(self) -> float:
        if self.c == 0.0:
            return 0.0
        return math.inf if self.c > 0 else self.offset

    def total_variation(self) -> float:
        return self._delta(0.0)

    def _renyi(self, alpha: float) -> float:
        return isotropic_gaussian_renyi(0.0, math.sqrt(self.v0), math.sqrt(self.v1), self.k,
                                        alpha)


class ChiSquareScaleMixtureProfile(PrivacyProfile):
    """Σⱼ w₀ⱼ N(0, v₀ⱼ I_k) vs Σⱼ w₁ⱼ N(0, v₁ⱼ I_k), by quadrature in ln ‖z‖² (module
    docstring).  ``log_weights`` need not be normalised (they are, here)."""

    tolerance = Tolerance(1e-4, 1e-300)

    def __init__(self, log_weights0, variances0, log_weights1, variances1, k: int):
        self.k = int(k)
        self.parts, self.atoms, self._args = [], [], (log_weights0, variances0, log_weights1,
                                                       variances1)
        for lw, v in ((log_weights0, variances0), (log_weights1, variances1)):
            lw, v = np.asarray(lw, float).ravel(), np.asarray(v, float).ravel()
            if lw.shape != v.shape or np.any(v < 0) or not np.all(np.isfinite(v)):
                raise ValueError("each mixture needs matching log-weights and variances ≥ 0")
            lw = lw - logsumexp(lw)
            zero = v == 0.0   # a variance-0 component is an atom at the zero output
            self.atoms.append(float(np.exp(logsumexp(lw[zero]))) if zero.any() else 0.0)
            keep = ~zero & (lw > -745.0)
            self.parts.append((lw[keep], v[keep]))
        allv = np.concatenate([self.parts[0][1], self.parts[1][1]])
        self.lo = math.log(allv.min() * stats.chi2.ppf(1e-16, self.k))
        self.hi = math.log(allv.max() * stats.chi2.isf(1e-16, self.k))
        self.name = f"χ²_{self.k} scale mixtures ({self.parts[0][1].size} vs {self.parts[1][1].size})"
        self._cache = None  # the quadrature grid, computed on first use (:meth:`_grid`)

    def reversed(self):
        l0, v0, l1, v1 = self._args
        return ChiSquareScaleMixtureProfile(l1, v1, l0, v0, self.k)

    def _log_density(self, side: int, u):
        """ln of the density of ln ‖z‖² at the points u."""
        lw, v = self.parts[side]
        u = np.atleast_1d(np.asarray(u, float))
        x = np.exp(u[:, None]) / v[None, :]            # ‖z‖²/vⱼ ~ χ²_k
        half = 0.5 * self.k
        log_chi2 = (half - 1.0) * np.log(x) - 0.5 * x - half * math.log(2.0) - special.gammaln(half)
        return logsumexp(lw[None, :] + log_chi2 - np.log(v)[None, :], axis=1) + u

    def _grid(self):
        """The log-densities of ln ‖z‖² on :data:`MIXTURE_GRID` equispaced points (cached)."""
        if self._cache is None:
            u = np.linspace(self.lo, self.hi, MIXTURE_GRID)
            self._cache = (u, self._log_density(0, u), self._log_density(1, u))
        return self._cache

    def _delta(self, eps: float) -> float:
        u, l0, l1 = self._grid()
        vals = np.exp(l0) * -np.expm1(np.minimum(l1 + eps - l0, 0.0))
        value = float(np.trapezoid(vals, u))
        atom = max(0.0, self.atoms[0] - math.exp(eps) * self.atoms[1])
        return max(0.0, value) + atom

    def mismatch(self) -> float:
        return self.atoms[0] if self.atoms[1] == 0.0 else 0.0

    def max_loss(self) -> float:
        return math.inf


def generalised_eigenvalues(cov0, cov1) -> np.ndarray:
    """The λᵢ with Σ₀u = λΣ₁u (Σ₁ positive definite), sorted; via the Cholesky factor of Σ₁."""
    c0, c1 = _covariance(cov0, "cov0"), _covariance(cov1, "cov1")
    if c0.shape != c1.shape:
        raise ValueError(f"covariances must have the same shape, got {c0.shape} and {c1.shape}")
    try:
        L = np.linalg.cholesky(c1)
    except np.linalg.LinAlgError:
        raise ValueError("cov1 must be positive definite") from None
    Li = np.linalg.inv(L)
    lam = np.linalg.eigvalsh(Li @ c0 @ Li.T)
    if lam[0] <= 0:
        raise ValueError("cov0 must be positive definite")
    return lam


def _covariance(cov, what: str) -> np.ndarray:
    c = np.atleast_2d(np.asarray(cov, dtype=float))
    if c.ndim != 2 or c.shape[0] != c.shape[1]:
        raise ValueError(f"{what} must be a square matrix, got shape {c.shape}")
    if not np.all(np.isfinite(c)):
        raise ValueError(f"{what} contains a non-finite entry")
    return 0.5 * (c + c.T)


def informative_eigenvalues(cov0, cov1) -> np.ndarray:
    """The generalised eigenvalues that differ from 1 (relative tolerance :data:`EIGEN_TOL`)."""
    lam = generalised_eigenvalues(cov0, cov1)
    return lam[np.abs(lam - 1.0) > EIGEN_TOL * max(1.0, float(np.max(lam)))]


def sketch_pair_profile(cov0, cov1, k: int) -> PrivacyProfile:
    """Exact profile of N(0, cov0)^{⊗k} vs N(0, cov1)^{⊗k} (ordered pair; module docstring)."""
    if isinstance(k, bool) or int(k) != k or int(k) < 1:
        raise ValueError(f"k must be an integer ≥ 1, got {k!r}")
    k = int(k)
    lam = informative_eigenvalues(cov0, cov1)
    if lam.size == 0:
        return ScaledChiSquareProfile(1.0, 1.0, k)
    if lam.size == 1:
        return ScaledChiSquareProfile(float(lam[0]), 1.0, k)
    if lam.size * k > MAX_GENERAL_COORDINATES:
        raise ValueError(f"the covariances differ in {lam.size} directions; the exact profile of "
                         f"{lam.size}·k = {lam.size * k} informative coordinates exceeds "
                         f"{MAX_GENERAL_COORDINATES}")
    diag0 = np.repeat(lam, k)
    zeros = np.zeros(diag0.size)
    return GaussianProfile(zeros, np.diag(diag0), zeros, np.eye(diag0.size))


def sketch_pair_renyi(cov0, cov1, k: int, alpha: float) -> float:
    """D_α(N(0, cov0)^{⊗k} ‖ N(0, cov1)^{⊗k}) = k · D_α(N(0, cov0) ‖ N(0, cov1)) (Gil et al.)."""
    c0, c1 = _covariance(cov0, "cov0"), _covariance(cov1, "cov1")
    zeros = np.zeros(c0.shape[0])
    value = gaussian_renyi(zeros, c0, zeros, c1, alpha)
    return math.inf if math.isinf(value) else int(k) * value


__all__ = ["ScaledChiSquareProfile", "ChiSquareScaleMixtureProfile", "sketch_pair_profile", "sketch_pair_renyi",
           "generalised_eigenvalues", "informative_eigenvalues"]
