"""A two-sided confidence interval for the ε a certificate measured, from its own counts.

A certificate's number ε_LB is the lower end of an interval; :func:`epsilon_interval` adds the
upper end computed from the same counts, so that two runs' numbers can be compared with what
their own sampling noise explains (:mod:`dpaudit.report.diff`).

**What the interval covers.**  A ``dp`` certificate names its certifying event S (the kept
event with the largest bound) and its counts: k_num of n_num draws of the numerator side and
k_den of n_den of the denominator side fell in S, each bound at the certificate's
``per_bound_significance`` s.  The quantity is the event's privacy loss at δ,

    ε_S(δ) = ln((P_num(S) − δ) / P_den(S)),  clipped below at 0,

which is ≤ the pair's true ε(δ).  With one-sided Clopper–Pearson bounds at s
(:mod:`dpaudit.stats.intervals`):

    lower = ln((LCB(k_num) − δ) / UCB(k_den))   (= the certified ε_LB of that event)
    upper = ln((UCB(k_num) − δ) / LCB(k_den))   (∞ when k_den = 0; 0 when UCB(k_num) ≤ δ)

The certificate's lower bounds over all its kept events hold jointly at its confidence
(Bonferroni over 2m bounds at s each); the matching upper bounds are another 2m bounds at s,
so every kept event's interval — hence the certifying event's, whichever it is — holds
with probability ≥ 1 − 4m·s = 1 − 2(1 − per-certificate confidence), and all intervals of a
suite file jointly with probability ≥ 1 − 2(1 − the suite's confidence).  The selection
split chose the events; its data enters no bound, so the counts are independent of the
choice.

For an ``rdp`` record the quantity is max(D_α(Bern P_num ‖ Bern P_den), the reverse) of the
certifying event; Rényi divergence is jointly quasi-convex (van Erven & Harremoës 2014,
Thm. 13), so its maximum over the box [LCB, UCB]² of the two probabilities is at a corner, and
the upper end is the largest of the four corners' values.  Computed evidence (an exact-curve
check) gives its bracket.  Each evidence class computes its own interval
(:meth:`~dpaudit.evidence.base.Evidence.interval`); the record's is that of its strongest
evidence.

**What it does not cover.**  ε_S is a property of the *selected* event: a different seed can
select another event with a different ε_S even when the mechanism is unchanged (for the
shipped mechanisms the selected events sit where ε_S is flat, so this is small; it is why the
diff calls a change significant only when the two intervals do not overlap at all).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpaudit.results.records import CertificateRecord


@dataclass(frozen=True)
class EpsilonInterval:
    """[lower, upper] for the certifying event's ε (see the module docstring); ``source`` is
    the role of the evidence that attains the record's bound (``black-box``, ``white-box``,
    ``exact``, …)."""

    lower: float
    upper: float
    source: str

    def overlaps(self, other: "EpsilonInterval") -> bool:
        return self.lower <= other.upper and other.lower <= self.upper


def epsilon_interval(record: CertificateRecord) -> EpsilonInterval | None:
    """The two-sided interval of a record's strongest evidence (the one whose bound the
    verdict compares with the claim: :meth:`~dpaudit.evidence.base.Evidence.interval`), or
    None for an errored record or evidence that has no interval."""
    if record.verdict == "error" or not record.evidence:
        return None
    strongest = max(record.evidence, key=lambda e: e.bound)
    found = strongest.interval()
    return None if found is None else EpsilonInterval(*found, source=strongest.role)


__all__ = ["EpsilonInterval", "epsilon_interval"]
