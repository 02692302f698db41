"""A sampler from a function that releases one output per call.

Library code usually draws **one** output per call — ``mech.randomise(value)``,
``make_private(query)(data)`` — while dpaudit asks a sampler for ``n`` independent outputs
at once, ``sampler(dataset, n, rng) -> array of n outputs``, and a mechanism's ``sample``
for the same.  :func:`per_call_sampler` turns the first into the second::

    from dpaudit import per_call_sampler

    @per_call_sampler
    def noisy_count(dataset, rng, epsilon=1.0):          # one output per call
        return float(len(dataset)) + g * round(rng.laplace(0, 1 / epsilon) / g)

    noisy_count(dataset, 1000, rng)                      # -> array of 1000 outputs
    # a suite: sampler = "samplers.py:noisy_count", params = { epsilon = 0.5 }

Contract:

* ``fn(dataset, rng, **params)`` (or ``fn(dataset, **params)`` when it draws from a
  generator of its own, e.g. a library's secure RNG: the audit then warns that the sampler
  ignores its ``rng`` and that the run is not reproducible from its seed) returns one output:
  a number, a fixed-length vector, or a dict key → number whose keys depend on the data (a
  group-by, a partition selection), encoded by
  :class:`~dpaudit.mechanisms.keyed_outputs.KeyedOutputs` with the ``keys`` given to
  ``per_call_sampler(keys=[...])`` (none by default: every key is then summarised);
* the result ``sampler(dataset, n, rng, **params)`` calls it ``n`` times with the same
  ``dataset``, ``rng`` and ``params`` and returns the outputs stacked (shape ``(n,)`` or
  ``(n, k)``); its signature shows ``fn``'s keyword parameters, so suites and the API pass
  ``params`` to it and check their names (:mod:`dpaudit.mechanisms.sampler`);
* it pickles with cloudpickle (worker processes, Dask) whenever ``fn`` does.

**Speed.**  The loop is as lean as Python allows — ``map`` over ``itertools.repeat`` (no
bytecode per output besides ``fn``'s own), one ``numpy`` conversion at the end — but it is
still ``n`` Python calls: the cost is ``fn``'s own per-call time plus ~0.1 µs per output,
and an
audit draws millions of outputs (``dpaudit check`` at 200 000 samples per side draws ~7
million).  ``benchmarks/per_call_sampler.py`` measures it on ``dpaudit init``'s clipped mean:
the vectorised ``sample`` checks in about a second, the per-call form of the same mechanism
in tens of seconds.  When you can, vectorise instead: compute what depends on the dataset
once (the clipped mean, the true count) and draw all ``n`` noise values with one call —
``rng.laplace(0, b, size=n)``, or ``laplace_on_grid(value, b, n, rng)`` for float-safe
outputs — which is 10–100× faster; keep :func:`per_call_sampler` for code you cannot change.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from itertools import repeat

import numpy as np

from dpaudit.mechanisms.keyed_outputs import KeyedOutputs


def _takes_rng(fn) -> bool:
    """Whether ``fn`` takes a second positional argument (the rng) besides the dataset.

    Raises:
      ValueError: ``fn`` cannot be called with one positional argument (the dataset)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature (some builtins): assume (dataset, rng)
        return True
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    if not positional and not star:
        raise ValueError(f"per_call_sampler: {getattr(fn, '__name__', fn)!r} must take the "
                         f"dataset as its first argument: fn(dataset, rng, **params) -> one "
                         f"output; its signature is {signature}")
    return star or len(positional) >= 2 and (positional[1].name == "rng"
                                             or positional[1].default is inspect.Parameter.empty)


def _keywords(fn, skip: int) -> list[inspect.Parameter]:
    """``fn``'s parameters after its first ``skip`` positional ones, as keyword-only ones."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return [inspect.Parameter("params", inspect.Parameter.VAR_KEYWORD)]
    out, taken = [], 0
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            taken = skip
            continue
        if taken < skip and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            taken += 1
            continue
        if p.kind is p.VAR_KEYWORD:
            out.append(p)
        elif p.kind is not p.POSITIONAL_ONLY:
            out.append(p.replace(kind=p.KEYWORD_ONLY))
    return out


def per_call_sampler(fn=None, *, keys=None):
    """The sampler ``sampler(dataset, n, rng, **params)`` that calls ``fn`` ``n`` times.

    Args:
      fn: ``fn(dataset, rng, **params)`` (or ``fn(dataset, **params)``) returning one output:
        a number, a fixed-length vector or a dict key → number.  Usable as a decorator, also
        as ``@per_call_sampler(keys=[...])``.
      keys: for dict outputs, the keys that get columns of their own
        (:class:`~dpaudit.mechanisms.keyed_outputs.KeyedOutputs`); the others are summarised.

    Returns:
      The sampler (see the module docstring); ``sampler.per_call`` is ``fn``.

    Raises:
      ValueError: ``fn`` cannot take the dataset as its first argument.  A call whose outputs
        are not numbers or vectors of one length raises ``ValueError`` naming ``fn``.
    """
    if fn is None:
        return lambda f: per_call_sampler(f, keys=keys)
    if not callable(fn) or isinstance(fn, type):
        raise ValueError(f"per_call_sampler expects a function fn(dataset, rng, **params), "
                         f"got {type(fn).__name__}")
    encoder = KeyedOutputs(() if keys is None else keys)
    takes_rng = _takes_rng(fn)
    name = getattr(fn, "__name__", None) or type(fn).__name__

    def sampler(dataset, n, rng, **params):
        call = functools.partial(fn, **params) if params else fn
        n = int(n)
        # map over repeat(): no Python bytecode per output besides fn's own; one conversion
        # at the end, numpy inferring the dtype from every output (np.fromiter would halve
        # the loop's own cost but silently truncate a float that follows an int)
        outputs = list(map(call, repeat(dataset, n), repeat(rng, n)) if takes_rng else
                       map(call, repeat(dataset, n)))
        if outputs and isinstance(outputs[0], Mapping):
            return encoder(outputs)
        try:
            return np.asarray(outputs)
        except ValueError as exc:  # ragged vectors
            raise ValueError(f"per_call_sampler({name}): the calls returned outputs numpy "
                             f"cannot stack into n rows (vectors of different lengths?): "
                             f"{exc}") from None

    skip = 2 if takes_rng else 1
    positional = [inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                  for a in ("dataset", "n", "rng")]
    sampler.__signature__ = inspect.Signature(positional + _keywords(fn, skip))
    sampler.__name__ = name
    sampler.__qualname__ = getattr(fn, "__qualname__", name)
    sampler.__doc__ = fn.__doc__
    sampler.__module__ = getattr(fn, "__module__", __name__)
    sampler.per_call = fn
    if getattr(fn, "dataset_space", None) is not None:  # with_dataset_space under the decorator
        sampler.dataset_space = fn.dataset_space
    return sampler


__all__ = ["per_call_sampler"]
