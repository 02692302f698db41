"""The black-box certified lower bound on ε, and on a whole privacy curve.

Procedure, for a sampler and a neighbouring pair (d0, d1), at confidence 1 − α:

1. **Selection split.**  Draw ``selection_fraction × samples`` outputs from each side.  Fit
   statistics of the output (:mod:`dpaudit.distinguish.statistics`, learned ones in
   :mod:`dpaudit.distinguish.learned`) and score every candidate event {s ≥ t} / {s ≤ t}, in
   both directions (d0 over d1 and d1 over d0), by the ε it would certify
   (:mod:`dpaudit.distinguish.events`).  For each requested δ keep the best K (``candidates``);
   the kept events are the union over the δ grid.
2. **Certification split.**  Draw the remaining outputs afresh, in chunks, keeping only the
   count of each kept event on each side (memory does not grow with ``samples``).
3. **Certificate.**  Each kept event gets one-sided Clopper–Pearson bounds LCB(P_num) and
   UCB(P_den), each at significance α/(2m) for m kept events (Bonferroni over the 2m bounds).
   With probability ≥ 1 − α all of them hold at once, and then, *simultaneously*:
   for every δ, ε(δ) ≥ max_S ln((LCB_S − δ)/UCB_S); for every α > 1,
   max(D_α(P₀‖P₁), D_α(P₁‖P₀)) ≥ max_S D_α(Bern(LCB_S)‖Bern(UCB_S)) (data processing, see
   :func:`dpaudit.stats.epsilon.renyi_from_bounds`).  So a whole δ grid and α grid are
   certified at the stated confidence from one sample.  The selection split only chooses
   which events are tested; its data never enters a bound.

A zero count on the denominator side (support mismatch) gives a finite certificate that grows
like ln(samples), since UCB(0, n, s) = 1 − s^{1/n}.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from dpaudit.distinguish.events import score_candidates, select_candidates
from dpaudit.distinguish.result import CertifiedEvent, EpsilonLowerBound
from dpaudit.distinguish.sampling import (CERTIFICATION, IGNORES_RNG, SELECTION, SamplerError,
                                          Stream, draw, draw_stream, ignores_rng,
                                          repeated_draws)
from dpaudit.distinguish.auto import fit_auto_statistics
from dpaudit.distinguish.counting import CountJob, EventCounter, ProcessCounter, SerialCounter
from dpaudit.distinguish.statistics import Linear, Sanitizer
from dpaudit.stats.epsilon import epsilon_from_counts, renyi_from_bounds
from dpaudit.stats.intervals import clopper_pearson_lower, clopper_pearson_upper

METHOD = ("{distinguisher} distinguisher; selection/certification split; events {{s ≥ t}}, "
          "{{s ≤ t}} on fitted statistics, both directions; one-sided Clopper–Pearson bounds, "
          "Bonferroni over {bounds} bounds ({k} certified events × 2)")

#: cap on selection-split memory (float64 values held per side)
MAX_SELECTION_VALUES = 1 << 25

DISTINGUISHERS = ("auto", "statistics", "logistic", "boosting", "white-box", "projection")


@dataclass(frozen=True)
class RenyiLowerBound:
    """With the curve's confidence, max(D_α(P₀‖P₁), D_α(P₁‖P₀)) ≥ ``divergence``."""

    alpha: float
    divergence: float
    event: str


@dataclass(frozen=True)
class PrivacyCurveLowerBound:
    """Simultaneous certified lower bounds on ε(δ) over a δ grid and on D_α over an α grid."""

    points: tuple[EpsilonLowerBound, ...]
    renyi: tuple[RenyiLowerBound, ...] = field(default_factory=tuple)

    def epsilon(self, delta: float) -> float:
        for p in self.points:
            if p.delta == delta:
                return p.epsilon
        raise KeyError(f"δ = {delta} is not on the certified grid")

    def to_dict(self) -> dict:
        return {"points": [p.to_dict() for p in self.points],
                "renyi": [{"alpha": r.alpha, "divergence": r.divergence, "event": r.event}
                          for r in self.renyi]}


