"""Private regression with Gaussian mixing (Lev et al., §5) and the baselines it is compared with.

* :class:`LinearMixing` (``linear-mixing``, Algorithm 2): ModifiedGaussMix on the joint matrix
  [X, Y], then θ_Lin = (X̃ᵀX̃)⁻¹X̃ᵀỸ.
* :class:`GaussMixLogistic` (``gaussmix-logistic``, §5.2 / App. G): LinearMixing on the quadratic
  surrogate of the logistic loss.

The baselines (AdaSSP, Sheffet's algorithm with both analyses, objective perturbation) are in
:mod:`dpaudit.mechanisms.gaussian_mixing.baselines`; this module holds what they share
(:class:`RegressionMechanism`, the Wishart sampler).

A dataset is an n × (d + 1) matrix whose rows are (xᵢ, yᵢ) with ‖xᵢ‖ ≤ C_X (``x_bound``) and
|yᵢ| ≤ C_Y (``y_bound``); for the logistic mechanisms yᵢ ∈ {−1, +1} (or 0 in a zeroed row).
Neighbours zero out one row (the record is the pair (xᵢ, yᵢ)).  Every output is θ ∈ ℝᵈ.

Sampling.  The sketch-based algorithms release a function of the Gram matrix W = M̃ᵀM̃ of the
sketched joint matrix M̃ = S[X, Y] + sξ, whose k rows are i.i.d. N(0, Σ), Σ = [X,Y]ᵀ[X,Y] + s²I;
so W ~ Wishart_k(Σ) exactly, and the samplers draw W by Bartlett's decomposition
(W = R B Bᵀ Rᵀ, R Rᵀ = Σ, B lower triangular with √χ²_{k−j} on the diagonal and N(0, 1)
below; for k < d + 1, B = Gᵀ with G ~ N(0, I_{k×(d+1)})): O(d²) per output, whatever n and k,
vectorised over the outputs.  :meth:`run_literal` runs each algorithm once exactly as printed
(S drawn explicitly) — the reproduction scripts use it, and the tests check that both laws
agree.  Every calibration comes from ``proofs/certificates/gaussian_mixing.json``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpaudit.claims import ApproxDP
from dpaudit.claims.certificates import load_formula
from dpaudit.mechanisms.base import Mechanism, NeighbourPair
from dpaudit.mechanisms.gaussian_mixing.common import (DELTA_PARAMETER, FAMILY, check_draw,
                                                       data_matrix, formula_expression,
                                                       int_parameter, lambda_min, number_parameter,
                                                       sketch, smallest_gamma, theorem1_epsilon)
from dpaudit.mechanisms.gaussian_mixing.gaussmix import ModifiedGaussMix
from dpaudit.mechanisms.parameters import Parameter, choice_parameter
from dpaudit.neighbours import NeighbourRelation
from dpaudit.neighbours.zero_out import zero_out_one_row

LM_ETA = load_formula("gaussian_mixing", "linear_mixing_eta")              # γ/√k
LM_ROW_BOUND = load_formula("gaussian_mixing", "linear_mixing_row_bound")  # √(C_X² + C_Y²)

NEIGHBOURING = "zero-out: one record (xᵢ, yᵢ) — a row of [X, Y] — is replaced by 0⃗"


# -- shared pieces ----------------------------------------------------------------------------------

def wishart(gram: np.ndarray, noise_var, k: int, n: int, rng) -> np.ndarray:
    """n draws of Wishart_k(gram + vᵢI) (shape (n, p, p)); ``noise_var`` a number or (n,)."""
    p = gram.shape[0]
    a, U = np.linalg.eigh(gram)
    v = np.broadcast_to(np.asarray(noise_var, dtype=float), (n,))
    root = U[None, :, :] * np.sqrt(np.maximum(a[None, :] + v[:, None], 0.0))[:, None, :]
    if k >= p:
        B = np.zeros((n, p, p))
        rows, cols = np.tril_indices(p, -1)
        B[:, rows, cols] = rng.standard_normal((n, rows.size))
        idx = np.arange(p)
        B[:, idx, idx] = np.sqrt(rng.chisquare(k - idx, size=(n, p)))
    else:
        B = np.swapaxes(rng.standard_normal((n, k, p)), 1, 2)
    RB = root @ B
    return RB @ np.swapaxes(RB, 1, 2)


def solve_batched(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A⁻¹b for stacks (n, d, d), (n, d); least squares for the (rare) singular ones."""
    try:
        return np.linalg.solve(A, b[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return np.stack([np.linalg.lstsq(Ai, bi, rcond=None)[0] for Ai, bi in zip(A, b)])


def theta_from_gram(W: np.ndarray, d: int) -> np.ndarray:
    """θ = (X̃ᵀX̃)⁻¹X̃ᵀỸ from the joint Gram matrices W (n, d+1, d+1)."""
    return solve_batched(W[:, :d, :d], W[:, :d, d])


class RegressionMechanism(Mechanism):
    """Shared parts: bounds, dataset validation (rows (x, y)), zero-out, pairs, claims."""

    family = FAMILY
    logistic = False

    epsilon = number_parameter(1.0, "privacy parameter ε")
    delta = DELTA_PARAMETER
    cx = number_parameter(1.0, "bound C_X on ‖x‖", name="x_bound")
    cy = number_parameter(1.0, "bound C_Y on |y|", name="y_bound")
    dim = int_parameter(1, "dimension d of x in the worst-case pairs")
    copies = int_parameter(4, "copies m of the basis rows in the worst-case pairs")

    def validate_dataset(self, dataset) -> np.ndarray:
        J = data_matrix(dataset, math.inf)
        if J.shape[1] < 2:
            raise ValueError(f"rows must be (x₁, …, x_d, y) with d ≥ 1, got {J.shape[1]} entries")
        xn = np.linalg.norm(J[:, :-1], axis=1)
        bad = np.flatnonzero(xn > self.cx * (1 + 1e-9))
        if bad.size:
            raise ValueError(f"row {bad[0]}: ‖x‖ = {xn[bad[0]]:.6g} exceeds x_bound = {self.cx:g}")
        y = J[:, -1]
        bound = 1.0 if self.logistic else self.cy
        if self.logistic:
            ok = (np.abs(y) == 1.0) | ((y == 0.0) & (xn == 0.0))
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise ValueError(f"row {i}: label y = {y[i]:g} must be −1 or +1 (0 only in a "
                                 f"zeroed row)")
        bad = np.flatnonzero(np.abs(y) > bound * (1 + 1e-9))
        if bad.size:
            raise ValueError(f"row {bad[0]}: |y| = {abs(y[bad[0]]):.6g} exceeds y_bound = "
                             f"{bound:g}")
        return J

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation("zero-out-record", NEIGHBOURING, zero_out_one_row)

    def pairs_size(self) -> tuple[int, str]:
        """``joint-basis``: two ((d+1)·m) × (d+1) datasets; ``influential-row``: two
        (m + d) × (d+1) datasets (issue 39, item 6: ``dim = 20000`` and ``copies = 10⁷`` ran
        out of memory building them)."""
        d, m = self.dim, self.copies
        return (2 * (d + 1) ** 2 * m + 2 * (m + d) * (d + 1),
                f"dim = {d}, copies = {m}")

    def worst_case_pairs(self) -> list[NeighbourPair]:
        """Two pairs: ``joint-basis`` — m copies of a basis of the joint rows (C_X eⱼ, 0) and
        (0, C_Y) (Gram m·diag(C_X², …, C_Y²), the sketch's tightness construction on [X, Y]) with
        one (0, C_Y) record zeroed; ``influential-row`` — m records (C_X e₁, C_Y) on the line
        y = (C_Y/C_X)x₁, one (C_X eⱼ, 0) per other coordinate, and the record (C_X e₁, −C_Y),
        which is zeroed (it moves θ the most).  Logistic mechanisms use labels ±1 instead."""
        d, m, cx, cy = self.dim, self.copies, self.cx, self.cy
        e = cx * np.eye(d)
        if self.logistic:
            basis = [list(e[j]) + [1.0] for j in range(d)] + [list(e[0]) + [-1.0]]
            line, others, last = list(e[0]) + [1.0], 1.0, list(e[0]) + [-1.0]
        else:
            basis = [list(e[j]) + [0.0] for j in range(d)] + [[0.0] * d + [cy]]
            line, others, last = list(e[0]) + [cy], 0.0, list(e[0]) + [-cy]
        X1 = np.array(basis * m)
        X0 = X1.copy()
        X0[len(basis) - 1] = 0.0
        Y1 = np.array([line] * m + [list(e[j]) + [others] for j in range(1, d)] + [last])
        Y0 = Y1.copy()
        Y0[-1] = 0.0
        return [NeighbourPair("joint-basis", X1.tolist(), X0.tolist(),
                              f"{m} copies of a basis of joint rows; one copy of its last "
                              "record zeroed"),
                NeighbourPair("influential-row", Y1.tolist(), Y0.tolist(),
                              f"{m} records (C_X e₁, C_Y) plus (C_X e₁, −C_Y), which is zeroed: "
                              "the removed record moves θ the most")]

    def _claim(self, **subs) -> ApproxDP:
        return ApproxDP(self.epsilon, self.delta, expression=self._expression(),
                        substitutions={"epsilon": self.epsilon, "delta": self.delta, **subs})


# -- LinearMixing (Algorithm 2) ----------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def linear_mixing_gamma(epsilon: float, delta: float, k: int) -> float:
    """Algorithm 2, line 1: the smallest γ > 5/2 with ε̃(γ/√k, γ, k, δ) ≤ ε (bisection; ε̃
    decreases in γ: both its terms do, App. E)."""
    return smallest_gamma(lambda g: theorem1_epsilon(LM_ETA(gamma=g, k=k), g, k, delta)[0],
                          epsilon, 2.5)


class LinearMixing(RegressionMechanism):
    """LinearMixing (Algorithm 2): γ from ε̃ ≤ ε with η = γ/√k, ModifiedGaussMix on [X, Y] with
    row bound √(C_X² + C_Y²), θ_Lin = (X̃ᵀX̃)⁻¹X̃ᵀỸ.  Claim (Theorem 2): (ε, δ)-DP.
    ``noise_level`` and ``first_branch`` as for :class:`ModifiedGaussMix`."""

    name = "linear-mixing"

    parameter_order = ("epsilon", "delta", "k", "x_bound", "y_bound", "noise_level",
                       "first_branch", "dim", "copies")
    k = int_parameter(50, "sketch size k")
    noise_level = Parameter("printed", None, "noise level of ModifiedGaussMix (checked there)")
    first_branch = Parameter("sqrt", None, "first branch of ModifiedGaussMix (checked there)")

    def derive(self) -> None:
        first_branch, noise_level = self.first_branch, self.noise_level
        self.gamma = linear_mixing_gamma(self.epsilon, self.delta, self.k)
        self.eta = LM_ETA(gamma=self.gamma, k=self.k)
        self.row_bound = LM_ROW_BOUND(C_X=self.cx, C_Y=self.cy)
        self.inner = ModifiedGaussMix(k=self.k, gamma=self.gamma, eta=self.eta,
                                      delta=self.delta, row_bound=self.row_bound,
                                      first_branch=first_branch, noise_level=noise_level)

    def _expression(self):
        return formula_expression(LM_ETA, LM_ROW_BOUND)

    def claim(self) -> ApproxDP:
        return self._claim(k=self.k, gamma=self.gamma, eta=self.eta, C=self.row_bound,
                           epsilon_tilde=self.inner.epsilon_tilde)

    def _theta(self, J, n, rng, y_scale=1.0):
        J = J.copy()
        J[:, -1] *= y_scale
        z = rng.standard_normal(n)
        sd = self.inner.noise_sd(lambda_min(J), z)
        return theta_from_gram(wishart(J.T @ J, sd ** 2, self.k, n, rng), J.shape[1] - 1)

    def sample(self, dataset, n, rng) -> np.ndarray:
        J = self.validate_dataset(dataset)
        return self._theta(J, check_draw(n, rng), rng)

    def run_literal(self, dataset, rng) -> np.ndarray:
        """One run as printed: z, λ̃, η̃, then S[X, Y] + η̃Cξ with S drawn explicitly, then OLS."""
        J = self.validate_dataset(dataset)
        sd = self.inner.noise_sd(lambda_min(J), rng.standard_normal(1))
        M = sketch(J, self.k, sd, 1, rng)[0]
        return np.linalg.lstsq(M[:, :-1], M[:, -1], rcond=None)[0]


@functools.lru_cache(maxsize=16)
def logistic_surrogate(Q: float) -> tuple[float, float, float]:
    """(b₀, b₁, b₂) of q(s) ≈ −ln(1 + e^{−s}) on [−Q, Q] (least squares on 4001 equispaced
    points; the paper leaves the fit and 𝓘 = [−Q, Q] open)."""
    s = np.linspace(-Q, Q, 4001)
    b2, b1, b0 = np.polyfit(s, -np.logaddexp(0.0, -s), 2)
    return float(b0), float(b1), float(b2)


class GaussMixLogistic(LinearMixing):
    """DP logistic regression via the quadratic surrogate (§5.2, App. G): with
    q(s) = b₀ + b₁s + b₂s² ≈ −ln(1 + e^{−s}) on [−Q, Q] (least-squares fit), minimising the
    surrogate loss is OLS with response −(b₁/(2b₂))·Y.  ``pipeline="appendix-g"`` (default):
    θ̂ = −(b₁/(2b₂))·θ_Lin with LinearMixing run on (X, Y), C_Y = 1; ``"section-5.2"``:
    LinearMixing run on (X, −(b₁/(2b₂))Y) with C_Y = |b₁/(2b₂)|.  Labels yᵢ ∈ {−1, +1}.
    Claim: (ε, δ)-DP (Theorem 2 and post-processing)."""

    name = "gaussmix-logistic"
    logistic = True

    parameter_order = ("epsilon", "delta", "k", "x_bound", "Q", "pipeline", "noise_level",
                       "first_branch", "dim", "copies")
    cy = None  # C_Y follows from the pipeline (set in derive), not a parameter
    Q = number_parameter(4.0, "half-width Q of the logistic surrogate's interval")
    pipeline = choice_parameter("appendix-g", ("appendix-g", "section-5.2"),
                                "which pipeline of the paper")

    def derive(self) -> None:
        b0, b1, b2 = logistic_surrogate(self.Q)
        self.scale = -b1 / (2.0 * b2)
        self.cy = 1.0 if self.pipeline == "appendix-g" else abs(self.scale)
        super().derive()
        self.coefficients = (b0, b1, b2)

    def sample(self, dataset, n, rng) -> np.ndarray:
        J = self.validate_dataset(dataset)
        n = check_draw(n, rng)
        if self.pipeline == "appendix-g":
            return self.scale * self._theta(J, n, rng)
        return self._theta(J, n, rng, y_scale=self.scale)


__all__ = ["LinearMixing", "GaussMixLogistic", "RegressionMechanism", "wishart",
           "solve_batched", "theta_from_gram", "linear_mixing_gamma", "logistic_surrogate"]
