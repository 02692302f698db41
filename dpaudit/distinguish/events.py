"""Candidate events {s ≥ t} / {s ≤ t}, their selection, and their counting.

Selection (on the selection split only): for every fitted statistic s, thresholds t are taken
from both sides' empirical quantiles (dense in the tails), both sides' extremes pushed out by
a few typical edge spacings (so a support edge seen in selection is not over-fitted), and, for
discrete statistics, every observed value.  Each (statistic, op, t, numerator side) is scored
by the ε it would certify if the certification split had the *pessimistic* selection
frequencies — one-standard-error Clopper–Pearson bounds (LCB for the numerator, UCB for the
denominator) — which keeps the scan over many thresholds from picking a far-tail event whose
selection counts were lucky (the winner's curse of small counts).  For a continuous
``threshold_only`` statistic (a scalar output, whose pilot selection split is short, see
:func:`dpaudit.distinguish.lower_bound.select`) a threshold's score is the median of the
scores at it and its two neighbours on each side, so one lucky threshold cannot win unless
neighbours agree (noisy max releasing the value: benchmarks/RESULTS.md, "Oracle ratio").  Not
for fitted vector statistics: there it moved far-tail thresholds inwards (certificates of
``f-obj-laplace-paper-size`` 7 % lower, ``svt-lyu3`` 2 % lower over 4 seeds).
A continuous statistic whose values on both sides are consistent with normal laws is scored
under the fitted laws instead (:mod:`dpaudit.distinguish.parametric`): the threshold is placed
by the laws' prediction, and the event is ranked against the others by the prediction its
expected selection counts would get, as counted events are.

The best candidate of each (statistic, op, numerator) group is a candidate for certification;
how many of the best are kept is :mod:`dpaudit.distinguish.event_choice`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpaudit.distinguish.parametric import fit_normal_pair
from dpaudit.distinguish.patterns import CategoryScore
from dpaudit.distinguish.statistics import Statistic
from scipy.special import betaincinv

_CENTRAL = np.linspace(0.01, 0.99, 99)
_TAILS = np.logspace(-6, -2, 17)[:-1]
QUANTILE_LEVELS = np.unique(np.concatenate([_TAILS, _CENTRAL, 1.0 - _TAILS]))
EDGE_MARGINS = (3.0, 10.0)
#: one-standard-error level used to shrink selection frequencies when scoring
SELECTION_SIGNIFICANCE = 0.16
#: a continuous ``threshold_only`` statistic's threshold is scored by the median prediction over
#: it and this many neighbouring thresholds on each side (:func:`score_candidates`)
NEIGHBOURS = 2


@dataclass(frozen=True)
class Candidate:
    """The event {stat ≥ t} (op 'ge') or {stat ≤ t} (op 'le'), with d0 or d1 as numerator."""

    stat_index: int
    op: str
    threshold: float
    numerator: int
    predicted_epsilon: float
    #: (k_numerator, n_numerator, k_denominator, n_denominator) on the selection split, the
    #: counts the prediction was made from (after ``fit_rows`` are skipped)
    selection_counts: tuple = (0, 0, 0, 0)
    #: (P_num, P_den) under normal laws fitted on the selection split when the prediction was
    #: made from them (:mod:`dpaudit.distinguish.parametric`), else ()
    model_probabilities: tuple = ()

    def indicator(self, values: np.ndarray) -> np.ndarray:
        return values >= self.threshold if self.op == "ge" else values <= self.threshold

    def describe(self, stat: Statistic) -> str:
        sym = "≥" if self.op == "ge" else "≤"
        text = f"{stat.describe()} {sym} {self.threshold:.6g}"
        if isinstance(stat, CategoryScore):
            cats, total, unseen = stat.members(self.op, self.threshold, limit=8)
            shown = ", ".join(map(str, cats)) + (", …" if total > len(cats) else "")
            text += f"  (i.e. {stat.encoder.label} ∈ {{{shown}}}"
            text += ", or unseen in selection)" if unseen else ")"
        return text

    def definition(self, stat: Statistic) -> dict:
        out = {"op": self.op, "threshold": float(self.threshold)}
        out.update(stat.definition())
        if isinstance(stat, CategoryScore):
            cats, total, unseen = stat.members(self.op, self.threshold, limit=256)
            out.update({"categories_in_event": cats, "number_of_categories": total,
                        "includes_categories_unseen_in_selection": bool(unseen)})
        return out


def _edge_thresholds(finite: np.ndarray) -> list[float]:
    """Thresholds just beyond each extreme: extreme ∓ m × (mean spacing of the 5 extremes)."""
    out = []
    if len(finite) < 6:
        return out
    gap_lo = (finite[5] - finite[0]) / 5.0
    gap_hi = (finite[-1] - finite[-6]) / 5.0
    for m in EDGE_MARGINS:
        out.append(finite[0] - m * gap_lo)
        out.append(finite[-1] + m * gap_hi)
    # just inside the extremes (for events containing a whole side's support)
    out.extend([finite[0], finite[-1]])
    return out


def _sorted_quantiles(values: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """``np.quantile(values, levels)`` (its default linear interpolation) for sorted values,
    by indexing instead of partitioning again."""
    position = levels * (len(values) - 1)
    lower = np.floor(position).astype(np.int64)
    upper = np.minimum(lower + 1, len(values) - 1)
    frac = position - lower
    return values[lower] + frac * (values[upper] - values[lower])


def thresholds_for(s0: np.ndarray, s1: np.ndarray, discrete: bool) -> np.ndarray:
    """Candidate thresholds from both sides' values; ``s0`` and ``s1`` are sorted ascending."""
    if discrete:
        return np.union1d(np.unique(s0), np.unique(s1))
    s0, s1 = s0[np.isfinite(s0)], s1[np.isfinite(s1)]
    t = [_sorted_quantiles(s, QUANTILE_LEVELS) for s in (s0, s1) if len(s)]
    t.append(np.asarray(_edge_thresholds(s0) + _edge_thresholds(s1), dtype=float))
    t = np.concatenate(t)
    return np.unique(t[np.isfinite(t)])