def _validate_arguments(sampler, samples, deltas, alphas, confidence, selection_fraction,
                        candidates, distinguisher, log_density):
    if not callable(sampler):
        raise TypeError(f"sampler must be callable as sampler(dataset, n, rng), got {sampler!r}")
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)):
        raise TypeError(f"samples must be an integer, got {samples!r}")
    if samples < 200:
        raise ValueError(f"samples must be at least 200 per side, got {samples}")
    if not deltas:
        raise ValueError("at least one delta is needed")
    for delta in deltas:
        if isinstance(delta, bool) or not isinstance(delta, (int, float, np.floating)) \
                or not 0.0 <= float(delta) < 1.0:
            raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    for alpha in alphas:
        if not (isinstance(alpha, (int, float, np.floating)) and 1.0 < float(alpha) < np.inf):
            raise ValueError(f"Rényi orders alpha must be finite and > 1, got {alpha!r}")
    if not (isinstance(confidence, (int, float)) and 0.0 < float(confidence) < 1.0):
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if not (0.0 < selection_fraction < 1.0):
        raise ValueError(f"selection_fraction must lie in (0, 1), got {selection_fraction!r}")
    if int(candidates) < 1:
        raise ValueError(f"candidates must be >= 1, got {candidates!r}")
    if distinguisher not in DISTINGUISHERS:
        raise ValueError(f"distinguisher must be one of {', '.join(DISTINGUISHERS)}, "
                         f"got {distinguisher!r}")
    if distinguisher == "white-box" and log_density is None:
        raise ValueError("the white-box distinguisher needs log_density(dataset, outputs)")


def _entropy(seed) -> int:
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(seed, np.random.SeedSequence):
        return int(seed.entropy)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(seed)


