"""Derivation: DP-LSW and DP-LSL (Balle, Gomrokchi & Precup 2016, "Differentially Private Policy
Evaluation", arXiv:1603.02010; main text §3–§4 and Appendices A–E).

Both algorithms release θ_X + N(0, σ_X² I_d) with σ_X = C·√ψ_X, ψ_X a β-smooth upper bound of a
signature-dependent bound φ_X on the local sensitivity.  Recorded here, section by section:

* ``lemma1_main`` — the main text's Lemma 1 (α = 5√(2 ln(2/δ))/ε, β = ε/(4d + 4 ln(2/δ))),
  attributed to Nissim, Raskhodnikova & Smith (2011, pre-print): taken as *given*.
  ``lemma1_main_counterexample`` certifies by interval arithmetic that, stated for every ε as
  the paper does, it is false (d = 1, δ = 1/10, ε = 60: an event of a pair that meets both
  hypotheses has P₀(S) − e^ε P₁(S) > δ).
* ``lemma14`` — the appendix's own proof (Lemma 14 = supplement Lemma 1: α′ = 15√(2 ln(4/δ))/ε,
  β′ = 2 ln 2·ε/(5(√d + √(2 ln(4/δ)))²), for ε ≤ 5, β′ ≤ ln 2), step by step (26)–(39).
* ``lsw_sensitivity`` — eq. (8)/(13), Lemma 2, Corollary 3;
  ``lsl_sensitivity`` — eq. (11), Lemma 7, Corollary 8.
* ``smooth_bounds`` — Lemma 4 (ψ ≥ φ and β-smoothness through ball inclusion), Lemma 5 and
  Lemma 9 (closed forms of φ_k, monotonicity) and the truncation of the sup over k;
  ``lattice`` — the closed forms and the β-smoothness checked exhaustively against the
  definition φ_k(v) = max_{‖v−v′‖∞≤k} φ(v′) on small lattices, in exact arithmetic.
* ``noise_lsw``/``noise_lsl`` — Theorems 6 and 10 assembled; ``theorem6_counterexample`` —
  Theorem 6 stated for every ε is false: a one-state DP-LSW pair at ε = 300, δ = 1/10.
* ``utility`` — counterexamples to the appendix's Lemma 23, Lemma 30 and Theorem 11
  (= Corollary 27) at the paper's own parameters, and the correct form of Lemma 23.

Typos read as the spec (``../shared/papers/policy_evaluation.md``) says: β′ = (2 ln 2)ε /
[5(√d + √(2 ln(4/δ)))²]; max{v_s, m} in φ^λ and Lemma 9 read as min{·, m}.

``dpaudit prove policy_evaluation`` writes ``proofs/certificates/policy_evaluation.json``, the
only source of the formulas in :mod:`dpaudit.mechanisms.policy_evaluation.mechanisms`.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import sympy as sp

from dpaudit.proofs.framework import Derivation

FAMILY = "policy_evaluation"


def derive() -> Derivation:
    d = Derivation(FAMILY, Path(__file__), "DP policy evaluation: DP-LSW and DP-LSL with "
                   "smoothed sensitivity (Balle, Gomrokchi & Precup 2016)", references=(
                       "Balle, Gomrokchi & Precup, Differentially Private Policy Evaluation, "
                       "ICML 2016 / arXiv:1603.02010 (main text and Appendices A–E)",
                       "Supplementary material of the same paper (results numbered from 1)",
                       "Nissim, Raskhodnikova & Smith, Smooth sensitivity and sampling, STOC "
                       "2007; full version 2011",
                       "Laurent & Massart, Annals of Statistics 2000 (χ² tail bound)"))
    s = {
        "eps": d.symbol("epsilon", "privacy parameter ε of the claim", positive=True),
        "delta": d.symbol("delta", "δ of the claim, 0 < δ < 1", positive=True),
        "d": d.symbol("d", "number of features d (output dimension)", positive=True,
                      integer=True),
        "alpha": d.symbol("alpha", "noise multiplier α of Lemma 1 (main text or appendix)",
                          positive=True),
        "beta": d.symbol("beta", "smoothness β of Lemma 1 (main text or appendix)",
                         positive=True),
        "F": d.symbol("F_max", "public upper bound on every first-visit return: R_max/(1 − γ) "
                      "or the user's F_max", positive=True),
        "P": d.symbol("P", "operator norm ‖(Γ^{1/2}Φ)^†‖ = 1/σ_min(Γ^{1/2}Φ)", positive=True),
        "psi": d.symbol("psi", "β-smooth upper bound ψ_X of φ_X", positive=True),
        "phi": d.symbol("phi", "signature bound φ_X (Corollary 3 or 8)", positive=True),
        "w": d.symbol("w", "LSW regression weight w_s of one state", positive=True),
        "v": d.symbol("v", "count |X_s| of trajectories visiting s (the signature entry)",
                      nonnegative=True, integer=True),
        "k": d.symbol("k", "radius k of the ℓ∞ ball in Lemma 4", nonnegative=True,
                      integer=True),
        "m": d.symbol("m", "number of trajectories m", positive=True, integer=True),
        "rho": d.symbol("rho", "LSL regression weight ρ_s of one state, 0 ≤ ρ_s ≤ 1",
                        nonnegative=True),
        "Phi": d.symbol("Phi_norm", "operator norm ‖Φ‖ of the feature matrix", positive=True),
        "rho_inf": d.symbol("rho_inf", "‖ρ‖∞", positive=True),
        "rho_2": d.symbol("rho_2", "‖ρ‖₂", positive=True),
        "lam": d.symbol("lam", "ridge parameter λ of DP-LSL, λ > ‖Φ‖²‖ρ‖∞", positive=True),
        "c": d.symbol("c_lambda", "c_λ = ‖Φ‖‖ρ‖∞/√(2λ)", positive=True),
        "S": d.symbol("S", "Σ_s ρ_s min{v_s + k, m}", nonnegative=True),
    }
    _lemma1_main(d, s)
    _lemma14(d, s)
    _lsw_sensitivity(d, s)
    _lsl_sensitivity(d, s)
    _smooth_bounds(d, s)
    _lattice(d)
    _noise(d, s)
    _theorem6_counterexample(d)
    _utility(d)
    return d


def Phi_cdf(x):
    """Standard normal CDF through erfc (what the interval arithmetic encloses)."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


# -- Lemma 1 (main text) ----------------------------------------------------------------------

def _alpha_beta_main(eps, delta, dd):
    return (5 * sp.sqrt(2 * sp.log(2 / delta)) / eps,
            eps / (4 * dd + 4 * sp.log(2 / delta)))


