"""Say it when a mechanism defines a capability's method without declaring the capability.

dpaudit asks for a capability by type (:mod:`dpaudit.mechanisms.capabilities`): a class that
defines ``query(dataset)`` but does not inherit :class:`DeterministicQuery` has its query
ignored by every check — silently, until this module.  :func:`ignored_methods` lists, for a
class, each such method and the mixin that would use it; :func:`warn_ignored_methods` (run by
``Mechanism.__init_subclass__`` when the class is made) emits **one** :class:`UserWarning` per
class naming them all, e.g.::

    MyMean defines query() but does not inherit DeterministicQuery, so no check uses it:
    class MyMean(DeterministicQuery, Mechanism) declares it (dpaudit.mechanisms.capabilities)

Only functions and properties defined in the class's own body count (an inherited method was
reported on the class that defined it), only the names of :data:`METHODS`, and only when the
method can be called as the capability calls it (``query(dataset)``, ``noise()``, …): a helper
that happens to be named ``noise(total, n, rng)`` is something else and is left alone.
:func:`missing_capability` gives the same fact as a sentence for a check that cannot run
(``dpaudit check``'s grey-box step: "defines query() but does not inherit DeterministicQuery").
"""

from __future__ import annotations

import inspect
import warnings

from dpaudit.mechanisms.capabilities import (CalibratedNoise, DeterministicQuery, GreyBoxQuery,
                                             LogDensity, SearchableDatasets)

#: method name → the capability mixin whose checks call it
METHODS: dict[str, type] = {"query": DeterministicQuery, "sensitivity": GreyBoxQuery,
                            "dataset_space": SearchableDatasets, "log_density": LogDensity,
                            "noise": CalibratedNoise}


#: method name → the positional arguments (besides self) the capability passes
ARGUMENTS = {"query": 1, "sensitivity": 0, "dataset_space": 0, "log_density": 2, "noise": 0}


def _defines(cls, name: str) -> bool:
    """``cls``'s body defines ``name`` as a property or as a function callable with the
    capability's arguments."""
    value = vars(cls).get(name)
    if isinstance(value, property):
        return True
    if not callable(value) or isinstance(value, type):
        return False
    try:
        params = list(inspect.signature(value).parameters.values())[1:]  # without self
    except (TypeError, ValueError):
        return True
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    return len(required) <= ARGUMENTS[name] <= len(positional)


def ignored_methods(cls) -> list[tuple[str, type]]:
    """(method, mixin) for each method of :data:`METHODS` that ``cls``'s body defines while
    ``cls`` does not inherit the mixin."""
    return [(name, mixin) for name, mixin in METHODS.items()
            if _defines(cls, name) and not issubclass(cls, mixin)]


def warn_ignored_methods(cls) -> None:
    """One warning naming every ignored method of ``cls`` and its mixin (none if none)."""
    found = ignored_methods(cls)
    if not found:
        return
    parts = "; ".join(f"{name}() but does not inherit {mixin.__name__}"
                      for name, mixin in found)
    mixins = ", ".join(dict.fromkeys(m.__name__ for _, m in found))
    warnings.warn(f"{cls.__name__} defines {parts}, so no check uses it: class "
                  f"{cls.__name__}({mixins}, Mechanism) declares it "
                  f"(dpaudit.mechanisms.capabilities)", UserWarning, stacklevel=3)


def missing_capability(mechanism, mixin: type) -> str:
    """" (it defines name() but does not inherit Mixin)" when the class of ``mechanism``
    defines a method of ``mixin`` without inheriting it, else ""."""
    cls = mechanism if isinstance(mechanism, type) else type(mechanism)
    for klass in cls.__mro__:
        for name, needed in METHODS.items():
            if needed is mixin and _defines(klass, name) and not issubclass(cls, mixin):
                return f" (it defines {name}() but does not inherit {mixin.__name__})"
    return ""


__all__ = ["METHODS", "ignored_methods", "missing_capability", "warn_ignored_methods"]
