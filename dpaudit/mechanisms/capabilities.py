"""Optional capabilities of a mechanism, one abstract mixin each.

Every :class:`~dpaudit.mechanisms.base.Mechanism` can be sampled and states a claim.  Some
know more about themselves, and the audits that use that knowledge ask for it by type:
a mechanism *declares* a capability by inheriting its mixin (and so must implement the
mixin's abstract methods — Python refuses to instantiate it otherwise), and a caller asks with
``isinstance(mechanism, LogDensity)``, never by probing for a method name.

=====================  ==========================================  ==================================
mixin                  provides                                    used by
=====================  ==========================================  ==================================
:class:`LogDensity`    ``log_density(dataset, outputs)``           white-box (likelihood-ratio) audits
:class:`DeterministicQuery`  ``query(dataset)``                    noise calibration (residuals)
:class:`GreyBoxQuery`  ``query`` + ``sensitivity()`` + norm        grey-box sensitivity search
:class:`SearchableDatasets`  ``dataset_space()``                   grey-box random/optimiser search
:class:`ExactRenyi`    ``exact_renyi(d0, d1, alpha)``              exact Rényi curves of a pair
:class:`BracketedEpsilon`  ``epsilon_bracket(d0, d1, delta)``      the exact-curve check (numerical)
:class:`ClosedFormSeries`  ``series(quantity, d0, d1, values, …)`` ``[[series]]`` figure data
:class:`CalibratedNoise`  ``noise() -> Noise``                     ``dpaudit check`` calibration
=====================  ==========================================  ==================================

Contract: a mechanism inherits a mixin only if the capability holds for every parameter
value it accepts (a method that would answer "not supported" must not be declared).  A
method may still answer ``None`` for one *pair* it cannot handle where its docstring says so
(``exact_renyi``, ``epsilon_bracket``).  This module imports nothing from the rest of dpaudit
except the :class:`~dpaudit.mechanisms.noise.Noise` and
:class:`~dpaudit.evidence.exact_curve.EpsilonBracket` value types.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

import numpy as np

from dpaudit.evidence.exact_curve import EpsilonBracket
from dpaudit.mechanisms.noise import Noise


class LogDensity(abc.ABC):
    """The output law is known in closed form: ``log_density(dataset, outputs)``.

    For outputs ``y`` of shape ``(n, …)`` (rows as :meth:`Mechanism.sample` returns them),
    the result has shape ``(n,)``: ln p_D(yᵢ) — a density for continuous outputs, a
    probability mass for discrete ones — with ``-inf`` outside the support and never NaN.
    Two datasets' log-densities are comparable (same base measure), so their difference is
    the privacy-loss random variable the white-box audit thresholds.
    """

    @abc.abstractmethod
    def log_density(self, dataset, outputs) -> np.ndarray:
        """ln p_D(y) for every row y of ``outputs`` (shape ``(n,)``)."""


class DeterministicQuery(abc.ABC):
    """The mechanism adds noise to (or selects by) a deterministic ``query(dataset)``.

    ``query(D)`` is the noiseless value the sampler perturbs (a number or an array); the
    calibration check compares ``sample(D) − query(D)`` with the claimed noise law.
    """

    @abc.abstractmethod
    def query(self, dataset) -> Any:
        """The deterministic value q(D) (validates the dataset first)."""


class GreyBoxQuery(DeterministicQuery):
    """A query with a declared sensitivity: ‖q(D) − q(D′)‖ ≤ Δ for all neighbours D ~ D′.

    The norm is :attr:`sensitivity_norm` (``"l1"``, ``"l2"`` or ``"linf"``; all agree for a
    scalar query).  The grey-box check searches neighbouring pairs for a larger distance.
    """

    #: the norm in which ``sensitivity()`` bounds ‖query(D) − query(D′)‖
    sensitivity_norm: ClassVar[str] = "l2"

    @abc.abstractmethod
    def sensitivity(self) -> float:
        """The claimed sensitivity Δ > 0 (a finite number)."""


class SearchableDatasets(abc.ABC):
    """The mechanism names the space of datasets it accepts, for pair searches.

    ``dataset_space()`` returns a :class:`dpaudit.neighbours.spaces.DatasetSpace` every pair
    of which is neighbouring under the mechanism's relation; the grey-box check draws random
    pairs, hypothesis examples and optimiser starts from it.
    """

    @abc.abstractmethod
    def dataset_space(self):
        """The :class:`~dpaudit.neighbours.spaces.DatasetSpace` of valid datasets."""


class ExactRenyi(abc.ABC):
    """The exact Rényi divergence of a pair is known: ``exact_renyi(d0, d1, alpha)``.

    Returns max(D_α(P₀‖P₁), D_α(P₁‖P₀)) of the two output laws (the pair's exact RDP ε(α)),
    or ``None`` for a pair the closed form does not cover.
    """

    @abc.abstractmethod
    def exact_renyi(self, d0, d1, alpha: float) -> float | None:
        """The pair's exact symmetric Rényi ε at order α > 1 (``None``: not known)."""


class BracketedEpsilon(abc.ABC):
    """A pair's ε(δ) is known to lie in a numerical bracket: ``epsilon_bracket(d0, d1, delta)``.

    Returns an :class:`~dpaudit.evidence.exact_curve.EpsilonBracket` ``[lower, upper]`` whose
    ends hold by the stated method (e.g. a privacy-loss distribution discretised
    optimistically for ``lower`` and pessimistically for ``upper``) up to its relative
    floating-point ``tolerance``, or ``None`` for a pair the method does not cover.  The
    exact-curve check (:mod:`dpaudit.audit.procedures.exact_curve`) prefers it to
    :meth:`~dpaudit.mechanisms.base.Mechanism.exact_epsilon`.
    """

    @abc.abstractmethod
    def epsilon_bracket(self, d0, d1, delta: float) -> EpsilonBracket | None:
        """The pair's ε(δ) bracket (``None``: not known for this pair)."""


class ClosedFormSeries(abc.ABC):
    """Closed-form quantities over a swept parameter, for figures (nothing certified).

    ``series(quantity, d0, d1, values, **options)`` returns a dict whose entries are lists
    aligned with ``values``; an unknown ``quantity`` raises ``ValueError`` naming the known
    ones.  A ``[[series]]`` entry of a suite calls it.
    """

    @abc.abstractmethod
    def series(self, quantity: str, d0, d1, values, **options) -> dict:
        """The named quantity at every value of the swept parameter."""


class CalibratedNoise(abc.ABC):
    """The sampler draws from a named noise law whose parameters the claim states.

    ``noise()`` returns a :class:`~dpaudit.mechanisms.noise.Noise` whose ``parameters`` are
    evaluated from the *claim* (:meth:`Mechanism.claimed_value`), never read back from the
    attributes the sampler uses; ``dpaudit check`` samples the mechanism and tests those
    values against the real output.

    :attr:`noise_depends_on_dataset` is False when the stated values hold on *every* dataset
    (the usual contract: the noise is calibrated to Δ and ε only), so the check samples further
    datasets of the mechanism's ``dataset_space()`` too; a mechanism whose noise is
    data-dependent by design (e.g. σ_X of DP-LSW) sets it True, and its values are checked on
    its declared probe only.
    """

    #: the claimed noise values hold on the declared probe only (data-dependent noise)
    noise_depends_on_dataset: ClassVar[bool] = False

    @abc.abstractmethod
    def noise(self) -> Noise:
        """The noise law and the claimed values of its parameters."""


#: every capability mixin, in the order ``describe()`` lists them
CAPABILITIES: tuple[type, ...] = (LogDensity, DeterministicQuery, GreyBoxQuery,
                                  SearchableDatasets, ExactRenyi, BracketedEpsilon,
                                  ClosedFormSeries,
                                  CalibratedNoise)


def capabilities_of(mechanism) -> list[str]:
    """The names of the capability mixins ``mechanism`` (an instance or a class) declares."""
    cls = mechanism if isinstance(mechanism, type) else type(mechanism)
    return [cap.__name__ for cap in CAPABILITIES if issubclass(cls, cap)]


__all__ = ["CAPABILITIES", "BracketedEpsilon", "CalibratedNoise", "ClosedFormSeries", "DeterministicQuery",
           "ExactRenyi", "GreyBoxQuery", "LogDensity", "SearchableDatasets", "capabilities_of"]
