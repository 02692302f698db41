"""The δ an audit certifies ε(δ) at when it does not say: the same in every route.

A claim finite at δ = 0 (pure ε-DP, a pure part of a composition) is audited at δ = 0.  A
claim whose ε(0) is infinite — (ε, δ)-DP, zCDP, GDP, Rényi — would make a δ = 0 audit vacuous
(no bound can contradict ε = ∞), so it is audited at its own δ: the smallest δ an
approximate-DP part states, else :data:`FALLBACK_DELTA`.  ``dpaudit check``, suite rows, the
API and the pytest fixture all leave ``delta`` to this rule (issue 36, item 5: the routes
used to differ — check audited at the claim's δ, the others at 0 and reported "vacuous").
An explicit ``delta`` (0 included) is always honoured.
"""

from __future__ import annotations

import math

#: the δ of a claim infinite at δ = 0 that states no δ of its own (zCDP, GDP, Rényi)
FALLBACK_DELTA = 1e-6


def claim_audit_delta(claim) -> float:
    """δ = 0 when ``claim`` is finite there, else the smallest δ ∈ (0, 1) stated by one of its
    approximate-DP parts, else :data:`FALLBACK_DELTA`."""
    from dpaudit.claims import ApproxDP, iter_claims

    if math.isfinite(claim.epsilon(0.0)):
        return 0.0
    stated = [float(c.delta) for c in iter_claims(claim)
              if isinstance(c, ApproxDP) and 0.0 < c.delta < 1.0]
    return min(stated) if stated else FALLBACK_DELTA


__all__ = ["FALLBACK_DELTA", "claim_audit_delta"]
