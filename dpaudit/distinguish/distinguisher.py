"""Distinguishers: what turns the selection split into the statistics whose events are tested.

Contract.  A :class:`Distinguisher` is fitted on the selection split only — the outputs
``x0`` drawn on d0 and ``x1`` drawn on d1 — and returns :class:`FittedStatistics`: real-valued
statistics s(o) of one output (:class:`~dpaudit.distinguish.statistics.Statistic`) and a label
of what was fitted.  Once fitted, every statistic is a fixed measurable function, so the events
{s ≥ t} and {s ≤ t} scored on the selection split and counted on fresh certification samples
give a valid certificate whatever the fit did (step 1 of the procedure in
:mod:`dpaudit.distinguish.lower_bound`).  A distinguisher may use what :class:`FitContext`
holds besides the outputs (the two datasets, the seed, the mechanism's log-density); it says
what it needs with class attributes, so a caller can refuse a request before sampling.

The table :data:`DISTINGUISHER_CLASSES` maps each name to its class — the built-in ones below,
then those added with :func:`register_distinguisher` or by a plug-in's entry point in the
``dpaudit.distinguishers`` group (the entry point's name is the distinguisher's ``name``,
its value names the class); :func:`distinguisher_names` lists them all and
:data:`DISTINGUISHERS` the built-in ones, in the order the public API has always listed them.
A distinguisher that needs the mechanism's log-density (``needs_log_density``) is the
white-box test, which suites and the API ask for with ``white_box``, not by name.

======================  ===================================================================
name                    statistics
======================  ===================================================================
``auto``                :func:`~dpaudit.distinguish.auto.fit_auto_statistics`, plus logistic
                        regression for continuous vector outputs
``statistics``          :func:`~dpaudit.distinguish.auto.fit_auto_statistics` only
``logistic``            a logistic-regression score (:mod:`dpaudit.distinguish.learned`)
``boosting``            a gradient-boosting score (:mod:`dpaudit.distinguish.learned`)
``white-box``           the privacy loss log p₀(o) − log p₁(o); needs ``log_density``
``projection``          the mean-difference projection, fitted on half the selection split
======================  ===================================================================
"""

from __future__ import annotations

import abc
import warnings
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

import numpy as np

from dpaudit.distinguish import learned
from dpaudit.distinguish.auto import fit_auto_statistics
from dpaudit.distinguish.statistics import Linear, Sanitizer, Statistic
from dpaudit.util.plugins import EntryPointRows


@dataclass(frozen=True)
class FitContext:
    """What a distinguisher may use besides the selection outputs.

    Attributes:
      d0, d1: the neighbouring datasets the two sides were drawn on.
      seed: the certificate's seed (the entropy of every stream it draws), for randomised fits.
      log_density: ``log_density(dataset, outputs)`` → ln p_D(o) per row, or None.
      representation: also fit statistics of the float64 representation of continuous
        outputs (:mod:`dpaudit.distinguish.floating`), where the distinguisher supports it.
    """

    d0: Any
    d1: Any
    seed: int
    log_density: Callable | None = None
    representation: bool = False


@dataclass(frozen=True)
class FittedStatistics:
    """The statistics a distinguisher fitted, and what it reports as the output kind.

    Attributes:
      statistics: the fitted statistics; candidate events refer to them by index.
      kind: a label of the outputs or of the fit (``"continuous scalar"``,
        ``"logistic regression"``, ``"white-box"`` …), reported as ``output_kind``.
    """

    statistics: tuple[Statistic, ...]
    kind: str


