"""What an audit audits: a picklable :class:`Target` that builds the mechanism in any process.

A target is one of

* a **registered mechanism** (``reference = "laplace"``, built with
  :func:`dpaudit.mechanisms.registry.create_mechanism`);
* a **mechanism class in user code** (``reference = "my_mech.py:ClippedMean"`` or
  ``"package.module:ClippedMean"``, loaded with
  :func:`dpaudit.mechanisms.references.load_reference` relative to ``base_dir``);
* a **plain sampler** ``sampler(dataset, n, rng, **params) -> n outputs`` with a stated claim
  (``kind = "sampler"``), wrapped in a :class:`~dpaudit.mechanisms.sampler.SamplerMechanism`
  with the audit's params as its keyword arguments
  (:func:`~dpaudit.mechanisms.sampler.bind_sampler_params`); its claim is a Claim, or a claim
  table whose left-out keys are read from those params (:func:`claim_from_dict`), so one
  sampler serves every ε of a sweep;
* an **object given through the Python API** (``obj``: a Mechanism class or instance, or a
  sampler callable — closures and lambdas included; tasks are serialised with cloudpickle).

A target carries names and plain data (or ``obj``), never a loaded module, so a task holding it
crosses a process boundary and the worker re-imports the code.  :meth:`Target.build` raises
``ValueError`` with a one-line message naming the problem.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from dpaudit.claims.tables import (ClaimTableError, check_claim_table, claim_from_table,
                                   is_complete)
from dpaudit.util.hints import did_you_mean
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.sampler import (SamplerMechanism, SamplerParameterError,
                                        bind_sampler_params, sampler_signature)

MECHANISM, SAMPLER = "mechanism", "sampler"


class NotAMechanismError(ValueError):
    """The code a reference names is not a Mechanism subclass (or not a sampler function)."""


@dataclass(frozen=True)
class Target:
    """A picklable description of the code under audit (see the module docstring)."""

    reference: str
    kind: str = MECHANISM
    base_dir: str = ""
    #: the claim under audit, when stated rather than the code's own: a Claim or a claim table
    #: completed from the params (:mod:`dpaudit.claims.tables`) — required for a sampler;
    #: for a mechanism it replaces the mechanism's claim (:mod:`dpaudit.mechanisms.stated_claim`)
    claim: Any = None
    obj: Any = None  # Python API: a Mechanism class or instance, or a sampler callable

    def build(self, params: dict | None = None) -> Mechanism:
        """The mechanism, built with ``params`` (judged against the stated claim when there
        is one).

        Raises:
          ValueError: the code cannot be loaded, is not a mechanism (or a sampler of the
            right signature), rejects ``params``, or the stated claim cannot be built.
        """
        params = dict(params or {})
        mechanism = self._build(params)
        if self.kind == MECHANISM and self.claim is not None:
            from dpaudit.mechanisms.stated_claim import with_stated_claim

            values = {**getattr(mechanism, "params", {}), **params}
            mechanism = with_stated_claim(mechanism, claim_from_dict(self.claim, values))
        return mechanism

    def _build(self, params: dict) -> Mechanism:
        if self.kind == SAMPLER:
            fn = self.obj if self.obj is not None else self._load()
            values = bind_sampler_params(sampler_signature(fn, self.reference), params,
                                         self.reference)
            return SamplerMechanism(fn, claim_from_dict(self.claim, values), self.reference,
                                    values)
        if self.obj is not None and not isinstance(self.obj, type):
            if params:
                raise ValueError(f"{self.reference} is a mechanism instance; it takes no "
                                 f"params (got {params})")
            return self.obj
        if self.obj is None and ":" not in self.reference:
            from dpaudit.mechanisms.registry import create_mechanism
            return create_mechanism(self.reference, **params)
        cls = self.obj if self.obj is not None else self._load()
        check_mechanism_class(cls, self.reference)
        try:
            return cls(**params)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{self.reference}: bad parameters {params}: {exc}") from None

    @property
    def prebuilt(self) -> bool:
        """Whether this target is a mechanism instance the caller built (Python API): it takes
        no params, so none of its parameters was left to a default by the audit."""
        return self.kind == MECHANISM and self.obj is not None and not isinstance(self.obj, type)

    def defaulted(self, mechanism: Mechanism, params: dict | None) -> dict:
        """The parameters ``mechanism`` (built by :meth:`build` from ``params``) runs with that
        ``params`` leaves out, name → value (:meth:`Mechanism.defaulted_parameters`); empty for
        a prebuilt instance (it takes no params); for a sampler, its keyword defaults."""
        if self.prebuilt:
            return {}
        return mechanism.defaulted_parameters(params or {})

    def _load(self):
        from dpaudit.mechanisms.references import load_reference
        return load_reference(self.reference, self.base_dir or None)


def check_mechanism_class(cls, label: str) -> None:
    """Raise :class:`NotAMechanismError` unless ``cls`` is a :class:`Mechanism` subclass."""
    if not (isinstance(cls, type) and issubclass(cls, Mechanism)):
        what = f"the class {cls.__qualname__}" if isinstance(cls, type) else \
            f"a {type(cls).__name__}"
        raise NotAMechanismError(f"{label} is {what}, not a subclass of "
                                 f"dpaudit.mechanisms.Mechanism (for a plain function use "
                                 f"sampler = ... with a claim)")


def check_sampler(fn, label: str) -> None:
    """Raise ValueError unless ``fn`` is callable as ``fn(dataset, n, rng, **params)``
    (:func:`dpaudit.mechanisms.sampler.sampler_signature`)."""
    sampler_signature(fn, label)


def claim_template(table) -> Any:
    """A suite's or the API's claim checked as far as it can be without the params: a Claim
    as is; a table's notion and the numbers it gives (:mod:`dpaudit.claims.tables`) — the
    numbers it leaves out are taken from the params when the audit builds
    (:func:`claim_from_dict`).  A complete table becomes its Claim.

    Raises:
      ClaimTableError: unknown notion, unknown keys, or a value that is not a number.
    """
    from dpaudit.claims import Claim

    if isinstance(table, Claim):
        return table
    check_claim_table(table)
    return claim_from_table(table) if is_complete(table) else dict(table)


def claim_from_dict(table, params: dict | None = None) -> Any:
    """``{"notion": "pure-dp", "epsilon": 1.0}`` (or an existing Claim) → a Claim
    (:func:`dpaudit.claims.tables.claim_from_table`).

    A number the table leaves out is read from ``params`` (the audit's parameters, the
    sampler's defaults included), so ``{ notion = "pure-dp" }`` with ``params = { epsilon =
    0.5 }`` claims 0.5-DP, and a sweep over ``epsilon`` claims each swept value.

    Raises:
      ClaimTableError: unknown notion, unknown keys, a number in neither the table nor
        ``params``, or values the claim rejects.
    """
    return claim_from_table(table, params)


def for_workers(target: Target) -> Target:
    """``target`` ready to cross a process boundary: a registered name also carries its class,
    so that mechanisms added with :func:`dpaudit.mechanisms.registry.register` in the calling
    process (which a worker's registry does not have) are found; cloudpickle sends an
    importable class by reference and a class defined in ``__main__`` by value."""
    if target.kind != MECHANISM or target.obj is not None or ":" in target.reference:
        return target
    from dpaudit.mechanisms.registry import get_mechanism_class
    try:
        return replace(target, obj=get_mechanism_class(target.reference))
    except KeyError:  # reported when the task runs
        return target


def as_target(mechanism) -> Target:
    """A :class:`Target` for a registry name or a Target (unchanged)."""
    return mechanism if isinstance(mechanism, Target) else Target(str(mechanism))


__all__ = ["MECHANISM", "SAMPLER", "ClaimTableError", "NotAMechanismError",
           "SamplerMechanism", "SamplerParameterError", "Target", "as_target", "for_workers",
           "check_mechanism_class", "check_sampler", "claim_from_dict", "claim_template"]