def _cp_lower(k, n, s):
    """Clopper–Pearson lower bound, fractional k allowed (scoring only; see stats.intervals)."""
    k = np.asarray(k, float)
    return np.where(k > 0, betaincinv(np.maximum(k, 1e-12), n - k + 1.0, s), 0.0)


def _cp_upper(k, n, s):
    """Clopper–Pearson upper bound, fractional k allowed (scoring only; see stats.intervals)."""
    k = np.asarray(k, float)
    return np.where(k < n, betaincinv(k + 1.0, np.maximum(n - k, 1e-12), 1.0 - s), 1.0)


def predict_epsilon(k_num, n_num, k_den, n_den, *, delta, n_certify, significance):
    """The ε an event with these selection counts is predicted to certify on ``n_certify``
    fresh outputs per side with bounds at ``significance``: the certificate's formula applied
    to the pessimistic (one-standard-error, :data:`SELECTION_SIGNIFICANCE`) selection
    frequencies taken as expected counts (vectorised; 0 where nothing is certified)."""
    k_num = np.asarray(k_num, float)
    p_num = _cp_lower(k_num, n_num, SELECTION_SIGNIFICANCE)
    p_den = _cp_upper(k_den, n_den, SELECTION_SIGNIFICANCE)
    lcb = _cp_lower(p_num * n_certify, n_certify, significance) - delta
    ucb = _cp_upper(p_den * n_certify, n_certify, significance)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((k_num > 0) & (lcb > 0),
                        np.log(np.maximum(lcb, 1e-300)) - np.log(ucb), 0.0)


def predict_from_probabilities(p_num, p_den, *, delta, n_certify, significance):
    """The certified ε at the expected counts ``n_certify`` × (P_num, P_den) (vectorised; 0
    where nothing is certified): the prediction of an event whose probabilities come from a
    fitted model rather than from counts."""
    p_num = np.asarray(p_num, float)
    lcb = _cp_lower(p_num * n_certify, n_certify, significance) - delta
    ucb = _cp_upper(np.asarray(p_den, float) * n_certify, n_certify, significance)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((p_num > 0) & (lcb > 0),
                        np.log(np.maximum(lcb, 1e-300)) - np.log(ucb), 0.0)


def _median_of_neighbours(pred: np.ndarray) -> np.ndarray:
    """Each threshold's prediction replaced by the median over it and its
    :data:`NEIGHBOURS` neighbours on each side (thresholds in increasing order; the end
    values repeated beyond the ends)."""
    pred = np.asarray(pred, float)
    if pred.size <= 1:
        return pred
    padded = np.pad(pred, NEIGHBOURS, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * NEIGHBOURS + 1)
    return np.median(windows, axis=1)


