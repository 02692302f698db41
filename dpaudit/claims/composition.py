"""Composition of claims: running mechanisms M₁, …, M_k on the same dataset (adaptively or
not) and releasing all their outputs.

Contract: each function takes claims of one notion and returns a claim of the same notion for
the composed mechanism, by a composition theorem that is valid for adaptive composition.  An
:class:`~dpaudit.claims.notions.AllOf` argument contributes its member of the needed notion
(the first one); a claim of another notion raises ``TypeError``.  The returned claim carries a
sympy ``expression`` of the composition rule and the component values as ``substitutions``.

* (ε, δ)-DP: basic composition, (Σεᵢ, Σδᵢ) (Dwork & Roth 2014, Thm 3.16); pure if all δᵢ = 0.
* RDP: ε(α) = Σεᵢ(α) on the intersection of the valid α ranges (Mironov 2017, Prop. 1).
  ρ-zCDP and (ρ, ω)-tCDP claims enter as their curves ρα on (1, ∞) and (1, ω].
* zCDP: ρ = Σρᵢ (Bun & Steinke 2016, Lemma 2.3).
* GDP: μ = √(Σμᵢ²) (Dong, Roth & Su 2022, Cor. 3.3); exact for Gaussian mechanisms.
"""

from __future__ import annotations

import math

from dpaudit.claims.base import Claim
from dpaudit.claims.notions import GDP, RDP, TCDP, ZCDP, AllOf, ApproxDP, PureDP


def _members(claims, types: tuple, what: str) -> list:
    if len(claims) == 1 and not isinstance(claims[0], Claim):
        claims = tuple(claims[0])  # a single iterable of claims
    if not claims:
        raise ValueError(f"{what} composition needs at least one claim")
    out = []
    for c in claims:
        if isinstance(c, AllOf):
            found = [m for m in c.claims if isinstance(m, types)]
            if not found:
                raise TypeError(f"{what} composition: {c.describe()} has no "
                                f"{'/'.join(t.notion for t in types)} member")
            c = found[0]
        if not isinstance(c, types):
            raise TypeError(f"{what} composition needs {'/'.join(t.notion for t in types)} "
                            f"claims, got {type(c).__name__}")
        out.append(c)
    return out


def _indexed(name: str, k: int) -> list:
    import sympy as sp

    return [sp.Symbol(f"{name}_{i + 1}") for i in range(k)]


def compose_approx_dp(*claims) -> PureDP | ApproxDP:
    """(Σεᵢ, Σδᵢ)-DP from εᵢ-DP / (εᵢ, δᵢ)-DP claims (basic sequential composition; a
    ``ValueError`` naming delta if Σδᵢ ≥ 1).  Conservative (advanced composition can be tighter
    for many small εᵢ; the exact bound is Kairouz, Oh & Viswanath 2015)."""
    import sympy as sp  # the composed claim carries its expression

    parts = _members(claims, (PureDP, ApproxDP), "(epsilon, delta)")
    eps = [c.eps for c in parts]
    dels = [getattr(c, "delta", 0.0) for c in parts]
    e_syms, d_syms = _indexed("epsilon", len(parts)), _indexed("delta", len(parts))
    subs = {str(s): v for s, v in zip(e_syms, eps)}
    if all(d == 0.0 for d in dels):
        return PureDP(math.fsum(eps), expression=sp.Tuple(sp.Eq(sp.Symbol("epsilon"),
                                                                  sp.Add(*e_syms))),
                      substitutions=subs)
    subs.update({str(s): v for s, v in zip(d_syms, dels)})
    expr = sp.Tuple(sp.Eq(sp.Symbol("epsilon"), sp.Add(*e_syms)),
                    sp.Eq(sp.Symbol("delta"), sp.Add(*d_syms)))
    return ApproxDP(math.fsum(eps), math.fsum(dels), expression=expr, substitutions=subs)


def compose_zcdp(*claims) -> ZCDP:
    """ρ = Σρᵢ (Bun & Steinke 2016, Lemma 2.3; exact on the zCDP scale: k Gaussian mechanisms
    with the same ρ compose to the Gaussian with σ/√k)."""
    import sympy as sp  # the composed claim carries its expression

    parts = _members(claims, (ZCDP,), "zCDP")
    syms = _indexed("rho", len(parts))
    return ZCDP(math.fsum(c.rho for c in parts), expression=sp.Tuple(sp.Eq(sp.Symbol("rho"), sp.Add(*syms))),
                substitutions={str(s): c.rho for s, c in zip(syms, parts)})


def compose_gdp(*claims) -> GDP:
    """μ = √(Σμᵢ²) (Dong, Roth & Su 2022, Cor. 3.3: G_μ₁ ⊗ … ⊗ G_μk = G_√Σμᵢ²; exact)."""
    import sympy as sp  # the composed claim carries its expression

    parts = _members(claims, (GDP,), "GDP")
    syms = _indexed("mu", len(parts))
    mu = math.sqrt(math.fsum(c.mu * c.mu for c in parts))
    return GDP(mu, expression=sp.Tuple(sp.Eq(sp.Symbol("mu"),
                                             sp.sqrt(sp.Add(*(s**2 for s in syms))))),
               substitutions={str(s): c.mu for s, c in zip(syms, parts)})


def compose_rdp(*claims) -> RDP:
    """ε(α) = Σεᵢ(α) on the intersection of the valid ranges (Mironov 2017, Prop. 1).

    The upper end of the result is included only if every claim with that upper end includes
    it.  Symbolic curves are summed as sympy expressions; when two claims give the same
    parameter symbol different values, each claim's parameters are renamed ``name_i``.  If any
    curve is a callable the result's curve is a callable too.  ``ValueError`` if the ranges do
    not intersect."""
    import sympy as sp  # the composed claim carries its expression

    parts = [c.to_rdp() if isinstance(c, (ZCDP, TCDP)) else c
             for c in _members(claims, (RDP, ZCDP, TCDP), "RDP")]
    lo = max(c.alpha_range[0] for c in parts)
    hi = min(c.alpha_range[1] for c in parts)
    if lo >= hi:
        raise ValueError(f"alpha_range of the claims do not intersect: ({lo}, {hi})")
    inclusive = all(c.alpha_max_inclusive for c in parts if c.alpha_range[1] == hi)
    if not all(isinstance(c.curve, sp.Basic) for c in parts):
        fns = [c._fn for c in parts]
        return RDP(lambda a: math.fsum(f(a) for f in fns), alpha_range=(lo, hi),
                   alpha_max_inclusive=inclusive)
    merged: dict[str, float] = {}
    conflict = False
    for c in parts:
        for k, v in c.values.items():
            conflict |= k in merged and merged[k] != v
            merged.setdefault(k, v)
    if not conflict:
        curve = sp.Add(*(c.curve for c in parts))
    else:
        merged, terms = {}, []
        for i, c in enumerate(parts, start=1):
            ren = {s: sp.Symbol(f"{s}_{i}") for s in c.curve.free_symbols if str(s) != "alpha"}
            terms.append(c.curve.xreplace(ren))
            merged.update({f"{k}_{i}": v for k, v in c.values.items()})
        curve = sp.Add(*terms)
    return RDP(curve, merged, alpha_range=(lo, hi), alpha_max_inclusive=inclusive)
