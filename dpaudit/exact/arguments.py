"""Argument checks shared by the exact privacy curves.

A privacy curve is evaluated at δ ≥ 0 (δ ≥ 1 is allowed and gives ε = 0); NaN and negative
values are refused with a ``ValueError`` naming the argument.
"""

from __future__ import annotations

import math


def check_curve_delta(delta) -> float:
    """δ as a float, ≥ 0 (a ValueError otherwise)."""
    delta = float(delta)
    if math.isnan(delta) or delta < 0:
        raise ValueError(f"delta must be ≥ 0, got {delta!r}")
    return delta


__all__ = ["check_curve_delta"]
