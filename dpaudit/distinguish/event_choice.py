"""Which of the scored candidate events the selection split keeps for certification.

The best candidate of each (statistic, op, numerator) group is a candidate for certification;
of the best K groups (``candidates``), :func:`worth_certifying` keeps the prefix whose best
certificate is expected to be largest.  Every kept event widens the Bonferroni family, so the
certified ε of kept event j is modelled as X_j ~ N(μ_j(k), τ_j²): μ_j(k) its prediction at
the significance of a family of k, τ_j² the variance of its log-ratio
ln(P_num − δ) − ln P_den from the selection split (none for events placed by fitted laws)
plus that of the certification split (delta method), and the k maximising
E[max_{j ≤ k} X_j] is kept.  An event far behind the best is dropped (noisy max releasing the
value: the left tail certifies 1.2, the right tail 0.2, so the left tail is certified alone);
two events of equal promise whose certificates are independent are both kept (the mirror
tails of a Gaussian shift: the better of two gains about 0.56 τ, the wider family costs each
about 0.28 τ).  Which events are certified is all that depends on these choices: every kept
event is certified on fresh samples and counted in the family.

Across a δ grid the kept events are the union over δ, except that an event of a group already
kept for another δ is added only if it gains more at its δ than one more event costs
(:func:`adds_to`).  A scalar output's selection may stop at a pilot split
(:data:`PILOT_FRACTION` of the samples) when every kept event is placed well enough
(:func:`pilot_is_enough`); :func:`dpaudit.distinguish.lower_bound.select` draws the splits.
"""

from __future__ import annotations

import numpy as np

from dpaudit.distinguish.events import (Candidate, predict_epsilon, score_statistics,
                                        select_candidates, with_value_event)


#: the selection split first drawn, as a fraction of ``samples``, when the distinguisher may
#: fit only threshold statistics (:func:`dpaudit.distinguish.lower_bound.select`)
PILOT_FRACTION = 0.1
#: a pilot selection split is kept when every kept event holds at least this many of its
#: outputs on each side (the event's two frequencies then have relative standard errors of
#: at most 5 %)
PILOT_COUNTS = 400


def choose_events(stats, sel0, sel1, *, deltas, n_cert, confidence, candidates
                  ) -> list[Candidate]:
    """The kept events (step 1 of :mod:`dpaudit.distinguish.lower_bound`) for each δ, their
    union.

    Candidates are scored once for the whole δ grid
    (:func:`~dpaudit.distinguish.events.score_statistics`) with the significance a family of
    ``candidates`` per δ would get; at each δ :func:`worth_certifying` keeps the prefix of the
    best ``candidates`` whose best certificate is expected to be largest, and :func:`adds_to`
    keeps an event of a group already chosen for another δ only if it gains more at its δ
    than one more event costs."""
    guess = (1.0 - confidence) / (2 * candidates * len(deltas))

    def significance_for(kept):
        return (1.0 - confidence) / (2 * kept * len(deltas))
    chosen = []
    rows = score_statistics(stats, sel0, sel1, n_certify=n_cert, significance=guess)
    for delta in deltas:
        scored = [row.at(delta) for row in rows]
        picked = worth_certifying(select_candidates(scored, candidates), delta=delta,
                                  n_certify=n_cert, significance_for=significance_for)
        for cand in with_value_event(picked, scored, stats):
            key = (cand.stat_index, cand.op, cand.threshold, cand.numerator)
            if key in {(c.stat_index, c.op, c.threshold, c.numerator) for c in chosen}:
                continue
            if adds_to(chosen, cand, delta=delta, n_certify=n_cert, confidence=confidence):
                chosen.append(cand)
    return chosen


def pilot_is_enough(chosen, stats) -> bool:
    """Whether the events kept on a pilot selection split can be certified as they are: each
    is a threshold on a ``threshold_only`` statistic and holds at least :data:`PILOT_COUNTS`
    selection outputs on each side."""
    return bool(chosen) and all(
        getattr(stats[c.stat_index], "threshold_only", False)
        and (bool(c.model_probabilities)
             or min(c.selection_counts[0], c.selection_counts[2]) >= PILOT_COUNTS)
        for c in chosen)


def _log_ratio_variance(k_num, n_num, k_den, n_den, delta, n):
    """Delta-method variance of ln(p̂_num − δ) − ln p̂_den for frequencies over n draws per
    side, at the selection frequencies of the counts (a zero count counts as ½)."""
    p_num = max(k_num, 0.5) / n_num
    p_den = max(k_den, 0.5) / n_den
    gap = max(p_num - delta, 1e-300)
    return p_num * (1.0 - p_num) / (n * gap * gap) + (1.0 - p_den) / (n * p_den)


