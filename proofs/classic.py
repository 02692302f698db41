"""Derivation: the classic mechanisms and the two known-bad Laplace variants.

Laplace (Dwork, McSherry, Nissim & Smith 2006), Gaussian — classical (Dwork & Roth 2014,
Thm A.1), analytic (Balle & Wang 2018, Thm 8), Rényi (Mironov 2017, Prop. 7) and zCDP
(Bun & Steinke 2016, Prop. 1.6) — k-ary randomized response, the two-sided geometric
mechanism (Ghosh, Roughgarden & Sundararajan 2009), the exponential mechanism (McSherry &
Talwar 2007); and the true ε of ``laplace-scale-epsilon`` (scale ε instead of Δ/ε) and of
``double-spending`` (two Lap(Δ/ε) releases charged as one).

Each calibration is *derived*: the privacy loss of the noise at scale b (σ, α, β, p) is
bounded symbolically, the bound is shown to be attained, and the equation "loss = ε" is solved
for the noise parameter.  ``derive()`` records every step; ``dpaudit prove classic`` writes
``proofs/certificates/classic.json``, the only source of these formulas for
:mod:`dpaudit.mechanisms.classic` and :mod:`dpaudit.mechanisms.known_bad`.
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp
from sympy.calculus.util import maximum

from dpaudit.proofs.framework import Derivation, laplace_log_ratio_lemma

FAMILY = "classic"


def Phi(x):
    """Standard normal CDF, written as the mechanisms evaluate it (erfc keeps the tail)."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


def phi(x):
    return sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)


def derive() -> Derivation:
    d = Derivation(FAMILY, Path(__file__), "Classic mechanisms: Laplace, Gaussian, randomized "
                   "response, geometric, exponential; known-bad Laplace variants",
                   references=("Dwork, McSherry, Nissim & Smith, TCC 2006",
                               "Dwork & Roth, The Algorithmic Foundations of DP, 2014 (Thm 3.6, "
                               "Thm A.1)",
                               "Balle & Wang, ICML 2018 (analytic Gaussian, Thm 8)",
                               "Mironov, CSF 2017 (RDP of the Gaussian)",
                               "Bun & Steinke, TCC 2016 (zCDP, Prop. 1.6)",
                               "Kairouz, Oh & Viswanath, 2016 (k-RR)",
                               "Ghosh, Roughgarden & Sundararajan, STOC 2009",
                               "McSherry & Talwar, FOCS 2007"))
    s = {
        "eps": d.symbol("epsilon", "privacy parameter ε of the claim", positive=True),
        "delta": d.symbol("delta", "δ of an (ε, δ) claim, 0 < δ < 1", positive=True),
        "Delta": d.symbol("Delta", "sensitivity Δ of the released query", positive=True),
        "sigma": d.symbol("sigma", "Gaussian noise standard deviation σ", positive=True),
        "b": d.symbol("b", "Laplace noise scale b", positive=True),
        "k": d.symbol("k", "number of values of randomized response, k ≥ 2", positive=True,
                      integer=True),
        "alpha": d.symbol("alpha", "Rényi order α > 1", positive=True),
    }
    _sensitivity(d, s)
    _laplace(d, s)
    _gaussian_analytic(d, s)
    _gaussian_classical(d, s)
    _gaussian_renyi(d, s)
    _randomized_response(d, s)
    _geometric(d, s)
    _exponential(d, s)
    _known_bad(d, s)
    return d


# -- sensitivity of the bounded sum -----------------------------------------------------------

def _sensitivity(d, s):
    Delta = s["Delta"]
    d.section("bounded_sum_sensitivity")
    x = sp.Symbol("x", nonnegative=True)
    total = sp.Symbol("S", real=True)
    used = [d.identity("q(D ∪ {x}) − q(D) = x for q(D) = Σ D (add/remove one record x)",
                       (total + x) - total, x),
            d.identity("sup over x ∈ [0, Δ] of |x| is Δ (sympy.calculus.util.maximum)",
                       maximum(sp.Abs(x), x, sp.Interval(0, Delta)), Delta)]
    d.facts["sensitivity"] = (d.deduce(
        "under add/remove-one neighbours with records in [0, Δ] (integer or real), "
        "|q(D) − q(D′)| ≤ Δ, with equality when the record Δ is added", used,
        "the maximum Δ is itself an admissible record (also for integer records)"))
    d.entry("bounded_sum_sensitivity", "Delta_q", Delta,
            "ℓ1 sensitivity of a sum of records in [0, Δ] under add/remove one record",
            sections=["bounded_sum_sensitivity"],
            notes=["neighbours: add/remove one record; records lie in [0, Δ]"])


