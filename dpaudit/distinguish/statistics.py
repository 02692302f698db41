"""Scalar statistics of mechanism outputs, fitted on the selection split.

A distinguisher reduces an output o (a scalar, a category, a vector) to a real number s(o);
the candidate events are then one-sided sets {s ≥ t} and {s ≤ t}.  Every statistic here is a
fixed measurable function once fitted, so certifying its events on fresh samples is valid
whatever the fit did.

Statistics:

* :class:`Coordinate` — the output itself (scalars) or one coordinate of a vector.
* :class:`Linear` — a projection w·(o − c): the difference of means and Fisher's linear
  discriminant Σ⁻¹(μ₀ − μ₁) (pooled covariance, ridge-regularised).
* :class:`GaussianLogRatio` — log N(o; μ₀, Σ₀) − log N(o; μ₁, Σ₁), the likelihood ratio of
  Gaussians fitted to each side (sees differences in covariance as well as in mean);
  :class:`ScalarLogRatio` and :class:`Distance` (|o − median|) are the two-sided statistics of
  continuous scalar outputs.
* :class:`SignedExtreme` — max_j or min_j of σ_j⁻¹ sign_j (o_j − c_j): its level sets are
  orthants, the sets that certify composition bugs such as double spending.
* :class:`Norm` — ‖(o − c)/σ‖₂.
* categorical statistics (:class:`~dpaudit.distinguish.patterns.CategoryScore`,
  :class:`~dpaudit.distinguish.patterns.WithinPattern`) are in :mod:`dpaudit.distinguish.patterns`;
  :func:`dpaudit.distinguish.auto.fit_auto_statistics` chooses among all of them.

Non-finite entries of vector outputs (e.g. ±inf coding "no answer") are mapped to finite
sentinels beyond the observed range before any projection (:class:`Sanitizer`).
"""

from __future__ import annotations

import numpy as np

FIT_ROWS = 200_000


