"""Adapters for PyDP, the Python binding of Google's differential-privacy library
(``pip install 'dpaudit[pydp]'``, the ``python-dp`` distribution).

Each adapter calls PyDP's own objects, unchanged, once per output: ``add_noise(value)`` of
:mod:`pydp.algorithms.numerical_mechanisms` (Laplace, Gaussian) or ``quick_result(records)`` of
a fresh :mod:`pydp.algorithms.laplacian` algorithm (Count, BoundedSum, BoundedMean, Median).
The claim is what the PyDP object reports: its ``epsilon`` (and ``delta``).

Neighbouring relations, as Google's library documents them: the numerical mechanisms take a
``sensitivity`` (values at most that far apart); the aggregations bound each user's
contribution (``l0_sensitivity`` partitions, ``linf_sensitivity`` records per partition, both
1 here) and protect adding or removing one user, i.e. one record here.

PyDP draws from its own generator (Google's secure noise on a power-of-two grid) and takes no
seed: the numpy ``rng`` is ignored (``seedable = False``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import ApproxDP, PureDP
from dpaudit.mechanisms.base import NeighbourPair, Parameter
from dpaudit.mechanisms.external.common import ExternalMechanism, shift_pair
from dpaudit.neighbours import NeighbourRelation, add_remove_one, linf


def _claim(obj):
    eps, delta = float(obj.epsilon), float(getattr(obj, "delta", 0.0) or 0.0)
    return ApproxDP(epsilon=eps, delta=delta) if delta > 0 else PureDP(epsilon=eps)


class PyDPNoise(ExternalMechanism):
    """A PyDP numerical mechanism: ``add_noise(value)`` per output."""

    library = "pydp"
    family = "external"
    seedable = False
    lib_class: ClassVar[str] = ""

    epsilon = Parameter(1.0, validation.positive, "the ε given to PyDP")
    sensitivity = Parameter(1.0, validation.positive, "the sensitivity given to PyDP")

    @property
    def wraps(self) -> str:  # type: ignore[override]
        return f"pydp.algorithms.numerical_mechanisms.{self.lib_class}"

    def build(self):
        from pydp.algorithms import numerical_mechanisms
        return getattr(numerical_mechanisms, self.lib_class)(**self.params)

    def check_parameters(self) -> None:
        try:
            self.build()
        except Exception as exc:
            raise ValueError(f"PyDP {self.lib_class} rejects the parameters: {exc}") from None

    def claim(self):
        return _claim(self.build())

    def relation(self):
        s = float(self.params["sensitivity"])
        return NeighbourRelation(f"linf<={s:g}", f"values at most the sensitivity {s:g} apart",
                                 linf(s))

    def worst_case_pairs(self):
        return shift_pair(0.0, float(self.params["sensitivity"]))

    def draw(self, value, n, rng):
        mech = self.build()
        return np.fromiter((mech.add_noise(value) for _ in range(n)), float, count=n)


class PydpLaplace(PyDPNoise):
    """PyDP LaplaceMechanism (Google's secure Laplace on a 2^k grid): claims ε-DP."""

    name = "pydp-laplace"
    lib_class = "LaplaceMechanism"


class PydpGaussian(PyDPNoise):
    """PyDP GaussianMechanism (Google's secure Gaussian): claims (ε, δ)-DP."""

    name = "pydp-gaussian"
    lib_class = "GaussianMechanism"
    delta = Parameter(1e-5, validation.delta, "the δ given to PyDP (> 0)")


class PyDPAggregation(ExternalMechanism):
    """A PyDP algorithm of :mod:`pydp.algorithms.laplacian`: ``quick_result`` per output."""

    library = "pydp"
    family = "external"
    seedable = False
    lib_class: ClassVar[str] = ""
    integer: ClassVar[bool] = False

    epsilon = Parameter(1.0, validation.positive, "the ε given to PyDP")
    lower = Parameter(0.0, validation.number, "lower_bound given to PyDP")
    upper = Parameter(1.0, validation.number, "upper_bound given to PyDP")

    @property
    def wraps(self) -> str:  # type: ignore[override]
        return f"pydp.algorithms.laplacian.{self.lib_class}"

    def build(self):
        from pydp.algorithms import laplacian
        return getattr(laplacian, self.lib_class)(
            epsilon=float(self.params["epsilon"]), lower_bound=float(self.params["lower"]),
            upper_bound=float(self.params["upper"]), dtype="float")

    def check_parameters(self) -> None:
        if not self.params["lower"] < self.params["upper"]:
            raise ValueError(f"{self.name}: lower must be < upper")
        try:
            self.build()
        except Exception as exc:
            raise ValueError(f"PyDP {self.lib_class} rejects the parameters: {exc}") from None

    def claim(self):
        return _claim(self.build())

    def relation(self):
        return NeighbourRelation("add-remove-one", "add/remove one user's record (Google DP: "
                                 "l0 = linf = 1 contribution bounds)", add_remove_one)

    def worst_case_pairs(self):
        lo, hi = float(self.params["lower"]), float(self.params["upper"])
        return [NeighbourPair("add-remove-one", [lo] * 9, [lo] * 9 + [hi],
                              "add one record at the upper bound")]

    def validate_dataset(self, dataset):
        values = validation.finite_entries("records", np.asarray(dataset, dtype=float).ravel())
        return [float(v) for v in values]

    def draw(self, value, n, rng):
        dtype = np.int64 if self.integer else float
        return np.fromiter((self.build().quick_result(list(value)) for _ in range(n)),
                           dtype=dtype, count=n)


class PydpCount(PyDPAggregation):
    """PyDP Count (discrete Laplace on the number of records): claims ε-DP."""

    name = "pydp-count"
    lib_class = "Count"
    integer = True

    def build(self):
        from pydp.algorithms import laplacian
        return laplacian.Count(epsilon=float(self.params["epsilon"]), dtype="float")


class PydpBoundedSum(PyDPAggregation):
    """PyDP BoundedSum of records clamped to [lower, upper]: claims ε-DP."""

    name = "pydp-bounded-sum"
    lib_class = "BoundedSum"


class PydpBoundedMean(PyDPAggregation):
    """PyDP BoundedMean (noisy sum / noisy count, clamped): claims ε-DP."""

    name = "pydp-bounded-mean"
    lib_class = "BoundedMean"


class PydpMedian(PyDPAggregation):
    """PyDP Median (bounded quantile tree): claims ε-DP."""

    name = "pydp-median"
    lib_class = "Median"

    def worst_case_pairs(self):
        """Add one record at the upper bound to nine at the lower (kept: nothing tried does
        better).  No pair of this Median is known to come near ε: its noise is added to counts
        the output is read from, not to the output, and small datasets tried — ``[]`` vs
        ``[u]``, ``[l]`` vs ``[l, u]``, ``[l]·k + [u]·k`` vs one more ``u`` (k = 2, 5, 20) —
        all certified ε_LB ≤ 0.15 at ε = 1 and 30 000 samples (detectable ε 1.05-1.14); PyDP
        takes no seed, so those numbers vary from run to run."""
        return super().worst_case_pairs()


MECHANISMS = (PydpLaplace, PydpGaussian, PydpCount, PydpBoundedSum, PydpBoundedMean,
              PydpMedian)