def _lemma1_main(d, s):
    eps, delta, dd = s["eps"], s["delta"], s["d"]
    alpha, beta = _alpha_beta_main(eps, delta, dd)
    d.section("lemma1_main")
    d.facts["lemma1_main"] = d.given(
        "Lemma 1 (main text): if σ_X ≥ α‖μ_X − μ_X′‖₂ and |ln σ_X² − ln σ_X′²| ≤ β for every "
        "neighbouring pair, with α = 5√(2 ln(2/δ))/ε and β = ε/(4d + 4 ln(2/δ)), then "
        "Z_X ~ N(μ_X, σ_X² I_d) is (ε, δ)-DP — stated for every ε, δ; not proved in the paper",
        "Balle et al. 2016, Lemma 1, attributed to Nissim, Raskhodnikova & Smith 2011 "
        "(pre-print); the appendix proves only Lemma 14 (other constants)")
    d.identity("β = ε/(4(d + ln(2/δ))) as Algorithms 1–2 write it equals Lemma 1's "
               "ε/(4d + 4 ln(2/δ))", eps / (4 * (dd + sp.log(2 / delta))), beta)
    d.entry("alpha", "alpha", alpha, "α(ε, δ) = 5√(2 ln(2/δ))/ε (main-text Lemma 1; "
            "Algorithms 1 and 2)", sections=["lemma1_main"],
            notes=["taken as given from Nissim et al. (2011); false for large ε, see "
                   "section lemma1_main_counterexample"])
    d.entry("beta", "beta", beta, "β(ε, δ, d) = ε/(4d + 4 ln(2/δ)) (main-text Lemma 1; "
            "Algorithms 1 and 2)", sections=["lemma1_main"],
            notes=["taken as given from Nissim et al. (2011); false for large ε, see "
                   "section lemma1_main_counterexample"])

    d.section("lemma1_main_counterexample")
    # d = 1, δ = 1/10, ε = 60.  X: N(Δ, 1) with Δ = 1/α (so σ_X = 1 = α·Δ: condition (a) holds
    # with equality for the smaller σ); X′: N(0, e^β) (condition (b) with equality).  Event
    # S = {z ≤ t}: P_X′(S) − e^ε P_X(S) > δ certifies ε(δ) > ε for this pair.
    e0, d0, one = sp.Integer(60), sp.Rational(1, 10), sp.Integer(1)
    a0, b0 = _alpha_beta_main(e0, d0, one)
    shift = 1 / a0
    wide = sp.exp(b0 / 2)
    t = sp.Rational(-13, 2)
    gap = Phi_cdf(t / wide) - sp.exp(e0) * Phi_cdf(t - shift) - d0
    d.identity("at d = 1, δ = 1/10, ε = 60 the pair N(Δ, 1) vs N(0, e^β) with Δ = 1/α meets "
               "condition (a) with equality (min σ = 1 = αΔ)", a0 * shift, 1)
    d.identity("… and condition (b) with equality: ln(e^β) − ln 1 = β", sp.log(wide**2), b0)
    step = d.interval("… yet the event S = {z ≤ −13/2} has P_{N(0,e^β)}(S) − e^{60} "
                      "P_{N(Δ,1)}(S) − 1/10 > 0, so that pair is not (60, 1/10)-DP", gap, {},
                      ">")
    d.deduce("Lemma 1 (main text), stated without a range for ε, is FALSE (ε = 60, δ = 1/10, "
             "d = 1); the exact curve of this pair gives ε(1/10) ≈ 85.6", [step],
             "a pair meeting both hypotheses violates the conclusion")


# -- Lemma 14 (appendix A = supplement Lemma 1) -------------------------------------------------

