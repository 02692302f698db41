"""The typed leaves of the result tree that say where a number came from.

* :class:`RecordedPair` — the neighbouring pair a test certified, as results hold it (large
  datasets summarised: :func:`dpaudit.results.datasets.dataset_entry`).
* :class:`Coverage` — what an audit point looked at beyond its named pairs: the pair search's
  budget, whether the float64 representation was read, and, when only the named pairs were
  audited, why.
* :class:`SearchProvenance` — how a searched test's pair was found: its rank among the screened
  candidates, its source and screening score beside the named pairs' score.
* :class:`BudgetUse` — how a test spent its sample budget: its looks and why it stopped.

Each is frozen, with ``to_json()`` and ``from_json()`` (``from_json(x.to_json()) == x``);
renderers read attributes, never keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dpaudit.spec.coverage import SearchBudget
from dpaudit.util.shared_json import SharedValues, resolve, share

#: a dataset written inline up to this many characters of JSON; longer ones go to the shared
#: table (written once however many tests certify the pair)
INLINE_DATASET_CHARS = 120


@dataclass(frozen=True)
class RecordedPair:
    """A test's pair: its name, its two datasets (as results hold them) and description."""

    name: str
    d0: Any
    d1: Any
    description: str = ""

    def to_json(self, shared: SharedValues | None = None) -> dict:
        import json

        from dpaudit.util.jsonable import to_jsonable

        def dataset(value):
            value = to_jsonable(value)
            text = json.dumps(value, separators=(",", ":"), allow_nan=True)
            return value if len(text) <= INLINE_DATASET_CHARS else share(shared, value)

        return {"name": self.name, "d0": dataset(self.d0), "d1": dataset(self.d1),
                "description": self.description}

    @classmethod
    def from_json(cls, data: dict | None, shared: SharedValues | None = None
                  ) -> "RecordedPair | None":
        if data is None:
            return None
        return cls(name=data.get("name", "?"), d0=resolve(shared, data.get("d0")),
                   d1=resolve(shared, data.get("d1")),
                   description=data.get("description") or "")

    @classmethod
    def of(cls, pair) -> "RecordedPair | None":
        """``pair`` (a :class:`~dpaudit.mechanisms.base.NeighbourPair`, or anything with a
        ``to_dict()`` of that form) as results record it: its datasets summarised above
        :data:`dpaudit.results.datasets.MAX_INLINE_DATASET_VALUES` scalars
        (:func:`~dpaudit.results.datasets.dataset_entry`), or a best-effort description of a
        pair that cannot say itself; None for None."""
        from dpaudit.results.datasets import dataset_entry

        if pair is None:
            return None
        try:
            out = pair.to_dict()
            return cls(out["name"], dataset_entry(out["d0"]), dataset_entry(out["d1"]),
                       out.get("description") or "")
        except Exception:
            return cls(getattr(pair, "name", "?"), repr(getattr(pair, "d0", None)),
                       repr(getattr(pair, "d1", None)), "")

    def to_dict(self) -> dict:
        """The plain form of :meth:`dpaudit.mechanisms.base.NeighbourPair.to_dict`."""
        return {"name": self.name, "d0": self.d0, "d1": self.d1,
                "description": self.description}


@dataclass(frozen=True)
class Coverage:
    """What an audit point audits beyond its named pairs (:mod:`dpaudit.spec.coverage`).

    Attributes:
      search: the pair search's budget, None when the point has no search.
      representation: whether the outputs' float64 representation is read.
      note: why only the named pairs were audited, or None.
      floating_point: how a floating-point violation gates the point, ``fail`` or ``warn``
        (:data:`dpaudit.spec.coverage.FLOATING_POINT_GATES`).
    """

    search: SearchBudget | None
    representation: bool
    note: str | None = None
    floating_point: str = "fail"

    def to_json(self) -> dict:
        out = {"search": None if self.search is None else self.search.to_dict(),
               "representation": self.representation, "note": self.note}
        if self.floating_point != "fail":  # the default is left out: older files read the same
            out["floating_point"] = self.floating_point
        return out

    @classmethod
    def from_json(cls, data: dict | None) -> "Coverage | None":
        if data is None:
            return None
        search = data.get("search")
        return cls(search=None if search is None else SearchBudget(**search),
                   representation=bool(data.get("representation")), note=data.get("note"),
                   floating_point=data.get("floating_point", "fail"))


