"""Run a canary audit: draw each run's bits, run, score, certify at the planned looks, stop.

:func:`run_canary_audit` is the whole procedure for any source of scores — a simulated
mechanism (:mod:`.simulated`), a real PyTorch/Opacus training (:mod:`.torch_gradient`,
:mod:`.torch_input`) — given as ``run(index, bits) -> scores``: the training of run ``index``
with canary i included iff ``bits[i]``, returning one score per canary (higher = "looks
included").  The procedure:

1. the claim's ε at δ and its family of curves (:func:`dpaudit.claims.tradeoff.claim_family`),
   whose member at the claimed ε is the claim's own curve;
2. for run r = 0, 1, …: bits from the plan's seed (:func:`.design.inclusion_bits`), scores from
   ``run``, checked (one per canary, finite);
3. at each planned look (after the runs of ``plan.looks``): every statistic on the canaries of
   all runs so far (a pooled one-run experiment: independent runs with independent bits are
   one run of the product mechanism, which has each canary's privacy), at its share
   :meth:`.design.CanaryPlan.member_significance`, every guess count of the grid at its share
   of that (:func:`certify_look`).  Each statistic reads three things off the same tests
   (:mod:`.evidence`): the ε(δ) bound valid for any mechanism (the (ε, δ) curves), whether
   the claim's own curve is rejected (the verdict), and its figure in the claim's family;
4. stop at the first look that certifies a violation (a statistic rejects the claim's curve,
   or its bound exceeds the claimed ε), else after the last.

Every (statistic, look) member's bound holds with probability ≥ 1 − its share; the shares add
up to the test's α over all members that *could* run, so the largest bound over the looks that
did run holds with probability ≥ 1 − α whatever the stopping time (Bonferroni over the
planned looks: anytime-valid by construction, as :mod:`dpaudit.stats.sequential`'s α-spending).

Bad input never escapes as a traceback: a ``run`` that raises, returns the wrong shape or
non-finite scores, or an accountant that fails, raises :class:`CanaryError` with one line
naming the run and the problem; the caller records it as the audit's error and goes on.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np

from dpaudit.claims.base import Claim
from dpaudit.claims.tradeoff import ApproxDPFamily, claim_family
from dpaudit.mechanisms.canaries.design import CanaryPlan, Statistic, inclusion_bits
from dpaudit.mechanisms.canaries.evidence import (CanaryEvidence, FamilyFigure, ScoreHistogram,
                                                  StatisticResult)
from dpaudit.stats.one_run import (Guesses, best_guesses, count_correct, steinke_epsilon,
                                   steinke_p_value)
from dpaudit.stats.one_run_fdp import fdp_bound, fdp_rejects
from dpaudit.stats.threshold_tradeoff import approx_dp_epsilon, rule_bound, select_and_certify


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


def _one_run_eps_delta(plan, claimed, scores, included, grid, share, m, runs):
    """Steinke et al.'s test at every guess count: its ε_LB, and whether the claimed
    (ε, δ) point itself is rejected."""
    best, results = best_guesses(scores, included, grid, lambda r, v: steinke_epsilon(
        m, r, v, significance=share, delta=plan.delta))
    rejecting = next((x for x in results if steinke_p_value(
        m, x.guesses.total, x.correct, claimed, plan.delta) <= share), None)
    rejection = (None if rejecting is None else
                 f"{rejecting.correct} of {rejecting.guesses.total} guesses correct is too "
                 f"many for (ε = {claimed:.4g}, δ = {plan.delta:g})-DP (p ≤ {share:.3g})")
    return StatisticResult(Statistic.EPSILON_DELTA.value, best.bound, m, runs,
                           (best.guesses.k_plus, best.guesses.k_minus), best.correct, share,
                           rejection), best.guesses


def _one_run_fdp(plan, family, claimed, scores, included, grid, share, m, runs):
    """Mahloujifar et al.'s test at every guess count against the (ε, δ) curves (the
    bound), the claim's curve (the verdict) and the claim's family (the figure)."""
    sound = ApproxDPFamily(plan.delta)
    claim_curve = family.curve(claimed)
    best_sound, best_family, rejecting, counted = 0.0, 0.0, None, []
    for g in grid:
        v = count_correct(scores, included, g)
        b = fdp_bound(sound, m, g.total, v, significance=share, at_least=best_sound)
        counted.append((g, v, b))
        best_sound = max(best_sound, b)
        best_family = max(best_family, fdp_bound(family, m, g.total, v, significance=share,
                                                 at_least=best_family))
        if rejecting is None and fdp_rejects(claim_curve, m, g.total, v, share):
            rejecting = (g, v)
    # the running "at least" gives later counts the earlier best: keep the first count that
    # reached the best bound (the one that certified it)
    g, v, b = next(x for x in counted if x[2] == best_sound)
    rejection = (None if rejecting is None else
                 f"{rejecting[1]} of {rejecting[0].total} guesses correct is too many for "
                 f"the claim's trade-off curve (level {share:.3g})")
    return StatisticResult(Statistic.FDP.value, b, m, runs, (g.k_plus, g.k_minus), v, share,
                           rejection, FamilyFigure.of(family, best_family)), g


def _threshold(plan, family, claimed, scores, included, runs):
    """Nasr et al.'s thresholds, chosen on a held-out half for two objectives — the sound
    (ε, δ) bound and the claim's family — and certified jointly: the largest (ε, δ)
    conversion, whether a certified point lies below the claim's curve, the family's t."""
    member, m = plan.member_significance(), scores.size
    rng = np.random.default_rng(np.random.SeedSequence(int(plan.seed), spawn_key=(0x7E5, runs)))
    objectives = {"eps-delta": ApproxDPFamily(plan.delta), family.name: family}
    rules = select_and_certify(objectives, scores[included], scores[~included],
                               significance=member, delta=plan.delta, rng=rng)
    share = member / (4.0 * len(objectives))
    best = max(rules, key=lambda x: approx_dp_epsilon(x.fpr_upper, x.fnr_upper, plan.delta))
    claim_curve = family.curve(claimed)
    below = [x for x in rules if x.fnr_upper < claim_curve(x.fpr_upper)]
    rejection = None
    if below:
        x = max(below, key=lambda x: claim_curve(x.fpr_upper) - x.fnr_upper)
        rejection = (f"the certified point of rule {x.rule.describe()} (FPR ≤ "
                     f"{x.fpr_upper:.3g}, FNR ≤ {x.fnr_upper:.3g}) lies below the claim's "
                     f"trade-off curve ({claim_curve(x.fpr_upper):.3g} there)")
    figure = FamilyFigure.of(family, max(rule_bound(family, x.fpr_upper, x.fnr_upper)
                                         for x in rules))
    return StatisticResult(Statistic.THRESHOLD.value,
                           float(approx_dp_epsilon(best.fpr_upper, best.fnr_upper, plan.delta)),
                           m, runs, None, None, share, rejection, figure, best.to_json())


def certify_look(plan: CanaryPlan, family, claimed: float, scores: np.ndarray,
                 included: np.ndarray, runs: int) -> tuple[list[StatisticResult], Guesses]:
    """Every statistic of ``plan`` on the pooled ``scores``/``included`` (module docstring,
    step 3); also the best one-run guesses (for the figure)."""
    m = scores.size
    grid = plan.grid_for(m)
    share = plan.member_significance() / len(grid)
    out, guesses = [], {}
    for statistic in plan.statistics:
        if statistic is Statistic.EPSILON_DELTA:
            result, guesses[statistic] = _one_run_eps_delta(plan, claimed, scores, included,
                                                            grid, share, m, runs)
        elif statistic is Statistic.FDP:
            result, guesses[statistic] = _one_run_fdp(plan, family, claimed, scores,
                                                      included, grid, share, m, runs)
        else:
            result = _threshold(plan, family, claimed, scores, included, runs)
        out.append(result)
    best_guess = guesses.get(Statistic.FDP, guesses.get(Statistic.EPSILON_DELTA))
    return out, best_guess


def look_violates(results, claimed: float) -> bool:
    """Whether a look's results certify a violation (module docstring, step 4)."""
    return any(r.rejection is not None or r.bound > claimed for r in results)