# -- Laplace ----------------------------------------------------------------------------------

def _laplace(d, s):
    eps, Delta, b = s["eps"], s["Delta"], s["b"]
    d.section("laplace_lemma")
    d.facts["laplace"] = laplace_log_ratio_lemma(d, b, Delta)
    d.section("laplace_scale")
    d.deduce("Lap(b) noise on a Δ-sensitive query is (Δ/b)-DP, and no smaller pure ε holds",
             [d.facts["laplace"], d.facts["sensitivity"]],
             "a pointwise density ratio ≤ e^{Δ/b} integrates to P(S) ≤ e^{Δ/b} P′(S) for every "
             "event S; attained on {y ≤ min(q, q′)}, which has positive probability")
    d.solve("the scale that makes the loss Δ/b equal ε: b = Δ/ε", sp.Eq(Delta / b, eps), b,
            Delta / eps)
    d.entry("laplace_epsilon", "epsilon_true", Delta / b,
            "pure ε of Lap(b) noise on a Δ-sensitive query: Δ/b (tight)",
            sections=["bounded_sum_sensitivity", "laplace_lemma", "laplace_scale"])
    d.entry("laplace_scale", "b", Delta / eps,
            "Laplace scale b = Δ/ε (Dwork, McSherry, Nissim & Smith 2006)",
            sections=["bounded_sum_sensitivity", "laplace_lemma", "laplace_scale"])


# -- Gaussian: exact δ(ε) (Balle & Wang) ------------------------------------------------------

def _gaussian_delta_formula(eps, Delta, sigma):
    return (Phi(Delta / (2 * sigma) - eps * sigma / Delta)
            - sp.exp(eps) * Phi(-Delta / (2 * sigma) - eps * sigma / Delta))


def _gaussian_analytic(d, s):
    eps, Delta, sigma = s["eps"], s["Delta"], s["sigma"]
    y, x, u = sp.symbols("y x u", real=True)
    sh = sp.Symbol("s", positive=True)  # the pair's shift, 0 < s ≤ Δ
    d.section("gaussian_loss")
    p0 = sp.exp(-y**2 / (2 * sigma**2)) / (sigma * sp.sqrt(2 * sp.pi))
    p1 = sp.exp(-(y - sh)**2 / (2 * sigma**2)) / (sigma * sp.sqrt(2 * sp.pi))
    loss = (sh**2 - 2 * sh * y) / (2 * sigma**2)
    d.facts["loss"] = d.identity("privacy loss of N(0, σ²) vs N(s, σ²): L(y) = ln p₀(y)/p₁(y) = "
                           "(s² − 2sy)/(2σ²)", sp.log(p0) - sp.log(p1), loss)
    decreasing = d.sign("L is strictly decreasing in y: dL/dy = −s/σ² < 0", sp.diff(loss, y),
                        "<")
    ystar = sh / 2 - eps * sigma**2 / sh
    d.solve("L(y) = ε at y* = s/2 − εσ²/s, so {L > ε} = {y < y*}", sp.Eq(loss, eps), y, ystar)
    d.facts["threshold"] = d.steps[-1]
    cdf = d.integral("Φ(x) = ∫_{−∞}^x φ(u) du = erfc(−x/√2)/2", phi(u), (u, -sp.oo, x), Phi(x))
    a = sh / (2 * sigma) - eps * sigma / sh
    bb = -sh / (2 * sigma) - eps * sigma / sh
    used = [decreasing, d.facts["threshold"], cdf,
            d.identity("P₀[y < y*] = Φ(y*/σ) = Φ(a), a = s/(2σ) − εσ/s", ystar / sigma, a),
            d.identity("P₁[y < y*] = Φ((y* − s)/σ) = Φ(b), b = −s/(2σ) − εσ/s",
                       (ystar - sh) / sigma, bb)]
    d.facts["hockey"] = d.deduce("δ_s(ε) = sup_S P₀(S) − e^ε P₁(S) = Φ(a) − e^ε Φ(b)", used,
                           "Neyman–Pearson: the supremum is attained at S = {p₀ > e^ε p₁} = "
                           "{L > ε}")
    d.identity("e^ε φ(b) = φ(a) (the key identity: (a² − b²)/2 = −ε)",
               eps - bb**2 / 2 + a**2 / 2, 0)
    delta_s = Phi(a) - sp.exp(eps) * Phi(bb)
    d.facts["shift"] = d.identity("∂δ_s/∂s = φ(a)/σ > 0: the largest shift s = Δ is the worst pair",
                            sp.diff(delta_s, sh), phi(a) / sigma)
    delta_D = delta_s.subs(sh, Delta)
    aD = a.subs(sh, Delta)
    d.identity("∂δ/∂σ = −φ(a)Δ/σ² < 0 at s = Δ: δ(σ) decreases strictly in σ, so the "
               "analytic σ (smallest σ with δ(σ) ≤ δ) is found by bisection",
               sp.diff(delta_D, sigma), -phi(aD) * Delta / sigma**2)
    d.sign("… and −φ(a)Δ/σ² < 0", -phi(aD) * Delta / sigma**2, "<")
    d.facts["swap"] = d.identity("the swapped pair is the same: p₁(s − y) = p₀(y) (reflection "
                           "y ↦ s − y)", p1.subs(y, sh - y), p0)
    d.identity("at s = Δ the exact δ(ε) is Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)",
               delta_D, _gaussian_delta_formula(eps, Delta, sigma))
    d.entry("gaussian_analytic_delta", "delta_sigma", _gaussian_delta_formula(eps, Delta, sigma),
            "exact δ of N(0,σ²) vs N(Δ,σ²) at ε; analytic σ is the smallest σ with this ≤ δ "
            "(Balle & Wang 2018, Thm 8 and Alg. 1)",
            sections=["bounded_sum_sensitivity", "gaussian_loss"])


