"""The words a conformance check answers with.

An accountant's ε(δ) (or a calibration's target ε) is compared with the bracket
lower ≤ ε_true(δ) ≤ upper of the run's curve (:mod:`dpaudit.exact.subsampled_gaussian`):

* :attr:`Verdict.UNDER_REPORTS` — ε_reported < lower: the accountant states less than the
  run's privacy loss provably is (a violation, shown with both numbers);
* :attr:`Verdict.WITHIN` — lower ≤ ε_reported < upper: inside the bracket's numerical error;
  consistent, but not shown to be an upper bound at this discretisation;
* :attr:`Verdict.CONSISTENT` — ε_reported ≥ upper: an upper bound (slack = ε_reported − upper);
* :attr:`Verdict.REJECTED` — the library does not analyse this run (its own words), which is
  no finding;
* :attr:`Verdict.ERROR` — the library failed (a crash, NaN or a negative ε), or the curve
  could not be computed.
"""

from __future__ import annotations

import enum


class Verdict(enum.Enum):
    UNDER_REPORTS = "under-reports"
    WITHIN = "within"
    CONSISTENT = "consistent"
    REJECTED = "rejected"
    ERROR = "error"


def judge(reported: float, lower: float, upper: float) -> Verdict:
    """UNDER_REPORTS, WITHIN or CONSISTENT for an ε compared with [lower, upper]."""
    if reported < lower:
        return Verdict.UNDER_REPORTS
    if reported < upper:
        return Verdict.WITHIN
    return Verdict.CONSISTENT


__all__ = ["Verdict", "judge"]
