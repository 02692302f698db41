"""One-sided Clopper–Pearson bounds for binomial proportions.

For k successes in n trials and significance s, the exact (Clopper–Pearson 1934) one-sided
bounds are

    LCB(k, n, s) = Beta⁻¹(s; k, n − k + 1)      (0 when k = 0)
    UCB(k, n, s) = Beta⁻¹(1 − s; k + 1, n − k)  (1 when k = n)

so that P[p < LCB] ≤ s and P[p > UCB] ≤ s for every true p.  They are computed through
``statsmodels.stats.proportion.proportion_confint(method="beta")``, whose two-sided interval at
level 2s has exactly these end points.  Never a normal approximation: near 0 and 1 (where the
interesting privacy events live) it under-covers.
"""

from __future__ import annotations

import numpy as np


def _validate(k, n, significance):
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(n <= 0) or np.any(k < 0) or np.any(k > n):
        raise ValueError(f"need 0 <= k <= n and n > 0, got k={k}, n={n}")
    if not (0.0 < significance < 0.5):
        raise ValueError(f"significance must lie in (0, 0.5), got {significance}")
    return k, n


def clopper_pearson_lower(k, n, significance: float):
    """One-sided lower confidence bound on p at level 1 − significance."""
    from statsmodels.stats.proportion import proportion_confint  # 1-2 s to import

    k, n = _validate(k, n, significance)
    lower, _ = proportion_confint(k, n, alpha=2.0 * significance, method="beta")
    lower = np.where(k == 0, 0.0, np.nan_to_num(lower, nan=0.0))
    return lower if lower.ndim else float(lower)


def clopper_pearson_upper(k, n, significance: float):
    """One-sided upper confidence bound on p at level 1 − significance."""
    from statsmodels.stats.proportion import proportion_confint

    k, n = _validate(k, n, significance)
    _, upper = proportion_confint(k, n, alpha=2.0 * significance, method="beta")
    upper = np.where(k == n, 1.0, np.nan_to_num(upper, nan=1.0))
    return upper if upper.ndim else float(upper)