class Distinguisher(abc.ABC):
    """Fits, on the selection split only, the statistics whose events are certified."""

    #: the name the API, suites and reports use
    name: ClassVar[str] = "abstract"
    #: whether :meth:`fit` needs ``FitContext.log_density`` (white-box)
    needs_log_density: ClassVar[bool] = False

    def may_fit_thresholds_only(self, width: int) -> bool:
        """Whether :meth:`fit` may return only statistics that are ``threshold_only``
        (:class:`~dpaudit.distinguish.statistics.Statistic`) for outputs of ``width`` values,
        so that a short (pilot) selection split may be enough
        (:func:`dpaudit.distinguish.lower_bound.select`).  False unless a subclass says so."""
        return False

    @abc.abstractmethod
    def fit(self, x0: np.ndarray, x1: np.ndarray, context: FitContext) -> FittedStatistics:
        """Fit on the selection outputs ``x0`` (drawn on d0) and ``x1`` (on d1).

        ``x0`` and ``x1`` have the same shape after the first axis: ``(n,)`` for scalar
        outputs, ``(n, k)`` for vectors.  The result must not depend on any certification
        sample (none has been drawn yet), and never on the order of later calls.
        """


class StatisticsDistinguisher(Distinguisher):
    """``statistics``: the fitted statistics of :func:`fit_auto_statistics` only."""

    name = "statistics"

    def may_fit_thresholds_only(self, width):
        return width == 1  # the output itself, and the two-sided spread statistics

    def fit(self, x0, x1, context):
        stats, kind = fit_auto_statistics(x0, x1, representation=context.representation)
        return FittedStatistics(tuple(stats), kind)


class AutoDistinguisher(Distinguisher):
    """``auto``: the fitted statistics, plus logistic regression (on raw and simple nonlinear
    features) for continuous vector outputs.

    Not gradient boosting: in benchmarks/learned.py (d-dim Gaussians, d ≤ 50, and Laplace
    products at 10⁶ samples) boosting never beat the fitted statistics and cost 4–10× more
    time; it stays available by name.  Without scikit-learn, a ``RuntimeWarning`` and the
    fitted statistics only."""

    name = "auto"

    def may_fit_thresholds_only(self, width):
        return width == 1  # the output itself, and the two-sided spread statistics

    def fit(self, x0, x1, context):
        stats, kind = fit_auto_statistics(x0, x1, representation=context.representation)
        if x0.ndim == 2 and kind != "discrete vector":
            try:
                stats.append(learned.fit_classifier(x0, x1, "logistic regression",
                                                    context.seed))
            except ImportError:
                warnings.warn("scikit-learn is not installed: the auto distinguisher uses "
                              "fitted statistics only (pip install 'dpaudit[ml]' adds the "
                              "learned ones)", RuntimeWarning, stacklevel=2)
        return FittedStatistics(tuple(stats), kind)


class ClassifierDistinguisher(Distinguisher):
    """A trained classifier's log-odds score (:func:`learned.fit_classifier`), trained on the
    first rows of the selection split; the output kind reported is the model's name."""

    @property
    @abc.abstractmethod
    def model(self) -> str:
        """The model :func:`learned.fit_classifier` trains (``"logistic regression"`` …)."""

    def fit(self, x0, x1, context):
        return FittedStatistics((learned.fit_classifier(x0, x1, self.model, context.seed),),
                                self.model)


class LogisticDistinguisher(ClassifierDistinguisher):
    """``logistic``: logistic regression on [z, z², |z|] of the standardised output."""

    name = "logistic"
    model = "logistic regression"


class BoostingDistinguisher(ClassifierDistinguisher):
    """``boosting``: histogram gradient boosting on the standardised output."""

    name = "boosting"
    model = "gradient boosting"


class WhiteBoxDistinguisher(Distinguisher):
    """``white-box``: the privacy loss log p₀(o) − log p₁(o) (:class:`learned.PrivacyLoss`),
    whose level sets are the most powerful tests (Neyman–Pearson); nothing is fitted."""

    name = "white-box"
    needs_log_density = True

    def may_fit_thresholds_only(self, width):
        return True  # the privacy loss: nothing is fitted

    def fit(self, x0, x1, context):
        if context.log_density is None:
            raise ValueError(f"the {self.name} distinguisher needs "
                             f"log_density(dataset, outputs)")
        return FittedStatistics(
            (learned.PrivacyLoss(context.log_density, context.d0, context.d1),), "white-box")


