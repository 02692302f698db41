"""A claim read off a user's accountant object: ε(δ) = ``get_epsilon(δ)``.

(:mod:`dpaudit.claims.accountants` states a *library's* accountant as a claim from the run's
parameters — σ, q, steps — before anything runs; this module takes the ``get_epsilon`` of the
accountant a training *used*, whose history is known only after it ran: the claim of a canary
audit of a user's own training.)

DP-SGD users state their privacy through an accountant — Opacus's
``privacy_engine.get_epsilon(delta)`` (PRV, RDP or GDP accountant), dp_accounting's
``PrivacyAccountant.get_epsilon(target_delta)`` — after their training has run, not as a
formula.  :class:`GetEpsilonClaim` holds such a callable: (ε(δ), δ)-DP for every δ in (0, 1)
the callable is asked about, a privacy profile given through its inverse (the trade-off curve
a canary audit tests follows from it, :mod:`dpaudit.claims.tradeoff`).  It is exactly as
sound as the accountant: PRV and PLD accountants return the upper end of their error bracket,
the RDP accountant a conservative conversion, Opacus's GDP accountant a central-limit
*approximation* (not an upper bound; ``describe`` says which the user named).

An accountant that raises, or returns something other than a number ≥ 0 (NaN included), gives
one :class:`GetEpsilonError` line naming the accountant and δ, never its traceback.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from dpaudit.claims.base import Claim
from dpaudit.claims.conversions import check_delta


class GetEpsilonError(ValueError):
    """The user's accountant failed or answered with something that is not an ε."""


@dataclass(frozen=True)
class GetEpsilonClaim(Claim):
    """(``get_epsilon(δ)``, δ)-DP for every δ > 0 (module docstring); ``source`` names the
    accountant (e.g. "opacus.accountants.PRVAccountant 1.6.0")."""

    get_epsilon: Callable[[float], float] = field(default=None, compare=False)
    source: str = "accountant"
    _cache: dict = field(default_factory=dict, compare=False, repr=False)
    notion = "get-epsilon"

    def __post_init__(self):
        if not callable(self.get_epsilon):
            raise GetEpsilonError(f"the accountant must be a callable get_epsilon(delta), got "
                                  f"{type(self.get_epsilon).__name__}")

    def epsilon(self, delta: float) -> float:
        delta = check_delta(delta)
        if delta == 0.0:
            return math.inf
        if delta in self._cache:
            return self._cache[delta]
        try:
            value = self.get_epsilon(delta)
        except Exception as exc:  # noqa: BLE001 - the user's code: one line, not a traceback
            raise GetEpsilonError(f"{self.source}: get_epsilon(delta={delta:g}) raised "
                                  f"{type(exc).__name__}: {exc}") from None
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise GetEpsilonError(f"{self.source}: get_epsilon(delta={delta:g}) returned "
                                  f"{value!r}, not a number") from None
        if math.isnan(value) or value < 0:
            raise GetEpsilonError(f"{self.source}: get_epsilon(delta={delta:g}) returned "
                                  f"{value!r}, not an ε ≥ 0")
        self._cache[delta] = value
        return value

    def parameters(self) -> dict:
        return {}

    def describe(self) -> str:
        return f"{self.source}: get_epsilon(δ)"

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["source"] = self.source
        out["epsilons"] = {f"{d:g}": e for d, e in sorted(self._cache.items())}
        return out


__all__ = ["GetEpsilonClaim", "GetEpsilonError"]
