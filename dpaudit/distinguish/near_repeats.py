"""Near-copies within a call: the sorted-neighbour test of two calls of a sampler.

A sampler must return n *independent* outputs.  One that returns each draw several times
with a little jitter, pins one output of every call to a fixed value, clips copies to a range
(so that copies of different calls meet at the bounds) or repeats only part of its draws
defeats a test for exact, unshared repeats (:func:`dpaudit.distinguish.sampling.
repeats_between_calls`), and its certificates are too high: each copy counts as a fresh
sample (issue 39, item 4: 18–35 % false violations at true ε = 1).  Such outputs *cluster by
call*: sorted together, an output's neighbour is, far more often than by chance, a copy of it
from the same call.

**The test.**  Pool the two calls ``x`` and ``r`` (S rows each, drawn with generators from
different seeds) and sort the 2S rows in an order that does not look at which call a row came
from: numerically, lexicographically over the columns, ties broken by an independent uniform
key per row.  Pair the sorted rows ``(0, 1), (2, 3), …`` into S disjoint pairs and count the
pairs whose rows come from different calls, M.

**False-alarm bound (distribution-free).**  If the sampler draws its 2S rows i.i.d. (any law:
discrete, continuous, a float64 grid of either), the augmented rows (row, key) are i.i.d. with
a.s. no ties, so given their multiset the set of rows that came from ``x`` is a uniformly
random subset of size S of the sorted sequence.  The number of subsets with exactly m mixed
pairs is C(S, m)·2^m·C(S − m, (S − m)/2) (choose the mixed pairs, which of each goes to
``x``, and which of the other pairs go to ``x`` whole; S − m must be even), out of C(2S, S),
so P(M ≤ m) is a finite sum computed exactly here (in log space).  The test flags when
P(M ≤ M_observed) ≤ :data:`NEAR_REPEAT_FALSE_ALARM` (10⁻⁹) — a bound that holds conditionally
on the pooled values, hence for every law.  Under independence M ≈ S/2; a sampler whose
draws come in near-copies has M ≈ 0 (S = 2048, each draw ×8: M ≈ 0–60, P ≈ 10⁻²⁰⁰).

**What it does not see.**  Copies of a law with few values (the tie-break key spreads equal
values at random over both calls, which is what independent draws do too), and dependence that
does not make copies neighbours in this order (e.g. a vector output whose first column is
fresh and whose later columns repeat).
"""

from __future__ import annotations

from math import log

import numpy as np
from scipy.special import gammaln, logsumexp

#: the false-alarm probability the sorted-neighbour test is held to, for i.i.d. draws
NEAR_REPEAT_FALSE_ALARM = 1e-9

NEAR_REPEATS = (
    "the sampler's outputs come in near-copies within a call: sorted together, two calls of "
    "{rows} outputs under different seeds pair up with an output of the other call in only "
    "{mixed} of {pairs} neighbouring pairs (about half for independent draws; probability ≤ "
    "{bound:.1e} for independent draws of any law), so its draws are copies of one another "
    "(each repeated with jitter, partly repeated, or clipped copies), not n independent "
    "outputs, and no bound can be certified; return n independent outputs drawn from the "
    "`rng` argument")


def sorted_order(pooled: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Indices that sort the rows of ``pooled`` numerically (lexicographically over the
    columns, first column first), ties broken by an independent uniform key per row drawn from
    ``rng``: an order that does not depend on the rows' positions."""
    rows = pooled.reshape(pooled.shape[0], -1)
    key = rng.random(rows.shape[0])
    columns = [rows[:, j] for j in range(rows.shape[1] - 1, -1, -1)]
    return np.lexsort([key, *columns])


def log_mixed_pairs_cdf(mixed: int, pairs: int) -> float:
    """log P(M ≤ ``mixed``) for the number M of mixed pairs among ``pairs`` disjoint pairs of
    2·``pairs`` items, ``pairs`` of them chosen uniformly at random (see the module
    docstring): log Σ_{m ≤ mixed, m ≡ pairs mod 2} C(S, m)·2^m·C(S − m, (S − m)/2) / C(2S, S)."""
    s = pairs
    m = np.arange(s % 2, mixed + 1, 2, dtype=float)
    if m.size == 0:
        return float("-inf")
    terms = (_log_choose(s, m) + m * np.log(2.0) + _log_choose(s - m, (s - m) / 2)
             - _log_choose(2 * s, s))
    return float(logsumexp(terms))


def _log_choose(n, k):
    return gammaln(np.add(n, 1)) - gammaln(np.add(k, 1)) - gammaln(np.subtract(n, k) + 1)


def near_repeats(x: np.ndarray, r: np.ndarray, rng: np.random.Generator) -> str | None:
    """Why two calls ``x`` and ``r`` of a sampler (S rows each, different seeds) show
    near-copies within a call, or None (see the module docstring; false alarm ≤ 10⁻⁹ for
    i.i.d. draws of any law).  ``rng`` draws the tie-break keys only."""
    s = x.shape[0]
    if r.shape != x.shape or s < 2:
        return None
    pooled = np.concatenate([x, r], axis=0)
    order = sorted_order(pooled, rng)
    from_x = order < s
    mixed = int(np.count_nonzero(from_x[0::2] != from_x[1::2]))
    if mixed >= s // 2:  # at or above the middle: never in the lower tail
        return None
    log_p = log_mixed_pairs_cdf(mixed, s)
    if log_p <= log(NEAR_REPEAT_FALSE_ALARM):
        return NEAR_REPEATS.format(rows=s, mixed=mixed, pairs=s, bound=float(np.exp(log_p)))
    return None


__all__ = ["NEAR_REPEATS", "NEAR_REPEAT_FALSE_ALARM", "log_mixed_pairs_cdf", "near_repeats",
           "sorted_order"]
