"""Releases whose keys depend on the data, as the fixed-width rows an audit compares.

A group-by, a histogram over the keys found in the data or a partition selection releases a
*dict*: ``{"a": 12.3, "c": 4.1}`` — a noisy value for each key it chose to release.  Which
keys appear is part of the output: a key present in one dataset only that is released with
any probability is what breaks pure ε-DP in partition selection.  The audit compares
numeric rows, so :class:`KeyedOutputs` encodes each release as one row of fixed width,
whatever keys it holds, without a hand-made category list with 0.0 for "suppressed" (which
cannot tell a released 0.0 from a suppressed key)::

    from dpaudit import KeyedOutputs

    GROUPS = KeyedOutputs(keys=["a", "b", "c"])        # the keys you know of; others too

    def group_by(dataset, n, rng, epsilon=1.0, tau=3.0):
        releases = [{} for _ in range(n)]
        for key, count in Counter(dataset).items():
            noisy = laplace_on_grid(count, (1 + 2**-32) / epsilon, n, rng)
            for i in np.flatnonzero(noisy > tau):
                releases[i][key] = noisy[i]
        return GROUPS(releases)                          # (n, 2·3 + 4) array

**The encoding** (:meth:`KeyedOutputs.columns` names the columns): for every listed key k,
``released[k]`` ∈ {0, 1} and ``value[k]`` (its value, 0 when not released); then four
columns over the released keys *not* listed — their number, the sum, the smallest and the
largest of their values (0 when there are none).  A key outside the list (an unseen category
of the pair search, a key no one expected) is therefore still seen: the number of unlisted
released keys moves.  Encoding is a fixed function of the release, so a bound certified on
the rows is a bound on the releases themselves (post-processing), whatever the keys listed:
listing keys only adds power.

A release is a mapping key → number (a finite value or ±∞), or, for vectorised code, the
whole batch may be given as a mapping key → array of n values in which NaN means "not
released".  Keys may be any hashable value; listed keys are compared as
:func:`dpaudit.neighbours.records.record_key` compares records (``1`` and ``1.0`` are one
key).  Anything else is a ``ValueError`` naming the release and the key.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from dpaudit.neighbours.records import record_key

#: the columns over unlisted released keys
UNLISTED_COLUMNS = ("unlisted.count", "unlisted.sum", "unlisted.min", "unlisted.max")


class KeyedOutputs:
    """The encoder of keyed releases (see the module docstring).

    Args:
      keys: the keys whose presence and value get columns of their own, in this order (no
        duplicates); the others are summarised in :data:`UNLISTED_COLUMNS`.
    """

    def __init__(self, keys: Sequence = ()):
        if isinstance(keys, (str, bytes)) or not isinstance(keys, Sequence) and \
                not hasattr(keys, "__iter__"):
            raise ValueError(f"KeyedOutputs: keys must be a list of keys, got {keys!r}")
        self.keys = tuple(keys)
        self._index = {}
        for i, k in enumerate(self.keys):
            key = record_key(k)
            if key in self._index:
                raise ValueError(f"KeyedOutputs: key {k!r} is listed twice")
            self._index[key] = i

    @property
    def width(self) -> int:
        """Columns per row: 2 per listed key, and the 4 over unlisted ones."""
        return 2 * len(self.keys) + len(UNLISTED_COLUMNS)

    def columns(self) -> list[str]:
        """The name of every column, in order."""
        out = []
        for k in self.keys:
            out += [f"released[{k!r}]", f"value[{k!r}]"]
        return out + list(UNLISTED_COLUMNS)

    def __repr__(self) -> str:
        return f"KeyedOutputs(keys={list(self.keys)!r})"

    def encode(self, releases) -> np.ndarray:
        """The rows of ``releases``: a sequence of n mappings key → number, or one mapping
        key → array of n numbers with NaN for "not released"; shape ``(n, width)``.

        Raises:
          ValueError: a release that is not a mapping, a value that is not a number (or is
            NaN in a per-release mapping), arrays of different lengths.
        """
        if isinstance(releases, Mapping):
            return self._encode_columns(releases)
        if isinstance(releases, (str, bytes)) or not hasattr(releases, "__iter__"):
            raise ValueError(f"KeyedOutputs: expected a list of n releases (dicts key -> "
                             f"value) or a dict key -> array of n values, got "
                             f"{type(releases).__name__}")
        releases = list(releases)
        rows = np.zeros((len(releases), self.width))
        for i, release in enumerate(releases):
            if not isinstance(release, Mapping):
                raise ValueError(f"KeyedOutputs: release {i} is a {type(release).__name__}, "
                                 f"not a dict key -> value")
            self._fill(rows[i], release.items(), i)
        return rows

    __call__ = encode

    def _fill(self, row: np.ndarray, items, where) -> None:
        unlisted = []
        for key, value in items:
            v = _number(value, key, where)
            j = self._index.get(record_key(key))
            if j is None:
                unlisted.append(v)
            else:
                row[2 * j], row[2 * j + 1] = 1.0, v
        if unlisted:
            base = 2 * len(self.keys)
            row[base:base + 4] = (len(unlisted), math.fsum(unlisted), min(unlisted),
                                  max(unlisted))

    def _encode_columns(self, columns: Mapping) -> np.ndarray:
        arrays = {k: np.asarray(v, dtype=float).ravel() for k, v in columns.items()}
        lengths = {a.size for a in arrays.values()}
        if len(lengths) > 1:
            raise ValueError(f"KeyedOutputs: the arrays of a batch must all hold n values, "
                             f"got lengths {sorted(lengths)}")
        n = lengths.pop() if lengths else 0
        rows = np.zeros((n, self.width))
        base = 2 * len(self.keys)
        count, total = np.zeros(n), np.zeros(n)
        low, high = np.full(n, np.inf), np.full(n, -np.inf)
        for key, values in arrays.items():
            released = ~np.isnan(values)
            j = self._index.get(record_key(key))
            if j is not None:
                rows[:, 2 * j] = released
                rows[:, 2 * j + 1] = np.where(released, values, 0.0)
            else:
                count += released
                total += np.where(released, values, 0.0)
                low = np.where(released, np.minimum(low, values), low)
                high = np.where(released, np.maximum(high, values), high)
        some = count > 0
        rows[:, base], rows[:, base + 1] = count, total
        rows[:, base + 2] = np.where(some, low, 0.0)
        rows[:, base + 3] = np.where(some, high, 0.0)
        return rows


def _number(value, key, where) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"KeyedOutputs: release {where}, key {key!r}: the value {value!r} is "
                         f"not a number")
    v = float(value)
    if math.isnan(v):
        raise ValueError(f"KeyedOutputs: release {where}, key {key!r}: the value is NaN (leave "
                         f"a key out of the release instead)")
    return v


__all__ = ["KeyedOutputs", "UNLISTED_COLUMNS"]
