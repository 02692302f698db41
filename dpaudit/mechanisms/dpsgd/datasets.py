"""DP-SGD's datasets and neighbouring relations (the family's and the Opacus adapters').

A dataset is n raw one-dimensional per-example gradients — a list of n numbers, or the
multiset form ``{"values": [v, u], "counts": [n − 1, 1]}`` (value i repeated countᵢ times, in
order) that keeps the canary datasets short in suite files (:func:`expand_gradients`,
:func:`gradient_dataset`).  :func:`canary_structure` recognises the gradient-canary datasets
whose output laws have closed forms.

Relations: :func:`zero_out_relation` — one record replaced by the zero record ⊥ (the
accountants' add/remove for Poisson and full batches); :func:`replace_one_relation` — one
record replaced by another (dp_accounting's ``REPLACE_ONE``), positions fixed.
"""

from __future__ import annotations

import numpy as np

from dpaudit.neighbours import NeighbourRelation
from dpaudit.neighbours.zero_out import zero_out_one_row
from dpaudit.util import validation


def expand_gradients(dataset) -> np.ndarray:
    """A dataset as a 1-D float array (module docstring for the accepted forms)."""
    if isinstance(dataset, dict):
        if set(dataset) != {"values", "counts"}:
            raise ValueError(f"a dataset given as a table needs exactly the keys 'values' and "
                             f"'counts', got {sorted(dataset)}")
        values = np.asarray(dataset["values"], dtype=float)
        counts = np.asarray(dataset["counts"])
        if values.ndim != 1 or counts.shape != values.shape or counts.dtype.kind not in "iu" \
                or np.any(counts < 1):
            raise ValueError("dataset 'values' must be numbers and 'counts' one integer ≥ 1 "
                             "per value")
        return np.repeat(values, counts)
    if dataset is None or isinstance(dataset, (str, bytes)):
        raise ValueError("dataset must be a list of n per-example gradients")
    try:
        arr = np.asarray(dataset, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"dataset must be a list of n numeric gradients: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"dataset must be one-dimensional (n gradients), got shape {arr.shape}")
    return arr


def gradient_dataset(dataset, n: int) -> np.ndarray:
    """:func:`expand_gradients` of ``dataset``, checked to hold ``n`` finite records (the
    datasets of every DP-SGD mechanism: this family's and the Opacus adapters')."""
    arr = expand_gradients(dataset)
    if arr.size != n:
        raise ValueError(f"dataset has {arr.size} records; the mechanism has n = {n}")
    validation.finite_entries("dataset", arr)
    return arr


def zero_out_relation() -> NeighbourRelation:
    """The DP-SGD neighbouring relation: one record replaced by the zero record ⊥."""
    return NeighbourRelation(
        "zero-out", "replace one record by the zero record ⊥ (gradient 0), n fixed; for "
        "Poisson sampling the same law as add/remove", zero_out_one_row)


def one_record_replaced(d0, d1) -> tuple[bool, str]:
    """Same number of records, and they differ at exactly one position."""
    a, b = np.asarray(d0, dtype=float), np.asarray(d1, dtype=float)
    if a.shape != b.shape:
        return False, f"replace-one neighbours have the same size; got {a.size} and {b.size}"
    differ = int(np.count_nonzero(a != b))
    if differ != 1:
        return False, f"replace-one neighbours differ in exactly one record; {differ} differ"
    return True, ""


def replace_one_relation() -> NeighbourRelation:
    """DP-SGD under replace-one: one record's gradient replaced by another, n fixed."""
    return NeighbourRelation(
        "replace-one", "replace one record by another, n fixed (its clipped gradient moves "
        "by up to 2C)", one_record_replaced)


def canary_structure(values: np.ndarray) -> tuple[float, float, int] | None:
    """(v, u, i) when every record equals v except record i, which equals u (i = n − 1 and
    u = v when all are equal); None otherwise."""
    first = values[0]
    odd = np.flatnonzero(values != first)
    if odd.size == 0:
        return float(first), float(first), values.size - 1
    if odd.size == values.size - 1 and values.size > 1 and np.all(values[1:] == values[1]):
        return float(values[1]), float(first), 0
    if odd.size == 1:
        return float(first), float(values[odd[0]]), int(odd[0])
    return None


__all__ = ["canary_structure", "expand_gradients", "gradient_dataset", "one_record_replaced",
           "replace_one_relation", "zero_out_relation"]
