"""What the adapters of the analytics libraries share: keyed datasets, batched calls.

PipelineDP, Tumult and SmartNoise SQL aggregate a table of rows ``[user, key, value]``
(:mod:`dpaudit.neighbours.keyed_rows`) per partition key and protect adding or removing one
user.  :class:`KeyedAdapter` is the base of their adapters:

* a dataset is a keyed table with keys ``0..keys−1``; the **output** of one run is the vector
  of the released values of keys ``0..keys−1`` in that order (times the metrics released per
  key), with :data:`ABSENT` (−∞) for a key the run did not release (private partition
  selection, a SQL group censored by its threshold) — an atom the distinguishers read as such;
* the **relation** is :func:`~dpaudit.neighbours.keyed_rows.add_remove_user` (the library
  bounds each user's contribution itself), the **dataset space**
  :class:`~dpaudit.neighbours.keyed_rows.KeyedRowsSpace` with the library's bounds, so the pair
  search proposes what breaks contribution bounding and partition selection first;
* ``sample`` is batched (:mod:`dpaudit.mechanisms.batched`): one library call runs ``copies``
  disjoint copies of the table (:func:`replicate`: copy j's users are ``j·U + user`` and its
  keys ``j·keys + key``) and :func:`collect` reads one output row per copy.  Why the copies
  are independent is argued in each adapter's module docstring and tested by
  :func:`~dpaudit.mechanisms.batched.check_independence` in its tests.

A subclass defines ``call(rows, k)`` — one library call on the replicated ``rows`` returning
``{replicated key: value or tuple of values}`` — and ``claim()``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from dpaudit.util import validation
from dpaudit.mechanisms.base import NeighbourPair, Parameter
from dpaudit.mechanisms.batched import draw_batched
from dpaudit.mechanisms.capabilities import SearchableDatasets
from dpaudit.mechanisms.external.common import ExternalMechanism
from dpaudit.neighbours.keyed_rows import KeyedRowsSpace, add_remove_user, keyed_rows
from dpaudit.neighbours.relations import NeighbourRelation

#: the output entry of a key a run did not release
ABSENT = -np.inf


def replicate(rows: list[tuple[int, int, float]], k: int, keys: int
              ) -> list[tuple[int, int, float]]:
    """``k`` disjoint copies of ``rows``: copy j has users ``j·U + user`` (U = 1 + the largest
    user) and keys ``j·keys + key``, so no user and no key is shared between copies."""
    span = 1 + max((r[0] for r in rows), default=0)
    return [(j * span + u, j * keys + key, v) for j in range(k) for u, key, v in rows]


def collect(released: dict, k: int, keys: int, width: int = 1) -> np.ndarray:
    """The ``(k, keys·width)`` outputs of ``k`` copies from ``{replicated key: value}`` (a
    value is a number or a tuple of ``width`` numbers); :data:`ABSENT` where a key was not
    released.

    Raises:
      ValueError: a released key is not one of the copies' keys (the library invented one)."""
    out = np.full((k, keys * width), ABSENT)
    for key, value in released.items():
        key = int(key)
        if not 0 <= key < k * keys:
            raise ValueError(f"the library released key {key}, which no copy has")
        j, base = divmod(key, keys)
        out[j, base * width:(base + 1) * width] = np.asarray(value, dtype=float).ravel()
    return out


class KeyedAdapter(ExternalMechanism, SearchableDatasets):
    """Base of the keyed-table adapters (see the module docstring)."""

    seedable = False
    #: values released per key (e.g. 1; a tuple of metrics would be more)
    width: ClassVar[int] = 1
    #: whether the library accepts a table with no rows (PipelineDP refuses one)
    accepts_empty: ClassVar[bool] = True
    #: the pair of the proof: which proposal of the dataset space is the named pair
    worst_case_proposal: ClassVar[str] = "user-many-rows-one-partition"

    keys = Parameter(3, validation.positive_int, "partition keys 0..keys−1")
    copies = Parameter(250, validation.positive_int,
                       "disjoint copies of the table per library call (outputs per call)")

    # -- bounds the dataset space needs (subclasses read their own parameters) -------------
    def value_bounds(self) -> tuple[float, float]:
        """The clamping bounds (min_value, max_value) the library applies."""
        return float(self.params.get("min_value", 0.0)), float(self.params.get("max_value",
                                                                               1.0))

    def contribution_bounds(self) -> tuple[int, int]:
        """(max partitions per user, max rows per user and partition)."""
        return (int(self.params.get("max_partitions", 1)),
                int(self.params.get("max_per_partition", 1)))

    def selection_crowd(self) -> int:
        """Users in one partition at the edge of the library's partition selection or
        censoring (the ``crowded-partition`` proposal); 0 when every partition is released."""
        return 0

    def dataset_space(self):
        lo, hi = self.value_bounds()
        l0, linf = self.contribution_bounds()
        return KeyedRowsSpace(keys=int(self.params["keys"]), users=4, rows=linf + 2,
                              lo=lo, hi=hi, min_value=lo, max_value=hi, max_partitions=l0,
                              max_per_partition=linf, crowd=self.selection_crowd())

    def relation(self):
        l0, linf = self.contribution_bounds()
        return NeighbourRelation("add-remove-user", f"add or remove all rows of one user "
                                 f"(the library bounds a user to {l0} partition(s), {linf} "
                                 f"row(s) per partition)", add_remove_user)

    def worst_case_pairs(self):
        wanted = "crowded-partition" if self.selection_crowd() else self.worst_case_proposal
        for name, d0, d1 in self.dataset_space().proposals():
            if name == wanted:
                return [NeighbourPair(name, d0, d1, f"the dataset space's proposal {name}")]
        raise ValueError(f"{self.name}: no proposal {self.worst_case_proposal!r}")

    def validate_dataset(self, dataset):
        rows = keyed_rows(dataset, int(self.params["keys"]))
        if not rows and not self.accepts_empty:
            raise ValueError(f"{self.name}: {self.library} refuses a table with no rows")
        return rows

    def check_pair(self, d0, d1) -> tuple[bool, str]:
        """The relation on a pair of valid tables; (False, why) for a table the adapter
        refuses, so that a search skips it as it skips a pair that is not neighbouring."""
        try:
            return add_remove_user(self.validate_dataset(d0), self.validate_dataset(d1))
        except ValueError as exc:
            return False, str(exc)

    # -- sampling ---------------------------------------------------------------------------
    def call(self, rows: list, k: int) -> dict:  # pragma: no cover - abstract
        """One library call on the ``k``-copy table ``rows``: {replicated key: value(s)}."""
        raise NotImplementedError

    def draw_copies(self, rows: list, k: int, rng=None) -> np.ndarray:
        """The ``(k, keys·width)`` outputs of one library call on ``k`` copies of ``rows``."""
        keys = int(self.params["keys"])
        out = collect(self.call(replicate(rows, k, keys), k), k, keys, self.width)
        return out

    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        rows = self.validate_dataset(dataset)
        n = validation.draw_request(n, rng)
        out = draw_batched(self.draw_copies, rows, n, rng, int(self.params["copies"]))
        return out.reshape(n, -1)

    def describe(self) -> dict:
        out = super().describe()
        out["library"]["batched"] = {"copies": int(self.params["copies"]),
                                     "outputs_per_copy": int(self.params["keys"]) * self.width}
        return out


__all__ = ["ABSENT", "KeyedAdapter", "collect", "replicate"]
