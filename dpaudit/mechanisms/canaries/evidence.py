"""The evidence a canary audit returns: what was guessed, how much was right, what it certifies.

:class:`CanaryEvidence` is an :class:`~dpaudit.evidence.base.Evidence` of kind ``"canary"``
(registered in :mod:`dpaudit.results.evidence_kinds`): its ``bound`` — the number the verdict
compares with the claim — is the largest certified statistic, an ε at the audit's δ; it is
``certified`` (sampled, at the confidence the plan hands down); ``detectable_epsilon(claimed)``
is its power, ``describe()`` the line every renderer prints, ``figure()`` the in/out score
histogram report.html inlines (:mod:`.figure`), ``to_json()``/``from_json()`` its JSON form.
Each statistic's own result is a :class:`StatisticResult`: m canaries pooled, the guesses, the
correct ones, its bound, its family of curves.

The bound of :attr:`Statistic.FDP` and :attr:`Statistic.THRESHOLD` is the ε(δ) of the weakest
curve of the claim's family the test rejects (:mod:`dpaudit.claims.tradeoff`), that of
:attr:`Statistic.EPSILON_DELTA` the largest rejected ε at δ; every one exceeds the claimed ε
exactly when the test rejects the claim itself.

**Power** (:meth:`CanaryEvidence.detectable_epsilon`): under the *Gaussian-shift model* — an
included canary's score N(μ, 1), an excluded one's N(0, 1), the law of a μ-GDP training with
Dirac canaries — the smallest ε(δ) of μ-GDP whose *median* counts (each guess correct with the
mixture's precision at its quantile) make one of the plan's guess counts reject the claim, at
the audit's pooled canary count and significances.  It says what the experiment could have
detected in the idealised threat model; real canaries that share a model do worse.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import ClassVar

import numpy as np

from dpaudit.claims.conversions import gdp_to_dp_epsilon
from dpaudit.evidence.base import Evidence
from dpaudit.mechanisms.canaries.design import Statistic
from dpaudit.stats.one_run import Guesses, steinke_p_value
from dpaudit.stats.one_run_fdp import fdp_rejects

#: bins of the stored score histogram (the report's figure)
HISTOGRAM_BINS = 40


@dataclass(frozen=True)
class StatisticResult:
    """One statistic's certified result at one look.

    Attributes:
      statistic: which test (:class:`Statistic` value).
      bound: its certified lower bound on ε at δ (0: nothing certified).
      canaries: the canaries pooled at the look (m × runs so far).
      runs: the runs pooled.
      guesses: (k₊, k₋) of the best guess count (one-run statistics), else None.
      correct: its correct guesses (one-run statistics), else None.
      significance: the level its test ran at (after every Bonferroni split).
      curve_family: the family its bound is an ε of ("eps-delta", "gdp", "claim-profile").
      rule: the threshold rule and its bounds (threshold statistic), else None.
    """

    statistic: str
    bound: float
    canaries: int
    runs: int
    guesses: tuple | None
    correct: int | None
    significance: float
    curve_family: str
    rule: dict | None = None

    def describe(self) -> str:
        if self.guesses is not None:
            k_plus, k_minus = self.guesses
            how = (f"{self.correct} of {k_plus + k_minus} guesses correct "
                   f"({Guesses(k_plus, k_minus).describe()})")
        else:
            how = (f"rule {self.rule['text']}: FPR ≤ {self.rule['fpr_upper']:.3g}, "
                   f"FNR ≤ {self.rule['fnr_upper']:.3g}")
        family = ("" if self.curve_family == "eps-delta" else
                  f" (ε(δ) of the weakest rejected curve of the {self.curve_family} family)")
        return f"{self.statistic}: {how} → ε_LB = {self.bound:.4g}{family}"


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
        return max(self.results, key=lambda r: r.bound)

    @property
    def bound(self) -> float:
        return self.best.bound if self.results else 0.0

    @property
    def violation(self) -> bool:
        return self.bound > self.claimed

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
        return (f"canary audit, {b.canaries} canaries in {b.runs} run"
                f"{'s' if b.runs != 1 else ''}: {b.describe()} at δ = {self.delta:g} "
                f"(claimed {self.claimed:.4g})")

    def detectable_epsilon(self, claimed: float | None = None) -> float | None:
        """The power of module docstring's Gaussian-shift model (∞ when out of reach; None
        without results)."""
        if not self.results:
            return None
        claimed = self.claimed if claimed is None else float(claimed)
        b = self.best
        return gaussian_shift_detectable(claimed, self.delta, b.canaries,
                                         [Statistic(r.statistic) for r in self.results],
                                         self.plan.get("two_sided", True), b.significance,
                                         self.family)

    def to_json(self, shared=None) -> dict:
        """The JSON form (``shared``, the seam's table of bulky values, is not needed: the
        histogram is small).  ``bound``, ``violation`` and ``text`` are derived, written for
        readers of results.json, and ignored by :meth:`from_json`."""
        return {"kind": self.kind, "delta": self.delta, "claimed": self.claimed,
                "bound": self.bound, "violation": self.violation,
                "results": [asdict(r) for r in self.results], "plan": self.plan,
                "stopped_after": self.stopped_after, "claim": self.claim_text,
                "histogram": None if self.histogram is None else asdict(self.histogram),
                "notes": list(self.notes), "text": self.describe()}

    @classmethod
    def from_json(cls, data: dict, shared=None) -> "CanaryEvidence":
        results = tuple(StatisticResult(**{**r, "guesses": tuple(r["guesses"])
                                           if r.get("guesses") is not None else None})
                        for r in data["results"])
        hist = data.get("histogram")
        return cls(float(data["delta"]), float(data["claimed"]), results, dict(data["plan"]),
                   int(data["stopped_after"]),
                   None if hist is None else ScoreHistogram(**{
                       k: tuple(v) if isinstance(v, list) else v for k, v in hist.items()}),
                   data.get("claim", ""), tuple(data.get("notes", ())))


_ROOT2 = math.sqrt(2.0)


def _sf(x: float) -> float:
    """1 − Φ(x) (math.erfc: the scalar path of a bisection, ~100× scipy's per call)."""
    return 0.5 * math.erfc(x / _ROOT2)


def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / _ROOT2)