def _lemma14(d, s):
    eps, delta, dd = s["eps"], s["delta"], s["d"]
    e = sp.Symbol("epsilon_5", positive=True)  # ϵ = ε/5
    s1, s2, D = sp.symbols("sigma_1 sigma_2 D", positive=True)
    tt = sp.Symbol("t", real=True)  # coordinate of z − μ₁ along Δ/‖Δ‖
    T, r = sp.symbols("T r", nonnegative=True)  # t², ‖z_o‖²
    q1, q2 = sp.symbols("q_1 q_2", nonnegative=True)
    L2 = sp.Symbol("L_2", positive=True)  # ln(2/δ)
    u, v, g, h = sp.symbols("u v g h", nonnegative=True)
    C = sp.sqrt(2 * (L2 + sp.log(2)))  # C_δ = √(2 ln(4/δ))
    Dd = sp.sqrt(dd) + sp.sqrt(2 * L2)  # D_δ = √d + √(2 ln(2/δ))
    B = (sp.sqrt(dd) + C) ** 2
    d.section("lemma14")
    used = []
    used.append(d.identity(
        "(24) L(z) = ln f₁(z)/f₂(z) = (d/2) ln(σ₂²/σ₁²) + ‖μ₂ − z‖²/(2σ₂²) − ‖μ₁ − z‖²/(2σ₁²) "
        "for f_i the N(μ_i, σ_i² I_d) density (q_i = ‖μ_i − z‖²)",
        (-q1 / (2 * s1**2) - dd * sp.log(s1)) - (-q2 / (2 * s2**2) - dd * sp.log(s2)),
        dd / 2 * sp.log(s2**2 / s1**2) + q2 / (2 * s2**2) - q1 / (2 * s1**2)))
    used.append(d.identity(
        "(26)–(27) with z − μ₁ = t·Δ/‖Δ‖ + z_o (z_o ⊥ Δ, ‖z_o‖² = r): ‖μ₂ − z‖²/(2σ₂²) − "
        "‖μ₁ − z‖²/(2σ₁²) = ‖Δ‖²/(2σ₂²) − ⟨z′,Δ⟩/σ₂² + (t²/2)(1/σ₂² − 1/σ₁²) + "
        "(r/2)(1/σ₂² − 1/σ₁²)",
        (D**2 - 2 * tt * D + tt**2 + r) / (2 * s2**2) - (tt**2 + r) / (2 * s1**2),
        D**2 / (2 * s2**2) - tt * D / s2**2 + tt**2 / 2 * (1 / s2**2 - 1 / s1**2)
        + r / 2 * (1 / s2**2 - 1 / s1**2)))
    tail_a = d.given("P[|Z| > c] ≤ 2e^{−c²/2} for Z ~ N(0, 1), c ≥ 0 (eq. (19))",
                     "standard Gaussian tail bound (Chernoff)")
    tail_b = d.given("P[χ²_d > d + 2√(dx) + 2x] ≤ e^{−x} for x ≥ 0 (eq. (20))",
                     "Laurent & Massart 2000, Lemma 1")
    used.append(d.deduce("(21)–(23) Ω = {|⟨z − μ₁, Δ⟩| ≤ σ₁‖Δ‖C_δ} ∩ {‖z − μ₁‖ ≤ σ₁D_δ} has "
                         "P[Z₁ ∉ Ω] ≤ δ (union bound of two δ/2 tails)", [
        tail_a, tail_b,
        d.identity("2e^{−C_δ²/2} = δ/2 at C_δ = √(2 ln(4/δ))",
                   2 * sp.exp(-sp.Integer(2) * sp.log(4 / delta) / 2), delta / 2),
        d.identity("e^{−x} = δ/2 at x = ln(2/δ)", sp.exp(-sp.log(2 / delta)), delta / 2),
        d.decompose("d + 2√(dx) + 2x ≤ (√d + √(2x))² = D_δ² (x = ln(2/δ) = L₂)",
                    Dd**2 - (dd + 2 * sp.sqrt(dd * L2) + 2 * L2),
                    [2 * (sp.sqrt(2) - 1) * sp.sqrt(dd) * sp.sqrt(L2)])],
        "union bound: Z = ⟨Z₁ − μ₁, Δ⟩/(σ₁‖Δ‖) ~ N(0, 1) and ‖Z₁ − μ₁‖²/σ₁² ~ χ²_d"))
    # on Ω: |t| ≤ σ₁C_δ, i.e. T = t² ∈ [0, σ₁²C_δ²], and r ≤ σ₁²D_δ²
    used.append(d.decompose(
        "(25) with β′ ≤ 2ϵ/d: (√d + C_δ)² − (ln 2)·d = d(1 − ln 2) + 2√d C_δ + C_δ² ≥ 0, so "
        "β′ = 2 ln 2·ϵ/(√d + C_δ)² ≤ 2ϵ/d and (d/2) ln(σ₂²/σ₁²) ≤ (d/2)β′ ≤ ϵ",
        B - sp.log(2) * dd, [dd * (1 - sp.log(2)), 2 * sp.sqrt(dd) * C, C**2]))
    recip = d.sign("(29) σ₁²/σ₂² = h ≤ γ′ gives 1/σ₂² − 1/σ₁² = (h − 1)/σ₁² ≤ (γ′ − 1)/σ₁² "
                   "(γ′ = h + g, g ≥ 0)", ((h + g - 1) - (h - 1)) / s1**2, ">=")
    used.append(recip)
    used.append(d.vertices("(30) for t² = T ∈ [0, σ₁²C_δ²]: (T/2)(γ′ − 1)/σ₁² ≤ C_δ²(γ′ − 1)/2",
                           C**2 * g / 2 - T / 2 * g / s1**2, {T: (0, s1**2 * C**2)}))
    used.append(d.vertices("(31) for r ∈ [0, σ₁²D_δ²]: (r/2)(γ′ − 1)/σ₁² ≤ D_δ²(γ′ − 1)/2",
                           Dd**2 * g / 2 - r / 2 * g / s1**2, {r: (0, s1**2 * Dd**2)}))
    gam1 = 2 * e / B  # γ′ − 1 of (33)
    used.append(d.identity("(32)–(33) with γ′ = 1 + 2ϵ/(√d + C_δ)²: C_δ²(γ′ − 1)/2 = ϵ C_δ²/"
                           "(√d + C_δ)²", C**2 * gam1 / 2, e * C**2 / B))
    used.append(d.decompose("… ≤ ϵ since (√d + C_δ)² − C_δ² = d + 2√d C_δ ≥ 0",
                            B - C**2, [dd, 2 * sp.sqrt(dd) * C]))
    s2L = sp.sqrt(2 * L2)
    used.append(d.decompose(
        "… and D_δ²(γ′ − 1)/2 ≤ ϵ: (√d + C_δ)² − D_δ² = 2√d(C_δ − √(2L₂)) + 2 ln 2 with "
        "C_δ − √(2L₂) = 2 ln 2/(C_δ + √(2L₂)) (C_δ² − 2L₂ = 2 ln 2)",
        B - Dd**2, [4 * sp.sqrt(dd) * sp.log(2) / (C + s2L), 2 * sp.log(2)]))
    x = sp.Symbol("x", nonnegative=True)
    hx = 1 + x - sp.exp(x * sp.log(2))
    used.append(d.deduce("(34) 1 + x ≥ e^{x ln 2} on [0, 1]: h(x) = 1 + x − 2^x has h(0) = "
                         "h(1) = 0 and h″ < 0 (concave), so h ≥ 0 on [0, 1]", [
        d.identity("h(0) = 0", hx.subs(x, 0), 0), d.identity("h(1) = 0", hx.subs(x, 1), 0),
        d.sign("h″(x) = −(ln 2)² 2^x < 0", sp.diff(hx, x, 2), "<")],
        "a concave function is ≥ the chord between its endpoints"))
    beta_p = 2 * sp.log(2) * e / B
    used.append(d.identity("β′ = (ln 2)·x with x = 2ϵ/(√d + C_δ)² = γ′ − 1, so β′ ≤ ln 2 ⇔ "
                           "x ≤ 1 and then e^{β′} ≤ 1 + x = γ′: |ln σ₁²/σ₂²| ≤ β′ gives (28)",
                           beta_p, sp.log(2) * gam1))
    used.append(d.vertices("(35) −⟨z′,Δ⟩ = −tD ≤ σ₁C_δ D on Ω: (‖Δ‖² + 2σ₁‖Δ‖C_δ)/(2σ₂²) ≥ "
                           "‖Δ‖²/(2σ₂²) − tD/σ₂² for t ∈ [−σ₁C_δ, σ₁C_δ]",
                           (D**2 + 2 * s1 * D * C) / (2 * s2**2)
                           - (D**2 / (2 * s2**2) - tt * D / s2**2),
                           {tt: (-s1 * C, s1 * C)}))
    # γ′ ≤ 3 for ϵ ≤ 1: 3 − γ′ = 2 − 2ϵ/B ≥ 0; with ϵ = 1/(1 + v) and L₂ = ln 2 + u (δ < 1)
    sub = {e: 1 / (1 + v), L2: sp.log(2) + u}
    Cu = sp.sqrt(2 * (2 * sp.log(2) + u))
    used.append(d.decompose(
        "(37) γ′ ≤ 3 when ϵ ≤ 1 (ϵ = 1/(1 + v), v ≥ 0) and δ < 1 (L₂ = ln 2 + u): "
        "(3 − γ′)(√d + C_δ)²(1 + v)/2 = (1 + v)(√d + C_δ)² − 1 ≥ 0",
        ((1 + v) * B - 1).subs(sub),
        [(1 + v) * dd, (1 + v) * 2 * sp.sqrt(dd) * Cu, v * Cu**2, 2 * u, 4 * sp.log(2) - 1]))
    used.append(d.identity("(38) (3/2)(‖Δ‖² + 2σ₁‖Δ‖C_δ)/σ₁² = 3‖Δ‖²/(2σ₁²) + 3‖Δ‖C_δ/σ₁",
                           sp.Rational(3, 2) * (D**2 + 2 * s1 * D * C) / s1**2,
                           3 * D**2 / (2 * s1**2) + 3 * D * C / s1))
    # (39): σ₁ = D(3C/ϵ + y), y ≥ 0
    y = sp.Symbol("y", nonnegative=True)
    s1_sub = D * (3 * C / e + y)
    used.append(d.sign("(39) σ₁ ≥ (3C_δ/ϵ)‖Δ‖ gives 3‖Δ‖C_δ/σ₁ ≤ ϵ (σ₁ = ‖Δ‖(3C_δ/ϵ + y))",
                       sp.simplify(e - 3 * D * C / s1_sub), ">="))
    used.append(d.decompose(
        "(39) … and 3‖Δ‖²/(2σ₁²) ≤ ϵ: 2ϵ(3C_δ/ϵ + y)² − 3 = 2ϵy² + 12C_δy + 18C_δ²(1/ϵ − 1) "
        "+ 18(C_δ² − 4 ln 2) + (72 ln 2 − 3) ≥ 0, with ϵ = 1/(1 + v) ≤ 1 and "
        "C_δ² = 2 ln(4/δ) = 4 ln 2 + 2u (δ < 1)",
        (2 * e * (3 * Cu / e + y)**2 - 3).subs(e, 1 / (1 + v)),
        [2 * y**2 / (1 + v), 12 * Cu * y, 18 * Cu**2 * v, 36 * u, 72 * sp.log(2) - 3]))
    alpha_p = 15 * sp.sqrt(2 * sp.log(4 / delta)) / eps
    used.append(d.identity("α′ = 3C_δ/ϵ = 15√(2 ln(4/δ))/ε with ϵ = ε/5",
                           (3 * sp.sqrt(2 * sp.log(4 / delta)) / e).subs(e, eps / 5), alpha_p))
    lemma15 = d.given("Lemma 15: if P[Z_X ∉ Θ] ≤ δ and f_X ≤ e^ε f_X′ on Θ for every "
                      "neighbouring pair, then (ε, δ)-DP (P(E) ≤ P(E ∩ Θ) + δ ≤ e^ε P′(E) + δ)",
                      "Balle et al. 2016, Lemma 15 (two-line proof in the paper)")
    d.facts["lemma14"] = d.deduce(
        "Lemma 14: σ_X ≥ α′‖μ_X − μ_X′‖ and |ln σ_X² − ln σ_X′²| ≤ β′ for every neighbouring "
        "pair, with ε ≤ 5 and β′ ≤ ln 2, make Z_X (ε, δ)-DP: on Ω the five parts of L are each "
        "≤ ϵ = ε/5", used + [lemma15], "sum of the five bounds; Lemma 15 with Θ = Ω")
    beta_formula = 2 * sp.log(2) * eps / (5 * (sp.sqrt(dd) + sp.sqrt(2 * sp.log(4 / delta)))**2)
    d.identity("β′ = 2 ln 2·ϵ/(√d + C_δ)² is (2 ln 2)ε/[5(√d + √(2 ln(4/δ)))²] "
               "(the paper's typeset precedence read as the proof gives it)",
               beta_p.subs({e: eps / 5, L2: sp.log(2 / delta)}), beta_formula)
    notes = ["conditions: ε ≤ 5 and β′ ≤ ln 2 (Lemma 14)"]
    d.entry("alpha_appendix", "alpha", alpha_p, "α′(ε, δ) = 15√(2 ln(4/δ))/ε (Lemma 14, proved "
            "in Appendix A)", sections=["lemma14"], relations=[sp.Le(eps, 5)], notes=notes)
    d.entry("beta_appendix", "beta", beta_formula, "β′(ε, δ, d) = (2 ln 2)ε/[5(√d + "
            "√(2 ln(4/δ)))²] (Lemma 14, proved in Appendix A)", sections=["lemma14"],
            relations=[sp.Le(eps, 5)], notes=notes)


# -- DP-LSW sensitivity: eq. (8), (13), Lemma 2, Corollary 3 -----------------------------------

