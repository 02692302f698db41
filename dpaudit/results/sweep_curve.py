"""The ε-over-sweep curve of a swept audit: ε over the swept parameter, for one pair and δ.

A swept audit is one audit point per value of its swept parameter (:mod:`dpaudit.suite.spec`);
:func:`dpaudit.audit.sweeps.sweep_curves` gathers, per (audit, named pair, δ), every value's
claimed ε, certified black-box and white-box lower bounds (all jointly at the suite's
family-wise confidence), exact ε, verdict and expectation, plus the claim and the exact ε at
extra values of the parameter (``exact_points``: computed, not sampled).

* :class:`SweepValue` — one swept value's row;
* :class:`DenseRow` — the claim and the exact ε at one extra value;
* :class:`SweepCurve` — the curve (results.json's ``curves`` entry of ``"kind": "sweep"``).

Each is frozen and holds plain Python values (∞ as ``math.inf``; integers stay integers; a
swept value as its JSON); ``to_json()`` writes the entry (∞ as ``"inf"``),
``from_json()`` reads it back, ``from_json(x.to_json()) == x`` (NaN aside), and writing what
was read gives the same JSON text.  Renderers read attributes, never keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dpaudit.evidence.vocabulary import Expectation, Verdict
from dpaudit.util.jsonable import number_from_json, to_jsonable


@dataclass(frozen=True)
class SweepValue:
    """One swept value of the curve: ``value`` of the parameter, the claimed ε, the certified
    black-box (``certified``) and white-box lower bounds, the exact ε (None where not known or
    not run), the certificate's verdict and the point's expectation; ``computed`` when the
    point's evidence is computed (an exact-curve check), not a sampled lower bound."""

    value: Any
    claimed: float | None
    certified: float | None
    white_box: float | None
    exact: float | None
    verdict: Verdict
    expect: Expectation
    computed: bool = False

    def __post_init__(self):
        object.__setattr__(self, "value", to_jsonable(self.value))
        for name in ("claimed", "certified", "white_box", "exact"):
            object.__setattr__(self, name, number_from_json(getattr(self, name)))
        object.__setattr__(self, "verdict", Verdict(self.verdict))
        object.__setattr__(self, "expect", Expectation(self.expect))

    def to_json(self) -> dict:
        return to_jsonable({"value": self.value, "claimed": self.claimed,
                            "certified": self.certified, "white_box": self.white_box,
                            "exact": self.exact, "verdict": self.verdict,
                            "expect": self.expect,
                            **({"computed": True} if self.computed else {})})

    @classmethod
    def from_json(cls, data: dict) -> "SweepValue":
        return cls(value=data["value"], claimed=data["claimed"], certified=data["certified"],
                   white_box=data["white_box"], exact=data["exact"], verdict=data["verdict"],
                   expect=data["expect"], computed=bool(data.get("computed", False)))


@dataclass(frozen=True)
class DenseRow:
    """The claimed and the exact ε at one extra value of the swept parameter (None where
    infinite or not known)."""

    value: Any
    claimed: float | None
    exact: float | None

    def __post_init__(self):
        object.__setattr__(self, "value", to_jsonable(self.value))
        object.__setattr__(self, "claimed", number_from_json(self.claimed))
        object.__setattr__(self, "exact", number_from_json(self.exact))

    def to_json(self) -> dict:
        return to_jsonable({"value": self.value, "claimed": self.claimed, "exact": self.exact})

    @classmethod
    def from_json(cls, data: dict) -> "DenseRow":
        return cls(value=data["value"], claimed=data["claimed"], exact=data["exact"])


@dataclass(frozen=True)
class SweepCurve:
    """ε over the swept parameter of one swept audit, for one pair and one δ.

    Attributes:
      suite, suite_file, audit, audit_index: the swept audit; pair, pair_index: its pair;
        mechanism: the audited mechanism's name.
      parameter: the swept parameter; delta: the δ every row is at.
      confidence: the suite's family-wise confidence (every certified bound of the curve
        holds jointly at it); per_certificate_confidence: each certificate's.
      samples: the first swept value's sample budget per side.
      points: one row per swept value, in sweep order.
      dense: the rows at the extra values, by value; dense_errors: why an extra value has no
        row (one line each).
    """

    #: the ``kind`` written in its JSON (a privacy-curve figure writes none)
    kind: ClassVar[str] = "sweep"

    suite: str
    suite_file: str
    audit: str
    audit_index: int
    pair: str
    pair_index: int
    mechanism: str
    parameter: str
    delta: float
    confidence: float
    per_certificate_confidence: float
    samples: int
    points: tuple[SweepValue, ...]
    dense: tuple[DenseRow, ...] = ()
    dense_errors: tuple[str, ...] = ()

    def __post_init__(self):
        for name in ("delta", "confidence", "per_certificate_confidence"):
            object.__setattr__(self, name, number_from_json(getattr(self, name)))
        for name in ("points", "dense", "dense_errors"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def to_json(self) -> dict:
        """results.json's ``curves`` entry (without its ``figure`` path)."""
        return to_jsonable({
            "kind": self.kind, "suite": self.suite, "suite_file": self.suite_file,
            "audit": self.audit, "audit_index": self.audit_index, "pair": self.pair,
            "pair_index": self.pair_index, "mechanism": self.mechanism,
            "parameter": self.parameter, "delta": self.delta, "confidence": self.confidence,
            "per_certificate_confidence": self.per_certificate_confidence,
            "samples": self.samples, "points": [p.to_json() for p in self.points],
            "dense": [d.to_json() for d in self.dense],
            "dense_errors": list(self.dense_errors)})

    @classmethod
    def from_json(cls, data: dict) -> "SweepCurve":
        """The inverse of :meth:`to_json`; a ``figure`` key is ignored.

        Raises:
          KeyError, TypeError, ValueError: a malformed entry.
        """
        if data.get("kind") != cls.kind:
            raise ValueError(f"not a sweep curve (kind {data.get('kind')!r})")
        return cls(suite=data["suite"], suite_file=data["suite_file"], audit=data["audit"],
                   audit_index=int(data["audit_index"]), pair=data["pair"],
                   pair_index=int(data["pair_index"]), mechanism=data["mechanism"],
                   parameter=data["parameter"], delta=data["delta"],
                   confidence=data["confidence"],
                   per_certificate_confidence=data["per_certificate_confidence"],
                   samples=int(data["samples"]),
                   points=tuple(SweepValue.from_json(p) for p in data["points"]),
                   dense=tuple(DenseRow.from_json(d) for d in data.get("dense") or ()),
                   dense_errors=tuple(str(e) for e in data.get("dense_errors") or ()))


__all__ = ["DenseRow", "SweepCurve", "SweepValue"]
