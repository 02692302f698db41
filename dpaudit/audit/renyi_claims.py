"""The Rényi (RDP) curve a claim states, if any.

A claim states an RDP curve when it has a method ``rdp(α)`` (the Rényi ε of order α), or when
it is a combination of claims (``claims``), one of which does.  For a combination every part
holds, so the claimed ε(α) is the smallest of the parts' values; an order outside a part's
range claims nothing there (``+∞``).
"""

from __future__ import annotations

import math


def has_renyi_claim(claim) -> bool:
    """Whether the claim (or one of several) states an RDP curve ``rdp(α)``."""
    return hasattr(claim, "rdp") or any(has_renyi_claim(c) for c in getattr(claim, "claims", ()))


def claimed_renyi(claim, alpha: float) -> float:
    """The claim's Rényi ε(α): its own ``rdp`` or, for several claims, the smallest."""
    if hasattr(claim, "rdp"):
        try:
            return float(claim.rdp(alpha))
        except ValueError:
            return math.inf  # α outside the claim's range: nothing claimed there
    parts = getattr(claim, "claims", ())
    values = [claimed_renyi(c, alpha) for c in parts]
    return min(values) if values else math.inf


__all__ = ["claimed_renyi", "has_renyi_claim"]
