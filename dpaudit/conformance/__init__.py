"""Conformance of accountants and noise calibration with the bracketed exact curves.

* :mod:`~.verdicts` — the words (under-reports, within, consistent, rejected, error);
* :mod:`~.grid` — accountants × runs against the curve (:func:`run_conformance`);
* :mod:`~.calibration` — σ chosen for a target ε, judged at that σ (:func:`check_calibration`);
* :mod:`~.shipped` — the shipped grid `dpaudit accountants --grid` runs.

The layer of the evidence: it reads claims (the accountants) and exact (the curves), and
nothing of the pipeline.
"""

from dpaudit.conformance.calibration import CalibrationRow, check_calibration
from dpaudit.conformance.grid import (ConformanceRow, RunPoint, check_accountant,
                                      run_conformance, true_bracket)
from dpaudit.conformance.shipped import shipped_calibrations, shipped_points
from dpaudit.conformance.verdicts import Verdict, judge

__all__ = ["CalibrationRow", "ConformanceRow", "RunPoint", "Verdict", "check_accountant",
           "check_calibration", "judge", "run_conformance", "shipped_calibrations",
           "shipped_points", "true_bracket"]
