"""Adapters for IBM diffprivlib (``pip install 'dpaudit[diffprivlib]'``).

Every adapter calls diffprivlib's own object, unchanged: ``randomise(value)`` of a mechanism
in :mod:`diffprivlib.mechanisms`, or a function of :mod:`diffprivlib.tools`, once per output.
The claim is the ε (and δ) the diffprivlib object stores after its own checks
(``mech.epsilon``, ``mech.delta``) — for the tools, the ``epsilon`` the call is given, which is
what diffprivlib's ``BudgetAccountant`` charges.  diffprivlib takes a ``random_state``: each
``sample`` call builds the object with ``numpy.random.RandomState(seed)``, the seed drawn from
the audit's ``rng``, so every draw is reproducible from the seed.

Neighbouring relations, as diffprivlib documents them:

* scalar mechanisms (``sensitivity`` argument): the dataset is the query value, neighbours
  are values at most ``sensitivity`` apart (``|f(D) − f(D′)| ≤ Δ``);
* randomised response (``Binary``): local DP, any two inputs;
* exponential / permute-and-flip (``utility`` argument): utility vectors at most
  ``sensitivity`` apart in every coordinate;
* tools (``count_nonzero``, ``sum``, ``mean``, ``var``, ``histogram``, ``median``): the
  documentation states no neighbouring relation, so the suite audits both add/remove-one and
  replace-one datasets (records in ``bounds``) and reports which holds.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from dpaudit import validation
from dpaudit.claims import ApproxDP, PureDP
from dpaudit.mechanisms.base import NeighbourPair, Parameter
from dpaudit.mechanisms.external.common import ExternalMechanism, seed_from, shift_pair
from dpaudit.neighbours import NeighbourRelation, any_single_record, linf


def _claim(epsilon: float, delta: float):
    return ApproxDP(epsilon=float(epsilon), delta=float(delta)) if delta > 0 else \
        PureDP(epsilon=float(epsilon))


class DiffprivlibMechanism(ExternalMechanism):
    """A scalar mechanism of :mod:`diffprivlib.mechanisms`: ``randomise(value)`` per output."""

    library = "diffprivlib"
    family = "external"
    #: the class name in :mod:`diffprivlib.mechanisms`
    lib_class: ClassVar[str] = ""
    #: whether the output is an integer (geometric, discrete Gaussian)
    integer: ClassVar[bool] = False

    epsilon = Parameter(1.0, validation.positive, "the ε given to diffprivlib")
    sensitivity = Parameter(1.0, validation.positive, "the sensitivity given to diffprivlib")

    def library_kwargs(self) -> dict:
        """The keyword arguments of the diffprivlib constructor (all parameters)."""
        return dict(self.params)

    def build(self, random_state=None):
        """The diffprivlib object, built with this adapter's parameters."""
        cls = getattr(self.lib.mechanisms, self.lib_class)
        return cls(**self.library_kwargs(), random_state=random_state)

    def check_parameters(self) -> None:
        try:
            self.build()
        except (ValueError, TypeError) as exc:
            raise ValueError(f"diffprivlib {self.lib_class} rejects the parameters: {exc}") \
                from None

    @property
    def wraps(self) -> str:  # type: ignore[override]
        return f"diffprivlib.mechanisms.{self.lib_class}"

    def claim(self):
        built = self.build()
        return _claim(built.epsilon, getattr(built, "delta", 0.0))

    def relation(self):
        bound = float(self.params.get("sensitivity", 1.0))
        return NeighbourRelation(f"linf<={bound:g}", f"query values at most the sensitivity "
                                 f"{bound:g} apart (diffprivlib's sensitivity)", linf(bound))

    def worst_case_pairs(self):
        low = float(self.params.get("lower", 0.0))
        return shift_pair(low, low + float(self.params.get("sensitivity", 1.0)))

    def validate_dataset(self, dataset):
        value = super().validate_dataset(dataset)
        if self.integer and value != round(value):
            raise ValueError(f"{self.name}: the value must be an integer, got {value!r}")
        if "lower" in self.params and not self.params["lower"] <= value <= self.params["upper"]:
            raise ValueError(f"{self.name}: the value must lie in [lower, upper] = "
                             f"[{self.params['lower']}, {self.params['upper']}], got {value!r}")
        return int(value) if self.integer else value

    def draw(self, value, n, rng):
        mech = self.build(np.random.RandomState(seed_from(rng)))
        dtype = np.int64 if self.integer else float
        return np.fromiter((mech.randomise(value) for _ in range(n)), dtype=dtype, count=n)


