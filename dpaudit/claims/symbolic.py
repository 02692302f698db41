"""One source of truth for numbers that come from formulas.

A :class:`SymbolicFormula` is a sympy expression over named symbols.  Mechanisms obtain every
noise parameter (Laplace scale Δ/ε, Gaussian σ, selection temperature …) by evaluating such a
formula, and their claims carry the same expression, so a calibration typed by hand cannot
drift from the claim.  Evaluation goes through ``sympy.lambdify`` (cached per formula); where float64 arithmetic
overflows on the way (``exp(ε)`` for ε > 709.78, as in randomized response's
e^ε/(e^ε + k − 1) or the analytic Gaussian's δ(ε)), the same expression is evaluated again at
the exact rationals of its float inputs with mpmath's arbitrary-exponent floats, to
:data:`FALLBACK_DIGITS` significant digits (``strict``: a value that does not reach them is
NaN, an error), and the result rounded to float64 — ±∞ when the value itself is beyond
float64's range.  A division by zero stays the ``ZeroDivisionError`` it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


#: significant digits of the mpmath evaluation used when float64 arithmetic overflows
FALLBACK_DIGITS = 30


@dataclass(frozen=True)
class SymbolicFormula:
    """``name = expression`` with the free symbols of ``expression`` as its inputs."""

    name: str
    expression: sp.Expr
    description: str = ""
    _fn: object = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):

        import sympy as sp

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
        inputs = [float(values[n]) for n in names]
        try:
            result = float(fn(*inputs))
        except OverflowError:  # float64 overflowed on the way: evaluate exactly instead
            result = self._precise(dict(zip(names, inputs)))
        if math.isnan(result):
            raise ValueError(f"formula {self.name} = {self.expression} is NaN at {values}")
        return result

    def log_value(self, **values: float) -> float:
        """ln of the formula at ``values``: ``math.log`` of :meth:`__call__` where that is a
        positive finite float, else ln(expression) in mpmath (a probability that underflows
        float64, e.g. randomized response's 1/(e^ε + k − 1) at ε = 10⁶, keeps its logarithm
        −10⁶)."""

        import sympy as sp

        value = self(**values)
        if 0.0 < value < math.inf:
            return math.log(value)
        result = self._evalf(sp.log(self.expression.subs(self._symbols(values))))
        if math.isnan(result):
            raise ValueError(f"ln of formula {self.name} = {self.expression} has no real value "
                             f"at {values}")
        return result

    def _symbols(self, values: dict) -> dict:
        """The expression's own symbols (with their assumptions) → the exact rationals of the
        float values named (so the evaluation's only error is its own, bounded one)."""

        import sympy as sp

        return {sym: sp.Rational(float(values[str(sym)])) for sym in self.expression.free_symbols}

    def _evalf(self, expression) -> float:
        """``expression`` (its symbols substituted) to :data:`FALLBACK_DIGITS` significant
        digits, as a float64; NaN when that precision is not reached (a singular point) or the
        value is not real."""
        try:
            exact = expression.evalf(FALLBACK_DIGITS, strict=True)
            return float(exact)
        except (TypeError, ValueError, ArithmeticError):  # complex, zoo, PrecisionExhausted
            return math.nan

    def _precise(self, values: dict[str, float]) -> float:
        """The expression at ``values`` in mpmath's arbitrary-exponent floats, as a float64
        (±∞ beyond its range; NaN where the expression has no value)."""
        if any(math.isinf(v) for v in values.values()):
            return math.nan
        return self._evalf(self.expression.subs(self._symbols(values)))

    def substitute(self, **values: float) -> sp.Expr:

        import sympy as sp

        return self.expression.subs({sp.Symbol(k): v for k, v in values.items()})

    def latex(self) -> str:

        import sympy as sp

        return f"{self.name} = {sp.latex(self.expression)}"

    def __str__(self) -> str:
        return f"{self.name} = {self.expression}"


def claim_expression(*formulas: SymbolicFormula) -> sp.Tuple:
    """A claim's expression: the equations ``name = formula`` its sampler evaluated, so a
    reader (and :meth:`dpaudit.mechanisms.base.Mechanism.claimed_value`) can re-evaluate the
    noise parameters the claim states."""


    import sympy as sp

    return sp.Tuple(*(sp.Eq(sp.Symbol(f.name), f.expression) for f in formulas))
