"""DP-LSW and DP-LSL (Balle, Gomrokchi & Precup, "Differentially Private Policy Evaluation",
ICML 2016; Algorithms 1 and 2).

Both release θ_X + η, η ~ N(0, σ_X² I_d): the output given X is N(θ_X, σ_X² I_d) and given a
neighbour X′ it is N(θ_X′, σ_X′² I_d) — different means *and* different variances, whose exact
privacy curve is :class:`dpaudit.exact.gaussian_pairs.IsotropicGaussianProfile`.

* ``dp-lsw`` (Algorithm 1): θ^w_X of eq. (8); σ_X = α·F_max·‖(Γ^{1/2}Φ)^†‖·√ψ^w_X.
* ``dp-lsl`` (Algorithm 2): θ^λ_X of eq. (11); σ_X = 2α·F_max·‖Φ‖·√ψ^λ_X/(λ − ‖Φ‖²‖ρ‖∞),
  requiring λ > ‖Φ‖²‖ρ‖∞ (a ``ValueError`` otherwise).

α, β, σ_X, the terms of ψ and the sensitivity bounds are the certified formulas of
``proofs/certificates/policy_evaluation.json`` (through :mod:`.policy_estimators`).

Parameters (plain values, so suites can name them): ``epsilon``, ``delta``; ``n_states`` (N);
``features`` ("tabular", "aggregate-K" or an N×d matrix); ``weights`` (w for LSW, ρ for LSL;
default all 1); ``gamma``; ``r_max``; ``f_max`` — optional public bound on the returns used in
place of R_max/(1 − γ) (end of §3.1), returns above it are clipped (see
:func:`~dpaudit.mechanisms.policy_evaluation.data.batch_statistics` for why clipping and not an error);
``constants`` — "main" (Algorithms 1–2 as printed: main-text Lemma 1's α, β; the default) or
"appendix" (Lemma 14's α′, β′, which the paper proves, under its conditions ε ≤ 5, β′ ≤ ln 2);
``lam`` (λ, DP-LSL only).

The claim is (ε, δ)-DP (Theorems 6 and 10) under "replace one whole trajectory".  The proofs
show it rests on main-text Lemma 1, which is false for large ε; ``exact_epsilon`` exposes where
(e.g. ε = 300, δ = 0.1, the pair ``sole-visitor-max-vs-zero``).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.claims import ApproxDP
from dpaudit.exact.gaussian_pairs import IsotropicGaussianProfile
from dpaudit.mechanisms.policy_evaluation import estimators as est
from dpaudit.util import validation
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Noise, Parameter
from dpaudit.mechanisms.capabilities import (CalibratedNoise, ExactRenyi, GreyBoxQuery, LogDensity,
                                             SearchableDatasets)
from dpaudit.neighbours import NeighbourRelation
from dpaudit.mechanisms.policy_evaluation.data import batch_statistics, parse_dataset
from dpaudit.mechanisms.policy_evaluation.trajectories import TrajectoryDatasets, replace_one_trajectory

_LOG_2PI = math.log(2 * math.pi)


def _real(name: str, value, lo: float = 0.0, hi: float = math.inf, *, open_hi=False) -> float:
    """A number in (lo, hi] (or (lo, hi) when ``open_hi``), checked by :mod:`dpaudit.util.validation`."""
    return validation.number(name, value, minimum=lo, strict_minimum=True,
                             maximum=None if math.isinf(hi) else hi, strict_maximum=open_hi)


def _plain_weights(name: str, weights):
    """The weight vector as a list of floats (None: the default weights)."""
    return None if weights is None else [float(x) for x in weights]


def _constants(name: str, value) -> str:
    if value not in ("main", "appendix"):
        raise ValueError(f"{name} must be 'main' (Algorithms 1–2) or 'appendix' "
                         f"(Lemma 14), got {value!r}")
    return value


class _PolicyEvaluation(LogDensity, ExactRenyi, CalibratedNoise, GreyBoxQuery,
                        SearchableDatasets, Mechanism):
    """Shared part of DP-LSW and DP-LSL (not registered)."""

    family = "policy_evaluation"
    sensitivity_norm = "l2"
    #: datasets of the grey-box search (``dataset_space``)
    CHECK_SIZES = (1, 3)
    CHECK_LENGTH = 4

    epsilon = Parameter(1.0, _real, "privacy parameter ε > 0")
    delta = Parameter(0.1, lambda name, v: _real(name, v, 0.0, 1.0, open_hi=True), "δ ∈ (0, 1)")
    n_states = Parameter(3, validation.positive_int, "number of states N of the chain")
    features = Parameter("tabular", None, "'tabular', 'aggregate-K' or an N×d feature matrix")
    weights = Parameter(None, _plain_weights, "state weights (None: uniform)")
    gamma = Parameter(0.9, lambda name, v: _real(name, v, 0.0, 1.0, open_hi=True),
                      "discount γ ∈ (0, 1)")
    r_max = Parameter(1.0, _real, "reward bound R_max > 0")
    f_max = Parameter(None, lambda name, v: None if v is None else _real(name, v),
                      "public bound F_max on returns (None: R_max/(1 − γ))")
    constants = Parameter("main", _constants, "'main' (Algorithms 1–2) or 'appendix' (Lemma 14)")

    def derive(self) -> None:
        eps, dlt, gam = self.epsilon, self.delta, self.gamma
        rmax, fmax, constants = self.r_max, self.f_max, self.constants
        self.phi = est.feature_matrix(self.features, self.n_states)
        self.d = int(self.phi.shape[1])
        if not isinstance(self.features, str):
            self.resolve_parameter("features", self.phi.tolist())
        #: the bound on returns the noise is calibrated to: F_max, else R_max/(1 − γ)
        self.return_bound = fmax if fmax is not None else rmax / (1.0 - gam)
        values = dict(epsilon=eps, delta=dlt, d=self.d)
        if constants == "main":
            self.alpha, self.beta = est.ALPHA(**values), est.BETA(**values)
        else:
            self.alpha = est.ALPHA_APPENDIX(**values)
            self.beta = est.BETA_APPENDIX(**values)
            if eps > 5 or self.beta > math.log(2):
                raise ValueError(f"constants='appendix' needs ε ≤ 5 and β′ ≤ ln 2 (Lemma 14); "
                                 f"got ε = {eps:g}, β′ = {self.beta:.4g}")

    # -- data ---------------------------------------------------------------------------------
    def validate_dataset(self, dataset):
        return parse_dataset(dataset, self.n_states, self.r_max)

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation(
            "replace-one-trajectory",
            "replace one whole trajectory: datasets of m ≥ 1 trajectories (steps "
            "[state, reward], rewards in [0, R_max]) that differ in at most one",
            replace_one_trajectory)

    def statistics(self, dataset):
        return batch_statistics(self.validate_dataset(dataset), self.gamma, self.n_states,
                                self.f_max)

    def dataset_space(self) -> TrajectoryDatasets:
        lo, hi = self.CHECK_SIZES
        return TrajectoryDatasets(self.n_states, self.r_max, min_size=lo, max_size=hi,
                                  max_length=self.CHECK_LENGTH)

    # -- the mechanism ------------------------------------------------------------------------
    def theta_sigma(self, dataset) -> tuple[np.ndarray, float]:
        stats = self.statistics(dataset)
        return self.theta_of(stats), self.sigma_of(stats)

    def query(self, dataset) -> np.ndarray:
        """θ_X, the deterministic estimate the noise is added to."""
        return self.theta_of(self.statistics(dataset))

    def noise_scale(self, dataset) -> float:
        """σ_X of Algorithm 1/2, line 4."""
        return self.sigma_of(self.statistics(dataset))

    def sample(self, dataset, n, rng) -> np.ndarray:
        n = validation.draw_request(n, rng)
        theta, sigma = self.theta_sigma(dataset)
        return theta[None, :] + sigma * rng.standard_normal((n, self.d))

    def log_density(self, dataset, outputs) -> np.ndarray:
        theta, sigma = self.theta_sigma(dataset)
        y = np.asarray(outputs, dtype=float).reshape(-1, self.d)
        z = (y - theta[None, :]) / sigma
        return -0.5 * np.sum(z * z, axis=1) - self.d * (math.log(sigma) + 0.5 * _LOG_2PI)

    def profile(self, d0, d1) -> IsotropicGaussianProfile:
        """The exact privacy profile of N(θ₀, σ₀²I) vs N(θ₁, σ₁²I) (one direction)."""
        (t0, s0), (t1, s1) = self.theta_sigma(d0), self.theta_sigma(d1)
        return IsotropicGaussianProfile(t0, s0, t1, s1)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return float(self.profile(d0, d1).symmetric().epsilon(delta))

    def exact_renyi(self, d0, d1, alpha: float) -> float:
        return float(self.profile(d0, d1).symmetric().renyi(alpha))

    def claim(self) -> ApproxDP:
        a, b = (est.ALPHA, est.BETA) if self.constants == "main" else (est.ALPHA_APPENDIX,
                                                                       est.BETA_APPENDIX)
        expr = sp.Tuple(sp.Eq(sp.Symbol("alpha"), a.expression),
                        sp.Eq(sp.Symbol("beta"), b.expression))
        return ApproxDP(self.epsilon, self.delta, expression=expr,
                        substitutions={"epsilon": self.epsilon, "delta": self.delta,
                                       "d": self.d, "alpha": self.alpha, "beta": self.beta})

    #: σ_X is computed from the data (Algorithm 1/2, line 4): stated at the probe only
    noise_depends_on_dataset = True

    def noise(self) -> Noise:
        probe = self.worst_case_pairs()[0].d0
        return Noise("gaussian", {"sigma": self._claimed_sigma(self.statistics(probe))},
                     probe=probe, source=f"certified σ_X formula at the probe dataset "
                                         f"({self.name}, constants={self.constants})")

    # -- worst-case pairs from the proofs --------------------------------------------------------
    def _visit_all(self, reward: float) -> list:
        """Visits 0, …, N − 1 in order, then (without a public F_max) stays in N − 1 until
        γ^tail ≤ 1e-3, so every first-visit return is ≥ 0.999·R_max/(1 − γ) when reward = R_max
        (with F_max ≤ R_max the returns already reach F_max and are clipped to it)."""
        steps = [[s, reward] for s in range(self.n_states)]
        if self.f_max is None or self.f_max > self.r_max:
            tail = min(4000, math.ceil(math.log(1e-3) / math.log(self.gamma)))
            steps += [[self.n_states - 1, reward]] * tail
        return steps

    def worst_case_pairs(self) -> list[NeighbourPair]:
        top, zero = self._visit_all(self.r_max), self._visit_all(0.0)
        pairs = [NeighbourPair(
            "sole-visitor-max-vs-zero", [top], [zero],
            "m = 1: the only trajectory visits every state with maximal returns, replaced by "
            "one with zero rewards — Lemma 2's bound is attained state by state (tight for "
            "tabular features and uniform weights); equal counts, so σ_X = σ_X′"),
            NeighbourPair(
            "all-counts-drop", [zero, top], [zero, []],
            "m = 2: a trajectory visiting every state with maximal returns is replaced by an "
            "empty one: every count |X_s| drops 2 → 1 at once (means and variances both change)")]
        half = self.n_states // 2
        if half >= 1:
            low = [[s, 0.0] for s in range(half)]
            high_top = [[s, self.r_max] for s in range(half, self.n_states)]
            high_zero = [[s, 0.0] for s in range(half, self.n_states)]
            if self.f_max is None or self.f_max > self.r_max:
                high_top += [[self.n_states - 1, self.r_max]] * (len(top) - self.n_states)
            pairs.append(NeighbourPair(
                "sole-visitor-among-others", [low, low, high_top], [low, low, high_zero],
                "m = 3: the sole visitor of the upper half of the states, with maximal "
                "returns, replaced by one with zero rewards; two other trajectories keep the "
                "lower half visited"))
        k = int(min(200, max(3, round(2.0 / self.beta))))
        pairs.append(NeighbourPair(
            f"smoothing-{k}", [zero] * (k - 1) + [top], [zero] * (k - 1) + [[]],
            f"m = {k} ≈ 2/β: every count drops {k} → {k - 1}; here ψ_X > φ_X (the smoothing "
            f"over k ≥ 1 sets the noise) and ψ_X/ψ_X′ is close to the e^β Lemma 4 allows"))
        return pairs

    # -- subclass hooks ------------------------------------------------------------------------
    def theta_of(self, stats) -> np.ndarray:  # pragma: no cover - abstract
        """θ_X from :class:`~dpaudit.mechanisms.policy_evaluation.data.BatchStatistics`."""
        raise NotImplementedError

    def sigma_of(self, stats) -> float:  # pragma: no cover - abstract
        """σ_X from :class:`~dpaudit.mechanisms.policy_evaluation.data.BatchStatistics`."""
        raise NotImplementedError

    def _claimed_sigma(self, stats) -> float:
        """σ_X from the certified formula with ψ by the literal scan over k (an independent
        code path from the sampler's)."""
        raise NotImplementedError  # pragma: no cover - abstract


class DPLSW(_PolicyEvaluation):
    """DP-LSW (Algorithm 1): θ^w_X + N(0, σ_X² I_d), σ_X = α F_max ‖(Γ^{1/2}Φ)^†‖ √ψ^w_X."""

    name = "dp-lsw"

    def derive(self) -> None:
        super().derive()
        self.w = est.weights_vector(self.weights, self.n_states, "weights w", positive=True)
        _, self.pinv_norm = est.lsw_design(self.phi, self.w)

    def theta_of(self, stats):
        return est.lsw_theta(self.phi, self.w, stats.returns)

    def psi(self, stats) -> float:
        return est.psi_lsw(stats.counts, self.w, self.beta)

    def sigma_of(self, stats):
        return est.LSW_SIGMA(alpha=self.alpha, F_max=self.return_bound, P=self.pinv_norm,
                             psi=self.psi(stats))

    def _claimed_sigma(self, stats):
        return est.LSW_SIGMA(alpha=self.alpha, F_max=self.return_bound, P=self.pinv_norm,
                             psi=est.psi_lsw_scan(stats.counts, self.w, self.beta))

    def local_sensitivity_bound(self, dataset) -> float:
        """Corollary 3 with eq. (13): F_max ‖(Γ^{1/2}Φ)^†‖ √φ^w_X ≥ ‖θ_X − θ_X′‖ for all X′."""
        counts = self.statistics(dataset).counts
        phi = float(np.sum(self.w / np.maximum(counts, 1) ** 2))
        return est.LSW_SENSITIVITY(F_max=self.return_bound, P=self.pinv_norm, phi=phi)

    def sensitivity(self) -> float:
        """Global ℓ₂ sensitivity of θ^w: the Corollary 3 bound at its largest, φ^w = Σ_s w_s
        (all counts ≤ 1), for datasets of any size."""
        return est.LSW_SENSITIVITY(F_max=self.return_bound, P=self.pinv_norm,
                                   phi=float(np.sum(self.w)))


class DPLSL(_PolicyEvaluation):
    """DP-LSL (Algorithm 2): θ^λ_X + N(0, σ_X² I_d), σ_X = 2αF_max‖Φ‖√ψ^λ_X/(λ − ‖Φ‖²‖ρ‖∞).

    Requires λ > ‖Φ‖²‖ρ‖∞ (a ``ValueError`` otherwise)."""

    name = "dp-lsl"
    CHECK_SIZES = (3, 3)

    lam = Parameter(10.0, _real, "regularisation λ > ‖Φ‖²‖ρ‖∞")

    def derive(self) -> None:
        super().derive()
        lam_ = self.lam
        self.rho = est.weights_vector(self.weights, self.n_states, "weights ρ", positive=False)
        self.phi_norm = float(np.linalg.norm(self.phi, 2))
        floor = self.phi_norm ** 2 * float(np.max(self.rho))
        if not lam_ > floor:
            raise ValueError(f"DP-LSL needs λ > ‖Φ‖²‖ρ‖∞ = {floor:.6g} (Algorithm 2, "
                             f"Corollary 8); got lam = {lam_:g}")
        self.c_lambda, self.rho_2 = est.lsl_constants(self.phi_norm, self.rho, lam_)

    def theta_of(self, stats):
        return est.lsl_theta(self.phi, self.rho, stats.counts, stats.returns, stats.m,
                             self.lam)

    def psi(self, stats) -> float:
        return est.psi_lsl(stats.counts, self.rho, stats.m, self.beta, self.c_lambda,
                           self.rho_2)

    def sigma_of(self, stats):
        return est.LSL_SIGMA(alpha=self.alpha, F_max=self.return_bound, Phi_norm=self.phi_norm,
                             psi=self.psi(stats), lam=self.lam, rho_inf=float(np.max(self.rho)))

    def _claimed_sigma(self, stats):
        psi = est.psi_lsl_scan(stats.counts, self.rho, stats.m, self.beta, self.c_lambda,
                               self.rho_2)
        return est.LSL_SIGMA(alpha=self.alpha, F_max=self.return_bound, Phi_norm=self.phi_norm,
                             psi=psi, lam=self.lam, rho_inf=float(np.max(self.rho)))

    def _phi_lambda(self, total: float) -> float:
        return est.LSL_PHI(S=total, c_lambda=self.c_lambda, rho_2=self.rho_2)

    def local_sensitivity_bound(self, dataset) -> float:
        """Corollary 8: 2F_max‖Φ‖√φ^λ_X/(λ − ‖Φ‖²‖ρ‖∞) ≥ ‖θ_X − θ_X′‖ for all X′."""
        stats = self.statistics(dataset)
        return est.LSL_SENSITIVITY(F_max=self.return_bound, Phi_norm=self.phi_norm,
                                   phi=self._phi_lambda(float(np.sum(self.rho * stats.counts))),
                                   lam=self.lam, rho_inf=float(np.max(self.rho)))

    def sensitivity(self) -> float:
        """Global ℓ₂ sensitivity of θ^λ over the grey-box space (m = 3 trajectories): the
        Corollary 8 bound at its largest, Σ_s ρ_s|X_s| = mΣ_s ρ_s."""
        m = self.CHECK_SIZES[1]
        return est.LSL_SENSITIVITY(F_max=self.return_bound, Phi_norm=self.phi_norm,
                                   phi=self._phi_lambda(m * float(np.sum(self.rho))),
                                   lam=self.lam, rho_inf=float(np.max(self.rho)))


__all__ = ["DPLSW", "DPLSL"]