@dataclass(frozen=True)
class SearchProvenance:
    """How a searched test's pair was found (:meth:`dpaudit.audit.pair_search.PairSearch.summary`).

    Attributes:
      rank: 1 for the best screened candidate.
      source: what proposed it (``random``, ``corner``, a StatDP pattern, …).
      score, named_pairs_score: its screening score and the named pairs' best.
      stronger_than_named: ``score > named_pairs_score``.
      candidates, rejected: candidates screened, and rejected as not neighbouring.
      screen_samples: per-side samples of each screening.
      sources: every source among the screened candidates.
      extra: further provenance a search recorded (kept as given).
    """

    rank: int
    source: str
    score: float
    named_pairs_score: float
    stronger_than_named: bool
    candidates: int
    rejected: int
    screen_samples: int
    sources: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)

    _FIELDS = ("rank", "source", "score", "named_pairs_score", "stronger_than_named",
               "candidates", "rejected", "screen_samples", "sources")

    def describe(self) -> str:
        """``pair found by the pair search (rank 1 of 18 candidates screened, a random
        candidate)``; for an adversarial proposal of the dataset space also its name and why
        it was tried (``extra``'s ``proposal`` and ``why``, issue 36)."""
        text = (f"pair found by the pair search (rank {self.rank} of {self.candidates} "
                f"candidates screened, a {self.source} candidate")
        if self.extra.get("proposal"):
            text += f" {self.extra['proposal']!r}"
            if self.extra.get("why"):
                text += f": {self.extra['why']}"
        return text + ")"

    def to_json(self) -> dict:
        from dpaudit.util.jsonable import to_jsonable

        out = {name: getattr(self, name) for name in self._FIELDS}
        out["sources"] = list(self.sources)
        return to_jsonable({**out, **self.extra})

    @classmethod
    def from_json(cls, data: dict | None) -> "SearchProvenance | None":
        if data is None:
            return None
        values = {name: data[name] for name in cls._FIELDS if name in data}
        values["sources"] = tuple(values.get("sources") or ())
        for name in ("score", "named_pairs_score"):
            values[name] = float(values[name])
        return cls(**values, extra={k: v for k, v in data.items() if k not in cls._FIELDS})


@dataclass(frozen=True)
class BudgetUse:
    """How a test spent its budget (:class:`dpaudit.audit.rounds.Rounds`).

    Attributes:
      stopped: ``violation``, ``power``, ``budget`` or ``fixed``.
      looks: the sizes of the looks run (outputs per side), in order.
      budget: the test's budget.

    Its JSON form is those three; ``rounds`` (the looks run), ``samples`` (the reported
    look's size) and ``drawn`` (per side, every look run) follow from them.
    """

    stopped: str
    looks: tuple[int, ...]
    budget: int

    @property
    def rounds(self) -> int:
        return len(self.looks)

    @property
    def samples(self) -> int:
        """Outputs per side of the reported (last) look."""
        return self.looks[-1]

    @property
    def drawn(self) -> int:
        """Outputs per side drawn by every look run."""
        return sum(self.looks)

    def to_json(self) -> dict:
        return {"stopped": self.stopped, "looks": list(self.looks), "budget": self.budget}

    def to_dict(self) -> dict:
        """Every field spelled out, derived ones included (the flat rows' form:
        :meth:`dpaudit.results.records.CertificateRecord.to_json`)."""
        return {"stopped": self.stopped, "rounds": self.rounds, "looks": list(self.looks),
                "samples": self.samples, "drawn": self.drawn, "budget": self.budget}

    @classmethod
    def from_json(cls, data: dict | None) -> "BudgetUse | None":
        """The inverse of :meth:`to_json` (a form that also spells out ``rounds``,
        ``samples`` and ``drawn`` — :meth:`dpaudit.audit.rounds.Rounds.to_json`, results of
        schema 2 and 3 — reads the same)."""
        if data is None:
            return None
        looks = tuple(int(n) for n in data["looks"])
        if not looks:
            raise ValueError("a test's looks cannot be empty")
        return cls(stopped=data["stopped"], looks=looks, budget=int(data["budget"]))


__all__ = ["BudgetUse", "Coverage", "INLINE_DATASET_CHARS", "RecordedPair",
           "SearchProvenance"]