class ProjectionDistinguisher(Distinguisher):
    """``projection``: w·(o − c) with w the difference of the two sides' means and c their
    midpoint, fitted on the first half of the selection split (its thresholds are scored on
    the other half, ``fit_rows``)."""

    name = "projection"

    def fit(self, x0, x1, context):
        a = x0 if x0.ndim == 2 else x0[:, None]
        b = x1 if x1.ndim == 2 else x1[:, None]
        n_fit = max(1, min(len(a), len(b)) // 2)  # fit on one half, score on the other
        a, b = a[:n_fit], b[:n_fit]
        san = Sanitizer(np.concatenate([a, b]))
        diff = san(a).mean(axis=0) - san(b).mean(axis=0)
        center = 0.5 * (san(a).mean(axis=0) + san(b).mean(axis=0))
        stat = Linear(diff, center, san, "mean-difference projection")
        stat.fit_rows = n_fit
        return FittedStatistics((stat,), "projection")


#: name → class, in the order of :data:`DISTINGUISHERS`
DISTINGUISHER_CLASSES: dict[str, type[Distinguisher]] = {
    cls.name: cls for cls in (AutoDistinguisher, StatisticsDistinguisher, LogisticDistinguisher,
                              BoostingDistinguisher, WhiteBoxDistinguisher,
                              ProjectionDistinguisher)}

#: the built-in distinguisher names, as the ``distinguisher=`` option of the estimators
#: accepts them (:func:`distinguisher_names` adds the registered ones)
DISTINGUISHERS = tuple(DISTINGUISHER_CLASSES)
#: the entry-point group of plug-in distinguishers
ENTRY_POINT_GROUP = "dpaudit.distinguishers"


def register_distinguisher(cls: type[Distinguisher]) -> type[Distinguisher]:
    """Add a distinguisher class to the table under its ``name`` (usable as a decorator).

    Raises:
      ValueError: not a Distinguisher subclass with a name, or the name is taken by another
        class.
    """
    if not (isinstance(cls, type) and issubclass(cls, Distinguisher)) or not cls.name:
        raise ValueError(f"{cls!r} is not a Distinguisher subclass with a name")
    held = DISTINGUISHER_CLASSES.get(cls.name)
    if held is not None and held is not cls:
        raise ValueError(f"distinguisher {cls.name!r} is already {held.__qualname__}")
    DISTINGUISHER_CLASSES[cls.name] = cls
    return cls


_PLUGINS = EntryPointRows(ENTRY_POINT_GROUP, "name", register_distinguisher)


def distinguisher_names(*, selectable: bool = False) -> tuple[str, ...]:
    """Every distinguisher's name, built-ins first; with ``selectable``, only those a suite or
    the API may name (not the ones that need a log-density: the white-box test has its own
    switch)."""
    _PLUGINS.load()
    return tuple(n for n, cls in DISTINGUISHER_CLASSES.items()
                 if not (selectable and cls.needs_log_density))


def get_distinguisher(name: str) -> Distinguisher:
    """The distinguisher called ``name``.

    Raises:
      ValueError: ``name`` is not one of :func:`distinguisher_names` (the message lists them).
    """
    if isinstance(name, str) and name not in DISTINGUISHER_CLASSES:
        _PLUGINS.load()
    cls = DISTINGUISHER_CLASSES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"distinguisher must be one of {', '.join(distinguisher_names())}, "
                         f"got {name!r}")
    return cls()


__all__ = ["DISTINGUISHERS", "DISTINGUISHER_CLASSES", "ENTRY_POINT_GROUP", "AutoDistinguisher",
           "BoostingDistinguisher", "ClassifierDistinguisher", "Distinguisher", "FitContext", "FittedStatistics",
           "LogisticDistinguisher", "ProjectionDistinguisher", "StatisticsDistinguisher",
           "WhiteBoxDistinguisher", "distinguisher_names", "get_distinguisher",
           "register_distinguisher"]
