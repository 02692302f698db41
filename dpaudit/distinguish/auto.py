"""The automatic distinguisher's choice of statistics (``distinguisher="auto"``).

:func:`fit_auto_statistics` looks at the selection split only: it detects the output kind
(discrete scalar, scalar with few values, continuous scalar with or without atoms, discrete
vector, vector with atoms, continuous vector) and fits the statistics of
:mod:`dpaudit.distinguish.statistics` and :mod:`dpaudit.distinguish.patterns` that suit it.
The events of every returned statistic are members of the certificate's family
(:mod:`dpaudit.distinguish.lower_bound`).
"""

from __future__ import annotations

import numpy as np

from dpaudit.distinguish.floating import representation_statistics
from dpaudit.distinguish.patterns import (MAX_CATEGORIES, CategoryScore, RowEncoder,
                                          ValueEncoder, fit_atom_pattern, frequent_atoms,
                                          is_integral, top_keys, within_pattern_statistics)
from dpaudit.distinguish.statistics import (FIT_ROWS, Coordinate, GaussianLogRatio, Linear, Norm,
                                            Sanitizer, SignedExtreme, Statistic,
                                            fit_scalar_spread)

DETECTION_ROWS = 20_000
#: distinct integer rows (in the detection prefix) above which row patterns are fitted on one
#: half of the selection split and scored on the other
SPARSE_ROWS = 256


def fit_auto_statistics(x0: np.ndarray, x1: np.ndarray, representation: bool = False
                        ) -> tuple[list[Statistic], str]:
    """Choose and fit statistics from the selection samples; returns (statistics, output kind).

    With ``representation``, float-valued continuous outputs also get the statistics of their
    float64 representation (:mod:`dpaudit.distinguish.floating`: lowest set bit, trailing
    significand zeros, exponent), for auditing floating-point implementations.
    """
    stats, kind = _fit_value_statistics(x0, x1)
    if representation and not kind.startswith("discrete"):
        stats.extend(representation_statistics(x0, x1))
    return stats, kind