class DplLaplace(DiffprivlibMechanism):
    """diffprivlib Laplace (value − scale·(ln(1−U₁)cos πU₂ + ln(1−U₃)cos πU₄)): claims (ε, δ)-DP."""

    name = "diffprivlib-laplace"
    lib_class = "Laplace"
    delta = Parameter(0.0, validation.delta, "the δ given to diffprivlib (0: pure)")


class DplLaplaceTruncated(DiffprivlibMechanism):
    """diffprivlib LaplaceTruncated: Laplace clipped to [lower, upper]; claims ε-DP."""

    name = "diffprivlib-laplace-truncated"
    lib_class = "LaplaceTruncated"
    lower = Parameter(0.0, validation.number, "the lower end of the domain")
    upper = Parameter(10.0, validation.number, "the upper end of the domain")


class DplLaplaceFolded(DplLaplaceTruncated):
    """diffprivlib LaplaceFolded: Laplace folded into [lower, upper]; claims ε-DP."""

    name = "diffprivlib-laplace-folded"
    lib_class = "LaplaceFolded"


class DplLaplaceBoundedDomain(DplLaplaceTruncated):
    """diffprivlib LaplaceBoundedDomain: Laplace conditioned on [lower, upper]; claims ε-DP."""

    name = "diffprivlib-laplace-bounded-domain"
    lib_class = "LaplaceBoundedDomain"


class DplLaplaceBoundedNoise(DiffprivlibMechanism):
    """diffprivlib LaplaceBoundedNoise: Laplace noise with bounded support; claims (ε, δ)-DP."""

    name = "diffprivlib-laplace-bounded-noise"
    lib_class = "LaplaceBoundedNoise"
    delta = Parameter(0.1, validation.delta, "the δ given to diffprivlib (> 0)")


class DplGaussian(DiffprivlibMechanism):
    """diffprivlib Gaussian (classical calibration, ε ≤ 1): claims (ε, δ)-DP."""

    name = "diffprivlib-gaussian"
    lib_class = "Gaussian"
    epsilon = Parameter(0.5, validation.positive, "the ε given to diffprivlib (≤ 1)")
    delta = Parameter(1e-3, validation.delta, "the δ given to diffprivlib (> 0)")


class DplGaussianAnalytic(DplGaussian):
    """diffprivlib GaussianAnalytic (Balle & Wang 2018 calibration): claims (ε, δ)-DP."""

    name = "diffprivlib-gaussian-analytic"
    lib_class = "GaussianAnalytic"
    epsilon = Parameter(1.0, validation.positive, "the ε given to diffprivlib")


class DplGaussianDiscrete(DplGaussianAnalytic):
    """diffprivlib GaussianDiscrete (Canonne, Kamath & Steinke 2020): claims (ε, δ)-DP."""

    name = "diffprivlib-gaussian-discrete"
    lib_class = "GaussianDiscrete"
    integer = True

    def library_kwargs(self):
        out = dict(self.params)
        out["sensitivity"] = int(out["sensitivity"])
        return out


class DplGeometric(DiffprivlibMechanism):
    """diffprivlib Geometric (two-sided geometric on integers): claims ε-DP."""

    name = "diffprivlib-geometric"
    lib_class = "Geometric"
    integer = True
    sensitivity = Parameter(1, validation.positive_int, "the integer sensitivity")


class DplGeometricTruncated(DplGeometric):
    """diffprivlib GeometricTruncated: geometric clipped to [lower, upper]; claims ε-DP."""

    name = "diffprivlib-geometric-truncated"
    lib_class = "GeometricTruncated"
    lower = Parameter(0, validation.number, "the lower end of the domain (integer)")
    upper = Parameter(10, validation.number, "the upper end of the domain (integer)")

    def library_kwargs(self):
        out = dict(self.params)
        out["lower"], out["upper"] = int(out["lower"]), int(out["upper"])
        return out


class DplGeometricFolded(DplGeometricTruncated):
    """diffprivlib GeometricFolded: geometric folded into [lower, upper]; claims ε-DP."""

    name = "diffprivlib-geometric-folded"
    lib_class = "GeometricFolded"


class DplSnapping(DplLaplaceTruncated):
    """diffprivlib Snapping (Mironov 2012, floating-point safe Laplace): claims ε-DP."""

    name = "diffprivlib-snapping"
    lib_class = "Snapping"


