"""The claim contract: a privacy guarantee with an exact or conservative conversion to (ε, δ).

A :class:`Claim` is an immutable statement "mechanism M satisfies notion N with parameters P
for its neighbouring relation".  Every concrete claim provides (abstract here)

* ``epsilon(delta) -> float`` — the smallest ε such that the claim implies (ε, δ)-DP, using
  only exact or provably conservative conversions; ``math.inf`` when the claim implies nothing
  at that δ (e.g. an (ε₀, δ₀) claim asked about δ < δ₀);
* ``parameters() -> dict`` — the numbers the claim states (shown in reports);

and a class attribute ``notion`` naming the notion (``"pure-dp"``, ``"rdp"``, …).  A claim may
carry the sympy expression it was evaluated from (``expression``) and the parameter values
substituted into it (``substitutions``), so a report can show the formula and a reader can
re-evaluate it; neither takes part in equality.

Optional capabilities (a Rényi curve ε(α)) are declared by inheriting the mixins of
:mod:`dpaudit.claims.capabilities` and asked for with ``isinstance``, never by probing for a
method name.  The meaning of an existing claim class must not change.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, ClassVar



def jsonable(value):
    """``value`` as a JSON number when it is one (``float(value)``), else as its text."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


@dataclass(frozen=True)
class Claim(abc.ABC):
    """A privacy guarantee with a conversion to (ε, δ) (see the module docstring)."""

    expression: Any = field(default=None, compare=False, kw_only=True)
    substitutions: dict = field(default_factory=dict, compare=False, kw_only=True)

    #: the notion's name, as reports and ``to_dict`` show it
    notion: ClassVar[str] = "abstract"

    @abc.abstractmethod
    def epsilon(self, delta: float) -> float:
        """The smallest ε with (ε, ``delta``)-DP implied by the claim (``math.inf`` if none).

        Raises:
          ValueError: ``delta`` is not in [0, 1).
        """

    @abc.abstractmethod
    def parameters(self) -> dict:
        """The stated parameters, name → value."""

    def describe(self) -> str:
        params = ", ".join(f"{k}={v:g}" for k, v in self.parameters().items())
        return f"{self.notion}({params})"

    def to_dict(self) -> dict:
        out = {"notion": self.notion, "parameters": self.parameters(), "text": self.describe()}
        if self.expression is not None:
            out["expression"] = str(self.expression)
            import sympy as sp  # only a claim that carries an expression has sympy loaded

            out["latex"] = sp.latex(self.expression)
            out["substitutions"] = {str(k): jsonable(v) for k, v in self.substitutions.items()}
        return out


__all__ = ["Claim", "jsonable"]
