"""Neighbouring pairs for the synthetic-control mechanisms, and an optimised pair search.

* :func:`lemma_3_8_pair` — the paper's lower-bound example (App. B.1.1): y = 1, X with first
  row all ones and every other entry 1/n, X′ with first row all zeros (here for any T₀, T).
* :func:`post_flip_pair` — one donor's post-period goes from +1 to −1, everything else 0:
  ‖ΔX_post‖_F = 2√(T − T₀), the worst case of Lemma B.7.
* :func:`unbounded_loss_pair` — X = 0, X′ with one donor's pre-period all ones (post-period
  ones in both), y = 1: for DPSC_obj, A′ − A = 2T₀e₁e₁ᵀ ≠ 0, the pair of the certificate's
  Theorem 3.10 counterexample (n = T₀ = 1) at any size.
* :func:`extremal_regression_pair` — y_pre = 1, donor 0's pre-period s·1 vs −s·1 with
  s = min(1, √(λ/(2T₀))), every other entry 0: ‖Δf_reg‖₂ = √(2T₀/λ) for λ ≤ 2T₀ (the
  certificate's direct upper bound, so the exact sensitivity) and 4T₀/(2T₀ + λ) beyond.
* :func:`flipped_donor_pair` — all pre-period entries −1, donor 0's flipped to +1, y = 1: the
  pair the evidence search (:func:`max_obj_evidence`) returns for DPSC_obj at the sizes tried.
* :func:`max_regression_shift` — the pair of bounded donor matrices with the largest
  ‖f_reg(X) − f_reg(X′)‖₂ found by L-BFGS-B (analytic gradient) over (X_pre, the new row,
  y_pre) ∈ [−1, 1]^{nT₀ + 2T₀} from several starts (the Lemma 3.8 example, random sign
  matrices, uniform ones).  Row 0 is the replaced one (donors are exchangeable).  The
  post-period is filled as in :func:`post_flip_pair` so that the same pair is also hard for
  step 2.  Deterministic for a given seed; cached per (n, T, T₀, λ).
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.optimize import minimize

from dpaudit.mechanisms.base import NeighbourPair


def _pair(X0: np.ndarray, X1: np.ndarray, y: np.ndarray, name: str, description: str):
    return NeighbourPair(name, {"X": X0.tolist(), "y": y.tolist()},
                         {"X": X1.tolist(), "y": y.tolist()}, description)


def lemma_3_8_pair(n: int, T: int) -> NeighbourPair:
    X0 = np.full((n, T), 1.0 / n)
    X0[0] = 1.0
    X1 = X0.copy()
    X1[0] = 0.0
    return _pair(X0, X1, np.ones(T), "lemma-3.8-example",
                 "App. B.1.1: y = 1, X first row ones and all other entries 1/n, X′ first row "
                 "zeros (rank-one donor pools)")


def post_flip_pair(n: int, T: int, T0: int) -> NeighbourPair:
    X0 = np.zeros((n, T))
    X1 = X0.copy()
    X0[0, T0:] = 1.0
    X1[0, T0:] = -1.0
    return _pair(X0, X1, np.ones(T), "post-flip",
                 "one donor's post-period +1 → −1, all else 0: ‖ΔX_post‖_F = 2√(T − T₀) "
                 "(Lemma B.7 attained)")


def unbounded_loss_pair(n: int, T: int, T0: int) -> NeighbourPair:
    X0 = np.zeros((n, T))
    X0[0, T0:] = 1.0
    X1 = X0.copy()
    X1[0, :T0] = 1.0
    return _pair(X0, X1, np.ones(T), "unbounded-loss",
                 "X = 0 (post of donor 0 = 1) vs donor 0's pre-period all ones, y = 1: "
                 "X′X′ᵀ − XXᵀ = T₀e₀e₀ᵀ, so DPSC_obj's privacy loss grows without bound in f_obj "
                 "(certificate section theorem_3_10 at any n, T₀)")


def extremal_regression_pair(n: int, T: int, T0: int, lam: float) -> NeighbourPair:
    s = min(1.0, float(np.sqrt(lam / (2.0 * T0))))
    X0 = np.zeros((n, T))
    X0[0, :T0] = s
    X1 = X0.copy()
    X1[0, :T0] = -s
    X0[0, T0:], X1[0, T0:] = 1.0, -1.0
    shift = 2.0 * s * T0 / (s * s * T0 + 0.5 * lam)
    return _pair(X0, X1, np.ones(T), "extremal-regression",
                 f"y = 1, donor 0's pre-period s·1 vs −s·1 (s = min(1, √(λ/(2T₀))) = {s:.6g}), "
                 f"post-period +1 vs −1, all else 0: ‖Δf_reg‖₂ = {shift:.6g} (= √(2T₀/λ), the "
                 f"exact sensitivity, when λ ≤ 2T₀)")


def flipped_donor_pair(n: int, T: int, T0: int) -> NeighbourPair:
    X0 = np.zeros((n, T))
    X0[:, :T0] = -1.0
    X0[0, T0:] = 1.0
    X1 = X0.copy()
    X1[0, :T0] = 1.0
    return _pair(X0, X1, np.ones(T), "flipped-donor",
                 "every donor's pre-period −1, donor 0's flips to +1 (post-period equal), y = 1: "
                 "the best pair of the evidence search (max_obj_evidence) for DPSC_obj")


def _ridge(X, y, mu):
    M = X @ X.T + mu * np.eye(X.shape[0])
    f = np.linalg.solve(M, X @ y)
    return f, M


def _value_and_grad(z, n, T0, mu):
    """½‖f_reg(X) − f_reg(X′)‖² and its gradient in z = (vec X, new row, y) (row 0 replaced)."""
    X = z[:n * T0].reshape(n, T0)
    r = z[n * T0:n * T0 + T0]
    y = z[n * T0 + T0:]
    X1 = X.copy()
    X1[0] = r
    f0, M0 = _ridge(X, y, mu)
    f1, M1 = _ridge(X1, y, mu)
    g = f0 - f1
    p0, p1 = np.linalg.solve(M0, g), np.linalg.solve(M1, g)

    def grad_x(Xm, f, p):  # ∇_X of pᵀ-weighted f(X) (see module docstring of the derivation)
        return np.outer(p, y) - np.outer(p, Xm.T @ f) - np.outer(f, Xm.T @ p)

    G0, G1 = grad_x(X, f0, p0), grad_x(X1, f1, p1)
    gX = G0 - G1
    gX[0] = G0[0]
    gr = -G1[0]
    gy = X.T @ p0 - X1.T @ p1
    return 0.5 * float(g @ g), np.concatenate([gX.ravel(), gr, gy])


@functools.lru_cache(maxsize=64)
def _search(n: int, T0: int, lam: float, starts: int, seed: int):
    rng = np.random.default_rng(np.random.SeedSequence([seed, n, T0]))
    mu = 0.5 * lam
    dim = n * T0 + 2 * T0
    lemma = np.full((n, T0), 1.0 / n)
    lemma[0] = 1.0
    inits = [np.concatenate([lemma.ravel(), np.zeros(T0), np.ones(T0)])]
    for k in range(starts - 1):
        inits.append(rng.choice([-1.0, 1.0], size=dim) if k % 2 == 0
                     else rng.uniform(-1.0, 1.0, size=dim))
    best = (-1.0, None)
    bounds = [(-1.0, 1.0)] * dim
    for z0 in inits:
        res = minimize(lambda z: tuple(-v for v in _value_and_grad(z, n, T0, mu)), z0,
                       jac=True, method="L-BFGS-B", bounds=bounds,
                       options={"maxiter": 400, "ftol": 1e-14, "gtol": 1e-10})
        value = -float(res.fun)
        if value > best[0]:
            best = (value, np.clip(res.x, -1.0, 1.0))
    return float(np.sqrt(2.0 * best[0])), best[1]


def max_regression_shift(n: int, T: int, T0: int, lam: float, *, starts: int = 6,
                         seed: int = 0) -> tuple[float, NeighbourPair]:
    """(‖Δf_reg‖₂, pair) of the best pair found (module docstring)."""
    shift, z = _search(int(n), int(T0), float(lam), int(starts), int(seed))
    X = np.zeros((n, T))
    X[:, :T0] = z[:n * T0].reshape(n, T0)
    X1 = X.copy()
    X1[0, :T0] = z[n * T0:n * T0 + T0]
    X[0, T0:], X1[0, T0:] = 1.0, -1.0
    y = np.ones(T)
    y[:T0] = z[n * T0 + T0:]
    # round to 12 digits so the pair prints and serialises stably
    X, X1, y = np.round(X, 12), np.round(X1, 12), np.round(y, 12)
    return shift, _pair(X, X1, y, "searched-max-shift",
                        f"L-BFGS-B over X_pre, x′₀ and y_pre in [−1, 1] ({starts} starts, seed "
                        f"{seed}): ‖Δf_reg‖₂ = {shift:.6g}; post-period of donor 0 flips +1 → −1")


# -- evidence search for DPSC_obj ---------------------------------------------------------------

def obj_hockey_stick(mechanism, d0, d1, eps: float, noise: np.ndarray) -> float:
    """Monte Carlo δ(ε) of f_obj on (d0, d1), both directions, from fixed standardised noise
    rows (common random numbers): δ_{0‖1}(ε) = E_{b}[(1 − e^{ε − L})₊] with
    L = ln p_b(b) − ln p_b(M b + w) + ln det A − ln det A′ exactly (M = A′A⁻¹, w = 2X′y − M·2Xy),
    the density of f_obj = A⁻¹(2Xy − b) being p_b(2Xy − Aα)·det A."""
    (A0, l0), (A1, l1) = mechanism.affine_map(d0), mechanism.affine_map(d1)
    b = noise * mechanism.beta
    best = 0.0
    for (Aa, la), (Ab, lb) in (((A0, l0), (A1, l1)), ((A1, l1), (A0, l0))):
        M = Ab @ np.linalg.inv(Aa)
        other = b @ M.T + (lb - M @ la)[None, :]
        if mechanism.noise_law == "laplace":
            loss = (np.linalg.norm(other, axis=1) - np.linalg.norm(b, axis=1)) / mechanism.beta
        else:
            loss = 0.5 * (np.sum(other ** 2, axis=1) - np.sum(b ** 2, axis=1)) / mechanism.beta ** 2
        loss += np.linalg.slogdet(Aa)[1] - np.linalg.slogdet(Ab)[1]
        best = max(best, float(np.mean(np.maximum(0.0, -np.expm1(eps - loss)))))
    return best


def max_obj_evidence(mechanism, *, eps: float | None = None, samples: int = 4000,
                     starts: int = 4, seed: int = 0, maxiter: int = 60):
    """The pair of bounded donor pools (row 0 replaced, post-period equal) with the largest
    Monte Carlo δ(ε) of DPSC_obj's step 1 at ε = ε₁ (default), found by L-BFGS-B (numerical
    gradient) over (X_pre, x′₀, y_pre) ∈ [−1, 1]^{nT₀ + 2T₀} from the unbounded-loss pair, a
    sign-flipped donor among equal donors, and random sign matrices.  Selection only: the
    returned pair must be certified on fresh samples (the audit does that).  Returns
    (δ̂, pair)."""
    n, T, T0 = mechanism.n, mechanism.T, mechanism.T0
    eps = mechanism.epsilon1 if eps is None else float(eps)
    rng = np.random.default_rng(np.random.SeedSequence([seed, n, T0, 0x0B7]))
    if mechanism.noise_law == "laplace":
        from dpaudit.exact.l2_laplace import sample_l2_laplace
        noise = sample_l2_laplace(rng, samples, n, 1.0)
    else:
        noise = rng.standard_normal((samples, n))

    def pools(z):
        X = np.zeros((n, T))
        X[:, :T0] = z[:n * T0].reshape(n, T0)
        X1 = X.copy()
        X1[0, :T0] = z[n * T0:n * T0 + T0]
        X[0, T0:] = X1[0, T0:] = 1.0
        y = np.ones(T)
        y[:T0] = z[n * T0 + T0:]
        return {"X": X, "y": y}, {"X": X1, "y": y}

    def objective(z):
        a, b = pools(np.clip(z, -1.0, 1.0))
        return -obj_hockey_stick(mechanism, a, b, eps, noise)

    dim = n * T0 + 2 * T0
    unbounded = np.concatenate([np.zeros(n * T0), np.ones(T0), np.ones(T0)])
    flip = np.concatenate([np.tile(np.r_[-np.ones(T0)], n) * 0.5, np.ones(T0), np.ones(T0)])
    flip[:T0] = -1.0
    inits = [unbounded, flip] + [rng.choice([-1.0, 1.0], size=dim) for _ in range(starts - 2)]
    best = (0.0, inits[0])
    for z0 in inits[:max(starts, 2)]:
        res = minimize(objective, z0, method="L-BFGS-B", bounds=[(-1.0, 1.0)] * dim,
                       options={"maxiter": maxiter, "eps": 1e-4})
        if -res.fun > best[0]:
            best = (-float(res.fun), np.clip(res.x, -1.0, 1.0))
    a, b = pools(np.round(best[1], 6))
    return best[0], _pair(a["X"], b["X"], a["y"], "searched-max-evidence",
                          f"L-BFGS-B over X_pre, x′₀, y_pre ∈ [−1, 1] maximising the Monte Carlo "
                          f"δ(ε = {eps:g}) of f_obj ({samples} common noise draws, seed {seed}): "
                          f"δ̂ = {best[0]:.4g}")


__all__ = ["lemma_3_8_pair", "post_flip_pair", "unbounded_loss_pair", "max_regression_shift",
           "extremal_regression_pair", "flipped_donor_pair", "max_obj_evidence",
           "obj_hockey_stick"]