# -- Gaussian: classical calibration (Dwork & Roth Thm A.1, repaired chain) -------------------

def _gaussian_classical(d, s):
    eps, delta, Delta = s["eps"], s["delta"], s["Delta"]
    c = sp.Symbol("c", positive=True)
    u, g = sp.Symbol("u", real=True), sp.Symbol("g", positive=True)
    t = c - eps / (2 * c)
    sigma_c = Delta * sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta)) / eps
    d.section("gaussian_classical")
    steps = [d.identity("with σ = cΔ/ε the threshold y*/σ at s = Δ is −t, t = c − ε/(2c)",
                        (Delta / 2 - eps * (c * Delta / eps)**2 / Delta) / (c * Delta / eps), -t)]
    steps.append(d.deduce("P₀[L > ε] = Φ(−t) = P[Z > t], Z ~ N(0, 1)",
                          [d.facts["threshold"], steps[0]], "symmetry of Φ"))
    tp = sp.Symbol("t", positive=True)
    mills = d.deduce("Mills' bound: P[Z > t] = ∫_t^∞ φ ≤ ∫_t^∞ (u/t) φ(u) du = φ(t)/t for "
                     "t > 0", [
                         d.sign("for u ≥ t > 0: u/t − 1 ≥ 0", (tp + g) / tp - 1, ">=",
                                detail="u = t + g with g > 0"),
                         d.integral("∫_t^∞ u φ(u) du = φ(t)", u * phi(u), (u, tp, sp.oo),
                                    phi(tp))],
                     "monotonicity of the integral")
    steps.append(mills)
    delta_of_c = sp.Rational(5, 4) * sp.exp(-c**2 / 2)
    steps.append(d.identity("c = √(2 ln(5/(4δ))) ⇔ δ = (5/4)e^{−c²/2}",
                            delta_of_c.subs(c, sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta))),
                            delta))
    G = sp.log(delta_of_c / 2) - sp.log(phi(t) / t)
    G_expanded = (sp.log(sp.Rational(5, 8)) - c**2 / 2 + t**2 / 2 + sp.log(sp.sqrt(2 * sp.pi))
                  + sp.log(t))
    steps.append(d.identity("G := ln(δ/2) − ln(φ(t)/t) = ln(5/8) − c²/2 + t²/2 + ln√(2π) + "
                            "ln t; G ≥ 0 ⇔ φ(t)/t ≤ δ/2", G, G_expanded))
    steps.append(d.decompose("t² ≥ c² − 1 for ε ≤ 1: t² − c² + 1 = (1 − ε) + ε²/(4c²)",
                             t**2 - c**2 + 1, [1 - eps, eps**2 / (4 * c**2)],
                             substitute={eps: 1 - sp.Symbol("v", nonnegative=True)},
                             detail="ε = 1 − v, v ≥ 0, covers every ε ≤ 1"))
    d.counterexample("Dwork & Roth's intermediate bound −ε + ε²/(4c²) ≥ −8/9 (for ε ≤ 1, "
                     "c ≥ 3/2), as we read their chain, is false for c > 3/2; this chain "
                     "uses the weaker −ε + ε²/(4c²) ≥ −1 instead",
                     -eps + eps**2 / (4 * c**2) + sp.Rational(8, 9),
                     {eps: sp.Integer(1), c: sp.Integer(3)}, ">=")
    H = sp.log(sp.Rational(5, 8)) - sp.Rational(1, 2) + sp.log(sp.sqrt(2 * sp.pi)) + sp.log(t)
    steps.append(d.identity("G − H = (t² − c² + 1)/2 with H(t) = ln(5/8) − 1/2 + ln√(2π) + "
                            "ln t, so G ≥ H", G_expanded - H, (t**2 - c**2 + 1) / 2))
    steps.append(d.sign("δ = (5/4)e^{−c²/2} decreases in c", sp.diff(delta_of_c, c), "<"))
    c0 = sp.sqrt(2 * sp.log(sp.Rational(25, 8)))
    d.solve("δ = 2/5 at c₀ = √(2 ln(25/8)); so δ ≤ 2/5 ⇔ c ≥ c₀",
            sp.Eq(delta_of_c, sp.Rational(2, 5)), c, c0)
    steps.append(d.steps[-1])
    h = c - 1 / (2 * c)
    tmin = h.subs(c, c0)
    steps += [
        d.sign("h(c) = c − 1/(2c) increases in c: h′ = 1 + 1/(2c²) > 0", sp.diff(h, c), ">"),
        d.vertices("t − h(c) = (1 − ε)/(2c) ≥ 0 for ε ∈ [0, 1]", t - h,
                   {eps: (sp.Integer(0), sp.Integer(1))}),
        d.interval("h(c₀) > 0", tmin, {}),
        d.interval("H(h(c₀)) = ln(5/8) − 1/2 + ln√(2π) + ln h(c₀) > 0",
                   sp.log(sp.Rational(5, 8)) - sp.Rational(1, 2) + sp.log(sp.sqrt(2 * sp.pi))
                   + sp.log(tmin), {}),
        d.sign("H increases in t: dH/dt = 1/t > 0 for t > 0", sp.diff(sp.log(tp), tp), ">"),
    ]
    chain = d.deduce("for 0 < ε ≤ 1 and 0 < δ ≤ 2/5: t ≥ h(c) ≥ h(c₀) > 0 and "
                     "G ≥ H(t) ≥ H(h(c₀)) > 0, so P[L > ε] ≤ φ(t)/t ≤ δ/2", steps,
                     "chain of the steps above (monotonicity in c, ε and t)")
    d.deduce("Gaussian mechanism with σ = Δ√(2 ln(1.25/δ))/ε is (ε, δ)-DP for 0 < ε ≤ 1, "
             "0 < δ ≤ 2/5", [chain, d.facts["swap"], d.facts["shift"]],
             "P(S) ≤ P(S ∩ {L ≤ ε}) + P[L > ε] ≤ e^ε P′(S) + δ; the swapped pair is the same "
             "(reflection) and smaller shifts are easier (∂δ_s/∂s > 0)")
    d.section("gaussian_classical_large_delta")
    exact = _gaussian_delta_formula(eps, Delta, s["sigma"]).subs(s["sigma"], sigma_c)
    box = d.interval("for ε ∈ [0, 1] and δ ∈ [2/5, 1] the exact δ(ε) of the Gaussian pair at "
                     "the classical σ is below δ", delta - exact,
                     {eps: (sp.Integer(0), sp.Integer(1)),
                      delta: (sp.Rational(2, 5), sp.Integer(1))}, ">")
    d.deduce("so the classical σ is (ε, δ)-DP also for 2/5 ≤ δ < 1 (ε ≤ 1)",
             [box, d.facts["hockey"], d.facts["shift"], d.facts["swap"]],
             "the exact δ(ε) of the worst pair (Balle & Wang) is at most δ")
    d.entry("gaussian_sigma_classical", "sigma", sigma_c,
            "σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1; valid for ε ≤ 1, proved here "
            "for 0 < δ < 1)",
            sections=["bounded_sum_sensitivity", "gaussian_loss", "gaussian_classical",
                      "gaussian_classical_large_delta"],
            relations=[sp.Le(eps, 1), sp.Lt(delta, 1)],
            notes=["the Dwork–Roth chain is checked with a corrected constant step for "
                   "δ ≤ 2/5; 2/5 ≤ δ < 1 by interval arithmetic on the exact δ(ε)"])


