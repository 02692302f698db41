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
* ``validate_dataset(dataset)`` — a clear ``ValueError`` naming the problem for bad input;
* optionally, for ``dpaudit check`` (:mod:`dpaudit.check`): ``dataset_space()`` — the
  :class:`dpaudit.neighbours.spaces.DatasetSpace` of datasets it accepts, searched for pairs
  whose ‖query(D) − query(D′)‖ (in ``sensitivity_norm``) exceeds ``sensitivity()``; and
  ``noise()`` — a :class:`Noise` naming the law its sampler draws from and the parameter
  values its *claim* states, which the check compares with the sampler's real output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
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


#: noise laws :mod:`dpaudit.check.calibration` can check, and the parameters each names
NOISE_LAWS = {
    "laplace": "M(D) = query(D) + Z, Zᵢ i.i.d. Lap(0, b) per output coordinate; parameter b",
    "gaussian": "M(D) = query(D) + Z, Zᵢ i.i.d. N(0, σ²) per output coordinate; parameter sigma",
    "l2-laplace": "M(D) = query(D) + V, V with density ∝ exp(−‖V‖₂/a) on the whole output "
                  "vector (ℓ₂/high-dimensional Laplace); parameter a (any name)",
    "geometric": "integer M(D) = query(D) + Z, P(Z = z) = (1−α)/(1+α)·α^|z|; parameter alpha",
    "randomized-response": "output = the record with probability p_true, else another of k "
                           "values uniformly; parameter p_true, option k",
    "exponential-mechanism": "output i with probability ∝ exp(β·uᵢ), u = query(D); "
                             "parameter beta",
    "noisy-max-argmax": "argmaxᵢ (qᵢ + Zᵢ), Zᵢ i.i.d. with scale b; parameter b, option "
                        "distribution = 'laplace' | 'exponential'",
    "noisy-max-value": "maxᵢ (qᵢ + Zᵢ), Zᵢ i.i.d. with scale b; parameter b, option "
                       "distribution = 'laplace' | 'exponential'",
    "svt-patterns": "sparse vector ⊤/⊥ patterns (or released values, ⊤ = finite) with "
                    "threshold noise Lap(b_rho) and query noise Lap(b_nu); options threshold, "
                    "c (cutoff, None for none)",
}


@dataclass(frozen=True)
class Noise:
    """The noise law a mechanism's sampler draws from, with the values its claim states.

    ``law`` is a key of :data:`NOISE_LAWS`; ``parameters`` maps each calibrated parameter
    (Laplace scale ``b``, Gaussian ``sigma``, geometric ``alpha``, RR ``p_true``, exponential
    mechanism ``beta`` …) to the value the *claim* states — evaluated from the claim's own
    equation ``name = formula`` (see :meth:`Mechanism.claimed_value`), never read back from
    the attribute the sampler uses, so a sampler that drifts from its claim is caught.
    ``options`` holds fixed facts the law needs (``k``, ``threshold``, ``c``,
    ``distribution``); ``probe`` is the dataset to sample on (``None``: d0 of the first
    worst-case pair); ``source`` says where the values come from."""

    law: str
    parameters: dict
    options: dict = field(default_factory=dict)
    probe: Any = None
    source: str = ""

    def to_dict(self) -> dict:
        return {"law": self.law, "parameters": dict(self.parameters),
                "options": {k: _plain(v) for k, v in self.options.items()},
                "probe": _plain(self.probe), "source": self.source}


class Mechanism:
    """Base class for dpaudit mechanisms (see module docstring for the contract)."""

    name: ClassVar[str] = "abstract"
    family: ClassVar[str] = "abstract"
    neighbouring: ClassVar[str] = ""
    #: True for the published buggy variants of the known-bad zoo
    known_bad: ClassVar[bool] = False
    #: where the known-bad mechanism's real ε comes from
    literature: ClassVar[str] = ""
    #: the norm in which ``sensitivity()`` bounds ‖query(D) − query(D′)‖: "l1", "l2" or
    #: "linf" (all agree for scalar queries)
    sensitivity_norm: ClassVar[str] = "l2"

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

    # -- contract for `dpaudit check` (optional) --------------------------------------------
    def dataset_space(self):
        """The :class:`dpaudit.neighbours.spaces.DatasetSpace` of datasets this mechanism
        accepts, under its neighbouring relation (every pair it yields must satisfy
        ``relation()``); the grey-box sensitivity search draws pairs from it.  ``None``: the
        search uses only ``worst_case_pairs()``."""
        return None

    def noise(self) -> Noise | None:
        """The :class:`Noise` law the sampler draws from, with the parameter values the
        claim states (use :meth:`claimed_value`); the calibration check samples the mechanism
        and tests those values against the output.  ``None``: not checked (SKIP)."""
        return None

    def claimed_value(self, name: str) -> float:
        """The value the claim states for the noise parameter ``name``: the claim's equation
        ``name = formula`` evaluated at the claim's other substitutions (so not the attribute
        the sampler reads), or else ``substitutions[name]`` (e.g. an analytic Gaussian σ, the
        root of an equation).  Looks inside composite (``AllOf``) claims."""
        return claimed_value(self.claim(), name)

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


def _claims_of(claim) -> list:
    subs = getattr(claim, "claims", None)
    if subs:
        return [c for sub in subs for c in _claims_of(sub)]
    return [claim]


def claimed_value(claim: Claim, name: str) -> float:
    """See :meth:`Mechanism.claimed_value`; ``KeyError`` if the claim does not state it."""
    import sympy as sp

    fallback = None
    for c in _claims_of(claim):
        values = {str(k): v for k, v in (getattr(c, "substitutions", None) or {}).items()}
        expr = getattr(c, "expression", None)
        equations = []
        if isinstance(expr, sp.Eq):
            equations = [expr]
        elif isinstance(expr, (sp.Tuple, tuple, list)):
            equations = [e for e in expr if isinstance(e, sp.Eq)]
        for eq in equations:
            if str(eq.lhs) == name:
                rhs = eq.rhs
                symbols = {str(s): s for s in rhs.free_symbols}
                if set(symbols) <= (set(values) - {name}):
                    result = float(rhs.subs({s: values[k] for k, s in symbols.items()}).evalf())
                    if math.isfinite(result):
                        return result
        if fallback is None and name in values:
            fallback = float(values[name])
    if fallback is None:
        raise KeyError(f"the claim states no value for {name!r} (neither an equation "
                       f"{name} = … nor a substitution)")
    return fallback