def _return_gap(d, statement):
    """|a − b| ≤ F_max for a, b ∈ [0, F_max], over every weak ordering (translation-invariant
    form: points o ≤ a, b ≤ t, values a − o, b − o, F_max = t − o)."""
    o, a, b, t = sp.symbols("o a b t", real=True)
    return d.orderings(statement, (t - o) - sp.Abs(a - b), [o, a, b, t],
                       constraints=[(o, a), (o, b), (a, t), (b, t)])


def _frobenius_zero(matrix):
    """Σ of squared entries: 0 iff the (symbolic) matrix is 0."""
    return sum((sp.expand(x)**2 for x in matrix), sp.Integer(0))


def _lsw_sensitivity(d, s):
    F = s["F"]
    d.section("lsw_sensitivity")
    # eq. (7)/(8) on a generic instance: N = 3 states, d = 2 features, symbolic entries
    Phi = sp.Matrix(3, 2, sp.symbols("phi_0:6", real=True))
    gam = sp.symbols("g_0:3", positive=True)  # Γ^{1/2} = diag(g)
    Fv = sp.Matrix(sp.symbols("F_0:3", real=True))
    th = sp.Matrix(sp.symbols("theta_0:2", real=True))
    G = sp.diag(*gam)
    J = ((G * (Fv - Phi * th)).T * (G * (Fv - Phi * th)))[0]
    grad = sp.Matrix([sp.diff(J, t) for t in th])
    used = [d.identity("(7) ∇_θ ‖F_X − Φθ‖²_{2,Γ} = 2ΦᵀΓΦθ − 2ΦᵀΓF_X (checked with generic "
                       "symbolic Φ ∈ ℝ^{3×2}, Γ = diag(g²), F, θ)",
                       _frobenius_zero(grad - (2 * Phi.T * G**2 * Phi * th
                                               - 2 * Phi.T * G**2 * Fv)), 0),
            d.identity("(8) (Γ^{1/2}Φ)ᵀΓ^{1/2} = ΦᵀΓ, so (ΦᵀΓΦ)⁻¹ΦᵀΓF = (AᵀA)⁻¹AᵀΓ^{1/2}F = "
                       "A^†Γ^{1/2}F for A = Γ^{1/2}Φ of full column rank",
                       _frobenius_zero((G * Phi).T * G - Phi.T * G**2), 0),
            d.given("A^† = (AᵀA)⁻¹Aᵀ for A of full column rank, and ‖Mx‖ ≤ ‖M‖‖x‖ for the "
                    "operator norm", "standard linear algebra")]
    d.facts["eq13"] = d.deduce("(13) ‖θ^w_X − θ^w_X′‖₂ = ‖A^†Γ^{1/2}(F_X − F_X′)‖₂ ≤ "
                               "‖(Γ^{1/2}Φ)^†‖·‖F_X − F_X′‖_{2,Γ}", used,
                               "linearity of θ in F, then the operator-norm inequality")
    n = sp.Symbol("n", nonnegative=True, integer=True)  # |X°_s|
    Fo, Fx, Fy = sp.symbols("F_o F_x F_x'", nonnegative=True)
    avg = lambda extra: (n * Fo + extra) / (n + 1)  # noqa: E731
    lem2 = [
        d.identity("s ∈ S_x ∩ S_x′: F_X,s − F_X′,s = (F_x,s − F_x′,s)/(|X°_s| + 1) "
                   "(F_X,s = (|X°_s|F_X°,s + F_x,s)/(|X°_s| + 1))", avg(Fx) - avg(Fy),
                   (Fx - Fy) / (n + 1)),
        _return_gap(d, "… and |F_x,s − F_x′,s| ≤ F_max for F_x,s, F_x′,s ∈ [0, F_max]"),
        d.identity("s ∈ S_x \\ S_x′: F_X,s − F_X′,s = (F_x,s − F_X°,s)/(|X°_s| + 1) "
                   "(F_X′,s = F_X°,s; for |X°_s| = 0 both conventions give F_X′,s = 0 = "
                   "F_X°,s)", avg(Fx) - Fo, (Fx - Fo) / (n + 1)),
        _return_gap(d, "… and |F_x,s − F_X°,s| ≤ F_max (an average of returns in [0, F_max] "
                    "is in [0, F_max])"),
        d.given("s ∉ S_x ∪ S_x′: F_X,s = F_X′,s (the same trajectories visit s)",
                "definition (4) of F_X")]
    d.facts["lemma2"] = d.deduce(
        "Lemma 2: ‖F_X − F_X′‖²_{2,Γ} = Σ_s w_s(F_X,s − F_X′,s)² ≤ F_max² Σ_{s ∈ S_x ∪ S_x′} "
        "w_s/(|X°_s| + 1)²", lem2, "per-state bounds squared, weighted and summed")
    cor3 = [
        d.given("|X_s| = |X°_s| + 1 for s ∈ S_x and |X_s| = |X°_s| for s ∉ S_x",
                "definition of X_s (x is the trajectory X has and X° lacks)"),
        d.identity("s ∈ S_x: 1/(|X°_s| + 1)² = 1/max{|X_s|, 1}² (|X_s| = |X°_s| + 1 ≥ 1)",
                   1 / (n + 1)**2, 1 / sp.Max(n + 1, 1)**2),
        d.sign("s ∉ S_x, |X_s| = n ≥ 1: 1/n² − 1/(n + 1)² ≥ 0 (n = 1 + j)",
               (1 / n**2 - 1 / (n + 1)**2), ">=",
               substitute={n: 1 + sp.Symbol("j", nonnegative=True, integer=True)}),
        d.identity("s ∉ S_x, |X_s| = 0: 1/(0 + 1)² = 1 = 1/max{0, 1}²", sp.Integer(1),
                   1 / sp.Max(0, 1)**2)]
    d.facts["corollary3"] = d.deduce(
        "Corollary 3: for every X′ ≃ X, ‖F_X − F_X′‖_{2,Γ} ≤ F_max √φ^w_X with "
        "φ^w_X = Σ_s w_s/max{|X_s|, 1}² (extend the sum of Lemma 2 to all of S)",
        [d.facts["lemma2"]] + cor3, "termwise comparison, then all terms ≥ 0")
    P, phi = s["P"], s["phi"]
    d.facts["lsw_sensitivity"] = d.deduce(
        "Local sensitivity of θ^w: ‖θ^w_X − θ^w_X′‖₂ ≤ F_max‖(Γ^{1/2}Φ)^†‖√φ^w_X for every "
        "X′ ≃ X", [d.facts["eq13"], d.facts["corollary3"]], "chain (13) and Corollary 3")
    d.entry("lsw_sensitivity_bound", "Delta_theta", F * P * sp.sqrt(phi),
            "bound on ‖θ^w_X − θ^w_X′‖₂ over all neighbours X′: F_max‖(Γ^{1/2}Φ)^†‖√φ^w_X "
            "(eq. (13) and Corollary 3)", sections=["lsw_sensitivity"])


# -- DP-LSL sensitivity: eq. (11), Lemma 7, Corollary 8 ----------------------------------------