@dataclass(frozen=True)
class ScoredThresholds:
    """One (statistic, op, numerator side) of :func:`score_statistics`: its thresholds and
    the parts of their predictions that do not depend on δ.

    A prediction is ln(L − δ) − ln U (0 where ``present`` is false or L ≤ δ), with L the
    lower and U the upper Clopper–Pearson bound at ``significance`` on ``n_certify`` outputs
    at the (pessimistic or modelled) expected counts; only the subtraction of δ differs over
    a δ grid, so L and U are computed once (:meth:`at` gives the same floats as
    :func:`predict_epsilon` / :func:`predict_from_probabilities` at each δ)."""

    stat_index: int
    op: str
    numerator: int
    thresholds: np.ndarray
    #: (k_num, n_num, k_den, n_den) over the thresholds (expected counts under the laws)
    counts: tuple
    lower: np.ndarray
    upper: np.ndarray
    present: np.ndarray
    #: median over neighbouring thresholds (a continuous ``threshold_only`` statistic)
    smooth: bool
    #: (P_num, P_den) under fitted normal laws over the thresholds, or None (counts)
    model: tuple | None
    n_certify: int
    significance: float

    def at(self, delta: float) -> tuple:
        """The row of :func:`score_candidates` at ``delta``."""
        lcb = self.lower - delta
        with np.errstate(divide="ignore", invalid="ignore"):
            pred = np.where(self.present & (lcb > 0),
                            np.log(np.maximum(lcb, 1e-300)) - np.log(self.upper), 0.0)
        if self.smooth:
            pred = _median_of_neighbours(pred)
        model = None
        if self.model is not None:
            pn, pd = self.model
            _, nn, _, nd = self.counts

            def rank(i):  # predict_epsilon of the expected selection counts, at threshold i
                return float(predict_epsilon(pn[i] * nn, nn, pd[i] * nd, nd, delta=delta,
                                             n_certify=self.n_certify,
                                             significance=self.significance))
            model = (pn, pd, rank)
        return (self.stat_index, self.op, self.numerator, self.thresholds,
                np.asarray(pred, float), self.counts, model)


def _bounds_from_counts(k_num, n_num, k_den, n_den, *, n_certify, significance):
    """(L, U, present) of :func:`predict_epsilon` before δ is subtracted."""
    k_num = np.asarray(k_num, float)
    p_num = _cp_lower(k_num, n_num, SELECTION_SIGNIFICANCE)
    p_den = _cp_upper(k_den, n_den, SELECTION_SIGNIFICANCE)
    return (_cp_lower(p_num * n_certify, n_certify, significance),
            _cp_upper(p_den * n_certify, n_certify, significance), k_num > 0)


def score_statistics(stats, sel0, sel1, *, n_certify, significance) -> list[ScoredThresholds]:
    """Every statistic's candidate thresholds, scored up to δ (:class:`ScoredThresholds`).

    The prediction is :func:`predict_epsilon` from the counts, except for a continuous
    statistic whose values on both sides pass :func:`~dpaudit.distinguish.parametric.
    fit_normal_pair`: its thresholds (the empirical ones and a grid on the fitted laws' scale)
    are scored by :func:`predict_from_probabilities` under the fitted laws, the counts become
    the laws' expected counts and the row carries the laws' (P_num, P_den); such a row is
    ranked against the others by :func:`predict_epsilon` of its expected counts
    (:func:`select_candidates`).  A continuous ``threshold_only`` statistic's count-based
    predictions are smoothed over neighbouring thresholds (:func:`_median_of_neighbours`)."""
    rows = []
    for si, stat in enumerate(stats):
        skip = getattr(stat, "fit_rows", 0)
        if min(len(sel0), len(sel1)) - skip < 1000:
            skip = 0
        v0, v1 = stat(sel0[skip:]), stat(sel1[skip:])
        n0, n1 = len(v0), len(v1)
        # NaN means "in no event of this statistic" (see statistics.WithinPattern)
        v0, v1 = np.sort(v0[~np.isnan(v0)]), np.sort(v1[~np.isnan(v1)])
        if len(v0) + len(v1) == 0:
            continue
        ts = thresholds_for(v0, v1, stat.discrete)
        if ts.size == 0:
            continue
        normal = None if stat.discrete else fit_normal_pair(v0, v1)
        if normal is not None:
            ts = np.union1d(ts, normal.thresholds())
            for op in ("ge", "le"):
                q0, q1 = normal.probabilities(ts, op)
                for numerator, (pn, nn, pd, nd) in ((0, (q0, n0, q1, n1)),
                                                    (1, (q1, n1, q0, n0))):
                    pn = np.asarray(pn, float)
                    rows.append(ScoredThresholds(
                        si, op, numerator, ts, (np.rint(pn * nn), nn, np.rint(pd * nd), nd),
                        _cp_lower(pn * n_certify, n_certify, significance),
                        _cp_upper(np.asarray(pd, float) * n_certify, n_certify, significance),
                        pn > 0, False, (pn, pd), n_certify, significance))
            continue
        ge0 = n0 - np.searchsorted(v0, ts, side="left")
        ge1 = n1 - np.searchsorted(v1, ts, side="left")
        le0 = np.searchsorted(v0, ts, side="right")
        le1 = np.searchsorted(v1, ts, side="right")
        smooth = getattr(stat, "threshold_only", False) and not stat.discrete
        for op, c0, c1 in (("ge", ge0, ge1), ("le", le0, le1)):
            for numerator, (kn, nn, kd, nd) in ((0, (c0, n0, c1, n1)), (1, (c1, n1, c0, n0))):
                lower, upper, present = _bounds_from_counts(
                    kn, nn, kd, nd, n_certify=n_certify, significance=significance)
                rows.append(ScoredThresholds(si, op, numerator, ts, (kn, nn, kd, nd), lower,
                                             upper, present, smooth, None, n_certify,
                                             significance))
    return rows