# -- Gaussian: Rényi divergence and zCDP ------------------------------------------------------

def _gaussian_renyi(d, s):
    alpha, Delta, sigma = s["alpha"], s["Delta"], s["sigma"]
    y = sp.Symbol("y", real=True)
    mu0, mu1, m = sp.symbols("mu_0 mu_1 m", real=True)
    sh = sp.Symbol("s", nonnegative=True)
    d.section("gaussian_renyi")
    expo = (-alpha * (y - mu0)**2 - (1 - alpha) * (y - mu1)**2) / (2 * sigma**2)
    mid = alpha * mu0 + (1 - alpha) * mu1
    d.identity("α ln p₀ + (1−α) ln p₁ (exponent part) = −(y − m)²/(2σ²) + α(α−1)(μ₀−μ₁)²/(2σ²), "
               "m = αμ₀ + (1−α)μ₁ (completing the square)",
               expo, -(y - mid)**2 / (2 * sigma**2)
               + alpha * (alpha - 1) * (mu0 - mu1)**2 / (2 * sigma**2))
    d.integral("∫ exp(−(y − m)²/(2σ²)) dy = σ√(2π)", sp.exp(-(y - m)**2 / (2 * sigma**2)),
               (y, -sp.oo, sp.oo), sigma * sp.sqrt(2 * sp.pi))
    renyi = sp.log(sp.exp(alpha * (alpha - 1) * (mu0 - mu1)**2 / (2 * sigma**2))) / (alpha - 1)
    d.identity("D_α(N(μ₀,σ²)‖N(μ₁,σ²)) = ln(∫p₀^α p₁^{1−α})/(α − 1) = α(μ₀ − μ₁)²/(2σ²)",
               renyi, alpha * (mu0 - mu1)**2 / (2 * sigma**2))
    d.sign("α s²/(2σ²) increases in the shift s ≥ 0 (derivative αs/σ² ≥ 0), so the worst pair "
           "has |μ₀ − μ₁| = Δ", sp.diff(alpha * sh**2 / (2 * sigma**2), sh), ">=")
    rdp = alpha * Delta**2 / (2 * sigma**2)
    d.identity("ε(α)/α = Δ²/(2σ²) for every α: the curve is ρα with ρ = Δ²/(2σ²) (zCDP)",
               rdp / alpha, Delta**2 / (2 * sigma**2))
    d.entry("gaussian_rdp", "epsilon_alpha", rdp,
            "Rényi DP curve of the Gaussian mechanism: ε(α) = αΔ²/(2σ²) (Mironov 2017)",
            sections=["bounded_sum_sensitivity", "gaussian_renyi"],
            relations=[sp.Gt(alpha, 1)])
    d.entry("gaussian_rho", "rho", Delta**2 / (2 * sigma**2),
            "ρ = Δ²/(2σ²) (Bun & Steinke 2016, Prop. 1.6)",
            sections=["bounded_sum_sensitivity", "gaussian_renyi"])


