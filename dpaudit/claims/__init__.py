"""Symbolic privacy claims, their conversions to (ε, δ), and their composition.

* :mod:`~dpaudit.claims.base` — the abstract :class:`Claim` (the contract every claim keeps);
* :mod:`~dpaudit.claims.capabilities` — optional capabilities of a claim, one abstract mixin
  each (:class:`RenyiCurve`: a Rényi curve ``rdp(α)``), asked for with ``isinstance``;
* :mod:`~dpaudit.claims.notions` — the claim classes (pure DP, (ε, δ)-DP, RDP curves, zCDP,
  truncated CDP, Gaussian DP, privacy profiles, conjunctions);
* :mod:`~dpaudit.claims.conversions` — numeric conversions between notions, each citing its
  source and marked exact or conservative;
* :mod:`~dpaudit.claims.composition` — composition theorems returning claims;
* :mod:`~dpaudit.claims.symbolic` — formulas shared by samplers and claims;
* :mod:`~dpaudit.claims.structure` — the parts of a (composite) claim and its Rényi curve.
"""

from dpaudit.claims.base import Claim
from dpaudit.claims.capabilities import RenyiCurve
from dpaudit.claims.composition import compose_approx_dp, compose_gdp, compose_rdp, compose_zcdp
from dpaudit.claims.conversions import (RdpConversion, analytic_gaussian_delta,
                                        analytic_gaussian_epsilon, dp_to_gdp_mu,
                                        gaussian_mechanism_zcdp_to_dp, gdp_to_dp_delta,
                                        gdp_to_dp_epsilon, optimal_rdp_to_dp,
                                        pure_dp_to_approx_dp, rdp_to_dp_cks, rdp_to_dp_mironov,
                                        tcdp_to_dp, zcdp_to_dp, zcdp_to_dp_bun_steinke,
                                        zcdp_to_dp_cks)
from dpaudit.claims.notions import (GDP, RDP, TCDP, ZCDP, AllOf, ApproxDP, PrivacyProfile,
                                    PureDP)
from dpaudit.claims.structure import claimed_renyi, has_renyi_claim, iter_claims
from dpaudit.claims.symbolic import SymbolicFormula, claim_expression



def __getattr__(name: str):
    """ALPHA and EPSILON, the curves' sympy symbols, made on first use: building, printing
    and evaluating a numeric claim imports no sympy (:mod:`dpaudit.claims.notions`)."""
    if name in ("ALPHA", "EPSILON"):
        from dpaudit.claims import notions

        return getattr(notions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["claim_expression",
    "ALPHA", "EPSILON", "AllOf", "ApproxDP", "Claim", "GDP", "PrivacyProfile", "PureDP", "RDP",
    "RenyiCurve", "TCDP", "ZCDP", "SymbolicFormula", "claimed_renyi", "has_renyi_claim",
    "iter_claims",
    "RdpConversion", "analytic_gaussian_delta", "analytic_gaussian_epsilon", "dp_to_gdp_mu",
    "gaussian_mechanism_zcdp_to_dp", "gdp_to_dp_delta", "gdp_to_dp_epsilon",
    "optimal_rdp_to_dp", "pure_dp_to_approx_dp", "rdp_to_dp_cks", "rdp_to_dp_mironov",
    "tcdp_to_dp", "zcdp_to_dp", "zcdp_to_dp_bun_steinke", "zcdp_to_dp_cks",
    "compose_approx_dp", "compose_gdp", "compose_rdp", "compose_zcdp",
]