def _lsl_sensitivity(d, s):
    F, Phin, rinf, r2, lam, m = s["F"], s["Phi"], s["rho_inf"], s["rho_2"], s["lam"], s["m"]
    d.section("lsl_sensitivity")
    # eq. (11) on a generic instance: 3 states, d = 2, two trajectories visiting {0,1} and {1,2}
    Phi = sp.Matrix(3, 2, sp.symbols("phi_0:6", real=True))
    rho = sp.symbols("rho_0:3", positive=True)
    th = sp.Matrix(sp.symbols("theta_0:2", real=True))
    lam_ = sp.Symbol("lam", positive=True)
    visits = [{0: sp.Symbol("F_a0"), 1: sp.Symbol("F_a1")},
              {1: sp.Symbol("F_b1"), 2: sp.Symbol("F_b2")}]
    mm = len(visits)
    J = sum((rho[st] * (ret - (Phi[st, :] * th)[0])**2 for x in visits for st, ret in x.items()),
            sp.Integer(0)) / mm + lam_ / (2 * mm) * (th.T * th)[0]
    counts = [sum(st in x for x in visits) for st in range(3)]
    FX = sp.Matrix([sum(x.get(st, 0) for x in visits) / max(counts[st], 1) for st in range(3)])
    GX = sp.diag(*[rho[st] * counts[st] / sp.Integer(mm) for st in range(3)])
    grad = sp.Matrix([sp.diff(J, t) for t in th])
    normal = 2 * (Phi.T * GX * Phi + lam_ / (2 * mm) * sp.eye(2)) * th - 2 * Phi.T * GX * FX
    used = [d.identity("(10)–(11) ∇J^λ_X(θ) = 2(ΦᵀΓ_XΦ + (λ/2m)I)θ − 2ΦᵀΓ_XF_X, Γ_X = "
                       "diag(ρ_s|X_s|/m) (checked with generic symbolic Φ ∈ ℝ^{3×2}, ρ, "
                       "returns, θ; m = 2 trajectories visiting {0,1} and {1,2})",
                       _frobenius_zero(grad - normal), 0)]
    t1, t2, ph, rr, dl = sp.symbols("theta theta' phi rho_s Delta_s", real=True)
    Fx, Fy = sp.symbols("F_x F_x'", nonnegative=True)

    def ell(ret, visits, theta):  # one state's contribution to ℓ(x, θ)
        return visits * rr * (ret - ph * theta)**2

    cases = []
    for ix, iy in itertools.product((0, 1), repeat=2):
        fx, fy = Fx * ix, Fy * iy  # F_x,s = 0 when x does not visit s
        lhs = ell(fx, ix, t2) - ell(fx, ix, t1) + ell(fy, iy, t1) - ell(fy, iy, t2)
        paper = (ix - iy) * rr * ((ph * t2)**2 - (ph * t1)**2) - 2 * rr * (fx - fy) * ph * (t2 - t1)
        cases.append(sp.expand(lhs - paper)**2)
    used.append(d.identity(
        "(41) per state s, for each of the 4 cases (s ∈ x?, s ∈ x′?), with F = 0 off the "
        "visited states: ℓ(x,θ′) − ℓ(x,θ) + ℓ(x′,θ) − ℓ(x′,θ′) = ρΔ_s((φθ′)² − (φθ)²) − "
        "2ρ(F_x − F_x′)φ(θ′ − θ), Δ_s = 𝟙[s ∈ x] − 𝟙[s ∈ x′] (scalar φ, θ; the vector form is "
        "the same computation coordinatewise)", sum(cases, sp.Integer(0)), 0))
    used.append(d.identity(
        "… = 2(θφΔ_s − (F_x − F_x′))ρφ(θ′ − θ) + (θ′ − θ)φΔ_sρφ(θ′ − θ) (θ′ + θ = 2θ + "
        "(θ′ − θ)), the form Cauchy–Schwarz is applied to",
        dl * rr * ((ph * t2)**2 - (ph * t1)**2) - 2 * rr * (Fx - Fy) * ph * (t2 - t1),
        2 * (t1 * ph * dl - (Fx - Fy)) * rr * ph * (t2 - t1)
        + (t2 - t1) * ph * dl * rr * ph * (t2 - t1)))
    used.append(d.given("strong convexity: J^λ_X is (λ/m)-strongly convex (Hessian "
                        "2ΦᵀΓ_XΦ + (λ/m)I ⪰ (λ/m)I), and ∇J^λ_X(θ_X) = ∇J^λ_X′(θ_X′) = 0, so "
                        "(λ/m)‖θ_X − θ_X′‖² ≤ J^λ_X(θ_X′) − J^λ_X(θ_X) + J^λ_X′(θ_X) − "
                        "J^λ_X′(θ_X′)", "Balle et al. 2016, proof of Lemma 19"))
    uu, V, K = sp.symbols("u V K", nonnegative=True)
    z, gg = sp.Symbol("z", positive=True), sp.Symbol("g", positive=True)
    used.append(d.sign("solving λu² ≤ 2Vu + Ku² (u = ‖θ_X − θ_X′‖, V the numerator norm, K = "
                       "‖ΦᵀΔΓ_ρΦ‖ < λ): every u = 2V/(λ − K) + z with z > 0 has λu² − 2Vu − Ku² "
                       "> 0, so u ≤ 2V/(λ − K) (λ = K + g, g > 0)",
                       sp.factor((lam * uu**2 - 2 * V * uu - K * uu**2).subs(
                           uu, 2 * V / (lam - K) + z).subs(lam, K + gg)), ">"))
    d.facts["lemma7"] = d.deduce(
        "Lemma 7: if λ > ‖ΦᵀΔ_{x,x′}Γ_ρΦ‖ then ‖θ_X − θ_X′‖/2 ≤ ‖(Δ_{x,x′}Φθ_X − F_x + "
        "F_x′)ᵀΓ_ρΦ‖/(λ − ‖ΦᵀΔ_{x,x′}Γ_ρΦ‖)", used,
        "strong convexity + (41) + Cauchy–Schwarz, then solve the quadratic inequality")
    xx, a = sp.Symbol("x", nonnegative=True), sp.Symbol("a", positive=True)
    cor8 = [
        d.given("‖Δ_{x,x′}‖ ≤ 1, ‖Γ_ρ‖ = ‖ρ‖∞ and submultiplicativity, so "
                "‖ΦᵀΔΓ_ρΦ‖ ≤ ‖Φ‖²‖ρ‖∞ and ‖(ΔΦθ − F_x + F_x′)ᵀΓ_ρΦ‖ ≤ (‖θ‖‖Φ‖‖ρ‖∞ + "
                "‖Γ_ρ(F_x − F_x′)‖)‖Φ‖", "standard operator-norm facts (proof of Corollary 20)"),
        _return_gap(d, "|F_x,s − F_x′,s| ≤ F_max entrywise, so ‖Γ_ρ(F_x − F_x′)‖₂ ≤ "
                    "F_max‖ρ‖₂"),
        d.decompose("(43) x/(x² + a) ≤ 1/(2√a) for x ≥ 0, a > 0: 1/(2√a) − x/(x² + a) = "
                    "(x − √a)²/(2√a(x² + a))", 1 / (2 * sp.sqrt(a)) - xx / (xx**2 + a),
                    [(xx - sp.sqrt(a))**2 / (2 * sp.sqrt(a) * (xx**2 + a))]),
        d.identity("… with a = λ/(2m): ‖(ΦᵀΓ_XΦ + (λ/2m)I)⁻¹ΦᵀΓ_X^{1/2}‖ ≤ 1/(2√(λ/2m)) = "
                   "√(m/(2λ)) (SVD of Γ_X^{1/2}Φ)", 1 / (2 * sp.sqrt(lam / (2 * m))),
                   sp.sqrt(m / (2 * lam))),
        d.identity("‖θ_X‖ ≤ √(m/2λ)·‖F_X‖_{2,Γ_X} ≤ √(m/2λ)·F_max√(Σρ_s|X_s|/m) = "
                   "F_max√(Σρ_s|X_s|)/√(2λ)",
                   sp.sqrt(m / (2 * lam)) * F * sp.sqrt(s["S"] / m),
                   F * sp.sqrt(s["S"]) / sp.sqrt(2 * lam))]
    theta_b = F * sp.sqrt(s["S"]) / sp.sqrt(2 * lam)
    c = Phin * rinf / sp.sqrt(2 * lam)
    bound = 2 * Phin * (theta_b * Phin * rinf + F * r2) / (lam - Phin**2 * rinf)
    cor8.append(d.identity(
        "Corollary 8: 2‖Φ‖(‖θ_X‖‖Φ‖‖ρ‖∞ + F_max‖ρ‖₂)/(λ − ‖Φ‖²‖ρ‖∞) = [2F_max‖Φ‖/(λ − "
        "‖Φ‖²‖ρ‖∞)]·(c_λ√(Σρ_s|X_s|) + ‖ρ‖₂), c_λ = ‖Φ‖‖ρ‖∞/√(2λ)",
        bound, 2 * F * Phin / (lam - Phin**2 * rinf) * (c * sp.sqrt(s["S"]) + r2)))
    d.facts["lsl_sensitivity"] = d.deduce(
        "Local sensitivity of θ^λ: for λ > ‖Φ‖²‖ρ‖∞ and every X′ ≃ X, ‖θ^λ_X − θ^λ_X′‖₂ ≤ "
        "2F_max‖Φ‖√φ^λ_X/(λ − ‖Φ‖²‖ρ‖∞), φ^λ_X = (c_λ√(Σ_s ρ_s|X_s|) + ‖ρ‖₂)²",
        [d.facts["lemma7"]] + cor8, "Lemma 7 with the norm bounds; the denominator only "
        "decreases when ‖ΦᵀΔΓ_ρΦ‖ is replaced by its bound ‖Φ‖²‖ρ‖∞ < λ")
    phi = s["phi"]
    d.entry("lsl_c", "c_lambda", c, "c_λ = ‖Φ‖‖ρ‖∞/√(2λ) (Algorithm 2)",
            sections=["lsl_sensitivity"])
    d.entry("lsl_sensitivity_bound", "Delta_theta",
            2 * F * Phin * sp.sqrt(phi) / (lam - Phin**2 * rinf),
            "bound on ‖θ^λ_X − θ^λ_X′‖₂ over all neighbours X′: 2F_max‖Φ‖√φ^λ_X/(λ − "
            "‖Φ‖²‖ρ‖∞) (Lemma 7, Corollary 8)", sections=["lsl_sensitivity"],
            relations=[sp.Gt(lam, Phin**2 * rinf)])