class DplStaircase(DiffprivlibMechanism):
    """diffprivlib Staircase (Geng & Viswanath 2014): claims ε-DP."""

    name = "diffprivlib-staircase"
    lib_class = "Staircase"


class DplBinary(DiffprivlibMechanism):
    """diffprivlib Binary (randomised response on two labels): claims ε-DP (local)."""

    name = "diffprivlib-binary"
    lib_class = "Binary"
    integer = True
    sensitivity = None  # type: ignore[assignment]

    def library_kwargs(self):
        return {"epsilon": self.params["epsilon"], "value0": "0", "value1": "1"}

    def relation(self):
        return NeighbourRelation("any-single-record", "any two input bits (local DP, as "
                                 "diffprivlib's Binary documents)", any_single_record)

    def worst_case_pairs(self):
        return [NeighbourPair("flip", [0], [1], "the only two inputs")]

    def validate_dataset(self, dataset):
        value = super().validate_dataset(dataset)
        if value not in (0, 1):
            raise ValueError(f"{self.name}: the input is a bit 0 or 1, got {value!r}")
        return value

    def draw(self, value, n, rng):
        mech = self.build(np.random.RandomState(seed_from(rng)))
        label = str(value)
        return np.fromiter((int(mech.randomise(label)) for _ in range(n)), np.int64, count=n)


class DplExponential(DiffprivlibMechanism):
    """diffprivlib Exponential over the candidates of a utility vector: claims ε-DP."""

    name = "diffprivlib-exponential"
    lib_class = "Exponential"
    integer = True

    def library_kwargs(self):
        return dict(self.params)

    def build(self, random_state=None, utility=(1.0, 0.0)):
        cls = getattr(self.lib.mechanisms, self.lib_class)
        return cls(**self.library_kwargs(), utility=list(map(float, utility)),
                   random_state=random_state)

    def relation(self):
        bound = float(self.params["sensitivity"])
        return NeighbourRelation(f"linf<={bound:g}", f"utility vectors at most the sensitivity "
                                 f"{bound:g} apart in every coordinate", linf(bound))

    def worst_case_pairs(self):
        s = float(self.params["sensitivity"])
        return [NeighbourPair("swap-utilities", [s, 0.0], [0.0, s],
                              "both utilities move by Δ in opposite directions")]

    def validate_dataset(self, dataset):
        values = validation.finite_entries("utility", np.asarray(dataset, dtype=float).ravel())
        if values.size < 2:
            raise ValueError(f"{self.name}: a dataset is a utility vector of ≥ 2 candidates, "
                             f"got {dataset!r}")
        return tuple(float(v) for v in values)

    def draw(self, value, n, rng):
        mech = self.build(np.random.RandomState(seed_from(rng)), utility=value)
        return np.fromiter((mech.randomise() for _ in range(n)), np.int64, count=n)


class DplPermuteAndFlip(DplExponential):
    """diffprivlib PermuteAndFlip (McKenna & Sheldon 2020): claims ε-DP."""

    name = "diffprivlib-permute-and-flip"
    lib_class = "PermuteAndFlip"


MECHANISMS_SCALAR = (DplLaplace, DplLaplaceTruncated, DplLaplaceFolded, DplLaplaceBoundedDomain,
                     DplLaplaceBoundedNoise, DplGaussian, DplGaussianAnalytic,
                     DplGaussianDiscrete, DplGeometric, DplGeometricTruncated,
                     DplGeometricFolded, DplSnapping, DplStaircase, DplBinary, DplExponential,
                     DplPermuteAndFlip)


def add_remove_or_replace_one(d0, d1) -> tuple[bool, str]:
    """Add/remove one record, or replace one record (the union: diffprivlib's tools do not say
    which they mean, so both kinds of pair are audited)."""
    from dpaudit.neighbours import add_remove_one, replace_one

    ok, why = add_remove_one(d0, d1)
    if ok:
        return ok, why
    ok2, why2 = replace_one(d0, d1)
    return (True, "") if ok2 else (False, f"{why}; {why2}")