def merged(results) -> list[StatisticResult]:
    """One result per statistic over the looks run: the look with its largest bound, the
    first rejection of the claim, the largest family figure (all members of the plan's
    family of tests, valid jointly)."""
    out: dict[str, StatisticResult] = {}
    for x in results:
        prev = out.get(x.statistic)
        if prev is None:
            out[x.statistic] = x
            continue
        top = x if x.bound > prev.bound else prev
        figures = [f for f in (prev.family, x.family) if f is not None]
        out[x.statistic] = replace(
            top, rejection=prev.rejection or x.rejection,
            family=max(figures, key=lambda f: f.epsilon) if figures else None)
    return list(out.values())


def delta_notes(plan: CanaryPlan) -> tuple[str, ...]:
    """A note when the plan's δ puts every one-run ε(δ) bound at 0 (a theorem, not a
    weakness of the tests): in one run, a mechanism that reveals every canary with
    probability δ and nothing otherwise is (0, δ)-DP per canary, and makes every guess right
    with probability δ; so no test at a level below δ can reject (0, δ)-DP from one run.
    The verdict (the claim's whole curve, whose points at smaller δ it does test) is not
    affected."""
    one_run = [s for s in plan.statistics if s is not Statistic.THRESHOLD]
    share = plan.member_significance() / len(plan.grid_for(plan.canaries))
    if plan.runs > 1 or not one_run or plan.delta < share:
        return ()
    return (f"δ = {plan.delta:g} is not below the one-run tests' level {share:.3g}: a "
            f"mechanism revealing every canary with probability δ is (0, δ)-DP, so no one-run "
            f"test at that level can certify ε(δ) > 0 for every mechanism (choose a smaller "
            f"δ, more runs or a larger confidence share)",)


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
        if look_violates(look, claimed):
            stopped = r + 1
            break
    histogram = ScoreHistogram.of(pooled, included, guess)
    return CanaryEvidence(plan.delta, claimed, tuple(merged(results)), plan.to_json(),
                          stopped, histogram, claim.describe(), delta_notes(plan), family)


__all__ = ["CanaryError", "certify_look", "checked_scores", "delta_notes", "look_violates",
           "merged",
           "run_canary_audit"]
