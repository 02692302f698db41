"""Derivation: the sparse vector technique (Lyu, Su & Li, PVLDB 2017) and its buggy variants.

Common structure: threshold T, threshold noise ρ ~ Lap(b_ρ), query noise νᵢ ~ Lap(b_ν); query
i is ⊤ iff qᵢ + νᵢ ≥ T + ρ; with a cutoff c the run stops after the c-th ⊤.  Neighbours:
‖q − q′‖∞ ≤ Δ (ALL_DIFFER).

Alg. 1 (the correct one) is proved here: shifting ρ by Δ costs Δ/b_ρ, makes every ⊥ at least
as likely on q′, and each of the ≤ c ⊤ answers costs at most 2Δ/b_ν — the loss
ε = Δ/b_ρ + 2cΔ/b_ν (Lyu et al., Thm 2), solved for the scales with ε₁ = ε/2, ε₂ = ε − ε₁.
Alg. 4 has exactly Alg. 1's structure with other scales, so the same bound gives its true ε
(1 + 6c)ε/4.  For Algs. 3, 5, 6 the derivation records the losses their published proofs
claim, checks that their calibrations meet those claims, and proves Alg. 5's ε = ∞ (a
pattern possible on one dataset and impossible on its neighbour).

``dpaudit prove sparse_vector`` writes ``proofs/certificates/sparse_vector.json``, the only
source of the formulas in :mod:`dpaudit.mechanisms.sparse_vector.mechanisms`.
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from dpaudit.proofs.framework import Derivation, laplace_log_ratio_lemma

FAMILY = "sparse_vector"


def derive() -> Derivation:
    d = Derivation(FAMILY, Path(__file__), "Sparse vector technique: Lyu, Su & Li Alg. 1 and "
                   "the buggy Algs. 3-6", references=(
                       "Lyu, Su & Li, Understanding the Sparse Vector Technique for DP, PVLDB "
                       "10(6), 2017 (Fig. 1, Thm 2, §4)",
                       "DP-Auditorium SVT1-SVT6; DP-Sniper sparse_vector_technique.py"))
    S = {
        "eps": d.symbol("epsilon", "privacy parameter ε of the claim", positive=True),
        "Delta": d.symbol("Delta", "sensitivity Δ of each query answer", positive=True),
        "c": d.symbol("c", "cutoff: the run stops after the c-th ⊤", positive=True,
                      integer=True),
        "b_rho": d.symbol("b_rho", "threshold noise scale b_ρ", positive=True),
        "b_nu": d.symbol("b_nu", "query noise scale b_ν", positive=True),
    }
    _alg1_proof(d, S)
    _alg1(d, S)
    _alg3(d, S)
    _alg4(d, S)
    _alg5(d, S)
    _alg6(d, S)
    return d


def _alg1_proof(d, S):
    Delta, c, b_rho, b_nu = S["Delta"], S["c"], S["b_rho"], S["b_nu"]
    T, z, qi, vi, nu = sp.symbols("T z q_i q'_i nu", real=True)
    k = sp.Symbol("k", nonnegative=True)
    d.section("threshold_lemma")
    d.facts["rho"] = laplace_log_ratio_lemma(d, b_rho, Delta, name="b_ρ")
    d.section("query_lemma")
    d.facts["nu"] = laplace_log_ratio_lemma(d, b_nu, 2 * Delta, name="b_ν")
    d.facts["nu_survival"] = d.deduce(
        "query-noise survival S_ν(x + t) ≥ e^{−t/b_ν} S_ν(x) for 0 ≤ t ≤ 2Δ; S_ν nonincreasing",
        [d.facts["nu"]], "the pointwise density bound integrated over (x, ∞); S′ = −f ≤ 0")
    d.section("svt_loss")
    bottom = d.identity(
        "⊥ answers: (T + z + Δ) − (q′ᵢ + ν) = (T + z − qᵢ − ν) + (qᵢ + Δ − q′ᵢ); the first term "
        "is > 0 on {⊥ for q at ρ = z} and the second ≥ 0, so ⊥ on q at z implies ⊥ on q′ at "
        "z + Δ", (T + z + Delta) - (vi + nu), (T + z - qi - nu) + (qi + Delta - vi))
    box = {vi: (qi - Delta, qi + Delta)}
    top = [d.vertices("⊤ answers: the noise threshold moves by t = Δ + qᵢ − q′ᵢ ≥ 0 …",
                      Delta + qi - vi, box),
           d.vertices("… and t ≤ 2Δ", 2 * Delta - (Delta + qi - vi), box),
           d.facts["nu_survival"]]
    top_step = d.deduce("so P(q′ᵢ + ν ≥ T + z + Δ) ≥ e^{−2Δ/b_ν} P(qᵢ + ν ≥ T + z)", top,
                        "S_ν(x + t) ≥ S_ν(x + 2Δ) ≥ e^{−2Δ/b_ν} S_ν(x)")
    loss = Delta / b_rho + 2 * c * Delta / b_nu
    combine = d.identity("the factors multiply to e^{Δ/b_ρ}·(e^{2Δ/b_ν})^c = "
                         "e^{Δ/b_ρ + 2cΔ/b_ν}",
                         sp.log(sp.exp(Delta / b_rho) * sp.exp(2 * Delta / b_nu)**c), loss)
    fewer = d.vertices("with k ≤ c ⊤ answers the loss Δ/b_ρ + 2kΔ/b_ν is at most the one "
                       "with c", loss - (Delta / b_rho + 2 * k * Delta / b_nu), {k: (0, c)})
    d.facts["alg1"] = d.deduce(
        "for every output pattern a: P_q(a) = ∫ f_ρ(z) Π_⊥ P(⊥ | z) Π_⊤ P(⊤ | z) dz ≤ "
        "e^{Δ/b_ρ + 2cΔ/b_ν} P_q′(a) (substitute z ↦ z + Δ under the integral); unanswered "
        "positions carry no factor: SVT (Alg. 1 structure) is (Δ/b_ρ + 2cΔ/b_ν)-DP",
        [d.facts["rho"], bottom, top_step, combine, fewer],
        "Lyu et al. 2017, proof of Thm 2; the bound on the swapped pair is the same")


def _scales(d, S, eps1, query_loss_per_top, label):
    """Solve Δ/b_ρ = ε₁ and (query part) = ε − ε₁ for the two scales."""
    eps, Delta, b_rho, b_nu = S["eps"], S["Delta"], S["b_rho"], S["b_nu"]
    rho = sp.solve(sp.Eq(Delta / b_rho, eps1), b_rho)[0]
    d.solve(f"{label}: Δ/b_ρ = ε₁ = {sp.sstr(eps1)} gives b_ρ = {sp.sstr(rho)}",
            sp.Eq(Delta / b_rho, eps1), b_rho, rho)
    if query_loss_per_top is None:
        return rho, None
    nu = sp.solve(sp.Eq(query_loss_per_top, eps - eps1), b_nu)[0]
    d.solve(f"{label}: {sp.sstr(query_loss_per_top)} = ε₂ = ε − ε₁ gives b_ν = {sp.sstr(nu)}",
            sp.Eq(query_loss_per_top, eps - eps1), b_nu, nu)
    return rho, nu


def _alg1(d, S):
    eps, Delta, c, b_rho, b_nu = S["eps"], S["Delta"], S["c"], S["b_rho"], S["b_nu"]
    d.section("alg1")
    loss = Delta / b_rho + 2 * c * Delta / b_nu
    rho, nu = _scales(d, S, eps / 2, 2 * c * Delta / b_nu, "Alg. 1")
    d.identity("Alg. 1's loss at its scales is ε", loss.subs({b_rho: rho, b_nu: nu}), eps)
    secs = ["threshold_lemma", "query_lemma", "svt_loss", "alg1"]
    d.entry("alg1_b_rho", "b_rho", rho, "Alg. 1 threshold noise Δ/ε₁, ε₁ = ε/2", sections=secs)
    d.entry("alg1_b_nu", "b_nu", nu, "Alg. 1 query noise 2cΔ/ε₂, ε₂ = ε − ε₁", sections=secs)
    d.entry("alg1_loss", "epsilon_claimed", loss,
            "Lyu et al. Thm 2: ε₁ (threshold) + ε₂ (c ⊤ answers, 2Δ/b_ν each)", sections=secs)


def _alg3(d, S):
    eps, Delta, c, b_rho, b_nu = S["eps"], S["Delta"], S["c"], S["b_rho"], S["b_nu"]
    d.section("alg3")
    d.given("Alg. 3 (Roth's notes) releases qᵢ + νᵢ on ⊤ and claims ε₁ + ε₂ with cΔ/b_ν for "
            "the c noisy answers", "Lyu et al. 2017, Fig. 1 Alg. 3: not ε′-DP for any finite "
            "ε′ (not derived here: the mechanism's true ε = ∞ is the literature's)")
    claimed = Delta / b_rho + c * Delta / b_nu
    rho, nu = _scales(d, S, eps / 2, c * Delta / b_nu, "Alg. 3")
    d.identity("Alg. 3's claimed loss at its scales is ε", claimed.subs({b_rho: rho, b_nu: nu}),
               eps)
    d.entry("alg3_b_rho", "b_rho", rho, "Alg. 3 threshold noise Δ/ε₁, ε₁ = ε/2",
            sections=["alg3"])
    d.entry("alg3_b_nu", "b_nu", nu, "Alg. 3 query noise cΔ/ε₂, ε₂ = ε − ε₁", sections=["alg3"])
    d.entry("alg3_loss", "epsilon_claimed", claimed,
            "claimed: ε₁ + ε₂ with cΔ/b_ν for c noisy answers", sections=["alg3"])


def _alg4(d, S):
    eps, Delta, c, b_rho, b_nu = S["eps"], S["Delta"], S["c"], S["b_rho"], S["b_nu"]
    d.section("alg4")
    d.given("Alg. 4 (Lee & Clifton) splits ε₁ = ε/4, ε₂ = ε − ε₁, b_ν = Δ/ε₂ (no factor c) and "
            "claims ε₁ + ε₂", "Lyu et al. 2017, Fig. 1 Alg. 4")
    claimed = Delta / b_rho + Delta / b_nu
    true = Delta / b_rho + 2 * c * Delta / b_nu
    rho, nu = _scales(d, S, eps / 4, Delta / b_nu, "Alg. 4")
    d.identity("Alg. 4's claimed loss at its scales is ε", claimed.subs({b_rho: rho, b_nu: nu}),
               eps)
    d.deduce("Alg. 4 has Alg. 1's structure (⊤/⊥, cutoff c), so its true ε is at most "
             "Δ/b_ρ + 2cΔ/b_ν; Lyu et al. (§4) show this is attained",
             [d.facts["alg1"]], "the Alg. 1 bound holds for any scales")
    d.identity("at Alg. 4's scales Δ/b_ρ + 2cΔ/b_ν = (1 + 6c)ε/4",
               true.subs({b_rho: rho, b_nu: nu}), (1 + 6 * c) * eps / 4)
    j = sp.Symbol("j", nonnegative=True, integer=True)
    d.sign("(1 + 6c)ε/4 − ε = (6c − 3)ε/4 > 0 for every c ≥ 1: the claim is violated",
           (1 + 6 * c) * eps / 4 - eps, ">", substitute={c: 1 + j})
    secs = ["threshold_lemma", "query_lemma", "svt_loss", "alg4"]
    d.entry("alg4_b_rho", "b_rho", rho, "Alg. 4 threshold noise Δ/ε₁, ε₁ = ε/4", sections=secs)
    d.entry("alg4_b_nu", "b_nu", nu, "Alg. 4 query noise Δ/ε₂, ε₂ = ε − ε₁ (no factor c)",
            sections=secs)
    d.entry("alg4_loss", "epsilon_claimed", claimed,
            "claimed: ε₁ + ε₂ (misses the factor 2c on the query part)", sections=secs)
    d.entry("alg4_true_epsilon", "epsilon_true", true,
            "Lyu et al. §4: ε₁ + 2cε₂ = (1 + 6c)ε/4", sections=secs)
    d.entry("alg4_true_epsilon_calibrated", "epsilon_true", (1 + 6 * c) * eps / 4,
            "true ε of Alg. 4 at its scales: (1 + 6c)ε/4", sections=secs)


def _alg5(d, S):
    eps, Delta, b_rho = S["eps"], S["Delta"], S["b_rho"]
    z = sp.Symbol("z", real=True)
    d.section("alg5")
    d.given("Alg. 5 (Stoddard et al.) has no query noise and no cutoff; ε₁ = ε/2 and it claims "
            "ε₁ + ε₂ with ε₂ = ε₁", "Lyu et al. 2017, Fig. 1 Alg. 5")
    claimed = 2 * Delta / b_rho
    rho, _ = _scales(d, S, eps / 2, None, "Alg. 5")
    d.identity("Alg. 5's claimed loss at its scale is ε", claimed.subs(b_rho, rho), eps)
    half = Delta / 2
    # pattern ⊥^k ⊤^(m−k) with T = 0: ⊥ at answer a iff a < ρ, ⊤ at answer a iff a ≥ ρ
    w = sp.Symbol("w", nonnegative=True)
    steps = [
        d.sign("on d₀ = (Δ/2)^k (−Δ/2)^{m−k} the pattern ⊥^k⊤^{m−k} needs ρ > Δ/2 and "
               "ρ ≤ −Δ/2; but every ρ ≤ −Δ/2 has ρ − Δ/2 < 0: the pattern is impossible",
               z - half, "<", substitute={z: -half - w}, detail="ρ = −Δ/2 − w, w ≥ 0"),
        d.integral("on d₁ = (−Δ/2)^k (Δ/2)^{m−k} it needs −Δ/2 < ρ ≤ Δ/2, which has "
                   "probability 1 − e^{−Δ/(2b_ρ)} for ρ ~ Lap(b_ρ) (twice the mass on (0, Δ/2])",
                   2 * sp.exp(-z / b_rho) / (2 * b_rho), (z, 0, half),
                   1 - sp.exp(-Delta / (2 * b_rho))),
        d.identity("= 1 − e^{−ε/4} at b_ρ = 2Δ/ε", (1 - sp.exp(-Delta / (2 * b_rho))).subs(
            b_rho, rho), 1 - sp.exp(-eps / 4)),
        d.sign("… which is > 0 (−ε/4 < 0, exp increasing)", -eps / 4, "<"),
    ]
    d.deduce("a pattern with positive probability on d₁ and probability 0 on its neighbour d₀ "
             "(‖d₀ − d₁‖∞ = Δ): Alg. 5's true ε is ∞", steps, "definition of pure ε")
    d.entry("alg5_b_rho", "b_rho", rho, "Alg. 5 threshold noise Δ/ε₁, ε₁ = ε/2",
            sections=["alg5"])
    d.entry("alg5_loss", "epsilon_claimed", claimed,
            "claimed: ε₁ + ε₂ with ε₂ = ε₁ budgeted for noise-free queries", sections=["alg5"])
    d.entry("alg5_true_epsilon", "epsilon_true", sp.oo,
            "true ε of Alg. 5: ∞ (a ⊤/⊥ pattern impossible on one neighbour)", sections=["alg5"])


def _alg6(d, S):
    eps, Delta, b_rho, b_nu = S["eps"], S["Delta"], S["b_rho"], S["b_nu"]
    d.section("alg6")
    d.given("Alg. 6 (Chen et al.) has no cutoff, ε₁ = ε/2, b_ν = Δ/ε₂, and claims ε₁ + ε₂",
            "Lyu et al. 2017, Fig. 1 Alg. 6: not ε′-DP for any finite ε′ over unbounded query "
            "streams (not derived here)")
    claimed = Delta / b_rho + Delta / b_nu
    rho, nu = _scales(d, S, eps / 2, Delta / b_nu, "Alg. 6")
    d.identity("Alg. 6's claimed loss at its scales is ε", claimed.subs({b_rho: rho, b_nu: nu}),
               eps)
    d.entry("alg6_b_rho", "b_rho", rho, "Alg. 6 threshold noise Δ/ε₁, ε₁ = ε/2",
            sections=["alg6"])
    d.entry("alg6_b_nu", "b_nu", nu, "Alg. 6 query noise Δ/ε₂, ε₂ = ε − ε₁", sections=["alg6"])
    d.entry("alg6_loss", "epsilon_claimed", claimed, "claimed: ε₁ + ε₂", sections=["alg6"])