def _fit_value_statistics(x0: np.ndarray, x1: np.ndarray) -> tuple[list[Statistic], str]:
    """Statistics of the output values (see :func:`fit_auto_statistics`).

    The output type (discrete, atoms) is detected on the first ``DETECTION_ROWS`` rows of
    each side and moments are fitted on the first half of the selection split (at most
    ``FIT_ROWS``; the rows are i.i.d., so a prefix is a random subsample), whose thresholds are
    then scored on the other half; category scores use the whole selection split."""
    stats: list[Statistic] = []
    p0, p1 = x0[:DETECTION_ROWS], x1[:DETECTION_ROWS]
    n_detect = len(p0) + len(p1)
    if x0.ndim == 1:
        prefix = np.concatenate([p0, p1])
        n_unique = len(np.unique(prefix))
        discrete = is_integral(prefix) and n_unique <= MAX_CATEGORIES
        # non-integral values count as categories only if each repeats ~20 times on average
        few_values = n_unique <= min(MAX_CATEGORIES, 0.05 * n_detect)
        stats.append(Coordinate(None, discrete=n_unique <= 512))
        if discrete or few_values:
            enc = ValueEncoder(top_keys(np.concatenate([x0, x1])))
            stats.append(CategoryScore.fit(enc, enc.codes(x0), enc.codes(x1), len(enc.keys)))
            return stats, "discrete scalar" if discrete else "scalar with few values"
        atoms = frequent_atoms(p0, p1, n_detect)
        if len(atoms):
            stats.append(fit_atom_pattern([atoms], x0, x1))
            return stats, "continuous scalar with atoms"
        stats.extend(fit_scalar_spread(x0, x1))
        return stats, "continuous scalar"

    k = x0.shape[1]
    prefix = np.concatenate([p0, p1])
    kind = "continuous vector"
    if RowEncoder.fits(prefix):
        # with many distinct rows (> SPARSE_ROWS in the detection prefix), row patterns are
        # fitted on the first half of the selection split and their events scored on the
        # other half (``fit_rows``): scored on the rows they were fitted to, the many rare rows
        # of an integer vector (a noisy histogram) look far better than they are and crowd
        # the coordinate and projection events out of the K kept ones (3-bin histogram,
        # add/remove: ε_LB 0.75–0.84 from row patterns where output[2] ≤ 0 certifies 0.96;
        # benchmarks/RESULTS.md).  Few distinct rows (binary SVT outputs) keep the whole split.
        n_distinct = len(np.unique(prefix, axis=0))
        n_rows = (min(FIT_ROWS, max(1, len(x0) // 2), max(1, len(x1) // 2))
                  if n_distinct > SPARSE_ROWS else min(len(x0), len(x1)))
        pooled = np.concatenate([x0[:n_rows], x1[:n_rows]])
        if RowEncoder.fits(pooled):
            low = pooled.min(axis=0).astype(np.int64)
            high = pooled.max(axis=0).astype(np.int64)
            raw = RowEncoder(low, high, [0]).raw(pooled)
            keys = top_keys(raw)
            if len(np.unique(raw[: 2 * DETECTION_ROWS])) <= MAX_CATEGORIES:
                kind = "discrete vector"
            enc = RowEncoder(low, high, keys)
            rows = CategoryScore.fit(enc, enc.codes(x0[:n_rows]), enc.codes(x1[:n_rows]),
                                     len(keys))
            if n_distinct > SPARSE_ROWS:
                rows.fit_rows = n_rows
            stats.append(rows)
        del pooled
    atoms = [frequent_atoms(p0[:, j], p1[:, j], n_detect) for j in range(k)]
    if kind != "discrete vector" and any(len(a) for a in atoms):
        pattern = fit_atom_pattern(atoms, x0, x1)
        stats.append(pattern)
        stats.extend(within_pattern_statistics(pattern.encoder, p0, p1))
        kind = "vector with atoms"

    for j in range(min(k, 64)):
        stats.append(Coordinate(j, discrete=len(np.unique(prefix[:, j])) <= 512))
    # moments are fitted on the first half of the selection split and the thresholds of the
    # fitted statistics are scored on the other half (``fit_rows``): scored on the rows they
    # were fitted to, noise-fitted directions (a 50×50 covariance from a few thousand rows)
    # look better than they are and crowd out the statistics that really separate the sides
    n_fit = min(FIT_ROWS, max(1, len(x0) // 2), max(1, len(x1) // 2))
    f0, f1 = x0[:n_fit], x1[:n_fit]
    first_fitted = len(stats)
    sanitizer = Sanitizer(np.concatenate([f0, f1]))
    s0, s1 = sanitizer(f0), sanitizer(f1)
    mu0, mu1 = s0.mean(axis=0), s1.mean(axis=0)
    center = 0.5 * (mu0 + mu1)
    pooled_sd = np.sqrt(0.5 * (s0.var(axis=0) + s1.var(axis=0)))
    scale = np.where(pooled_sd > 0, pooled_sd, 1.0)
    diff = mu0 - mu1
    cov0 = np.atleast_2d(np.cov(s0, rowvar=False))
    cov1 = np.atleast_2d(np.cov(s1, rowvar=False))
    ridge = 1e-9 * (np.trace(cov0) + np.trace(cov1) + 1e-12) / k
    eye = np.eye(k)
    if np.any(diff != 0):
        stats.append(Linear(diff / scale ** 2, center, sanitizer, "mean-difference projection"))
        stats.append(Linear(np.linalg.solve(0.5 * (cov0 + cov1) + ridge * eye, diff), center,
                            sanitizer, "Fisher discriminant projection"))
    stats.append(GaussianLogRatio(mu0, cov0 + ridge * eye, mu1, cov1 + ridge * eye, sanitizer))
    sign = np.where(diff >= 0, 1.0, -1.0)
    stats.append(SignedExtreme(center, scale, sign, "max", sanitizer))
    stats.append(SignedExtreme(center, scale, sign, "min", sanitizer))
    stats.append(Norm(center, scale, sanitizer))
    for stat in stats[first_fitted:]:
        stat.fit_rows = n_fit
    return stats, kind
