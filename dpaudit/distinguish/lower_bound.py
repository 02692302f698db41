"""The black-box certified lower bound on ε (``dpaudit.estimate_epsilon_lower_bound``).

Procedure, for a sampler and a neighbouring pair (d0, d1), at δ and confidence 1 − α:

1. **Selection split.**  Draw ``selection_fraction × samples`` outputs from each side.  Fit
   statistics of the output (:mod:`dpaudit.distinguish.statistics`) and score every
   candidate event {s ≥ t} / {s ≤ t}, in both directions (d0 over d1 and d1 over d0), by the
   ε it would certify (:mod:`dpaudit.distinguish.events`).  Keep the best K (``candidates``).
2. **Certification split.**  Draw the remaining outputs afresh, in chunks, keeping only the
   count of each kept event on each side (memory does not grow with ``samples``).
3. **Certificate.**  For each kept event, ε_K = ln((LCB(P_num) − δ)/UCB(P_den)) with one-sided
   Clopper–Pearson bounds, each at significance α/(2K) (Bonferroni over the 2K bounds), and
   the result is the largest ε_K.  With probability ≥ 1 − α all 2K bounds hold, so the true ε
   of the pair at δ is at least the result.  The selection split only chooses which events
   are tested, so its data never enters the bound.

A zero count on the denominator side (support mismatch) gives a finite certificate that grows
like ln(samples), since UCB(0, n, s) = 1 − s^{1/n}.
"""

from __future__ import annotations


import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from dpaudit.distinguish.events import count_events, score_candidates, select_candidates
from dpaudit.distinguish.result import CertifiedEvent, EpsilonLowerBound
from dpaudit.distinguish.sampling import (CERTIFICATION, SELECTION, Stream, draw,
                                          draw_stream)
from dpaudit.distinguish.statistics import fit_auto_statistics
from dpaudit.stats.epsilon import epsilon_from_counts
from dpaudit.stats.intervals import clopper_pearson_lower, clopper_pearson_upper

METHOD = ("selection/certification split; events {{s ≥ t}}, {{s ≤ t}} on fitted statistics, both "
          "directions; one-sided Clopper–Pearson bounds, Bonferroni over {bounds} bounds "
          "({k} certified events × 2)")

#: cap on selection-split memory (float64 values held per side)
MAX_SELECTION_VALUES = 1 << 25


def _validate_arguments(sampler, samples, delta, confidence, selection_fraction, candidates):
    if not callable(sampler):
        raise TypeError(f"sampler must be callable as sampler(dataset, n, rng), got {sampler!r}")
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)):
        raise TypeError(f"samples must be an integer, got {samples!r}")
    if samples < 200:
        raise ValueError(f"samples must be at least 200 per side, got {samples}")
    if not (isinstance(delta, (int, float)) and 0.0 <= float(delta) < 1.0):
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    if not (isinstance(confidence, (int, float)) and 0.0 < float(confidence) < 1.0):
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if not (0.0 < selection_fraction < 1.0):
        raise ValueError(f"selection_fraction must lie in (0, 1), got {selection_fraction!r}")
    if int(candidates) < 1:
        raise ValueError(f"candidates must be >= 1, got {candidates!r}")


def _entropy(seed) -> int:
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(seed, np.random.SeedSequence):
        return int(seed.entropy)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(seed)


def _count_stream(sampler, dataset, stream: Stream, stats, chosen, side: str, width):
    total = np.zeros(len(chosen), dtype=np.int64)
    for index, rows in stream.chunks():
        x = draw(sampler, dataset, rows, stream.rng(index), side=side)
        if x.shape[1:] != width:
            raise ValueError(f"sampler output shape changed on {side}: {x.shape[1:]} vs {width}")
        total += count_events(stats, chosen, x)
    return total


