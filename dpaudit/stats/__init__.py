"""Confidence bounds, multiple-testing control, and ε from counts."""

from dpaudit.stats.epsilon import epsilon_from_counts
from dpaudit.stats.intervals import clopper_pearson_lower, clopper_pearson_upper
from dpaudit.stats.multiple_testing import holm_reject, split_significance

__all__ = ["clopper_pearson_lower", "clopper_pearson_upper", "epsilon_from_counts",
           "holm_reject", "split_significance"]
