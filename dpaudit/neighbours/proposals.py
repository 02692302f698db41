"""Adversarial neighbouring pairs: the datasets where implementations break, tried first.

A random pair of a dataset space rarely lands where DP code breaks.  The literature says where
it does: a key or category present in one dataset only (partition selection, a
``np.unique`` domain), the empty and single-record datasets, duplicated records, records at
the ends of the domain and just outside it (clipping that lets NaN, ∞ or a huge value
through), values at the edges of a binade and of huge magnitude, orderings that change a
floating-point sum, the largest datasets and integers near overflow (Casacuberta et al.,
"Widespread underestimation of sensitivity in differentially private libraries and how to fix
it", CCS 2022, §4–5; Cebere et al., "Privacy in theory, bugs in practice", PETS 2026).  Every
:class:`~dpaudit.neighbours.spaces.DatasetSpace` names such pairs in ``proposals()``, and the
pair search screens them *before* its random candidates (:mod:`dpaudit.audit.pair_search`).

A :class:`Proposal` is a named pair with the reason it is hard.  A space may also return plain
``(name, d0, d1)`` tuples (the form :class:`~dpaudit.neighbours.keyed_rows.KeyedRowsSpace`
uses); :func:`proposals_of` reads either, and a :class:`Proposal` unpacks as such a tuple, so
the two forms are one hook.  ``inside`` says whether both
datasets lie in the space's declared domain; a proposal outside it (a record just beyond
``hi``, NaN, ∞, a huge value) tests what the code does with input it did not promise to take:
a mechanism that refuses it (``validate_dataset`` raising, ``check_pair`` rejecting) is not
audited on it, and one that accepts it is audited as it runs — a privacy claim covers every
input the code accepts.

Contract: proposals are plain Python lists (numbers, NaN and ±∞ included), depend on the space
only (never on a random draw), and are neighbours under the space's relation whenever they are
inside (tests check both).  :func:`bounded_record_proposals` builds those of a space of scalar
records in [lo, hi].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Proposal:
    """One adversarial pair of a dataset space.

    Attributes:
      name: a short identifier, unique within the space (``"add-unseen-category"``); the
        searched pair is named ``searched-<name>``.
      d0, d1: the two datasets (plain lists).
      why: one line: what implementation bug this pair exposes.
      inside: both datasets lie in the space's declared domain.
    """

    name: str
    d0: list
    d1: list
    why: str
    inside: bool = True

    def to_dict(self) -> dict:
        return {"name": self.name, "why": self.why, "inside": self.inside}

    def __iter__(self):
        """``name, d0, d1 = proposal``: the plain tuple form of the hook."""
        return iter((self.name, self.d0, self.d1))


def as_proposal(item) -> Proposal:
    """A :class:`Proposal`, or a ``(name, d0, d1)`` / ``(name, d0, d1, why)`` tuple as one
    (inside the domain, its reason the name when none is given).

    Raises:
      ValueError: anything else, naming what was given."""
    if isinstance(item, Proposal):
        return item
    if isinstance(item, tuple) and len(item) in (3, 4) and isinstance(item[0], str):
        name, d0, d1 = item[:3]
        return Proposal(name, d0, d1, item[3] if len(item) == 4 else name)
    raise ValueError(f"a dataset space's proposals() must give Proposal objects or "
                     f"(name, d0, d1) tuples, got {item!r:.80}")


def proposals_of(space) -> list[Proposal]:
    """``space.proposals()`` as :class:`Proposal` objects (:func:`as_proposal`)."""
    return [as_proposal(item) for item in space.proposals()]


def _add(base: list, new) -> tuple[list, list]:
    """(base, base with ``new`` added at the end)."""
    return list(base), list(base) + [new]


def _replace(base: list, new) -> tuple[list, list]:
    """(base, base with its last record replaced by ``new``)."""
    return list(base), list(base)[:-1] + [new]


def _power_of_two_below(x: float) -> float | None:
    """The largest power of two ≤ x (x > 0), None otherwise."""
    if not (x > 0 and math.isfinite(x)):
        return None
    return float(2.0 ** math.floor(math.log2(x)))


def bounded_record_proposals(lo: float, hi: float, sizes: tuple[int, int], add_remove: bool,
                             integer: bool) -> list[Proposal]:
    """The proposals of scalar records in [lo, hi] (integers when ``integer``), base sizes
    ``sizes`` = (smallest, largest) — the smaller dataset's under add/remove, both under
    replace-one.  Each pair is (base, base with one record added or replaced)."""
    s_min, s_max = sizes
    mid = (lo + hi) / 2 if not integer else int(lo + (hi - lo) // 2)
    num = (lambda v: int(v)) if integer else (lambda v: float(v))
    lo, hi, mid = num(lo), num(hi), num(mid)
    out: list[Proposal] = []

    def pair(name, base, new, why, inside=True):
        if add_remove:
            d0, d1 = _add(base, new)
        else:
            if not base:
                return
            d0, d1 = _replace(base, new)
        if d0 == d1:
            return
        out.append(Proposal(name, d0, d1, why, inside))

    small = max(s_min, 0 if add_remove else 1)
    one = max(s_min, 1)
    if add_remove and s_min == 0:
        pair("empty-vs-one-hi", [], hi, "the empty dataset against one record at hi: code "
             "that divides by the size, or skips noise for an empty input")
        pair("empty-vs-one-lo", [], lo, "the empty dataset against one record at lo")
    if one <= s_max:
        pair("single-record", [lo] * one, hi, "the smallest datasets with a record: "
             "size-dependent scales and special cases for one record")
    if small <= s_max and small >= 1:
        pair("smallest-size-extreme", [mid] * small, hi, "the smallest base and an extreme "
             "record: a bound taken from the data")
    if s_max >= 1:
        pair("largest-size-at-hi", [hi] * s_max, hi if add_remove else lo, "every record at hi in the largest "
             "dataset: the largest sum (integer overflow, rounding at magnitude)")
        pair("largest-size-at-lo", [lo] * s_max, lo if add_remove else hi, "every record at lo in the largest "
             "dataset")
    if s_max >= 2:
        distinct = [num(lo + (hi - lo) * i / max(s_max - 1, 1)) for i in range(s_max)]
        if integer:
            distinct = [int(v) for v in distinct]
        pair("add-duplicate", distinct, distinct[0], "a duplicate of a record already "
             "there: code that deduplicates (np.unique) or counts distinct values")
        pair("add-new-value", [mid] * s_max, hi if mid != hi else lo, "a value absent from "
             "a dataset of duplicates: a domain computed from the data (np.unique)")
    if not integer and s_max >= 2 and hi > 0:
        p = _power_of_two_below(hi)
        if p is not None and lo <= p <= hi:
            below = float(np.nextafter(p, -math.inf))
            if lo <= below:
                pair("binade-edge", [below] * (s_max - 1) + [lo], p, "values just below and "
                     "at a power of two: the float sum crosses a binade, its spacing doubles")
            tiny = p * 2.0 ** -53
            if add_remove and lo <= tiny:
                # summed left to right, p + tiny rounds back to p, so D's small records vanish;
                # D′ holds one more small record and lists the small ones first, so they add
                # up before p: the float sum moves by s_max·tiny, not by the added tiny
                out.append(Proposal("sum-order", [p] + [tiny] * (s_max - 1),
                                    [tiny] * s_max + [p], "an ordering that changes the "
                                    "float sum: small records summed before a large one move "
                                    "it by more than the added record"))
    # outside the declared domain: what does the code do with input it did not promise to take
    step = 1 if integer else (hi - lo if hi > lo else 1.0)
    outside = [("just-above-hi", hi + 1 if integer else float(np.nextafter(hi, math.inf)),
                "a record just above hi: clipping with the wrong comparison"),
               ("just-below-lo", lo - 1 if integer else float(np.nextafter(lo, -math.inf)),
                "a record just below lo"),
               ("far-above-hi", hi + step * 1000, "a record far above hi: no clipping at "
                "all")]
    if integer:
        outside += [("int32-overflow", 2 ** 31 - 1, "a record at the largest int32: "
                     "an int32 accumulator wraps"),
                    ("int64-overflow", 2 ** 63 - 1, "a record at the largest int64: an "
                     "int64 sum wraps")]
    else:
        outside += [("huge-value", 1.7e308, "a record near the largest double: the sum "
                     "overflows to ∞ unless clipped first"),
                    ("nan-record", math.nan, "a NaN record: np.clip lets NaN through"),
                    ("inf-record", math.inf, "an infinite record: inf − inf is NaN after "
                     "clipping by subtraction")]
    base = [mid] * max(one, 1) if (add_remove or one >= 1) else []
    if base and len(base) <= s_max:
        for name, value, why in outside:
            pair(name, base, value, why, inside=False)
    return out


__all__ = ["Proposal", "as_proposal", "bounded_record_proposals", "proposals_of"]
