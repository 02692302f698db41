"""Trade-off bounds from thresholded scores: Gaussian DP (μ) from a few runs, as Nasr, Hayes,
Steinke, Balle, Tramèr, Jagielski, Carlini & Terzis, "Tight Auditing of Differentially Private
Machine Learning" (USENIX Security 2023, arXiv 2302.07956) do, with each direction bounded on
its own.

**The samples.**  Scores of included canaries ("in") and of excluded ones ("out"), every score
an independent draw: one canary per run, or several canaries per run when the mechanism makes
their scores independent given the inclusion bits (Dirac canaries on separate coordinates of
a Gaussian mechanism or of the numpy DP-SGD simulation, :mod:`dpaudit.mechanisms.canaries`).
Scores of one real training are *not* independent (the canaries share a model): that case is
the one-run tests' (:mod:`.one_run`, :mod:`.one_run_fdp`), not this one's.

**A rule and its errors.**  A rule is a threshold t and a direction: *forward* guesses "in"
when the score is ≥ t, *reverse* when it is < t.  Its false-positive rate FPR = P[out guessed
in] and false-negative rate FNR = P[in guessed out] get one-sided Clopper–Pearson upper bounds
(:func:`error_bounds`).  If the mechanism is f-DP then FNR ≥ f(FPR) for every rule (a rule is
a test between the two laws; f is symmetric, so either direction), and since f is
nonincreasing, FNR_UB ≥ FNR ≥ f(FPR) ≥ f(FPR_UB) whenever both bounds hold.  So
FNR_UB < f(FPR_UB) rejects f-DP (:func:`rule_bound`), with error ≤ the two bounds' levels.
For μ-GDP this is μ_LB = Φ⁻¹(1 − FPR_UB) − Φ⁻¹(FNR_UB) (their Eq. for the GDP audit, after
Dong, Roth & Su 2022, Eq. 6); over a family t ↦ f_t the bound is the largest rejected t.

**Never |μ|.**  A negative forward μ is no evidence about the reverse rule: its bounds are
*upper* bounds on the forward errors, while the reverse rule needs upper bounds on its own
errors, 1 − the forward ones.  (Taking |μ| certified ε ≈ 3.5 on null scores in a public
implementation.)  Both directions are rules of their own, each with its own two bounds.

**An ε(δ) for any mechanism** (:func:`approx_dp_epsilon`).  (ε, δ)-DP is f_{ε,δ}-DP with
f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (Dong, Roth & Su 2022, Prop. 2.5;
Kairouz, Oh & Viswanath 2015): every test has FPR + e^ε·FNR ≥ 1 − δ and
FNR + e^ε·FPR ≥ 1 − δ.  So a certified point (FPR_UB, FNR_UB) rejects (ε, δ)-DP for every

    ε < max(ln((1 − δ − FPR_UB)/FNR_UB), ln((1 − δ − FNR_UB)/FPR_UB))

(0 when neither logarithm is positive), and that supremum is a lower bound on the mechanism's
ε(δ) with no assumption on the shape of its privacy curve: if ε(δ) were below it, (ε(δ), δ)-DP
— which the mechanism has — would be rejected, an event of probability ≤ the bounds' level.
It is computed as a difference of logarithms (no e^ε is ever formed).  A zero upper bound is
∞ only when it is one (a Clopper–Pearson upper bound is > 0 at every finite sample size, so
a certified bound is always finite and grows like ln n with the sample, as DESIGN.md asks of
support mismatches).  By contrast μ_LB → ε(δ) through the μ-GDP curve is an ε(δ) bound only
for a mechanism whose curve *is* Gaussian: a non-GDP mechanism can violate G_μ at one point
while its ε(δ) at the audit's δ is far below ε_μ(δ).

**Choices after seeing scores** (:func:`select_and_certify`).  The thresholds are chosen on a
held-out selection split of the samples (a fixed random half, drawn from the seed before any
score is looked at): for each *objective* (a family of curves whose rejected t ranks the
candidates: the (ε, δ) family for the sound ε(δ), the claim's family for the verdict) and each
direction one threshold; the chosen rules are certified on the other half with Bonferroni over
all their Clopper–Pearson bounds (two per rule, fixed in number before any score is seen).
Nothing is chosen on the certification half, and every number read off the certified points
— the (ε, δ) bound, the claim's rejection, a family's t — holds jointly at ``significance``:
all come from the same simultaneously valid bounds.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass

import numpy as np

from dpaudit.stats.intervals import clopper_pearson_upper
from dpaudit.stats.one_run_fdp import SEARCH_CAP


class ClosedFormRule(abc.ABC):
    """A family of curves that says in closed form the largest t whose curve one error pair
    rejects (a capability, asked for with ``isinstance``)."""

    @abc.abstractmethod
    def largest_rejecting(self, alpha: float, beta: float) -> float:
        """The largest t with β < f_t(α) (0 when none)."""


@dataclass(frozen=True)
class ThresholdRule:
    """Guess "in" when score ≥ ``threshold`` (``forward``) or score < ``threshold``."""

    threshold: float
    forward: bool

    def guesses_in(self, scores) -> np.ndarray:
        scores = np.asarray(scores, dtype=float)
        return scores >= self.threshold if self.forward else scores < self.threshold

    def describe(self) -> str:
        return f"in iff score {'≥' if self.forward else '<'} {self.threshold:.6g}"


def error_bounds(in_scores, out_scores, rule: ThresholdRule, significance: float
                 ) -> tuple[float, float]:
    """(FPR_UB, FNR_UB) of ``rule``, each a one-sided Clopper–Pearson bound at
    ``significance``."""
    in_scores, out_scores = np.asarray(in_scores), np.asarray(out_scores)
    if in_scores.size == 0 or out_scores.size == 0:
        raise ValueError("need at least one 'in' and one 'out' score")
    fp = int(rule.guesses_in(out_scores).sum())
    fn = int((~rule.guesses_in(in_scores)).sum())
    return (float(clopper_pearson_upper(fp, out_scores.size, significance)),
            float(clopper_pearson_upper(fn, in_scores.size, significance)))


def _log_ratio(num, den):
    """ln(num/den) for num, den ≥ 0 arrays, as a difference of logarithms: −∞ when num ≤ 0,
    +∞ when den = 0 < num (no warnings)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, -np.inf)
    ok = (num > 0) & (den > 0)
    np.subtract(np.log(np.where(ok, num, 1.0)), np.log(np.where(ok, den, 1.0)), out=out,
                where=ok)
    out[(num > 0) & (den <= 0)] = np.inf
    return out