def selection_size(samples: int, width: int, selection_fraction: float = 0.2,
                   max_selection: int = 1_000_000) -> int:
    """Outputs per side in the selection split: ``selection_fraction × samples``, at least
    100, leaving at least 100 to certify, at most ``max_selection``, and at most
    :data:`MAX_SELECTION_VALUES` values in all for outputs of ``width`` values each."""
    n_sel = max(100, int(round(selection_fraction * samples)))
    return min(n_sel, samples - 100, max_selection, max(100, MAX_SELECTION_VALUES // width))


def _fit_statistics(distinguisher, sel0, sel1, *, log_density, d0, d1, seed,
                    representation=False):
    """The statistics a distinguisher uses, fitted on the selection split."""
    from dpaudit.distinguish import learned

    if distinguisher == "white-box":
        return [learned.PrivacyLoss(log_density, d0, d1)], "white-box"
    if distinguisher in ("logistic", "boosting"):
        kind = "logistic regression" if distinguisher == "logistic" else "gradient boosting"
        return [learned.fit_classifier(sel0, sel1, kind, seed)], kind
    if distinguisher == "projection":
        a = sel0 if sel0.ndim == 2 else sel0[:, None]
        b = sel1 if sel1.ndim == 2 else sel1[:, None]
        n_fit = max(1, min(len(a), len(b)) // 2)  # fit on one half, score on the other
        a, b = a[:n_fit], b[:n_fit]
        san = Sanitizer(np.concatenate([a, b]))
        diff = san(a).mean(axis=0) - san(b).mean(axis=0)
        center = 0.5 * (san(a).mean(axis=0) + san(b).mean(axis=0))
        stat = Linear(diff, center, san, "mean-difference projection")
        stat.fit_rows = n_fit
        return [stat], "projection"
    stats, kind = fit_auto_statistics(sel0, sel1, representation=representation)
    # auto adds logistic regression (on raw and simple nonlinear features) for continuous
    # vectors, not gradient boosting: in benchmarks/learned.py (d-dim Gaussians, d ≤ 50, and
    # Laplace products at 10⁶ samples) boosting never beat the fitted statistics and cost
    # 4–10× more time; it stays available by name
    if distinguisher == "auto" and sel0.ndim == 2 and kind != "discrete vector":
        try:
            stats.append(learned.fit_classifier(sel0, sel1, "logistic regression", seed))
        except ImportError:
            warnings.warn("scikit-learn is not installed: the auto distinguisher uses fitted "
                          "statistics only (pip install 'dpaudit[ml]' adds the learned ones)",
                          RuntimeWarning, stacklevel=2)
    return stats, kind


def estimate_privacy_curve_lower_bound(
        sampler, d0, d1, *, deltas=(0.0,), alphas=(), samples: int, confidence: float = 0.95,
        seed=None, selection_fraction: float = 0.2, candidates: int = 2,
        max_selection: int = 1_000_000, distinguisher: str = "auto", log_density=None,
        workers: int = 1, representation: bool = False,
        counter: EventCounter | None = None) -> PrivacyCurveLowerBound:
    """Certify lower bounds on ε(δ) for every δ in ``deltas`` and on the Rényi divergence at
    every order in ``alphas``, all holding simultaneously with probability ≥ ``confidence``.

    ``sampler(dataset, n, rng)`` must return n outputs (shape ``(n,)`` or ``(n, k)``, ints or
    floats) drawn with the numpy Generator ``rng``.  ``samples`` is the number of outputs per
    side (selection + certification); the selection split is ``selection_fraction`` of it, at
    most ``max_selection`` per side.  ``distinguisher``: ``auto`` (fitted statistics, plus
    logistic regression for continuous vector outputs), ``statistics``,
    ``logistic``, ``boosting``, ``projection`` (a fixed mean-difference projection) or
    ``white-box`` (the exact privacy loss; needs ``log_density(dataset, outputs)``).
    ``workers`` > 1 counts the two sides' certification split in two processes (the sampler
    must then be picklable); the result does not depend on it.  ``counter`` chooses where the
    certification split is counted (:mod:`dpaudit.distinguish.counting`; e.g. chunk ranges
    across a Dask cluster); it overrides ``workers``, and the result does not depend on it
    either: every chunk draws from its own (seed, side, chunk) stream and counts are summed.
    ``representation`` (``auto`` and ``statistics`` only): also test the float64
    representation of continuous outputs (:mod:`dpaudit.distinguish.floating`), for samplers
    that *are* the implementation under audit rather than a stand-in for a real-valued
    mechanism.  A sampler that ignores ``rng`` (two draws with the same seed differ) gets a
    ``RuntimeWarning``: the bound stays valid, the run is not reproducible
    (:func:`dpaudit.distinguish.sampling.ignores_rng`).  A sampler whose draws repeat (the
    same outputs for different seeds, or one value per call: it re-seeds a generator of its
    own) raises :class:`~dpaudit.distinguish.sampling.SamplerError` before any sampling, since
    its samples are not independent and nothing could be certified
    (:func:`dpaudit.distinguish.sampling.repeated_draws`).
    """
    deltas = [float(d) for d in np.atleast_1d(deltas)]
    alphas = [float(a) for a in np.atleast_1d(alphas)] if len(np.atleast_1d(alphas)) else []
    _validate_arguments(sampler, samples, deltas, alphas, confidence, selection_fraction,
                        candidates, distinguisher, log_density)
    start = time.perf_counter()
    confidence, samples = float(confidence), int(samples)
    entropy = _entropy(seed)

    # 1. selection split ---------------------------------------------------------------------
    probe = draw(sampler, d0, 1, np.random.default_rng(entropy), side="d0")
    repeated = repeated_draws(sampler, d0, entropy)
    if repeated:
        raise SamplerError(repeated)
    if ignores_rng(sampler, d0, entropy):
        warnings.warn(IGNORES_RNG, RuntimeWarning, stacklevel=2)
    width = int(np.prod(probe.shape[1:])) if probe.ndim > 1 else 1
    n_sel = selection_size(samples, width, selection_fraction, max_selection)
    n_cert = samples - n_sel
    sel0 = draw_stream(sampler, d0, Stream(entropy, SELECTION, 0, n_sel), side="d0")
    sel1 = draw_stream(sampler, d1, Stream(entropy, SELECTION, 1, n_sel), side="d1")
    if sel0.shape[1:] != sel1.shape[1:]:
        raise ValueError(f"sampler returns outputs of shape {sel0.shape[1:]} on d0 but "
                         f"{sel1.shape[1:]} on d1; both sides must have the same output shape")
    squeeze = sel0.ndim == 2 and sel0.shape[1] == 1
    if squeeze:
        sel0, sel1 = sel0[:, 0], sel1[:, 0]
    stats, kind = _fit_statistics(distinguisher, sel0, sel1, log_density=log_density,
                                  d0=d0, d1=d1, seed=entropy, representation=representation)
    k = int(candidates)
    # score with the significance a family of K per δ would get (the final family is the union)
    guess = (1.0 - confidence) / (2 * k * len(deltas))
    chosen = []
    for delta in deltas:
        scored = score_candidates(stats, sel0, sel1, delta=delta, n_certify=n_cert,
                                  significance=guess)
        for cand in select_candidates(scored, k):
            key = (cand.stat_index, cand.op, cand.threshold, cand.numerator)
            if key not in {(c.stat_index, c.op, c.threshold, c.numerator) for c in chosen}:
                chosen.append(cand)
    if not chosen:  # every statistic value was NaN ("in no event"): nothing to certify with
        raise ValueError(
            f"no candidate event could be formed: every value of the {kind} statistic(s) on the "
            f"selection split is NaN (a log_density returning NaN, or outputs the statistics "
            f"cannot read), so there is no event to certify")
    m = len(chosen)
    significance = (1.0 - confidence) / (2 * m)
    del sel0, sel1
    selection_seconds = time.perf_counter() - start

    # 2. certification split (streamed) ------------------------------------------------------
    sampler_used = _Squeezed(sampler) if squeeze else sampler
    shape = () if squeeze or probe.ndim == 1 else probe.shape[1:]
    job = CountJob(sampler=sampler_used, datasets=(d0, d1),
                   streams=(Stream(entropy, CERTIFICATION, 0, n_cert),
                            Stream(entropy, CERTIFICATION, 1, n_cert)),
                   stats=tuple(stats), chosen=tuple(chosen), shape=tuple(shape))
    if counter is None:
        counter = ProcessCounter() if workers > 1 else SerialCounter()
    counts = counter.count(job)

    # 3. certificates --------------------------------------------------------------------------
    bounds = []
    for i, cand in enumerate(chosen):
        k_num = int(counts[cand.numerator][i])
        k_den = int(counts[1 - cand.numerator][i])
        lcb = float(clopper_pearson_lower(k_num, n_cert, significance))
        ucb = float(clopper_pearson_upper(k_den, n_cert, significance))
        stat = stats[cand.stat_index]
        bounds.append((cand, stat, k_num, k_den, lcb, ucb))
    seconds = time.perf_counter() - start
    method = METHOD.format(distinguisher=distinguisher, bounds=2 * m, k=m)
    points = []
    for delta in deltas:
        certified = tuple(CertifiedEvent(
            event=cand.describe(stat), numerator=f"d{cand.numerator}",
            k_numerator=k_num, n_numerator=n_cert, k_denominator=k_den, n_denominator=n_cert,
            p_numerator_lower=lcb, p_denominator_upper=ucb,
            epsilon=float(epsilon_from_counts(k_num, n_cert, k_den, n_cert, delta=delta,
                                              significance=significance)),
            definition=cand.definition(stat))
            for cand, stat, k_num, k_den, lcb, ucb in bounds)
        best = max(certified, key=lambda c: c.epsilon)
        points.append(EpsilonLowerBound(
            epsilon=best.epsilon, delta=delta, confidence=confidence, method=method,
            event=best.event, numerator=best.numerator, k_numerator=best.k_numerator,
            n_numerator=best.n_numerator, k_denominator=best.k_denominator,
            n_denominator=best.n_denominator, per_bound_significance=significance,
            family_size=2 * m, samples=samples, selection_samples=n_sel,
            certification_samples=n_cert, output_kind=kind, seed=entropy, seconds=seconds,
            candidates=certified, event_definition=best.definition,
            selection_seconds=selection_seconds))
    renyi = []
    for alpha in alphas:
        best_div, best_event = 0.0, bounds[0][0].describe(bounds[0][1])
        for cand, stat, _, _, lcb, ucb in bounds:
            div = renyi_from_bounds(lcb, ucb, alpha)
            if div > best_div:
                best_div, best_event = div, cand.describe(stat)
        renyi.append(RenyiLowerBound(alpha=alpha, divergence=best_div, event=best_event))
    return PrivacyCurveLowerBound(points=tuple(points), renyi=tuple(renyi))


def estimate_epsilon_lower_bound(sampler, d0, d1, *, delta: float = 0.0, samples: int,
                                 confidence: float = 0.95, seed=None, **options
                                 ) -> EpsilonLowerBound:
    """Certify a lower bound on the ε of the pair (d0, d1) at δ from samples of ``sampler``.

    With probability ≥ ``confidence`` the true ε of the pair at ``delta`` is ≥ the returned
    ``.epsilon``.  ``sampler(dataset, n, rng)`` returns n outputs; ``samples`` is per side.
    Options as for :func:`estimate_privacy_curve_lower_bound` (``selection_fraction``,
    ``candidates``, ``max_selection``, ``distinguisher``, ``log_density``, ``workers``)."""
    if isinstance(delta, (list, tuple, np.ndarray)):
        raise TypeError("delta must be one number; use estimate_privacy_curve_lower_bound "
                        "for a grid")
    curve = estimate_privacy_curve_lower_bound(sampler, d0, d1, deltas=(delta,),
                                               samples=samples, confidence=confidence,
                                               seed=seed, **options)
    return curve.points[0]


class _Squeezed:
    """Wraps a sampler returning (n, 1) so that its outputs are treated as scalars."""

    def __init__(self, sampler):
        self.sampler = sampler

    def __call__(self, dataset, n, rng):
        return np.asarray(self.sampler(dataset, n, rng)).reshape(n)


__all__ = ["estimate_epsilon_lower_bound", "estimate_privacy_curve_lower_bound",
           "selection_size", "PrivacyCurveLowerBound", "RenyiLowerBound", "DISTINGUISHERS"]
