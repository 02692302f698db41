"""A ``[[series]]`` result: a closed-form quantity over a swept parameter, for a figure.

A suite's ``[[series]]`` entry (:class:`dpaudit.suite.spec.SeriesSpec`) asks a mechanism with
closed-form series (:class:`dpaudit.mechanisms.capabilities.ClosedFormSeries`) for one
quantity at every value of a parameter, on the mechanism's first worst-case pair
(:func:`dpaudit.audit.sweeps.series_job`); nothing is sampled or certified.  The mechanism
answers ``{"y": [...], "label", "ylabel", "markers": [{"x", "label"}], "facts": {name:
value}}``; the result adds what was asked, the claim and its ε at the entry's δ.

* :class:`Marker` — a vertical line of the figure at ``x`` (e.g. the paper's T = (⌈k̂⌉+1)n);
* :class:`SeriesResult` — the entry's result, or the error that stopped it.

Each is frozen and holds plain Python values (∞ as ``math.inf``; integers stay integers; the
swept values, parameters, options and ``claim`` — ``Claim.to_dict()`` — as their JSON); ``to_json()`` writes results.json's ``series`` entry (∞ as ``"inf"``),
``from_json()`` reads it back, ``from_json(x.to_json()) == x`` (NaN aside), and writing what
was read gives the same JSON text.  Renderers read attributes, never keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dpaudit.util.jsonable import number_from_json, to_jsonable


@dataclass(frozen=True)
class Marker:
    """A vertical line of the series' figure at ``x``, with its label (None: none)."""

    x: float
    label: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "x", number_from_json(self.x))

    def to_json(self) -> dict:
        out = {"x": self.x}
        if self.label is not None:
            out["label"] = self.label
        return to_jsonable(out)

    @classmethod
    def from_json(cls, data: dict) -> "Marker":
        """A marker from ``{"x": number, "label": text}`` (``label`` optional).

        Raises:
          KeyError, TypeError: no number ``x``.
        """
        if not isinstance(data, dict):
            raise TypeError(f"a marker is {{'x': number, 'label': text}}, got {str(data)[:80]}")
        label = data.get("label")
        return cls(x=data["x"], label=None if label is None else str(label))


def _fact(value):
    """A fact's value as results hold it: a number (∞ as a float), a string, or JSON."""
    if isinstance(value, str) or value is None:
        return value
    try:
        return number_from_json(value)
    except TypeError:
        return to_jsonable(value)


@dataclass(frozen=True)
class SeriesResult:
    """One ``[[series]]`` entry's result (see the module docstring).

    Attributes:
      suite, suite_file: the suite; name: the entry's name; mechanism: the mechanism's
        registry name; params: its parameters; quantity: the series asked for; options: the
        entry's options passed to ``series()``; note: the entry's note.
      parameter, values: the swept parameter and its values (as the suite gave them).
      y: the quantity at each value (None where not defined), None when none was computed.
      label, ylabel: the line's label and the y axis' (the mechanism's, else the quantity).
      markers: the figure's vertical lines.
      claim: the mechanism's claim (``Claim.to_dict()``), None when it could not be read;
        delta: the δ of the entry; claimed_epsilon: the claim's ε at ``delta``, None without.
      error: what stopped the entry (``"ExceptionType: message"``), None when nothing did.
      pair: the name of the pair the series is of, None when it was not reached.
      facts: the mechanism's named facts (name → number or text), None when it gave none.
      seconds: the entry's wall time (None when its worker failed).
    """

    suite: str
    suite_file: str
    name: str
    mechanism: str
    params: dict
    quantity: str
    parameter: str
    values: tuple
    y: tuple[float | None, ...] | None
    label: str
    ylabel: str
    markers: tuple[Marker, ...]
    claim: dict | None
    delta: float | None
    claimed_epsilon: float | None
    note: str
    error: str | None
    options: dict = field(default_factory=dict)
    pair: str | None = None
    facts: dict | None = None
    seconds: float | None = None

    def __post_init__(self):
        # what the suite and the claim gave, as JSON (what results.json holds)
        object.__setattr__(self, "values", tuple(to_jsonable(list(self.values))))
        for name in ("params", "options", "claim"):
            object.__setattr__(self, name, to_jsonable(getattr(self, name)))
        if self.y is not None:
            object.__setattr__(self, "y", tuple(number_from_json(v) for v in self.y))
        object.__setattr__(self, "markers", tuple(self.markers))
        for name in ("delta", "claimed_epsilon", "seconds"):
            object.__setattr__(self, name, number_from_json(getattr(self, name)))
        if self.facts is not None:
            object.__setattr__(self, "facts", {str(k): _fact(v) for k, v in self.facts.items()})

    @property
    def has_figure(self) -> bool:
        """Whether the series is drawn: it did not fail and has values."""
        return not self.error and bool(self.y)

    @property
    def claim_text(self) -> str | None:
        """The claim as text (``Claim.to_dict()["text"]``), None without a claim."""
        return None if not self.claim else self.claim.get("text")

    def to_json(self) -> dict:
        """results.json's ``series`` entry (without its ``figure`` path): the keys of the
        entry in a fixed order, ``pair`` and ``facts`` only when known."""
        out = {"suite": self.suite, "suite_file": self.suite_file, "name": self.name,
               "mechanism": self.mechanism, "params": self.params,
               "quantity": self.quantity, "parameter": self.parameter,
               "values": list(self.values),
               "y": None if self.y is None else list(self.y), "label": self.label,
               "ylabel": self.ylabel, "markers": [m.to_json() for m in self.markers],
               "claim": self.claim, "delta": self.delta,
               "claimed_epsilon": self.claimed_epsilon, "note": self.note,
               "error": self.error, "options": self.options}
        if self.pair is not None:
            out["pair"] = self.pair
        if self.facts is not None:
            out["facts"] = self.facts
        out["seconds"] = self.seconds
        return to_jsonable(out)

    @classmethod
    def from_json(cls, data: dict) -> "SeriesResult":
        """The inverse of :meth:`to_json`; a ``figure`` key is ignored.

        Raises:
          KeyError, TypeError, ValueError: a malformed entry.
        """
        y, facts = data.get("y"), data.get("facts")
        if facts is not None and not isinstance(facts, dict):
            raise TypeError(f"a series' facts are an object, got {str(facts)[:80]}")
        return cls(suite=data["suite"], suite_file=data["suite_file"], name=data["name"],
                   mechanism=data["mechanism"], params=dict(data.get("params") or {}),
                   quantity=data["quantity"], parameter=data["parameter"],
                   values=tuple(data["values"]), y=None if y is None else tuple(y),
                   label=data.get("label", ""), ylabel=data.get("ylabel", data["quantity"]),
                   markers=tuple(Marker.from_json(m) for m in data.get("markers") or ()),
                   claim=data.get("claim"), delta=data.get("delta"),
                   claimed_epsilon=data.get("claimed_epsilon"), note=data.get("note", ""),
                   error=data.get("error"), options=dict(data.get("options") or {}),
                   pair=data.get("pair"), facts=facts, seconds=data.get("seconds"))


__all__ = ["Marker", "SeriesResult"]