# -- Lemmas 4, 5, 9: smooth upper bounds ------------------------------------------------------

def _smooth_bounds(d, s):
    beta, k, v, m = s["beta"], s["k"], s["v"], s["m"]
    d.section("smooth_bounds")
    uu, u0, u1 = sp.symbols("u v_s v'_s", integer=True)
    lemma4 = [
        d.given("φ_k(v) = max_{v′ ∈ ℕ^S, ‖v − v′‖∞ ≤ k} φ(v′) and ψ(v) = sup_{k ≥ 0} "
                "e^{−kβ}φ_k(v) (eq. (16)); φ₀ = φ", "Lemma 4 (Nissim et al. 2007)"),
        d.orderings("ball inclusion, per coordinate: |u − v′_s| ≤ |u − v_s| + |v_s − v′_s|, so "
                    "‖v − v′‖∞ ≤ 1 puts B_k(v) inside B_{k+1}(v′) and φ_k(v) ≤ φ_{k+1}(v′)",
                    sp.Abs(uu - u0) + sp.Abs(u0 - u1) - sp.Abs(uu - u1), [uu, u0, u1]),
        d.identity("e^{−kβ}φ_k(v) ≤ e^{−kβ}φ_{k+1}(v′) = e^β·e^{−(k+1)β}φ_{k+1}(v′)",
                   sp.exp(-k * beta), sp.exp(beta) * sp.exp(-(k + 1) * beta))]
    d.facts["lemma4"] = d.deduce(
        "Lemma 4: ψ ≥ φ (the k = 0 term) and ψ(v) ≤ e^β ψ(v′) whenever ‖v − v′‖∞ ≤ 1 (and "
        "symmetrically), i.e. |ln ψ(v) − ln ψ(v′)| ≤ β: ψ is a β-smooth upper bound of φ",
        lemma4, "take the sup over k of the last inequality")
    a, b, one = sp.symbols("a b one", real=True)
    ypos = sp.Symbol("y", positive=True)
    lemma5 = [
        d.orderings("u ↦ max{u, 1} is nondecreasing: max{b, 1} ≥ max{a, 1} for a ≤ b",
                    sp.Max(b, one) - sp.Max(a, one), [a, b, one], constraints=[(a, b)]),
        d.sign("… and y ↦ 1/y² decreases for y ≥ 1 > 0: d/dy y⁻² = −2/y³ < 0, so u ↦ "
               "1/max{u, 1}² is nonincreasing", sp.diff(1 / ypos**2, ypos), "<"),
        d.identity("the smallest admissible count in [v_s − k, v_s + k] ∩ ℕ is max{v_s − k, 0} "
                   "and max{max{v_s − k, 0}, 1} = max{v_s − k, 1}",
                   sp.Max(sp.Max(v - k, 0), 1), sp.Max(v - k, 1)),
        d.given("the ℓ∞ ball is the product of the coordinate intervals and φ^w(v) = "
                "Σ_s w_s/max{v_s, 1}² is a sum of per-coordinate terms, so the max over the "
                "ball is the sum of per-coordinate maxima", "separability (proof of Lemma 18)")]
    j = sp.Symbol("j", nonnegative=True, integer=True)
    lemma5.append(d.identity("for k = v_s − 1 + j (k ≥ v_s − 1): max{v_s − k, 1} = "
                             "max{1 − j, 1} = 1, so φ^w_k(v) = Σ_s w_s for k ≥ ‖v‖∞ − 1",
                             sp.Max(v - (v - 1 + j), 1), 1))
    lemma5.append(d.sign("e^{−kβ} decreases in k, so for k ≥ K_X − 1 the terms e^{−kβ}Σw_s "
                         "decrease: sup_{k ≥ 0} = max_{0 ≤ k ≤ K_X} (O(K_X·N) evaluations)",
                         sp.diff(sp.exp(-k * beta), k), "<"))
    d.facts["lemma5"] = d.deduce(
        "Lemma 5: φ^w_k(v) = Σ_s w_s/max{v_s − k, 1}², constant Σ_s w_s for k ≥ ‖v‖∞ − 1; "
        "Algorithm 1's ψ^w_X = max_{0≤k≤K_X} e^{−kβ}φ^w_X(k) is the ψ of Lemma 4", lemma5,
        "per-coordinate maximum at the smallest count, summed; truncation of the sup")
    S, c, r2 = s["S"], s["c"], s["rho_2"]
    gS = (c * sp.sqrt(S) + r2)**2
    mpt = sp.Symbol("m_point", real=True)
    lemma9 = [
        d.orderings("u ↦ min{u, m} is nondecreasing: min{b, m} ≥ min{a, m} for a ≤ b (so is "
                    "ρ_s min{u, m}, ρ_s ≥ 0)", sp.Min(b, mpt) - sp.Min(a, mpt), [a, b, mpt],
                    constraints=[(a, b)]),
        d.sign("S ↦ (c_λ√S + ‖ρ‖₂)² is increasing on S > 0: derivative "
               "c_λ(c_λ√S + ‖ρ‖₂)/√S > 0 (and continuous at S = 0)",
               sp.diff(gS, S).subs(S, ypos), ">"),
        d.identity("for k = m − v_s + j (k ≥ m − v_s): min{v_s + k, m} = min{m + j, m} = m, "
                   "so φ^λ_k is constant for k ≥ m − min_s v_s ≤ m: sup_{k≥0} = max_{0≤k≤m}",
                   sp.Min(v + (m - v + j), m), m)]
    d.facts["lemma9"] = d.deduce(
        "Lemma 9 (read with min, as eq. (12)): φ^λ_k(v) = (c_λ√(Σ_s ρ_s min{v_s + k, m}) + "
        "‖ρ‖₂)², and Algorithm 2's ψ^λ_X = max_{0≤k≤m} e^{−kβ}φ^λ_X(k) is the ψ of Lemma 4",
        lemma9 + [lemma5[2]], "maximum at the largest counts v_s + k; truncation of the sup")


# -- exhaustive exact checks on small lattices ---------------------------------------------------

def _box(center, radius):
    """Integer points v′ ∈ ℕ^N with ‖v′ − center‖∞ ≤ radius."""
    return itertools.product(*[range(max(c - radius, 0), c + radius + 1) for c in center])