class Statistic:
    """A fitted real-valued function of outputs; ``discrete`` if it takes few values;
    ``reads_representation`` if it reads the float64 representation of the outputs (their
    bits) rather than only their values (:mod:`dpaudit.distinguish.floating`);
    ``threshold_only`` if it is a fixed function of a scalar output up to at most a few
    location/scale parameters (or the white-box privacy loss), so that the selection split
    only has to place a threshold on it: a short selection split may then do
    (:func:`dpaudit.distinguish.lower_bound.select`)."""

    name = "statistic"
    discrete = False
    reads_representation = False
    threshold_only = False

    def __call__(self, x: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def definition(self) -> dict:
        return {"statistic": self.name}

    def describe(self) -> str:
        return self.name


def rounded(values, digits=6):
    return [float(f"{v:.{digits}g}") for v in np.asarray(values, dtype=float).ravel()]


class Sanitizer:
    """Per-coordinate map of +inf/−inf to finite values beyond the observed finite range."""

    def __init__(self, x: np.ndarray):
        x = np.asarray(x, dtype=float)
        finite = np.isfinite(x)
        self.active = not finite.all()
        lo = np.where(finite.any(axis=0), np.min(np.where(finite, x, np.inf), axis=0), 0.0)
        hi = np.where(finite.any(axis=0), np.max(np.where(finite, x, -np.inf), axis=0), 0.0)
        width = hi - lo + 1.0
        self.low, self.high = lo - width, hi + width

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if not self.active and np.isfinite(x).all():
            return x
        x = np.where(x == np.inf, self.high, x)
        return np.where(x == -np.inf, self.low, x)


class Coordinate(Statistic):
    """s(o) = o (scalar outputs) or o_j (coordinate j of a vector output)."""

    def __init__(self, index: int | None = None, discrete: bool = False):
        self.index = index
        self.discrete = discrete
        self.name = "output" if index is None else f"output[{index}]"
        self.threshold_only = index is None

    def __call__(self, x):
        x = np.asarray(x)
        col = x if self.index is None else x[:, self.index]
        return col.astype(float, copy=False)

    def definition(self):
        return {"statistic": "coordinate", "index": self.index}


class Linear(Statistic):
    """s(o) = w·(o − c), with o sanitised."""

    def __init__(self, weights, center, sanitizer: Sanitizer, label: str):
        self.weights = np.asarray(weights, dtype=float)
        self.center = np.asarray(center, dtype=float)
        self.sanitizer = sanitizer
        self.name = label

    def __call__(self, x):
        return (self.sanitizer(x) - self.center) @ self.weights

    def definition(self):
        return {"statistic": self.name, "weights": rounded(self.weights),
                "center": rounded(self.center)}

    def describe(self):
        w = ", ".join(f"{v:.3g}" for v in self.weights[:6])
        more = ", …" if self.weights.size > 6 else ""
        return f"{self.name} w·(o − c), w = [{w}{more}]"


class GaussianLogRatio(Statistic):
    """s(o) = log N(o; μ₀, Σ₀) − log N(o; μ₁, Σ₁) for Gaussians fitted on the selection split."""

    name = "gaussian-log-ratio"

    def __init__(self, mu0, cov0, mu1, cov1, sanitizer: Sanitizer):
        self.mu0, self.mu1 = np.asarray(mu0, float), np.asarray(mu1, float)
        self.prec0, self.prec1 = np.linalg.inv(cov0), np.linalg.inv(cov1)
        self.const = 0.5 * (np.linalg.slogdet(cov1)[1] - np.linalg.slogdet(cov0)[1])
        self.sanitizer = sanitizer

    def __call__(self, x):
        x = self.sanitizer(x)
        d0, d1 = x - self.mu0, x - self.mu1
        q0 = np.einsum("ij,jk,ik->i", d0, self.prec0, d0)
        q1 = np.einsum("ij,jk,ik->i", d1, self.prec1, d1)
        return self.const - 0.5 * (q0 - q1)

    def definition(self):
        return {"statistic": self.name, "mu0": rounded(self.mu0), "mu1": rounded(self.mu1),
                "precision0": [rounded(r) for r in self.prec0],
                "precision1": [rounded(r) for r in self.prec1]}


class ScalarLogRatio(Statistic):
    """s(o) = log N(o; μ₀, σ₀²) − log N(o; μ₁, σ₁²) for scalar outputs, with Gaussians fitted
    on the selection split.  A quadratic in o: its level sets are intervals and their
    complements, the two-sided events that separate laws differing in spread (a Gaussian
    against a wider one or a mixture), which one-sided thresholds on o cannot express."""

    name = "scalar-gaussian-log-ratio"
    threshold_only = True

    def __init__(self, mu0, var0, mu1, var1, sanitizer: Sanitizer):
        self.mu0, self.mu1 = float(mu0), float(mu1)
        self.var0, self.var1 = float(var0), float(var1)
        self.const = 0.5 * (np.log(self.var1) - np.log(self.var0))
        self.sanitizer = sanitizer

    def __call__(self, x):
        x = self.sanitizer(np.asarray(x, dtype=float)[:, None])[:, 0]
        return self.const - 0.5 * ((x - self.mu0) ** 2 / self.var0
                                   - (x - self.mu1) ** 2 / self.var1)

    def definition(self):
        return {"statistic": self.name, "mu0": self.mu0, "var0": self.var0,
                "mu1": self.mu1, "var1": self.var1}


class Distance(Statistic):
    """s(o) = |o − c| for scalar outputs, c the pooled median of the selection split: the
    symmetric two-sided tails {|o − c| ≥ t} and central intervals {|o − c| ≤ t}."""

    name = "distance from the pooled median"
    threshold_only = True

    def __init__(self, center: float, sanitizer: Sanitizer):
        self.center = float(center)
        self.sanitizer = sanitizer

    def __call__(self, x):
        x = self.sanitizer(np.asarray(x, dtype=float)[:, None])[:, 0]
        return np.abs(x - self.center)

    def definition(self):
        return {"statistic": "distance", "center": self.center}

    def describe(self):
        return f"|output − {self.center:.6g}|"


#: z-score of log(σ₁²/σ₀²) above which the two sides' spreads count as different
SPREAD_Z = 4.0


def _spreads_differ(s0, var0, s1, var1) -> bool:
    """Whether log(σ₁²/σ₀²) is more than ``SPREAD_Z`` standard errors from 0 on the fit rows.

    The delta-method variance of log s² is (m₄/σ⁴ − 1)/n (m₄ the fourth central moment).
    Laws of equal spread (a pure shift) gain nothing from two-sided events; offered anyway,
    their fitted quadratic is a threshold on o plus a noise-sized fold into the far other tail,
    and being scored on half the rows they only add winner's-curse candidates that displace
    the plain thresholds (Lap(0,1) vs Lap(1,1) at 1e6 samples: ≥ 0.99 of the exact ε in every
    seed without them, down to 0.65 in some seeds with them)."""
    def log_var_variance(s, var):
        sq = (s - s.mean()) ** 2
        m4 = float(np.dot(sq, sq)) / len(s)
        return max(m4 / var ** 2 - 1.0, 2.0) / len(s)
    se = np.sqrt(log_var_variance(s0, var0) + log_var_variance(s1, var1))
    return abs(np.log(var1 / var0)) > SPREAD_Z * se


def fit_scalar_spread(x0: np.ndarray, x1: np.ndarray) -> list[Statistic]:
    """The two-sided statistics of a continuous scalar output, fitted on the first half of the
    selection split (``fit_rows``) so that their thresholds are scored on the other half."""
    n_fit = min(FIT_ROWS, max(1, len(x0) // 2), max(1, len(x1) // 2))
    f0, f1 = x0[:n_fit], x1[:n_fit]
    sanitizer = Sanitizer(np.concatenate([f0, f1])[:, None])
    s0, s1 = sanitizer(f0[:, None])[:, 0], sanitizer(f1[:, None])[:, 0]
    var0, var1 = s0.var(), s1.var()
    if not (var0 > 0 and var1 > 0) or not _spreads_differ(s0, var0, s1, var1):
        return []
    stats = [ScalarLogRatio(s0.mean(), var0, s1.mean(), var1, sanitizer),
             Distance(np.median(np.concatenate([s0, s1])), sanitizer)]
    for stat in stats:
        stat.fit_rows = n_fit
    return stats


class SignedExtreme(Statistic):
    """s(o) = max_j (or min_j) of sign_j (o_j − c_j)/σ_j; its level sets are orthants."""

    def __init__(self, center, scale, sign, kind: str, sanitizer: Sanitizer):
        self.center, self.scale, self.sign = (np.asarray(v, float) for v in (center, scale, sign))
        self.kind = kind
        self.sanitizer = sanitizer
        self.name = f"signed-{kind}"

    def __call__(self, x):
        # column by column: a reduction along the short axis of an (n, k) array is several
        # times slower in numpy than k − 1 elementwise maxima (this runs on every chunk)
        x = self.sanitizer(x)
        weight = self.sign / self.scale
        pick = np.maximum if self.kind == "max" else np.minimum
        out = (x[:, 0] - self.center[0]) * weight[0]
        for j in range(1, x.shape[1]):
            pick(out, (x[:, j] - self.center[j]) * weight[j], out=out)
        return out

    def definition(self):
        return {"statistic": self.name, "center": rounded(self.center),
                "scale": rounded(self.scale), "sign": rounded(self.sign)}


class Norm(Statistic):
    """s(o) = ‖(o − c)/σ‖₂."""

    name = "norm"

    def __init__(self, center, scale, sanitizer: Sanitizer):
        self.center, self.scale = np.asarray(center, float), np.asarray(scale, float)
        self.sanitizer = sanitizer

    def __call__(self, x):
        return np.linalg.norm((self.sanitizer(x) - self.center) / self.scale, axis=1)

    def definition(self):
        return {"statistic": self.name, "center": rounded(self.center),
                "scale": rounded(self.scale)}
