"""Derivation: posterior sampling and SGLD for one-dimensional Bayesian linear regression.

Source: "Can stochastic gradient Langevin dynamics provide differential privacy for deep
learning?" (anonymous, under review; ``shared/seeds/003``).  The model is eq. (4): prior
θ ~ N(0, α⁻¹), likelihood yᵢ | θ ~ N(θxᵢ, β⁻¹), on the domain 𝒟(n, γ₁, x_h, x_l, c) of eq. (5)
(x_l ≤ xᵢ ≤ x_h, |yᵢ/xᵢ − c| ≤ n^γ₁).

What is checked here, and what is taken from the paper:

* ``posterior`` — Lemma 4.1: the posterior is N(μ, σ²) with μ = βΣxy/(α + βΣx²),
  σ² = 1/(α + βΣx²) (completing the square, checked).
* ``gaussian_renyi`` — the Rényi divergence of two normals (Gil, Alajaji & Linder 2013),
  *derived* by completing the square in α ln f₁ + (1−α) ln f₂.  The paper's eq. (14) prints
  the coefficient of the log-variance term as ½(ν−1); the derivation gives 1/(2(ν−1))
  (recorded as a counterexample step).  The paper's bound on that term, ½(ν−1)·c₁, is still an
  upper bound on c₁/(2(ν−1)) when ν ≥ 2 (checked), so the claim below is used for ν ≥ 2 only.
* ``variance_positivity`` — Claim D.25 with the β the paper drops in eq. (51): the Rényi
  variance ν σ̂² + (1−ν)σ² has numerator α + β(z + x̂²) + νβ(x² − x̂²) (checked), so the 9/10
  margin of Claims D.24/D.28 needs n > 1 + 10ν x_h²/x_l², not n > 1 + 10ν x_h²/(x_l² β) as
  printed; the two agree for β ≤ 1 and the claim uses the stricter of the two.
* ``lemma_4_2`` — the bound ε₁(ν) of Lemma 4.2 on D_ν between the posteriors of any two
  neighbouring datasets of 𝒟, under its conditions on n and ν.  Its proof (Claims D.24–D.28,
  inequality chains over the domain) is taken from the paper (``given``); the audit measures
  it against the exact divergence and the exact privacy profile of the pair.
* ``lemma_4_3`` — the conversion to (ε₁(ν) + ln(1/δ)/(ν−1), δ)-DP (Mironov 2017, Prop. 3).
* ``sgld_step`` — one SGLD step (eq. 3) on this model is the affine Gaussian map
  θ ↦ aθ + ρ + √η ξ (checked), the paper's step size η = 2/(α + n x_h² β)² gives
  1 − λ = 1/(α + n x_h² β) (checked), and m repeated steps sum a geometric series (checked);
  these are the formulas :mod:`dpaudit.mechanisms.sgld.law` evaluates.
* ``pts_claim`` — Claim 4.1 of Algorithm 1 (Propose-Test-Sample): steps 6–13 (3ε, δ) and
  steps 14–19 (2ε, δ) (Claims C.9, C.12, Cor. C.3, taken from the paper) compose to (5ε, 2δ).
* ``pts_n_min`` — n_min of eq. (26), re-derived: ν = 1 + 2 ln(1/δ)/ε (eq. 53) and each of
  Lemma 4.2's terms ≤ its share of ε (eqs. 54–58) *solved* for n, with c + n^γ₁ ≤ 2 max(m̌,
  n^γ₁).  The printed eq. (26) squares neither (x_h²α + x_h⁴β) nor m̌ in its last-but-one
  term (a counterexample step records the difference); the mechanism uses the derived terms.
* ``interim_step`` — k̂ of Lemma A.4 (the epoch where the prior and data variances balance;
  the paper audits T = (⌈k̂⌉ + 1)n) and the paper's own lower bound ε′ of Lemma A.6, eq. (16),
  as stated.
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from dpaudit.proofs.framework import Derivation

FAMILY = "sgld"


def derive() -> Derivation:
    d = Derivation(FAMILY, Path(__file__), "Posterior sampling and SGLD for 1-D Bayesian linear "
                   "regression: Lemmas 4.1-4.3, the SGLD step, Lemma A.4/A.6 quantities",
                   references=("Can stochastic gradient Langevin dynamics provide differential "
                               "privacy for deep learning? (Lemmas 4.1-4.3, A.1, A.4, A.6; "
                               "Claims D.24-D.29)",
                               "Gil, Alajaji & Linder, Information Sciences 249, 2013 (Rényi "
                               "divergences of univariate laws)",
                               "Mironov, Rényi differential privacy, CSF 2017 (Prop. 3)",
                               "Welling & Teh, ICML 2011 (SGLD)"))
    s = {
        "alpha": d.symbol("alpha", "prior precision α", positive=True),
        "beta": d.symbol("beta", "noise precision β", positive=True),
        "n": d.symbol("n", "dataset size n", positive=True),
        "c": d.symbol("c", "centre c of the ratios y/x", positive=True),
        "x_h": d.symbol("x_h", "largest x", positive=True),
        "x_l": d.symbol("x_l", "smallest x", positive=True),
        "gamma1": d.symbol("gamma1", "domain exponent γ₁ (|y/x − c| ≤ n^γ₁), 0 < γ₁ < 1/2",
                           positive=True),
        "nu": d.symbol("nu", "Rényi order ν > 1", positive=True),
        "delta": d.symbol("delta", "δ of the (ε, δ) claim", positive=True),
        "eta": d.symbol("eta", "SGLD step size η", positive=True),
        "Sxx": d.symbol("S_xx", "Σ xᵢ²", positive=True),
        "Sxy": d.symbol("S_xy", "Σ xᵢyᵢ", real=True),
    }
    _posterior(d, s)
    _gaussian_renyi(d, s)
    _variance_positivity(d, s)
    _lemma_4_2(d, s)
    _lemma_4_3(d, s)
    _sgld_step(d, s)
    _interim(d, s)
    _propose_test_sample(d, s)
    return d


# -- Lemma 4.1 ---------------------------------------------------------------------------------

def _posterior(d, s):
    alpha, beta, Sxx, Sxy = s["alpha"], s["beta"], s["Sxx"], s["Sxy"]
    theta = sp.Symbol("theta", real=True)
    Syy = sp.Symbol("S_yy", positive=True)
    d.section("posterior")
    mu = beta * Sxy / (alpha + beta * Sxx)
    var = 1 / (alpha + beta * Sxx)
    log_joint = -alpha * theta**2 / 2 - beta * (Syy - 2 * theta * Sxy + theta**2 * Sxx) / 2
    d.identity("ln p(θ) + Σ ln p(yᵢ|θ) = −αθ²/2 − (β/2)Σ(yᵢ − θxᵢ)² + const; with "
               "Σ(yᵢ − θxᵢ)² = S_yy − 2θS_xy + θ²S_xx it equals −(θ − μ)²/(2σ²) + (terms "
               "free of θ): the θ-derivatives agree",
               sp.diff(log_joint, theta), sp.diff(-(theta - mu)**2 / (2 * var), theta))
    d.identity("… and the second derivatives agree (so the θ² coefficient is −1/(2σ²))",
               sp.diff(log_joint, theta, 2), -1 / var)
    d.facts["posterior"] = d.deduce(
        "Lemma 4.1: p(θ|D) = N(μ, σ²), μ = βS_xy/(α + βS_xx), σ² = 1/(α + βS_xx)",
        [d.steps[-2], d.steps[-1]], "a log-density quadratic in θ is a normal density")
    kw = dict(sections=["posterior"], notes=["S_xx = Σ xᵢ², S_xy = Σ xᵢyᵢ"])
    d.entry("posterior_mean", "mu", mu, "posterior mean (Lemma 4.1)", **kw)
    d.entry("posterior_variance", "sigma2", var, "posterior variance (Lemma 4.1)", **kw)


# -- Rényi divergence of two normals ------------------------------------------------------------

def _gaussian_renyi(d, s):
    nu = s["nu"]
    theta = sp.Symbol("theta", real=True)
    m1, m2 = sp.symbols("mu_1 mu_2", real=True)
    v1, v2 = sp.symbols("v_1 v_2", positive=True)   # variances
    d.section("gaussian_renyi")
    vstar = nu * v2 + (1 - nu) * v1
    prec = nu / v1 + (1 - nu) / v2                  # = v*/(v1 v2)
    centre = (nu * m1 / v1 + (1 - nu) * m2 / v2) / prec
    expo = -nu * (theta - m1)**2 / (2 * v1) - (1 - nu) * (theta - m2)**2 / (2 * v2)
    const = -nu * (1 - nu) * (m1 - m2)**2 / (2 * vstar)
    d.identity("ν ln f₁ + (1−ν) ln f₂ (exponents) = −P(θ − m)²/2 + C with P = ν/v₁ + (1−ν)/v₂ "
               "= v*/(v₁v₂), v* = νv₂ + (1−ν)v₁, C = −ν(1−ν)(μ₁ − μ₂)²/(2v*)",
               expo, -prec * (theta - centre)**2 / 2 + const)
    d.identity("P = v*/(v₁v₂)", prec, vstar / (v1 * v2))
    log_integral = (-nu * sp.log(v1) / 2 - (1 - nu) * sp.log(v2) / 2
                    + sp.log(v1 * v2 / vstar) / 2 + const)
    renyi = log_integral / (nu - 1)
    gil = (sp.log(v2) / 2 - sp.log(v1) / 2 + sp.log(v2 / vstar) / (2 * (nu - 1))
           + nu * (m1 - m2)**2 / (2 * vstar))
    d.identity("D_ν(N(μ₁,v₁)‖N(μ₂,v₂)) = ln(∫f₁^ν f₂^{1−ν})/(ν − 1) = ln(σ₂/σ₁) + "
               "ln(v₂/v*)/(2(ν−1)) + ν(μ₁ − μ₂)²/(2v*) (Gil et al. 2013), for v* > 0, using "
               "∫exp(−P(θ−m)²/2)dθ = √(2π/P)", renyi, gil)
    d.counterexample("eq. (14) as printed, with ½(ν − 1) as the coefficient of ln(σ̂²/(σ²)*), "
                     "agrees with the derived 1/(2(ν − 1)): false (e.g. at ν = 3, 1 ≠ 1/4)",
                     (nu - 1) / 2 - 1 / (2 * (nu - 1)), {nu: sp.Integer(3)}, "==")
    u, cc = sp.Symbol("u", nonnegative=True), sp.Symbol("c_1", nonnegative=True)
    d.facts["nu_ge_2"] = d.sign("for ν ≥ 2 and c₁ ≥ 0 the printed bound ½(ν−1)c₁ is ≥ the "
                                "correct c₁/(2(ν−1)): so Lemma 4.2's second term still bounds "
                                "the divergence's log-variance term when ν ≥ 2",
                                (nu - 1) * cc / 2 - cc / (2 * (nu - 1)), ">=",
                                substitute={nu: 2 + u}, detail="ν = 2 + u, u ≥ 0")
    d.entry("gaussian_renyi", "D_nu", gil,
            "Rényi divergence of order ν between N(μ₁, v₁) and N(μ₂, v₂) (Gil et al. 2013)",
            sections=["gaussian_renyi"], relations=[sp.Gt(vstar, 0)])


# -- Claim D.25 with β ----------------------------------------------------------------------------

def _variance_positivity(d, s):
    alpha, beta, nu, n, x_h, x_l = (s[k] for k in ("alpha", "beta", "nu", "n", "x_h", "x_l"))
    z, x2, xh2 = sp.symbols("z x_n2 xhat_n2", positive=True)
    d.section("variance_positivity")
    v = 1 / (alpha + beta * (z + x2))
    vh = 1 / (alpha + beta * (z + xh2))
    numer = alpha + beta * (z + xh2) + nu * beta * (x2 - xh2)
    d.identity("(σ²)*_ν = νσ̂² + (1−ν)σ² = [α + β(z + x̂ₙ²) + νβ(xₙ² − x̂ₙ²)] / "
               "[(α + β(z + xₙ²))(α + β(z + x̂ₙ²))]  (eq. 51 prints ν(xₙ² − x̂ₙ²) without β)",
               nu * vh + (1 - nu) * v, numer / ((alpha + beta * (z + x2)) * (alpha + beta * (z + xh2))))
    w, m = sp.Symbol("w", nonnegative=True), sp.Symbol("m", positive=True)
    t = sp.Symbol("t", nonnegative=True)
    # worst case z = (n − 1)x_l² + w, x̂² − x² ≤ x_h² (x̂² = x² + t, t ≤ x_h²), and
    # n = 1 + 10 ν x_h²/x_l² + m: the numerator exceeds 9/10 of α + β(z + x̂²)
    slack = (numer - sp.Rational(9, 10) * (alpha + beta * (z + xh2))).subs(xh2, x2 + t)
    slack = slack.subs(z, (n - 1) * x_l**2 + w).subs(n, 1 + 10 * nu * x_h**2 / x_l**2 + m)
    worst = d.sign("with n = 1 + 10ν x_h²/x_l² + m (m > 0), z ≥ (n−1)x_l² and x̂² − x² = "
                   "x_h² (the largest gap, t = x_h²): numerator − (9/10)(α + β(z + x̂²)) ≥ 0",
                   slack.subs(t, x_h**2), ">=")
    mono = d.sign("… and that slack decreases in t = x̂² − x² (−d/dt = νβ − β/10 ≥ 0 for "
                  "ν ≥ 1), so it is ≥ 0 for every 0 ≤ x̂² − x² ≤ x_h² (x̂² ≤ x² is immediate)",
                  -sp.diff(slack, t), ">=", substitute={nu: 1 + sp.Symbol("u", nonnegative=True)})
    d.facts["margin"] = d.deduce("the 9/10 margin of Claims D.24 and D.28 holds under "
                                 "n > 1 + 10ν x_h²/x_l²", [worst, mono], "monotonicity in t")
    d.entry("nu_max_corrected", "nu_max", (n - 1) * x_l**2 / (10 * x_h**2),
            "ν < (n − 1)x_l²/(10 x_h²): Lemma 4.2's first condition with the β of eq. (51) "
            "restored (n > 1 + 10ν x_h²/x_l²)", sections=["variance_positivity"])


# -- Lemma 4.2 ------------------------------------------------------------------------------------

def lemma_4_2_epsilon(s):
    """ε₁(ν) of Lemma 4.2 (as printed)."""
    alpha, beta, n, c, x_h, x_l, g1, nu = (s[k] for k in ("alpha", "beta", "n", "c", "x_h",
                                                           "x_l", "gamma1", "nu"))
    nine = sp.Rational(9, 10)
    A = x_h**2 * alpha + x_h**4 * beta
    return (x_h**2 / (2 * (n - 1) * x_l**2)
            + (nu - 1) / 2 * nu * x_h**2 / ((n - 1) * x_l**2 - nu * x_h**2)
            + 2 * nu * beta * x_h**4 / (nine * n**(1 - 2 * g1) * x_l**2)
            + 2 * nu * beta * (x_h**2 * beta) * A / (nine * (x_l**2 * beta)**2)
            * (c + n**g1) / n**(2 - g1)
            + nu / 2 * A**2 / (nine * x_l**6 * beta) * (c + n**g1)**2 / n**3)


def _lemma_4_2(d, s):
    n, x_h, x_l, beta, nu = s["n"], s["x_h"], s["x_l"], s["beta"], s["nu"]
    d.section("lemma_4_2")
    eps1 = lemma_4_2_epsilon(s)
    d.given("Lemma 4.2: for n > max{1 + 10(x_h²/x_l²)(ν/β), 1 + ν x_h²/x_l²}, one posterior "
            "sample is (ν, ε₁)-RDP on 𝒟(n, γ₁, x_h, x_l, c), ε₁ = x_h²/(2(n−1)x_l²) + "
            "½(ν−1)νx_h²/((n−1)x_l² − νx_h²) + 2νβx_h⁴/(0.9 n^{1−2γ₁} x_l²) + "
            "2νβ(x_h²β)(x_h²α + x_h⁴β)/(0.9(x_l²β)²)·(c + n^γ₁)/n^{2−γ₁} + "
            "(ν/2)(x_h²α + x_h⁴β)²/(0.9 x_l⁶β)·(c + n^γ₁)²/n³",
            "paper, Lemma 4.2; proof in App. A.1 and Claims D.24-D.28 (inequality chains over "
            "the domain, not re-checked here)")
    d.deduce("used here for 2 ≤ ν < min{(n−1)x_l²/(10x_h²), (n−1)x_l²/(10x_h²)·β, "
             "(n−1)x_l²/x_h²}: ν ≥ 2 keeps the printed second term an upper bound (eq. 14's "
             "coefficient), and n > 1 + 10νx_h²/x_l² restores the 9/10 margin",
             [d.facts["nu_ge_2"], d.facts["margin"]],
             "the lemma's conditions intersected with the two corrections")
    kw = dict(sections=["posterior", "gaussian_renyi", "variance_positivity", "lemma_4_2"])
    d.entry("lemma_4_2_epsilon", "epsilon_1", eps1,
            "Rényi bound ε₁(ν) of one posterior sample (Lemma 4.2)",
            relations=[sp.Ge(nu, 2), sp.Lt(nu, (n - 1) * x_l**2 / (10 * x_h**2)),
                       sp.Lt(nu, (n - 1) * x_l**2 * beta / (10 * x_h**2)),
                       sp.Lt(nu, (n - 1) * x_l**2 / x_h**2)], **kw)
    d.entry("nu_max_printed", "nu_max", sp.Min((n - 1) * x_l**2 * beta / (10 * x_h**2),
                                               (n - 1) * x_l**2 / x_h**2),
            "largest ν allowed by Lemma 4.2's conditions as printed (exclusive)", **kw)


# -- Lemma 4.3 ------------------------------------------------------------------------------------

def _lemma_4_3(d, s):
    nu, delta = s["nu"], s["delta"]
    e1 = sp.Symbol("epsilon_1", nonnegative=True)
    d.section("lemma_4_3")
    d.given("Mironov 2017, Prop. 3 (the paper's Lemma 3.1): (ν, ε₁)-RDP ⇒ "
            "(ε₁ + ln(1/δ)/(ν − 1), δ)-DP for every 0 < δ < 1", "Mironov, CSF 2017, Prop. 3")
    conv = e1 + sp.log(1 / delta) / (nu - 1)
    d.sign("the conversion term ln(1/δ)/(ν − 1) decreases in ν (derivative ≤ 0 for δ < 1)",
           -sp.diff(conv, nu), ">=", substitute={delta: sp.exp(-sp.Symbol("q", positive=True)),
                                                 nu: 1 + sp.Symbol("u", positive=True)},
           detail="δ = e^{−q}, q > 0; ν = 1 + u, u > 0")
    d.entry("lemma_4_3_epsilon", "epsilon", conv,
            "Lemma 4.3: one posterior sample is (ε₁(ν) + ln(1/δ)/(ν − 1), δ)-DP",
            sections=["lemma_4_3"])


# -- the SGLD step ---------------------------------------------------------------------------------

def _sgld_step(d, s):
    alpha, beta, n, eta, x_h = s["alpha"], s["beta"], s["n"], s["eta"], s["x_h"]
    theta = sp.Symbol("theta", real=True)
    b = sp.Symbol("b", positive=True)
    Bxx, Bxy = sp.Symbol("B_xx", positive=True), sp.Symbol("B_xy", real=True)
    xi = sp.Symbol("xi", real=True)
    d.section("sgld_step")
    grad_prior = sp.diff(-alpha * theta**2 / 2, theta)
    x, y = sp.symbols("x y", real=True)
    grad_lik = sp.diff(-beta * (y - theta * x)**2 / 2, theta)
    d.identity("∇θ ln p(y|x, θ) = βx(y − θx) for the likelihood of eq. (4)", grad_lik,
               beta * x * (y - theta * x))
    slope = 1 - eta / 2 * (alpha + n / b * beta * Bxx)
    push = eta / 2 * n / b * beta * Bxy
    # batch sums written with B_xx = Σ_B x², B_xy = Σ_B xy
    step = theta + eta / 2 * (grad_prior + n / b * beta * (Bxy - theta * Bxx)) + sp.sqrt(eta) * xi
    d.identity("eq. (3) on a batch B: θ' = θ + (η/2)[−αθ + (n/b)β(Σ_B xy − θΣ_B x²)] + √η ξ "
               "= aθ + ρ + √η ξ, a = 1 − (η/2)(α + (n/b)βΣ_B x²), ρ = (η/2)(n/b)βΣ_B xy",
               step, slope * theta + push + sp.sqrt(eta) * xi)
    S = alpha + n * x_h**2 * beta
    eta_paper = 2 / S**2
    lam = (1 - eta / 2 * S).subs(eta, eta_paper)
    d.identity("with the paper's η = 2/(α + n x_h²β)² (Section 4.2) the D₁ slope is "
               "λ = 1 − 1/(α + n x_h²β)", lam, 1 - 1 / S)
    a = sp.Symbol("a", positive=True)
    m = sp.Symbol("m", positive=True, integer=True)
    i = sp.Symbol("i", nonnegative=True, integer=True)
    d.summation("m repeated steps: Σ_{i<m} aⁱ = (1 − aᵐ)/(1 − a) (a ≠ 1)", a**i, (i, 0, m - 1),
                (1 - a**m) / (1 - a), assume=sp.Q.positive(1 - a))
    A1, B1, A2, B2 = sp.symbols("A_1 B_1 A_2 B_2", real=True)
    V1, V2 = sp.symbols("V_1 V_2", positive=True)
    z1, z2 = sp.symbols("z_1 z_2", real=True)
    d.identity("composition of Gaussian steps: A₂(A₁θ + B₁ + √V₁z₁) + B₂ + √V₂z₂ = "
               "A₂A₁θ + (A₂B₁ + B₂) + (A₂√V₁z₁ + √V₂z₂)",
               A2 * (A1 * theta + B1 + sp.sqrt(V1) * z1) + B2 + sp.sqrt(V2) * z2,
               A2 * A1 * theta + (A2 * B1 + B2) + (A2 * sp.sqrt(V1) * z1 + sp.sqrt(V2) * z2))
    d.identity("… whose noise part has variance (A₂√V₁)² + (√V₂)² = A₂²V₁ + V₂ for "
               "independent standard normals z₁, z₂", (A2 * sp.sqrt(V1))**2 + sp.sqrt(V2)**2,
               A2**2 * V1 + V2)
    d.entry("sgld_step_size_paper", "eta", eta_paper,
            "SGLD step size of Section 4.2: η = 2/(α + n x_h² β)²", sections=["sgld_step"])
    d.entry("sgld_step_size_pts", "eta", 1 / S**2,
            "SGLD step size of Claim 4.2 (Propose-Test-Sample variant): η = 1/(α + n₁x_h²β)²",
            sections=["sgld_step"])
    d.entry("sgld_slope", "a", slope, "slope of one SGLD step on a batch (eq. 3)",
            sections=["sgld_step"], notes=["B_xx = Σ_B x², b the batch size"])
    d.entry("sgld_push", "rho", push, "offset of one SGLD step on a batch (eq. 3)",
            sections=["sgld_step"], notes=["B_xy = Σ_B xy, b the batch size"])


# -- Lemma A.4 and A.6 ------------------------------------------------------------------------------

def _interim(d, s):
    alpha, beta, n, c, x_h, eta, delta = (s[k] for k in ("alpha", "beta", "n", "c", "x_h",
                                                          "eta", "delta"))
    d.section("interim_step")
    lam = 1 - eta / 2 * (alpha + n * x_h**2 * beta)
    kdot = sp.log(1 / (1 + (1 - lam**2) / (alpha * eta))) / (2 * n * sp.log(lam)) - 1
    d.given("Lemma A.4: k̂ = (1/(2n))·log_λ(1/(1 + (1 − λ²)/(αη))) − 1; the paper audits "
            "SGLD after T = (⌈k̂⌉ + 1)n steps (Lemmas A.5, A.6)", "paper, Lemma A.4")
    d.identity("log_λ(u) = ln u / ln λ", sp.log(sp.Symbol("u", positive=True)) / sp.log(lam),
               sp.log(sp.Symbol("u", positive=True)) / sp.log(lam))
    d.entry("khat", "k_hat", kdot, "k̂ of Lemma A.4 (epochs; the audited step is (⌈k̂⌉+1)n)",
            sections=["sgld_step", "interim_step"])
    xb = x_h**2 * beta
    v1 = sp.Max(6, 1 + 2 * sp.exp(1 / xb))
    eps_prime = (sp.exp(-2 / xb) * alpha / (2 * v1) * (sp.Rational(3, 32) / xb)**2 * (c / n)**2
                 + sp.log(sp.Rational(1, 2) - delta))
    d.given("Lemma A.6 / eq. (16): at T = (⌈k̂⌉ + 1)n SGLD is not (ε, δ)-DP for "
            "ε < ε′ = e^{−2/(x_h²β)} α/(2v₁) (3/(32x_h²β))² (c/n)² + ln(0.5 − δ), "
            "v₁ = max{6, 1 + 2e^{1/(x_h²β)}}, δ < 0.5", "paper, Lemma A.6 and eq. (16)")
    d.entry("lemma_a6_epsilon", "epsilon_prime", eps_prime,
            "the paper's lower bound ε′ on SGLD's ε at T = (⌈k̂⌉+1)n (Lemma A.6, eq. 16)",
            sections=["interim_step"])


# -- Algorithm 1: Propose-Test-Sample ---------------------------------------------------------------

def _propose_test_sample(d, s):
    alpha, beta, n, x_h, x_l, g1, nu, delta = (s[k] for k in ("alpha", "beta", "n", "x_h",
                                                               "x_l", "gamma1", "nu", "delta"))
    eps = d.symbol("epsilon", "privacy parameter ε of Algorithm 1", positive=True)
    mchk = d.symbol("m_check", "the noisy ratio estimate m̌ of step 13", positive=True)
    d.section("pts_claim")
    d.given("Claims C.6-C.9: steps 6-13 are (3ε, δ)-DP; Claims C.10-C.12 and Cor. C.3: steps "
            "14-19 are (2ε, δ)-DP given m̌ and n₂ (when |W| ≥ n_min the posterior sample is "
            "(ε, δ)-DP by Claim D.29)", "paper, Appendix C")
    e1, e2, d1, d2 = sp.Integer(3) * eps, 2 * eps, delta, delta
    d.identity("sequential composition adds the ε's: 3ε + 2ε = 5ε", e1 + e2, 5 * eps)
    d.identity("… and the δ's: δ + δ = 2δ", d1 + d2, 2 * delta)
    d.entry("pts_epsilon", "epsilon_pts", 5 * eps, "Claim 4.1: Algorithm 1 is (5ε, 2δ)-DP: ε",
            sections=["pts_claim"])
    d.entry("pts_delta", "delta_pts", 2 * delta, "Claim 4.1: Algorithm 1 is (5ε, 2δ)-DP: δ",
            sections=["pts_claim"])

    d.section("pts_n_min")
    nine = sp.Rational(9, 10)
    A = x_h**2 * alpha + x_h**4 * beta
    nu_eps = 1 + 2 * sp.log(1 / delta) / eps
    d.solve("eq. (53): ln(1/δ)/(ν − 1) = ε/2 gives ν = 1 + 2 ln(1/δ)/ε",
            sp.Eq(sp.log(1 / delta) / (nu - 1), eps / 2), nu, nu_eps)
    terms = {}
    terms["pts_n_min_1"] = d.solve(
        "eq. (54): x_h²/(2(n−1)x_l²) = ε/16 at n = 1 + 8x_h²/(εx_l²)",
        sp.Eq(x_h**2 / (2 * (n - 1) * x_l**2), eps / 16), n, 1 + 8 * x_h**2 / (eps * x_l**2))
    terms["pts_n_min_2"] = d.solve(
        "eq. (55): ½(ν−1)νx_h²/((n−1)x_l² − νx_h²) = ε/16 at n = 1 + ν(x_h²/x_l²)(1 + 8(ν−1)/ε)",
        sp.Eq((nu - 1) * nu * x_h**2 / (2 * ((n - 1) * x_l**2 - nu * x_h**2)), eps / 16), n,
        1 + nu * x_h**2 / x_l**2 * (1 + 8 * (nu - 1) / eps))
    terms["pts_n_min_3"] = d.solve(
        "eq. (56): 2νβx_h⁴/(0.9 n^{1−2γ₁} x_l²) = ε/8 at n = (16νβx_h⁴/(0.9εx_l²))^{1/(1−2γ₁)}",
        sp.Eq(2 * nu * beta * x_h**4 / (nine * n**(1 - 2 * g1) * x_l**2), eps / 8), n,
        (16 * nu * beta * x_h**4 / (nine * eps * x_l**2))**(1 / (1 - 2 * g1)))
    K4 = 2 * nu * beta * (x_h**2 * beta) * A / (nine * (x_l**2 * beta)**2)
    terms["pts_n_min_4"] = d.solve(
        "eq. (57) with c + n^γ₁ ≤ 2m̌ (case m̌ ≥ n^γ₁): K₄·2m̌/n^{2−γ₁} = ε/8",
        sp.Eq(K4 * 2 * mchk / n**(2 - g1), eps / 8), n,
        (16 * K4 * mchk / eps)**(1 / (2 - g1)))
    terms["pts_n_min_5"] = d.solve(
        "eq. (57) with c + n^γ₁ ≤ 2n^γ₁ (case n^γ₁ ≥ m̌): K₄·2n^γ₁/n^{2−γ₁} = ε/8",
        sp.Eq(K4 * 2 * n**g1 / n**(2 - g1), eps / 8), n, (16 * K4 / eps)**(1 / (2 - 2 * g1)))
    K5 = nu / 2 * A**2 / (nine * x_l**6 * beta)
    terms["pts_n_min_6"] = d.solve(
        "eq. (58) with (c + n^γ₁)² ≤ 4m̌²: K₅·4m̌²/n³ = ε/8 at n = (32K₅/ε)^{1/3} m̌^{2/3}",
        sp.Eq(K5 * 4 * mchk**2 / n**3, eps / 8), n, (32 * K5 / eps)**sp.Rational(1, 3)
        * mchk**sp.Rational(2, 3))
    terms["pts_n_min_7"] = d.solve(
        "eq. (58) with (c + n^γ₁)² ≤ 4n^{2γ₁}: K₅·4n^{2γ₁}/n³ = ε/8",
        sp.Eq(K5 * 4 * n**(2 * g1) / n**3, eps / 8), n, (32 * K5 / eps)**(1 / (3 - 2 * g1)))
    d.decompose("the shares sum to ε: ε/2 + 2·ε/16 + 3·ε/8 − ε = 0 ≥ 0 (Claim D.29)",
                eps / 2 + 2 * eps / 16 + 3 * eps / 8 - eps, [sp.Integer(0)])
    printed = (8 * nu / eps * A / (nine * x_l**6 * beta) * mchk)**sp.Rational(2, 3)
    derived = (32 * K5 / eps)**sp.Rational(1, 3) * mchk**sp.Rational(2, 3)
    point = {nu: sp.Integer(2), eps: sp.Integer(1), alpha: sp.Integer(1), beta: sp.Integer(1),
             x_h: sp.Integer(1), x_l: sp.Integer(1), mchk: sp.Integer(1)}
    d.counterexample("eq. (26)'s printed term (8ν/ε·(x_h²α + x_h⁴β)/(0.9x_l⁶β)·m̌)^{2/3} equals "
                     "the derived (32K₅/ε)^{1/3} m̌^{2/3}: false — their cubes differ",
                     printed**3 - derived**3, point, "==")
    for key, expr in terms.items():
        d.entry(key, "n_min_term", expr, f"a term of n_min (eq. 26, re-derived): {key[-1]}",
                sections=["pts_n_min"], notes=["with ν = 1 + 2 ln(1/δ)/ε (eq. 53)"])
    d.entry("pts_nu", "nu", nu_eps, "the order ν = 1 + 2 ln(1/δ)/ε of eq. (26)/(53)",
            sections=["pts_n_min"])
