"""The domain of one record of a declared mechanism (:mod:`dpaudit.mechanisms.declared`).

``records=`` in ``@dpaudit.mechanism`` says what one record of a dataset may be, and from it
dpaudit builds the dataset space its pair search walks, the extreme pair and the dataset check:

* ``(lo, hi)`` — real records in [lo, hi], integer records when both ends are ints
  (:class:`~dpaudit.neighbours.spaces.BoundedRecords`);
* a :class:`range` of consecutive integers — integer records;
* categories — a list or tuple of the categories a record takes (any list or tuple other than
  two numbers: ``["a", "b", "c"]``, ``[1, 2, 3]``), or a dict field → categories for records
  that are dicts (:class:`~dpaudit.neighbours.categorical.CategoricalRecords`, whose search
  tries first a record whose category the other dataset lacks).

Contract: :func:`record_domain` returns ``None`` (no domain), ``(lo, hi, integer)`` or a
:class:`Categories`; a value that is none of these raises ``ValueError`` with one line naming
what was expected (the declaration prefixes its own name and key).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Categories:
    """A categorical record domain: the categories a record takes (a tuple), or a dict
    field → tuple of categories for records that are dicts.  The first listed record is the
    extreme pair's base record, the last its added (or replacing) one."""

    categories: tuple | dict

    def first(self):
        """The first listed record."""
        c = self.categories
        return {f: v[0] for f, v in c.items()} if isinstance(c, dict) else c[0]

    def last(self):
        """The last listed record."""
        c = self.categories
        return {f: v[-1] for f, v in c.items()} if isinstance(c, dict) else c[-1]

    def problem(self, record) -> str | None:
        """Why ``record`` is not a record of this domain, or None when it is."""
        c = self.categories
        if not isinstance(c, dict):
            return None if is_listed(record, c) else (
                f"record {record!r} is not one of the declared categories {list(c)!r}")
        if not isinstance(record, Mapping) or set(record) != set(c):
            return f"record {record!r} is not a dict with the declared fields {list(c)!r}"
        for field, values in c.items():
            if not is_listed(record[field], values):
                return (f"record {record!r}: field {field!r} is not one of the declared "
                        f"categories {list(values)!r}")
        return None

    def describe(self) -> str:
        return f"categories {self.categories!r}"


def is_listed(value, categories: tuple) -> bool:
    """``value`` equals one of ``categories`` — never a bool for a number or the reverse
    (``True == 1`` in Python); a value that cannot be compared is not listed."""
    for c in categories:
        try:
            if isinstance(value, bool) == isinstance(c, bool) and bool(value == c):
                return True
        except (TypeError, ValueError):
            return False
    return False


def record_domain(records):
    """The domain ``records`` declares (module docstring): None, ``(lo, hi, integer)`` or a
    :class:`Categories`.

    Raises:
      ValueError: a value that is no domain, or a domain with no room (lo ≥ hi, fewer than two
        categories, duplicates), one line naming it.
    """
    if records is None:
        return None
    if isinstance(records, range):
        if records.step != 1 or len(records) < 2:
            raise ValueError(f"a range of at least two consecutive integers, got {records!r}")
        return (records.start, records.stop - 1, True)
    if _is_number_pair(records):
        lo, hi = records
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"need finite lo < hi, got {records!r}")
        return (lo, hi, all(isinstance(v, numbers.Integral) for v in records))
    if isinstance(records, (Mapping, tuple, list)):
        return _categories(records)
    raise ValueError(f"the domain of one record, (lo, hi), a range of integers or a list of "
                     f"categories, got {records!r}")


def _is_number_pair(records) -> bool:
    return (isinstance(records, (tuple, list)) and len(records) == 2
            and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in records))


def _categories(records) -> Categories:
    """A categorical domain, checked as
    :class:`~dpaudit.neighbours.categorical.CategoricalRecords` checks its own (at least two
    categories per field, no duplicates)."""
    from dpaudit.neighbours.categorical import CategoricalRecords

    if isinstance(records, Mapping):
        for field, values in records.items():
            if not isinstance(values, (tuple, list)):
                raise ValueError(f"field {field!r}: a list of categories, got {values!r}")
        categories = {field: tuple(values) for field, values in records.items()}
    else:
        categories = tuple(records)
    CategoricalRecords(categories)  # raises ValueError naming what is wrong
    return Categories(categories)


__all__ = ["Categories", "is_listed", "record_domain"]