def _lattice(d):
    d.section("lattice")
    N, top, kmax = 3, 3, 4
    w = (Fraction(1), Fraction(2, 3), Fraction(5, 2))
    grid = list(itertools.product(range(top + 1), repeat=N))

    def phi_w(v):
        return sum(ws / max(vs, 1)**2 for ws, vs in zip(w, v))

    def phi_w_k(v, k):  # Lemma 5's closed form
        return sum(ws / max(vs - k, 1)**2 for ws, vs in zip(w, v))

    diff = sum((max(phi_w(u) for u in _box(v, k)) - phi_w_k(v, k))**2
               for v in grid for k in range(kmax + 1))
    d.identity(f"Lemma 5 closed form = the definition max_{{‖v−v′‖∞≤k}} φ^w(v′) on every "
               f"v ∈ {{0..{top}}}^{N}, k ∈ {{0..{kmax}}} (w = (1, 2/3, 5/2); exhaustive, exact "
               f"rationals): Σ (definition − closed form)² = 0",
               sp.Rational(diff.numerator, diff.denominator), 0)
    m, rho = 3, (Fraction(1), Fraction(1, 2), Fraction(1, 3))

    def S(v, k=0):
        return sum(r * min(vs + k, m) for r, vs in zip(rho, v))

    diff = sum((max(S(u) for u in _box(v, k)) - S(v, k))**2 for v in grid
               for k in range(kmax + 1))
    d.identity(f"Lemma 9 closed form = the definition for S(v) = Σ_s ρ_s min{{v_s, m}} (φ^λ is "
               f"increasing in S) on every v ∈ {{0..{top}}}^{N}, k ∈ {{0..{kmax}}} (m = {m}, "
               f"ρ = (1, 1/2, 1/3); exhaustive, exact): Σ (definition − closed form)² = 0",
               sp.Rational(diff.numerator, diff.denominator), 0)
    # β-smoothness of Algorithm 1's ψ with e^{−β} = q rational, so every comparison is exact
    top = 5
    grid = list(itertools.product(range(top + 1), repeat=N))
    for q in (Fraction(1, 2), Fraction(9, 10), Fraction(99, 100)):
        def psi(v, extra=0):
            return max(q**k * phi_w_k(v, k) for k in range(max(v) + 1 + extra))
        table = {v: psi(v) for v in grid}
        slack = min(table[u] - q * table[v] for v in grid for u in _box(v, 1)
                    if max(u) <= top)
        above = min(table[v] - phi_w(v) for v in grid)
        trunc = sum((psi(v, 10) - table[v])**2 for v in grid)
        d.sign(f"ψ^w of Algorithm 1 (max over 0 ≤ k ≤ K_X) with e^{{−β}} = {q} is β-smooth on "
               f"{{0..{top}}}^{N}: min over all ℓ∞-neighbours (v, v′) of ψ(v′) − e^{{−β}}ψ(v) "
               f"is {slack} ≥ 0 (exhaustive, exact)", sp.Rational(slack.numerator,
                                                                  slack.denominator), ">=")
        d.sign(f"… ψ^w ≥ φ^w there: min ψ − φ = {above}",
               sp.Rational(above.numerator, above.denominator), ">=")
        d.identity("… and extending the max to k ≤ K_X + 10 changes nothing",
                   sp.Rational(trunc.numerator, trunc.denominator), 0)
    # β-smoothness of Algorithm 2's ψ (algebraic numbers: sympy decides each comparison)
    N2, m2, c2 = 2, 3, sp.Rational(1, 3)
    rho2 = (sp.Integer(1), sp.Rational(1, 2))
    r2 = sp.sqrt(sum(r**2 for r in rho2))
    grid2 = list(itertools.product(range(m2 + 1), repeat=N2))
    for q in (sp.Rational(1, 2), sp.Rational(9, 10)):
        def psi_l(v, kmax=m2):
            return sp.Max(*[q**k * (c2 * sp.sqrt(sum(r * min(vs + k, m2)
                                                     for r, vs in zip(rho2, v))) + r2)**2
                            for k in range(kmax + 1)])
        table = {v: psi_l(v) for v in grid2}
        slacks = [table[u] - q * table[v] for v in grid2 for u in _box(v, 1) if max(u) <= m2]
        d.sign(f"ψ^λ of Algorithm 2 (max over 0 ≤ k ≤ m) with e^{{−β}} = {q}, m = {m2}, "
               f"ρ = (1, 1/2), c_λ = 1/3 is β-smooth on {{0..{m2}}}^{N2}: the minimum over all "
               f"{len(slacks)} ordered ℓ∞-neighbour pairs of ψ(v′) − e^{{−β}}ψ(v) is ≥ 0 "
               f"(exhaustive; exact algebraic numbers)", sp.Min(*slacks), ">=")
        d.identity("… and extending the max to k ≤ m + 5 changes nothing",
                   sum(((psi_l(v, m2 + 5) - table[v])**2 for v in grid2), sp.Integer(0)), 0)


# -- Theorems 6 and 10: the noise ------------------------------------------------------------

def _noise(d, s):
    alpha, F, P, psi, phi = s["alpha"], s["F"], s["P"], s["psi"], s["phi"]
    Phin, rinf, lam, c, S, r2 = s["Phi"], s["rho_inf"], s["lam"], s["c"], s["S"], s["rho_2"]
    w, v, k, m, rho = s["w"], s["v"], s["k"], s["m"], s["rho"]
    uu = sp.Symbol("u", nonnegative=True)
    psi2 = sp.Symbol("psi'", positive=True)
    sqrt_mono = [d.identity("√(φ + u) − √φ = u/(√(φ + u) + √φ) (ψ = φ + u, u ≥ 0)",
                            sp.sqrt(phi + uu) - sp.sqrt(phi),
                            uu / (sp.sqrt(phi + uu) + sp.sqrt(phi))),
                 d.sign("… ≥ 0", uu / (sp.sqrt(phi + uu) + sp.sqrt(phi)), ">=")]
    for name, const, sens, lemma, smooth, theorem in (
            ("noise_lsw", alpha * F * P, d.facts["lsw_sensitivity"], "Corollary 3",
             d.facts["lemma5"], "Theorem 6: DP-LSW (Algorithm 1) is (ε, δ)-DP"),
            ("noise_lsl", 2 * alpha * F * Phin / (lam - Phin**2 * rinf),
             d.facts["lsl_sensitivity"], "Corollary 8", d.facts["lemma9"],
             "Theorem 10: DP-LSL (Algorithm 2, λ > ‖Φ‖²‖ρ‖∞) is (ε, δ)-DP")):
        d.section(name)
        used = [sens, smooth, d.facts["lemma4"]] + sqrt_mono
        used.append(d.identity("condition (b): ln σ_X² − ln σ_X′² = ln ψ(⟨X⟩) − ln ψ(⟨X′⟩) for "
                               "σ = C√ψ (C does not depend on X)",
                               sp.log((const * sp.sqrt(psi))**2)
                               - sp.log((const * sp.sqrt(psi2))**2),
                               sp.log(psi) - sp.log(psi2)))
        cond = d.deduce(f"σ_X = C√ψ_X satisfies condition (a) (σ_X ≥ α·bound of {lemma} ≥ "
                        f"α‖θ_X − θ_X′‖, since ψ ≥ φ) and condition (b) (|ln ψ(v) − ln ψ(v′)| "
                        f"≤ β for ‖v − v′‖∞ ≤ 1, the signatures of neighbours)", used,
                        "Lemma 4 with the closed form of ψ; ‖⟨X⟩ − ⟨X′⟩‖∞ ≤ 1 because "
                        "replacing one trajectory changes each count |X_s| by at most one")
        d.deduce(f"{theorem} — with the main-text constants α, β this rests on Lemma 1 "
                 f"(given), which fails for large ε (lemma1_main_counterexample)",
                 [cond, d.facts["lemma1_main"]], "Lemma 1 applied to μ_X = θ_X")
        d.deduce(f"{theorem} with the appendix constants α′, β′ whenever ε ≤ 5 and β′ ≤ ln 2 "
                 f"(proved: Lemma 14)", [cond, d.facts["lemma14"]],
                 "Lemma 14 applied to μ_X = θ_X with ψ built from β′")
    d.entry("lsw_phi_term", "phi_term", w / sp.Max(v - k, 1)**2,
            "one state's term of φ^w_k(v) = Σ_s w_s/max{v_s − k, 1}² (eq. (9), Lemma 5)",
            sections=["smooth_bounds", "lattice", "noise_lsw"])
    d.entry("lsl_count_term", "S_term", rho * sp.Min(v + k, m),
            "one state's term of S_k(v) = Σ_s ρ_s min{v_s + k, m} (eq. (12), Lemma 9)",
            sections=["smooth_bounds", "lattice", "noise_lsl"])
    d.entry("lsl_phi", "phi", (c * sp.sqrt(S) + r2)**2,
            "φ^λ_k = (c_λ√S_k + ‖ρ‖₂)² (eq. (12), Lemma 9)",
            sections=["smooth_bounds", "lattice", "noise_lsl"])
    d.entry("lsw_sigma", "sigma", alpha * F * P * sp.sqrt(psi),
            "σ_X = α·F_max·‖(Γ^{1/2}Φ)^†‖·√ψ^w_X (Algorithm 1, line 4; F_max = R_max/(1 − γ) "
            "unless a public F_max is given)",
            sections=["lsw_sensitivity", "smooth_bounds", "lattice", "noise_lsw"])
    d.entry("lsl_sigma", "sigma", 2 * alpha * F * Phin * sp.sqrt(psi) / (lam - Phin**2 * rinf),
            "σ_X = 2α·F_max·‖Φ‖·√ψ^λ_X/(λ − ‖Φ‖²‖ρ‖∞) (Algorithm 2, line 4)",
            sections=["lsl_sensitivity", "smooth_bounds", "lattice", "noise_lsl"],
            relations=[sp.Gt(lam, Phin**2 * rinf)])


