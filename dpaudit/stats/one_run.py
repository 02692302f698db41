"""The one-run canary experiment: guesses from scores, and the (ε, δ) bound of Steinke, Nasr &
Jagielski, "Privacy Auditing with One (1) Training Run" (NeurIPS 2023, arXiv 2305.08846).

**The experiment.**  m canaries; canary i is included in the training (S_i = 1) or not
(S_i = 0) independently with probability ½, everything else fixed.  After the run each canary
has a score; the auditor guesses "in" for the k₊ highest scores and "out" for the k₋ lowest
and abstains on the rest (:func:`count_correct`): r = k₊ + k₋ guesses, V of them correct.

**The test** (their main theorem and its δ extension).  If the training is (ε, δ)-DP with
respect to each canary's inclusion — the other canaries' bits and all other data held fixed —
and the guesses are a function of the output alone, then for every v

    P[V ≥ v] ≤ β + α·2m·δ,   β = P[Bin(r, q) ≥ v],   q = e^ε/(1 + e^ε),
    α = max_{i = 1..v} (P[Bin(r, q) ≥ v − i] − β)/i                                     (1)

(:func:`steinke_p_value`; at δ = 0 the bound is β: V is stochastically dominated by
Bin(r, q)).  *Proof sketch* (theirs): reveal the guesses one canary at a time; conditioned on
everything revealed, the bit S_i is a uniform bit passed through an (ε, δ)-DP channel, so the
guess on it is correct with probability ≤ q plus a δ-sized slack; a coupling with independent
Bernoulli(q) trials gives the binomial tail and the slacks, each used at most once per canary,
add up to the α·2mδ term.  ε_LB (:func:`steinke_epsilon`) is the largest ε whose p-value is
≤ the test's significance s: the p-value increases in ε (q does), and (ε, δ)-DP implies
(ε′, δ)-DP for ε′ ≥ ε, so rejecting at ε_LB rejects every smaller ε: for a training that is
(ε, δ)-DP per canary, P[ε_LB ≥ ε] ≤ P[p-value at ε ≤ s] ≤ s.

**Choices after seeing scores** (:func:`best_guesses`).  Validity needs the number of guesses
fixed before the scores are seen.  The auditor may try a grid of G guess counts fixed in
advance (:func:`guess_grid`) and keep the best; each is then tested at s/G (Bonferroni), so the
best of them holds at s.  Nothing else is chosen after seeing the scores.

**Ceiling.**  Even with every guess correct (V = r), ε_LB is at most about ln(r/ ln(1/s)):
Bin(r, q) ≥ r has probability q^r, which is ≤ s iff r·ln(1/q) ≥ ln(1/s).  One-run bounds are
therefore capped by the number of canaries, whatever the true ε.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats


def _check_counts(m: int, guesses: int, correct: int) -> tuple[int, int, int]:
    m, r, v = int(m), int(guesses), int(correct)
    if m < 1 or not 0 <= v <= r <= m:
        raise ValueError(f"need 0 <= correct <= guesses <= canaries >= 1, got m={m}, "
                         f"guesses={r}, correct={v}")
    return m, r, v


@dataclass(frozen=True)
class Guesses:
    """k₊ guesses "in" (the highest scores) and k₋ guesses "out" (the lowest)."""

    k_plus: int
    k_minus: int

    @property
    def total(self) -> int:
        return self.k_plus + self.k_minus

    def describe(self) -> str:
        return f"top {self.k_plus} in, bottom {self.k_minus} out"


def count_correct(scores, included, guesses: Guesses) -> int:
    """Correct guesses of ``guesses`` on ``scores`` against the inclusion bits ``included``.

    Ties are broken by canary index (a fixed order that does not depend on the bits)."""
    scores = np.asarray(scores, dtype=float)
    included = np.asarray(included, dtype=bool)
    if scores.shape != included.shape or scores.ndim != 1:
        raise ValueError("one score per canary and one inclusion bit per canary")
    if guesses.total > scores.size:
        raise ValueError(f"{guesses.total} guesses for {scores.size} canaries")
    order = np.argsort(-scores, kind="stable")
    top = included[order[:guesses.k_plus]].sum()
    bottom = (~included[order[scores.size - guesses.k_minus:]]).sum() if guesses.k_minus else 0
    return int(top + bottom)


def guess_grid(m: int, *, two_sided: bool = True, smallest: int = 10,
               fraction: float = 0.5) -> tuple[Guesses, ...]:
    """Guess counts fixed before any score is seen: r on a 1-2-5 grid from ``smallest`` to
    ``fraction``·m (at least one count), split evenly between the two ends when
    ``two_sided`` (k₊ = ⌈r/2⌉, k₋ = ⌊r/2⌋), else all "in" guesses."""
    m = int(m)
    if m < 1:
        raise ValueError(f"need at least one canary, got {m}")
    top = max(1, int(fraction * m))
    values, decade = [], 1
    while decade <= top:
        values += [c * decade for c in (1, 2, 5) if smallest <= c * decade <= top]
        decade *= 10
    values = sorted(set(values)) or [top]
    if two_sided:
        return tuple(Guesses((r + 1) // 2, r // 2) for r in values)
    return tuple(Guesses(r, 0) for r in values)


def steinke_p_value(m: int, guesses: int, correct: int, epsilon: float, delta: float) -> float:
    """(1) of the module docstring: the p-value of ``correct`` of ``guesses`` under (ε, δ)-DP
    per canary, m canaries."""
    m, r, v = _check_counts(m, guesses, correct)
    q = float(special.expit(epsilon))
    beta = float(stats.binom.sf(v - 1, r, q))
    if delta <= 0.0 or v == 0:
        return min(beta, 1.0)
    i = np.arange(1, v + 1)
    alpha = float(np.max((stats.binom.sf(v - i - 1, r, q) - beta) / i, initial=0.0))
    return min(beta + alpha * 2.0 * m * delta, 1.0)


def steinke_epsilon(m: int, guesses: int, correct: int, *, significance: float,
                    delta: float, tolerance: float = 1e-6) -> float:
    """ε_LB: the largest ε with :func:`steinke_p_value` ≤ ``significance`` (to ``tolerance``,
    on the rejected side), 0 when even ε = 0 is not rejected."""
    if not 0.0 < significance < 1.0:
        raise ValueError(f"significance must lie in (0, 1), got {significance!r}")
    if not 0.0 <= delta < 1.0:
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    _check_counts(m, guesses, correct)

    def rejected(eps: float) -> bool:
        return steinke_p_value(m, guesses, correct, eps, delta) <= significance

    if not rejected(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while rejected(hi):
        lo, hi = hi, 2.0 * hi
        if hi > 1e3:  # pragma: no cover - q^r underflows long before
            return lo
    while hi - lo > tolerance:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if rejected(mid) else (lo, mid)
    return lo


@dataclass(frozen=True)
class GuessResult:
    """One tested guess count: its guesses, correct guesses and bound."""

    guesses: Guesses
    correct: int
    bound: float


def best_guesses(scores, included, grid, bound_of) -> tuple[GuessResult, list[GuessResult]]:
    """Every guess count of ``grid`` scored with ``bound_of(guesses, correct) -> float``
    (which must already test at the Bonferroni share s/len(grid)); the largest bound and all
    of them, in grid order."""
    results = []
    for g in grid:
        v = count_correct(scores, included, g)
        results.append(GuessResult(g, v, float(bound_of(g.total, v))))
    return max(results, key=lambda x: x.bound), results


def perfect_guess_ceiling(guesses: int, significance: float) -> float:
    """ε_LB of :func:`steinke_epsilon` at δ = 0 when all ``guesses`` are correct:
    ln(q/(1 − q)) with q^r = s, i.e. the cap of the module docstring."""
    q = significance ** (1.0 / int(guesses))
    return math.log(q / (1.0 - q)) if q < 1.0 else math.inf


__all__ = ["GuessResult", "Guesses", "best_guesses", "count_correct", "guess_grid",
           "perfect_guess_ceiling", "steinke_epsilon", "steinke_p_value"]
