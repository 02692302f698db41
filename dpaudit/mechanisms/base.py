"""The mechanism contract.

A mechanism is a small class holding its parameters.  Every mechanism provides (abstract in
:class:`Mechanism`)

* ``sample(dataset, n, rng) -> np.ndarray`` — n independent outputs on one dataset, one per
  row (shape ``(n,)`` for scalar outputs, ``(n, k)`` for vectors), vectorised over n; the
  same ``rng`` state gives the same array;
* ``claim() -> Claim`` — what it promises (its noise parameters come from the same sympy
  formulas, see :mod:`dpaudit.claims.symbolic`);
* ``worst_case_pairs() -> list[NeighbourPair]`` — the neighbouring pairs its proof (or the
  literature's counterexample) says are hardest; non-empty, each pair neighbouring;

and has, with defaults a mechanism overrides where it knows more,

* ``relation() -> NeighbourRelation | None`` — its neighbouring relation as one typed value
  (:class:`dpaudit.neighbours.relations.NeighbourRelation`); ``neighbouring`` is that
  relation's one-line statement, and ``check_pair(d0, d1)`` applies it;
* ``true_epsilon()`` — for a *known-bad* mechanism, the literature's value of its real ε
  (possibly ``math.inf``; ``literature`` says where it comes from); ``None`` for correct ones;
* ``exact_epsilon(d0, d1, delta)`` — the exact ε of the pair at δ when the output laws are
  known in closed form, ``None`` otherwise;
* ``validate_dataset(dataset)`` — a clear ``ValueError`` naming the problem for bad input;
* ``output_space(d0, d1)`` — the finite output space its exact law enumerates for the pair
  (:class:`~dpaudit.mechanisms.output_space.OutputSpace`), when its size is a parameter, so
  the audit can refuse a task too large for memory before allocating it; ``None`` otherwise;
* ``pairs_size()`` — how many values its ``worst_case_pairs()`` hold in all and the parameter
  that sets it, when that grows with a parameter, so planning can refuse pairs too large for
  memory before building them (:func:`dpaudit.audit.memory.check_pairs_memory`); ``None``
  (the default) when the pairs are small whatever the parameters.

Parameters are declared once, as :class:`~dpaudit.mechanisms.parameters.Parameter` class
attributes; ``Mechanism.__init__`` validates them and ``derive()`` computes what follows from
them.  Optional capabilities (a log-density, a query with its sensitivity, exact Rényi
curves, closed-form series, a calibrated noise law) are declared by inheriting the mixins of
:mod:`dpaudit.mechanisms.capabilities` and asked for with ``isinstance``.
"""

from __future__ import annotations

import abc
import inspect
import math
from types import MappingProxyType
from typing import Any, ClassVar, Mapping

import sys

import numpy as np

from dpaudit.claims import Claim, iter_claims
from dpaudit.mechanisms.callbacks import CHECKS, checked_method
from dpaudit.mechanisms.noise import NOISE_LAWS, Noise
from dpaudit.mechanisms.output_space import OutputSpace
from dpaudit.mechanisms.parameters import Parameter, bind_parameters, declared_parameters
from dpaudit.neighbours.pairs import NeighbourPair
from dpaudit.neighbours.relations import NeighbourRelation
from dpaudit.util.read_only import read_only_sample
from dpaudit.util.user_code import guarded


class _RelationStatement:
    """Descriptor: ``mech.neighbouring`` is ``mech.relation().statement``; ``""`` on the class
    (the relation may depend on parameter values) and when there is no relation."""

    def __get__(self, obj, objtype=None) -> str:
        if obj is None:
            return ""
        rel = obj.relation()
        return "" if rel is None else rel.statement