def _theorem6_counterexample(d):
    d.section("theorem6_counterexample")
    e0, d0, one = sp.Integer(300), sp.Rational(1, 10), sp.Integer(1)
    a0, _ = _alpha_beta_main(e0, d0, one)
    d.given("instance: one state (N = d = 1, Φ = [1], w = [1]), public F_max = 1, m = 1; X = [x] "
            "with x's return ≥ 1 (clipped to F_max = 1), X′ = [x′] with return 0: θ_X = 1, "
            "θ_X′ = 0, |X_s| = |X′_s| = 1, so ψ_X = ψ_X′ = max{1, e^{−β}} = 1 and σ_X = σ_X′ = α",
            "Algorithm 1 evaluated on this pair (also computed by dpaudit's dp-lsw)")
    mu = 1 / a0  # in units of σ = α the shift θ_X − θ_X′ = 1 is μ = 1/α ≈ 24.5
    tau = sp.Rational(49, 2)  # event S = {z/α ≥ τ}
    u, tp, g = sp.Symbol("u", real=True), sp.Symbol("tau", positive=True), sp.Symbol(
        "g", positive=True)
    phi_n = lambda z: sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    mills = d.deduce("Mills' bound Φ(−τ) = ∫_τ^∞ φ ≤ ∫_τ^∞ (u/τ)φ(u) du = φ(τ)/τ for τ > 0", [
        d.sign("u/τ − 1 ≥ 0 for u = τ + g ≥ τ", (tp + g) / tp - 1, ">="),
        d.integral("∫_τ^∞ u φ(u) du = φ(τ)", u * phi_n(u), (u, tp, sp.oo), phi_n(tp))],
        "monotonicity of the integral")
    gap = Phi_cdf(mu - tau) - sp.exp(e0 - tau**2 / 2) / (tau * sp.sqrt(2 * sp.pi)) - d0
    step = d.interval("at ε = 300, δ = 1/10 the event S = {z/α ≥ 49/2} has P_{N(1,α²)}(S) − "
                      "e^{300} P_{N(0,α²)}(S) − 1/10 ≥ Φ(1/α − 49/2) − e^{300}φ(49/2)/(49/2) − "
                      "1/10 > 0 (Mills; α = 5√(2 ln 20)/300, shift 1/α ≈ 24.5 standard "
                      "deviations)", gap, {}, ">")
    step = d.deduce("… so P_X(S) − e^{300}P_X′(S) > 1/10", [mills, step], "Mills' bound on "
                    "P_X′(S) = Φ(−49/2)")
    d.deduce("Theorem 6 (DP-LSW is (ε, δ)-DP), stated for every ε > 0, is FALSE: the pair "
             "above is not (300, 1/10)-DP (exact ε(1/10) ≈ 331); the Gaussian shift alone "
             "breaks α = 5√(2 ln(2/δ))/ε once ε ≳ 250 at δ = 1/10", [step],
             "a pair of neighbouring datasets violates the conclusion")


# -- utility analysis (Appendix D/E): three false lemmas ----------------------------------------

def _utility(d):
    d.section("utility")
    x = sp.Symbol("x", nonnegative=True)
    a, b = sp.symbols("a b", positive=True)
    step = d.interval("Lemma 23 claims max_{0≤x≤a−1} e^{−bx}/(a − x)² = 1/a² when b < 2/a; at "
                      "a = 10, b = 1/10 (< 1/5) the admissible x = a − 1 = 9 gives "
                      "e^{−9/10} − 1/100 > 0", sp.exp(-sp.Rational(9, 10)) - sp.Rational(1, 100),
                      {}, ">")
    d.deduce("Lemma 23 (supplement Lemma 10) is FALSE: it takes the stationary point of "
             "e^{−bx}/(a − x)² for a maximum, but it is a minimum", [step],
             "counterexample")
    d.sign("correct form: ln(e^{−bx}/(a − x)²) has second derivative 2/(a − x)² > 0 (convex), "
           "so the maximum over [0, a − 1] is max{1/a², e^{−b(a−1)}} (the endpoints)",
           sp.diff(-b * x - 2 * sp.log(a - x), x, 2).subs(x, a - 1 - sp.Symbol("y", positive=True)),
           ">")
    beta = 1 / (40 * (1 + sp.log(20)))  # β(ε = δ = 1/10, d = 1)
    mm = 100
    bound = 6 * (sp.Rational(1, mm**2) + beta**2 * (1 - beta / 2)**mm)
    d.identity("at the paper's ε = δ = 1/10 and d = 1, β = ε/(4(d + ln(2/δ))) = 1/(40(1 + ln 20)) "
               "(≤ 1/2, as Theorem 11 assumes)",
               sp.Rational(1, 10) / (4 * (1 + sp.log(20))), beta)
    step = d.interval(
        "Theorem 11 (= Corollary 27): for a chain whose trajectories all visit every state "
        "(p_s = 1, e.g. the §6 chain started in its first state), m = 100: |X_s| = m, so by Lemma 22 the "
        "excess risk equals C²ψ^w_X ≥ C²Σw_s·e^{−(m−1)β} (the k = m − 1 term), while Theorem 11 "
        "bounds it by C²·6Σw_s(1/m² + β²(1 − β/2)^m); e^{−99β} − 6(1/m² + β²(1 − β/2)^100) > 0",
        sp.exp(-(mm - 1) * beta) - bound, {}, ">")
    lemma22 = d.given("Lemma 22: E_{X,η}[J^w_X(θ̂^w_X) − J^w_X(θ^w_X)] = ‖Γ^{1/2}Φ‖_F² E_X[σ_X²] "
                      "(E_η[ηᵀΦᵀΓΦη] = σ² tr ΦᵀΓΦ), and σ_X² = (C/‖Γ^{1/2}Φ‖_F)²ψ^w_X",
                      "Balle et al. 2016, Lemma 22 and Algorithm 1")
    d.deduce("Theorem 11 / Corollary 27 (supplement Corollary 14) is FALSE at the paper's own "
             "ε = δ = 0.1 for m = 100 (true excess risk ≥ 0.54·C²Σw, bound ≈ 7.7e-4·C²Σw); the "
             "error comes from Lemma 23. Corollary 12's O(1/m²) still holds asymptotically "
             "(e^{−mβ} decays faster), but only once m ≳ (2/β) ln m", [step, lemma22],
             "counterexample")
    step = d.interval("Lemma 30 claims max_{0≤x≤m−a} e^{−2bx}(a + x) = a when b < a/2; at a = 1, "
                      "b = 2/5 (< 1/2), m = 2 the admissible x = 1/4 gives e^{−1/5}·5/4 − 1 > 0",
                      sp.exp(-sp.Rational(1, 5)) * sp.Rational(5, 4) - 1, {}, ">")
    d.deduce("Lemma 30 (supplement Lemma 17) is FALSE: the case conditions should read "
             "b ≥ 1/(2a) (maximum a at x = 0) and b ≤ 1/(2m) (maximum at x = m − a), so eq. (58) "
             "and the bound of Theorem 32 do not follow as written", [step], "counterexample")
