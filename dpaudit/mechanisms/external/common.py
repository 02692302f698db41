"""What every adapter of an external DP library shares.

An adapter is a :class:`~dpaudit.mechanisms.base.Mechanism` whose ``sample`` calls the
library's own code, unchanged, ``n`` times (or once with ``n`` inputs where the library has a
vectorised entry point with the same noise), and whose ``claim`` is read from the library
object — its stated ε (and δ), or for OpenDP its privacy map evaluated at the input distance —
never a formula retyped here.

Contract of :class:`ExternalMechanism` subclasses:

* ``library`` — the import name (``"diffprivlib"``), ``extra`` — the dpaudit extra that
  installs it (``pip install 'dpaudit[diffprivlib]'``);
* ``seedable`` — whether the library accepts a seed: then ``sample`` derives it from the numpy
  ``rng`` (the draws are reproducible); otherwise the library draws from its own generator and
  ``rng`` is ignored (the audit's bound stays valid, the run is not reproducible; the audit
  says so in the record's warnings);
* ``draw(value, n, rng)`` — ``n`` outputs of the library on the validated dataset ``value``.

The library is imported only when an adapter is built (:func:`require`), so ``dpaudit list``
and the registry work without any extra installed; building an adapter without its library
raises :class:`LibraryMissing` (an ``ImportError``) with one line naming the extra.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import ClassVar

import numpy as np

from dpaudit.util import validation
from dpaudit.mechanisms.base import Mechanism, NeighbourPair

#: import name → (distribution name on PyPI, dpaudit extra)
LIBRARIES = {"diffprivlib": ("diffprivlib", "diffprivlib"),
             "opendp": ("opendp", "opendp"),
             "pydp": ("python-dp", "pydp"),
             "opacus": ("opacus", "opacus"),
             "torch": ("torch", "opacus"),
             "pipeline_dp": ("pipeline-dp", "pipelinedp"),
             "snsql": ("smartnoise-sql", "smartnoise"),
             "tmlt.core": ("tmlt.core", "tumult"),
             "tmlt.analytics": ("tmlt.analytics", "tumult"),
             # not adapters: the dpsgd family's PLD claim (audits/dpsgd.toml) and the
             # accountants audits/accountants.toml checks
             "dp_accounting": ("dp-accounting", "dpsgd"),
             "prv_accountant": ("prv-accountant", "accountants"),
             "autodp": ("autodp", "accountants")}


class LibraryMissing(ImportError):
    """An adapter was built without its library installed."""


def require(library: str):
    """Import ``library`` (an import name of :data:`LIBRARIES`) or raise :class:`LibraryMissing`
    with a one-line message naming the extra that installs it."""
    try:
        return importlib.import_module(library)
    except ImportError as exc:
        dist, extra = LIBRARIES.get(library, (library, library))
        raise LibraryMissing(f"{library} is not installed (or fails to import: {exc}); "
                             f"pip install 'dpaudit[{extra}]' installs {dist}") from None


def available(library: str) -> bool:
    """Whether ``library`` imports (the condition of a suite's ``requires``)."""
    try:
        require(library)
    except LibraryMissing:
        return False
    return True


def library_version(library: str) -> str:
    """The installed distribution's version, e.g. ``"0.6.6"`` (``"?"`` if unknown)."""
    dist = LIBRARIES.get(library, (library,))[0]
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def seed_from(rng: np.random.Generator) -> int:
    """A 32-bit seed drawn from ``rng``, for libraries that take an integer seed."""
    return int(rng.integers(0, 2 ** 32 - 1))


class ExternalMechanism(Mechanism):
    """Base of the adapters (see the module docstring)."""

    family: ClassVar[str] = "external"
    library: ClassVar[str] = ""
    seedable: ClassVar[bool] = True
    #: the library's own name of what is wrapped, e.g. ``"diffprivlib.mechanisms.Laplace"``
    wraps: ClassVar[str] = ""
    #: the library's sampler is the implementation: audit its float64 representation too
    audit_representation: ClassVar[bool] = True

    def derive(self) -> None:
        require(self.library)
        self.check_parameters()

    @property
    def lib(self):
        """The library module (imported on first use; not stored, so adapters pickle)."""
        return require(self.library)

    def check_parameters(self) -> None:
        """Checks across parameters the library would reject (override)."""

    def validate_dataset(self, dataset) -> float:
        """A one-number dataset: the value the library call receives (override for others)."""
        values = np.asarray(dataset, dtype=float).ravel()
        if values.size != 1:
            raise ValueError(f"{self.name}: a dataset is one number (the query value), "
                             f"got {dataset!r}")
        return float(validation.number("value", values[0].item()))

    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        value = self.validate_dataset(dataset)
        n = validation.draw_request(n, rng)
        return np.asarray(self.draw(value, n, rng))

    def draw(self, value, n: int, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> dict:
        out = super().describe()
        out["library"] = {"name": self.library, "version": library_version(self.library),
                          "wraps": self.wraps, "seedable": self.seedable}
        return out


def shift_pair(low: float, high: float, what: str = "value") -> list[NeighbourPair]:
    """The one pair of one-number datasets at distance ``high − low`` (a sensitivity apart)."""
    return [NeighbourPair("shift-sensitivity", [low], [high],
                          f"the {what} moves by the sensitivity, the most a neighbour can")]
