"""Read-only copies of datasets: what a sampler is given, so that it cannot change the pair.

A sampler that writes to its dataset changes what every later draw — and the report — sees:
a leaky sampler (true ε = 4, claim 1) that cleared its input after reading it passed as
"consistent", results.json showed the pair as ``d0 = [0, 0]``, and the Python API changed the
caller's own arrays (issue 39, item 5).  So a sampler never receives the caller's objects:

* a numpy array becomes a copy whose ``writeable`` flag is off (writing to it raises
  ``ValueError: assignment destination is read-only``, which :func:`read_only_sample` turns
  into one line saying what happened).  The copy is made once per dataset and reused, by
  identity, for the next calls (a few entries; :data:`CACHED`), so a large array is copied
  once, not per call;
* a list, tuple or dict is rebuilt on every call, its items read-only copies in turn, so a
  sampler that clears or appends to a list changes only the copy of that call;
* numbers, strings and other immutable values are passed as they are.

Contract: the value a sampler receives compares equal, item by item, to the dataset it was
given, with the same container types; only writing is prevented (arrays) or made harmless
(containers).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict

import numpy as np

#: how many arrays' read-only copies are kept for reuse (by the identity of the original)
CACHED = 8

_LOCK = threading.Lock()
_COPIES: OrderedDict[int, tuple[object, np.ndarray]] = OrderedDict()


def read_only_array(array: np.ndarray) -> np.ndarray:
    """A copy of ``array`` that cannot be written (reused for the same array object)."""
    if not array.flags.writeable and array.base is None:
        return array  # already one of ours, or read-only and owning its data
    with _LOCK:
        hit = _COPIES.get(id(array))
        if hit is not None and hit[0] is array:
            _COPIES.move_to_end(id(array))
            return hit[1]
    copy = np.array(array, copy=True)
    copy.setflags(write=False)
    with _LOCK:
        _COPIES[id(array)] = (array, copy)  # the original is held: its id stays unique
        while len(_COPIES) > CACHED:
            _COPIES.popitem(last=False)
    return copy


def read_only_copy(value):
    """``value`` as a sampler may receive it (see the module docstring)."""
    if isinstance(value, np.ndarray):
        return read_only_array(value)
    if isinstance(value, list):
        return [read_only_copy(v) for v in value]
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(read_only_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: read_only_copy(v) for k, v in value.items()}
    return value


class DatasetWriteError(ValueError):
    """A sampler wrote to the (read-only) dataset it was given."""


def read_only_sample(sample):
    """``sample(self, dataset, n, rng)`` called with :func:`read_only_copy` of the dataset; a
    write to it is a :class:`DatasetWriteError` naming the method."""
    if getattr(sample, "__dpaudit_read_only__", False):
        return sample

    @functools.wraps(sample)
    def guarded(self, dataset, *args, **kwargs):
        try:
            return sample(self, read_only_copy(dataset), *args, **kwargs)
        except ValueError as exc:
            if "read-only" not in str(exc) or isinstance(exc, DatasetWriteError):
                raise
            raise DatasetWriteError(
                f"{getattr(self, 'name', type(self).__name__)}: the sampler wrote to its "
                f"dataset ({exc}); datasets are read-only, so that every draw and the report "
                f"see the pair as given: work on a copy (np.array(dataset))") from None

    guarded.__dpaudit_read_only__ = True
    return guarded


__all__ = ["CACHED", "DatasetWriteError", "read_only_array", "read_only_copy",
           "read_only_sample"]
