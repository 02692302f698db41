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

**Choices after seeing scores** (:func:`select_and_certify`).  The threshold of each
direction is chosen on a held-out selection split of the samples (a fixed random half,
drawn from the seed before any score is looked at); the two chosen rules are certified on the
other half with Bonferroni over their four Clopper–Pearson bounds.  Nothing chosen on the
certification half.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

import numpy as np

from dpaudit.stats.intervals import clopper_pearson_upper


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


def rule_bound(family, fpr_upper: float, fnr_upper: float, *, tolerance: float = 1e-6
               ) -> float:
    """The largest t with FNR_UB < f_t(FPR_UB) (module docstring), 0 when none; in closed
    form for a :class:`ClosedFormRule` family (the GDP family), else by bisection."""
    if isinstance(family, ClosedFormRule):
        return float(family.largest_rejecting(fpr_upper, fnr_upper))

    def rejected(t: float) -> bool:
        return fnr_upper < family.curve(t)(fpr_upper)

    if not rejected(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while rejected(hi):
        lo, hi = hi, 2.0 * hi
        if hi > 1e3:  # pragma: no cover - FPR_UB > 0 always caps the bound
            return lo
    while hi - lo > tolerance:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if rejected(mid) else (lo, mid)
    return lo


@dataclass(frozen=True)
class RuleResult:
    """A certified rule: its error bounds and its bound on t."""

    rule: ThresholdRule
    fpr_upper: float
    fnr_upper: float
    bound: float


def _best_rule(family, in_scores, out_scores, forward: bool, significance: float
               ) -> ThresholdRule:
    """The threshold of one direction with the largest bound on these (selection) scores;
    candidates are every distinct score (± ∞ excluded), ranked by the bound at
    ``significance``."""
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
    # rank by the GDP-style margin (cheap, monotone in both bounds), then bound the best few
    from scipy.stats import norm
    margin = norm.isf(np.clip(fpr, 1e-300, 1.0)) - norm.ppf(np.clip(fnr, 1e-300, 1.0))
    best = np.argsort(-margin, kind="stable")[:8]
    bounds = [rule_bound(family, fpr[i], fnr[i], tolerance=1e-4) for i in best]
    return ThresholdRule(float(candidates[best[int(np.argmax(bounds))]]), forward)


def select_and_certify(family, in_scores, out_scores, *, significance: float,
                       rng: np.random.Generator, selection_fraction: float = 0.5
                       ) -> tuple[RuleResult, list[RuleResult]]:
    """Choose each direction's threshold on a random ``selection_fraction`` of each side's
    scores and certify both rules on the rest, each Clopper–Pearson bound at
    ``significance``/4 (two rules × two bounds).  Returns the better rule and both."""
    in_scores = np.asarray(in_scores, dtype=float)
    out_scores = np.asarray(out_scores, dtype=float)
    if in_scores.size < 2 or out_scores.size < 2:
        raise ValueError("a threshold audit needs at least two 'in' and two 'out' scores")
    if not 0.0 < selection_fraction < 1.0:
        raise ValueError(f"selection_fraction must lie in (0, 1), got {selection_fraction!r}")
    parts = []
    for scores in (in_scores, out_scores):
        perm = rng.permutation(scores.size)
        cut = min(max(1, int(round(selection_fraction * scores.size))), scores.size - 1)
        parts.append((scores[perm[:cut]], scores[perm[cut:]]))
    (in_sel, in_cert), (out_sel, out_cert) = parts
    share = significance / 4.0
    results = []
    for forward in (True, False):
        rule = _best_rule(family, in_sel, out_sel, forward, share)
        fpr, fnr = error_bounds(in_cert, out_cert, rule, share)
        results.append(RuleResult(rule, fpr, fnr, rule_bound(family, fpr, fnr)))
    return max(results, key=lambda x: x.bound), results


__all__ = ["ClosedFormRule", "RuleResult", "ThresholdRule", "error_bounds", "rule_bound",
           "select_and_certify"]
