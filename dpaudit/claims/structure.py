"""The structure of a claim: its parts, and the Rényi curve it states.

A claim is either a single notion (:class:`~dpaudit.claims.notions.PureDP`,
:class:`~dpaudit.claims.notions.RDP`, …) or a conjunction
:class:`~dpaudit.claims.notions.AllOf` of claims, possibly nested.  This module is the one
place that recurses into conjunctions; everything that needs "the parts of a claim" (the
claimed value of a noise parameter, the smallest δ a claim states, the claimed Rényi ε(α))
goes through :func:`iter_claims`.

Contract: ``iter_claims(c)`` yields the leaves of ``c`` depth-first, in the order of
``AllOf.claims``; a leaf yields itself.  A conjunction holds when all its parts hold, so a
quantity "claimed" by a conjunction is the best (smallest) one claimed by any part.
"""

from __future__ import annotations

import math
from typing import Iterator

from dpaudit.claims.base import Claim
from dpaudit.claims.capabilities import RenyiCurve
from dpaudit.claims.notions import AllOf


def iter_claims(claim: Claim) -> Iterator[Claim]:
    """The single-notion parts of ``claim``, depth-first (``claim`` itself if it is one).

    Args:
      claim: any claim; :class:`AllOf` conjunctions (nested or not) are flattened.

    Yields:
      Every claim inside ``claim`` that is not an :class:`AllOf`.
    """
    if isinstance(claim, AllOf):
        for part in claim.claims:
            yield from iter_claims(part)
    else:
        yield claim


def has_renyi_claim(claim: Claim) -> bool:
    """Whether the claim (or one of its parts) states a Rényi curve ``rdp(α)``, i.e. is a
    :class:`~dpaudit.claims.capabilities.RenyiCurve` (:class:`~dpaudit.claims.notions.RDP`,
    :class:`~dpaudit.claims.notions.ZCDP` with ε(α) = ρα, :class:`~dpaudit.claims.notions.TCDP`
    and their subclasses).
    """
    return any(isinstance(part, RenyiCurve) for part in iter_claims(claim))


def claimed_renyi(claim: Claim, alpha: float) -> float:
    """The claimed Rényi ε(α): the smallest ``rdp(α)`` over the parts that are a
    :class:`~dpaudit.claims.capabilities.RenyiCurve`.

    A part whose curve does not cover α (its ``rdp`` raises ``ValueError``) claims nothing
    there (∞); ``math.inf`` when no part states a Rényi curve.
    """
    values = []
    for part in iter_claims(claim):
        if not isinstance(part, RenyiCurve):
            continue
        try:
            values.append(float(part.rdp(alpha)))
        except ValueError:
            values.append(math.inf)  # α outside the part's range: nothing claimed there
    return min(values) if values else math.inf


__all__ = ["claimed_renyi", "has_renyi_claim", "iter_claims"]