class Mechanism(abc.ABC):
    """Base class for dpaudit mechanisms (see the module docstring for the contract)."""

    name: ClassVar[str] = "abstract"
    family: ClassVar[str] = "abstract"
    #: True for the published buggy variants of the known-bad zoo
    known_bad: ClassVar[bool] = False
    #: where the known-bad mechanism's real ε comes from
    literature: ClassVar[str] = ""
    #: True when ``sample`` *is* the implementation under audit (a library call, a
    #: floating-point sampler), not a stand-in for a real-valued mechanism: the black-box audit
    #: then also tests the float64 representation of continuous outputs
    #: (:mod:`dpaudit.distinguish.floating`).  dpaudit's own mechanisms sample ``x + noise``
    #: in floating point as a stand-in for the real-valued mechanism of the paper, so False.
    audit_representation: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        """Give a class with declared parameters the signature ``Name(epsilon=1.0, …)`` (for
        ``inspect.signature``, ``dpaudit list`` and error messages), and check what its
        ``claim``, ``worst_case_pairs``, ``relation`` and ``dataset_space`` return
        (:mod:`dpaudit.mechanisms.callbacks`: a wrong type fails naming the method); its
        ``sample`` receives a read-only copy of each dataset (:mod:`dpaudit.util.read_only`);
        the methods of a class defined outside dpaudit run as user code
        (:mod:`dpaudit.util.user_code`: ``sys.exit`` in them is an error of the audit)."""
        super().__init_subclass__(**kwargs)
        for name in CHECKS:
            if name in cls.__dict__:
                setattr(cls, name, checked_method(name, cls.__dict__[name]))
        if "sample" in cls.__dict__:  # every sample call gets a read-only copy of its dataset
            cls.sample = read_only_sample(cls.__dict__["sample"])
        if not cls.__module__.startswith("dpaudit."):  # user code: its exits are its errors
            for name, value in list(cls.__dict__.items()):
                if inspect.isfunction(value) and (not name.startswith("__")
                                                  or name == "__init__"):
                    setattr(cls, name, guarded(value, f"{cls.__qualname__}.{name}"))
        declared = declared_parameters(cls)
        cls.__signature__ = None if not declared else inspect.Signature([
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=p.default)
            for name, p in declared.items()])

    def __init__(self, *args, **params):
        """Bind the declared :class:`Parameter` values, then run :meth:`derive`.

        Positional arguments fill the declared parameters in declaration order.  A class that
        declares no parameters may instead pass its already validated values
        (``super().__init__(**values)``); they become ``params`` as given.

        Raises:
          TypeError: an unknown keyword argument (the message lists the accepted ones), too
            many positional arguments, or one given both ways.
          ValueError: a parameter value its check refuses (``dpaudit.util.validation`` format).
        """
        declared = declared_parameters(type(self))
        if args:
            names = list(declared)
            if len(args) > len(names):
                raise TypeError(f"{type(self).__name__} takes at most {len(names)} positional "
                                f"parameter(s) ({', '.join(names) or 'none'}), got {len(args)}")
            for name, value in zip(names, args):
                if name in params:
                    raise TypeError(f"{type(self).__name__} got parameter {name!r} twice")
                params[name] = value
        if declared:
            values = bind_parameters(type(self), params)
        else:
            values = dict(params)
        self._parameter_values = values
        self.derive()

    def derive(self) -> None:
        """Hook run after the parameters are bound: checks across parameters, derived
        quantities (a noise scale from ε and Δ …).  Default: nothing."""

    def resolve_parameter(self, name: str, value) -> None:
        """In :meth:`derive`: record the value a placeholder parameter stands for (e.g. a
        ``None`` default meaning "2Δ"), so ``params`` shows what the mechanism uses."""
        if name not in self._parameter_values:
            raise KeyError(f"{type(self).__name__} has no parameter {name!r}")
        self._parameter_values[name] = value

    def record_parameters(self, **values) -> None:
        """For a class that declares no :class:`Parameter`: replace ``params`` by the values it
        validated itself (e.g. a subclass with a different parameter set)."""
        if declared_parameters(type(self)):
            raise TypeError(f"{type(self).__name__} declares its parameters; they are set "
                            f"only by the constructor")
        self._parameter_values = dict(values)

    @property
    def params(self) -> Mapping[str, Any]:
        """The parameter values (read-only), in declaration order."""
        return MappingProxyType(self._parameter_values)

    def defaulted_parameters(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters this mechanism runs with that ``given`` — the keyword arguments it
        was built with — does not set: name → its value in :attr:`params`, in that order.

        The value is the one the mechanism uses (after :meth:`derive`: a placeholder default
        resolved with :meth:`resolve_parameter` shows what it stands for).  Works for declared
        :class:`Parameter`\\ s and for classes that record their own values; empty when
        ``given`` sets every parameter."""
        return {name: value for name, value in self.params.items() if name not in given}

    # -- contract -------------------------------------------------------------------------
    @abc.abstractmethod
    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """n independent outputs on ``dataset``, one per row."""

    @abc.abstractmethod
    def claim(self) -> Claim:
        """The privacy claim, with the formulas its noise parameters were evaluated from."""

    @abc.abstractmethod
    def worst_case_pairs(self) -> list[NeighbourPair]:
        """The neighbouring pairs the proof says are hardest (non-empty)."""

    def relation(self) -> NeighbourRelation | None:
        """The neighbouring relation (:class:`NeighbourRelation`); ``None`` when the mechanism
        does not state one (pairs are then not checked)."""
        return None

    #: the one-line statement of the neighbouring relation, ``relation().statement`` (``""``
    #: when none, and on the class itself: the relation may depend on the parameters)
    neighbouring = _RelationStatement()

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
        """The pair's exact ε at δ when the output laws are known in closed form; else None."""
        return None

    def validate_dataset(self, dataset) -> Any:
        """Return the dataset as the mechanism uses it, or raise ValueError naming the problem."""
        return dataset

    def output_space(self, d0, d1) -> OutputSpace | None:
        """The output space the exact law of the (validated) pair enumerates — arrays with one
        entry per outcome in ``exact_epsilon``, ``log_density`` or ``exact_renyi`` — when its
        size grows with a parameter or the datasets; ``None`` (the default) when nothing
        grows.  Cheap: it must not build the arrays it counts."""
        return None

    def pairs_size(self) -> tuple[int, str] | None:
        """(values, what sets them) of :meth:`worst_case_pairs` — the number of scalars in all
        their datasets together, and the parameter(s) that make it large (``"num_queries =
        100000000"``) — when it grows with a parameter; ``None`` (the default) when the pairs
        are small whatever the parameters.  Cheap: it must not build the pairs it counts."""
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


def claimed_value(claim: Claim, name: str) -> float:
    """See :meth:`Mechanism.claimed_value`; ``KeyError`` if the claim does not state it."""
    fallback = None
    for c in iter_claims(claim):
        values = {str(k): v for k, v in (c.substitutions or {}).items()}
        expr = c.expression
        equations = []
        sp = sys.modules.get("sympy")  # an expression is a sympy object: sympy is loaded
        if sp is None or expr is None:
            pass
        elif isinstance(expr, sp.Eq):
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


__all__ = ["Mechanism", "NOISE_LAWS", "NeighbourPair", "NeighbourRelation", "Noise", "OutputSpace",
           "Parameter", "claimed_value"]
