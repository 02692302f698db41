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
* :class:`CategoryScore` — for discrete outputs (or their atoms): each category gets the
  log-ratio of its smoothed selection frequencies, so {score ≥ t} are the unions of
  categories ordered by likelihood ratio (the Neyman–Pearson family for discrete laws).

Non-finite entries of vector outputs (e.g. ±inf coding "no answer") are mapped to finite
sentinels beyond the observed range before any projection (:class:`Sanitizer`).
"""

from __future__ import annotations

import numpy as np

MAX_CATEGORIES = 4096
DETECTION_ROWS = 20_000
FIT_ROWS = 200_000
ATOM_FRACTION = 0.005


class Statistic:
    """A fitted real-valued function of outputs; ``discrete`` if it takes few values."""

    name = "statistic"
    discrete = False

    def __call__(self, x: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def definition(self) -> dict:
        return {"statistic": self.name}

    def describe(self) -> str:
        return self.name


def _rounded(values, digits=6):
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
        return {"statistic": self.name, "weights": _rounded(self.weights),
                "center": _rounded(self.center)}

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
        return {"statistic": self.name, "mu0": _rounded(self.mu0), "mu1": _rounded(self.mu1),
                "precision0": [_rounded(r) for r in self.prec0],
                "precision1": [_rounded(r) for r in self.prec1]}


class ScalarLogRatio(Statistic):
    """s(o) = log N(o; μ₀, σ₀²) − log N(o; μ₁, σ₁²) for scalar outputs, with Gaussians fitted
    on the selection split.  A quadratic in o: its level sets are intervals and their
    complements, the two-sided events that separate laws differing in spread (a Gaussian
    against a wider one or a mixture), which one-sided thresholds on o cannot express."""

    name = "scalar-gaussian-log-ratio"

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


def _fit_scalar_spread(x0: np.ndarray, x1: np.ndarray) -> list[Statistic]:
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
        return {"statistic": self.name, "center": _rounded(self.center),
                "scale": _rounded(self.scale), "sign": _rounded(self.sign)}


class Norm(Statistic):
    """s(o) = ‖(o − c)/σ‖₂."""

    name = "norm"

    def __init__(self, center, scale, sanitizer: Sanitizer):
        self.center, self.scale = np.asarray(center, float), np.asarray(scale, float)
        self.sanitizer = sanitizer

    def __call__(self, x):
        return np.linalg.norm((self.sanitizer(x) - self.center) / self.scale, axis=1)

    def definition(self):
        return {"statistic": self.name, "center": _rounded(self.center),
                "scale": _rounded(self.scale)}


# ---------------------------------------------------------------------------------------------
# categorical outputs
# ---------------------------------------------------------------------------------------------

class _Encoder:
    """Maps outputs to integer category codes; −1 for categories not seen in selection."""

    label = "category"

    def codes(self, x) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def category(self, code: int):  # pragma: no cover - abstract
        raise NotImplementedError


class ValueEncoder(_Encoder):
    """Scalar outputs: one category per distinct value."""

    label = "output value"

    def __init__(self, keys):
        self.keys = np.asarray(keys)

    def codes(self, x):
        x = np.asarray(x)
        pos = np.clip(np.searchsorted(self.keys, x), 0, len(self.keys) - 1)
        return np.where(self.keys[pos] == x, pos, -1)

    def category(self, code):
        return _plain(self.keys[code])


class RowEncoder(_Encoder):
    """Vector outputs with integer entries: one category per distinct row (mixed-radix code)."""

    label = "output row"

    def __init__(self, low, high, keys):
        self.low, self.high = np.asarray(low, np.int64), np.asarray(high, np.int64)
        radix = self.high - self.low + 1
        self.mult = np.concatenate([[1], np.cumprod(radix[:-1])]).astype(np.int64)
        self.values = ValueEncoder(np.asarray(keys, dtype=np.int64))

    @staticmethod
    def fits(x) -> bool:
        if not np.issubdtype(x.dtype, np.integer):
            if not (np.isfinite(x).all() and np.all(x == np.round(x))):
                return False
        radix = (x.max(axis=0).astype(float) - x.min(axis=0) + 1)
        return float(np.prod(radix)) < 2.0 ** 62

    def raw(self, x):
        x = np.asarray(x)
        if not np.issubdtype(x.dtype, np.integer):
            ok = np.isfinite(x).all(axis=1)
            x = np.where(np.isfinite(x), x, self.low - 1)
        else:
            ok = np.ones(len(x), bool)
        xi = x.astype(np.int64)
        ok &= np.all((xi >= self.low) & (xi <= self.high), axis=1)
        return np.where(ok, (xi - self.low) @ self.mult, -1)

    def codes(self, x):
        raw = self.raw(x)
        return np.where(raw >= 0, self.values.codes(raw), -1)

    def category(self, code):
        raw = int(self.values.keys[code])
        row = []
        for m, r in zip(self.mult[::-1], (self.high - self.low + 1)[::-1]):
            row.append(raw // int(m))
            raw %= int(m)
        return [int(v) + int(lo) for v, lo in zip(row[::-1], self.low)]


class AtomPatternEncoder(_Encoder):
    """Which atom (frequent value or ±inf) each coordinate takes, or 'not an atom'."""

    label = "atom pattern"

    def __init__(self, atoms: list[np.ndarray]):
        self.atoms = [np.sort(np.asarray(a, float)) for a in atoms]
        radix = np.array([len(a) + 1 for a in self.atoms], dtype=np.int64)
        self.mult = np.concatenate([[1], np.cumprod(radix[:-1])]).astype(np.int64)
        self.values: ValueEncoder | None = None

    def raw(self, x):
        x = np.asarray(x, dtype=float)
        if x.ndim == 1:
            x = x[:, None]
        code = np.zeros(len(x), np.int64)
        for j, atoms in enumerate(self.atoms):
            col = x[:, j]
            pos = np.clip(np.searchsorted(atoms, col), 0, max(len(atoms) - 1, 0))
            hit = atoms[pos] == col if len(atoms) else np.zeros(len(col), bool)
            code += np.where(hit, pos, len(atoms)) * self.mult[j]
        return code

    def codes(self, x):
        return self.values.codes(self.raw(x))

    def category(self, code):
        raw = int(self.values.keys[code])
        out = []
        for atoms, m in zip(self.atoms, self.mult):
            idx = (raw // int(m)) % (len(atoms) + 1)
            out.append("other" if idx == len(atoms) else _plain(atoms[idx]))
        return out


def _plain(v):
    v = v.item() if hasattr(v, "item") else v
    if isinstance(v, float) and not np.isfinite(v):
        return "inf" if v > 0 else "-inf"
    return v


class CategoryScore(Statistic):
    """s(o) = ln((k₀(c)+½)/(n₀+1)) − ln((k₁(c)+½)/(n₁+1)) for the category c of o (0 if unseen)."""

    discrete = True

    def __init__(self, encoder: _Encoder, scores: np.ndarray):
        self.encoder = encoder
        self.scores = np.asarray(scores, float)
        self.name = f"{encoder.label} log-ratio score"

    @classmethod
    def fit(cls, encoder: _Encoder, c0: np.ndarray, c1: np.ndarray, n_codes: int):
        k0 = np.bincount(c0[c0 >= 0], minlength=n_codes)
        k1 = np.bincount(c1[c1 >= 0], minlength=n_codes)
        scores = (np.log((k0 + 0.5) / (len(c0) + 1.0)) - np.log((k1 + 0.5) / (len(c1) + 1.0)))
        return cls(encoder, scores)

    def __call__(self, x):
        codes = self.encoder.codes(x)
        return np.where(codes >= 0, self.scores[np.maximum(codes, 0)], 0.0)

    def members(self, op: str, threshold: float, limit: int = 20):
        """The categories in {s ≥ t} (op 'ge') or {s ≤ t} (op 'le'), for the report."""
        sel = self.scores >= threshold if op == "ge" else self.scores <= threshold
        idx = np.flatnonzero(sel)
        cats = [self.encoder.category(i) for i in idx[:limit]]
        unseen = (0.0 >= threshold) if op == "ge" else (0.0 <= threshold)
        return cats, len(idx), unseen

    def definition(self):
        return {"statistic": self.name, "unseen_category_score": 0.0}


class WithinPattern(Statistic):
    """s(o) = Σ_j w_j o_j over the non-atom coordinates when o has atom pattern p, else NaN.

    NaN is in neither {s ≥ t} nor {s ≤ t}, so the events are {pattern = p and w·o ≥ t} —
    the conjunctions that mixed outputs need (e.g. a sparse-vector variant that releases a
    noisy value at one position and "no answer" elsewhere)."""

    def __init__(self, encoder: "AtomPatternEncoder", raw_code: int, weights, label: str):
        self.encoder, self.raw_code = encoder, int(raw_code)
        self.weights = np.asarray(weights, float)
        self.name = f"value within atom pattern {label}"

    def __call__(self, x):
        x = np.asarray(x, dtype=float)
        inside = self.encoder.raw(x) == self.raw_code
        safe = np.where(np.isfinite(x), x, 0.0)
        return np.where(inside, safe @ self.weights, np.nan)

    def definition(self):
        return {"statistic": self.name, "weights": _rounded(self.weights)}


# ---------------------------------------------------------------------------------------------
# the automatic distinguisher
# ---------------------------------------------------------------------------------------------

def _atoms(col0, col1, n_total) -> np.ndarray:
    pooled = np.concatenate([col0, col1])
    nonfinite = np.unique(pooled[~np.isfinite(pooled)])
    vals, counts = np.unique(pooled[np.isfinite(pooled)], return_counts=True)
    frequent = vals[counts >= max(5, ATOM_FRACTION * n_total)]
    return np.concatenate([nonfinite, frequent])


def _is_integral(x) -> bool:
    if np.issubdtype(x.dtype, np.integer):
        return True
    return bool(np.isfinite(x).all() and np.all(x == np.round(x)))


def _top_keys(raw: np.ndarray) -> np.ndarray:
    keys, counts = np.unique(raw, return_counts=True)
    if len(keys) > MAX_CATEGORIES:
        keys = np.sort(keys[np.argsort(counts)[::-1][:MAX_CATEGORIES]])
    return keys


def _fit_atom_pattern(atoms, x0, x1) -> CategoryScore:
    enc = AtomPatternEncoder(atoms)
    raw0, raw1 = enc.raw(x0), enc.raw(x1)
    enc.values = ValueEncoder(_top_keys(np.concatenate([raw0, raw1])))
    return CategoryScore.fit(enc, enc.values.codes(raw0), enc.values.codes(raw1),
                             len(enc.values.keys))


def _within_pattern_statistics(encoder, p0, p1, how_many: int = 8) -> list[Statistic]:
    """WithinPattern statistics for the most frequent patterns that have non-atom entries;
    the weights are the signs of the within-pattern mean differences."""
    raw0, raw1 = encoder.raw(p0), encoder.raw(p1)
    codes, counts = np.unique(np.concatenate([raw0, raw1]), return_counts=True)
    out = []
    for code in codes[np.argsort(counts)[::-1]]:
        a, b = p0[raw0 == code], p1[raw1 == code]
        if len(a) < 10 or len(b) < 10:
            continue
        free = _non_atom_columns(encoder, a[0])
        if not free.any():
            continue
        diff = a[:, free].mean(axis=0) - b[:, free].mean(axis=0)
        weights = np.zeros(a.shape[1])
        weights[free] = np.where(diff >= 0, 1.0, -1.0)
        pos = int(np.searchsorted(encoder.values.keys, code))
        known = pos < len(encoder.values.keys) and encoder.values.keys[pos] == code
        label = encoder.category(pos) if known else f"#{code}"
        out.append(WithinPattern(encoder, code, weights, str(label)))
        if len(out) == how_many:
            break
    return out


def _non_atom_columns(encoder, row) -> np.ndarray:
    return np.array([not np.isin(v, atoms).item() for v, atoms in zip(row, encoder.atoms)])


def fit_auto_statistics(x0: np.ndarray, x1: np.ndarray) -> tuple[list[Statistic], str]:
    """Choose and fit statistics from the selection samples; returns (statistics, output kind).

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
        discrete = _is_integral(prefix) and n_unique <= MAX_CATEGORIES
        # non-integral values count as categories only if each repeats ~20 times on average
        few_values = n_unique <= min(MAX_CATEGORIES, 0.05 * n_detect)
        stats.append(Coordinate(None, discrete=n_unique <= 512))
        if discrete or few_values:
            enc = ValueEncoder(_top_keys(np.concatenate([x0, x1])))
            stats.append(CategoryScore.fit(enc, enc.codes(x0), enc.codes(x1), len(enc.keys)))
            return stats, "discrete scalar" if discrete else "scalar with few values"
        atoms = _atoms(p0, p1, n_detect)
        if len(atoms):
            stats.append(_fit_atom_pattern([atoms], x0, x1))
            return stats, "continuous scalar with atoms"
        stats.extend(_fit_scalar_spread(x0, x1))
        return stats, "continuous scalar"

    k = x0.shape[1]
    prefix = np.concatenate([p0, p1])
    kind = "continuous vector"
    if RowEncoder.fits(prefix):
        pooled = np.concatenate([x0, x1])
        if RowEncoder.fits(pooled):
            low = pooled.min(axis=0).astype(np.int64)
            high = pooled.max(axis=0).astype(np.int64)
            raw = RowEncoder(low, high, [0]).raw(pooled)
            keys = _top_keys(raw)
            if len(np.unique(raw[: 2 * DETECTION_ROWS])) <= MAX_CATEGORIES:
                kind = "discrete vector"
            enc = RowEncoder(low, high, keys)
            stats.append(CategoryScore.fit(enc, enc.codes(x0), enc.codes(x1), len(keys)))
        del pooled
    atoms = [_atoms(p0[:, j], p1[:, j], n_detect) for j in range(k)]
    if kind != "discrete vector" and any(len(a) for a in atoms):
        pattern = _fit_atom_pattern(atoms, x0, x1)
        stats.append(pattern)
        stats.extend(_within_pattern_statistics(pattern.encoder, p0, p1))
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
