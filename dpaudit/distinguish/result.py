"""The certificates the two-sample estimator returns: typed evidence of the pair audit.

An :class:`EpsilonLowerBound` carries everything needed to re-check its number by hand: the
event that certified it (a statistic of the output and a threshold or category set), which
dataset was in the numerator, the counts on fresh certification samples, the per-bound
significance after the family-wise split, and the method.  ``recheck()`` recomputes ε from
those counts alone.  It is the pair audit's :class:`~dpaudit.evidence.base.Evidence` of kind
``two-sample`` (black-box, or white-box when its distinguisher is the likelihood ratio): its
bound is ``epsilon``, its power :func:`dpaudit.stats.power.detectable_epsilon` over its events.

Floating point: ``floating_point`` says whether the certifying event's statistic reads the
float64 representation of the outputs (their bits, :mod:`dpaudit.distinguish.floating`) rather
than only their values; ``value_epsilon`` is the largest ε certified at the same δ by an event
of a value-only statistic (0.0 if none) — a member of the same simultaneous family, so it is a
valid bound on the ε of the real-valued mechanism the implementation stands for; and
``floating_point_finding`` is the certifying event in words when it reads the representation.

:class:`RenyiLowerBound` is the Rényi certificate read off the same events (kind
``two-sample-renyi``).

JSON (:meth:`EpsilonLowerBound.to_json`).  The certificates of one curve at its δs share
their events, counts, method and sample sizes — only each event's ε and the chosen one differ —
so that part is written once through a :class:`~dpaudit.util.shared_json.SharedValues` table
(``"certification"``, its long ``method`` text once more; its events as a table, ``{"columns":
[…], "rows": [[…], …]}``), and each event's statistic
parameters (a fitted statistic's weights or covariance) once more below it (``"statistic"``,
its long arrays packed losslessly: :mod:`dpaudit.util.packed_numbers`).  The floating-point
fields are written only when they differ from their defaults.  :meth:`EpsilonLowerBound.from_json` reads
that form and the self-contained one of :meth:`EpsilonLowerBound.to_dict` (results.json schema
2 and 3).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from dpaudit.evidence.base import Evidence
from dpaudit.stats.epsilon import epsilon_from_counts
from dpaudit.util.packed_numbers import pack, unpack
from dpaudit.util.shared_json import SharedValues, resolve, share

#: the distinguisher name of the white-box (likelihood-ratio) test
WHITE_BOX = "white-box"


@dataclass(frozen=True)
class CertifiedEvent:
    """One candidate event certified on fresh samples.

    ``numerator`` is ``"d0"`` or ``"d1"``: the bound is ln((LCB(P_num) − δ)/UCB(P_den))."""

    event: str
    numerator: str
    k_numerator: int
    n_numerator: int
    k_denominator: int
    n_denominator: int
    p_numerator_lower: float
    p_denominator_upper: float
    epsilon: float
    definition: dict = field(default_factory=dict)

    def counts_text(self) -> str:
        """``event E = {…}: d1 in E 46991/90000 times, d0 in E 43022/90000 times``: the event
        and its counts on each side, as every report prints them."""
        other = "d1" if self.numerator == "d0" else "d0"
        return (f"event E = {{{self.event}}}: {self.numerator} in E "
                f"{self.k_numerator}/{self.n_numerator} times, {other} in E "
                f"{self.k_denominator}/{self.n_denominator} times")


#: keys of an event's definition that belong to the event, not to its statistic
_EVENT_KEYS = ("op", "threshold", "categories_in_event", "number_of_categories",
               "includes_categories_unseen_in_selection")
#: the columns of the certified events' table in JSON (one row per event; its ε per δ is in
#: each δ's certificate)
_EVENT_COLUMNS = ("event", "numerator", "k_numerator", "n_numerator", "k_denominator",
                  "n_denominator", "p_numerator_lower", "p_denominator_upper", "definition")
#: the fields of the δ-independent part of a certificate, in its JSON order
_SHARED_FIELDS = ("method", "distinguisher", "confidence", "per_bound_significance",
                  "family_size", "samples", "selection_samples", "certification_samples",
                  "output_kind", "seed", "seconds", "selection_seconds")


@dataclass(frozen=True)
class EpsilonLowerBound(Evidence):
    """With probability ≥ ``confidence``, the true ε of the pair at ``delta`` is ≥ ``epsilon``."""

    kind = "two-sample"

    epsilon: float
    delta: float
    confidence: float
    method: str
    event: str
    numerator: str
    k_numerator: int
    n_numerator: int
    k_denominator: int
    n_denominator: int
    per_bound_significance: float
    family_size: int
    samples: int
    selection_samples: int
    certification_samples: int
    output_kind: str
    seed: int | None
    seconds: float
    candidates: tuple[CertifiedEvent, ...] = field(default_factory=tuple)
    event_definition: dict = field(default_factory=dict)
    #: of ``seconds``, the part spent on the selection split (drawing it, fitting statistics
    #: and classifiers, scoring thresholds); the rest is the streamed certification split
    selection_seconds: float = 0.0
    #: the certifying event's statistic reads the float64 representation (not only values)
    floating_point: bool = False
    #: the largest ε certified at ``delta`` by a value-only event (None → ``epsilon``)
    value_epsilon: float | None = None
    #: the certifying event in words when ``floating_point`` (else None)
    floating_point_finding: str | None = None
    #: the distinguisher that chose the events (``"white-box"``: the likelihood ratio)
    distinguisher: str = ""

    def __post_init__(self):
        if self.value_epsilon is None:
            object.__setattr__(self, "value_epsilon", self.epsilon)

    # -- the Evidence contract ------------------------------------------------------------

    @property
    def bound(self) -> float:
        return self.epsilon

    @property
    def role(self) -> str:
        return "white-box" if self.distinguisher == WHITE_BOX else "black-box"

    @property
    def value_bound(self) -> float:
        return self.value_epsilon

    def _events(self) -> set[tuple[int, int]]:
        """(certification samples, denominator count) of the best event and the candidates."""
        return {(int(e.n_denominator), int(e.k_denominator)) for e in (self, *self.candidates)}

    def detectable_epsilon(self, claimed: float | None) -> float | None:
        """The smallest :func:`dpaudit.stats.power.detectable_epsilon` over the certified
        events (each with its denominator count; the same n, significance and δ)."""
        from dpaudit.stats.power import detectable_epsilon

        if claimed is None:
            return None
        values = [detectable_epsilon(claimed, samples=n, significance=self.per_bound_significance,
                                     delta=self.delta, k_denominator=k)
                  for n, k in self._events() if n >= 1]
        return min(values) if values else None

    def power_curve(self, claimed: float | None, true_epsilons):
        """The largest :func:`dpaudit.stats.power.certification_probability` over the events
        (the test certifies when any does)."""
        import numpy as np

        from dpaudit.stats.power import certification_probability

        if claimed is None:
            return None
        curves = [certification_probability(true_epsilons, claimed, samples=n,
                                            significance=self.per_bound_significance,
                                            delta=self.delta, k_denominator=k)
                  for n, k in self._events() if n >= 1]
        return np.max(curves, axis=0) if curves else None

    def interval(self) -> tuple[float, float] | None:
        """[ln((LCB(k_num) − δ)/UCB(k_den)), ln((UCB(k_num) − δ)/LCB(k_den))] of the certifying
        event, both clipped below at 0 (∞ when k_den = 0; 0 when UCB(k_num) ≤ δ): with the
        matching upper bounds at the same per-bound significance s, every kept event's interval
        holds with probability ≥ 1 − 4m·s (:mod:`dpaudit.report.tightness`)."""
        from dpaudit.stats.intervals import clopper_pearson_lower, clopper_pearson_upper

        best, s, delta = self.chosen, self.per_bound_significance, self.delta
        lo_num = float(clopper_pearson_lower(best.k_numerator, best.n_numerator, s))
        hi_num = float(clopper_pearson_upper(best.k_numerator, best.n_numerator, s))
        lo_den = float(clopper_pearson_lower(best.k_denominator, best.n_denominator, s))
        hi_den = float(clopper_pearson_upper(best.k_denominator, best.n_denominator, s))
        lower = math.log((lo_num - delta) / hi_den) if lo_num > delta else 0.0
        if hi_num <= delta:
            upper = 0.0
        elif lo_den <= 0.0:
            upper = math.inf
        else:
            upper = math.log((hi_num - delta) / lo_den)
        return max(lower, 0.0), max(upper, 0.0)

    @property
    def chosen(self) -> CertifiedEvent:
        """The certifying event as a :class:`CertifiedEvent`."""
        for c in self.candidates:
            if c.event == self.event and c.epsilon == self.epsilon:
                return c
        return CertifiedEvent(self.event, self.numerator, self.k_numerator, self.n_numerator,
                              self.k_denominator, self.n_denominator, math.nan, math.nan,
                              self.epsilon, dict(self.event_definition))

    def describe(self) -> str:
        """The certifying event, its counts on each side and the bounds' significance."""
        from dpaudit.util.numbers import format_number

        return (f"{self.chosen.counts_text()} (one-sided Clopper–Pearson bounds at "
                f"significance {format_number(self.per_bound_significance)} each)")

    # -- checks and JSON --------------------------------------------------------------------

    def recheck(self) -> float:
        """Recompute the certified ε from the stored counts (independent of the estimator)."""
        if self.n_numerator == 0:
            return 0.0
        return float(epsilon_from_counts(self.k_numerator, self.n_numerator,
                                         self.k_denominator, self.n_denominator,
                                         delta=self.delta,
                                         significance=self.per_bound_significance))

    def to_dict(self) -> dict:
        """The self-contained plain form (the estimator's public result; results.json schema
        2 and 3 stored it)."""
        out = asdict(self)
        out["candidates"] = [asdict(c) for c in self.candidates]
        for key in ("epsilon", "value_epsilon"):
            if math.isinf(out[key]):
                out[key] = "inf"
        return out

    def to_json(self, shared: SharedValues | None = None) -> dict:
        from dpaudit.util.jsonable import to_jsonable

        chosen = next((i for i, c in enumerate(self.candidates)
                       if c.event == self.event and c.epsilon == self.epsilon
                       and c.numerator == self.numerator), None)
        if chosen is None:  # not one of its candidates: keep the self-contained form
            return {"kind": self.kind, **to_jsonable(self.to_dict())}
        rows = []
        for c in self.candidates:
            definition = to_jsonable(c.definition)
            statistic = {k: v for k, v in definition.items() if k not in _EVENT_KEYS}
            plain = to_jsonable(asdict(c))
            rows.append([plain[k] for k in _EVENT_COLUMNS[:-1]]
                        + [{**{k: definition[k] for k in _EVENT_KEYS if k in definition},
                            "statistic": share(shared, pack(statistic))}])
        events = {"columns": share(shared, list(_EVENT_COLUMNS)), "rows": rows}
        certification = {name: to_jsonable(getattr(self, name)) for name in _SHARED_FIELDS}
        certification["method"] = share(shared, self.method)
        certification["events"] = events
        out = {"kind": self.kind, "delta": self.delta, "epsilon": to_jsonable(self.epsilon),
               "chosen": chosen, "epsilons": [to_jsonable(c.epsilon) for c in self.candidates]}
        # the floating-point fields only when they say something (their defaults otherwise)
        if self.floating_point:
            out["floating_point"] = True
        if self.value_epsilon != self.epsilon:
            out["value_epsilon"] = to_jsonable(self.value_epsilon)
        if self.floating_point_finding is not None:
            out["floating_point_finding"] = self.floating_point_finding
        out["certification"] = share(shared, certification)
        return out

    @classmethod
    def from_json(cls, data: dict, shared: SharedValues | None = None) -> "EpsilonLowerBound":
        if "certification" not in data:
            return cls._from_dict(data)
        cert = dict(resolve(shared, data["certification"]))
        cert["method"] = resolve(shared, cert["method"])
        table = cert["events"]
        columns = resolve(shared, table["columns"])
        candidates = []
        for row, epsilon in zip(table["rows"], data["epsilons"], strict=True):
            entry = dict(zip(columns, row, strict=True))
            definition = dict(entry.pop("definition"))
            statistic = unpack(resolve(shared, definition.pop("statistic")))
            event_part = {k: definition[k] for k in ("op", "threshold") if k in definition}
            rest = {k: v for k, v in definition.items() if k not in ("op", "threshold")}
            candidates.append(CertifiedEvent(**entry, epsilon=_float(epsilon),
                                             definition={**event_part, **statistic, **rest}))
        best = candidates[int(data["chosen"])]
        return cls(epsilon=_float(data["epsilon"]), delta=float(data["delta"]),
                   event=best.event, numerator=best.numerator, k_numerator=best.k_numerator,
                   n_numerator=best.n_numerator, k_denominator=best.k_denominator,
                   n_denominator=best.n_denominator, candidates=tuple(candidates),
                   event_definition=best.definition,
                   floating_point=bool(data.get("floating_point", False)),
                   value_epsilon=_float(data.get("value_epsilon", data["epsilon"])),
                   floating_point_finding=data.get("floating_point_finding"),
                   **{name: cert[name] for name in _SHARED_FIELDS})

    @classmethod
    def _from_dict(cls, data: dict) -> "EpsilonLowerBound":
        """The inverse of :meth:`to_dict` (a ``"kind"`` key is ignored)."""
        values = {k: v for k, v in data.items() if k != "kind"}
        values["candidates"] = tuple(CertifiedEvent(**c) for c in values.get("candidates", ()))
        for key in ("epsilon", "value_epsilon"):
            if values.get(key) is not None:
                values[key] = _float(values[key])
        return cls(**values)


