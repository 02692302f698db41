"""The mechanism contract.

A mechanism is a small class holding its parameters.  It provides

* ``sample(dataset, n, rng) -> np.ndarray`` — n independent outputs on one dataset, one per
  row (shape ``(n,)`` for scalar outputs, ``(n, k)`` for vectors), vectorised over n;
* ``claim() -> Claim`` — what it promises (its noise parameters come from the same sympy
  formulas, see :mod:`dpaudit.claims.symbolic`);
* ``neighbouring`` — a one-line statement of its neighbouring relation;
* ``worst_case_pairs() -> list[NeighbourPair]`` — the neighbouring pairs its proof (or the
  literature's counterexample) says are hardest;
* ``true_epsilon()`` — for a *known-bad* mechanism, the literature's value of its real ε
  (possibly ``math.inf``; ``literature`` says where it comes from); ``None`` for correct ones;
* optionally ``exact_epsilon(d0, d1, delta)`` — the exact ε of the pair at δ when the output
  laws are known in closed form (``None`` otherwise), and ``log_density``, ``query``,
  ``sensitivity`` for white- and grey-box audits;
* ``validate_dataset(dataset)`` — a clear ``ValueError`` naming the problem for bad input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpaudit.claims import Claim


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring datasets and why they were chosen."""

    name: str
    d0: Any
    d1: Any
    description: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "d0": _plain(self.d0), "d1": _plain(self.d1),
                "description": self.description}


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


class Mechanism:
    """Base class for dpaudit mechanisms (see module docstring for the contract)."""

    name: ClassVar[str] = "abstract"
    family: ClassVar[str] = "abstract"
    neighbouring: ClassVar[str] = ""
    #: True for the published buggy variants of the known-bad zoo
    known_bad: ClassVar[bool] = False
    #: where the known-bad mechanism's real ε comes from
    literature: ClassVar[str] = ""

    def __init__(self, **params):
        self.params = dict(params)

    # -- contract -------------------------------------------------------------------------
    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def claim(self) -> Claim:
        raise NotImplementedError

    def worst_case_pairs(self) -> list[NeighbourPair]:
        raise NotImplementedError

    def relation(self):
        """The neighbouring relation as a predicate ``(d0, d1) -> (ok, reason)``
        (see :mod:`dpaudit.neighbours`); None when the mechanism does not provide one."""
        return None

    def check_pair(self, d0, d1) -> tuple[bool, str]:
        """Whether (d0, d1) are neighbours under this mechanism's relation, and why not."""
        rel = self.relation()
        if rel is None:
            return True, "relation not checked"
        return rel(self.validate_dataset(d0), self.validate_dataset(d1))

    def true_epsilon(self) -> float | None:
        """The literature's value of the real ε (known-bad mechanisms); None otherwise."""
        return None

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        return None

    def validate_dataset(self, dataset) -> Any:
        """Return the dataset as the mechanism uses it, or raise ValueError naming the problem."""
        return dataset

    # -- helpers --------------------------------------------------------------------------
    def sampler(self):
        """A plain ``sampler(dataset, n, rng)`` callable for the black-box estimator."""
        def _sampler(dataset, n, rng):
            return self.sample(dataset, n, rng)
        _sampler.__name__ = f"{self.name}.sample"
        return _sampler

    def describe(self) -> dict:
        claim = self.claim()
        true_eps = self.true_epsilon()
        return {
            "name": self.name,
            "family": self.family,
            "parameters": dict(self.params),
            "neighbouring": self.neighbouring,
            "claim": claim.to_dict(),
            "known_bad": self.known_bad,
            "true_epsilon": (None if true_eps is None
                             else ("inf" if math.isinf(true_eps) else true_eps)),
            "literature": self.literature,
            "doc": (type(self).__doc__ or "").strip().splitlines()[0] if type(self).__doc__ else "",
        }
