"""The one-run f-DP test of Mahloujifar, Melis & Chaudhuri, "Auditing f-Differential Privacy in
One Run" (arXiv 2410.22235, ICML 2025): the experiment of :mod:`dpaudit.stats.one_run`, the
null hypothesis a whole trade-off curve f instead of one (ε, δ) point.

**The test.**  m canaries with independent uniform inclusion bits, r guesses, v correct.  If
the training is f-DP with respect to each canary's inclusion (f symmetric), then
P[V ≥ v] < τ whenever the recursion

    r_v = τ·v/m,   h_v = τ·(r − v)/m,
    for i = v − 1, …, 0:   h_i = max(h_{i+1}, f(1 − r_{i+1})),
                           r_i = min(1, r_{i+1} + i/(r − i) · (h_i − h_{i+1}))           (2)

ends with r_0 + h_0 > r/m (:func:`fdp_rejects`).  *Proof sketch* (theirs): suppose
P[V ≥ v] ≥ τ.  For each canary, "guessed and right" and "guessed and wrong" are the two error
events of a test between its inclusion and its exclusion, so their per-canary probabilities
obey the trade-off constraint of f; averaging over canaries and peeling the events {V ≥ i}
one correct guess at a time (i = v, v − 1, …, 0) gives the recursion (2) for the smallest
fractions r_i (right) and h_i (wrong) of guessed canaries consistent with the premise.  If
those already exceed the r/m actually guessed, the premise is false: the observation is
significant at level τ.  The recursion stops early once h no longer changes (then neither
quantity can change again).  The guesses must be a function of the output alone, and their
number fixed in advance (Bonferroni over a grid of counts, as for the (ε, δ) test).

**The bound** (:func:`fdp_bound`).  A family t ↦ f_t (:mod:`dpaudit.claims.tradeoff`:
pointwise nonincreasing in t, t = ε at the audit's δ) is tested member by member; a weaker
curve is harder to reject, so the rejected t form an interval [0, t*], found by bisection and
reported on its rejected side (∞ when the family's limit curve ``weakest()`` is rejected:
every member is; :data:`SEARCH_CAP` = 512 when every member up to 512 is rejected and the
search stops there — a lower bound on t*, reported as "all rejected up to ε(δ) = 512", never
as an estimate).  The recursion is monotone in f — a curve g ≤ f pointwise that is rejected
makes f rejected too (by induction on i, each h_i and r_i only grow with f, since r_i is
increasing in every h_j, j ≥ i, and h_i in r_{i+1}) — which is what makes [0, t*] an interval
and lets the numbers read off one count hold jointly: every error is a rejection of a curve
the mechanism satisfies, hence of its own.  Which t* means what:

* the (ε, δ) family (f_t = f_{t,δ}): every mechanism with ε(δ) = t is f_{t,δ}-DP, so t* is a
  lower bound on ε(δ) **for any mechanism** — the canary audit's ε_LB;
* the GDP family: "not μ-GDP for μ ≤ μ*", sound for any mechanism; its ε(δ) is an ε(δ) bound
  only for a Gaussian-shaped curve (the ε the paper and ``jax_privacy.auditing`` report: they
  audit "the hypothesized f-DP curve of the mechanism");
* the claim's curve itself: rejected = the claim is false (the canary audit's verdict).

This is the recursion ``jax_privacy.auditing`` implements (``_epsilon_one_run_fdp``) for the
GDP family; here the curve is any callable f (a claim's, or a GDP curve), the significance the
test's share of the suite's family, and the benchmark (benchmarks/canaries.py) compares the
two on identical score arrays.
"""

from __future__ import annotations

import math
from typing import Callable


#: the largest t a family search tries: a search whose member at SEARCH_CAP is still rejected
#: (while the family's limit curve is not) stops there and returns exactly SEARCH_CAP, which
#: is a lower bound on t* (every member up to it is rejected), never an estimate of t*; the
#: reports say "every member up to ε(δ) = 512 rejected" (:func:`capped`)
SEARCH_CAP = 512.0


def capped(t: float) -> bool:
    """Whether ``t`` is a family search stopped at :data:`SEARCH_CAP` (finite, ≥ the cap)."""
    return math.isfinite(t) and t >= SEARCH_CAP


def fdp_rejects(curve: Callable[[float], float], m: int, guesses: int, correct: int,
                significance: float) -> bool:
    """Whether ``correct`` of ``guesses`` (m canaries) rejects f-DP at level ``significance``
    ((2) of the module docstring)."""
    m, r, v = int(m), int(guesses), int(correct)
    if m < 1 or not 0 <= v <= r <= m:
        raise ValueError(f"need 0 <= correct <= guesses <= canaries >= 1, got m={m}, "
                         f"guesses={r}, correct={v}")
    if not 0.0 < significance < 1.0:
        raise ValueError(f"significance must lie in (0, 1), got {significance!r}")
    right = significance * v / m
    wrong = significance * (r - v) / m
    for i in range(v - 1, -1, -1):
        new_wrong = max(wrong, curve(1.0 - right))
        if new_wrong == wrong:
            break
        right = min(right + i / (r - i) * (new_wrong - wrong), 1.0)
        wrong = new_wrong
    return right + wrong > r / m


def fdp_bound(family, m: int, guesses: int, correct: int, *, significance: float,
              tolerance: float = 1e-4, at_least: float = 0.0) -> float:
    """max(``at_least``, t*), t* the largest t whose curve ``family.curve(t)``
    :func:`fdp_rejects` rejects (to ``tolerance``, on the rejected side; 0 when nothing is;
    ∞ when ``family.weakest()`` is rejected; exactly :data:`SEARCH_CAP` when every member up
    to the cap is rejected but the limit curve is not — "all rejected up to the cap").  ``at_least`` — a bound another guess count
    already certified — skips the search when these counts do not reject it either (the
    caller keeps the larger bound anyway)."""
    def rejected(t: float) -> bool:
        return fdp_rejects(family.curve(t), m, guesses, correct, significance)

    lo = float(at_least)
    if math.isinf(lo):
        return lo
    if not rejected(lo):
        return lo if lo > 0 else 0.0
    weakest = family.weakest() if hasattr(family, "weakest") else None
    if weakest is not None and fdp_rejects(weakest, m, guesses, correct, significance):
        return math.inf
    hi = min(max(1.0, 2.0 * lo), SEARCH_CAP)
    while rejected(hi):
        if hi >= SEARCH_CAP:  # every member up to the cap rejected: t* ≥ the cap, said so
            return SEARCH_CAP
        lo, hi = hi, min(2.0 * hi, SEARCH_CAP)
    while hi - lo > tolerance:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if rejected(mid) else (lo, mid)
    return lo


__all__ = ["SEARCH_CAP", "capped", "fdp_bound", "fdp_rejects"]
