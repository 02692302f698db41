"""Adapters for Tumult Core's noise measurements (``pip install 'dpaudit[tumult]'``).

Tumult Core pins ``numpy<2``, ``pandas<2`` (Python 3.11), ``sympy<1.13`` and ``pyspark<3.6``;
Tumult Analytics 0.21.0 pins ``tmlt.core<0.20``.  So the ``tumult`` extra installs
tmlt.analytics 0.21.0 with the tmlt.core it takes (0.19.1) in an environment of its own, and
``tumult-core`` tmlt.core 0.20.0 alone in another (tests/isolated.py builds and caches both).

Every noise-adding measurement of ``tmlt.core.measurements.noise_mechanisms``, on floats and
on integers, called once per output exactly as Tumult's own pipelines call it:

====================================  ============================  =====================
adapter                               measurement                   claim (privacy_function)
====================================  ============================  =====================
``tumult-laplace`` (``integer``)      ``AddLaplaceNoise``           ε = d_in / b (pure DP)
``tumult-geometric``                  ``AddGeometricNoise``         ε = d_in / α (pure DP)
``tumult-discrete-gaussian``          ``AddDiscreteGaussianNoise``  ρ = d_in² / 2σ² (zCDP)
``tumult-gaussian`` (``integer``)     ``AddGaussianNoise``          ρ = d_in² / 2σ² (zCDP)
====================================  ============================  =====================

tmlt.core 0.20.0 takes float inputs only in ``AddLaplaceNoise`` and ``AddGaussianNoise``
(``integer = true`` is then refused, one line naming the library's message).

**Claim**: the measurement's own ``privacy_function(d_in)`` (an exact rational), read as ε-DP
for ``PureDP`` and ρ-zCDP for ``RhoZCDP``.  **Relation**: ``AbsoluteDifference`` with
``d_in = sensitivity``: the input value moves by at most that (Tumult's input metric).
Tumult samples from its own generator (``tmlt.core.random.rng``, seeded from the OS): the
numpy ``rng`` is ignored (``seedable = False``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import PureDP, ZCDP
from dpaudit.mechanisms.base import Parameter
from dpaudit.mechanisms.external.common import ExternalMechanism, library_version, shift_pair
from dpaudit.neighbours import NeighbourRelation, linf


def exact(value):
    """A parameter as Tumult's ``ExactNumber`` takes it: an int, or the rational the decimal
    a user wrote stands for (0.1 → 1/10; Tumult refuses floats)."""
    import sympy as sp

    value = float(value)
    return int(value) if value.is_integer() else sp.Rational(repr(value))


def _flag(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


class TumultNoise(ExternalMechanism):
    """One Tumult Core noise measurement on one number (see the module docstring)."""

    library = "tmlt.core"
    seedable = False
    #: the class of ``tmlt.core.measurements.noise_mechanisms``
    measurement: ClassVar[str] = ""
    #: the keyword of its noise parameter
    noise_keyword: ClassVar[str] = "scale"
    #: the measurement takes an input domain (float or integer) as its first argument
    has_domain: ClassVar[bool] = True
    #: the measurement's input is an integer whatever ``integer`` says
    integer_only: ClassVar[bool] = False

    noise = Parameter(1.0, validation.positive, "the noise parameter given to Tumult")
    sensitivity = Parameter(1, validation.positive, "d_in: the value's sensitivity")
    integer = Parameter(False, _flag, "integer input (NumpyIntegerDomain) or float")

    @property
    def wraps(self) -> str:  # type: ignore[override]
        domain = "NumpyIntegerDomain" if self.is_integer else "NumpyFloatDomain"
        return (f"tmlt.core.measurements.noise_mechanisms.{self.measurement}"
                + (f"({domain})" if self.has_domain else ""))

    @property
    def is_integer(self) -> bool:
        return self.integer_only or bool(self.params["integer"])

    def build(self):
        from tmlt.core.measurements import noise_mechanisms

        cls = getattr(noise_mechanisms, self.measurement, None)
        if cls is None:  # a tmlt.core without this measurement
            raise ValueError(f"tmlt.core {library_version(self.library)} has no "
                             f"{self.measurement}")
        kwargs = {self.noise_keyword: exact(self.params["noise"])}
        if not self.has_domain:
            return cls(**kwargs)
        from tmlt.core.domains.numpy_domains import NumpyFloatDomain, NumpyIntegerDomain
        domain = NumpyIntegerDomain() if self.is_integer else NumpyFloatDomain()
        return cls(domain, **kwargs)

    def d_in(self):
        return exact(self.params["sensitivity"])

    def check_parameters(self) -> None:
        if self.is_integer and not float(self.params["sensitivity"]).is_integer():
            raise ValueError(f"{self.name}: the sensitivity of an integer input is an integer")
        try:
            self.build().privacy_function(self.d_in())
        except Exception as exc:
            raise ValueError(f"Tumult {self.measurement} rejects the parameters: "
                             f"{str(exc).splitlines()[0]}") from None

    def claim(self):
        meas = self.build()
        value = float(meas.privacy_function(self.d_in()).to_float(round_up=True))
        if type(meas.output_measure).__name__ == "PureDP":
            return PureDP(epsilon=value)
        return ZCDP(rho=value)

    def relation(self):
        s = float(self.params["sensitivity"])
        return NeighbourRelation(f"linf<={s:g}", f"values at most d_in = {s:g} apart "
                                 f"(Tumult AbsoluteDifference)", linf(s))

    def worst_case_pairs(self):
        return shift_pair(0.0, float(self.params["sensitivity"]))

    def validate_dataset(self, dataset):
        value = super().validate_dataset(dataset)
        if self.is_integer:
            if value != round(value):
                raise ValueError(f"{self.name}: the value must be an integer, got {value!r}")
            return int(value)
        return value

    def draw(self, value, n, rng):
        meas = self.build()
        value = np.int64(value) if self.is_integer else np.float64(value)
        return np.fromiter((meas(value) for _ in range(n)),
                           dtype=np.int64 if self.integer_output else float, count=n)

    #: the measurement returns integers
    integer_output: ClassVar[bool] = False


class TumultLaplace(TumultNoise):
    """Tumult Core AddLaplaceNoise (exact inverse-CDF sampling around the value): ε = d_in/b."""

    name = "tumult-laplace"
    measurement = "AddLaplaceNoise"


class TumultGeometric(TumultNoise):
    """Tumult Core AddGeometricNoise (two-sided geometric on integers): ε = d_in/α."""

    name = "tumult-geometric"
    measurement = "AddGeometricNoise"
    noise_keyword = "alpha"
    has_domain = False
    integer_only = True
    integer_output = True


class TumultDiscreteGaussian(TumultNoise):
    """Tumult Core AddDiscreteGaussianNoise (integers): ρ = d_in²/(2σ²)."""

    name = "tumult-discrete-gaussian"
    measurement = "AddDiscreteGaussianNoise"
    noise_keyword = "sigma_squared"
    has_domain = False
    integer_only = True
    integer_output = True


class TumultGaussian(TumultNoise):
    """Tumult Core AddGaussianNoise (value + a sampled float Gaussian): ρ = d_in²/(2σ²)."""

    name = "tumult-gaussian"
    measurement = "AddGaussianNoise"
    noise_keyword = "sigma_squared"


MECHANISMS = (TumultLaplace, TumultGeometric, TumultDiscreteGaussian, TumultGaussian)
