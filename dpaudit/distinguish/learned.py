"""Learned and white-box distinguishers: statistics whose level sets are the tests.

* :class:`ClassifierScore` — a scikit-learn classifier trained on the selection split to tell
  d0's outputs from d1's; its log-odds score s(o) is a fixed function once trained, and the
  events {s ≥ t}, {s ≤ t} are certified on fresh samples like any other statistic.  Two
  models: logistic regression on raw and simple nonlinear features (x, x², |x|) and histogram
  gradient boosting.

  DP-Sniper (Bichsel et al. 2021) thresholds such a score at the top-c fraction of one side's
  scores, with a randomised tie-break, for a fixed c = 0.01, which caps what it can certify
  at ln(1/c).  dpaudit scans the threshold over every quantile of both sides' scores
  (down to 10⁻⁶ and beyond the extremes, see :mod:`dpaudit.distinguish.events`), which is the
  same family with c scanned.  A randomised tie-break adds nothing to a ratio test: for the
  event {s > t} ∪ ({s = t} ∩ {U < q}), (P₀(E) − δ)/P₁(E) = (a + qb − δ)/(c + qd) is monotone in
  q, so its best value is at q ∈ {0, 1}, i.e. at the events {s > t} and {s ≥ t} already
  scanned.
* :class:`PrivacyLoss` — white-box: when the mechanism provides ``log_density(dataset, o)``,
  s(o) = log p₀(o) − log p₁(o).  By the Neyman–Pearson lemma its level sets are the most
  powerful tests; the privacy profile is δ(ε) = P₀(L > ε) − e^ε P₁(L > ε), attained on
  {L > ε}.  The certificate still comes from counts on fresh samples.

Classifiers are trained on the first rows of the selection split (at most
``TRAIN_ROWS`` per side); thresholds are then chosen on the remaining selection rows
(``fit_rows`` tells :func:`dpaudit.distinguish.events.score_candidates` to skip the training
rows), so an over-fitted score does not mislead the threshold choice.
"""

from __future__ import annotations

import numpy as np

from dpaudit.distinguish.statistics import Sanitizer, Statistic

TRAIN_ROWS = 50_000
LOSS_DECIMALS = 9


def _features(z: np.ndarray) -> np.ndarray:
    return np.hstack([z, z * z, np.abs(z)])


class ClassifierScore(Statistic):
    """s(o) = the trained classifier's log-odds that o came from d0 rather than d1."""

    def __init__(self, model, kind: str, sanitizer: Sanitizer, center, scale, fit_rows: int):
        self.model, self.kind = model, kind
        self.sanitizer = sanitizer
        self.center, self.scale = np.asarray(center, float), np.asarray(scale, float)
        self.fit_rows = fit_rows
        self.name = f"{kind} score"

    def _z(self, x):
        x = np.asarray(x, dtype=float)
        if x.ndim == 1:
            x = x[:, None]
        return (self.sanitizer(x) - self.center) / self.scale

    def __call__(self, x):
        z = self._z(x)
        if self.kind == "logistic regression":
            z = _features(z)
        # classes_ are [0, 1] with label 1 = d0, so decision_function is log P(d0)/P(d1)
        return self.model.decision_function(z)

    def definition(self):
        out = {"statistic": self.name, "trained_rows_per_side": self.fit_rows,
               "feature_center": [float(v) for v in self.center],
               "feature_scale": [float(v) for v in self.scale]}
        if self.kind == "logistic regression":
            out["features"] = "[z, z², |z|], z = (o − center)/scale"
            out["coefficients"] = [float(v) for v in self.model.coef_.ravel()]
            out["intercept"] = float(self.model.intercept_[0])
        else:
            out["model"] = repr(self.model)
        return out


def fit_classifier(x0: np.ndarray, x1: np.ndarray, kind: str, seed: int) -> ClassifierScore:
    """Train a classifier (label 1 = d0) on the first TRAIN_ROWS selection rows of each side."""
    try:
        from sklearn.ensemble import HistGradientBoostingClassifier
        from sklearn.linear_model import LogisticRegression
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("learned distinguishers need scikit-learn: pip install 'dpaudit[ml]'"
                          ) from exc
    n = min(TRAIN_ROWS, len(x0) // 2, len(x1) // 2)
    a, b = np.asarray(x0[:n], float), np.asarray(x1[:n], float)
    if a.ndim == 1:
        a, b = a[:, None], b[:, None]
    sanitizer = Sanitizer(np.concatenate([a, b]))
    pooled = sanitizer(np.concatenate([a, b]))
    center = pooled.mean(axis=0)
    scale = pooled.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    z = (pooled - center) / scale
    y = np.concatenate([np.ones(n), np.zeros(n)])
    if kind == "logistic regression":
        model = LogisticRegression(C=1.0, max_iter=500)
        model.fit(_features(z), y)
    elif kind == "gradient boosting":
        model = HistGradientBoostingClassifier(max_iter=150, learning_rate=0.1,
                                               early_stopping=True, random_state=seed % 2**31)
        model.fit(z, y)
    else:
        raise ValueError(f"unknown classifier {kind!r}")
    return ClassifierScore(model, kind, sanitizer, center, scale, fit_rows=n)


class PrivacyLoss(Statistic):
    """White-box: s(o) = log p₀(o) − log p₁(o) from the mechanism's ``log_density``."""

    name = "privacy loss log p0(o) − log p1(o) (white-box)"
    threshold_only = True  # nothing is fitted: the selection split only places a threshold

    # The loss is rounded to LOSS_DECIMALS decimals.  Without rounding, the exact ties of the
    # ideal loss (e.g. L = Δ/b on a whole Laplace tail) are broken by floating-point rounding
    # whose pattern depends on the dataset — outputs q + z computed in doubles carry q's grid
    # in their low-order bits — and the white-box test then certifies Mironov's (2012)
    # floating-point leak rather than the ideal mechanism's ε.  That leak is real, but it is
    # not what a white-box audit of the claim is for; rounding keeps the test on the math.

    def __init__(self, log_density, d0, d1):
        self.log_density, self.d0, self.d1 = log_density, d0, d1

    def __call__(self, x):
        l0, l1 = self._densities(self.d0, x), self._densities(self.d1, x)
        with np.errstate(invalid="ignore"):
            loss = np.round(l0 - l1, LOSS_DECIMALS)
        # −inf − −inf (an output impossible under both) is in no event
        return np.where(np.isnan(loss), np.nan, loss)

    def _densities(self, dataset, x) -> np.ndarray:
        """``log_density(dataset, x)`` as floats, one per output, or a ValueError naming the
        callback and what it returned."""
        raw = self.log_density(dataset, x)
        who = getattr(self.log_density, "__qualname__", None) or "log_density"
        try:
            out = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):
            out = None
        if out is None or out.shape != (len(x),):
            got = (f"{type(raw).__name__}" if out is None else
                   f"{type(raw).__name__} of shape {out.shape}")
            raise ValueError(f"{who}(dataset, outputs) returned {got} for {len(x)} outputs; "
                             f"it must return one log-density per output (an array of shape "
                             f"({len(x)},), -inf where an output is impossible)")
        return out

    def definition(self):
        return {"statistic": "privacy-loss", "white_box": True}
