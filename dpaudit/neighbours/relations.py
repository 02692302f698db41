"""Neighbouring relations, as checks on a concrete pair of datasets.

A privacy claim is a statement about neighbouring datasets only, so an audit of a pair that is
not neighbouring proves nothing (and would report a false violation).  Each relation here is
a predicate ``relation(d0, d1) -> (ok, reason)`` (a user's may return just a bool,
:func:`verdict`); mechanisms name theirs, and the audit runner
refuses a pair the relation rejects, with the reason.

A mechanism states its relation as one :class:`NeighbourRelation` value: a short ``name``,
the one-line ``statement`` reports print (``dpaudit list``), and the ``predicate``.  The
value is callable like its predicate, ``relation(d0, d1) -> (ok, reason)``.

Records may be of any type — numbers, strings and categories, tuples, dicts, vectors — and
are compared as :mod:`dpaudit.neighbours.records` says (``1`` and ``1.0`` are one record,
field order in a dict does not matter); a dataset that is not a sequence of records is a
``ValueError`` naming it.

* :func:`add_remove_one` — D′ = D ∪ {x} or D = D′ ∪ {x} (records as a multiset).
* :func:`replace_one` — same size, exactly one record replaced (as multisets).
* :func:`linf_within` — vectors of query answers with ‖q − q′‖∞ ≤ Δ ("ALL differ").
* :func:`any_single_record` — local DP: any two single records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable

import numpy as np

from dpaudit.neighbours.records import dataset_records, record_keys

#: a neighbouring predicate: ``(d0, d1) -> (ok, reason)``, reason "" when ok
Predicate = Callable[[Any, Any], "tuple[bool, str]"]


@dataclass(frozen=True)
class NeighbourRelation:
    """A mechanism's neighbouring relation D ~ D′.

    Attributes:
      name: a short identifier, e.g. ``"add-remove-one"``, ``"linf<=1"``,
        ``"replace-one-trajectory"``.
      statement: the one-line statement reports show (the ``neighbouring`` text of
        ``dpaudit list``), e.g. "add/remove one record; records lie in [0, Δ]".
      predicate: ``(d0, d1) -> (ok, reason)`` deciding a concrete pair (datasets already
        validated by the mechanism); ``reason`` says why a rejected pair is not neighbouring.
    """

    name: str
    statement: str
    predicate: Predicate

    def __post_init__(self):
        if not self.name or not self.statement or "\n" in self.statement:
            raise ValueError(f"a neighbouring relation needs a name and a one-line statement, "
                             f"got name={self.name!r}, statement={self.statement!r}")
        if not callable(self.predicate):
            raise TypeError(f"relation {self.name!r}: predicate must be callable")

    def __call__(self, d0, d1) -> tuple[bool, str]:
        """``predicate(d0, d1)``: whether the pair is neighbouring, and why not.

        The predicate may return ``(ok, reason)`` or just ``ok`` (a bool: a rejected pair's
        reason then names the relation).

        Raises:
          TypeError: the predicate returned anything else (the message names the relation
            and what it returned)."""
        return verdict(self.predicate(d0, d1), self.name)


def verdict(value, name: str) -> tuple[bool, str]:
    """A predicate's result as ``(ok, reason)``: ``(ok, reason)`` as is, a bool (numpy's
    too) with a reason naming the relation ``name``.

    Raises:
      TypeError: any other value; the message names the relation and what it returned."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value), "" if value else f"the relation {name!r} rejects the pair"
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], (bool, np.bool_)) \
            and isinstance(value[1], str):
        return bool(value[0]), value[1]
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    raise TypeError(f"the predicate of neighbouring relation {name!r} returned {text} (a "
                    f"{type(value).__name__}); it must return True/False or (ok, reason), "
                    f"e.g. (False, \"sizes differ by 2\")")


def add_remove_one(d0, d1) -> tuple[bool, str]:
    a, b = Counter(record_keys(d0)), Counter(record_keys(d1))
    small, large = (a, b) if sum(a.values()) <= sum(b.values()) else (b, a)
    if sum(large.values()) - sum(small.values()) != 1:
        return False, (f"add/remove-one neighbours differ in size by exactly 1 record; sizes are "
                       f"{sum(a.values())} and {sum(b.values())}")
    if small - large:
        return False, "add/remove-one: the smaller dataset is not contained in the larger one"
    return True, ""


def replace_one(d0, d1) -> tuple[bool, str]:
    a, b = Counter(record_keys(d0)), Counter(record_keys(d1))
    if sum(a.values()) != sum(b.values()):
        return False, (f"replace-one neighbours have the same size; sizes are "
                       f"{sum(a.values())} and {sum(b.values())}")
    if sum((a - b).values()) > 1:
        return False, f"replace-one: {sum((a - b).values())} records differ (at most 1 may)"
    return True, ""


def linf_within(d0, d1, bound: float = 1.0) -> tuple[bool, str]:
    q0, q1 = np.asarray(d0, dtype=float), np.asarray(d1, dtype=float)
    if q0.shape != q1.shape:
        return False, f"query-answer vectors must have the same shape, got {q0.shape} and {q1.shape}"
    gap = float(np.max(np.abs(q0 - q1))) if q0.size else 0.0
    if gap > bound + 1e-12:
        return False, f"‖q − q′‖∞ = {gap:g} exceeds the sensitivity {bound:g}"
    return True, ""


def linf(bound: float):
    """The relation ‖q − q′‖∞ ≤ bound."""
    rel = partial(linf_within, bound=bound)
    rel.__name__ = f"linf_within_{bound:g}"
    return rel


def any_single_record(d0, d1) -> tuple[bool, str]:
    if len(dataset_records(d0)) != 1 or len(dataset_records(d1)) != 1:
        return False, "local-DP datasets are single records"
    return True, ""
