"""Adapters for OpenDP (``pip install 'dpaudit[opendp]'``), with the ``contrib`` feature on.

Each adapter builds an OpenDP measurement with OpenDP's own constructors and calls it,
unchanged, once per output (the scalar noise mechanisms call the same constructor on a vector
domain once per chunk: OpenDP documents that as the same noise added to each entry
independently).  **The claim is OpenDP's own privacy map evaluated at the input distance**:
``measurement.map(d_in)``, read as ε-DP for ``MaxDivergence`` and ρ-zCDP for
``ZeroConcentratedDivergence``.

Neighbouring relations are OpenDP's input metrics, which it documents exactly:
``absolute_distance`` with ``d_in = sensitivity`` for the noise mechanisms (values at most
``d_in`` apart), ``discrete_distance`` for randomised response (any two inputs),
``symmetric_distance`` with ``d_in = 1`` for the unsized dataset transformations (add/remove
one record) and ``d_in = 2`` for the sized ones (``make_mean`` on a vector domain of known
size: replace one record).

OpenDP samples from its own cryptographically secure generator and takes no seed: the numpy
``rng`` is ignored (``seedable = False``), so a certificate is valid but not reproducible.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import PureDP, ZCDP
from dpaudit.mechanisms.base import NeighbourPair, Parameter
from dpaudit.mechanisms.external.common import ExternalMechanism, shift_pair
from dpaudit.neighbours import (NeighbourRelation, add_remove_one, any_single_record, linf,
                                replace_one)

#: outputs per call of a vectorised measurement
CHUNK = 50_000


def claim_from_map(measurement, d_in):
    """The claim OpenDP's privacy map states at ``d_in``: ε-DP or ρ-zCDP."""
    measure = str(measurement.output_measure)
    value = float(measurement.map(d_in))
    if measure.startswith("MaxDivergence"):
        return PureDP(epsilon=value)
    if measure.startswith("ZeroConcentratedDivergence"):
        return ZCDP(rho=value)
    raise ValueError(f"OpenDP output measure {measure} has no dpaudit claim type here")


