"""Family-wise error control for certified bounds.

Every certified number in dpaudit is one of a family (both directions, every candidate event,
every pair, every δ, every step count in a suite).  A family of m bounds each taken at
significance α/m holds simultaneously with probability ≥ 1 − α (Bonferroni's union bound),
which is what :func:`split_significance` computes.  For p-values, :func:`holm_reject` applies
Holm's step-down procedure through ``statsmodels.stats.multitest.multipletests``.
"""

from __future__ import annotations

import numpy as np

from dpaudit.util import validation


def split_significance(confidence: float, family_size: int) -> float:
    """Per-bound significance so that ``family_size`` bounds hold jointly at ``confidence``."""
    validation.confidence("confidence", confidence)
    if int(family_size) < 1:
        raise ValueError(f"family size must be >= 1, got {family_size!r}")
    return (1.0 - confidence) / int(family_size)


def holm_reject(p_values, alpha: float) -> np.ndarray:
    """Boolean rejections of Holm's procedure at family-wise level ``alpha``."""
    p = np.asarray(p_values, dtype=float)
    if p.size == 0:
        return np.zeros(0, dtype=bool)
    from statsmodels.stats.multitest import multipletests  # statsmodels: imported when used

    reject, *_ = multipletests(p, alpha=alpha, method="holm")
    return reject
