"""Symbolic privacy claims and their conversions to (ε, δ)."""

from dpaudit.claims.notions import AllOf, ApproxDP, Claim, PureDP, ZCDP
from dpaudit.claims.symbolic import SymbolicFormula

__all__ = ["AllOf", "ApproxDP", "Claim", "PureDP", "ZCDP", "SymbolicFormula"]