@dataclass(frozen=True)
class RenyiLowerBound(Evidence):
    """With the curve's confidence, max(D_α(P₀‖P₁), D_α(P₁‖P₀)) ≥ ``divergence``: the Rényi
    divergence of Bernoulli laws at the certified event probabilities of the curve's best
    event for α (:func:`dpaudit.stats.epsilon.renyi_from_bounds`).

    ``basis`` is the curve's first ε(δ) certificate, whose events and counts the divergence is
    read from (None in memory straight from the estimator; the pair audit attaches it);
    ``distinguisher`` the one that chose the events (``"white-box"``: the likelihood ratio)."""

    kind = "two-sample-renyi"

    alpha: float
    divergence: float
    event: str
    basis: EpsilonLowerBound | None = None
    distinguisher: str = ""

    @property
    def bound(self) -> float:
        return self.divergence

    @property
    def role(self) -> str:
        return "white-box" if self.distinguisher == WHITE_BOX else "black-box"

    def interval(self) -> tuple[float, float] | None:
        """[divergence, the largest of the four corners of the event probabilities' two-sided
        Clopper–Pearson box]: Rényi divergence is jointly quasi-convex (van Erven & Harremoës
        2014, Thm. 13), so its maximum over the box is at a corner.  None without the basis
        certificate that holds the event's counts."""
        from dpaudit.stats.epsilon import binary_renyi
        from dpaudit.stats.intervals import clopper_pearson_lower, clopper_pearson_upper

        if self.basis is None:
            return None
        event = next((c for c in self.basis.candidates if c.event == self.event), None)
        if event is None:
            return None
        s = self.basis.per_bound_significance
        ps = (float(clopper_pearson_lower(event.k_numerator, event.n_numerator, s)),
              float(clopper_pearson_upper(event.k_numerator, event.n_numerator, s)))
        qs = (float(clopper_pearson_lower(event.k_denominator, event.n_denominator, s)),
              float(clopper_pearson_upper(event.k_denominator, event.n_denominator, s)))
        upper = max(max(binary_renyi(p, q, self.alpha), binary_renyi(q, p, self.alpha))
                    for p in ps for q in qs)
        return float(self.divergence or 0.0), upper

    def describe(self) -> str:
        return f"D_α at α = {self.alpha:g} read off event E = {{{self.event}}}"

    def to_dict(self) -> dict:
        """The self-contained plain form results.json schema 2 and 3 stored for an ``rdp``
        certificate: ``{"alpha", "divergence", "event", "curve_certificate"}``."""
        from dpaudit.util.jsonable import to_jsonable

        return {"alpha": self.alpha, "divergence": to_jsonable(self.divergence),
                "event": self.event,
                "curve_certificate": None if self.basis is None else self.basis.to_dict()}

    def to_json(self, shared: SharedValues | None = None) -> dict:
        from dpaudit.util.jsonable import to_jsonable

        return {"kind": self.kind, "alpha": self.alpha,
                "divergence": to_jsonable(self.divergence), "event": self.event,
                "distinguisher": self.distinguisher,
                "curve_certificate": (None if self.basis is None
                                      else self.basis.to_json(shared))}

    @classmethod
    def from_json(cls, data: dict, shared: SharedValues | None = None) -> "RenyiLowerBound":
        basis = data.get("curve_certificate")
        return cls(alpha=float(data["alpha"]), divergence=_float(data["divergence"]),
                   event=data["event"], distinguisher=data.get("distinguisher", ""),
                   basis=None if basis is None else EpsilonLowerBound.from_json(basis, shared))


def _float(value) -> float:
    """A number written as ``"inf"``/``"nan"`` back to a float."""
    return float(value)


__all__ = ["WHITE_BOX", "CertifiedEvent", "EpsilonLowerBound", "RenyiLowerBound"]
