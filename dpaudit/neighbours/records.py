"""Records of any type as comparable values: what "the same record" means to a relation.

A neighbouring relation compares datasets as multisets of records (D′ = D ∪ {x}, one record
replaced), so it needs one answer to "are these two records equal?" whatever a record is: a
number, a string or a category, a tuple of fields, a dict (a row of named fields), a vector.
:func:`record_key` gives every record a hashable *key* such that two records are equal exactly
when their keys are:

* numbers of any type (``int``, ``float``, numpy scalars, ``bool`` excluded) compare by value as
  floats, so ``1``, ``1.0`` and ``np.int64(1)`` are the same record; every NaN is the same
  record (:data:`NAN`), unlike IEEE equality, so a dataset with a NaN record is still equal to
  itself;
* strings, bytes, ``None``, booleans and any other hashable value (an enum, a frozen
  dataclass) compare as Python compares them;
* sequences (lists, tuples, 1-D numpy arrays) compare element by element, so ``[1, "a"]`` and
  ``(1.0, "a")`` are the same record;
* mappings (dicts) compare as sets of (field, value) pairs: field order does not matter.

:func:`dataset_records` splits a dataset into its records: a list, tuple or other iterable
(one record per element), a numpy array (one record per entry of a 1-D array, per row of a
2-D one), a pandas ``DataFrame`` (one dict per row) or a single number (one record).  A
string, a dict or ``None`` is not a dataset: :class:`RecordError` (a ``ValueError``) says so
in one line, as it does for a record that cannot be compared (an unhashable object that is
neither a sequence nor a mapping).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np


class RecordError(ValueError):
    """A dataset or record that cannot be compared; the message names it."""


class _Nan:
    """The key of every NaN record (NaN ≠ NaN in IEEE arithmetic, but a dataset holding a NaN
    record must still be equal to itself)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "nan"

    def __eq__(self, other) -> bool:
        return isinstance(other, _Nan)

    def __hash__(self) -> int:
        return hash("dpaudit-nan-record")


#: the key of a NaN record
NAN = _Nan()


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def record_key(record) -> Any:
    """The hashable key of ``record`` (see the module docstring): equal keys, equal records.

    Raises:
      RecordError: a record that is neither hashable, nor a sequence, nor a mapping.
    """
    if record is None or isinstance(record, (str, bytes, bool, np.bool_)):
        return bool(record) if isinstance(record, np.bool_) else record
    if isinstance(record, numbers.Number):
        if isinstance(record, numbers.Complex) and not isinstance(record, numbers.Real):
            return ("complex", record_key(record.real), record_key(record.imag))
        value = float(record)
        return NAN if math.isnan(value) else value
    if isinstance(record, np.ndarray):
        return tuple(record_key(v) for v in record.tolist()) if record.ndim else \
            record_key(record.item())
    if isinstance(record, Mapping):
        return ("record", frozenset((record_key(k), record_key(v)) for k, v in record.items()))
    if isinstance(record, (list, tuple)):
        return tuple(record_key(v) for v in record)
    try:
        hash(record)
    except TypeError:
        raise RecordError(f"record {_shown(record)} (a {type(record).__name__}) cannot be "
                          f"compared: records must be numbers, strings, tuples, lists, dicts "
                          f"or other hashable values") from None
    return record


def dataset_records(dataset) -> list:
    """The records of ``dataset``, in order (see the module docstring).

    Raises:
      RecordError: ``None``, a string, bytes or a dict given as a dataset.
    """
    if dataset is None or isinstance(dataset, (str, bytes, Mapping)):
        raise RecordError(f"a dataset is a sequence of records (a list, tuple, numpy array "
                          f"or DataFrame), got {type(dataset).__name__} {_shown(dataset)}")
    if hasattr(dataset, "to_dict") and hasattr(dataset, "columns"):  # a pandas DataFrame
        return list(dataset.to_dict("records"))
    if isinstance(dataset, np.ndarray):
        return [dataset.item()] if dataset.ndim == 0 else list(dataset)
    if isinstance(dataset, (numbers.Number, np.generic)):
        return [dataset]
    try:
        return list(dataset)
    except TypeError:
        raise RecordError(f"a dataset is a sequence of records, got {type(dataset).__name__} "
                          f"{_shown(dataset)}") from None


def record_keys(dataset) -> list:
    """:func:`record_key` of every record of ``dataset``, in order."""
    return [record_key(r) for r in dataset_records(dataset)]


__all__ = ["NAN", "RecordError", "dataset_records", "record_key", "record_keys"]
