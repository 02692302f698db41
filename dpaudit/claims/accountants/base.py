"""An accountant as a claim: the ε(δ) a privacy library reports for a DP-SGD run.

Contract.  An :class:`Accountant` is one method of one library (``"opacus:gdp"``,
``"dp_accounting:pld"``, …).  For :class:`~.parameters.AccountingParameters` it

* ``check(params)`` — raises :class:`~.parameters.AccountantError` (one line) when the
  library is not installed or does not analyse that sampler or relation, *before* any number
  is computed;
* ``epsilon(params, delta)`` — the library's own ε at δ, computed by the library's public API
  as a user calls it (never re-derived here); a library that raises on the parameters is
  reported as an ``AccountantError`` carrying its message;
* ``version()`` — the installed distribution's version.

An accountant may also calibrate (:class:`Calibrates`): ``noise_multiplier(params, ε, δ)`` is
the σ its library's search returns for a target ε at δ (``params.noise_multiplier`` ignored).

:class:`AccountantClaim` is the :class:`~dpaudit.claims.base.Claim` a pipeline states when it
reports that number: "(ε(δ), δ)-DP for every δ > 0, ε(δ) = the accountant's".  It records the
accountant, the parameters, the library and its version; an accountant that is not an upper
bound (Opacus's GDP accountant is a central-limit approximation) is still what the pipeline
claims, and the audit of the claim is what shows it.
"""

from __future__ import annotations

import abc
import contextlib
import functools
import logging
import math
import warnings
from dataclasses import dataclass, field
from importlib import import_module, metadata
from typing import ClassVar

from dpaudit.claims.accountants.parameters import (AccountantError, AccountingParameters,
                                                   Relation, Sampler)
from dpaudit.claims.base import Claim
from dpaudit.util import validation


@contextlib.contextmanager
def quiet_library():
    """The libraries' own warnings and log lines silenced while one computes (Opacus's "GDP
    accounting is experimental", dp_accounting's absl notes on orders it excludes, scipy's
    root-finder warnings): the verdict on the number is what dpaudit reports."""
    logger = logging.getLogger("absl")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


class Accountant(abc.ABC):
    """One accountant of one library (module docstring)."""

    #: ``"library:method"``, as a suite names it
    name: ClassVar[str] = "abstract"
    #: the distribution pip installs (its version is recorded)
    distribution: ClassVar[str] = ""
    #: the module imported to use it
    module: ClassVar[str] = ""
    #: what the library computes, one line (the class or function called)
    source: ClassVar[str] = ""
    relations: ClassVar[tuple[Relation, ...]] = (Relation.ADD_REMOVE,)
    samplers: ClassVar[tuple[Sampler, ...]] = (Sampler.POISSON,)

    def require(self):
        """The library's module, or an AccountantError saying how to install it."""
        try:
            return import_module(self.module)
        except ImportError as exc:
            raise AccountantError(f"accountant {self.name!r} needs {self.distribution}, which "
                                  f"is not installed ({exc}): pip install "
                                  f"{self.distribution}") from None

    def version(self) -> str:
        try:
            return metadata.version(self.distribution)
        except metadata.PackageNotFoundError:
            return "not installed"

    def check(self, params: AccountingParameters) -> None:
        """Raise AccountantError when this accountant cannot state ε for ``params``."""
        self.require()
        if params.relation not in self.relations:
            raise AccountantError(
                f"accountant {self.name!r} does not analyse the {params.relation.value} "
                f"relation (it analyses {', '.join(r.value for r in self.relations)})")
        if params.sampler not in self.samplers:
            raise AccountantError(
                f"accountant {self.name!r} does not analyse the {params.sampler.value} "
                f"sampler (it analyses {', '.join(s.value for s in self.samplers)})")

    def epsilon(self, params: AccountingParameters, delta: float) -> float:
        """The library's ε at ``delta`` (0 < δ < 1) for ``params``."""
        self.check(params)
        try:
            with quiet_library():
                value = float(self.compute(params, delta))
        except AccountantError:
            raise
        except Exception as exc:  # the library's own rejection, as one line
            raise AccountantError(f"{self.name} rejected {params.describe()} at δ={delta:g}: "
                                  f"{type(exc).__name__}: {exc}") from None
        if math.isnan(value) or value < 0:
            raise AccountantError(f"{self.name} returned ε = {value!r} for "
                                  f"{params.describe()} at δ={delta:g}")
        return value

    @abc.abstractmethod
    def compute(self, params: AccountingParameters, delta: float) -> float:
        """The library call itself (``check`` has passed)."""


class Calibrates(abc.ABC):
    """The accountant's library chooses σ for a target ε (noise calibration)."""

    @abc.abstractmethod
    def noise_multiplier(self, params: AccountingParameters, target_epsilon: float,
                         delta: float) -> float:
        """The σ the library's calibration returns (``params.noise_multiplier`` ignored)."""


@functools.lru_cache(maxsize=4096)
def _cached_epsilon(accountant: Accountant, params: AccountingParameters, delta: float) -> float:
    return accountant.epsilon(params, delta)


@dataclass(frozen=True)
class AccountantClaim(Claim):
    """(ε(δ), δ)-DP for every δ ∈ (0, 1), ε(δ) the accountant's number (module docstring);
    at δ = 0 no accountant here states anything (∞)."""

    accountant: Accountant = field(default=None)
    params: AccountingParameters = field(default=None)
    version: str = ""
    notion = "accountant"

    def epsilon(self, delta: float) -> float:
        delta = validation.delta("delta", delta)
        if delta == 0.0:
            return math.inf
        return _cached_epsilon(self.accountant, self.params, float(delta))

    def parameters(self) -> dict:
        return self.params.to_dict()

    def describe(self) -> str:
        return (f"{self.accountant.name} ({self.accountant.distribution} {self.version}, "
                f"{self.accountant.source}): {self.params.describe()}")

    def to_dict(self) -> dict:
        out = super().to_dict()
        out.update(accountant=self.accountant.name, library=self.accountant.distribution,
                   version=self.version, source=self.accountant.source)
        return out


__all__ = ["Accountant", "AccountantClaim", "Calibrates", "quiet_library"]
