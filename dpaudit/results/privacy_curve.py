"""The privacy-curve figure of one test: what its pair's figure is drawn from.

A pair test that certifies a δ grid of two or more values, or some Rényi orders α
(:func:`dpaudit.audit.procedures.pair_measure.curve_data`), leaves the data of one figure: the
certified points — at each δ the black-box lower bound on ε(δ) and the white-box one, at each
α the bounds on the Rényi divergence D_α — and, around them, the claimed ε and the pair's exact
ε on a dense grid (40 values of δ spread geometrically from a decade below the smallest
positive certified δ to max(largest δ, 10⁻²); 40 orders spread linearly over the certified
α).  Every certified bound holds jointly with the others at the suite's family-wise confidence;
the dense values are computed, not sampled.

* :class:`CertifiedBound` — one certified point: where (δ or α) and its two bounds.
* :class:`DenseCurve` — claimed and exact values on a dense grid (of δ, or of α).
* :class:`PrivacyCurveFigure` — the figure of one (audit point, pair).

Each is frozen and holds plain Python values (∞ as ``math.inf``; an integer stays one);
``to_json()`` writes results.json's ``curves`` entry and the journal's ``curve`` (∞ as
``"inf"``), ``from_json()`` reads it back, ``from_json(x.to_json()) == x`` (NaN aside), and
writing what was read gives the same JSON text.  Renderers read attributes, never keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpaudit.results.records import SweepPoint
from dpaudit.util.jsonable import number_from_json, to_jsonable

#: the JSON keys of the δ curve and of the Rényi curve: (grid, claimed, exact)
DELTA_KEYS = ("dense_delta", "claimed", "exact")
RENYI_KEYS = ("dense_alpha", "claimed_renyi", "exact_renyi")


def _numbers(values) -> tuple:
    return tuple(number_from_json(v) for v in values)


@dataclass(frozen=True)
class CertifiedBound:
    """One certified point of the figure: ``at`` (the δ, or the Rényi order α), the black-box
    lower bound there and the white-box one (None: no white-box test, or no bound)."""

    at: float
    black_box: float | None
    white_box: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "at", number_from_json(self.at))
        object.__setattr__(self, "black_box", number_from_json(self.black_box))
        object.__setattr__(self, "white_box", number_from_json(self.white_box))

    def to_json(self) -> list:
        """``[at, black-box, white-box]``."""
        return to_jsonable([self.at, self.black_box, self.white_box])

    @classmethod
    def from_json(cls, data) -> "CertifiedBound":
        """The inverse of :meth:`to_json`.

        Raises:
          TypeError, ValueError: not a row of three numbers (the bounds may be null).
        """
        if not isinstance(data, list) or len(data) != 3:
            raise ValueError(f"a certified point is [at, black-box, white-box], got "
                             f"{str(data)[:80]}")
        return cls(*data)


@dataclass(frozen=True)
class DenseCurve:
    """Claimed and exact values on a dense grid: ``claimed[i]`` and ``exact[i]`` at
    ``grid[i]`` (None where a value is infinite or unknown); ``exact`` is None when the pair's
    exact curve is not known at all (a mechanism without an exact Rényi divergence)."""

    grid: tuple[float, ...]
    claimed: tuple[float | None, ...]
    exact: tuple[float | None, ...] | None = None

    def __post_init__(self):
        object.__setattr__(self, "grid", _numbers(self.grid))
        object.__setattr__(self, "claimed", _numbers(self.claimed))
        if self.exact is not None:
            object.__setattr__(self, "exact", _numbers(self.exact))

    def to_json(self, keys: tuple[str, str, str]) -> dict:
        """The curve under ``keys`` (:data:`DELTA_KEYS` or :data:`RENYI_KEYS`); no exact key
        when the exact curve is not known."""
        grid, claimed, exact = keys
        out = {grid: list(self.grid), claimed: list(self.claimed)}
        if self.exact is not None:
            out[exact] = list(self.exact)
        return to_jsonable(out)

    @classmethod
    def from_json(cls, data: dict, keys: tuple[str, str, str]) -> "DenseCurve | None":
        """The curve stored under ``keys`` in ``data``, None when ``data`` has none."""
        grid, claimed, exact = keys
        if grid not in data:
            return None
        return cls(grid=data[grid], claimed=data.get(claimed) or (),
                   exact=data.get(exact))


@dataclass(frozen=True)
class PrivacyCurveFigure:
    """The figure data of one (audit point, pair): see the module docstring.

    Attributes:
      suite, suite_file, audit: where the test comes from; pair: its pair's name;
        mechanism: the audited mechanism's name.
      sweep: the point's place in its audit's sweep, None for an audit without one.
      certified: one point per certified δ, in the audit's order; renyi_certified: one per
        certified α.
      dense_delta: claimed and exact ε(δ) on the dense δ grid, None when no δ > 0 was
        certified; dense_alpha: claimed and exact ε(α) on the dense α grid, None without α.
    """

    suite: str
    suite_file: str
    audit: str
    pair: str
    mechanism: str
    sweep: SweepPoint | None
    certified: tuple[CertifiedBound, ...] = ()
    renyi_certified: tuple[CertifiedBound, ...] = ()
    dense_delta: DenseCurve | None = None
    dense_alpha: DenseCurve | None = None

    def __post_init__(self):
        object.__setattr__(self, "certified", tuple(self.certified))
        object.__setattr__(self, "renyi_certified", tuple(self.renyi_certified))

    def to_json(self) -> dict:
        """results.json's ``curves`` entry (without its ``figure`` path)."""
        out = {"suite": self.suite, "suite_file": self.suite_file, "audit": self.audit,
               "pair": self.pair, "mechanism": self.mechanism,
               "sweep": None if self.sweep is None else self.sweep.to_json(),
               "certified": [c.to_json() for c in self.certified],
               "renyi_certified": [c.to_json() for c in self.renyi_certified]}
        if self.dense_delta is not None:
            out.update(self.dense_delta.to_json(DELTA_KEYS))
        if self.dense_alpha is not None:
            out.update(self.dense_alpha.to_json(RENYI_KEYS))
        return to_jsonable(out)

    @classmethod
    def from_json(cls, data: dict | None) -> "PrivacyCurveFigure | None":
        """The inverse of :meth:`to_json` (None for None); a ``figure`` key is ignored.

        Raises:
          KeyError, TypeError, ValueError: a malformed entry.
        """
        if data is None:
            return None
        return cls(suite=data["suite"], suite_file=data["suite_file"], audit=data["audit"],
                   pair=data["pair"], mechanism=data["mechanism"],
                   sweep=SweepPoint.from_json(data.get("sweep")),
                   certified=tuple(CertifiedBound.from_json(c)
                                   for c in data.get("certified") or ()),
                   renyi_certified=tuple(CertifiedBound.from_json(c)
                                         for c in data.get("renyi_certified") or ()),
                   dense_delta=DenseCurve.from_json(data, DELTA_KEYS),
                   dense_alpha=DenseCurve.from_json(data, RENYI_KEYS))


__all__ = ["DELTA_KEYS", "RENYI_KEYS", "CertifiedBound", "DenseCurve", "PrivacyCurveFigure"]
