"""Optional capabilities of a claim, one abstract mixin each.

Every :class:`~dpaudit.claims.base.Claim` converts to (ε, δ).  Some state more, and the audits
that use it ask for it by type: a claim class *declares* a capability by inheriting its mixin
(and so must implement the mixin's abstract methods — Python refuses to instantiate it
otherwise), and a caller asks with ``isinstance(claim, RenyiCurve)``, never by probing for a
method name (the same rule as :mod:`dpaudit.mechanisms.capabilities`).

=====================  ==========================  ==============================================
mixin                  provides                    declared by
=====================  ==========================  ==============================================
:class:`ProfileCurve`  ``delta(eps)`` = δ(ε)       :class:`~dpaudit.claims.notions.GDP`,
                                                   :class:`~dpaudit.claims.notions.PrivacyProfile`,
                                                   the dpsgd family's PLD accountant claim
:class:`RenyiCurve`    ``rdp(alpha)`` = ε(α)       :class:`~dpaudit.claims.notions.RDP`,
                                                   :class:`~dpaudit.claims.notions.ZCDP`,
                                                   :class:`~dpaudit.claims.notions.TCDP`
=====================  ==========================  ==============================================

Contract: a claim class inherits a mixin only if the capability holds for every parameter
value it accepts.  This module imports nothing from dpaudit.
"""

from __future__ import annotations

import abc


class RenyiCurve(abc.ABC):
    """The claim states a Rényi-DP curve: D_α(M(D)‖M(D′)) ≤ ε(α) for all neighbours D, D′ and
    every order α in the curve's valid range (Mironov 2017)."""

    @abc.abstractmethod
    def rdp(self, alpha: float) -> float:
        """The claimed ε(α) at order ``alpha``.

        Raises:
          ValueError: ``alpha`` lies outside the curve's valid range (the claim states
            nothing there).
        """


class ProfileCurve(abc.ABC):
    """The claim states its privacy profile directly: (ε, δ(ε))-DP for every ε ≥ 0, with
    δ(ε) exact or an upper bound (Balle, Barthe & Gaboardi 2018); cheaper to tabulate than
    inverting ``epsilon(δ)`` point by point (a canary audit's trade-off curve,
    :mod:`dpaudit.claims.tradeoff`)."""

    @abc.abstractmethod
    def delta(self, eps: float) -> float:
        """The claimed δ at ``eps`` ≥ 0."""


__all__ = ["ProfileCurve", "RenyiCurve"]