def score_candidates(stats, sel0, sel1, *, delta, n_certify, significance):
    """All candidates of every statistic, scored by their predicted certified ε at ``delta``
    (:func:`score_statistics`).  One row per (statistic, op, numerator side):
    ``(stat_index, op, numerator, thresholds, predicted ε, (k_num, n_num, k_den, n_den),
    model)`` with the count arrays over the thresholds; ``model`` is None for count-scored
    rows, else ``(P_num, P_den, rank)`` with ``rank(i)`` the prediction of threshold i's
    expected selection counts."""
    return [row.at(delta) for row in score_statistics(stats, sel0, sel1, n_certify=n_certify,
                                                      significance=significance)]


def select_candidates(scored, how_many: int) -> list[Candidate]:
    """The best candidate of each (statistic, op, numerator) group; then the top ``how_many``
    by predicted ε.  A row scored by fitted laws (:func:`score_candidates`) places its
    threshold by the laws' prediction and is ranked by the prediction its expected selection
    counts would get, as a row scored by counts is."""
    best = []
    for si, op, numerator, ts, pred, (kn, nn, kd, nd), model in scored:
        i = int(np.argmax(pred))
        rank = pred[i] if model is None else model[2](i)
        best.append(Candidate(si, op, float(ts[i]), numerator, float(rank),
                              (int(kn[i]), int(nn), int(kd[i]), int(nd)),
                              () if model is None else (float(model[0][i]),
                                                        float(model[1][i]))))
    best.sort(key=lambda c: -c.predicted_epsilon)
    chosen = [c for c in best if c.predicted_epsilon > 0][:how_many]
    return chosen or best[:1]


def with_value_event(picked: list[Candidate], scored, stats) -> list[Candidate]:
    """``picked``, plus the best candidate of a statistic that reads only the output values
    when every pick reads the float64 representation (and such a candidate scores above 0):
    so a floating-point violation always comes with a certified value-level bound beside it,
    and a value-level leak is never reported as a floating-point one for want of an event."""
    reads = [getattr(stat, "reads_representation", False) for stat in stats]
    if not any(reads) or not all(reads[c.stat_index] for c in picked):
        return picked
    values = select_candidates([row for row in scored if not reads[row[0]]], 1)
    return picked + [c for c in values if c.predicted_epsilon > 0]


def count_events(stats, candidates: list[Candidate], x: np.ndarray) -> np.ndarray:
    """Number of rows of x in each candidate event."""
    values = {}
    counts = np.zeros(len(candidates), dtype=np.int64)
    for i, c in enumerate(candidates):
        if c.stat_index not in values:
            values[c.stat_index] = stats[c.stat_index](x)
        counts[i] = int(np.count_nonzero(c.indicator(values[c.stat_index])))
    return counts
