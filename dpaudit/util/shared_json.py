"""Bulky JSON values written once: a table of shared values and references into it.

A results file repeats large values — the datasets of a pair in every test that certifies it,
the δ-independent part of a curve certificate (its events, their counts and definitions) in
every δ's certificate, a fitted statistic's parameters in each event that thresholds it.
:class:`SharedValues` writes each distinct one once: :meth:`SharedValues.ref` puts a plain JSON
value into the table (equal values — equal as canonical JSON — share one entry) and returns the
reference ``{"$shared": i}`` that stands in its place; :meth:`SharedValues.resolve` gives the
value back.  A document is its tree plus ``table`` (:meth:`SharedValues.to_json`).

Contract:

* ``resolve(ref(v)) == v`` for every plain JSON value ``v`` (dicts, lists, strings, numbers,
  booleans, null — what :func:`dpaudit.util.jsonable.to_jsonable` makes).
* Indices are given in order of first reference, so the same tree written twice gives the same
  table (no hashing order, no set iteration).
* ``resolve`` of a value that is not a reference returns it unchanged, so readers accept a tree
  written with its values inline (``shared=None`` where a writer takes one).
* A reference to an index outside the table raises ``ValueError`` (a damaged file), never an
  ``IndexError`` from deep inside a reader.
* :meth:`SharedValues.share_repeated_strings` writes long free text a document repeats once;
  :meth:`SharedValues.expand` reads a whole document back, every reference resolved.
"""

from __future__ import annotations

import json

#: the key of a reference: ``{"$shared": index}``
REF = "$shared"
#: a string at least this long that a document repeats is written once
LONG_STRING = 48


class SharedValues:
    """The shared-value table of one document (see the module docstring).

    Args:
      table: the entries of a document being read (its ``shared`` list); empty for a new one.
    """

    def __init__(self, table: list | None = None):
        self.table: list = list(table or [])
        self._index: dict[str, int] = {}

    def ref(self, value) -> dict:
        """``{"$shared": i}`` with ``table[i] == value`` (added when new)."""
        key = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=True)
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.table)
            self.table.append(value)
        return {REF: index}

    def resolve(self, value):
        """The value a reference stands for; any other value unchanged.

        Raises:
          ValueError: a reference outside the table.
        """
        if isinstance(value, dict) and len(value) == 1 and REF in value:
            index = value[REF]
            if isinstance(index, bool) or not isinstance(index, int) or not (
                    0 <= index < len(self.table)):
                raise ValueError(f"a shared-value reference {value!r} outside the table "
                                 f"({len(self.table)} entries)")
            return self.table[index]
        return value

    def to_json(self) -> list:
        return list(self.table)

    def expand(self, value):
        """``value`` with every reference in it — and in the values they refer to — replaced
        by its value, recursively (a document read back whole).

        Raises:
          ValueError: a reference outside the table.
        """
        if isinstance(value, dict):
            if len(value) == 1 and REF in value:
                return self.expand(self.resolve(value))
            return {k: self.expand(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.expand(v) for v in value]
        return value

    def share_repeated_strings(self, value, min_length: int = LONG_STRING):
        """``value`` with every string of at least ``min_length`` characters that occurs in
        it more than once replaced by a reference (free text repeated across a document:
        pairs' descriptions, notes, coverage notes).  Keys are never replaced."""
        counts: dict[str, int] = {}

        def count(v):
            if isinstance(v, dict):
                for x in v.values():
                    count(x)
            elif isinstance(v, list):
                for x in v:
                    count(x)
            elif isinstance(v, str) and len(v) >= min_length:
                counts[v] = counts.get(v, 0) + 1

        def replace(v):
            if isinstance(v, dict):
                return v if (len(v) == 1 and REF in v) else {k: replace(x) for k, x in v.items()}
            if isinstance(v, list):
                return [replace(x) for x in v]
            if isinstance(v, str) and counts.get(v, 0) > 1:
                return self.ref(v)
            return v

        count(value)
        return replace(value)


def share(shared: SharedValues | None, value):
    """``shared.ref(value)``, or ``value`` itself when there is no table (inline)."""
    return value if shared is None else shared.ref(value)


def resolve(shared: SharedValues | None, value):
    """``shared.resolve(value)``, or ``value`` itself when there is no table."""
    return value if shared is None else shared.resolve(value)


__all__ = ["LONG_STRING", "REF", "SharedValues", "resolve", "share"]
