"""Statistics of discrete outputs and of outputs with atoms, fitted on the selection split.

* :class:`CategoryScore` — for discrete outputs (or their atoms): each category gets the
  log-ratio of its smoothed selection frequencies, so {score ≥ t} are the unions of
  categories ordered by likelihood ratio (the Neyman–Pearson family for discrete laws).
  Categories are codes from an encoder: :class:`ValueEncoder` (scalar values),
  :class:`RowEncoder` (integer vectors, mixed-radix), :class:`AtomPatternEncoder` (which
  entries of a row sit on an atom, e.g. ±inf or a clipped bound).
* :class:`WithinPattern` — a signed sum of the non-atom entries of rows with one atom
  pattern (released values of sparse-vector-like outputs).

Every statistic is a fixed measurable function once fitted, so certifying its events on fresh
samples is valid whatever the fit did.
"""

from __future__ import annotations

import numpy as np

from dpaudit.distinguish.statistics import Statistic, rounded

MAX_CATEGORIES = 4096
ATOM_FRACTION = 0.005


class CategoryEncoder:
    """Maps outputs to integer category codes; −1 for categories not seen in selection."""

    label = "category"

    def codes(self, x) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def category(self, code: int):  # pragma: no cover - abstract
        raise NotImplementedError


class ValueEncoder(CategoryEncoder):
    """Scalar outputs: one category per distinct value."""

    label = "output value"

    def __init__(self, keys):
        self.keys = np.asarray(keys)

    def codes(self, x):
        x = np.asarray(x)
        pos = np.clip(np.searchsorted(self.keys, x), 0, len(self.keys) - 1)
        return np.where(self.keys[pos] == x, pos, -1)

    def category(self, code):
        return plain_value(self.keys[code])


class RowEncoder(CategoryEncoder):
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


class AtomPatternEncoder(CategoryEncoder):
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
            out.append("other" if idx == len(atoms) else plain_value(atoms[idx]))
        return out


def plain_value(v):
    v = v.item() if hasattr(v, "item") else v
    if isinstance(v, float) and not np.isfinite(v):
        return "inf" if v > 0 else "-inf"
    return v


class CategoryScore(Statistic):
    """s(o) = ln((k₀(c)+½)/(n₀+1)) − ln((k₁(c)+½)/(n₁+1)) for the category c of o (0 if unseen)."""

    discrete = True

    def __init__(self, encoder: CategoryEncoder, scores: np.ndarray):
        self.encoder = encoder
        self.scores = np.asarray(scores, float)
        self.name = f"{encoder.label} log-ratio score"

    @classmethod
    def fit(cls, encoder: CategoryEncoder, c0: np.ndarray, c1: np.ndarray, n_codes: int):
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
        return {"statistic": self.name, "weights": rounded(self.weights)}


def frequent_atoms(col0, col1, n_total) -> np.ndarray:
    pooled = np.concatenate([col0, col1])
    nonfinite = np.unique(pooled[~np.isfinite(pooled)])
    vals, counts = np.unique(pooled[np.isfinite(pooled)], return_counts=True)
    frequent = vals[counts >= max(5, ATOM_FRACTION * n_total)]
    return np.concatenate([nonfinite, frequent])


def is_integral(x) -> bool:
    if np.issubdtype(x.dtype, np.integer):
        return True
    return bool(np.isfinite(x).all() and np.all(x == np.round(x)))


def top_keys(raw: np.ndarray) -> np.ndarray:
    keys, counts = np.unique(raw, return_counts=True)
    if len(keys) > MAX_CATEGORIES:
        keys = np.sort(keys[np.argsort(counts)[::-1][:MAX_CATEGORIES]])
    return keys


def fit_atom_pattern(atoms, x0, x1) -> CategoryScore:
    enc = AtomPatternEncoder(atoms)
    raw0, raw1 = enc.raw(x0), enc.raw(x1)
    enc.values = ValueEncoder(top_keys(np.concatenate([raw0, raw1])))
    return CategoryScore.fit(enc, enc.values.codes(raw0), enc.values.codes(raw1),
                             len(enc.values.keys))


def within_pattern_statistics(encoder, p0, p1, how_many: int = 8) -> list[Statistic]:
    """WithinPattern statistics for the most frequent patterns that have non-atom entries;
    the weights are the signs of the within-pattern mean differences."""
    raw0, raw1 = encoder.raw(p0), encoder.raw(p1)
    codes, counts = np.unique(np.concatenate([raw0, raw1]), return_counts=True)
    out = []
    for code in codes[np.argsort(counts)[::-1]]:
        a, b = p0[raw0 == code], p1[raw1 == code]
        if len(a) < 10 or len(b) < 10:
            continue
        free = non_atom_columns(encoder, a[0])
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


def non_atom_columns(encoder, row) -> np.ndarray:
    return np.array([not np.isin(v, atoms).item() for v, atoms in zip(row, encoder.atoms)])
