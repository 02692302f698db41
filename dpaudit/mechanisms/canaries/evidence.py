"""The evidence a canary audit returns: what was guessed, how much was right, what it certifies.

:class:`CanaryEvidence` is an :class:`~dpaudit.evidence.base.Evidence` of kind ``"canary"``
(registered in :mod:`dpaudit.results.evidence_kinds`); ``describe()`` is the line every
renderer prints, ``figure()`` the in/out score histogram report.html inlines (:mod:`.figure`),
``to_json()``/``from_json()`` its JSON form, ``detectable_epsilon(claimed)`` the power of its
verdict (:mod:`.power`).  Each statistic's own result is a :class:`StatisticResult`.

**What each reported number means** (at the audit's δ, each statistic at its share of the
test's α; the numbers of one statistic hold jointly, see :mod:`dpaudit.stats.one_run_fdp`):

* ``bound`` — the ε_LB column, what the certificate's "certified ε_LB" prints — is a lower
  bound on the mechanism's ε(δ) **valid for any mechanism**, whatever the shape of its privacy
  curve: ``one-run-eps-delta``, Steinke, Nasr & Jagielski's binomial test against (ε, δ)-DP
  (:mod:`dpaudit.stats.one_run`); ``one-run-fdp``, Mahloujifar et al.'s recursion against the
  (ε, δ) curves f_{ε,δ} (:class:`~dpaudit.claims.tradeoff.ApproxDPFamily`); ``gdp-threshold``,
  the (ε, δ) conversion of the certified (FPR, FNR) points,
  max(ln((1 − δ − FPR_UB)/FNR_UB), ln((1 − δ − FNR_UB)/FPR_UB))
  (:func:`~dpaudit.stats.threshold_tradeoff.approx_dp_epsilon`).  The evidence's ``bound`` is
  the largest over the statistics.  It is never a family's ε(δ) and never a search cap.
* ``family`` (:class:`FamilyFigure`, one-run-fdp and gdp-threshold) — a separately labelled
  figure in the claim's family of curves (:mod:`dpaudit.claims.tradeoff`): for a GDP claim
  "not μ-GDP for any μ ≤ μ*" (sound for any mechanism) with the ε(δ) it means *if the curve
  is Gaussian* (Nasr et al. 2023 and Mahloujifar et al. 2024 report this ε, assuming "the
  hypothesized f-DP curve of the mechanism"); for any other claim the claim's profile with
  its ε scaled — or, when the certified point lies below the line 1 − δ(0) − α that every
  scaled curve keeps, "every member rejected" in words (∞ in results.json, never a number);
  a search whose member at ε(δ) = 512 is still rejected says "every member up to 512
  rejected" (a lower bound, :data:`~dpaudit.stats.one_run_fdp.SEARCH_CAP`).
* ``rejection`` — the verdict's reason: the test rejected the **claim's own trade-off curve**
  (the family's member at the claimed ε; for one-run-eps-delta the claimed (ε, δ) point).
  That rejection is sound for any mechanism that satisfies the claim.

**The verdict** (:attr:`CanaryEvidence.violation`, read by the seam through
:meth:`CanaryEvidence.rejects`): a violation iff some statistic rejected the claim's curve, or
the bound exceeds the claimed ε (which, the tests being monotone in the curve and the claim
implying (ε_claim, δ)-DP, is a rejection of the claim's curve too).  So a violation either
shows ε_LB > the claimed ε, or says why the claim is rejected although ε_LB is not above it
(:meth:`CanaryEvidence.rejection_reason`: the claim is a whole curve, and a point below it at
another part of the curve refutes it while ε(δ) at this δ may be within the claim).  The
false-violation rate of a true claim is ≤ the test's α: each statistic's violation event is a
rejection, at its share, of a curve the mechanism satisfies.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import ClassVar

import numpy as np

from dpaudit.evidence.base import Evidence
from dpaudit.mechanisms.canaries.design import Statistic
from dpaudit.mechanisms.canaries.power import gaussian_shift_detectable
from dpaudit.stats.one_run import Guesses
from dpaudit.stats.one_run_fdp import capped

#: bins of the stored score histogram (the report's figure)
HISTOGRAM_BINS = 40


@dataclass(frozen=True)
class FamilyFigure:
    """A statistic's figure in the claim's family of curves (module docstring).

    Attributes:
      name: the family ("gdp", "claim-profile").
      epsilon: t*, the ε(δ) of the weakest member rejected (0: none; ∞: every member).
      mu: for the GDP family, the μ of that member.
      floor_delta: for the claim-profile family, δ(0) of the claim: every member stays above
        1 − δ(0) − α.
    """

    name: str
    epsilon: float
    mu: float | None = None
    floor_delta: float | None = None

    @property
    def all_rejected(self) -> bool:
        """Every member rejected (the point lies below the family's limit curve)."""
        return math.isinf(self.epsilon)

    @property
    def capped(self) -> bool:
        """Every member up to :data:`~dpaudit.stats.one_run_fdp.SEARCH_CAP` rejected, the
        search stopped there: ``epsilon`` is a lower bound on t*, not an estimate."""
        return capped(self.epsilon)

    def describe(self) -> str:
        if self.all_rejected:
            floor = ("" if self.floor_delta is None else
                     f": the certified point lies below 1 − {self.floor_delta:.4g} − α, "
                     f"under every scaled curve")
            return f"every curve of the {self.name} family rejected{floor}"
        if self.capped:
            return (f"every curve of the {self.name} family up to ε(δ) = {self.epsilon:.4g} "
                    f"rejected (the search stops there)")
        if self.epsilon <= 0:
            return f"no curve of the {self.name} family rejected"
        if self.mu is not None:
            return (f"not μ-GDP for any μ ≤ {self.mu:.4g} (ε(δ) ≥ {self.epsilon:.4g} if the "
                    f"curve is Gaussian)")
        return (f"the claim's profile with ε scaled rejected up to ε(δ) = "
                f"{self.epsilon:.4g} (ε(δ) ≥ {self.epsilon:.4g} if the curve has that shape)")

    @classmethod
    def of(cls, family, t: float) -> "FamilyFigure":
        """The figure of ``t`` in ``family`` (:mod:`dpaudit.claims.tradeoff`)."""
        t = float(t)
        mu = family.mu(t) if hasattr(family, "mu") and math.isfinite(t) else None
        return cls(family.name, t, mu, getattr(family, "floor_delta", None))


@dataclass(frozen=True)
class StatisticResult:
    """One statistic's certified result at one look (module docstring).

    Attributes:
      statistic: which test (:class:`Statistic` value).
      bound: its certified lower bound on ε(δ), valid for any mechanism (0: nothing).
      canaries: the canaries pooled at the look (m × runs so far).
      runs: the runs pooled.
      guesses: (k₊, k₋) of the guess count that certified ``bound`` (one-run statistics).
      correct: its correct guesses (one-run statistics), else None.
      significance: the level each of its tests ran at (after every Bonferroni split).
      rejection: why the claim's own curve is rejected, in words; None when it is not.
      family: its figure in the claim's family, or None (one-run-eps-delta).
      rule: the threshold rule that certified ``bound`` and its bounds (gdp-threshold).
    """

    statistic: str
    bound: float
    canaries: int
    runs: int
    guesses: tuple | None
    correct: int | None
    significance: float
    rejection: str | None = None
    family: FamilyFigure | None = None
    rule: dict | None = None

    def describe(self) -> str:
        if self.guesses is not None:
            k_plus, k_minus = self.guesses
            how = (f"{self.correct} of {k_plus + k_minus} guesses correct "
                   f"({Guesses(k_plus, k_minus).describe()})")
        else:
            how = (f"rule {self.rule['text']}: FPR ≤ {self.rule['fpr_upper']:.3g}, "
                   f"FNR ≤ {self.rule['fnr_upper']:.3g}")
        text = f"{self.statistic}: {how} → ε_LB = {self.bound:.4g} (any mechanism"
        text += ("; every (ε, δ) curve up to it rejected, the search stops there)"
                 if capped(self.bound) else ")")
        if self.family is not None:
            text += f"; {self.family.describe()}"
        return text

    def to_json(self) -> dict:
        """Plain JSON: an all-rejected family figure's ∞ as ``"inf"`` (results.json's
        numbers)."""
        out = asdict(self)
        if self.family is not None and self.family.all_rejected:
            out["family"]["epsilon"] = "inf"
        return out

    @classmethod
    def from_json(cls, r: dict) -> "StatisticResult":
        family = r.get("family")
        return cls(r["statistic"], float(r["bound"]), int(r["canaries"]), int(r["runs"]),
                   None if r.get("guesses") is None else tuple(r["guesses"]),
                   r.get("correct"), float(r["significance"]), r.get("rejection"),
                   None if family is None else FamilyFigure(
                       family["name"], float(family["epsilon"]), family.get("mu"),
                       family.get("floor_delta")),
                   r.get("rule"))


@dataclass(frozen=True)
class ScoreHistogram:
    """In/out canary scores binned on a common grid, and the score cut points of the best
    guesses (the report's figure)."""

    edges: tuple
    counts_in: tuple
    counts_out: tuple
    cut_in: float | None = None
    cut_out: float | None = None

    @classmethod
    def of(cls, scores, included, guesses: Guesses | None) -> "ScoreHistogram":
        scores = np.asarray(scores, dtype=float)
        included = np.asarray(included, dtype=bool)
        edges = np.histogram_bin_edges(scores, bins=HISTOGRAM_BINS)
        cut_in = cut_out = None
        if guesses is not None:
            ordered = np.sort(scores)[::-1]
            if guesses.k_plus:
                cut_in = float(ordered[guesses.k_plus - 1])
            if guesses.k_minus:
                cut_out = float(ordered[scores.size - guesses.k_minus])
        return cls(tuple(float(e) for e in edges),
                   tuple(int(c) for c in np.histogram(scores[included], edges)[0]),
                   tuple(int(c) for c in np.histogram(scores[~included], edges)[0]),
                   cut_in, cut_out)


@dataclass(frozen=True)
class CanaryEvidence(Evidence):
    """A canary audit's evidence (module docstring)."""

    kind: ClassVar[str] = "canary"
    certified: ClassVar[bool] = True

    delta: float
    claimed: float
    results: tuple
    plan: dict
    stopped_after: int
    histogram: ScoreHistogram | None = None
    claim_text: str = ""
    notes: tuple = field(default=())
    #: the claim's family of curves (not serialised; power of the f-DP statistic needs it)
    family: object = field(default=None, compare=False, repr=False)

    @property
    def best(self) -> StatisticResult:
        """The statistic with the largest bound (the first on a tie)."""
        return max(self.results, key=lambda r: r.bound)

    @property
    def bound(self) -> float:
        """The largest ε_LB, valid for any mechanism (module docstring)."""
        return self.best.bound if self.results else 0.0

    @property
    def rejecting(self) -> StatisticResult | None:
        """The first statistic that rejected the claim's curve, None when none did."""
        return next((r for r in self.results if r.rejection is not None), None)

    @property
    def violation(self) -> bool:
        """The verdict (module docstring)."""
        return self.rejecting is not None or self.bound > self.claimed

    def rejects(self, claimed: float) -> bool:
        """The verdict against ``claimed``: this audit's own when it is the claimed ε it
        tested; any other value only by the bound."""
        return self.violation if claimed == self.claimed else self.bound > claimed

    def rejection_reason(self, claimed: float) -> str | None:
        """Why the claim is rejected although ε_LB does not exceed it; else None."""
        if not self.rejects(claimed) or self.bound > claimed:
            return None
        r = self.rejecting
        return f"{r.statistic} rejects the claim's trade-off curve: {r.rejection}"

    @property
    def role(self) -> str:
        return self.kind

    def interval(self) -> None:
        """No two-sided interval: a one-run bound is one-sided by construction."""
        return None

    def figure(self):
        """The in/out canary score histogram with the certifying guesses' cut points
        (:func:`.figure.canary_figure`); None without a histogram."""
        if self.histogram is None:
            return None
        from dpaudit.mechanisms.canaries.figure import canary_figure

        return canary_figure(self.to_json())

    def describe(self) -> str:
        b = self.best
        text = (f"canary audit, {b.canaries} canaries in {b.runs} run"
                f"{'s' if b.runs != 1 else ''}: {b.describe()} at δ = {self.delta:g} "
                f"(claimed {self.claimed:.4g})")
        reason = self.rejection_reason(self.claimed)
        if reason is not None:
            text += f"; violation: {reason}"
        if self.notes and self.bound == 0:
            text += "; " + "; ".join(self.notes)
        return text

    def detectable_epsilon(self, claimed: float | None = None) -> float | None:
        """The power of the verdict under the Gaussian-shift model (:mod:`.power`; ∞ when
        out of reach; None without results)."""
        if not self.results:
            return None
        claimed = self.claimed if claimed is None else float(claimed)
        one_run = [r for r in self.results if r.guesses is not None] or list(self.results)
        return gaussian_shift_detectable(claimed, self.delta, self.best.canaries,
                                         [Statistic(r.statistic) for r in self.results],
                                         self.plan.get("two_sided", True),
                                         one_run[0].significance, self.family)

    def to_json(self, shared=None) -> dict:
        """The JSON form (``shared``, the seam's table of bulky values, is not needed: the
        histogram is small).  ``bound``, ``violation`` and ``text`` are derived, written for
        readers of results.json, and ignored by :meth:`from_json`."""
        return {"kind": self.kind, "delta": self.delta, "claimed": self.claimed,
                "bound": self.bound, "violation": self.violation,
                "results": [r.to_json() for r in self.results], "plan": self.plan,
                "stopped_after": self.stopped_after, "claim": self.claim_text,
                "histogram": None if self.histogram is None else asdict(self.histogram),
                "notes": list(self.notes), "text": self.describe()}

    @classmethod
    def from_json(cls, data: dict, shared=None) -> "CanaryEvidence":
        delta, claimed = float(data["delta"]), float(data["claimed"])
        results = tuple(StatisticResult.from_json(r) if "curve_family" not in r
                        else legacy_result(r, delta, claimed) for r in data["results"])
        hist = data.get("histogram")
        return cls(delta, claimed, results, dict(data["plan"]), int(data["stopped_after"]),
                   None if hist is None else ScoreHistogram(**{
                       k: tuple(v) if isinstance(v, list) else v for k, v in hist.items()}),
                   data.get("claim", ""), tuple(data.get("notes", ())))


def legacy_result(r: dict, delta: float, claimed: float) -> StatisticResult:
    """A statistic of a results.json written before the sound bound (its ``bound`` was the
    family's ε(δ), ``curve_family`` its family): the sound bound recomputed from its stored
    counts or certified point, the old number kept as the family figure, the old verdict
    (old bound > claimed) as the rejection."""
    from dpaudit.claims.tradeoff import ApproxDPFamily
    from dpaudit.stats.one_run_fdp import fdp_bound
    from dpaudit.stats.threshold_tradeoff import approx_dp_epsilon

    old, name = float(r["bound"]), r["curve_family"]
    guesses = None if r.get("guesses") is None else tuple(r["guesses"])
    if name == "eps-delta":
        return StatisticResult(r["statistic"], old, r["canaries"], r["runs"], guesses,
                               r.get("correct"), r["significance"])
    if guesses is not None:
        bound = fdp_bound(ApproxDPFamily(delta), r["canaries"], sum(guesses), r["correct"],
                          significance=r["significance"])
    else:
        bound = approx_dp_epsilon(r["rule"]["fpr_upper"], r["rule"]["fnr_upper"], delta)
    rejection = (f"its {name} family's ε(δ) {old:.4g} exceeds the claim (a record written "
                 f"before the sound bound)" if old > claimed else None)
    return StatisticResult(r["statistic"], float(bound), r["canaries"], r["runs"], guesses,
                           r.get("correct"), r["significance"], rejection,
                           FamilyFigure(name, old), r.get("rule"))


__all__ = ["CanaryEvidence", "FamilyFigure", "HISTOGRAM_BINS", "ScoreHistogram",
           "StatisticResult", "legacy_result"]