# -- randomized response ----------------------------------------------------------------------

def _randomized_response(d, s):
    eps, k = s["eps"], s["k"]
    p, q = sp.symbols("p q", positive=True)
    d.section("randomized_response")
    p_true = sp.exp(eps) / (sp.exp(eps) + k - 1)
    p_other = 1 / (sp.exp(eps) + k - 1)
    d.solve("p/q = e^ε and p + (k − 1)q = 1 give p = e^ε/(e^ε + k − 1), q = 1/(e^ε + k − 1)",
            [sp.Eq(p, sp.exp(eps) * q), sp.Eq(p + (k - 1) * q, 1)], [p, q], [p_true, p_other])
    used = [d.steps[-1], d.sign("p > 0 and q > 0 (k ≥ 2)", p_other, ">",
                                      substitute={k: 2 + sp.Symbol("j", nonnegative=True,
                                                                   integer=True)}),
            d.identity("ln(p/q) = ε", sp.log(p_true / p_other), eps),
            d.sign("ln(p/q) = ε > 0, so q < p", eps, ">")]
    d.deduce("for inputs v ≠ v′ the probability ratio of any output is p/q, q/p or 1, so the "
             "largest |log-ratio| is ε: k-RR is ε-DP, tight", used,
             "case split on the output (equal to v, to v′, or neither)")
    d.identity("p_other = (1 − p_true)/(k − 1)", p_other, (1 - p_true) / (k - 1))
    kw = dict(sections=["randomized_response"], relations=[sp.Ge(k, 2)],
              notes=["local DP: neighbours replace the single record"])
    d.entry("rr_p_true", "p_true", p_true, "P[report the true value] (k-ary RR)", **kw)
    d.entry("rr_p_other", "p_other", p_other,
            "P[report one given other value] = (1 − p_true)/(k − 1)", **kw)


