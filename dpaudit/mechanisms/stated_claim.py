"""A mechanism audited against a claim stated for it: a library's reported budget, an
accountant, a number from a paper — not the claim its class derives.

:func:`with_stated_claim` returns the mechanism as an instance of a subclass of its own class
whose :meth:`~dpaudit.mechanisms.base.Mechanism.claim` is the stated claim; everything else —
its sampler, parameters, relation, pairs, exact curves, every capability it declares — is the
mechanism's own, so every kind of audit (the pair audit, the exact-curve check, …) and every
capability check (``isinstance(m, LogDensity)``) sees the same mechanism, judged against the
stated claim.  The subclass keeps the class's name and module (reports name the mechanism as
before) and is made once per class.
"""

from __future__ import annotations

from dpaudit.claims.base import Claim

_SUBCLASSES: dict[type, type] = {}


def _stated_class(cls: type) -> type:
    found = _SUBCLASSES.get(cls)
    if found is None:
        def claim(self) -> Claim:
            return self._stated_claim

        def __reduce_ex__(self, protocol):
            # pickled as (its own class's instance, the claim): the subclass is made anew
            return with_stated_claim, (_instance(cls, self), self._stated_claim)

        found = type(cls.__name__, (cls,), {
            "claim": claim, "__reduce_ex__": __reduce_ex__, "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
            "__doc__": f"{cls.__qualname__}, judged against a claim stated for it.",
            "claim_is_stated": True})
        _SUBCLASSES[cls] = found
    return found


def with_stated_claim(mechanism, claim: Claim):
    """``mechanism`` (not modified) judged against ``claim`` (see the module docstring).

    Raises:
      TypeError: ``claim`` is not a :class:`~dpaudit.claims.base.Claim`.
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"a stated claim must be a Claim, got {type(claim).__name__}")
    base = type(mechanism)
    if getattr(base, "claim_is_stated", False):  # already stated: restate on its own class
        base = base.__mro__[1]
    out = _instance(_stated_class(base), mechanism)
    object.__setattr__(out, "_stated_claim", claim)
    return out


def _instance(cls: type, mechanism):
    """A shallow copy of ``mechanism``'s state as an instance of ``cls`` (without a stated
    claim)."""
    out = cls.__new__(cls)
    out.__dict__.update({k: v for k, v in vars(mechanism).items() if k != "_stated_claim"})
    return out


def claim_is_stated(mechanism) -> bool:
    """Whether ``mechanism`` is judged against a stated claim."""
    return bool(getattr(type(mechanism), "claim_is_stated", False))


__all__ = ["claim_is_stated", "with_stated_claim"]