class DiffprivlibTool(DiffprivlibMechanism):
    """A function of :mod:`diffprivlib.tools` called on a dataset of records, once per output."""

    tool: ClassVar[str] = ""
    sensitivity = None  # type: ignore[assignment]
    lower = Parameter(0.0, validation.number, "the lower record bound given to diffprivlib")
    upper = Parameter(1.0, validation.number, "the upper record bound given to diffprivlib")

    @property
    def wraps(self) -> str:  # type: ignore[override]
        return f"diffprivlib.tools.{self.tool}"

    def check_parameters(self) -> None:
        if not self.params["lower"] < self.params["upper"]:
            raise ValueError(f"{self.name}: lower must be < upper, got {self.params['lower']}, "
                             f"{self.params['upper']}")

    def claim(self):
        return PureDP(epsilon=float(self.params["epsilon"]))

    def relation(self):
        return NeighbourRelation("add-remove-or-replace-one", "undocumented by diffprivlib: "
                                 "add/remove one record or replace one (both audited)",
                                 add_remove_or_replace_one)

    def worst_case_pairs(self):
        lo, hi = float(self.params["lower"]), float(self.params["upper"])
        base = [lo] * 9
        return [NeighbourPair("add-remove-one", base, base + [hi],
                              "add one record at the upper bound"),
                NeighbourPair("replace-one", base + [lo], base + [hi],
                              "replace one record at the lower bound by one at the upper")]

    def validate_dataset(self, dataset):
        values = validation.finite_entries("records", np.asarray(dataset, dtype=float).ravel())
        if values.size < 1:
            raise ValueError(f"{self.name}: a dataset is a non-empty list of records")
        if values.min() < self.params["lower"] or values.max() > self.params["upper"]:
            raise ValueError(f"{self.name}: records must lie in [lower, upper] = "
                             f"[{self.params['lower']}, {self.params['upper']}]")
        return values

    def call(self, values, random_state):
        """One output of the diffprivlib tool (override for other signatures)."""
        fn = getattr(self.lib.tools, self.tool)
        return fn(values, epsilon=self.params["epsilon"],
                  bounds=(self.params["lower"], self.params["upper"]), random_state=random_state)

    def draw(self, value, n, rng):
        state = np.random.RandomState(seed_from(rng))
        return np.array([self.call(value, state) for _ in range(n)], dtype=float)


class DplCount(DiffprivlibTool):
    """diffprivlib tools.count_nonzero: the number of non-zero records, noised; claims ε-DP."""

    name = "diffprivlib-count-nonzero"
    tool = "count_nonzero"

    def call(self, values, random_state):
        return self.lib.tools.count_nonzero(values, epsilon=self.params["epsilon"],
                                            random_state=random_state)


class DplSum(DiffprivlibTool):
    """diffprivlib tools.sum of records in bounds: claims ε-DP."""

    name = "diffprivlib-sum"
    tool = "sum"


class DplMean(DiffprivlibTool):
    """diffprivlib tools.mean of records in bounds: claims ε-DP."""

    name = "diffprivlib-mean"
    tool = "mean"


class DplVar(DiffprivlibTool):
    """diffprivlib tools.var of records in bounds: claims ε-DP."""

    name = "diffprivlib-var"
    tool = "var"


class DplMedian(DiffprivlibTool):
    """diffprivlib tools.median of records in bounds: claims ε-DP."""

    name = "diffprivlib-median"
    tool = "median"


class DplHistogram(DiffprivlibTool):
    """diffprivlib tools.histogram with ``bins`` equal bins on [lower, upper]: claims ε-DP."""

    name = "diffprivlib-histogram"
    tool = "histogram"
    upper = Parameter(3.0, validation.number, "the upper end of the histogram range")
    bins = Parameter(3, validation.positive_int, "the number of bins")

    def worst_case_pairs(self):
        lo, hi = float(self.params["lower"]), float(self.params["upper"])
        width = (hi - lo) / self.params["bins"]
        first, last = lo + 0.5 * width, hi - 0.5 * width
        base = [first] * 4
        return [NeighbourPair("add-remove-one", base, base + [last],
                              "add one record to the last bin"),
                NeighbourPair("replace-one", base + [first], base + [last],
                              "move one record from the first bin to the last")]

    def call(self, values, random_state):
        hist, _ = self.lib.tools.histogram(values, epsilon=self.params["epsilon"],
                                           bins=self.params["bins"],
                                           range=(self.params["lower"], self.params["upper"]),
                                           random_state=random_state)
        return hist

    def draw(self, value, n, rng):
        state = np.random.RandomState(seed_from(rng))
        return np.array([self.call(value, state) for _ in range(n)], dtype=np.int64)


MECHANISMS_TOOLS = (DplCount, DplSum, DplMean, DplVar, DplMedian, DplHistogram)
MECHANISMS = MECHANISMS_SCALAR + MECHANISMS_TOOLS
