"""Derivation: report noisy max (index) and the two published max-value bugs.

A dataset is the vector q ∈ ℝᵐ of m query answers; neighbours (StatDP's ALL_DIFFER) have
‖q − q′‖∞ ≤ Δ.  Report noisy max adds i.i.d. noise of scale b to every answer and releases the
index of the largest noisy answer (Dwork & Roth 2014, §3.3, Claim 3.9, whose argument is
rerun here with every answer allowed to move, hence 2Δ/b).  Releasing the noisy *value*
instead is the classic bug (Ding et al., CCS 2018, StatDP ``noisy_max_v1b``/``v2b``): with
Laplace noise its true ε is mΔ/b = mε/2, with exponential noise it is ∞.

``dpaudit prove noisy_max`` writes ``proofs/certificates/noisy_max.json``, the only source of
the formulas in :mod:`dpaudit.mechanisms.noisy_max.mechanisms`.
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from dpaudit.proofs.framework import Derivation, laplace_log_ratio_lemma

FAMILY = "noisy_max"


def derive() -> Derivation:
    d = Derivation(FAMILY, Path(__file__), "Report noisy max (Laplace and exponential noise) and "
                   "its max-value bugs", references=(
                       "Dwork & Roth 2014, §3.3, Claim 3.9",
                       "Ding, Wang, Wang, Zhang & Kifer, CCS 2018 (StatDP noisy_max_v1a/v1b/v2a/"
                       "v2b)",
                       "Bichsel et al., IEEE S&P 2021 (DP-Sniper ReportNoisyMax1-4)"))
    eps = d.symbol("epsilon", "privacy parameter ε of the claim", positive=True)
    Delta = d.symbol("Delta", "sensitivity Δ of each query answer (‖q − q′‖∞ ≤ Δ)",
                     positive=True)
    b = d.symbol("b", "noise scale b (Laplace scale, or exponential mean)", positive=True)
    m = d.symbol("m", "number of queries m", positive=True, integer=True)
    _noise_lemmas(d, b, Delta)
    _argmax(d, eps, Delta, b)
    _laplace_value(d, eps, Delta, b, m)
    _exponential_value(d, Delta, b, m)
    return d


def _exp_density(z, b):
    return sp.Piecewise((sp.exp(-z / b) / b, z >= 0), (0, True))


def _noise_lemmas(d, b, Delta):
    x, o, u, v = sp.symbols("x o u v", real=True)
    d.section("laplace_lemma")
    d.facts["laplace"] = laplace_log_ratio_lemma(d, b, 2 * Delta)
    d.section("survival")
    lap = sp.exp(-sp.Abs(x) / b) / (2 * b)
    d.facts["laplace_survival"] = d.deduce(
        "Laplace survival S(x) = P[Z > x]: S(x + t) ≥ e^{−t/b} S(x) for 0 ≤ t ≤ 2Δ",
        [d.facts["laplace"]], "the pointwise bound f(w + t) ≥ e^{−t/b} f(w) (the lemma with "
        "locations w, w + t) integrated over w > x (monotonicity of the integral)")
    d.facts["laplace_monotone"] = d.sign("S is nonincreasing: S′(x) = −f(x) < 0", -lap, "<")
    d.facts["exp_pointwise"] = d.orderings(
        "exponential noise, density f(w) = e^{−w/b}/b on w ≥ 0: f(w + t) e^{t/b} ≥ f(w) for "
        "t ≥ 0 (points: origin o, w = u, w + t = v ≥ u)",
        _exp_density(v - o, b) * sp.exp((v - u) / b) - _exp_density(u - o, b), [o, u, v],
        constraints=[(u, v)])
    d.facts["exp_survival"] = d.deduce(
        "exponential survival: S(x + t) ≥ e^{−t/b} S(x) for t ≥ 0, and S is nonincreasing",
        [d.facts["exp_pointwise"]], "integrate the pointwise bound over w > x; S′ = −f ≤ 0")


def _argmax(d, eps, Delta, b):
    qi, qj, vi, vj, rj = sp.symbols("q_i q_j q'_i q'_j r_j", real=True)
    d.section("argmax")
    chain = d.vertices(
        "r* + 2Δ − r*′ ≥ (qⱼ + rⱼ − qᵢ) + 2Δ − (q′ⱼ + rⱼ − q′ᵢ) ≥ 0, where "
        "r* = maxⱼ≠ᵢ(qⱼ + rⱼ) − qᵢ is the smallest noise rᵢ that makes i win on q, r*′ the same "
        "on q′, j the maximiser for q′", (qj + rj - qi) + 2 * Delta - (vj + rj - vi),
        {vi: (qi - Delta, qi + Delta), vj: (qj - Delta, qj + Delta)})
    used = [chain, d.facts["laplace_survival"], d.facts["laplace_monotone"],
            d.facts["exp_survival"]]
    d.facts["argmax"] = d.deduce(
        "given the other noises r₋ᵢ: P_q′(i | r₋ᵢ) = S(r*′) ≥ S(r* + 2Δ) ≥ e^{−2Δ/b} S(r*) = "
        "e^{−2Δ/b} P_q(i | r₋ᵢ), for Laplace and for exponential noise; integrating over r₋ᵢ "
        "and swapping q, q′: report noisy max is (2Δ/b)-DP", used,
        "S nonincreasing, survival shift bound, ties have probability 0")
    d.solve("2Δ/b = ε gives b = 2Δ/ε", sp.Eq(2 * Delta / b, eps), b, 2 * Delta / eps)
    secs = ["laplace_lemma", "survival", "argmax"]
    notes = ["neighbours: ALL_DIFFER, every answer may move, ‖q − q′‖∞ ≤ Δ",
             "output: the index of the largest noisy answer"]
    d.entry("claimed_loss", "epsilon_claimed", 2 * Delta / b,
            "privacy loss of report noisy max at noise scale b: 2Δ/b", sections=secs,
            notes=notes)
    d.entry("noise_scale", "b", 2 * Delta / eps,
            "noise scale of report noisy max, ALL_DIFFER neighbours: b = 2Δ/ε", sections=secs,
            notes=notes)


def _laplace_value(d, eps, Delta, b, m):
    t, q, w = sp.symbols("t q w", real=True)
    d.section("laplace_value")
    dens = lambda loc: sp.exp((t - loc) / b) / (2 * b)  # noqa: E731  (t ≤ loc)
    cdf = lambda loc: sp.exp((t - loc) / b) / 2  # noqa: E731
    uu = sp.Symbol("u", real=True)
    steps = [
        d.integral("below its location the Laplace CDF is F(t) = e^{(t − q)/b}/2 (t ≤ q)",
                   sp.exp((uu - q) / b) / (2 * b), (uu, -sp.oo, t), cdf(q)),
        d.identity("for t ≤ min q the density factor ratio f(t; q)/f(t; q + Δ) is e^{Δ/b}",
                   sp.log(dens(q)) - sp.log(dens(q + Delta)), Delta / b),
        d.identity("… and so is the CDF factor ratio F(t; q)/F(t; q + Δ)",
                   sp.log(cdf(q)) - sp.log(cdf(q + Delta)), Delta / b),
        d.identity("a product of m factors e^{Δ/b} is e^{mΔ/b}",
                   sp.log(sp.exp(Delta / b)**m), m * Delta / b),
    ]
    lower = d.deduce(
        "the density of the max, g(t) = Σᵢ fᵢ(t) Πⱼ≠ᵢ Fⱼ(t), has ratio exactly e^{mΔ/b} between "
        "q and q + Δ·1 for every t < min q (an event of positive probability): true ε ≥ mΔ/b",
        steps, "every term of the sum has the same ratio")
    upper = d.deduce(
        "each factor fᵢ, Fⱼ moves by at most e^{Δ/b} when its location moves by ≤ Δ, so each "
        "term, and the sum, moves by at most e^{mΔ/b}: true ε ≤ mΔ/b",
        [d.facts["laplace"], d.facts["laplace_survival"], d.facts["laplace_monotone"]],
        "F(t; q) = S(q − t) by symmetry; a ratio of sums is at most the largest termwise ratio")
    d.identity("at the calibrated b = 2Δ/ε the true ε is mε/2",
               (m * Delta / b).subs(b, 2 * Delta / eps), m * eps / 2)
    d.deduce("true ε = mΔ/b exceeds the claimed 2Δ/b for m > 2 (m = 2 is not a violation)",
             [lower, upper], "compare mΔ/b with 2Δ/b")
    d.entry("value_bug_loss", "epsilon_true", m * Delta / b,
            "privacy loss of releasing the max noisy value, Laplace noise: mΔ/b",
            sections=["laplace_lemma", "survival", "laplace_value"],
            notes=["StatDP noisy_max_v1b, DP-Sniper ReportNoisyMax3, CheckDP badnoisymax"])
    d.entry("value_bug_true_epsilon", "epsilon_true", m * eps / 2,
            "true ε of the Laplace max-value bug at b = 2Δ/ε: mε/2",
            sections=["laplace_lemma", "survival", "laplace_value"])


def _exponential_value(d, Delta, b, m):
    uu = sp.Symbol("u", real=True)
    d.section("exponential_value")
    mass = d.integral("P[E < Δ] = ∫₀^Δ e^{−u/b}/b du = 1 − e^{−Δ/b} for exponential noise E",
                      sp.exp(-uu / b) / b, (uu, 0, Delta), 1 - sp.exp(-Delta / b))
    pos = d.sign("1 − e^{−Δ/b} > 0 because −Δ/b < 0 and exp is increasing", -Delta / b, "<")
    d.deduce("on q = 0 vs q′ = Δ·1 the event {max < Δ} has probability (1 − e^{−Δ/b})^m > 0 "
             "under q and 0 under q′ (every output is ≥ max q′ = Δ): the true ε is ∞",
             [mass, pos], "independence of the m noises; E ≥ 0 almost surely")
    d.entry("exponential_value_bug_true_epsilon", "epsilon_true", sp.oo,
            "true ε of releasing the max noisy value with exponential noise: ∞ (the support "
            "moves with max q)", sections=["exponential_value"],
            notes=["StatDP noisy_max_v2b, DP-Sniper ReportNoisyMax4"])