# -- two-sided geometric ----------------------------------------------------------------------

def _geometric(d, s):
    eps, Delta = s["eps"], s["Delta"]
    a = sp.Symbol("alpha_g", positive=True)
    lam = sp.Symbol("lambda", positive=True)
    z = sp.Symbol("z", integer=True)
    y, q, q1 = sp.symbols("y q q'", real=True)
    d.section("geometric")
    const = (1 - a) / (1 + a)
    d.summation("Σ_{z ≥ 1} α^z = α/(1 − α) for 0 < α < 1", a**z, (z, 1, sp.oo), a / (1 - a),
                assume=sp.Q.lt(a, 1))
    d.identity("the pmf (1−α)/(1+α)·α^{|z|} sums to 1 over ℤ", const * (1 + 2 * a / (1 - a)), 1)
    pmf = lambda loc: const.subs(a, sp.exp(-lam)) * sp.exp(-lam * sp.Abs(y - loc))  # noqa
    ratio = lam * (sp.Abs(y - q1) - sp.Abs(y - q))
    used = [
        d.identity("with α = e^{−λ}: ln P(y − q) − ln P(y − q′) = λ(|y − q′| − |y − q|)",
                   sp.log(pmf(q)) - sp.log(pmf(q1)), ratio),
        d.orderings("λ(|y − q′| − |y − q|) ≤ λ|q − q′|", lam * sp.Abs(q - q1) - ratio,
                    [y, q, q1]),
        d.orderings("λ(|y − q| − |y − q′|) ≤ λ|q − q′|", lam * sp.Abs(q - q1) + ratio,
                    [y, q, q1]),
        d.orderings("attained for y ≤ q ≤ q′", ratio - lam * sp.Abs(q1 - q), [y, q, q1], "==",
                    constraints=[(y, q), (q, q1)]),
        d.facts["sensitivity"]]
    d.deduce("the geometric mechanism on a Δ-sensitive integer query is (λΔ)-DP, tightly",
             used,
             "pointwise pmf ratio bound, attained at y ≤ min(q, q′)")
    d.solve("λΔ = ε gives λ = ε/Δ", sp.Eq(lam * Delta, eps), lam, eps / Delta)
    alpha = sp.exp(-eps / Delta)
    d.sign("α = e^{−ε/Δ} < 1 since −ε/Δ < 0 (and α > 0)", -eps / Delta, "<")
    d.entry("geometric_alpha", "alpha", alpha,
            "ratio α = e^{−ε/Δ} of the two-sided geometric law",
            sections=["bounded_sum_sensitivity", "geometric"],
            notes=["integer records in {0, …, Δ}, Δ a positive integer"])


# -- exponential mechanism --------------------------------------------------------------------

