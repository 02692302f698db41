"""One source of truth for numbers that come from formulas.

A :class:`SymbolicFormula` is a sympy expression over named symbols.  Mechanisms obtain every
noise parameter (Laplace scale Δ/ε, Gaussian σ, selection temperature …) by evaluating such a
formula, and their claims carry the same expression, so a calibration typed by hand cannot
drift from the claim.  Evaluation goes through ``sympy.lambdify`` (cached per formula).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import sympy as sp


@dataclass(frozen=True)
class SymbolicFormula:
    """``name = expression`` with the free symbols of ``expression`` as its inputs."""

    name: str
    expression: sp.Expr
    description: str = ""
    _fn: object = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        names = sorted(str(s) for s in self.expression.free_symbols)
        fn = sp.lambdify([sp.Symbol(n) for n in names], self.expression, modules="math")
        object.__setattr__(self, "_fn", (names, fn))

    @property
    def inputs(self) -> list[str]:
        return list(self._fn[0])

    def __call__(self, **values: float) -> float:
        names, fn = self._fn
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"formula {self.name} = {self.expression} needs {', '.join(missing)}")
        result = float(fn(*[float(values[n]) for n in names]))
        if math.isnan(result):
            raise ValueError(f"formula {self.name} = {self.expression} is NaN at {values}")
        return result

    def substitute(self, **values: float) -> sp.Expr:
        return self.expression.subs({sp.Symbol(k): v for k, v in values.items()})

    def latex(self) -> str:
        return f"{self.name} = {sp.latex(self.expression)}"

    def __str__(self) -> str:
        return f"{self.name} = {self.expression}"


def claim_expression(*formulas: SymbolicFormula) -> sp.Tuple:
    """A claim's expression: the equations ``name = formula`` its sampler evaluated, so a
    reader (and :meth:`dpaudit.mechanisms.base.Mechanism.claimed_value`) can re-evaluate the
    noise parameters the claim states."""
    return sp.Tuple(*(sp.Eq(sp.Symbol(f.name), f.expression) for f in formulas))