def expected_maximum(means, sds) -> float:
    """E[max_j X_j] for independent X_j ~ N(means_j, sds_j²), by quadrature of
    E[max] = a + ∫_a^∞ (1 − Π_j Φ((x − μ_j)/σ_j)) dx over a range holding all the mass."""
    from scipy.special import ndtr

    means = np.asarray(means, float)
    sds = np.maximum(np.asarray(sds, float), 1e-12)
    if means.size == 1:
        return float(means[0])
    low, high = float(np.min(means - 9 * sds)), float(np.max(means + 9 * sds))
    x, step = np.linspace(low, high, 4001, retstep=True)
    tail = 1.0 - np.prod(ndtr((x[:, None] - means[None, :]) / sds[None, :]), axis=1)
    return low + step * float(tail.sum() - 0.5 * (tail[0] + tail[-1]))


def candidate_prediction(c: Candidate, *, delta, n_certify, significance) -> float:
    """:func:`predict_epsilon` of a kept candidate at another δ or significance, from its
    selection counts (the fitted laws' expected counts, unrounded, for an event placed by
    them)."""
    k_num, n_num, k_den, n_den = c.selection_counts
    if not (n_num and n_den):
        return c.predicted_epsilon
    if c.model_probabilities:
        k_num, k_den = c.model_probabilities[0] * n_num, c.model_probabilities[1] * n_den
    return float(predict_epsilon(k_num, n_num, k_den, n_den, delta=delta,
                                 n_certify=n_certify, significance=significance))


def adds_to(chosen: list[Candidate], cand: Candidate, *, delta, n_certify, confidence) -> bool:
    """Whether ``cand``, picked for δ = ``delta``, is worth adding to the events ``chosen``
    for the other δ of a grid: not if an event of its (statistic, op, numerator) group is
    already chosen and predicted, at this δ, within what one more event costs ``cand`` (its
    prediction at the family of m + 1 events against m).  Without this, events placed by
    fitted laws at each δ of a grid (thresholds −9.86, −9.83, −9.80 for δ = 10⁻⁷, 10⁻⁶,
    10⁻⁵) would each widen the family for a gain smaller than that cost."""
    same = [c for c in chosen
            if (c.stat_index, c.op, c.numerator) == (cand.stat_index, cand.op, cand.numerator)]
    if not same:
        return True
    m = len(chosen)

    def predicted(c, events):
        return candidate_prediction(c, delta=delta, n_certify=n_certify,
                                    significance=(1.0 - confidence) / (2 * events))
    gain = predicted(cand, m + 1) - max(predicted(c, m) for c in same)
    cost = predicted(cand, m) - predicted(cand, m + 1)
    return gain > cost


def worth_certifying(picked: list[Candidate], *, delta, n_certify, significance_for
                     ) -> list[Candidate]:
    """The prefix of ``picked`` (best first) whose best certified ε is expected to be largest.

    Keeping k events puts every bound at ``significance_for(k)``; event j's certified ε is
    modelled as X_j ~ N(μ_j(k), τ_j²) with μ_j(k) its :func:`predict_epsilon` at that
    significance and τ_j² the variance of its log-ratio from the selection split plus that of
    the certification split (:func:`_log_ratio_variance`); the prefix length k maximising
    E[max_{j ≤ k} X_j] (:func:`expected_maximum`) is kept, the shortest on ties.  Only which
    events are certified depends on this; every kept event is certified and counted."""
    if len(picked) <= 1:
        return picked

    def spread(c):
        if not (c.selection_counts[1] and c.selection_counts[3]):
            return 0.0
        certification = _log_ratio_variance(*c.selection_counts, delta, n_certify)
        if c.model_probabilities:  # the fitted laws' own error is neglected
            return float(np.sqrt(certification))
        return float(np.sqrt(certification + _log_ratio_variance(
            *c.selection_counts, delta, c.selection_counts[1])))

    spreads = [spread(c) for c in picked]
    best_k, best_value = 1, -np.inf
    for k in range(1, len(picked) + 1):
        sig = significance_for(k)
        means = [candidate_prediction(c, delta=delta, n_certify=n_certify, significance=sig)
                 for c in picked[:k]]
        value = expected_maximum(means, spreads[:k])
        if value > best_value + 1e-12:
            best_k, best_value = k, value
    return picked[:best_k]
