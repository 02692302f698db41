"""Adapters for IBM diffprivlib's mechanisms (``pip install 'dpaudit[diffprivlib]'``).

Every adapter calls diffprivlib's own object, unchanged: ``randomise(value)`` of a mechanism
in :mod:`diffprivlib.mechanisms`, once per output (the tools of :mod:`diffprivlib.tools`:
:mod:`dpaudit.mechanisms.external.diffprivlib_tools`).
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
* tools: see :mod:`dpaudit.mechanisms.external.diffprivlib_tools`.
"""

from __future__ import annotations

import math
import sys
from typing import ClassVar

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import ApproxDP, PureDP
from dpaudit.exact import discrete_epsilon
from dpaudit.mechanisms.base import NeighbourPair, Parameter
from dpaudit.mechanisms.external.common import ExternalMechanism, seed_from, shift_pair
from dpaudit.neighbours import NeighbourRelation, any_single_record, linf


#: ln of the largest float64: e^ε overflows above it
MAX_FLOAT_EXP = math.log(sys.float_info.max)


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

    def check_parameters(self) -> None:
        """diffprivlib 0.6.6's ``GaussianDiscrete._find_scale`` evaluates ``np.exp(ε)`` in
        float64: at ε > ln(float64 max) ≈ 709.78 its objective is NaN and its bracketing loop
        never ends (a constructor that hangs, issue 39 item 7), so such an ε is refused here,
        before diffprivlib is called."""
        if self.epsilon > MAX_FLOAT_EXP:
            raise ValueError(f"diffprivlib GaussianDiscrete cannot be built at epsilon = "
                             f"{self.epsilon:g}: its scale search computes e^epsilon in float64, "
                             f"which overflows above {MAX_FLOAT_EXP:.2f}, and then never stops")
        super().check_parameters()


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
    """diffprivlib Exponential over the candidates of a utility vector: claims ε-DP.

    diffprivlib draws candidate i with probability ∝ exp(β uᵢ), β = ε/(2Δ) (``monotonic``
    False, uniform measure); the pair's exact ε is computed from the library object's own
    probabilities (:meth:`exact_epsilon`)."""

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
        """u = (0, K) vs u′ = (Δ, K − Δ): two candidates whose utilities move by Δ in opposite
        directions, the raised one far below the other (βK = ε + ln 10, β = ε/(2Δ)).

        Why near-worst: P[output 0] is 1/(1 + y) on u and e^ε/(e^ε + y) on u′, y = e^{βK}, a
        ratio e^ε(1 + y)/(e^ε + y) that rises to e^ε as y grows while P[output 0] shrinks; at
        y = 10e^ε the exact ε is ln((1 + 10e^ε)/11) (0.941 at ε = 1) with P[output 0] ≈ 3.5%
        and 9.1%, enough for 50 000 samples to see (ε_LB 0.83, detectable ε 1.11 at ε = 1).
        The swap u = (Δ, 0) vs (0, Δ) this replaces has exact ε = ε/2 and events of rate ≈ 38%
        whose e^ε multiple exceeds 1: its detectable ε was ∞."""
        d = float(self.params["sensitivity"])
        eps = float(self.params["epsilon"])
        far = round(2.0 * d * (eps + math.log(10.0)) / eps, 6)
        return [NeighbourPair("m2-far", [0.0, far], [d, far - d],
                              "m = 2, one utility up by Δ and the other down by Δ, the raised "
                              "one far below (βK = ε + ln 10): exact ε = ln((1 + 10e^ε)/11)")]

    def validate_dataset(self, dataset):
        values = validation.finite_entries("utility", np.asarray(dataset, dtype=float).ravel())
        if values.size < 2:
            raise ValueError(f"{self.name}: a dataset is a utility vector of ≥ 2 candidates, "
                             f"got {dataset!r}")
        return tuple(float(v) for v in values)

    def probabilities(self, dataset) -> np.ndarray:
        """The output law on ``dataset``: diffprivlib's own cumulative probabilities of the
        built object (``_probabilities``), differenced."""
        cumulative = np.asarray(self.build(utility=self.validate_dataset(dataset))._probabilities)
        return np.diff(cumulative, prepend=0.0)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        """The pair's exact ε(δ) from the two output laws (:meth:`probabilities`)."""
        p, q = self.probabilities(d0), self.probabilities(d1)
        if p.size != q.size:
            raise ValueError(f"utility vectors must have the same length, got {p.size} and "
                             f"{q.size}")
        return discrete_epsilon(delta, p, q, symmetric=True)

    def draw(self, value, n, rng):
        mech = self.build(np.random.RandomState(seed_from(rng)), utility=value)
        return np.fromiter((mech.randomise() for _ in range(n)), np.int64, count=n)


class DplPermuteAndFlip(DplExponential):
    """diffprivlib PermuteAndFlip (McKenna & Sheldon 2020): claims ε-DP.

    Its law is not the softmax of :class:`DplExponential` (no exact ε here)."""

    name = "diffprivlib-permute-and-flip"
    lib_class = "PermuteAndFlip"

    def worst_case_pairs(self):
        """u = (Δ, 0) vs (0, Δ): both utilities move by Δ in opposite directions (unchanged).

        Permute-and-flip always accepts the top candidate and accepts the other with
        probability e^{−βΔ} = e^{−ε/2}, reached first half the time: P[output 1] is ½e^{−ε/2}
        on u and 1 − ½e^{−ε/2} on u′, an ε of ln(2e^{ε/2} − 1) (0.832 at ε = 1); at 50 000
        samples it certifies ε_LB 0.80 with detectable ε 1.03 at ε = 1."""
        s = float(self.params["sensitivity"])
        return [NeighbourPair("swap-utilities", [s, 0.0], [0.0, s],
                              "both utilities move by Δ in opposite directions")]

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> None:
        return None


MECHANISMS_SCALAR = (DplLaplace, DplLaplaceTruncated, DplLaplaceFolded, DplLaplaceBoundedDomain,
                     DplLaplaceBoundedNoise, DplGaussian, DplGaussianAnalytic,
                     DplGaussianDiscrete, DplGeometric, DplGeometricTruncated,
                     DplGeometricFolded, DplSnapping, DplStaircase, DplBinary, DplExponential,
                     DplPermuteAndFlip)

MECHANISMS = MECHANISMS_SCALAR
