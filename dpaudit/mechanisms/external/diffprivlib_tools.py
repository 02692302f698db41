"""Adapters for the functions of :mod:`diffprivlib.tools` (``pip install 'dpaudit[diffprivlib]'``).

Each adapter calls one diffprivlib tool (``count_nonzero``, ``sum``, ``mean``, ``var``,
``median``, ``histogram``) on a dataset of records in ``[lower, upper]``, once per output, with
a ``numpy.random.RandomState`` seeded from the audit's ``rng``.  The claim is the ``epsilon``
the call is given (what diffprivlib's ``BudgetAccountant`` charges).  diffprivlib does not
state the tools' neighbouring relation, so the suite audits both add/remove-one and
replace-one datasets and reports which holds.

The median's output law is closed-form (diffprivlib's exponential mechanism over the gaps
between the sorted records, uniform inside the chosen gap): :class:`DplMedian` computes the
exact ε of a pair from it (:func:`median_pieces`).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import PureDP
from dpaudit.exact import discrete_epsilon
from dpaudit.mechanisms.base import NeighbourPair, Parameter
from dpaudit.mechanisms.external.common import seed_from
from dpaudit.mechanisms.external.diffprivlib_mechanisms import DiffprivlibMechanism
from dpaudit.neighbours import NeighbourRelation


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


def median_pieces(lib, records, lower: float, upper: float, epsilon: float):
    """The output law of ``diffprivlib.tools.median(records, epsilon, bounds=(lower, upper))``:
    (points, masses) — the sorted records clipped to the bounds with the bounds appended
    (``points``, k + 2 of them) and the probability of each gap ``[points[i], points[i+1]]``
    (k + 1 of them), inside which the output is uniform.

    It is diffprivlib 0.6.6's ``quantile`` (q = ½): the library's own ``Exponential`` with
    utility −|i − k/2| of gap i, sensitivity 1 and the gap widths as its measure."""
    points = np.sort(np.concatenate([np.clip(np.asarray(records, float), lower, upper),
                                     [lower, upper]]))
    k = len(points) - 2
    utility = list(-np.abs(np.arange(k + 1) - 0.5 * k))
    cumulative = lib.mechanisms.Exponential._find_probabilities(
        float(epsilon), 1.0, utility, False, list(np.diff(points)))
    return points, np.diff(np.asarray(cumulative), prepend=0.0)


def _piece_masses(points, masses, cuts) -> np.ndarray:
    """The law of ``median_pieces`` on the finer grid ``cuts`` (a superset of ``points``)."""
    widths = np.diff(points)
    density = np.divide(masses, widths, out=np.zeros_like(masses), where=widths > 0)
    centres = 0.5 * (cuts[:-1] + cuts[1:])
    gap = np.clip(np.searchsorted(points, centres, side="right") - 1, 0, len(widths) - 1)
    return density[gap] * np.diff(cuts)


class DplMedian(DiffprivlibTool):
    """diffprivlib tools.median of records in bounds: claims ε-DP.

    The output law is piecewise uniform (:func:`median_pieces`), so the exact ε of a pair is
    that of the masses on the common refinement of both datasets' gaps (:meth:`exact_epsilon`).
    """

    name = "diffprivlib-median"
    tool = "median"

    def worst_case_pairs(self):
        """Small datasets where one record moves the median's high-utility gap across most of
        [lower, upper] = [l, l + L].

        *Replace-one*: (l, a, a, u) vs (a, a, u, u), a = l + L/10.  On the first every gap of
        positive width has utility −1 (the output is uniform); on the second [l, a] drops to
        −2 and [a, u] rises to 0, so on [l, a] the density falls by e^{−ε}·(normaliser):
        exact ε = ln(1/10 + (9/10)e^ε) (0.935 at ε = 1), the event [l, a] of mass 10% vs 3.9%.
        It tends to ε as a → l (with an ever smaller event).

        *Add/remove-one*: (b, b, u) vs (b, b, u, u), b = l + L/5.  Adding a record moves every
        rank and the target k/2 together by at most ½, so each gap's utility moves by ½ and
        the median is ε/2-DP under add/remove: this pair's exact ε is
        ln(e^{ε/2}(b′e^{−ε} + 1 − b′)/(b′e^{−ε/2} + 1 − b′)), b′ = 1/5 (0.447 at ε = 1),
        near the attainable ε/2; a claim of ε cannot be certified (detectable ε > ε)."""
        lo, hi = float(self.params["lower"]), float(self.params["upper"])
        a, b = lo + 0.1 * (hi - lo), lo + 0.2 * (hi - lo)
        return [NeighbourPair("add-remove-one", [b, b, hi], [b, b, hi, hi],
                              "add a record at the upper bound: the median's gap moves from "
                              "[b, u] at utility −½ to utility 0 (exact ε ≈ ε/2)"),
                NeighbourPair("replace-one", [lo, a, a, hi], [a, a, hi, hi],
                              "replace the record at the lower bound by one at the upper: "
                              "[l, a] drops two utility levels relative to [a, u]")]

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        """The pair's exact ε(δ): the two piecewise-uniform laws on the union of their gaps."""
        lo, hi, eps = (float(self.params[k]) for k in ("lower", "upper", "epsilon"))
        laws = [median_pieces(self.lib, self.validate_dataset(d), lo, hi, eps) for d in (d0, d1)]
        cuts = np.unique(np.concatenate([laws[0][0], laws[1][0]]))
        p, q = (_piece_masses(points, masses, cuts) for points, masses in laws)
        return discrete_epsilon(delta, p, q, symmetric=True)


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


MECHANISMS = (DplCount, DplSum, DplMean, DplVar, DplMedian, DplHistogram)
