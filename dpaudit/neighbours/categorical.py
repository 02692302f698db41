"""A dataset space of many categorical records: strings, categories, tuples, dicts.

Group-by counts, histograms over keys found in the data and partition selection take datasets
whose records are categories — ``["a", "b", "c"]`` — or rows of categorical fields —
``[{"country": "fr", "device": "ios"}, …]``.  Their characteristic bug is a key present in one
dataset only: a group-by that releases a noisy count for every key it sees (above a
threshold or not) reveals whether that key exists, which no amount of noise on the counts
hides (pure ε-DP is then false: ε = ∞ at δ = 0).  :class:`CategoricalRecords` is the space
of such datasets; its pair search tries first the pairs where such code breaks
(:meth:`CategoricalRecords.proposals`: a record whose category is absent from the other
dataset — listed or never listed —, the empty and single-record datasets, duplicates, the
largest datasets), then random pairs whose added record is, often, of an unseen category.

Records are either one category each (``categories`` a sequence: strings, numbers, tuples —
any JSON value) or dicts of categorical fields (``categories`` a mapping field → its
categories).  With ``open_domain`` (the default) a record may also hold a category *not in
the list* — :meth:`CategoricalRecords.unseen` per field, e.g. ``"unseen-1"`` for strings, one
past the largest for integers — as a group-by over arbitrary keys accepts; a mechanism that
only accepts its listed categories refuses those pairs (``validate_dataset`` raising), and
they are counted as rejected, never audited.

Neighbours are add/remove-one or replace-one records, compared as
:mod:`dpaudit.neighbours.records` says (a dict's field order does not matter).  Datasets are
plain lists, printable and JSON-serialisable whenever the categories are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from dpaudit.neighbours.proposals import Proposal
from dpaudit.neighbours.spaces import RecordLists

#: how many categories never listed an open domain adds per field
UNSEEN_PER_FIELD = 2


def _unseen_values(listed: tuple, how_many: int) -> tuple:
    """Categories absent from ``listed``: ``"unseen-1"``, … for strings, one past the largest
    for integers, ``("unseen-1",)``… for tuples; none for other types."""
    if listed and all(isinstance(c, str) for c in listed):
        out, i = [], 1
        while len(out) < how_many:
            if f"unseen-{i}" not in listed:
                out.append(f"unseen-{i}")
            i += 1
        return tuple(out)
    if listed and all(isinstance(c, int) and not isinstance(c, bool) for c in listed):
        top = max(listed)
        return tuple(top + 1 + i for i in range(how_many))
    if listed and all(isinstance(c, tuple) for c in listed):
        return tuple(("unseen", i + 1) for i in range(how_many))
    return ()


@dataclass(frozen=True)
class CategoricalRecords(RecordLists):
    """Datasets of ``min_size``..``n_max`` categorical records, add/remove-one or replace-one
    neighbours (``neighbouring``).

    Args:
      categories: the listed categories — a sequence (each record is one of them) or a
        mapping field → sequence (each record is a dict with one category per field); at
        least two per field, no duplicates.
      open_domain: records may also take categories outside the list (:meth:`unseen`).

    Parametrisation (``dimension = 3 + (n_max + 1)·F`` for F fields): x₀ the size, x₁ the
    position of the added or replaced record, x₂ the direction, then F coordinates per record
    (the base records, then the new one), each picking a category among the listed ones —
    and, for the new record of an open domain, the unseen ones too: a random pair adds a
    category absent from the list with probability about U/(k + U) per field.
    """

    categories: tuple | Mapping
    n_max: int = 6
    min_size: int = 0
    neighbouring: str = "add-remove"
    open_domain: bool = True

    name = "categorical-records"

    def __hash__(self) -> int:  # the categories may be a dict
        return hash(repr(self))

    def __post_init__(self):
        fields = self._fields_of(self.categories)
        object.__setattr__(self, "categories", fields if isinstance(self.categories, Mapping)
                           else fields[None])
        for field, values in fields.items():
            where = "categories" if field is None else f"categories[{field!r}]"
            if len(values) < 2:
                raise ValueError(f"{where}: need at least 2 categories, got {list(values)!r}")
            keys = [repr(v) for v in values]
            if len(set(keys)) != len(keys):
                raise ValueError(f"{where}: duplicate categories in {list(values)!r}")
        self._check_neighbouring()

    @staticmethod
    def _fields_of(categories) -> dict:
        if isinstance(categories, (str, bytes)) or categories is None:
            raise ValueError(f"categories: expected a list of categories or a mapping field "
                             f"-> categories, got {categories!r}")
        if isinstance(categories, Mapping):
            if not categories:
                raise ValueError("categories: the mapping has no fields")
            return {f: tuple(v) for f, v in categories.items()}
        return {None: tuple(categories)}

    # -- the domain -------------------------------------------------------------------------
    @property
    def fields(self) -> dict:
        """field → listed categories (the key ``None`` for records of one category)."""
        return self._fields_of(self.categories)

    def unseen(self, field=None) -> tuple:
        """Categories outside the list that an open domain adds for ``field`` (none for a
        closed domain, or categories of a type without an obvious fresh value)."""
        if not self.open_domain:
            return ()
        return _unseen_values(self.fields[field], UNSEEN_PER_FIELD)

    @property
    def dimension(self) -> int:
        return 3 + (self.n_max + 1) * len(self.fields)

    def _record(self, choice: dict):
        """A record from field → category."""
        return choice[None] if None in choice else dict(choice)

    # -- random pairs and the continuous parametrisation -------------------------------------
    def from_vector(self, x) -> tuple[list, list]:
        x = self._unit(x, self.dimension)
        fields = self.fields
        f = len(fields)
        size, pos = self._size_and_position(x)

        def record(coords, extra: bool):
            choice = {}
            for (field, values), u in zip(fields.items(), coords):
                pool = values + (self.unseen(field) if extra else ())
                choice[field] = pool[self._index(u, len(pool))]
            return self._record(choice)

        base = [record(x[3 + i * f:3 + (i + 1) * f], False) for i in range(size)]
        new = record(x[3 + self.n_max * f:3 + (self.n_max + 1) * f], True)
        return self._assemble(base, pos, new, bool(x[2] >= 0.5))

    def strategy(self):
        from hypothesis import strategies as st

        s_min, s_max = self._sizes()
        fields = self.fields
        space = self

        def record(extra: bool):
            return st.fixed_dictionaries({field: st.sampled_from(
                values + (space.unseen(field) if extra else ()))
                for field, values in fields.items()}).map(space._record)

        @st.composite
        def pairs(draw):
            size = draw(st.integers(s_min, s_max))
            base = draw(st.lists(record(False), min_size=size, max_size=size))
            slots = size + 1 if space.neighbouring == "add-remove" else size
            pos = draw(st.integers(0, max(slots - 1, 0)))
            return space._assemble(base, pos, draw(record(True)), draw(st.booleans()))

        return pairs()

    # -- adversarial pairs -----------------------------------------------------------------
    def proposals(self) -> list[Proposal]:
        """A record of a category the other dataset lacks (listed, and never listed for an
        open domain; per field for dict records), the empty and single-record datasets, a
        duplicate, every category but one plus the missing one, the largest datasets."""
        fields = self.fields
        first = {f: v[0] for f, v in fields.items()}
        s_min, s_max = self._sizes()
        add = self.neighbouring == "add-remove"
        out: list[Proposal] = []

        def changed(field, value) -> object:
            return self._record({**first, field: value})

        def pair(name, base, new, why, inside=True):
            if len(base) < s_min or len(base) > s_max or (not add and not base):
                return
            other = base + [new] if add else base[:-1] + [new]
            if other != base:
                out.append(Proposal(name, list(base), other, why, inside))

        one = self._record(first)
        head, head_values = next(iter(fields.items()))
        second = changed(head, head_values[1])
        mid = max(s_min, min(3, s_max))
        if add and s_min == 0:
            pair("empty-vs-one", [], one, "the empty dataset against one record: a group-by "
                 "that releases its only key")
        pair("single-record-unseen", [one] * max(s_min, 1), second, "one record against two "
             "of different categories (replace-one: two single records)")
        for field, values in fields.items():
            label = "" if field is None else f"-{field}"
            pair(f"add-unseen-category{label}", [one] * mid, changed(field, values[1]),
                 "a record whose category is absent from the other dataset: partition "
                 "selection, a key released because it is present")
            for u in self.unseen(field)[:1]:
                pair(f"add-unlisted-category{label}", [one] * mid, changed(field, u),
                     "a category no one listed: code that assumes the listed keys")
            present = [changed(field, v) for v in values[:-1]]
            pair(f"complete-the-categories{label}", present[:s_max],
                 changed(field, values[-1]), "every category but one, then the missing one: "
                 "the largest set of released keys")
        pair("add-duplicate", [one] * mid, one, "a duplicate record: a count that moves "
             "from one to two, code that deduplicates")
        pair("largest-size-unseen", [one] * s_max, second, "the largest dataset and a new "
             "category")
        return out

    def describe(self) -> str:
        s_min, s_max = self._sizes()
        sizes = f"{s_min}..{s_max + 1}" if self.neighbouring == "add-remove" else \
            f"{s_min}..{s_max}"
        fields = self.fields
        if None in fields:
            what = f"records of {len(fields[None])} listed categories"
        else:
            what = "records with fields " + ", ".join(f"{f} ({len(v)} categories)"
                                                       for f, v in fields.items())
        domain = " or unseen ones" if self.open_domain and any(
            self.unseen(f) for f in fields) else ""
        kind = "add/remove-one" if self.neighbouring == "add-remove" else "replace-one"
        return f"{what}{domain}, sizes {sizes}, {kind} neighbours"


__all__ = ["CategoricalRecords", "UNSEEN_PER_FIELD"]
