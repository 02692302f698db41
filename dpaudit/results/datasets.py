"""Datasets as results hold them: in full, or summarised when they are large.

A neighbouring pair's datasets are part of every result of its test (the record's ``pair``)
and of results.json's ``datasets`` table.  A dataset of more than
:data:`MAX_INLINE_DATASET_VALUES` scalars (a Gaussian-mixing matrix with ``dim = 2000``) is
held as its summary ``{"dataset_summary": {"values": n, "shape": [...], "dtype": …, "sha256":
…}}`` (SHA-256 of its compact sorted-key JSON text; shape null and dtype "object" when
ragged) from the moment the test's result is made (:func:`dpaudit.audit.plan.pair_dict`), so
no report, journal line or results.json ever walks it value by value.  Every shipped dataset
has at most 16 000 scalars and is held in full.
"""

from __future__ import annotations

import hashlib
import json


#: the most scalars a dataset of results.json holds in full; a larger one is summarised
MAX_INLINE_DATASET_VALUES = 100_000


def _count_values(value, cap: int) -> int:
    """Scalars in a nested list/dict ``value``, counting stops once above ``cap``."""
    stack, n = [value], 0
    while stack and n <= cap:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        else:
            n += 1
    return n


def dataset_entry(value):
    """``value`` itself, or its summary when it holds more than
    :data:`MAX_INLINE_DATASET_VALUES` scalars (see the module docstring)."""
    if _count_values(value, MAX_INLINE_DATASET_VALUES) <= MAX_INLINE_DATASET_VALUES:
        return value
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    import numpy as np

    try:
        array = np.asarray(value)
        shape, dtype = ([int(n) for n in array.shape], str(array.dtype))
        if array.dtype == object:
            shape = None
    except ValueError:  # ragged
        shape, dtype = None, "object"
    values = _count_values(value, float("inf"))
    return {"dataset_summary": {"values": values, "shape": shape, "dtype": dtype,
                                "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}}


__all__ = ["MAX_INLINE_DATASET_VALUES", "dataset_entry"]
