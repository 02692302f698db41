"""Privacy notions a mechanism can claim, and the (ε, δ) each implies.

Contract: a :class:`Claim` is an immutable statement "mechanism M satisfies notion N with
parameters P for its neighbouring relation".  ``claim.epsilon(delta)`` returns the smallest ε
such that the claim implies (ε, δ)-DP, using only exact or provably conservative conversions
(the conversion used is named in each class docstring).  It returns ``math.inf`` when the
claim implies nothing at that δ (e.g. an (ε₀, δ₀) claim asked about δ < δ₀).

Each claim may carry the sympy expression it was evaluated from (``expression``) and the
parameter values substituted into it (``substitutions``), so a report can show the formula
and a reader can re-evaluate it.  The meaning of an existing claim class must not change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import sympy as sp


def _check_epsilon(value: float, what: str = "epsilon") -> float:
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{what} must be a finite number > 0, got {value!r}")
    return value


def _check_delta(value: float, what: str = "delta") -> float:
    value = float(value)
    if not (0.0 <= value < 1.0):
        raise ValueError(f"{what} must lie in [0, 1), got {value!r}")
    return value


@dataclass(frozen=True)
class Claim:
    """Base class: a privacy guarantee with a conversion to (ε, δ)."""

    expression: Any = field(default=None, compare=False, kw_only=True)
    substitutions: dict = field(default_factory=dict, compare=False, kw_only=True)

    notion = "abstract"

    def epsilon(self, delta: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def parameters(self) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:
        params = ", ".join(f"{k}={v:g}" for k, v in self.parameters().items())
        return f"{self.notion}({params})"

    def to_dict(self) -> dict:
        out = {"notion": self.notion, "parameters": self.parameters(), "text": self.describe()}
        if self.expression is not None:
            out["expression"] = str(self.expression)
            out["latex"] = sp.latex(self.expression)
            out["substitutions"] = {str(k): _jsonable(v) for k, v in self.substitutions.items()}
        return out


def _jsonable(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


@dataclass(frozen=True)
class PureDP(Claim):
    """ε-DP: P[M(D) ∈ S] ≤ e^ε P[M(D′) ∈ S] for all S and neighbours D, D′.

    Implies (ε, δ)-DP for every δ ≥ 0 (pure → approximate is the identity on ε)."""

    eps: float = 1.0
    notion = "pure-dp"

    def __post_init__(self):
        object.__setattr__(self, "eps", _check_epsilon(self.eps))

    def epsilon(self, delta: float) -> float:
        _check_delta(delta)
        return self.eps

    def parameters(self) -> dict:
        return {"epsilon": self.eps}


@dataclass(frozen=True)
class ApproxDP(Claim):
    """(ε₀, δ₀)-DP: P[M(D) ∈ S] ≤ e^ε₀ P[M(D′) ∈ S] + δ₀.

    Implies (ε₀, δ)-DP for δ ≥ δ₀ and nothing (ε = ∞) for δ < δ₀."""

    eps: float = 1.0
    delta: float = 1e-5
    notion = "approx-dp"

    def __post_init__(self):
        object.__setattr__(self, "eps", _check_epsilon(self.eps))
        object.__setattr__(self, "delta", _check_delta(self.delta))

    def epsilon(self, delta: float) -> float:
        _check_delta(delta)
        return self.eps if delta >= self.delta else math.inf

    def parameters(self) -> dict:
        return {"epsilon": self.eps, "delta": self.delta}


@dataclass(frozen=True)
class ZCDP(Claim):
    """ρ-zCDP (Bun & Steinke 2016): D_α(M(D)‖M(D′)) ≤ ρα for all α > 1.

    Conversion to (ε, δ): Bun & Steinke 2016, Prop. 1.3, ε = ρ + 2√(ρ ln(1/δ)) (conservative);
    ∞ at δ = 0."""

    rho: float = 0.5
    notion = "zcdp"

    def __post_init__(self):
        object.__setattr__(self, "rho", _check_epsilon(self.rho, "rho"))

    def epsilon(self, delta: float) -> float:
        _check_delta(delta)
        if delta == 0.0:
            return math.inf
        return self.rho + 2.0 * math.sqrt(self.rho * math.log(1.0 / delta))

    def parameters(self) -> dict:
        return {"rho": self.rho}


@dataclass(frozen=True)
class AllOf(Claim):
    """Several claims that all hold; the implied ε at δ is the smallest of theirs."""

    claims: tuple = ()
    notion = "all-of"

    def __post_init__(self):
        if not self.claims:
            raise ValueError("AllOf needs at least one claim")

    def epsilon(self, delta: float) -> float:
        return min(c.epsilon(delta) for c in self.claims)

    def parameters(self) -> dict:
        out = {}
        for c in self.claims:
            for k, v in c.parameters().items():
                out[f"{c.notion}.{k}"] = v
        return out

    def describe(self) -> str:
        return " and ".join(c.describe() for c in self.claims)

    def to_dict(self) -> dict:
        return {"notion": self.notion, "text": self.describe(),
                "claims": [c.to_dict() for c in self.claims]}
