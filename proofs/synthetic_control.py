"""Derivation: differentially private synthetic control (Rho, Cummings & Misra, AISTATS 2023).

What is checked, section by section (every formula the mechanisms in
:mod:`dpaudit.mechanisms.synthetic_control.mechanisms` evaluate is an entry of this certificate):

* ``ridge`` — the minimiser of the stated objective (4), (1/T₀)‖y − Xᵀf‖² + (λ/(2T₀))‖f‖², is
  f = (XXᵀ + (λ/2)I)⁻¹Xy (stationarity, on a generic symbolic 2×3 instance); the closed form
  (XXᵀ + (λ/(2T₀))I)⁻¹Xy written in Lemmas 3.8/C.6/E.1 is *not* a stationary point
  (counterexample).
* ``c_bound`` — eigenvalues of E = 2(X′X′ᵀ − XXᵀ) (eq. (28)): λ_|max|(E) = |d| +
  √(d² + 4‖u‖²) ≤ T₀(1 + √(16n − 15)) under eq. (3).  Used as the default analyst c.
* ``lemma_3_7`` — the paper's proof: Lemma B.4 (max over *all* f of ‖∇g(f)‖ ≤ 4√(8+n)) is
  false (counterexample: ∇g is affine in f).  The *statement* of Lemma 3.7 is nevertheless
  true; proved here in two regimes: ‖f_reg‖ ≤ √T₀/(2√(λ/2)) gives Δf_reg ≤ √(2T₀/λ) (≤ the
  claim iff λ ≤ 8T₀(8+n)); for λ ≥ 8T₀(8+n) Lemma B.2 applied *at the minimiser* with that
  norm bound gives the claim.  The direct bound √(2T₀/λ) is itself an entry (it is √n-times
  smaller than Lemma 3.7 at λ ∝ T₀).
* ``lemma_3_8`` — the rank-one example: with the stated objective it gives Θ(√n) at λ = 2
  (the paper's coordinates), but Θ(1) at the λ = 2T₀ the text names.
* ``lemma_3_9`` — ℓ₂ sensitivity of the flattened X_post is 2√(T − T₀), attained.
* ``l2_laplace`` — the high-dimensional Laplace density: normaliser, radial Gamma(d, a) law,
  log-ratio ≤ ‖μ − μ′‖/a; the scales a and b_W; Theorems 3.6 and 3.1 by composition.
* ``algorithm_3`` — the branch logic of Algorithm 3: (1 + c/λ)² = 1 + 2c/λ + c²/λ²,
  Φ-bound = e^{ε₁−ε₀} in both branches, Δ ≥ 0 in the second branch; β of Lemma D.4 and of
  Algorithm 3; the quadratic behind (33) (its printed root has a slip, both printed β's still
  satisfy the corrected condition).
* ``theorem_3_10`` — Lemma D.4/D.5's bound on Γ(α) needs ‖α‖ bounded, but α = f_obj is
  unconstrained: for n = T₀ = 1 the privacy loss of f_obj grows linearly (Laplace) or
  quadratically (Gaussian) in α.  Theorem 3.10 (hence 3.4) is false in both branches: the
  pure-ε of the Laplace branch is ∞, and for the Gaussian branch an interval-certified
  δ(ε₁) > δ at concrete parameters.

``dpaudit prove synthetic_control`` writes ``proofs/certificates/synthetic_control.json``.
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from dpaudit.proofs.framework import Derivation

FAMILY = "synthetic_control"


def derive() -> Derivation:
    d = Derivation(FAMILY, Path(__file__), "Differentially private synthetic control: DPSC_out "
                   "(Alg. 2) and DPSC_obj (Alg. 3)", references=(
                       "Rho, Cummings & Misra, Differentially Private Synthetic Control, AISTATS "
                       "2023 (Lemmas 3.7-3.9, B.2-B.7, D.2-D.5, Theorems 3.1, 3.4, 3.6, 3.10)",
                       "Chaudhuri, Monteleoni & Sarwate, JMLR 2011 (Lemma 7, Lemma 2)",
                       "Kifer, Smith & Thakurta, COLT 2012 (Lemma 14)"))
    s = {
        "T0": d.symbol("T0", "number of pre-intervention periods T₀", positive=True,
                       integer=True),
        "T": d.symbol("T", "number of periods T > T₀ + 1", positive=True, integer=True),
        "n": d.symbol("n", "number of donors n", positive=True, integer=True),
        "lam": d.symbol("lam", "ridge parameter λ > 0", positive=True),
        "eps1": d.symbol("epsilon1", "privacy parameter ε₁ of step 1", positive=True),
        "eps2": d.symbol("epsilon2", "privacy parameter ε₂ of step 2", positive=True),
        "eps0": d.symbol("epsilon0", "ε₀ of Algorithm 3 (share of ε₁ bounding Γ)",
                         positive=True),
        "c": d.symbol("c", "analyst's bound c ≥ λ_|max|(2(X′X′ᵀ − XXᵀ))", positive=True),
        "delta": d.symbol("delta", "δ of Algorithm 3's Gaussian branch, 0 < δ < 1",
                          positive=True),
    }
    _ridge(d, s)
    _c_bound(d, s)
    _lemma_3_7(d, s)
    _lemma_3_8(d, s)
    _lemma_3_9(d, s)
    _l2_laplace(d, s)
    _algorithm_3(d, s)
    _theorem_3_10(d, s)
    return d


# -- the ridge minimiser ----------------------------------------------------------------------

def _ridge(d, s):
    d.section("ridge")
    lam, T0 = s["lam"], sp.Integer(3)
    X = sp.Matrix(2, 3, sp.symbols("x11 x12 x13 x21 x22 x23", real=True))
    y = sp.Matrix(3, 1, sp.symbols("y1 y2 y3", real=True))
    f = sp.Matrix(2, 1, sp.symbols("f1 f2", real=True))
    J = ((y - X.T * f).T * (y - X.T * f))[0] / T0 + lam / (2 * T0) * (f.T * f)[0]
    grad = sp.Matrix([sp.diff(J, v) for v in f])
    fstar = (X * X.T + lam / 2 * sp.eye(2)).inv() * X * y
    at = grad.subs(dict(zip(f, fstar)))
    d.facts["ridge"] = [d.identity(
        f"∂J/∂f_{i + 1} = 0 at f = (XXᵀ + (λ/2)I)⁻¹Xy for J(f) = (1/T₀)‖y − Xᵀf‖² + "
        f"(λ/(2T₀))‖f‖² (eq. (4); generic symbolic X ∈ ℝ^{{2×3}}, y ∈ ℝ³, T₀ = 3)",
        sp.simplify(at[i]), 0) for i in range(2)]
    gap = sp.hessian(J, list(f)) - (2 * X * X.T / T0 + lam / T0 * sp.eye(2))
    d.facts["ridge_strong"] = d.identity(
        "the Hessian of J is (2/T₀)XXᵀ + (λ/T₀)I (every entry of the difference is 0), so J is "
        "(λ/T₀)-strongly convex (Lemma B.3)", sum(sp.expand(e) ** 2 for e in gap), 0)
    # the closed form of Lemmas 3.8 / C.6 / E.1 at n = 1, T₀ = 2, X = [1, 1], y = (1, 1), λ = 2
    x1, t0, l1 = sp.Integer(1), sp.Integer(2), sp.Integer(2)
    f_paper = (t0 * x1 * x1 + l1 / (2 * t0)) ** -1 * (t0 * x1)
    grad_paper = (2 / t0) * (t0 * f_paper - t0) + (l1 / t0) * f_paper
    d.counterexample("the closed form (XXᵀ + (λ/(2T₀))I)⁻¹Xy of Lemmas 3.8, C.6, E.1 is NOT the "
                     "minimiser of (4): at n = 1, T₀ = 2, X = (1, 1), y = (1, 1), λ = 2 the "
                     "gradient of J there is non-zero", grad_paper, {}, "==",
                     detail="the stated objective's minimiser is (XXᵀ + (λ/2)I)⁻¹Xy; the "
                     "printed form is the minimiser of ‖y − Xᵀf‖² + (λ/(2T₀))‖f‖² (no 1/T₀ on "
                     "the loss)")


# -- c: bound on the eigenvalues of E ---------------------------------------------------------

def _c_bound(d, s):
    d.section("c_bound")
    T0, n = s["T0"], s["n"]
    dd = sp.Symbol("d_E", real=True)       # ‖x′_j‖² − ‖x_j‖² ∈ [−T₀, T₀]
    w = sp.Symbol("w", nonnegative=True)   # ‖u‖, uᵢ = (x′_j − x_j)ᵀxᵢ, i ≠ j
    z = sp.Symbol("z")
    char = sp.expand((dd - z) * (0 - z) - w ** 2)
    roots = [dd / 2 + sp.sqrt(dd ** 2 / 4 + w ** 2), dd / 2 - sp.sqrt(dd ** 2 / 4 + w ** 2)]
    steps = [d.identity(f"on span{{e_j, u}}, E/2 = d·e_jeⱼᵀ + e_juᵀ + ueⱼᵀ acts as [[d, ‖u‖], "
                        f"[‖u‖, 0]]; z = d/2 {sign} √(d²/4 + ‖u‖²) is a root of its "
                        f"characteristic polynomial", char.subs(z, r), 0)
             for sign, r in zip("+−", roots)]
    steps.append(d.given("E = 2(X′X′ᵀ − XXᵀ) has non-zero entries only in row and column j "
                         "(eq. (28)): (j, j) = 2(‖x′_j‖² − ‖x_j‖²), (j, i) = 2(x′_j − x_j)ᵀxᵢ; so "
                         "it vanishes on the orthogonal complement of span{e_j, u}",
                         "Rho et al. 2023, App. G.1, eq. (28)"))
    p, q, r = sp.symbols("p q r", real=True)   # x′_jt, x_jt, x_it ∈ [−1, 1]
    box = {p: (-1, 1), q: (-1, 1), r: (-1, 1)}
    steps += [d.interval("per period t: |x′_jt² − x_jt²| ≤ 1, so |d| ≤ T₀ (eq. (3))",
                         1 - (p ** 2 - q ** 2), {p: (-1, 1), q: (-1, 1)}, ">="),
              d.interval("… and the other side", 1 + (p ** 2 - q ** 2), {p: (-1, 1), q: (-1, 1)},
                         ">="),
              d.vertices("per period t: (x′_jt − x_jt)x_it ≤ 2 (multilinear: extremes at "
                         "vertices)", 2 - (p - q) * r, box),
              d.vertices("… and ≥ −2; so |uᵢ| ≤ 2T₀ and ‖u‖² ≤ 4(n − 1)T₀²", 2 + (p - q) * r,
                         box)]
    bound = T0 * (1 + sp.sqrt(16 * n - 15))
    steps.append(d.identity("λ_|max|(E) = |d| + √(d² + 4‖u‖²) is increasing in |d| and ‖u‖; at "
                            "|d| = T₀, ‖u‖² = 4(n − 1)T₀² it equals T₀(1 + √(16n − 15))",
                            T0 + sp.sqrt(T0 ** 2 + 4 * 4 * (n - 1) * T0 ** 2), bound))
    d.facts["c_bound"] = d.deduce("under eq. (3) every neighbouring pair has λ_|max|(E) ≤ "
                                  "T₀(1 + √(16n − 15))", steps,
                                  "2·max |root| of the 2×2 block, monotone in |d| and ‖u‖")
    d.entry("c_bound", "c", bound,
            "a valid c for Algorithm 3 under eq. (3): λ_|max|(2(X′X′ᵀ − XXᵀ)) ≤ T₀(1 + √(16n − 15))",
            sections=["c_bound"])


# -- Lemma 3.7 ---------------------------------------------------------------------------------

def _lemma_3_7(d, s):
    T0, n, lam = s["T0"], s["n"], s["lam"]
    d.section("lemma_3_7")
    claim = 4 * T0 * sp.sqrt(8 + n) / lam
    # Lemma B.4 as stated is false: ∇g is affine in f
    f = sp.Symbol("f", real=True)
    grad_g = 2 * ((1 - 0) * f - (1 - 0) * 1)  # n = T₀ = 1, x = 0 → x′ = 1, y = 1
    d.counterexample("Lemma B.4 as stated, max_f ‖∇g(f)‖ ≤ 4√(8 + n), is FALSE: ∇g(f) = "
                     "(2/T₀)[(X′X′ᵀ − XXᵀ)f − (X′ − X)y] is affine in f; at n = T₀ = 1, x = 0 → "
                     "x′ = 1, y = 1, f = 10 it is 18 > 12",
                     4 * sp.sqrt(8 + 1) - sp.Abs(grad_g), {f: 10}, ">=",
                     detail="the proof's bounds (xₜᵀf − yₜ)² ≤ 4, Σ x′²f_i² ≤ n assume ‖f‖₁ ≤ 1, "
                     "which the unconstrained ridge solution need not satisfy; Lemma B.2 only "
                     "needs ∇g at the minimiser f₂, which is what the proof below uses")
    # regime 1: the direct norm bound
    sig, mu = sp.Symbol("sigma_s", nonnegative=True), sp.Symbol("mu", positive=True)
    r1 = [d.decompose("σ/(σ² + μ) ≤ 1/(2√μ) for every singular value σ ≥ 0 of X",
                      1 / (2 * sp.sqrt(mu)) - sig / (sig ** 2 + mu),
                      [(sig - sp.sqrt(mu)) ** 2 / (2 * sp.sqrt(mu) * (sig ** 2 + mu))]),
          d.given("‖y_pre‖₂ ≤ √T₀ (|yₜ| ≤ 1, eq. (3)); f_reg = (XXᵀ + μI)⁻¹Xy with μ = λ/2 "
                  "(section ridge), so ‖f_reg‖ ≤ ‖y‖·max_σ σ/(σ² + μ) (SVD of X)",
                  "singular value decomposition; eq. (3)")]
    direct = sp.sqrt(2 * T0 / lam)
    r1.append(d.identity("Δf_reg ≤ ‖f_reg(D)‖ + ‖f_reg(D′)‖ ≤ 2·√T₀/(2√(λ/2)) = √(2T₀/λ)",
                         2 * sp.sqrt(T0) / (2 * sp.sqrt(lam / 2)), direct))
    d.facts["direct"] = d.deduce("for every λ > 0 and every neighbouring pair, "
                                 "‖f_reg(D) − f_reg(D′)‖ ≤ √(2T₀/λ)", r1, "triangle inequality")
    lam_star = 8 * T0 * (8 + n)
    d.solve("√(2T₀/λ) = 4T₀√(8+n)/λ at λ* = 8T₀(8 + n) (square both sides)",
            sp.Eq(2 * T0 / lam, claim ** 2), lam, lam_star)
    v = sp.Symbol("v", nonnegative=True)
    reg1 = d.sign("for λ = λ*(1 − v) ≤ λ*: 1 − (√(2T₀/λ))²/(4T₀√(8+n)/λ)² = v ≥ 0",
                  1 - (2 * T0 / lam) / claim ** 2, ">=", substitute={lam: lam_star * (1 - v)})
    # regime 2: Lemma B.2 at the minimiser, with ‖f₂‖ ≤ √T₀/(2√μ) and ‖X′X′ᵀ − XXᵀ‖ ≤ c/2
    sq = sp.Symbol("s_n", positive=True)   # s_n = √(8 + n) ≥ 3
    k2 = sp.Symbol("k", nonnegative=True)
    steps2 = [
        d.given("Lemma B.2 (Chaudhuri et al. 2011, Lemma 7) with G = J(·; D), g = J(·; D′) − "
                "J(·; D), both (λ/T₀)-strongly convex: ‖f₁ − f₂‖ ≤ (T₀/λ)‖∇g(f₂)‖ at the "
                "minimiser f₂ of G + g (its proof uses ∇g only there)",
                "Chaudhuri, Monteleoni & Sarwate 2011, Lemma 7 and its proof"),
        d.given("∇g(f₂) = (2/T₀)[(X′X′ᵀ − XXᵀ)f₂ − (X′ − X)y]: ‖∇g(f₂)‖ ≤ (2/T₀)[(c*/2)·√T₀/"
                "(2√μ) + 2T₀] with c* = T₀(1 + √(16n − 15)) (section c_bound), ‖(X′ − X)y‖ ≤ 2T₀",
                "sections ridge, c_bound; eq. (3)"),
        d.facts["c_bound"],
        d.identity("so Δf_reg ≤ (4T₀/λ)[1 + c*/(8√(T₀μ))], and at μ = λ/2 ≥ λ*/2 = 4T₀(8 + n) "
                   "the bracket is ≤ 1 + (1 + √(16n − 15))/(16√(8 + n))",
                   (1 + T0 * (1 + sp.sqrt(16 * n - 15)) / (8 * sp.sqrt(T0 * 4 * T0 * (8 + n)))),
                   1 + (1 + sp.sqrt(16 * n - 15)) / (16 * sp.sqrt(8 + n))),
        d.sign("√(16n − 15) ≤ 4√(8 + n): 16(8 + n) − (16n − 15) = 143 > 0",
               16 * (8 + n) - (16 * n - 15), ">"),
        d.sign("with s = √(8 + n) ≥ 3 (s = 3 + k): s − 1 − (1 + 4s)/(16s) ≥ 0, i.e. the bracket "
               "1 + (1 + 4s)/(16s) ≤ s", sq - 1 - (1 + 4 * sq) / (16 * sq), ">=",
               substitute={sq: 3 + k2}),
    ]
    reg2 = d.deduce("for λ ≥ 8T₀(8 + n): Δf_reg ≤ (4T₀/λ)·√(8 + n)", steps2,
                    "chain of the bounds above")
    d.facts["lemma_3_7"] = d.deduce("Lemma 3.7 holds: Δf_reg ≤ 4T₀√(8 + n)/λ for every λ > 0 "
                                    "(its printed proof does not: Lemma B.4 is false)",
                                    [d.facts["direct"], reg1, reg2], "the two regimes cover λ > 0")
    # the direct bound is attained for λ ≤ 2T₀
    sv = sp.Symbol("s_x", positive=True)
    mu2 = lam / 2
    att = [d.identity("rank-one pair: X has only donor j's pre-period x_j = s·y (y = 1), X′ has "
                      "−s·y; then f_reg = x_j(x_jᵀy)/(‖x_j‖² + μ) on coordinate j: f_j = sT₀/(s²T₀ "
                      "+ μ) (Sherman–Morrison), and f′_j = −f_j",
                      (sv ** 2 * T0 + mu2) * (sv * T0 / (sv ** 2 * T0 + mu2)) - sv * T0, 0),
           d.identity("at s = √(μ/T₀) = √(λ/(2T₀)): 2f_j = √(2T₀/λ), the direct bound",
                      (2 * sv * T0 / (sv ** 2 * T0 + mu2)).subs(sv, sp.sqrt(lam / (2 * T0))),
                      direct),
           ]
    d.solve("the entries ±s lie in [−1, 1] iff s ≤ 1, i.e. λ ≤ 2T₀ (boundary λ = 2T₀)",
            sp.Eq(sp.sqrt(lam / (2 * T0)), 1), lam, 2 * T0)
    att.append(d.steps[-1])
    d.facts["exact"] = d.deduce("for λ ≤ 2T₀ the ℓ₂ sensitivity of f_reg is exactly √(2T₀/λ), "
                                "for every n: Lemma 3.7's bound is loose by 2√2·√(8 + n)·√(T₀/λ)",
                                att + [d.facts["direct"]], "attained by an admissible pair and "
                                "equal to the upper bound")
    d.entry("freg_sensitivity", "Delta_f", claim,
            "ℓ₂ sensitivity of f_reg claimed by Lemma 3.7: 4T₀√(8 + n)/λ (true; proved here by "
            "another route)", sections=["ridge", "c_bound", "lemma_3_7"])
    d.entry("freg_sensitivity_direct", "Delta_f_direct", direct,
            "a smaller valid ℓ₂ sensitivity of f_reg: √(2T₀/λ) (from ‖f_reg‖ ≤ √T₀/(2√(λ/2))), "
            "exact for λ ≤ 2T₀",
            sections=["ridge", "lemma_3_7"])


# -- Lemma 3.8 ---------------------------------------------------------------------------------

def _lemma_3_8(d, s):
    n = s["n"]
    d.section("lemma_3_8")
    mu, q, T0 = sp.Symbol("mu", positive=True), sp.Symbol("q", nonnegative=True), n
    d.identity("rank one X = u1ᵀ (T₀ columns): (T₀uuᵀ + μI)·T₀u/(μ + T₀‖u‖²) = T₀u = Xy for "
               "y = 1 (Sherman–Morrison), with ‖u‖² = q",
               (T0 * q + mu) * T0 / (mu + T0 * q) - T0, 0)
    q0 = 1 + (n - 1) / n ** 2       # u = (1, 1/n, …, 1/n)
    q1 = (n - 1) / n ** 2           # u′ = (0, 1/n, …, 1/n)
    first = T0 * 1 / (mu + T0 * q0)
    other = T0 * (1 / n) / (mu + T0 * q0) - T0 * (1 / n) / (mu + T0 * q1)
    sq_norm = first ** 2 + (n - 1) * other ** 2
    d.identity("at μ = 1 (λ = 2): first coordinate of f_reg is n²/(n² + 2n − 1) (as printed)",
               first.subs(mu, 1), n ** 2 / (n ** 2 + 2 * n - 1))
    d.identity("at μ = 1: the other coordinates of f_reg′ are n/(2n − 1) = −n/(1 − 2n) (as "
               "printed)", (T0 * (1 / n) / (mu + T0 * q1)).subs(mu, 1), -n / (1 - 2 * n))
    d.identity("at μ = 1: lim ‖f_reg − f_reg′‖²/n = 1/4 as n → ∞, so ‖Δf‖ = Θ(√n) (Lemma 3.8 "
               "holds for fixed λ = 2)", sp.limit(sq_norm.subs(mu, 1) / n, n, sp.oo),
               sp.Rational(1, 4))
    d.identity("with the λ = 2T₀ the text names (μ = λ/2 = T₀ = n under the stated objective): "
               "lim ‖Δf‖² = 1/4, so the example gives Θ(1), not Θ(√n)",
               sp.limit(sq_norm.subs(mu, n), n, sp.oo), sp.Rational(1, 4))
    d.deduce("at λ = 2T₀ every pair has Δf_reg ≤ √(2T₀/λ) = 1: the √n lower bound needs λ = o(T₀)",
             [d.facts["direct"]], "substitute λ = 2T₀ into the direct bound")


# -- Lemma 3.9 / B.7 ---------------------------------------------------------------------------

def _lemma_3_9(d, s):
    T, T0 = s["T"], s["T0"]
    d.section("lemma_3_9")
    x, x1 = sp.symbols("x x'", real=True)
    steps = [d.interval("(x − x′)² ≤ 4 for x, x′ ∈ [−1, 1] (eq. (3))", 4 - (x - x1) ** 2,
                        {x: (-1, 1), x1: (-1, 1)}, ">="),
             d.identity("attained at x = 1, x′ = −1", (1 - (-1)) ** 2, 4),
             d.identity("one donor row changes T − T₀ post entries: √(4(T − T₀)) = 2√(T − T₀)",
                        sp.sqrt(4 * (T - T0)), 2 * sp.sqrt(T - T0))]
    d.facts["post"] = d.deduce("Lemma B.7: the ℓ₂ sensitivity of vec(X_post) is 2√(T − T₀), "
                               "attained", steps, "‖vec(X_post − X′_post)‖² = Σₜ (x_jt − x′_jt)²")
    d.entry("post_sensitivity", "Delta_post", 2 * sp.sqrt(T - T0),
            "ℓ₂ sensitivity of the flattened X_post (Lemma B.7): 2√(T − T₀)",
            sections=["lemma_3_9"])


# -- the ℓ₂ Laplace mechanism, Theorems 3.6, 3.1 -----------------------------------------------

def _l2_laplace(d, s):
    T0, n, lam, eps1, eps2, T = s["T0"], s["n"], s["lam"], s["eps1"], s["eps2"], s["T"]
    d.section("l2_laplace")
    r, a = sp.Symbol("r", positive=True), sp.Symbol("a", positive=True)
    Delta = sp.Symbol("Delta", positive=True)
    dim = sp.Symbol("d", positive=True, integer=True)
    steps = [
        d.integral("∫₀^∞ r^{d−1} e^{−r/a} dr = Γ(d)aᵈ: in polar coordinates the density "
                   "∝ exp(−‖v‖/a) has normaliser aᵈΓ(d)·2π^{d/2}/Γ(d/2), and ‖v‖ ~ Gamma(d, a) "
                   "independent of the uniform direction (the sampler's construction)",
                   r ** (dim - 1) * sp.exp(-r / a), (r, 0, sp.oo), sp.gamma(dim) * a ** dim),
        d.given("|‖v − μ′‖ − ‖v − μ‖| ≤ ‖μ − μ′‖ (triangle inequality), with equality on the ray "
                "v = μ + t(μ − μ′), t ≥ 0", "triangle inequality"),
    ]
    lemma = d.deduce("ℓ₂-Laplace noise of scale a on a query of ℓ₂ sensitivity Δ is (Δ/a)-DP, "
                     "and no smaller pure ε holds", steps,
                     "pointwise density ratio ≤ e^{Δ/a}, attained on a cone of positive mass")
    d.solve("Δ/a = ε gives a = Δ/ε", sp.Eq(Delta / a, eps1), a, Delta / eps1)
    scale_out = 4 * T0 * sp.sqrt(8 + n) / (lam * eps1)
    d.identity("Algorithm 2: a = Δf_reg/ε₁ = 4T₀√(8 + n)/(λε₁)",
               (4 * T0 * sp.sqrt(8 + n) / lam) / eps1, scale_out)
    thm36 = d.deduce("Theorem 3.6 (= B.1): f_out = f_reg + v is ε₁-DP", [lemma,
                     d.facts["lemma_3_7"]], "Lemma 3.7 (true) and the ℓ₂-Laplace lemma")
    scale_post = 2 * sp.sqrt(T - T0) / eps2
    d.identity("Step 2: b = Δ_post/ε₂ = 2√(T − T₀)/ε₂", 2 * sp.sqrt(T - T0) / eps2, scale_post)
    lem39 = d.deduce("Lemma 3.9: X̃_post = X_post + W, W ~ p(W; b) ∝ exp(−‖W‖_F/b) jointly, is "
                     "ε₂-DP", [lemma, d.facts["post"]], "‖W‖_F = ‖vec W‖₂")
    d.deduce("Theorem 3.1: y_out = X̃_postᵀ f_out is (ε₁ + ε₂)-DP", [thm36, lem39],
             "basic composition of (f_out, X̃_post), then post-processing")
    secs = ["ridge", "c_bound", "lemma_3_7", "l2_laplace"]
    d.entry("out_scale", "a", scale_out, "ℓ₂-Laplace scale of Algorithm 2: a = 4T₀√(8 + n)/(λε₁)",
            sections=secs)
    d.entry("post_scale", "b_W", scale_post, "ℓ₂-Laplace scale of step 2: b = 2√(T − T₀)/ε₂",
            sections=["lemma_3_9", "l2_laplace"])


# -- Algorithm 3 --------------------------------------------------------------------------------

def _algorithm_3(d, s):
    T0, n, lam, eps1, eps0, c, delta = (s["T0"], s["n"], s["lam"], s["eps1"], s["eps0"], s["c"],
                                        s["delta"])
    d.section("algorithm_3")
    thr = sp.log(1 + 2 * c / lam + c ** 2 / lam ** 2)
    d.identity("(1 + c/λ)² = 1 + 2c/λ + c²/λ² (Lemma D.3 at Δ = 0)", (1 + c / lam) ** 2,
               1 + 2 * c / lam + c ** 2 / lam ** 2)
    d.identity("branch Δ = 0, ε₀ = ε₁ − log(1 + 2c/λ + c²/λ²): the Φ bound (1 + c/λ)² equals "
               "e^{ε₁ − ε₀}", sp.exp(eps1 - (eps1 - thr)), (1 + c / lam) ** 2)
    Delta2 = c / (sp.exp(eps1 / 4) - 1) - lam
    d.identity("branch Δ = c/(e^{ε₁/4} − 1) − λ: (1 + c/(λ + Δ))² = e^{ε₁/2} = e^{ε₁ − ε₁/2}",
               (1 + c / (lam + Delta2)) ** 2, sp.exp(eps1 / 2))
    x = sp.Symbol("x", positive=True)   # x = c/λ
    sv = sp.Symbol("s_v", positive=True)
    d.identity("c/(√(1 + c/λ) − 1) = λ(√(1 + c/λ) + 1) (rationalise; x = c/λ)",
               x * lam / (sp.sqrt(1 + x) - 1) - lam * (sp.sqrt(1 + x) + 1), 0)
    d.sign("second branch (ε₁ ≤ 2log(1 + c/λ), so e^{ε₁/4} − 1 = s(√(1 + c/λ) − 1) with "
           "0 < s ≤ 1): Δ = λ(√(1 + c/λ) + 1)/s − λ ≥ 0",
           lam * (sp.sqrt(1 + x) + 1) / sv - lam, ">=", substitute={sv: 1 / (1 + x)})
    d.given("Lemma D.3: Φ(α; Δ) = |det(A + E)|/|det A| ≤ (1 + c/(λ + Δ))² for A = 2XXᵀ + "
            "(λ + Δ)I, when λ_|max|(E) ≤ c (Lemma G.1 = Chaudhuri et al. 2011, Lemma 2)",
            "Rho et al. 2023, App. G.1")
    beta_lap = sp.Min(4 * T0 * sp.sqrt(8 + n) / eps0, (c * sp.sqrt(n) + 4 * T0) / eps0)
    beta_gauss = 4 * T0 * sp.sqrt(8 + n) * sp.sqrt(2 * sp.log(2 / delta) + 2 * eps0) / eps0
    # Lemma D.5's quadratic: ε₀β² − H·a·β − H²/2 = 0 with a = √(2 log(2/δ))
    H, aa, beta = sp.Symbol("H", positive=True), sp.Symbol("a_L", positive=True), \
        sp.Symbol("beta", positive=True)
    root = H / (2 * eps0) * (aa + sp.sqrt(aa ** 2 + 2 * eps0))
    quad = eps0 * beta ** 2 - H * aa * beta - H ** 2 / 2
    d.identity("Γ ≤ e^{ε₀} on GOOD needs (2βHa + H²)/(2β²) ≤ ε₀, i.e. ε₀β² − Haβ − H²/2 ≥ 0; "
               "β₊ = (H/(2ε₀))(a + √(a² + 2ε₀)) is a root", quad.subs(beta, root), 0)
    d.sign("the product of the two roots is −H²/(2ε₀) < 0 (Vieta), so β₊ is the only positive "
           "root and the condition is β ≥ β₊", -H ** 2 / (2 * eps0), "<")
    paper33 = H / (2 * eps0) * (aa + sp.sqrt(aa ** 2 + eps0))
    d.counterexample("the root printed in (33), (H/(2ε₀))(a + √(a² + ε₀)), is too small: at "
                     "H = 1, a = 3/4, ε₀ = 7/16 it gives (2βHa + H²)/(2β²) − ε₀ = 1/16 > 0",
                     eps0 - (2 * beta * H * aa + H ** 2) / (2 * beta ** 2),
                     {beta: paper33.subs({H: 1, aa: sp.Rational(3, 4), eps0: sp.Rational(7, 16)}),
                      H: 1, aa: sp.Rational(3, 4), eps0: sp.Rational(7, 16)}, ">=")
    d.decompose("Lemma D.5's β = H√(a² + ε₀)/ε₀ still exceeds the true root: (a² + ε₀)² − "
                "a²(a² + 2ε₀) = ε₀² ≥ 0, i.e. 2√(a² + ε₀) ≥ a + √(a² + 2ε₀)",
                (aa ** 2 + eps0) ** 2 - aa ** 2 * (aa ** 2 + 2 * eps0), [eps0 ** 2])
    d.sign("Algorithm 3's β (√(a² + 2ε₀)) ≥ Lemma D.5's β (√(a² + ε₀))",
           (aa ** 2 + 2 * eps0) - (aa ** 2 + eps0), ">=")
    secs = ["algorithm_3"]
    note = ["Theorem 3.10 built on these scales is FALSE (section theorem_3_10)"]
    d.entry("obj_threshold", "epsilon_threshold", thr,
            "Algorithm 3 branch threshold: log(1 + 2c/λ + c²/λ²)", sections=secs)
    d.entry("obj_eps0_large", "epsilon0", eps1 - thr,
            "Algorithm 3, ε₁ above the threshold: ε₀ = ε₁ − log(1 + 2c/λ + c²/λ²) (Δ = 0)",
            sections=secs)
    d.entry("obj_eps0_small", "epsilon0", eps1 / 2,
            "Algorithm 3, ε₁ at or below the threshold: ε₀ = ε₁/2", sections=secs)
    d.entry("obj_Delta_small", "Delta_reg", Delta2,
            "Algorithm 3, ε₁ at or below the threshold: Δ = c/(e^{ε₁/4} − 1) − λ (≥ 0)",
            sections=secs)
    d.entry("obj_beta_laplace", "beta", beta_lap,
            "Algorithm 3, δ = 0: β = min{4T₀√(8 + n)/ε₀, (c√n + 4T₀)/ε₀} (as printed)",
            sections=secs, notes=note)
    d.entry("obj_beta_gaussian", "beta", beta_gauss,
            "Algorithm 3, δ > 0: β = 4T₀√(8 + n)√(2 log(2/δ) + 2ε₀)/ε₀ (as printed in Alg. 3)",
            sections=secs, notes=note)


# -- Theorem 3.10 is false ------------------------------------------------------------------------

def _theorem_3_10(d, s):
    lam, eps1 = s["lam"], s["eps1"]
    d.section("theorem_3_10")
    al = sp.Symbol("alpha_f", real=True)
    beta = sp.Symbol("beta", positive=True)
    Dr = sp.Symbol("Delta_reg", nonnegative=True)
    A = lam + Dr                       # A = 2XXᵀ + (λ + Δ)I at X = 0 (n = T₀ = 1)
    b0 = -(A * al)                     # b(α; D),  x = 0, y = 1
    b1 = -((A + 2) * al - 2)           # b(α; D′), x′ = 1, y = 1
    d.identity("n = T₀ = 1, x = 0 → x′ = 1, y = 1: b(α; D) = −(λ + Δ)α and b(α; D′) = "
               "−((λ + Δ + 2)α − 2) from b(α; D) = −(T₀∇L(α) + T₀∇r(α) + Δα)",
               b1 - b0, -(2 * al - 2))
    u = sp.Symbol("u", nonnegative=True)
    signs = [d.sign("for α = 1 + u ≥ 1: −b(α; D) = (λ + Δ)α ≥ 0", -b0, ">=",
                    substitute={al: 1 + u}),
             d.sign("for α = 1 + u ≥ 1: −b(α; D′) = (λ + Δ + 2)α − 2 ≥ 0", -b1, ">=",
                    substitute={al: 1 + u})]
    loss = ((-b1) - (-b0)) / beta + sp.log(A / (A + 2))   # |b| = −b for α ≥ 1
    a_star = 1 + beta * (eps1 + sp.log(1 + 2 / A) + 1) / 2
    signs.append(d.sign("α* − 1 = β(ε₁ + ln(1 + 2/(λ + Δ)) + 1)/2 > 0", a_star - 1, ">"))
    lap = d.identity("Laplace branch: ln p₀(α)/p₁(α) = (|b(α; D′)| − |b(α; D)|)/β + ln(A/A′); at "
                     "α* = 1 + β(ε₁ + ln(A′/A) + 1)/2 it equals ε₁ + 1 > ε₁, for every λ, Δ, β, ε₁",
                     sp.expand_log(loss.subs(al, a_star), force=True), eps1 + 1,
                     detail="for α ≥ 1 both b's are ≤ 0 and the loss is (2α − 2)/β + ln(A/A′), "
                     "increasing without bound: Γ(α) ≤ e^{ε₀} fails (Lemma D.4 assumes ‖α‖ ≤ √n)")
    d.deduce("Theorem 3.10, δ = 0, is FALSE: on S = {f_obj ≥ α*} (positive probability under "
             "both datasets) P₀(S) ≥ e^{ε₁ + 1}P₁(S) > e^{ε₁}P₁(S); the exact pure ε of the pair "
             "is ∞", signs + [lap], "the loss is increasing in α beyond α* ≥ 1")
    d.entry("obj_laplace_true_epsilon", "epsilon_true", sp.oo,
            "true pure ε of Algorithm 3's step 1 with Laplace noise (δ = 0): ∞",
            sections=["theorem_3_10"])
    # Gaussian branch: concrete counterexample, interval-certified
    lam_v, c_v, e1, dl = sp.Integer(4), sp.Integer(2), sp.Integer(1), sp.Rational(1, 100000)
    e0 = e1 - sp.log((1 + c_v / lam_v) ** 2)
    beta_v = 4 * 1 * 3 * sp.sqrt(2 * sp.log(2 / dl) + 2 * e0) / e0
    s0, s1, m1 = beta_v / lam_v, beta_v / (lam_v + 2), sp.Rational(2, 6)
    t = sp.Rational(5, 2) * s0
    p0 = sp.erfc(t / (s0 * sp.sqrt(2)))
    p1 = (sp.erfc((t - m1) / (s1 * sp.sqrt(2))) + sp.erfc((t + m1) / (s1 * sp.sqrt(2)))) / 2
    d.facts["gauss_cex"] = d.interval("Gaussian branch, n = T₀ = 1, λ = 4, c = 2 (valid: c_bound), ε₁ = 1, δ = 1e-5 "
               "(so Δ = 0, ε₀ = 1 − 2 ln(3/2)): f_obj ~ N(0, (β/4)²) on x = 0 and "
               "N(1/3, (β/6)²) on x′ = 1; S = {|f| ≥ 2.5β/4} has P₀(S) − e^{ε₁}P₁(S) − δ > 0",
               p0 - sp.exp(e1) * p1 - dl, {}, ">")
    d.deduce("Theorem 3.10, δ > 0, is FALSE: the pair above is not (ε₁, δ)-DP (the privacy loss "
             "of two Gaussians with scale ratio (λ + Δ + 2)/(λ + Δ) is an unbounded quadratic, "
             "independent of β)", [d.facts["gauss_cex"]], "hockey-stick divergence ≥ "
             "P₀(S) − e^ε P₁(S) for every event S")
