"""The posterior's privacy claim (Lemmas 4.2 and 4.3) and the certified SGLD formulas.

Every formula here is read from ``proofs/certificates/sgld.json`` (derived in
``proofs/sgld.py``); nothing is typed a second time.

The claim.  Lemma 4.2 bounds the Rényi divergence of order ν between the posteriors of any two
neighbouring datasets of 𝒟(n, γ₁, x_h, x_l, c) by ε₁(ν); Lemma 4.3 (Mironov 2017, Prop. 3)
turns it into (ε₁(ν) + ln(1/δ)/(ν − 1), δ)-DP.  :class:`Lemma43RDP` is that RDP curve on the
orders the lemma allows, and its ``epsilon(δ)`` is Lemma 4.3 minimised over those orders — the
paper's (ε, δ) claim, not the (slightly smaller) Canonne–Kamath–Steinke conversion of the same
curve, which :meth:`Lemma43RDP.cks_epsilon` reports for comparison.

Orders used: 2 ≤ ν < ν_max with ν_max = min{(n−1)x_l²β/(10x_h²), (n−1)x_l²/x_h²} (the
lemma's two conditions as printed) and also ν < (n−1)x_l²/(10x_h²) (the first condition with
the β of eq. 51 restored; the same when β ≤ 1).  ν ≥ 2 because eq. (14) prints the coefficient
of the log-variance term as ½(ν−1) where the divergence has 1/(2(ν−1)); the printed bound is
an upper bound only for ν ≥ 2 (both facts are checked in the derivation).  When no order is
left (n too small) there is no claim and :func:`posterior_claim` raises ``ValueError``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp

from dpaudit.claims import RDP, SymbolicFormula
from dpaudit.claims.certificates import load_formula
from dpaudit.claims.notions import ALPHA

POSTERIOR_MEAN = load_formula("sgld", "posterior_mean")          # βS_xy/(α + βS_xx)
POSTERIOR_VARIANCE = load_formula("sgld", "posterior_variance")  # 1/(α + βS_xx)
LEMMA_4_2 = load_formula("sgld", "lemma_4_2_epsilon")            # ε₁(ν)
LEMMA_4_3 = load_formula("sgld", "lemma_4_3_epsilon")            # ε₁ + ln(1/δ)/(ν − 1)
NU_MAX_PRINTED = load_formula("sgld", "nu_max_printed")
NU_MAX_CORRECTED = load_formula("sgld", "nu_max_corrected")
STEP_SIZE_PAPER = load_formula("sgld", "sgld_step_size_paper")   # 2/(α + n x_h²β)²
STEP_SIZE_PTS = load_formula("sgld", "sgld_step_size_pts")       # 1/(α + n x_h²β)²
SLOPE = load_formula("sgld", "sgld_slope")                        # 1 − (η/2)(α + (n/b)βB_xx)
PUSH = load_formula("sgld", "sgld_push")                          # (η/2)(n/b)βB_xy
#: 1 − a, expanded from the certified slope so that it is evaluated without cancellation
ONE_MINUS_SLOPE = SymbolicFormula("one_minus_a", sp.expand(1 - SLOPE.expression),
                                  "1 − a, from the certified SGLD slope")
KHAT = load_formula("sgld", "khat")                               # k̂ of Lemma A.4
LEMMA_A6 = load_formula("sgld", "lemma_a6_epsilon")              # ε′ of eq. (16)
GAUSSIAN_RENYI = load_formula("sgld", "gaussian_renyi")

#: smallest order used (see the module docstring)
NU_MIN = 2.0


def domain_values(n, c, alpha, beta, x_h, x_l, gamma1) -> dict:
    return {"n": float(n), "c": float(c), "alpha": float(alpha), "beta": float(beta),
            "x_h": float(x_h), "x_l": float(x_l), "gamma1": float(gamma1)}


def nu_max(values: dict) -> float:
    """Largest order (exclusive) Lemma 4.2 allows, with the β correction."""
    v = {k: values[k] for k in ("n", "beta", "x_h", "x_l")}
    return min(NU_MAX_PRINTED(**v),
               NU_MAX_CORRECTED(**{k: v[k] for k in ("n", "x_h", "x_l")}))


@dataclass(frozen=True)
class Lemma43RDP(RDP):
    """RDP curve ε₁(ν) of Lemma 4.2 whose (ε, δ) is Lemma 4.3: min over the allowed ν of
    ε₁(ν) + ln(1/δ)/(ν − 1) (Mironov 2017, Prop. 3)."""

    notion = "rdp"

    def epsilon(self, delta: float) -> float:
        return self.conversion(delta, method="mironov").epsilon

    def best_order(self, delta: float) -> float:
        return self.conversion(delta, method="mironov").alpha

    def cks_epsilon(self, delta: float) -> float:
        """The Canonne–Kamath–Steinke conversion of the same curve (smaller; for reports)."""
        return self.conversion(delta, method="cks").epsilon

    def describe(self) -> str:
        return (f"rdp(Lemma 4.2 ε₁(ν), ν ∈ {self.range_text()}) → (ε, δ) by Lemma 4.3 "
                f"(Mironov Prop. 3)")


def posterior_claim(n, c, alpha, beta, x_h, x_l, gamma1) -> Lemma43RDP:
    """The posterior's claim on 𝒟(n, γ₁, x_h, x_l, c) (module docstring); ``ValueError``
    when Lemma 4.2's conditions leave no order ν ≥ 2."""
    values = domain_values(n, c, alpha, beta, x_h, x_l, gamma1)
    hi = nu_max(values)
    if not hi > NU_MIN:
        raise ValueError(
            f"Lemma 4.2 gives no Rényi order ν ≥ 2 for n = {n:g}: it needs "
            f"n > 1 + 10(x_h²/x_l²)ν·max(1, 1/β) and n > 1 + ν x_h²/x_l², i.e. "
            f"n > {1 + 20 * (x_h / x_l) ** 2 * max(1.0, 1.0 / beta):g} for ν = 2")
    # the prior precision is also named alpha: substitute every parameter numerically, then
    # rename the order ν to the RDP curve's variable
    numeric = LEMMA_4_2.expression.xreplace({sp.Symbol(k): sp.Float(v, 17)
                                             for k, v in values.items()})
    curve = numeric.xreplace({sp.Symbol("nu"): ALPHA})
    return Lemma43RDP(curve, {}, alpha_range=(NU_MIN, hi), alpha_max_inclusive=False,
                      expression=sp.Tuple(sp.Eq(sp.Symbol(LEMMA_4_2.name), LEMMA_4_2.expression),
                                          sp.Eq(sp.Symbol(LEMMA_4_3.name),
                                                LEMMA_4_3.expression)),
                      substitutions={**values, "nu_min": NU_MIN, "nu_max": hi})


def lemma_4_3_epsilon(claim: Lemma43RDP, delta: float) -> tuple[float, float]:
    """(ε, ν) of Lemma 4.3 at δ with the best allowed order."""
    conv = claim.conversion(delta, method="mironov")
    return conv.epsilon, conv.alpha


def paper_order(epsilon: float, delta: float) -> float:
    """The order ν = 1 + 2 ln(1/δ)/ε that Claim D.29 uses for a target (ε, δ)."""
    return 1.0 + 2.0 * math.log(1.0 / delta) / epsilon


__all__ = ["Lemma43RDP", "posterior_claim", "nu_max", "paper_order", "lemma_4_3_epsilon",
           "POSTERIOR_MEAN", "POSTERIOR_VARIANCE", "LEMMA_4_2", "LEMMA_4_3", "STEP_SIZE_PAPER",
           "STEP_SIZE_PTS", "SLOPE", "PUSH", "ONE_MINUS_SLOPE", "KHAT", "LEMMA_A6",
           "GAUSSIAN_RENYI"]