def _exponential(d, s):
    eps, Delta = s["eps"], s["Delta"]
    beta = sp.Symbol("beta", positive=True)
    ui, uj, vi, vj, w = sp.symbols("u_i u_j u'_i u'_j w", real=True)
    Z, Z1 = sp.symbols("Z Z'", positive=True)
    d.section("exponential")
    split = d.identity("ln P_u(i) − ln P_u′(i) = β(uᵢ − u′ᵢ) + ln Z′ − ln Z, Z = Σⱼ e^{βuⱼ}",
                       sp.log(sp.exp(beta * ui) / Z) - sp.log(sp.exp(beta * vi) / Z1),
                       beta * (ui - vi) + sp.log(Z1) - sp.log(Z))
    own = d.vertices("β(uᵢ − u′ᵢ) ≤ βΔ for u′ᵢ ∈ [uᵢ − Δ, uᵢ + Δ]",
                     beta * Delta - beta * (ui - vi), {vi: (ui - Delta, ui + Delta)})
    norm = d.deduce("Z′ = Σⱼ e^{βu′ⱼ} ≤ e^{βΔ} Σⱼ e^{βuⱼ} = e^{βΔ} Z, so ln Z′ − ln Z ≤ βΔ", [
        d.vertices("βu′ⱼ ≤ β(uⱼ + Δ) for u′ⱼ ∈ [uⱼ − Δ, uⱼ + Δ]",
                   beta * (uj + Delta) - beta * vj, {vj: (uj - Delta, uj + Delta)}),
        d.sign("exp is increasing: d/dw e^w = e^w > 0", sp.diff(sp.exp(w), w), ">")],
        "termwise bounds summed; ln increasing")
    d.deduce("|ln P_u(i)/P_u′(i)| ≤ 2βΔ for ‖u − u′‖∞ ≤ Δ (the same with u, u′ swapped)",
             [split, own, norm], "sum of the two bounds")
    d.solve("2βΔ = ε gives β = ε/(2Δ)", sp.Eq(2 * beta * Delta, eps), beta, eps / (2 * Delta))
    d.entry("exponential_beta", "beta", eps / (2 * Delta),
            "selection temperature β = ε/(2Δ) (McSherry & Talwar 2007)",
            sections=["exponential"],
            notes=["neighbours: utility vectors of equal length with ‖u − u′‖∞ ≤ Δ"])


# -- known-bad Laplace variants ---------------------------------------------------------------

def _known_bad(d, s):
    eps, Delta, b = s["eps"], s["Delta"], s["b"]
    d.section("laplace_scale_epsilon")
    d.given("the bug: the Laplace scale is b = ε instead of Δ/ε, the claim stays ε-DP",
            "StatDP histogram_eps (Ding et al., CCS 2018); DP-Sniper NoisyHist2")
    true_eps = (Delta / b).subs(b, eps)
    d.identity("true ε = Δ/b at b = ε is Δ/ε", true_eps, Delta / eps)
    d.identity("true ε − claimed ε = (Δ − ε²)/ε: the claim is violated iff ε² < Δ",
               true_eps - eps, (Delta - eps**2) / eps)
    secs = ["bounded_sum_sensitivity", "laplace_lemma", "laplace_scale", "laplace_scale_epsilon"]
    d.entry("laplace_scale_epsilon_scale", "b", eps,
            "BUG: Laplace scale b = ε instead of Δ/ε (StatDP histogram_eps, DP-Sniper "
            "NoisyHist2)", sections=secs)
    d.entry("laplace_scale_epsilon_true_epsilon", "epsilon_true", true_eps,
            "pure ε of Lap(b) noise on a Δ-sensitive query, Δ/b, at the buggy b = ε",
            sections=secs)
    d.section("double_spending")
    y1, y2, q, q1 = sp.symbols("y_1 y_2 q q'", real=True)
    dens = lambda yy, loc: sp.exp(-sp.Abs(yy - loc) / b) / (2 * b)  # noqa: E731
    split = d.identity("the log-ratio of two independent releases is the sum of the two "
                       "log-ratios",
                       sp.log(dens(y1, q) * dens(y2, q)) - sp.log(dens(y1, q1) * dens(y2, q1)),
                       (sp.log(dens(y1, q)) - sp.log(dens(y1, q1)))
                       + (sp.log(dens(y2, q)) - sp.log(dens(y2, q1))))
    d.deduce("so it is at most 2Δ/b, attained when y₁, y₂ ≤ min(q, q′): true ε = 2Δ/b",
             [split, d.facts["laplace"]], "each term bounded and attained on the same "
             "positive-probability event")
    d.identity("at b = Δ/ε the true ε is 2ε", (2 * Delta / b).subs(b, Delta / eps), 2 * eps)
    d.entry("double_spending_true_epsilon", "epsilon_true", 2 * eps,
            "pure ε of two Lap(Δ/ε) releases of a Δ-sensitive query: 2Δ/b = 2ε",
            sections=["bounded_sum_sensitivity", "laplace_lemma", "laplace_scale",
                      "double_spending"])