def estimate_epsilon_lower_bound(sampler, d0, d1, *, delta: float = 0.0, samples: int,
                                 confidence: float = 0.95, seed=None,
                                 selection_fraction: float = 0.2, candidates: int = 2,
                                 max_selection: int = 1_000_000,
                                 workers: int = 1) -> EpsilonLowerBound:
    """Certify a lower bound on the ε of the pair (d0, d1) at δ from samples of ``sampler``.

    ``sampler(dataset, n, rng)`` must return n outputs (shape ``(n,)`` or ``(n, k)``, ints or
    floats) drawn with the numpy Generator ``rng``.  ``samples`` is the number of outputs per
    side (selection + certification); the selection split is ``selection_fraction`` of it, at
most ``max_selection`` per side.  With probability ≥ ``confidence`` the true ε of the
    pair at ``delta`` is ≥ the returned ``.epsilon`` (see the module docstring).  ``workers``
    > 1 counts the certification split of the two sides in two processes (the sampler must
    then be picklable); the result does not depend on it.
    """
    _validate_arguments(sampler, samples, delta, confidence, selection_fraction, candidates)
    start = time.perf_counter()
    delta, confidence, samples = float(delta), float(confidence), int(samples)
    entropy = _entropy(seed)

    # 1. selection split ---------------------------------------------------------------------
    probe = draw(sampler, d0, 1, np.random.default_rng(entropy), side="d0")
    width = int(np.prod(probe.shape[1:])) if probe.ndim > 1 else 1
    n_sel = max(100, int(round(selection_fraction * samples)))
    n_sel = min(n_sel, samples - 100, max_selection, max(100, MAX_SELECTION_VALUES // width))
    n_cert = samples - n_sel
    sel0 = draw_stream(sampler, d0, Stream(entropy, SELECTION, 0, n_sel), side="d0")
    sel1 = draw_stream(sampler, d1, Stream(entropy, SELECTION, 1, n_sel), side="d1")
    if sel0.shape[1:] != sel1.shape[1:]:
        raise ValueError(f"sampler returns outputs of shape {sel0.shape[1:]} on d0 but "
                         f"{sel1.shape[1:]} on d1; both sides must have the same output shape")
    if sel0.ndim == 2 and sel0.shape[1] == 1:
        sel0, sel1 = sel0[:, 0], sel1[:, 0]
        squeeze = True
    else:
        squeeze = False
    stats, kind = fit_auto_statistics(sel0, sel1)
    k = int(candidates)
    significance = (1.0 - confidence) / (2 * k)
    scored = score_candidates(stats, sel0, sel1, delta=delta, n_certify=n_cert,
                              significance=significance)
    chosen = select_candidates(scored, k)
    del sel0, sel1

    # 2. certification split (streamed) ------------------------------------------------------
    stats_used = stats
    sampler_used = sampler if not squeeze else _Squeezed(sampler)
    shape = () if squeeze or probe.ndim == 1 else probe.shape[1:]
    streams = [(d0, Stream(entropy, CERTIFICATION, 0, n_cert), "d0"),
               (d1, Stream(entropy, CERTIFICATION, 1, n_cert), "d1")]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=min(int(workers), 2)) as pool:
            futures = [pool.submit(_count_stream, sampler_used, d, st, stats_used, chosen, side,
                                   shape) for d, st, side in streams]
            counts = [f.result() for f in futures]
    else:
        counts = [_count_stream(sampler_used, d, st, stats_used, chosen, side, shape)
                  for d, st, side in streams]

    # 3. certificate ---------------------------------------------------------------------------
    certified = []
    for i, cand in enumerate(chosen):
        k_num = int(counts[cand.numerator][i])
        k_den = int(counts[1 - cand.numerator][i])
        lcb = float(clopper_pearson_lower(k_num, n_cert, significance))
        ucb = float(clopper_pearson_upper(k_den, n_cert, significance))
        eps = float(epsilon_from_counts(k_num, n_cert, k_den, n_cert, delta=delta,
                                        significance=significance))
        stat = stats[cand.stat_index]
        certified.append(CertifiedEvent(
            event=cand.describe(stat), numerator=f"d{cand.numerator}",
            k_numerator=k_num, n_numerator=n_cert, k_denominator=k_den, n_denominator=n_cert,
            p_numerator_lower=lcb, p_denominator_upper=ucb, epsilon=eps,
            definition=cand.definition(stat)))
    best = max(certified, key=lambda c: c.epsilon)
    return EpsilonLowerBound(
        epsilon=best.epsilon, delta=delta, confidence=confidence,
        method=METHOD.format(bounds=2 * k, k=k), event=best.event, numerator=best.numerator,
        k_numerator=best.k_numerator, n_numerator=best.n_numerator,
        k_denominator=best.k_denominator, n_denominator=best.n_denominator,
        per_bound_significance=significance, family_size=2 * k, samples=samples,
        selection_samples=n_sel, certification_samples=n_cert, output_kind=kind,
        seed=entropy, seconds=time.perf_counter() - start, candidates=tuple(certified),
        event_definition=best.definition)


class _Squeezed:
    """Wraps a sampler returning (n, 1) so that its outputs are treated as scalars."""

    def __init__(self, sampler):
        self.sampler = sampler

    def __call__(self, dataset, n, rng):
        return np.asarray(self.sampler(dataset, n, rng)).reshape(n)


__all__ = ["estimate_epsilon_lower_bound"]


