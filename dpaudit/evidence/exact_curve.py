"""Evidence computed, not sampled: a pair's privacy curve at one δ (or one Rényi order α).

:class:`ExactCurveEvidence` is what the exact-curve check
(:mod:`dpaudit.audit.procedures.exact_curve`) finds: the pair's ε(δ) — or its Rényi divergence
D_α — known to lie in a bracket ``[lower, upper]``.  A closed form gives ``lower == upper``; a
numerical curve (a privacy-loss distribution discretised pessimistically and optimistically, a
truncated sum) gives the two ends of its stated error.

Its :attr:`bound` — what the verdict compares with the claim — is ``lower`` reduced by the
method's relative floating-point ``tolerance`` (``lower·(1 − tolerance)``), so that a claim is a
violation only when the pair's curve is above it beyond every numerical error the method states:
no sampling, no confidence, and no share of the suite's Bonferroni family (``certified`` is
False).  The default tolerance, :data:`EXACT_TOLERANCE`, is the one the pair audit has always
allowed an exact value before calling it above the claim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpaudit.evidence.base import Evidence
from dpaudit.util.numbers import format_number
from dpaudit.util.shared_json import SharedValues

#: relative numerical tolerance of a closed-form value (the pair audit's EXACT_SLACK)
EXACT_TOLERANCE = 1e-6


@dataclass(frozen=True)
class EpsilonBracket:
    """A pair's ε(δ) (or D_α) lies in ``[lower, upper]`` by ``method``, up to the relative
    floating-point ``tolerance``.

    Raises:
      ValueError: ``lower > upper``, a NaN, or a negative tolerance.
    """

    lower: float
    upper: float
    method: str
    tolerance: float = EXACT_TOLERANCE

    def __post_init__(self):
        lower, upper = float(self.lower), float(self.upper)
        if math.isnan(lower) or math.isnan(upper) or lower > upper:
            raise ValueError(f"an exact bracket needs lower ≤ upper, got [{self.lower}, "
                             f"{self.upper}]")
        if not self.tolerance >= 0:
            raise ValueError(f"tolerance must be ≥ 0, got {self.tolerance!r}")
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)

    @classmethod
    def closed_form(cls, value: float, method: str = "closed form") -> "EpsilonBracket":
        """The bracket of a value known in closed form (``lower == upper``)."""
        return cls(float(value), float(value), method)

    @property
    def width(self) -> float:
        return self.upper - self.lower


@dataclass(frozen=True)
class ExactCurveEvidence(Evidence):
    """The pair's curve at one point of the grid: ε(δ) when ``alpha`` is None, else D_α."""

    kind = "exact-curve"
    certified = False

    delta: float | None
    alpha: float | None
    bracket: EpsilonBracket

    @property
    def bound(self) -> float:
        lower = self.bracket.lower
        if math.isinf(lower):
            return lower
        return lower - self.bracket.tolerance * abs(lower)

    @property
    def role(self) -> str:
        return "exact"

    def detectable_epsilon(self, claimed: float | None) -> float | None:
        """The smallest true value this check flags above ``claimed``: a true value v lies in
        the bracket, so ``lower ≥ v − width``, and the check flags ``lower·(1 − tolerance) >
        claimed``; hence every v > claimed/(1 − tolerance) + width is flagged."""
        if claimed is None:
            return None
        b = self.bracket
        if math.isinf(claimed) or b.tolerance >= 1.0:
            return math.inf
        return claimed / (1.0 - b.tolerance) + b.width

    def interval(self) -> tuple[float, float]:
        return self.bracket.lower, self.bracket.upper

    def describe(self) -> str:
        where = (f"ε(δ = {format_number(self.delta, 3)})" if self.alpha is None
                 else f"D_α (α = {format_number(self.alpha, 3)})")
        b = self.bracket
        value = (f"= {format_number(b.lower, 4)}" if b.lower == b.upper else
                 f"∈ [{format_number(b.lower, 4)}, {format_number(b.upper, 4)}]")
        return f"the pair's {where} {value} ({b.method})"

    def to_json(self, shared: SharedValues | None = None) -> dict:
        from dpaudit.util.jsonable import to_jsonable

        b = self.bracket
        return {"kind": self.kind, "delta": self.delta, "alpha": self.alpha,
                "lower": to_jsonable(b.lower), "upper": to_jsonable(b.upper),
                "method": b.method, "tolerance": b.tolerance}

    @classmethod
    def from_json(cls, data: dict, shared: SharedValues | None = None) -> "ExactCurveEvidence":
        delta, alpha = data.get("delta"), data.get("alpha")
        return cls(delta=None if delta is None else float(delta),
                   alpha=None if alpha is None else float(alpha),
                   bracket=EpsilonBracket(float(data["lower"]), float(data["upper"]),
                                          str(data["method"]), float(data["tolerance"])))


__all__ = ["EXACT_TOLERANCE", "EpsilonBracket", "ExactCurveEvidence"]