class OpenDPMechanism(ExternalMechanism):
    """An OpenDP measurement; ``make()`` builds it, the claim is ``make().map(d_in())``."""

    library = "opendp"
    family = "external"
    seedable = False
    #: the OpenDP constructor(s) wrapped, for the record
    constructor: ClassVar[str] = ""
    integer: ClassVar[bool] = False

    @property
    def wraps(self) -> str:  # type: ignore[override]
        return f"opendp {self.constructor}"

    @property
    def dp(self):
        """``opendp.prelude`` with the contrib feature enabled."""
        self.lib
        import opendp.prelude as dp
        dp.enable_features("contrib")
        return dp

    def make(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def d_in(self):
        return 1

    def check_parameters(self) -> None:
        try:
            self.make()
        except Exception as exc:  # OpenDPException: the library rejects the parameters
            raise ValueError(f"OpenDP {self.constructor} rejects the parameters: "
                             f"{str(exc).splitlines()[0]}") from None

    def claim(self):
        return claim_from_map(self.make(), self.d_in())

    def draw(self, value, n, rng):
        meas = self.make()
        dtype = np.int64 if self.integer else float
        return np.fromiter((meas(value) for _ in range(n)), dtype=dtype, count=n)


class OpenDPScalarNoise(OpenDPMechanism):
    """Noise on one number with ``absolute_distance``; d_in = ``sensitivity``."""

    scale = Parameter(1.0, validation.positive, "the noise scale given to OpenDP")
    sensitivity = Parameter(1.0, validation.positive, "d_in: the query's sensitivity")
    noise: ClassVar[str] = "laplace"

    def _domain(self, vector: bool):
        dp = self.dp
        T = int if self.integer else float
        atom = dp.atom_domain(T=T) if self.integer else dp.atom_domain(T=T, nan=False)
        if vector:
            metric = dp.l1_distance(T=T) if self.noise == "laplace" else dp.l2_distance(T=T)
            return dp.vector_domain(atom), metric
        return atom, dp.absolute_distance(T=T)

    def make(self, vector: bool = False):
        maker = getattr(self.dp.m, f"make_{self.noise}")
        return maker(*self._domain(vector), scale=float(self.params["scale"]))

    def d_in(self):
        s = self.params["sensitivity"]
        return int(s) if self.integer else float(s)

    def check_parameters(self) -> None:
        if self.integer and self.params["sensitivity"] != int(self.params["sensitivity"]):
            raise ValueError(f"{self.name}: the sensitivity of an integer query is an integer")
        super().check_parameters()

    def relation(self):
        s = float(self.params["sensitivity"])
        return NeighbourRelation(f"linf<={s:g}", f"values at most d_in = {s:g} apart "
                                 f"(OpenDP absolute_distance)", linf(s))

    def worst_case_pairs(self):
        return shift_pair(0.0, float(self.params["sensitivity"]))

    def validate_dataset(self, dataset):
        value = super().validate_dataset(dataset)
        if self.integer:
            if value != round(value):
                raise ValueError(f"{self.name}: the value must be an integer, got {value!r}")
            return int(value)
        return value

    def draw(self, value, n, rng):
        meas = self.make(vector=True)
        parts, left = [], n
        while left > 0:
            m = min(left, CHUNK)
            parts.append(np.asarray(meas([value] * m)))
            left -= m
        out = np.concatenate(parts) if parts else np.zeros(0)
        return out.astype(np.int64 if self.integer else float)


class OdpLaplace(OpenDPScalarNoise):
    """OpenDP make_laplace on a float (Canonne et al. discrete Laplace on a 2^k grid): ε = map(Δ)."""

    name = "opendp-laplace"
    constructor = "make_laplace (float)"


class OdpLaplaceInt(OpenDPScalarNoise):
    """OpenDP make_laplace on an integer (discrete Laplace): ε = map(Δ)."""

    name = "opendp-laplace-int"
    constructor = "make_laplace (int)"
    integer = True
    sensitivity = Parameter(1, validation.positive_int, "d_in: the integer sensitivity")


class OdpGaussian(OpenDPScalarNoise):
    """OpenDP make_gaussian on a float (discrete Gaussian on a 2^k grid): ρ-zCDP = map(Δ)."""

    name = "opendp-gaussian"
    constructor = "make_gaussian (float)"
    noise = "gaussian"


class OdpGaussianInt(OdpGaussian):
    """OpenDP make_gaussian on an integer (discrete Gaussian): ρ-zCDP = map(Δ)."""

    name = "opendp-gaussian-int"
    constructor = "make_gaussian (int)"
    integer = True
    sensitivity = Parameter(1, validation.positive_int, "d_in: the integer sensitivity")


class OdpRandomizedResponseBool(OpenDPMechanism):
    """OpenDP make_randomized_response_bool(prob): ε = map(1) under discrete_distance."""

    name = "opendp-randomized-response-bool"
    constructor = "make_randomized_response_bool"
    integer = True
    prob = Parameter(0.75, validation.positive, "probability of the true bit, in [0.5, 1)")

    def make(self):
        return self.dp.m.make_randomized_response_bool(prob=float(self.params["prob"]))

    def relation(self):
        return NeighbourRelation("any-single-record", "any two input bits (OpenDP "
                                 "discrete_distance, d_in = 1)", any_single_record)

    def worst_case_pairs(self):
        return [NeighbourPair("flip", [0], [1], "the only two inputs")]

    def validate_dataset(self, dataset):
        value = super().validate_dataset(dataset)
        if value not in (0, 1):
            raise ValueError(f"{self.name}: the input is a bit 0 or 1, got {value!r}")
        return bool(value)

    def draw(self, value, n, rng):
        meas = self.make()
        return np.fromiter((int(meas(value)) for _ in range(n)), np.int64, count=n)


class OpenDPAggregate(OpenDPMechanism):
    """A transformation chain on a list of float records, then Laplace noise."""

    scale = Parameter(1.0, validation.positive, "the Laplace scale given to OpenDP")
    lower = Parameter(0.0, validation.number, "the lower clamp bound")
    upper = Parameter(1.0, validation.number, "the upper clamp bound")

    def check_parameters(self) -> None:
        if not self.params["lower"] < self.params["upper"]:
            raise ValueError(f"{self.name}: lower must be < upper")
        super().check_parameters()

    def _records(self):
        dp = self.dp
        return dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()

    def relation(self):
        return NeighbourRelation("add-remove-one", "add/remove one record (OpenDP "
                                 "symmetric_distance, d_in = 1)", add_remove_one)

    def worst_case_pairs(self):
        lo, hi = float(self.params["lower"]), float(self.params["upper"])
        return [NeighbourPair("add-remove-one", [lo] * 9, [lo] * 9 + [hi],
                              "add one record at the upper bound")]

    def validate_dataset(self, dataset):
        values = validation.finite_entries("records", np.asarray(dataset, dtype=float).ravel())
        return [float(v) for v in values]


class OdpCount(OpenDPAggregate):
    """OpenDP make_count >> then_laplace: ε = map(1) under symmetric_distance."""

    name = "opendp-count"
    constructor = "make_count >> then_laplace"
    integer = True

    def make(self):
        dp = self.dp
        return dp.t.make_count(*self._records()) >> dp.m.then_laplace(
            scale=float(self.params["scale"]))


class OdpSum(OpenDPAggregate):
    """OpenDP make_clamp >> then_sum >> then_laplace: ε = map(1) under symmetric_distance."""

    name = "opendp-sum"
    constructor = "make_clamp >> then_sum >> then_laplace"

    def make(self):
        dp = self.dp
        return (dp.t.make_clamp(*self._records(), bounds=(float(self.params["lower"]),
                                                          float(self.params["upper"])))
                >> dp.t.then_sum() >> dp.m.then_laplace(scale=float(self.params["scale"])))


class OdpMean(OpenDPAggregate):
    """OpenDP make_mean on a sized bounded domain >> then_laplace: ε = map(2) (replace one)."""

    name = "opendp-mean"
    constructor = "make_mean (sized) >> then_laplace"
    scale = Parameter(0.1, validation.positive, "the Laplace scale given to OpenDP")
    size = Parameter(10, validation.positive_int, "the public dataset size")

    def make(self):
        dp = self.dp
        bounds = (float(self.params["lower"]), float(self.params["upper"]))
        domain = dp.vector_domain(dp.atom_domain(bounds=bounds, nan=False),
                                  size=int(self.params["size"]))
        return dp.t.make_mean(domain, dp.symmetric_distance()) >> dp.m.then_laplace(
            scale=float(self.params["scale"]))

    def d_in(self):
        return 2

    def relation(self):
        return NeighbourRelation("replace-one", f"replace one of the {self.params['size']} "
                                 f"records (OpenDP symmetric_distance, d_in = 2, sized domain)",
                                 replace_one)

    def worst_case_pairs(self):
        lo, hi, k = float(self.params["lower"]), float(self.params["upper"]), self.params["size"]
        return [NeighbourPair("replace-one", [lo] * k, [lo] * (k - 1) + [hi],
                              "replace one record at the lower bound by one at the upper")]

    def validate_dataset(self, dataset):
        values = super().validate_dataset(dataset)
        if len(values) != self.params["size"]:
            raise ValueError(f"{self.name}: a dataset has exactly size = {self.params['size']} "
                             f"records, got {len(values)}")
        if min(values) < self.params["lower"] or max(values) > self.params["upper"]:
            raise ValueError(f"{self.name}: records must lie in [lower, upper]")
        return values


MECHANISMS = (OdpLaplace, OdpLaplaceInt, OdpGaussian, OdpGaussianInt, OdpRandomizedResponseBool,
              OdpCount, OdpSum, OdpMean)