def approx_dp_epsilon(fpr_upper, fnr_upper, delta: float):
    """The (ε, δ) bound of a certified point (module docstring): max(0,
    ln((1 − δ − FPR_UB)/FNR_UB), ln((1 − δ − FNR_UB)/FPR_UB)); arrays in, arrays out."""
    a, b = np.asarray(fpr_upper, dtype=float), np.asarray(fnr_upper, dtype=float)
    eps = np.maximum(np.maximum(_log_ratio(1.0 - delta - a, b),
                                _log_ratio(1.0 - delta - b, a)), 0.0)
    return eps if eps.ndim else float(eps)


def rule_bound(family, fpr_upper: float, fnr_upper: float, *, tolerance: float = 1e-6
               ) -> float:
    """The largest t with FNR_UB < f_t(FPR_UB) (module docstring), 0 when none, ∞ when every
    member is rejected (the point lies below ``family.weakest()``, the limit of f_t as
    t → ∞; exactly :data:`~dpaudit.stats.one_run_fdp.SEARCH_CAP` when every member up to
    it is rejected and the search stops there); in closed form for a :class:`ClosedFormRule` family (GDP, (ε, δ)), else by
    bisection."""
    weakest = family.weakest() if hasattr(family, "weakest") else None
    if weakest is not None and fnr_upper < weakest(fpr_upper):
        return math.inf
    if isinstance(family, ClosedFormRule):
        return float(family.largest_rejecting(fpr_upper, fnr_upper))

    def rejected(t: float) -> bool:
        return fnr_upper < family.curve(t)(fpr_upper)

    if not rejected(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while rejected(hi):
        if hi >= SEARCH_CAP:  # every member up to the cap rejected: t* ≥ the cap, said so
            return SEARCH_CAP
        lo, hi = hi, min(2.0 * hi, SEARCH_CAP)
    while hi - lo > tolerance:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if rejected(mid) else (lo, mid)
    return lo


@dataclass(frozen=True)
class RuleResult:
    """A certified rule: its Clopper–Pearson upper bounds and the objective that chose it."""

    rule: ThresholdRule
    fpr_upper: float
    fnr_upper: float
    objective: str = ""

    def to_json(self) -> dict:
        return {"text": self.rule.describe(), "threshold": self.rule.threshold,
                "forward": self.rule.forward, "fpr_upper": self.fpr_upper,
                "fnr_upper": self.fnr_upper}


#: candidates per cheap pre-ranking that the objective's own bound ranks
_SHORTLIST = 8


def _best_rule(family, in_scores, out_scores, forward: bool, significance: float,
               delta: float) -> ThresholdRule:
    """The threshold of one direction with the largest t of ``family`` on these (selection)
    scores; candidates are every distinct score, shortlisted by two cheap vectorised ranks
    (the GDP margin Φ⁻¹(1 − FPR) − Φ⁻¹(FNR) and the (ε, δ) bound at ``delta``), the
    shortlist ranked by :func:`rule_bound` at ``significance`` (ties: the larger margin)."""
    from scipy.stats import norm

    candidates = np.unique(np.concatenate([in_scores, out_scores]))
    n_in, n_out = in_scores.size, out_scores.size
    in_sorted, out_sorted = np.sort(in_scores), np.sort(out_scores)
    below_in = np.searchsorted(in_sorted, candidates, side="left")
    below_out = np.searchsorted(out_sorted, candidates, side="left")
    if forward:  # in iff ≥ t: FP = outs ≥ t, FN = ins < t
        fp, fn = n_out - below_out, below_in
    else:  # in iff < t: FP = outs < t, FN = ins ≥ t
        fp, fn = below_out, n_in - below_in
    fpr = np.atleast_1d(clopper_pearson_upper(fp, n_out, significance))
    fnr = np.atleast_1d(clopper_pearson_upper(fn, n_in, significance))
    margin = norm.isf(np.clip(fpr, 1e-300, 1.0)) - norm.ppf(np.clip(fnr, 1e-300, 1.0))
    approx = approx_dp_epsilon(fpr, fnr, delta)
    shortlist = list(dict.fromkeys(
        [*np.argsort(-margin, kind="stable")[:_SHORTLIST],
         *np.argsort(-approx, kind="stable")[:_SHORTLIST]]))
    best = max(shortlist, key=lambda i: (rule_bound(family, fpr[i], fnr[i], tolerance=1e-4),
                                         margin[i]))
    return ThresholdRule(float(candidates[best]), forward)


def select_and_certify(objectives, in_scores, out_scores, *, significance: float,
                       delta: float, rng: np.random.Generator,
                       selection_fraction: float = 0.5) -> list[RuleResult]:
    """For each family of ``objectives`` (a mapping name → family) and each direction, the
    threshold chosen on a random ``selection_fraction`` of each side's scores; every chosen
    rule certified on the rest, each Clopper–Pearson bound at
    ``significance``/(4·len(objectives)) (module docstring).  Returns the certified rules
    (a rule two objectives both chose is certified once, at the same share)."""
    in_scores = np.asarray(in_scores, dtype=float)
    out_scores = np.asarray(out_scores, dtype=float)
    if in_scores.size < 2 or out_scores.size < 2:
        raise ValueError("a threshold audit needs at least two 'in' and two 'out' scores")
    if not 0.0 < selection_fraction < 1.0:
        raise ValueError(f"selection_fraction must lie in (0, 1), got {selection_fraction!r}")
    if not objectives:
        raise ValueError("a threshold audit needs at least one objective")
    parts = []
    for scores in (in_scores, out_scores):
        perm = rng.permutation(scores.size)
        cut = min(max(1, int(round(selection_fraction * scores.size))), scores.size - 1)
        parts.append((scores[perm[:cut]], scores[perm[cut:]]))
    (in_sel, in_cert), (out_sel, out_cert) = parts
    share = significance / (4.0 * len(objectives))
    chosen: dict[ThresholdRule, str] = {}
    for name, family in objectives.items():
        for forward in (True, False):
            rule = _best_rule(family, in_sel, out_sel, forward, share, delta)
            chosen.setdefault(rule, name)
    return [RuleResult(rule, *error_bounds(in_cert, out_cert, rule, share), name)
            for rule, name in chosen.items()]


__all__ = ["ClosedFormRule", "RuleResult", "ThresholdRule", "approx_dp_epsilon",
           "error_bounds", "rule_bound", "select_and_certify"]
