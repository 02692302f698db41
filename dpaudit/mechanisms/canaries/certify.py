"""Run a canary audit: draw each run's bits, run, score, certify at the planned looks, stop.

:func:`run_canary_audit` is the whole procedure for any source of scores — a simulated
mechanism (:mod:`.simulated`), a real PyTorch/Opacus training (:mod:`.torch_gradient`,
:mod:`.torch_input`) — given as ``run(index, bits) -> scores``: the training of run ``index``
with canary i included iff ``bits[i]``, returning one score per canary (higher = "looks
included").  The procedure:

1. the claim's ε at δ and its family of curves (:func:`dpaudit.claims.tradeoff.claim_family`);
2. for run r = 0, 1, …: bits from the plan's seed (:func:`.design.inclusion_bits`), scores from
   ``run``, checked (one per canary, finite);
3. at each planned look (after the runs of ``plan.looks``): every statistic on the canaries of
   all runs so far (a pooled one-run experiment: independent runs with independent bits are
   one run of the product mechanism, which has each canary's privacy), at its share
   :meth:`.design.CanaryPlan.member_significance`, every guess count of the grid at its share
   of that;
4. stop at the first look that certifies a violation (any statistic's bound > the claimed ε),
   else after the last.

Every (statistic, look) member's bound holds with probability ≥ 1 − its share; the shares add
up to the test's α over all members that *could* run, so the largest bound over the looks that
did run holds with probability ≥ 1 − α whatever the stopping time (Bonferroni over the
planned looks: anytime-valid by construction, as :mod:`dpaudit.stats.sequential`'s α-spending).

Bad input never escapes as a traceback: a ``run`` that raises, returns the wrong shape or
non-finite scores, or an accountant that fails, raises :class:`CanaryError` with one line
naming the run and the problem; the caller records it as the audit's error and goes on.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from dpaudit.claims.base import Claim
from dpaudit.claims.tradeoff import claim_family
from dpaudit.mechanisms.canaries.design import CanaryPlan, Statistic, inclusion_bits
from dpaudit.mechanisms.canaries.evidence import CanaryEvidence, ScoreHistogram, StatisticResult
from dpaudit.stats.one_run import Guesses, best_guesses, steinke_epsilon
from dpaudit.stats.one_run_fdp import fdp_bound
from dpaudit.stats.threshold_tradeoff import select_and_certify


class CanaryError(RuntimeError):
    """A canary audit could not run: one line saying which part failed and why."""


def checked_scores(scores, m: int, run: int) -> np.ndarray:
    """``scores`` as m finite floats, or :class:`CanaryError`."""
    try:
        arr = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise CanaryError(f"run {run}: the training returned {type(scores).__name__}, not "
                          f"one score per canary") from None
    if arr.shape != (m,):
        raise CanaryError(f"run {run}: the training returned scores of shape {arr.shape}, "
                          f"expected ({m},): one score per canary")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise CanaryError(f"run {run}: {bad.size} canary scores are not finite (first: "
                          f"canary {bad[0]}, {arr[bad[0]]!r})")
    return arr


def certify_look(plan: CanaryPlan, family, claimed: float, scores: np.ndarray,
                 included: np.ndarray, runs: int) -> tuple[list[StatisticResult], Guesses]:
    """Every statistic of ``plan`` on the pooled ``scores``/``included`` (module docstring,
    step 3); also the best one-run guesses (for the figure)."""
    m = scores.size
    member = plan.member_significance()
    grid = plan.grid_for(m)
    share = member / len(grid)
    out, best_guess = [], None
    for statistic in plan.statistics:
        if statistic is Statistic.EPSILON_DELTA:
            best, _ = best_guesses(scores, included, grid, lambda r, v: steinke_epsilon(
                m, r, v, significance=share, delta=plan.delta))
            out.append(StatisticResult(statistic.value, best.bound, m, runs,
                                       (best.guesses.k_plus, best.guesses.k_minus),
                                       best.correct, share, "eps-delta"))
        elif statistic is Statistic.FDP:
            found = {"bound": 0.0}

            def bound_of(r, v):
                b = fdp_bound(family, m, r, v, significance=share, at_least=found["bound"])
                found["bound"] = max(found["bound"], b)
                return b

            best, results = best_guesses(scores, included, grid, bound_of)
            # the running "at least" gives later counts the earlier best: keep the first
            # count that reached the best bound (the one that certified it)
            first = next(r for r in results if r.bound == best.bound)
            out.append(StatisticResult(statistic.value, first.bound, m, runs,
                                       (first.guesses.k_plus, first.guesses.k_minus),
                                       first.correct, share, family.name))
            best_guess = first.guesses
        else:
            rng = np.random.default_rng(np.random.SeedSequence(int(plan.seed),
                                                               spawn_key=(0x7E5, runs)))
            best, _ = select_and_certify(family, scores[included], scores[~included],
                                         significance=member, rng=rng)
            out.append(StatisticResult(
                statistic.value, best.bound, m, runs, None, None, member / 4.0, family.name,
                {"text": best.rule.describe(), "threshold": best.rule.threshold,
                 "forward": best.rule.forward, "fpr_upper": best.fpr_upper,
                 "fnr_upper": best.fnr_upper}))
        if best_guess is None and out[-1].guesses is not None:
            best_guess = Guesses(*out[-1].guesses)
    return out, best_guess


def run_canary_audit(plan: CanaryPlan, claim: Claim | Callable[[], Claim],
                     run: Callable[[int, np.ndarray], np.ndarray]) -> CanaryEvidence:
    """The canary audit of module docstring.  ``claim`` is a claim, or a function returning
    one that is called after the first run (a user's accountant, which knows the training's
    history only once it ran).

    Raises:
      CanaryError: ``run`` raised or returned bad scores, or the claim could not be read
        (one line each).
    """
    claimed = family = None
    all_scores, all_bits, results = [], [], []
    stopped = plan.looks[-1]
    for r in range(plan.runs):
        bits = inclusion_bits(plan, r)
        try:
            scores = run(r, bits)
        except CanaryError:
            raise
        except Exception as exc:  # noqa: BLE001 - the user's training: one line
            raise CanaryError(f"run {r}: the training raised {type(exc).__name__}: "
                              f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
        all_scores.append(checked_scores(scores, plan.canaries, r))
        all_bits.append(bits)
        if family is None:  # after the first run: an accountant knows its history only now
            claim = claim if isinstance(claim, Claim) else claim()
            try:
                claimed = float(claim.epsilon(plan.delta))
                family = claim_family(claim, plan.delta)
            except ValueError as exc:
                raise CanaryError(f"the claim: {exc}") from None
        if r + 1 not in plan.looks:
            continue
        pooled, included = np.concatenate(all_scores), np.concatenate(all_bits)
        look, guess = certify_look(plan, family, claimed, pooled, included, r + 1)
        results.extend(look)
        if max(x.bound for x in look) > claimed:
            stopped = r + 1
            break
    best_per_statistic = {}
    for x in results:  # the largest bound of each statistic over the looks run
        if x.statistic not in best_per_statistic or x.bound > best_per_statistic[x.statistic].bound:
            best_per_statistic[x.statistic] = x
    histogram = ScoreHistogram.of(pooled, included, guess)
    return CanaryEvidence(plan.delta, claimed, tuple(best_per_statistic.values()),
                          plan.to_json(), stopped, histogram, claim.describe(), (), family)


__all__ = ["CanaryError", "certify_look", "checked_scores", "run_canary_audit"]
