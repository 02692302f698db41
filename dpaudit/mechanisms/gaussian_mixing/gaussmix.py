"""The Gaussian mixing mechanism (GaussMix) and ModifiedGaussMix (Lev et al., §4).

Paper: "The Gaussian Mixing Mechanism: Rényi Differential Privacy via Gaussian Sketches"
(``shared/seeds/002_09dc0ce5001fdf80.txt``; restated in ``shared/papers/gaussian_mixing.md``).

* :class:`GaussMix` (``gaussmix``): M(X) = S X + σξ, S ~ N(0, I_{k×n}), ξ ~ N(0, I_{k×d}).
* :class:`ModifiedGaussMix` (``modified-gaussmix``): Algorithm 1 — a private estimate λ̃ of
  λ_min(XᵀX) sets the noise level η̃ between 0 and √γ.

A dataset is an n × d matrix (a list of rows); every row has ‖xᵢ‖ ≤ C (``row_bound``).
Neighbours zero out one row (:mod:`dpaudit.neighbours.zero_out`).  The output is the k × d
matrix, flattened row by row to a vector of length k·d (sample shape ``(n, k·d)``).  Samplers
draw S and ξ literally (no shortcut through the output law), vectorised over the n outputs.

Every calibration is read from ``proofs/certificates/gaussian_mixing.json`` (derived in
``proofs/gaussian_mixing.py``): γ = C⁻²(σ² + λ̄) and its inverse σ = √(γC² − λ̄), Lemma 1's
curve φ(α; k, γ), Corollary 1's (ρ, ω), the closed forms of §4, Sheffet's 2019 bound, and
Theorem 1's τ, λ_min noise ηC², ε₁ and the α-objective of ε̃.

Exact curves: the rows of M(X) are i.i.d. N(0, XᵀX + σ²I), so a pair is a k-fold product of
zero-mean Gaussians whose covariances differ by a rank-one matrix — exact profile and Rényi
divergences from :mod:`dpaudit.mechanisms.gaussian_mixing.sketch_profiles`.  ModifiedGaussMix's output is a mixture over the
λ_min noise z of such laws; its white-box log-density integrates over z (Gauss–Legendre on
the interval where η̃ varies, plus the two atoms where it is √γ or 0).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr, logsumexp

from dpaudit.util import validation
from dpaudit.claims import RDP, TCDP, AllOf, ApproxDP, PrivacyProfile
from dpaudit.mechanisms.base import Mechanism, NeighbourPair
from dpaudit.mechanisms.capabilities import ExactRenyi, LogDensity
from dpaudit.mechanisms.gaussian_mixing.common import (CLOSED_DELTA, DELTA_PARAMETER, FAMILY,
                                                       GAMMA, LAMBDA_EPS, LAMBDA_SCALE,
                                                       NEIGHBOURING, RDP_CURVE, SHEFFET_DELTA,
                                                       SIGMA, T1_CLOSED, T1_OBJECTIVE, TAU,
                                                       TCDP_OMEGA, TCDP_RHO, check_draw, check_int,
                                                       check_mixing_delta, check_number,
                                                       data_matrix, formula_expression,
                                                       gaussmix_gamma, int_parameter, lambda_min,
                                                       matrix_normal_logpdf, number_parameter,
                                                       sketch, theorem1_epsilon)
from dpaudit.mechanisms.gaussian_mixing.pair_search import search_gaussmix_pair
from dpaudit.mechanisms.gaussian_mixing.sketch_profiles import (ChiSquareScaleMixtureProfile,
                                                                sketch_pair_profile,
                                                                sketch_pair_renyi)
from dpaudit.mechanisms.parameters import choice_parameter
from dpaudit.neighbours import NeighbourRelation
from dpaudit.neighbours.zero_out import removed_row, zero_out_one_row

# -- GaussMix --------------------------------------------------------------------------------------

class GaussMix(LogDensity, ExactRenyi, Mechanism):
    """GaussMix (§4): M(X) = S X + σξ, S ~ N(0, I_{k×n}), ξ ~ N(0, I_{k×d}); output k × d.

    Parameters: ``k`` (sketch size), ``row_bound`` C, ``lambda_bar`` λ̄ (a known lower bound on
    λ_min(XᵀX) of the dataset that contains the record), and one of ``sigma``, ``gamma``
    (γ = C⁻²(σ² + λ̄) > 1; given γ, σ = √(γC² − λ̄); default γ = 3) or a target ``epsilon`` with
    ``delta`` (γ = the smallest γ whose Lemma 1 + Prop. 1 bound at δ is ≤ ε, by numerical
    inversion of the certified curve, :func:`gaussmix_gamma`).  ``claim`` selects the statement:

    * ``"lemma1"`` (default): (α, φ(α; k, γ))-RDP on α ∈ (1, γ) (Lemma 1), converted to
      (ε, δ) by Proposition 1 (CKS) optimised over α;
    * ``"corollary1"``: (k/(2γ²), 2γ/5)-tCDP (Corollary 1, needs γ > 5/2), with Proposition 2;
    * ``"closed-form"``: the §4 closed form ε = k/(2γ²) + √(2k ln(1/δ))/γ at every δ (as a
      privacy profile δ(ε));
    * ``"sheffet2019"``: Sheffet's bound ε = 2√(2k ln(4/δ))/γ + 2 ln(4/δ)/γ at every δ;
    * ``"all"``: Lemma 1, Corollary 1 and Sheffet 2019 together (the smallest ε of the three).

    ``dim``, ``copies`` and ``search_rows`` only shape the worst-case pairs: XᵀX = mC²I with
    m = ``copies`` (default ⌈λ̄/C²⌉, at least 1) copies of C·eᵢ for each of ``dim`` coordinates;
    the pair removes one row.  When λ̄ = mC² this is the paper's tightness pair (t = 1/γ).  With
    ``search_rows`` = n > 0 a third pair is the result of
    :func:`~dpaudit.mechanisms.gaussian_mixing.pair_search.search_gaussmix_pair` (n × ``dim`` matrices, the
    largest exact D₂ found, seed 0)."""

    name = "gaussmix"
    family = FAMILY
    CLAIMS = ("lemma1", "corollary1", "closed-form", "sheffet2019", "all")

    def __init__(self, k: int = 10, sigma: float | None = None, gamma: float | None = None,
                 row_bound: float = 1.0, lambda_bar: float = 1.0, claim: str = "lemma1",
                 dim: int = 2, copies: int | None = None, search_rows: int = 0,
                 epsilon: float | None = None, delta: float | None = None):
        k = check_int("k", k)
        C = check_number("row_bound", row_bound)
        lam = check_number("lambda_bar", lambda_bar, strict=False)
        claim = validation.choice("claim", claim, self.CLAIMS)
        dim = check_int("dim", dim)
        given = {"sigma": sigma, "gamma": gamma}
        if epsilon is not None or delta is not None:
            if sigma is not None or gamma is not None or epsilon is None or delta is None:
                raise ValueError("a target needs both epsilon and delta, and no sigma or gamma")
            epsilon, delta = check_number("epsilon", epsilon), check_mixing_delta(delta)
            gamma = gaussmix_gamma(epsilon, delta, k)
            given = {"epsilon": epsilon, "delta": delta}
        if sigma is None and gamma is None:
            gamma = 3.0
        if sigma is not None and gamma is not None:
            raise ValueError("give exactly one of sigma, gamma or (epsilon, delta) "
                             "(default: gamma = 3)")
        if sigma is not None:
            sigma = check_number("sigma", sigma, strict=False)
            gamma = GAMMA(sigma=sigma, lambda_bar=lam, C=C)
        else:
            gamma = check_number("gamma", gamma)
            if gamma * C * C <= lam:
                raise ValueError(f"gamma·C² = {gamma * C * C:g} must exceed lambda_bar = {lam:g}")
            sigma = SIGMA(gamma=gamma, C=C, lambda_bar=lam)
        if gamma <= 1.0:
            raise ValueError(f"Lemma 1 needs γ = (σ² + λ̄)/C² > 1, got γ = {gamma:g}")
        if claim in ("corollary1", "closed-form") and gamma <= 2.5:
            raise ValueError(f"claim {claim!r} (Corollary 1) needs γ > 5/2, got γ = {gamma:g}")
        default_copies = max(1, math.ceil(lam / (C * C) - 1e-12))
        copies = default_copies if copies is None else check_int("copies", copies)
        search_rows = check_int("search_rows", search_rows, minimum=0)
        super().__init__(k=k, **given, row_bound=C, lambda_bar=lam, claim=claim, dim=dim,
                         copies=copies, search_rows=search_rows)
        self.search_rows = search_rows
        self.k, self.sigma, self.gamma, self.C, self.lam = k, float(sigma), float(gamma), C, lam
        self.claim_name, self.dim, self.copies = claim, dim, copies

    # -- datasets and pairs ------------------------------------------------------------------
    def validate_dataset(self, dataset) -> np.ndarray:
        return data_matrix(dataset, self.C)

    def relation(self) -> NeighbourRelation:
        lam = self.lam

        def zero_out_with_scale_bound(d0, d1):
            ok, reason = zero_out_one_row(d0, d1)
            if not ok:
                return ok, reason
            side, _ = removed_row(d0, d1)
            with_row = np.asarray(d0 if side == 0 else d1, dtype=float)
            lm = lambda_min(with_row)
            if lm < lam - 1e-9 * max(1.0, lam):
                return False, (f"the dataset that contains the record has λ_min(XᵀX) = {lm:.6g} "
                               f"< λ̄ = {lam:g} (Lemma 1's scale bound)")
            return True, ""
        zero_out_with_scale_bound.__name__ = "zero_out_one_row_with_scale_bound"
        return NeighbourRelation("zero-out-with-scale-bound", NEIGHBOURING,
                                 zero_out_with_scale_bound)

    def pairs_size(self) -> tuple[int, str]:
        """The (m·d) × d tightness pair, the (m·d + d − 1) × d eigenvector pair (d ≥ 2) and
        the n × d searched pair (``search_rows`` = n > 0), two datasets each."""
        d, m, n = self.dim, self.copies, self.search_rows
        values = 2 * m * d * d + (2 * (m * d + d - 1) * d if d >= 2 else 0) + 2 * n * d
        return values, f"dim = {d}, copies = {m}" + (f", search_rows = {n}" if n else "")

    def worst_case_pairs(self) -> list[NeighbourPair]:
        C, d, m = self.C, self.dim, self.copies
        X = np.vstack([C * np.eye(d)] * m)
        X0 = X.copy()
        X0[0] = 0.0
        pairs = [NeighbourPair(
            "tightness", X.tolist(), X0.tolist(),
            f"XᵀX = {m}C²I ({m} copies of C·eᵢ), the first row zeroed: t = C²/({m}C² + σ²), "
            "which is 1/γ (Lemma 1 attained, the paper's 'Tightness of Bound') when λ̄ = "
            f"{m}C²")]
        if d >= 2:
            # distinct eigenvalues; the removed row is the eigenvector of the smallest one
            Y = np.vstack([X, C * np.eye(d)[1:]])
            Y0 = Y.copy()
            Y0[0] = 0.0
            pairs.append(NeighbourPair(
                "min-eigenvector-row", Y.tolist(), Y0.tolist(),
                "XᵀX = diag(mC², (m+1)C², …): the removed row C·e₁ is the eigenvector of "
                "λ_min (the equality case of the proof's only inequality (32)-(35))"))
        if self.search_rows:
            found = search_gaussmix_pair(self.search_rows, d, row_bound=C, sigma=self.sigma,
                                         lambda_bar=self.lam, k=self.k, alpha=2.0, seed=0)
            pairs.append(NeighbourPair(
                "searched", found.d0, found.d1,
                f"largest exact D₂ found over {self.search_rows} × {d} matrices with ‖xᵢ‖ ≤ C "
                f"and λ_min ≥ λ̄ (Nelder–Mead, {found.evaluations} evaluations): "
                f"D₂ = {found.divergence:.6g}, t = {found.t:.6g}"))
        return pairs

    # -- the mechanism ---------------------------------------------------------------------
    def sample(self, dataset, n, rng) -> np.ndarray:
        X = self.validate_dataset(dataset)
        n = check_draw(n, rng)
        return sketch(X, self.k, self.sigma, n, rng).reshape(n, -1)

    def covariance(self, dataset) -> np.ndarray:
        """XᵀX + σ²I, the covariance of each output row."""
        X = self.validate_dataset(dataset)
        return X.T @ X + self.sigma ** 2 * np.eye(X.shape[1])

    def log_density(self, dataset, outputs) -> np.ndarray:
        return matrix_normal_logpdf(outputs, self.covariance(dataset), self.k)

    def exact_profile(self, d0, d1):
        """The exact privacy profile of the pair (both directions)."""
        c0, c1 = self.covariance(d0), self.covariance(d1)
        return sketch_pair_profile(c0, c1, self.k).symmetric()

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        try:
            return float(self.exact_profile(d0, d1).epsilon(delta))
        except ValueError:  # a singular covariance (σ = 0 and a rank-deficient XᵀX)
            return None

    def exact_renyi(self, d0, d1, alpha: float) -> float | None:
        c0, c1 = self.covariance(d0), self.covariance(d1)
        try:
            return max(sketch_pair_renyi(c0, c1, self.k, alpha),
                       sketch_pair_renyi(c1, c0, self.k, alpha))
        except ValueError:
            return None

    # -- the claim ---------------------------------------------------------------------------
    def _values(self) -> dict:
        return {"k": float(self.k), "gamma": self.gamma}

    def _subs(self) -> dict:
        return {"k": self.k, "gamma": self.gamma, "sigma": self.sigma, "C": self.C,
                "lambda_bar": self.lam}

    def _lemma1(self) -> RDP:
        return RDP(RDP_CURVE.expression, self._values(), alpha_range=(1.0, self.gamma),
                   alpha_max_inclusive=False,
                   expression=formula_expression(GAMMA, RDP_CURVE), substitutions=self._subs())

    def _corollary1(self) -> TCDP:
        rho, omega = TCDP_RHO(k=self.k, gamma=self.gamma), TCDP_OMEGA(gamma=self.gamma)
        return TCDP(rho, omega, expression=formula_expression(TCDP_RHO, TCDP_OMEGA),
                    substitutions={**self._subs(), "rho": rho, "omega": omega})

    def _profile(self, formula, cap) -> PrivacyProfile:
        """δ(ε) from a certified formula, evaluated as is (substituting numbers into the sympy
        expression first lets sympy split exp(a − k) into exp(−k)·exp(a), which overflows)."""
        k, gamma = self.k, self.gamma
        start = k / (2 * gamma ** 2)

        def delta_of(eps: float) -> float:
            if cap == "closed" and eps < start:   # the closed form starts at ε = k/(2γ²)
                return 1.0
            return min(1.0, formula(epsilon=eps, k=k, gamma=gamma))
        return PrivacyProfile(delta_of, self._values(), expression=formula_expression(formula),
                              substitutions=self._subs())

    def claim(self):
        if self.claim_name == "lemma1":
            return self._lemma1()
        if self.claim_name == "corollary1":
            return self._corollary1()
        if self.claim_name == "closed-form":
            return self._profile(CLOSED_DELTA, "closed")
        if self.claim_name == "sheffet2019":
            return self._profile(SHEFFET_DELTA, "min")
        parts = [self._lemma1(), self._profile(SHEFFET_DELTA, "min")]
        if self.gamma > 2.5:
            parts.insert(1, self._corollary1())
        return AllOf(claims=tuple(parts))


# -- ModifiedGaussMix (Algorithm 1) ---------------------------------------------------------------

class ModifiedGaussMix(LogDensity, Mechanism):
    """ModifiedGaussMix (Algorithm 1): a private λ_min estimate sets the noise level.

    if γ ≤ τ: output S X + √γ·C·ξ (``first_branch="sqrt"``, default — the printed γC_Xξ is a typo,
    see the restatement; ``"printed"`` keeps γ·C·ξ);
    else: z ~ N(0, 1), λ̃ = max{λ_min(XᵀX) − ηC²(τ − z), 0}, η̃ = √max{γ − λ̃, 0}
    (``noise_level="printed"``, default, as in line 6) or √max{γ − λ̃/C², 0}
    (``"normalised"``: the reading under which Theorem 1's condition (48) holds for C ≠ 1, see
    the certificate's section theorem1), output S X + η̃·C·ξ.

    τ = √(2 ln(3/δ)) (Theorem 1).  Claim: (ε̃(η, γ, k, δ), δ)-DP (Theorem 1, eq. (5);
    ``claim="theorem1"``) or the §4 closed form k/(2γ²) + 2√(2k ln(4/δ))/γ (``"closed-form"``,
    stated for η = γ/√k only, which is then required)."""

    name = "modified-gaussmix"
    family = FAMILY

    k = int_parameter(10, "sketch size k (rows of S)")
    gamma = number_parameter(20.0, "γ > 5/2 (Theorem 1)")
    eta = number_parameter(2.0, "noise level η")
    delta = DELTA_PARAMETER
    C = number_parameter(1.0, "row bound C", name="row_bound")
    first_branch = choice_parameter("sqrt", ("sqrt", "printed"), "first branch of line 3")
    noise_level = choice_parameter("printed", ("printed", "normalised"), "noise level of line 5")
    claim_name = choice_parameter("theorem1", ("theorem1", "closed-form"), "which claim",
                                  name="claim")
    dim = int_parameter(1, "dimension d of the worst-case pairs")
    copies = int_parameter(4, "copies m of the basis rows in the worst-case pairs")

    def derive(self) -> None:
        k, gamma, eta, delta, C = self.k, self.gamma, self.eta, self.delta, self.C
        if gamma <= 2.5:
            raise ValueError(f"Theorem 1 needs γ > 5/2, got gamma={gamma!r}")
        if self.claim_name == "closed-form" and abs(eta - gamma / math.sqrt(k)) > 1e-9 * eta:
            raise ValueError(f"claim 'closed-form' is stated for η = γ/√k = "
                             f"{gamma / math.sqrt(k):.6g}, got eta={eta!r}")
        self.tau = TAU(delta=delta)
        self.lambda_sd = LAMBDA_SCALE(eta=eta, C=C)
        self.epsilon_tilde, self.alpha_star = theorem1_epsilon(eta, gamma, k, delta)

    def validate_dataset(self, dataset) -> np.ndarray:
        return data_matrix(dataset, self.C)

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation(
            "zero-out", "zero-out: one row of the n × d data matrix is replaced by 0⃗",
            zero_out_one_row)

    def pairs_size(self) -> tuple[int, str]:
        """An (m·d) × d pair, two datasets, for each m in {1, ``copies``}."""
        d = self.dim
        return (sum(2 * m * d * d for m in {1, self.copies}),
                f"dim = {d}, copies = {self.copies}")

    def worst_case_pairs(self) -> list[NeighbourPair]:
        C, d = self.C, self.dim
        out = []
        for m in sorted({1, self.copies}):
            X = np.vstack([C * np.eye(d)] * m)
            X0 = X.copy()
            X0[0] = 0.0
            out.append(NeighbourPair(
                f"scaled-identity-{m}", X.tolist(), X0.tolist(),
                f"XᵀX = {m}C²I, first row zeroed: λ_min = {m}C² vs {m - 1}C² (d = 1) — the "
                "λ̃ release and the sketch both see the change"))
        return out

    # -- the noise level ---------------------------------------------------------------------
    def noise_sd(self, lam_min: float, z) -> np.ndarray:
        """η̃·C for each z (second branch), or the first branch's constant."""
        C = self.C
        if self.gamma <= self.tau:
            level = math.sqrt(self.gamma) if self.first_branch == "sqrt" else self.gamma
            return np.full(np.shape(z), level * C)
        lam_t = np.maximum(lam_min - self.lambda_sd * (self.tau - np.asarray(z, float)), 0.0)
        scale = 1.0 if self.noise_level == "printed" else C * C
        return np.sqrt(np.maximum(self.gamma - lam_t / scale, 0.0)) * C

    def sample(self, dataset, n, rng) -> np.ndarray:
        X = self.validate_dataset(dataset)
        n = check_draw(n, rng)
        z = rng.standard_normal(n)
        return sketch(X, self.k, self.noise_sd(lambda_min(X), z), n, rng).reshape(n, -1)

    def noise_mixture(self, lam: float, nodes: int = 64) -> tuple[np.ndarray, np.ndarray]:
        """(log-weights, noise variances v = (η̃C)²) of the law of the noise level given
        λ_min(XᵀX) = lam: the two atoms (λ̃ = 0, so η̃ is at its cap; η̃ = 0) and Gauss–Legendre
        nodes on the z-interval where η̃ varies, weighted by the N(0, 1) density."""
        if self.gamma <= self.tau:
            return np.zeros(1), np.array([float(self.noise_sd(0.0, 0.0)) ** 2])
        s, tau = self.lambda_sd, self.tau
        cap = self.gamma if self.noise_level == "printed" else self.gamma * self.C ** 2
        # λ̃(z) = lam − s(τ − z) is 0 at z₀ = τ − lam/s and reaches cap at z₁ = z₀ + cap/s
        z0, z1 = tau - lam / s, tau - (lam - cap) / s
        x, w = np.polynomial.legendre.leggauss(nodes)
        zs = 0.5 * (z1 - z0) * x + 0.5 * (z0 + z1)
        logw = np.concatenate([[float(log_ndtr(z0)), float(log_ndtr(-z1))],
                               np.log(0.5 * (z1 - z0) * w) - 0.5 * zs ** 2
                               - 0.5 * math.log(2 * math.pi)])
        v = np.concatenate([[float(self.noise_sd(lam, z0 - 1.0)) ** 2,
                             float(self.noise_sd(lam, z1 + 1.0)) ** 2],
                            self.noise_sd(lam, zs) ** 2])
        return logw, v

    def log_density(self, dataset, outputs) -> np.ndarray:
        """ln ∫ φ(z) N(M; 0, XᵀX + v(z)I)^{⊗k} dz over the mixture of :meth:`noise_mixture`
        (a fixed measurable function of the output, exact up to the 64-node quadrature)."""
        X = self.validate_dataset(dataset)
        k, d = self.k, X.shape[1]
        a, U = np.linalg.eigh(X.T @ X)
        m = np.asarray(outputs, dtype=float).reshape(-1, k, d)
        q = np.sum((m @ U) ** 2, axis=1)  # (n, d): ‖M uᵢ‖² for the eigenvectors uᵢ of XᵀX
        logw, v = self.noise_mixture(lambda_min(X))
        var = np.maximum(a[None, :] + v[:, None], 1e-12 * self.C ** 2)   # (j, d)
        terms = (-0.5 * q @ (1.0 / var).T
                 - 0.5 * k * np.sum(np.log(2 * math.pi * var), axis=1)[None, :])
        return logsumexp(terms + logw[None, :], axis=1)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        """For one-column data (d = 1): the pair's curve from the two χ²_k scale mixtures
        (:class:`~dpaudit.mechanisms.gaussian_mixing.sketch_profiles.ChiSquareScaleMixtureProfile`, numerical quadrature);
        None for d > 1."""
        X0, X1 = self.validate_dataset(d0), self.validate_dataset(d1)
        if X0.shape[1] != 1:
            return None
        key = (X0.tobytes(), X1.tobytes())
        cache = self.__dict__.setdefault("_exact_cache", {})
        if key not in cache:  # the runner asks for several δ of one pair
            parts = []
            for X in (X0, X1):
                lam = float(X[:, 0] @ X[:, 0])
                logw, v = self.noise_mixture(lam, nodes=200)
                parts += [logw, lam + v]
            cache[key] = ChiSquareScaleMixtureProfile(*parts, self.k).symmetric()
        return float(cache[key].epsilon(delta))

    def claim(self) -> ApproxDP:
        subs = {"k": self.k, "gamma": self.gamma, "eta": self.eta, "delta": self.delta,
                "C": self.C, "tau": self.tau, "alpha": self.alpha_star}
        if self.claim_name == "closed-form":
            eps = T1_CLOSED(k=self.k, gamma=self.gamma, delta=self.delta)
            return ApproxDP(eps, self.delta, expression=formula_expression(T1_CLOSED),
                            substitutions={**subs, "epsilon": eps})
        return ApproxDP(self.epsilon_tilde, self.delta,
                        expression=formula_expression(TAU, LAMBDA_EPS, T1_OBJECTIVE),
                        substitutions={**subs, "epsilon_tilde": self.epsilon_tilde})


__all__ = ["GaussMix", "ModifiedGaussMix"]
