"""What user callbacks must return, checked where they return it.

A mechanism is user code that dpaudit calls back: ``claim()``, ``worst_case_pairs()``,
``relation()`` (and its predicate), ``dataset_space()``, ``sample()`` / a sampler,
``log_density()``.  A wrong return type must fail where it happens, naming the callback and
what it should return — never as ``TypeError: cannot unpack non-iterable bool object`` three
frames deep in the audit.

Contract:

* :func:`checked_method` — wraps a zero-argument :class:`~dpaudit.mechanisms.base.Mechanism`
  method (``claim``, ``worst_case_pairs``, ``relation``, ``dataset_space``) so that its result
  passes the matching check below; ``Mechanism.__init_subclass__`` wraps every such method a
  class defines, so every route (suites, the API, ``dpaudit check``, the pytest plugin) and
  every caller sees checked values.
* :func:`checked_claim` — a :class:`~dpaudit.claims.base.Claim`;
* :func:`checked_pairs` — a non-empty list of
  :class:`~dpaudit.neighbours.pairs.NeighbourPair`; a ``(d0, d1)`` tuple is accepted and named
  ``pair-<i>`` (as the API's ``pairs=`` are);
* :func:`checked_relation` — a :class:`~dpaudit.neighbours.relations.NeighbourRelation` or
  None; a plain predicate function is accepted and named after the function;
* :func:`checked_space` — a :class:`~dpaudit.neighbours.spaces.DatasetSpace`;
* :func:`checked_outputs` — ``n`` outputs (first axis of length ``n``) of a sampler.

A relation predicate's own result is normalised by
:meth:`dpaudit.neighbours.relations.NeighbourRelation.__call__` (``True``/``False`` or
``(ok, reason)``).  Every failure is a :class:`CallbackError` (a ``TypeError``) whose one-line
message names the callback (``BoundedSum.claim()``), what it returned and what it must return.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import numpy as np


class CallbackError(TypeError):
    """A user callback returned a value of the wrong kind; the message names it."""


def _shown(value) -> str:
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{text} (a {type(value).__name__})"


def checked_claim(value, who: str):
    """``value`` if it is a Claim, else :class:`CallbackError`."""
    from dpaudit.claims.base import Claim

    if isinstance(value, Claim):
        return value
    raise CallbackError(f"{who} returned {_shown(value)}; it must return a claim such as "
                        f"PureDP(epsilon=1.0) or ApproxDP(epsilon=1.0, delta=1e-6) (from "
                        f"dpaudit import PureDP)")


def checked_pairs(value, who: str) -> list:
    """``value`` as a list of NeighbourPair (``(d0, d1)`` tuples named ``pair-<i>``)."""
    from dpaudit.neighbours.pairs import NeighbourPair

    expected = ("a list of NeighbourPair(name, d0, d1, description) (from dpaudit import "
                "NeighbourPair) or of (d0, d1) tuples")
    if value is None or isinstance(value, (str, bytes, dict, NeighbourPair)) or \
            not hasattr(value, "__iter__"):
        raise CallbackError(f"{who} returned {_shown(value)}; it must return {expected}")
    out = []
    for i, pair in enumerate(value):
        if isinstance(pair, NeighbourPair):
            out.append(pair)
        elif isinstance(pair, tuple) and len(pair) == 2:
            out.append(NeighbourPair(f"pair-{i}", pair[0], pair[1], ""))
        else:
            raise CallbackError(f"{who} returned an entry {_shown(pair)} at [{i}]; it must "
                                f"return {expected}")
    return out


def checked_relation(value, who: str):
    """``value`` if it is a NeighbourRelation or None; a plain predicate function becomes a
    relation named after it."""
    from dpaudit.neighbours.relations import NeighbourRelation

    if value is None or isinstance(value, NeighbourRelation):
        return value
    if callable(value) and not isinstance(value, type):
        name = getattr(value, "__name__", None) or type(value).__name__
        return NeighbourRelation(name, f"as decided by {name}(d0, d1)", value)
    raise CallbackError(f"{who} returned {_shown(value)}; it must return a "
                        f"NeighbourRelation(name, statement, predicate) (from dpaudit import "
                        f"NeighbourRelation), a predicate function (d0, d1) -> bool, or None")


def checked_space(value, who: str):
    """``value`` if it is a DatasetSpace, else :class:`CallbackError`."""
    from dpaudit.neighbours.spaces import DatasetSpace

    if isinstance(value, DatasetSpace):
        return value
    raise CallbackError(f"{who} returned {_shown(value)}; it must return a dataset space "
                        f"such as BoundedRecords(lo, hi, n_max=..., min_size=...) (from "
                        f"dpaudit.neighbours.spaces)")


def checked_outputs(value, n: int, who: str) -> np.ndarray:
    """``value`` as an array whose first axis has length ``n``, else ``ValueError`` (the
    message names ``who`` and says "it must return n outputs")."""
    if value is None:
        raise ValueError(f"{who} returned None for n={n}; it must return n outputs (an "
                         f"array whose first axis has length n)")
    try:
        out = np.asarray(value)
    except Exception as exc:  # noqa: BLE001 - ragged lists and the like
        raise ValueError(f"{who} returned {type(value).__name__} that is not an array "
                         f"({exc}); it must return n outputs") from None
    if out.ndim == 0 or out.shape[0] != n:
        raise ValueError(f"{who} returned an array of shape {out.shape} for n={n}; it must "
                         f"return n outputs (first axis of length n)")
    return out


#: method name → the check its result must pass
CHECKS: dict[str, Callable[[Any, str], Any]] = {
    "claim": checked_claim,
    "worst_case_pairs": checked_pairs,
    "relation": checked_relation,
    "dataset_space": checked_space,
}


def checked_method(name: str, fn):
    """The plain function ``fn``, a class's method ``name`` (a key of :data:`CHECKS`), with
    its result checked; anything else (a property, a staticmethod, an already checked
    method) unchanged."""
    if getattr(fn, "__dpaudit_checked__", False) or not inspect.isfunction(fn):
        return fn
    check = CHECKS[name]

    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        return check(fn(self, *args, **kwargs), f"{type(self).__name__}.{name}()")

    method.__dpaudit_checked__ = True
    return method


__all__ = ["CHECKS", "CallbackError", "checked_claim", "checked_method", "checked_outputs",
           "checked_pairs", "checked_relation", "checked_space"]
