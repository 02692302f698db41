"""Derivation: the Gaussian mixing mechanism (GaussMix) and the algorithms built on it.

Lev, Srinivasan, Shenfeld, Ligett, Sekhari & Wilson, "The Gaussian Mixing Mechanism: Rényi
Differential Privacy via Gaussian Sketches" (restated in ``shared/papers/gaussian_mixing.md``).

GaussMix releases M(X) = S X + σξ (S ~ N(0, I_{k×n}), ξ ~ N(0, I_{k×d})); its k rows are i.i.d.
N(0, XᵀX + σ²I).  Neighbours zero out one row x (‖x‖ ≤ C).  The derivation

* reduces Gil et al.'s Rényi divergence of zero-mean Gaussians (the paper's Lemma 2) for the
  pair "with x" / "without x" to D_α = k/(2(α−1))·[α ln(1−t) − ln(1−αt)], t = xᵀ(XᵀX+σ²I)⁻¹x
  (App. B, (28)-(30)), shows it increases in t, bounds t ≤ C²/(λ̄ + σ²) = 1/γ (Rayleigh), proves
  that the other direction is never larger (in the paper's App. B the two directions are
  compared at the same t; here the reverse direction is written in the same t and bounded),
  and so obtains Lemma 1's curve φ(α; k, γ) on α ∈ (1, γ), attained by the paper's tightness
  pair XᵀX = C²I;
* proves Corollary 1 ((k/(2γ²), 2γ/5)-tCDP) by a power-series bound (not the paper's route:
  φ/(αk/(2γ²)) ≤ S(α/γ) with S(v) = Σ (m+1)/(m+2) vᵐ increasing and S(2/5) < 1, interval
  arithmetic);
* records Propositions 1-2 (conversions), Sheffet's 2019 bound and its inverse δ(ε) (the
  bound as quoted, without a condition on γ, is false near γ = 1: interval step), and
  shows that the paper's closed form ε = k/(2γ²) + √(2k ln(1/δ))/γ (§4) is NOT implied by
  Corollary 1 + Proposition 2 (it is Proposition 2's first branch used outside its condition)
  and is false for the tightness pair at k = 1, γ = 3, δ = 10⁻³ (interval arithmetic on the
  exact δ(ε));
* records Theorem 1 (ModifiedGaussMix): the λ_min release, τ, the objective of ε̃, and shows
  that its key condition (48) holds for the normalised noise level η̃² = γ − λ̃/C² but fails
  for the printed η̃² = γ − λ̃ when C ≠ 1 (a counterexample point);
* the calibrations of LinearMixing (η = γ/√k, row bound √(C_X²+C_Y²)), Sheffet's algorithm
  (γ, Laplace test, ε split), AdaSSP (noise scales) and objective perturbation (σ, Δ, with the
  logistic loss' curvature and gradient bounds).

``dpaudit prove gaussian_mixing`` writes ``proofs/certificates/gaussian_mixing.json``, the only
source of the formulas in the package ``dpaudit.mechanisms.gaussian_mixing`` (common,
GaussMix/ModifiedGaussMix, regression, baselines).  (One file for the family, so that the
certificate's recorded hash covers the whole argument; hence its length.)
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from dpaudit.proofs.framework import Derivation, laplace_log_ratio_lemma

FAMILY = "gaussian_mixing"
PAPER = ("Lev et al., The Gaussian Mixing Mechanism: Rényi DP via Gaussian Sketches "
         "(shared/seeds/002_09dc0ce5001fdf80.txt)")


def derive() -> Derivation:
    d = Derivation(FAMILY, Path(__file__), "Gaussian mixing: GaussMix (Lemma 1, Corollary 1), "
                   "ModifiedGaussMix (Theorem 1), LinearMixing (Theorem 2) and the baselines",
                   references=(PAPER,
                               "Gil, Alajaji & Linder 2013 (Rényi divergence of Gaussians)",
                               "Canonne, Kamath & Steinke 2020, Prop. 12",
                               "Bun, Dwork, Rothblum & Steinke 2018, Lemma 6 (tCDP)",
                               "Sheffet 2017 (Alg. 1) and 2019 (Thm 2)",
                               "Wang 2018 (AdaSSP)",
                               "Kifer, Smith & Thakurta 2012 (objective perturbation)"))
    s = {
        "alpha": d.symbol("alpha", "Rényi order α > 1", positive=True),
        "k": d.symbol("k", "sketch size k (rows of the output)", positive=True),
        "gamma": d.symbol("gamma", "γ = C⁻²(σ² + λ̄) of Lemma 1", positive=True),
        "sigma": d.symbol("sigma", "noise level σ of GaussMix", positive=True),
        "C": d.symbol("C", "row bound C (‖xᵢ‖ ≤ C)", positive=True),
        "lam": d.symbol("lambda_bar", "scale bound λ̄ ≤ λ_min(XᵀX)", nonnegative=True),
        "delta": d.symbol("delta", "δ of an (ε, δ) statement, 0 < δ < 1", positive=True),
        "eps": d.symbol("epsilon", "target ε", positive=True),
        "eta": d.symbol("eta", "η of Algorithm 1 (λ_min release noise η·C²)", positive=True),
        "t": d.symbol("t", "t = xᵀ(XᵀX + σ²I)⁻¹x for the removed row x", positive=True),
    }
    _setup(d, s)
    _divergence(d, s)
    _lemma1(d, s)
    _corollary1(d, s)
    _conversions(d, s)
    _closed_form(d, s)
    _sheffet2019(d, s)
    _theorem1(d, s)
    _linear_mixing(d, s)
    _sheffet2017(d, s)
    _adassp(d, s)
    _objective_perturbation(d, s)
    return d


def phi(alpha, k, gamma):
    """Lemma 1, eq. (4): φ(α; k, γ)."""
    return (k * alpha / (2 * (alpha - 1)) * sp.log(1 - 1 / gamma)
            - k / (2 * (alpha - 1)) * sp.log(1 - alpha / gamma))


def cks(curve, alpha, delta):
    """Proposition 1 (Canonne, Kamath & Steinke 2020, Prop. 12)."""
    return curve + sp.log(1 - 1 / alpha) - sp.log(alpha * delta) / (alpha - 1)


# -- GaussMix's parameters -----------------------------------------------------------------

def _setup(d, s):
    gamma, sigma, C, lam = s["gamma"], s["sigma"], s["C"], s["lam"]
    d.section("setup")
    d.given("GaussMix: M(X) = S X + σξ, S ~ N(0, I_{k×n}), ξ ~ N(0, I_{k×d}); the rows of M(X) "
            "are i.i.d. N(0, XᵀX + σ²I) (sᵢᵀX ~ N(0, XᵀX) for sᵢ ~ N(0, I_n), plus independent "
            "σ·N(0, I_d)); neighbours zero out one row x with ‖x‖ ≤ C", PAPER + ", §4, App. B")
    d.entry("gaussmix_gamma", "gamma", (sigma**2 + lam) / C**2,
            "γ = C⁻²(σ² + λ̄) (Lemma 1)", sections=["setup"])
    d.solve("the noise level that reaches a target γ: σ = √(γC² − λ̄)",
            sp.Eq((sigma**2 + lam) / C**2, gamma), sigma, sp.sqrt(gamma * C**2 - lam))
    d.entry("gaussmix_sigma", "sigma", sp.sqrt(gamma * C**2 - lam),
            "σ = √(γC² − λ̄): the GaussMix noise level for a target γ (needs γC² > λ̄)",
            sections=["setup"], relations=[sp.Gt(gamma * C**2, lam)])


# -- the exact divergence of a neighbouring pair --------------------------------------------

def _divergence(d, s):
    alpha, k, t = s["alpha"], s["k"], s["t"]
    sv = sp.Symbol("s", positive=True)        # s = xᵀB⁻¹x, B = the covariance without x
    beta = sp.Symbol("beta", positive=True)   # det B
    d.section("divergence")
    d.given("Lemma 2 (Gil, Alajaji & Linder 2013): for zero means, D_α(N(0,Σ₁)‖N(0,Σ₂)) = "
            "−(2(α−1))⁻¹ ln[det(Σ₁ + α(Σ₂ − Σ₁)) / (det Σ₁^{1−α} det Σ₂^α)], valid when "
            "Σ₁ + α(Σ₂ − Σ₁) ≻ 0", "Gil et al. 2013, Table 2; the paper's Lemma 2")
    d.given("matrix determinant lemma det(B + c·xxᵀ) = det(B)(1 + c·xᵀB⁻¹x), and "
            "det(I_k ⊗ A) = det(A)^k (Rényi divergences of k i.i.d. rows add up)",
            "standard linear algebra; the paper's (21) and App. B")
    D_row = -(sp.log(beta * (1 + (1 - alpha) * sv))
              - (1 - alpha) * sp.log(beta * (1 + sv)) - alpha * sp.log(beta)) / (2 * (alpha - 1))
    forward = (alpha * sp.log(1 - t) - sp.log(1 - alpha * t)) / (2 * (alpha - 1))
    used = [d.identity("with Σ₁ = B + xxᵀ (with x), Σ₂ = B (x zeroed): Σ₁ + α(Σ₂ − Σ₁) = "
                       "B + (1−α)xxᵀ, so one row gives D_α = −(2(α−1))⁻¹ ln[(1 + (1−α)s) / "
                       "(1+s)^{1−α}] with s = xᵀB⁻¹x (the det B factors cancel)",
                       D_row, -(sp.log(1 + (1 - alpha) * sv) - (1 - alpha) * sp.log(1 + sv))
                       / (2 * (alpha - 1))),
            d.identity("t := xᵀΣ₁⁻¹x = s/(1 + s) (Sherman–Morrison), i.e. s = t/(1 − t); then "
                       "1 + (1−α)s = (1 − αt)/(1 − t)",
                       (1 + (1 - alpha) * sv).subs(sv, t / (1 - t)), (1 - alpha * t) / (1 - t)),
            d.identity("… so one row gives D_α = (2(α−1))⁻¹[α ln(1 − t) − ln(1 − αt)] "
                       "(App. B, (28)-(30)); checked in q = 1 − t > 0, s = (1 − q)/q",
                       _in_q(D_row, sv), forward.subs(t, 1 - Q))]
    d.facts["forward"] = d.deduce(
        "D_α(M(X)‖M(X′)) = k/(2(α−1))·[α ln(1−t) − ln(1−αt)] for X′ = X with x zeroed, finite "
        "iff αt < 1 (Σ₁ + α(Σ₂ − Σ₁) = B + (1−α)xxᵀ ≻ 0 ⇔ 1 + (1−α)s > 0 ⇔ αt < 1)", used,
        "k i.i.d. rows: the divergence is k times that of one row")
    d.entry("gaussmix_divergence", "D_alpha", k * forward,
            "exact D_α of GaussMix's pair (with x ‖ x zeroed), t = xᵀ(XᵀX + σ²I)⁻¹x",
            sections=["divergence"], relations=[sp.Lt(alpha * t, 1)])
    # the other direction
    reverse_s = (alpha * sp.log(1 + sv) - sp.log(1 + alpha * sv)) / (2 * (alpha - 1))
    reverse_t = ((1 - alpha) * sp.log(1 - t) - sp.log(1 + (alpha - 1) * t)) / (2 * (alpha - 1))
    D_rev = -(sp.log(1 + alpha * sv) - alpha * sp.log(1 + sv)) / (2 * (alpha - 1))
    a, v = sp.Symbol("a", positive=True), sp.Symbol("v", positive=True)
    gap = (2 * alpha - 1) * sp.log(1 - t) - sp.log(1 - alpha * t) + sp.log(1 + (alpha - 1) * t)
    slope = sp.factor(sp.together(sp.diff(gap, t)))
    used = [d.identity("reverse direction (Σ₁ = B, Σ₂ = B + xxᵀ): Σ₁ + α(Σ₂ − Σ₁) = B + αxxᵀ ≻ 0 "
                       "for every α, and one row gives (2(α−1))⁻¹[α ln(1+s) − ln(1+αs)] (App. B, "
                       "(38)-(39), with s = xᵀB⁻¹x)", D_rev, reverse_s),
            d.identity("… which in t = s/(1+s) reads (2(α−1))⁻¹[(1−α) ln(1−t) − ln(1+(α−1)t)] "
                       "(checked in q = 1 − t)", _in_q(reverse_s, sv), reverse_t.subs(t, 1 - Q)),
            d.identity("forward − reverse = g(t)/(2(α−1)), g(t) = (2α−1) ln(1−t) − ln(1−αt) + "
                       "ln(1+(α−1)t), g(0) = 0", 2 * (alpha - 1) * (forward - reverse_t), gap),
            d.identity("g′(t) = α(α−1)(2α−1)t² / ((1−t)(1−αt)(1+(α−1)t))",
                       sp.diff(gap, t), alpha * (alpha - 1) * (2 * alpha - 1) * t**2
                       / ((1 - t) * (1 - alpha * t) * (1 + (alpha - 1) * t))),
            d.sign("g′(t) > 0 on 0 < t < 1/α (α = 1 + a, t = 1/(α + v), a, v > 0)", slope, ">",
                   substitute={alpha: 1 + a, t: 1 / (1 + a + v)})]
    d.facts["reverse"] = d.deduce(
        "for the same pair, D_α(M(X′)‖M(X)) ≤ D_α(M(X)‖M(X′)) whenever the latter is finite: the "
        "direction that removes x is the worst", used, "g(0) = 0 and g increasing on [0, 1/α)")


#: q = 1 − t ∈ (0, 1): the identities in t are checked in q, where every log argument is a
#: ratio of terms sympy can split (ln(1/q) = −ln q needs q > 0)
Q = sp.Symbol("q", positive=True)


def _in_q(expr, sv):
    """``expr`` with s = t/(1 − t) = (1 − q)/q and every log argument over one denominator
    (an exact rewrite, so that the identity checker can expand the logs)."""
    return expr.subs(sv, (1 - Q) / Q).replace(sp.log, lambda arg: sp.log(sp.together(arg)))


# -- Lemma 1 -----------------------------------------------------------------------------

def _lemma1(d, s):
    alpha, k, gamma, t = s["alpha"], s["k"], s["gamma"], s["t"]
    sigma, C, lam = s["sigma"], s["C"], s["lam"]
    a, v = sp.Symbol("a", positive=True), sp.Symbol("v", positive=True)
    d.section("lemma1")
    forward = k * (alpha * sp.log(1 - t) - sp.log(1 - alpha * t)) / (2 * (alpha - 1))
    used = [d.facts["forward"], d.facts["reverse"],
            d.identity("∂/∂t [α ln(1−t) − ln(1−αt)] = α(α−1)t/((1−t)(1−αt)) (App. B, (31))",
                       sp.diff(alpha * sp.log(1 - t) - sp.log(1 - alpha * t), t),
                       alpha * (alpha - 1) * t / ((1 - t) * (1 - alpha * t))),
            d.sign("… which is > 0 on 0 < t < 1/α (α = 1 + a, t = 1/(α + v))",
                   alpha * (alpha - 1) * t / ((1 - t) * (1 - alpha * t)), ">",
                   substitute={alpha: 1 + a, t: 1 / (1 + a + v)}),
            d.given("Rayleigh: xᵀA⁻¹x ≤ ‖x‖²/λ_min(A), with equality when x is an eigenvector "
                    "of λ_min(A); λ_min(XᵀX + σ²I) = λ_min(XᵀX) + σ² ≥ λ̄ + σ² (scale bound on the "
                    "dataset that contains x)", "Horn & Johnson, Thm 4.2.2; the paper's (32)-(35)"),
            d.identity("so t ≤ C²/(λ̄ + σ²) = 1/γ", C**2 / (lam + sigma**2),
                       1 / ((sigma**2 + lam) / C**2)),
            d.sign("αt ≤ α/γ < 1 for α < γ (the divergence is finite on Lemma 1's range)",
                   1 - alpha / (alpha + v), ">", detail="γ = α + v, v > 0")]
    curve = phi(alpha, k, gamma)
    used.append(d.identity("at t = 1/γ the divergence is φ(α; k, γ) of eq. (4)",
                           forward.subs(t, 1 / gamma), curve))
    d.facts["lemma1"] = d.deduce(
        "Lemma 1: for γ > 1, GaussMix is (α, φ(α; k, γ))-RDP for every α ∈ (1, γ), for every "
        "neighbouring pair whose dataset containing x satisfies ‖x‖ ≤ C and λ_min ≥ λ̄", used,
        "the divergence increases in t ≤ 1/γ; the reverse direction is never larger")
    tight = d.identity("tightness: XᵀX = C²I (so λ̄ = C²) and x any row: t = C²/(C² + σ²) = 1/γ, "
                       "so φ is the exact divergence of this pair",
                       C**2 / (C**2 + sigma**2), 1 / ((sigma**2 + C**2) / C**2))
    d.facts["tight"] = tight
    zero = d.identity("the divergence vanishes at t = 0", forward.subs(t, 0), 0)
    d.deduce("φ(α; k, γ) ≥ 0 on (1, γ), as the paper states: the divergence is 0 at t = 0 and "
             "increases in t", [zero, d.step("lemma1.4")], "monotonicity")
    d.entry("gaussmix_rdp", "epsilon_alpha", curve,
            "φ(α; k, γ) = kα/(2(α−1)) ln(1 − 1/γ) − k/(2(α−1)) ln(1 − α/γ): GaussMix's RDP curve "
            "on α ∈ (1, γ) (Lemma 1, eq. (4)); exact at the pair XᵀX = C²I",
            sections=["divergence", "lemma1"], relations=[sp.Gt(alpha, 1), sp.Lt(alpha, gamma)])


# -- Corollary 1 (tCDP) ------------------------------------------------------------------------

def _corollary1(d, s):
    alpha, k, gamma = s["alpha"], s["k"], s["gamma"]
    u, v = sp.Symbol("u", positive=True), sp.Symbol("v", positive=True)
    x, p = sp.Symbol("x", positive=True), sp.Symbol("p", nonnegative=True)
    w = sp.Symbol("w", positive=True)
    j = sp.Symbol("j", integer=True, positive=True)
    i = sp.Symbol("i", integer=True, nonnegative=True)
    m = sp.Symbol("m", integer=True, nonnegative=True)
    d.section("corollary1")
    S = 1 / (1 - v) + (v + sp.log(1 - v)) / v**2
    used = [
        d.summation("ln series: Σ_{j≥1} u^j/j = −ln(1−u) for 0 < u < 1", u**j / j, (j, 1, sp.oo),
                    -sp.log(1 - u), assume=sp.Q.lt(u, 1)),
        d.summation("α ln(1−u) − ln(1−αu) = Σ_{j≥1} ((αu)^j − αu^j)/j for u, αu < 1 (w = αu); "
                    "its j = 1 term (αu − αu) vanishes, so the sum starts at j = 2 with "
                    "coefficients (α^j − α)u^j/j", (w**j - alpha * u**j) / j, (j, 1, sp.oo),
                    alpha * sp.log(1 - u) - sp.log(1 - w), assume=sp.Q.lt(u, 1) & sp.Q.lt(w, 1)),
        d.summation("(α^j − α)/(α − 1) = α Σ_{i=0}^{j−2} α^i", alpha**i, (i, 0, j - 2),
                    (alpha**(j - 1) - 1) / (alpha - 1), assume=sp.Q.gt(alpha, 1)),
        d.sign("x ↦ x^p is nondecreasing for p ≥ 0 (derivative p·x^{p−1} ≥ 0), so with "
               "u ≤ v = αu each term α^i u^{j−2} = v^i u^{j−2−i} ≤ v^{j−2}", p * x**(p - 1), ">="),
        d.summation("Σ_{j≥2} ((j−1)/j) v^{j−2} = Σ_{m≥0} (m+1)/(m+2) v^m = S(v) = 1/(1−v) + "
                    "(v + ln(1−v))/v² for 0 < v < 1", (m + 1) / (m + 2) * v**m, (m, 0, sp.oo), S,
                    assume=sp.Q.lt(v, 1)),
        d.interval("S(2/5) < 1", 1 - S.subs(v, sp.Rational(2, 5)), {}, ">"),
    ]
    d.facts["corollary1"] = d.deduce(
        "Corollary 1: for γ > 5/2 and 1 < α ≤ 2γ/5, φ(α; k, γ) ≤ kα/(2γ²), i.e. GaussMix is "
        "(k/(2γ²), 2γ/5)-tCDP", used,
        "with u = 1/γ and v = α/γ ≤ 2/5: φ/(kαu²/2) = Σ_{j≥2} (1/j) Σ_i α^i u^{j−2} ≤ S(v) ≤ "
        "S(2/5) < 1 (S has positive coefficients, so it increases in v); 2γ/5 > 1 ⇔ γ > 5/2")
    d.given("the paper's own route (App. C: G(α) ≥ 0 via the roots α_min, α_max of H) — its "
            "stated facts were checked numerically here and not relied upon", PAPER + ", App. C")
    sec = ["divergence", "lemma1", "corollary1"]
    d.entry("gaussmix_tcdp_rho", "rho", k / (2 * gamma**2),
            "ρ = k/(2γ²) of Corollary 1's (ρ, ω)-tCDP", sections=sec,
            relations=[sp.Gt(gamma, sp.Rational(5, 2))])
    d.entry("gaussmix_tcdp_omega", "omega", 2 * gamma / 5,
            "ω = 2γ/5 of Corollary 1's (ρ, ω)-tCDP", sections=sec,
            relations=[sp.Gt(gamma, sp.Rational(5, 2))])


# -- conversions -------------------------------------------------------------------------------

def _conversions(d, s):
    alpha, delta = s["alpha"], s["delta"]
    r = sp.Symbol("epsilon_alpha", nonnegative=True)
    d.section("conversions")
    d.given("Proposition 1 (Canonne, Kamath & Steinke 2020, Prop. 12): (α, ε(α))-RDP ⇒ "
            "(ε(α) + ln(1 − 1/α) − ln(αδ)/(α − 1), δ)-DP", "CKS 2020; the paper's Prop. 1")
    d.identity("Prop. 1 written as ε(α) + [ln(1/δ) + (α−1) ln(1 − 1/α) − ln α]/(α − 1) (the "
               "form inside Theorem 1's ε̃)", cks(r, alpha, delta),
               r + (sp.log(1 / delta) + (alpha - 1) * sp.log(1 - 1 / alpha) - sp.log(alpha))
               / (alpha - 1))
    d.entry("cks_epsilon", "epsilon", cks(r, alpha, delta),
            "Proposition 1: ε_DP = ε(α) + ln(1 − 1/α) − ln(αδ)/(α − 1)", sections=["conversions"])
    d.given("Proposition 2 (Bun et al. 2018, Lemma 6): (ρ, ω)-tCDP ⇒ (ρ + 2√(ρ ln(1/δ)), δ)-DP "
            "if ln(1/δ) ≤ (ω−1)²ρ, else (ρω + ln(1/δ)/(ω−1), δ)-DP",
            "Bun, Dwork, Rothblum & Steinke 2018; the paper's Prop. 2")


# -- the §4 closed form ----------------------------------------------------------------------------

def _closed_form(d, s):
    k, gamma, delta = s["k"], s["gamma"], s["delta"]
    rho, omega = k / (2 * gamma**2), 2 * gamma / 5
    d.section("closed_form")
    closed = k / (2 * gamma**2) + sp.sqrt(2 * k * sp.log(1 / delta)) / gamma
    d.identity("the paper's ε ≤ k/(2γ²) + √(2k ln(1/δ))/γ is Prop. 2's first branch "
               "ρ + 2√(ρ ln(1/δ)) at ρ = k/(2γ²)", rho + 2 * sp.sqrt(rho * sp.log(1 / delta)),
               closed)
    d.counterexample("… but that branch needs ln(1/δ) ≤ (ω − 1)²ρ, which fails e.g. at k = 1, "
                     "γ = 3, δ = e⁻⁷ (ln(1/δ) = 7 > (ω−1)²ρ = 1/450): the closed form does not "
                     "follow from Corollary 1", (omega - 1)**2 * rho - sp.log(1 / delta),
                     {k: 1, gamma: 3, delta: sp.exp(-7)}, ">=")
    # exact δ(ε) of the tightness pair at k = 1, γ = 3: t = 1/3, s = 1/2; whitened the pair is
    # N(0, 3/2) vs N(0, 1), L(x) = −½ln(3/2) + x²/6, {L > ε} = {x² > T}, T = 6(ε + ½ ln(3/2))
    e0 = closed.subs({k: 1, gamma: 3, delta: sp.Rational(1, 1000)})
    T = 6 * (e0 + sp.log(sp.Rational(3, 2)) / 2)
    hockey = sp.erfc(sp.sqrt(T / 3)) - sp.exp(e0) * sp.erfc(sp.sqrt(T / 2))
    d.identity("at k = 1, γ = 3 the tightness pair is N(0, 3/2) vs N(0, 1) after whitening "
               "(t = 1/3 ⇒ 1 + s = 1/(1 − t) = 3/2)", 1 / (1 - sp.Rational(1, 3)),
               sp.Rational(3, 2))
    d.interval("for that pair, P₀(x² > T) − e^ε P₁(x² > T) − δ > 0 at δ = 10⁻³ and ε = the closed "
               "form's value 1/18 + √(2 ln 1000)/3 ≈ 1.295, with T = 6(ε + ½ ln(3/2)) and "
               "P(x² > T) = erfc(√(T/(2v))) under N(0, v): so GaussMix is NOT (ε, δ)-DP there",
               hockey - sp.Rational(1, 1000), {}, ">")
    eps = s["eps"]
    inverse = sp.exp(-(2 * eps * gamma**2 - k)**2 / (8 * gamma**2 * k))
    d.solve("inverted (for ε ≥ k/(2γ²), where the closed form is increasing in ln(1/δ)): "
            "δ(ε) = exp(−(2εγ² − k)²/(8γ²k))", sp.Eq(closed, eps), delta, inverse)
    d.entry("gaussmix_dp_closed_form_delta", "delta_epsilon", inverse,
            "the §4 closed form inverted: δ(ε) = exp(−(2εγ² − k)²/(8γ²k)) for ε ≥ k/(2γ²) (1 "
            "below), AS PRINTED — shown false (section closed_form)", sections=["closed_form"],
            relations=[sp.Ge(eps, k / (2 * gamma**2))])
    d.entry("gaussmix_dp_closed_form", "epsilon", closed,
            "the paper's §4 closed form ε = k/(2γ²) + √(2k ln(1/δ))/γ, AS PRINTED — shown false "
            "(counterexample and interval steps of section closed_form); kept so that audits can "
            "test it", sections=["closed_form"])


# -- Sheffet 2019 ----------------------------------------------------------------------------------

def _sheffet2019(d, s):
    k, gamma, delta, eps = s["k"], s["gamma"], s["delta"], s["eps"]
    d.section("sheffet2019")
    bound = 2 * sp.sqrt(2 * k * sp.log(4 / delta)) / gamma + 2 * sp.log(4 / delta) / gamma
    d.given("Sheffet 2019, Thm 2, as the paper quotes it: GaussMix is (ε, δ)-DP with "
            "ε = 2√(2k ln(4/δ))/γ + 2 ln(4/δ)/γ", "Sheffet, ALT 2019, Thm 2; the paper's §4")
    inverse = 4 * sp.exp(-eps * gamma / 2 + sp.sqrt(k) * sp.sqrt(eps * gamma + k) - k)
    d.solve("its inverse: δ(ε) = 4 exp(−εγ/2 + √k √(εγ + k) − k)", sp.Eq(bound, eps), delta,
            inverse)
    # exact δ(ε) of the tightness pair at k = 1, γ = 11/10: t = 10/11, 1 + s = 11, so the pair
    # is N(0, 11) vs N(0, 1); L = −½ ln 11 + x²·(10/22), {L > ε} = {x² > T}, T = 2.2(ε + ½ ln 11)
    e0 = bound.subs({k: 1, gamma: sp.Rational(11, 10), delta: sp.Rational(1, 20)})
    T = sp.Rational(11, 5) * (e0 + sp.log(11) / 2)
    hockey = sp.erfc(sp.sqrt(T / 22)) - sp.exp(e0) * sp.erfc(sp.sqrt(T / 2))
    d.interval("the bound as quoted (no condition on γ) is false for γ near 1: at k = 1, "
               "γ = 11/10, δ = 1/20 (ε ≈ 13.35) the tightness pair N(0, 11) vs N(0, 1) has "
               "P₀(x² > T) − e^ε P₁(x² > T) > δ, T = 2.2(ε + ½ ln 11)", hockey - sp.Rational(1, 20),
               {}, ">")
    d.entry("sheffet2019_epsilon", "epsilon", bound,
            "Sheffet 2019 (Thm 2) as the paper quotes it: ε(δ) = 2√(2k ln(4/δ))/γ + 2 ln(4/δ)/γ "
            "— false for γ near 1 (interval step of section sheffet2019)",
            sections=["sheffet2019"])
    d.entry("sheffet2019_delta", "delta_epsilon", inverse,
            "Sheffet 2019 inverted: δ(ε) = 4 exp(−εγ/2 + √k√(εγ + k) − k) (capped at 1)",
            sections=["sheffet2019"])


# -- Theorem 1 (ModifiedGaussMix) -------------------------------------------------------------------

def _theorem1(d, s):
    alpha, k, gamma, delta, eta, C = (s["alpha"], s["k"], s["gamma"], s["delta"], s["eta"],
                                      s["C"])
    lam_min = sp.Symbol("lambda_min", nonnegative=True)
    w = sp.Symbol("w", nonnegative=True)      # w = τ − z, z the λ_min noise draw
    d.section("theorem1")
    tau = sp.sqrt(2 * sp.log(3 / delta))
    d.given("λ_min(XᵀX) has sensitivity C² under zero-out neighbours (Weyl: XᵀX and X′ᵀX′ differ "
            "by xxᵀ ⪰ 0 with ‖xxᵀ‖ = ‖x‖² ≤ C²)", "Sheffet 2017; Wang 2018; the paper's App. D")
    d.given("Gaussian mechanism, classical calibration: noise σ = Δ√(2 ln(1.25/δ′))/ε₁ gives "
            "(ε₁, δ′)-DP (Dwork & Roth 2014, Thm A.1, proved there for ε₁ < 1; the paper uses it "
            "for every η)", "Dwork & Roth 2014, App. A; the paper's App. D")
    eps1 = sp.sqrt(2 * sp.log(sp.Rational(15, 4) / delta)) / eta
    used = [d.identity("noise ηC² on a C²-sensitive value with δ′ = δ/3: ε₁ = C²√(2 ln(1.25·3/δ))/"
                       "(ηC²) = √(2 ln(3.75/δ))/η",
                       C**2 * sp.sqrt(2 * sp.log(sp.Rational(5, 4) / (delta / 3))) / (eta * C**2),
                       eps1),
            d.identity("τ = √(2 ln(3/δ)) gives e^{−τ²/2} = δ/3 (the bad event P(z ≥ τ) ≤ "
                       "e^{−τ²/2}, App. D (49))", sp.exp(-tau**2 / 2), delta / 3)]
    objective = phi(alpha, k, gamma) + (sp.log(3 / delta) + (alpha - 1) * sp.log(1 - 1 / alpha)
                                        - sp.log(alpha)) / (alpha - 1)
    used.append(d.identity("the min term of (5) is Prop. 1 applied to φ at δ/3",
                           cks(phi(alpha, k, gamma), alpha, delta / 3), objective))
    # condition (48): GaussMix with noise level η̃C is covered by Lemma 1 at γ iff
    # (λ_min + η̃²C²)/C² ≥ γ.  λ̃ = λ_min − ηC²(τ − z) when positive.
    lt = lam_min - eta * C**2 * w      # w = τ − z ≥ 0 off the bad event
    normalised = (lam_min + (gamma - lt / C**2) * C**2) / C**2 - gamma
    used.append(d.sign("normalised reading η̃² = γ − λ̃/C²: (λ_min + η̃²C²)/C² − γ = η(τ − z) ≥ 0 "
                       "when z ≤ τ (w = τ − z ≥ 0), so Lemma 1 applies at γ", normalised, ">="))
    printed = (lam_min + (gamma - lt) * C**2) / C**2 - gamma
    d.counterexample("printed η̃² = γ − λ̃ (as in Algorithm 1, line 6): the condition (48) "
                     "(λ_min + η̃²C²)/C² ≥ γ fails when C ≠ 1, e.g. C = 10, λ_min = 400, η = 1, "
                     "τ − z = 1, γ = 30 (then λ̃ = 300 ≥ γ would even give η̃ = 0): the proof of "
                     "Theorem 1 holds only for C = 1", printed,
                     {C: 10, lam_min: 400, eta: 1, w: 1, gamma: 30}, ">=")
    d.facts["theorem1"] = d.deduce(
        "Theorem 1 (C = 1, or the normalised noise level): Algorithm 1 is (ε̃, δ)-DP with "
        "ε̃ = √(2 ln(3.75/δ))/η + min_{1<α<γ}{φ(α;k,γ) + [ln(3/δ) + (α−1)ln(1−1/α) − ln α]/(α−1)}",
        used + [d.facts["lemma1"]],
        "basic composition of the λ̃ release (ε₁, δ/3), GaussMix at γ off the bad event "
        "(ε̃ − ε₁, δ/3) and the bad event (δ/3); the first branch γ ≤ τ adds γC² noise, so "
        "Lemma 1 applies with λ̄ = 0 (reading the printed γC_Xξ as √γC_Xξ)")
    sec = ["divergence", "lemma1", "conversions", "theorem1"]
    d.entry("theorem1_tau", "tau", tau, "τ = √(2 ln(3/δ)) (Theorem 1)", sections=sec)
    d.entry("theorem1_lambda_scale", "s", eta * C**2,
            "standard deviation ηC² of the noise on λ_min(XᵀX) (Algorithm 1, line 5)",
            sections=sec)
    d.entry("theorem1_lambda_epsilon", "epsilon_1", eps1,
            "ε₁ = √(2 ln(3.75/δ))/η of the λ̃ release (Theorem 1, first term of (5))",
            sections=sec)
    d.entry("theorem1_objective", "epsilon_alpha_dp", objective,
            "the function of α minimised over (1, γ) in Theorem 1's ε̃ (eq. (5))", sections=sec,
            relations=[sp.Gt(alpha, 1), sp.Lt(alpha, gamma)])
    d.entry("theorem1_closed_form", "epsilon", k / (2 * gamma**2)
            + 2 * sp.sqrt(2 * k * sp.log(4 / delta)) / gamma,
            "§4 closed form for Algorithm 1 with η = γ/√k: ε = k/(2γ²) + 2√(2k ln(4/δ))/γ, AS "
            "PRINTED (the paper derives it from Corollary 1 and the tCDP → DP implication; not "
            "re-derived here)", sections=sec + ["closed_form"])


def _linear_mixing(d, s):
    k, gamma, eta = s["k"], s["gamma"], s["eta"]
    cx, cy = sp.Symbol("C_X", positive=True), sp.Symbol("C_Y", positive=True)
    d.section("linear_mixing")
    d.given("Algorithm 2 runs Algorithm 1 on the joint matrix [X, Y] (row (xᵢ, yᵢ) zeroed as one "
            "record) with row bound √(C_X² + C_Y²) and η = γ/√k; θ_Lin = (X̃ᵀX̃)⁻¹X̃ᵀỸ is "
            "post-processing (Theorem 2)", PAPER + ", §5.1, Algorithm 2, Theorem 2")
    d.identity("‖(x, y)‖² = ‖x‖² + y² ≤ C_X² + C_Y²", cx**2 + cy**2, sp.sqrt(cx**2 + cy**2)**2)
    d.solve("η = γ/√k", sp.Eq(eta * sp.sqrt(k), gamma), eta, gamma / sp.sqrt(k))
    d.given("Theorem 3 (utility, not a privacy claim): for kχ² > c₀d, with probability ≥ "
            "1 − c₁e^{−c₂kχ²}, L(θ_Lin) − (1+χ)²L(θ*) ≤ O((1+χ)²√(k ln(1/δ))(C_X² + C_Y²)(1 + "
            "‖θ*‖²)/ε) — universal constants unspecified, so it cannot be checked numerically",
            PAPER + ", Theorem 3 and App. F")
    # App. F (58)-(60): ε̃ ≤ √(2k ln(3.75/δ))/γ + min_{1<α<2γ/5}{kα/(2γ²) + ln(3/δ)/(α−1)}
    #                      = 3√(2k ln(3.75/δ))/γ.  At k = 1, γ = 10, δ = 1e-5 the α-range is
    #                      (1, 4] and f(α) = α/200 + ln(3e5)/(α−1) decreases on it.
    a = sp.Symbol("a", positive=True)
    L3 = sp.log(300000)
    f = a / 200 + L3 / (a - 1)
    d.interval("App. F's f(α) = kα/(2γ²) + ln(3/δ)/(α−1) decreases on (1, 2γ/5] at k = 1, "
               "γ = 10, δ = 10⁻⁵: −f′(α) = ln(3/δ)/(α−1)² − 1/200 ≥ ln(3·10⁵)/9 − 1/200 > 0",
               L3 / 9 - sp.Rational(1, 200), {}, ">")
    d.interval("… so its minimum over (1, 4] is f(4), and √(2k ln(3.75/δ))/γ + f(4) exceeds the "
               "stated 3√(2k ln(3.75/δ))/γ: App. F's (58)-(60) (used for Theorem 3's utility "
               "bound, not for privacy) is false for small k",
               sp.sqrt(2 * sp.log(375000)) / 10 + f.subs(a, 4)
               - 3 * sp.sqrt(2 * sp.log(375000)) / 10, {}, ">")
    d.entry("linear_mixing_eta", "eta", gamma / sp.sqrt(k), "η = γ/√k (Algorithm 2, line 1)",
            sections=["theorem1", "linear_mixing"])
    d.entry("linear_mixing_row_bound", "C", sp.sqrt(cx**2 + cy**2),
            "row bound √(C_X² + C_Y²) of the joint matrix [X, Y] (Algorithm 2, line 2)",
            sections=["linear_mixing"])


# -- Sheffet 2017, Algorithm 1 (the paper's Algorithms 4 and 5) -------------------------------------

def _sheffet2017(d, s):
    k, delta, eps, C = s["k"], s["delta"], s["eps"], s["C"]
    y = sp.Symbol("y", real=True)
    b = sp.Symbol("b", positive=True)
    d.section("sheffet2017")
    g4 = 4 * C**2 / eps * (sp.sqrt(2 * k * sp.log(8 / delta)) + 2 * sp.log(8 / delta))
    L = sp.Symbol("L", positive=True)   # L = ln(8/δ) > 0
    part = ((2 * sp.sqrt(2 * k * sp.log(4 / (delta / 2))) + 2 * sp.log(4 / (delta / 2)))
            / (g4 / C**2))
    used = [d.sign("with γ_eff = γ/C² (C² = C_X² + C_Y²), Sheffet 2019's bound at δ/2 is at most "
                   "ε/2: the GaussMix part of Algorithm 4 costs at most (ε/2, δ/2)",
                   eps / 2 - part, ">=", substitute={delta: 8 * sp.exp(-L)},
                   detail="δ = 8e^{−L}, L = ln(8/δ) > 0"),
            laplace_log_ratio_lemma(d, b, C**2),
            d.identity("Laplace test z ~ Lap(4C²/ε) on a C²-sensitive λ_min: pure ε/4",
                       C**2 / (4 * C**2 / eps), eps / 4),
            d.integral("P(z < −4C² ln(1/δ)/ε) = ½ e^{−ln(1/δ)} = δ/2 for z ~ Lap(4C²/ε)",
                       sp.exp(y / b) / (2 * b), (y, -sp.oo, -b * sp.log(1 / delta)), delta / 2),
            d.sign("ε/4 + ε/2 ≤ ε", eps - eps / 4 - eps / 2, ">=")]
    d.deduce("Algorithm 4 (Sheffet 2017, Alg. 1, with the zero-out factor 2: 4C² instead of 8C²) "
             "is (ε, δ)-DP, with the noise level √γ of Sheffet's original (the paper prints γ)",
             used, "the test is ε/4-DP; passing it implies λ_min > γ except with probability δ/2; "
             "GaussMix with λ̄ + σ² ≥ γ is (ε/2, δ/2)-DP by Sheffet 2019; basic composition")
    sec = ["sheffet2019", "sheffet2017"]
    d.entry("sheffet_gamma", "gamma", g4,
            "γ = 4(C_X² + C_Y²)/ε · (√(2k ln(8/δ)) + 2 ln(8/δ)) (Algorithm 4, line 3)",
            sections=sec)
    d.entry("sheffet_laplace_scale", "b", 4 * C**2 / eps,
            "Laplace scale 4(C_X² + C_Y²)/ε of the λ_min test (Algorithms 4-5, line 5)",
            sections=sec)
    d.entry("sheffet_margin", "m", 4 * C**2 * sp.log(1 / delta) / eps,
            "test margin 4(C_X² + C_Y²) ln(1/δ)/ε (Algorithms 4-5, line 5)", sections=sec)
    d.given("Algorithm 5 replaces line 3 by: γ such that min_{1<α<γ}{φ(α;k,γ) + ln(1 − 1/α) − "
            "ln(αδ)/(α − 1)} ≤ ε/2, i.e. Prop. 1 on Lemma 1 at δ (not δ/2), with γ used as printed "
            "in lines 5 and 9", PAPER + ", App. H.2, Algorithm 5")


# -- AdaSSP ---------------------------------------------------------------------------------------

def _adassp(d, s):
    eps, delta = s["eps"], s["delta"]
    sens = sp.Symbol("Delta", positive=True)
    mu = sp.Symbol("mu", positive=True)
    d.section("adassp")
    sig = sp.sqrt(sp.log(6 / delta)) * sens / (eps / 3)
    d.given("AdaSSP (Wang 2018, Alg. 2; the paper's Algorithm 3) releases λ_min(XᵀX) (sensitivity "
            "C_X²), XᵀX (Frobenius sensitivity C_X²; upper triangle of N_sym) and Xᵀy (sensitivity "
            "C_X C_Y), each with Gaussian noise √(ln(6/δ))·Δ/(ε/3), and claims (ε, δ)-DP",
            "Wang 2018; the paper's App. H.1")
    d.identity("each release is μᵢ-GDP with μᵢ = Δ/σ = (ε/3)/√(ln(6/δ)); the three compose to "
               "μ = ε/√(3 ln(6/δ)) (GDP composition: μ² = Σμᵢ²)",
               3 * (sens / sig)**2, (eps / sp.sqrt(3 * sp.log(6 / delta)))**2)
    d.identity("(μ-GDP with μ = ε/√(3 ln(6/δ)) is the exact curve the audit compares against; "
               "μ² = ε²/(3 ln(6/δ)))", mu**2 * 3 * sp.log(6 / delta),
               (mu * sp.sqrt(3 * sp.log(6 / delta)))**2)
    e0, d0 = sp.Integer(60), sp.Rational(1, 100)
    mu0 = e0 / sp.sqrt(3 * sp.log(6 / d0))
    Phi = lambda x: sp.erfc(-x / sp.sqrt(2)) / 2  # noqa: E731
    exact = Phi(mu0 / 2 - e0 / mu0) - sp.exp(e0) * Phi(-mu0 / 2 - e0 / mu0)
    d.interval("but μ-GDP does not imply (ε, δ)-DP for large ε: at ε = 60, δ = 1/100 the exact "
               "δ_μ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) of the released statistics exceeds δ "
               "(the pair x = C_X e₁, y = C_Y attains all three sensitivities), so AdaSSP's "
               "calibration does not give (ε, δ)-DP there", exact - d0, {}, ">")
    d.entry("adassp_sigma", "sigma", sig,
            "AdaSSP noise scale √(ln(6/δ))·Δ/(ε/3) for a release of sensitivity Δ (Algorithm 3)",
            sections=["adassp"])
    d.entry("adassp_mu", "mu", eps / sp.sqrt(3 * sp.log(6 / delta)),
            "GDP parameter of AdaSSP's three Gaussian releases together", sections=["adassp"])


# -- objective perturbation ------------------------------------------------------------------------

def _objective_perturbation(d, s):
    eps, delta, C = s["eps"], s["delta"], s["C"]
    z = sp.Symbol("s", real=True)
    q = sp.Symbol("q", positive=True)
    d.section("objective_perturbation")
    loss = sp.log(1 + sp.exp(-z))
    used = [d.identity("logistic loss ℓ(s) = ln(1 + e^{−s}): ℓ′(s) = −1/(1 + e^{s})",
                       sp.diff(loss, z), -1 / (1 + sp.exp(z))),
            d.sign("|ℓ′| ≤ 1: 1 − 1/(1 + e^{s}) ≥ 0 (e^s = q > 0)", 1 - 1 / (1 + q), ">="),
            d.identity("ℓ″(s) = e^{s}/(1 + e^{s})²", sp.diff(loss, z, 2),
                       sp.exp(z) / (1 + sp.exp(z))**2),
            d.sign("ℓ″ ≤ 1/4: 1/4 − q/(1+q)² = (q − 1)²/(4(1+q)²) ≥ 0", sp.Rational(1, 4)
                   - q / (1 + q)**2, ">="),
            d.given("Kifer, Smith & Thakurta 2012, Thm 2 (Gaussian objective perturbation): with "
                    "‖∇ℓ‖ ≤ ζ and Hessian eigenvalues ≤ λ, Δ ≥ 2λ/ε and b ~ N(0, σ²I), "
                    "σ² = ζ²(8 ln(2/δ) + 4ε)/ε², argmin (1/n)Σℓ + Δ‖θ‖²/(2n) + bᵀθ/n is (ε, δ)-DP",
                    "Kifer et al. 2012; the paper's Algorithm 6")]
    used.append(d.identity("for yxᵀθ with ‖x‖ ≤ C: ζ = C and λ = C²/4, so Δ = 2(C²/4)/ε = C²/(2ε)",
                           2 * (C**2 / 4) / eps, C**2 / (2 * eps)))
    d.deduce("Algorithm 6's σ = √(4ε + 8 ln(2/δ))·C/ε and Δ = C²/(2ε) meet Kifer et al.'s "
             "conditions for the logistic loss (zero-out: a zero row has ℓ(0) constant)", used,
             "substitution of ζ = C, λ = C²/4")
    d.entry("objpert_sigma", "sigma", sp.sqrt(4 * eps + 8 * sp.log(2 / delta)) * C / eps,
            "σ = √(4ε + 8 ln(2/δ))·C_X/ε (Algorithm 6)", sections=["objective_perturbation"])
    d.entry("objpert_regulariser", "Delta", C**2 / (2 * eps),
            "Δ = C_X²/(2ε) (Algorithm 6)", sections=["objective_perturbation"])
