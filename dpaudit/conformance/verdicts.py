"""The words a conformance check answers with, and the one rule that chooses them.

An accountant's ε(δ) (or a calibration's target ε) is compared with the bracket
lower ≤ ε_true(δ) ≤ upper of the run's curve (:mod:`dpaudit.exact.subsampled_gaussian`), held
as the evidence the exact-curve check of a suite holds
(:class:`~dpaudit.evidence.exact_curve.ExactCurveEvidence`, :func:`bracket_evidence`), so that
``dpaudit accountants`` and a suite row of ``kind = "exact-curve"`` judge a number by the same
rule (the evidence's :attr:`~dpaudit.evidence.base.Evidence.bound`: the lower end less its
stated floating-point tolerance):

* :attr:`Verdict.UNDER_REPORTS` — the bound exceeds ε_reported: the accountant states less
  than the run's privacy loss provably is (a violation, shown with both numbers);
* :attr:`Verdict.WITHIN` — not under-reporting, ε_reported < upper: inside the bracket's
  numerical error; consistent, but not shown to be an upper bound at this discretisation;
* :attr:`Verdict.CONSISTENT` — ε_reported ≥ upper: an upper bound (slack = ε_reported − upper);
* :attr:`Verdict.REJECTED` — the library does not analyse this run (its own words), which is
  no finding;
* :attr:`Verdict.ERROR` — the library failed (a crash, NaN or a negative ε), or the curve
  could not be computed.
"""

from __future__ import annotations

import enum

from dpaudit.evidence.base import largest_bound
from dpaudit.evidence.exact_curve import EpsilonBracket, ExactCurveEvidence

#: how the conformance brackets are computed (the evidence's ``method``)
BRACKET_METHOD = ("privacy-loss distribution of the subsampled Gaussian (dp_accounting; "
                  "optimistic and pessimistic ends), or its closed form")


class Verdict(enum.Enum):
    UNDER_REPORTS = "under-reports"
    WITHIN = "within"
    CONSISTENT = "consistent"
    REJECTED = "rejected"
    ERROR = "error"


def bracket_evidence(lower: float, upper: float, delta: float | None = None
                     ) -> ExactCurveEvidence:
    """The run's bracket [lower, upper] on ε(δ) as exact-curve evidence."""
    return ExactCurveEvidence(delta=delta, alpha=None,
                              bracket=EpsilonBracket(lower, upper, BRACKET_METHOD))


def judge(reported: float, lower: float, upper: float) -> Verdict:
    """UNDER_REPORTS, WITHIN or CONSISTENT for an ε compared with [lower, upper] (module
    docstring): under-reporting is the exact-curve check's violation rule."""
    bound = largest_bound([bracket_evidence(lower, upper)])
    if bound > reported:
        return Verdict.UNDER_REPORTS
    if reported < upper:
        return Verdict.WITHIN
    return Verdict.CONSISTENT


__all__ = ["BRACKET_METHOD", "Verdict", "bracket_evidence", "judge"]