def _median_correct(mu: float, m: int, guesses: Guesses) -> int:
    """Median correct count of ``guesses`` among m canaries under the Gaussian-shift model
    (each guess right with the mixture's precision at its quantile; binomial median)."""
    mixture_sf = lambda t: 0.5 * (_sf(t - mu) + _sf(t))  # noqa: E731
    correct = 0.0
    if guesses.k_plus:
        lo, hi = -40.0, 40.0 + mu
        for _ in range(80):  # the score above which a fraction k₊/m of canaries lie
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if mixture_sf(mid) > guesses.k_plus / m else (lo, mid)
        precision = _sf(lo - mu) / (_sf(lo - mu) + _sf(lo))
        correct += guesses.k_plus * precision
    if guesses.k_minus:
        lo, hi = -40.0, 40.0 + mu
        for _ in range(80):  # the score below which a fraction k₋/m lie
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if 1.0 - mixture_sf(mid) < guesses.k_minus / m else (lo, mid)
        precision = _cdf(lo) / (_cdf(lo) + _cdf(lo - mu))
        correct += guesses.k_minus * precision
    return int(math.floor(correct))


def gaussian_shift_detectable(claimed: float, delta: float, m: int, statistics,
                              two_sided: bool, significance: float, family) -> float:
    """The detectable ε of :class:`CanaryEvidence` (module docstring): bisection on μ."""
    from dpaudit.stats.one_run import guess_grid

    grid = guess_grid(m, two_sided=two_sided)
    share = significance  # the stored significance is already each guess count's share
    curve = family.curve(claimed) if family is not None else None

    def detects(mu: float) -> bool:
        for g in grid:
            v = _median_correct(mu, m, g)
            if Statistic.EPSILON_DELTA in statistics and steinke_p_value(
                    m, g.total, v, claimed, delta) <= share:
                return True
            if curve is not None and Statistic.FDP in statistics and fdp_rejects(
                    curve, m, g.total, v, share):
                return True
        return False

    hi = 1.0
    while not detects(hi):
        hi *= 2.0
        if hi > 64.0:
            return math.inf
    lo = 0.0
    while hi - lo > 1e-3:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if detects(mid) else (mid, hi)
    return gdp_to_dp_epsilon(hi, delta)


__all__ = ["CanaryEvidence", "HISTOGRAM_BINS", "ScoreHistogram", "StatisticResult",
           "gaussian_shift_detectable"]
