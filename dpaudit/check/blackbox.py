"""Step 4 of ``dpaudit check``: the black-box audit, and what it could have detected.

:func:`step_black_box` certifies :func:`dpaudit.estimate_epsilon_lower_bound` on the pairs to
audit — the mechanism's ``worst_case_pairs()`` and the pairs a screening search keeps
(:mod:`dpaudit.check.pair_search`, on separate screening samples) — at δ = :func:`audit_delta`, each pair at per-pair
confidence 1 − (1 − confidence)/m for the m certified pairs (Bonferroni: all hold jointly at
``confidence``).  A violation if some ε_LB exceeds the claimed ε(δ).

**Power.**  Each pair's certificate gets :func:`dpaudit.stats.power.detectable_epsilon`: the
smallest true ε its test certifies with probability ≥ 1/2.  The step reports the smallest over
the pairs (the step detects a leak when any pair does) and WARNs when it exceeds
:data:`POWER_WARNING_RATIO` × the claim: a leak 50 % above the claim would then pass at least
half the time, so ``consistent`` says little.  The warning gives the samples per side that would bring
the detectable ε down to :data:`POWER_TARGET_RATIO` × the claim on the same event
(:func:`dpaudit.stats.power.samples_to_detect`, plus the 20 % selection split).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.check.pair_search import search_pairs
from dpaudit.check.result import VIOLATION, CONSISTENT, SKIPPED, ERROR, StepResult
from dpaudit.numbers import format_number as fmt
from dpaudit.claims import ApproxDP, iter_claims
from dpaudit.stats.power import certificate_detectable_epsilon, samples_to_detect

#: WARN when the detectable ε exceeds this multiple of the claim
POWER_WARNING_RATIO = 1.5
#: the warning says how many samples would reach this multiple of the claim
POWER_TARGET_RATIO = 1.1
#: the estimator's default selection share (the rest certifies), and its cap per side
SELECTION_FRACTION, MAX_SELECTION = 0.2, 1_000_000


def audit_delta(claim) -> float:
    """δ = 0 when the claim is finite there, else the claim's own δ (the smallest δ stated by
    an approximate-DP part), else 1e-6."""
    if math.isfinite(claim.epsilon(0.0)):
        return 0.0
    stated = [float(c.delta) for c in iter_claims(claim)
              if isinstance(c, ApproxDP) and 0.0 < c.delta < 1.0]
    return min(stated) if stated else 1e-6


def total_samples(certification: int) -> int:
    """Samples per side whose certification split is ``certification`` (the estimator keeps
    20 % for selection, at most 10⁶)."""
    total = math.ceil(certification / (1.0 - SELECTION_FRACTION))
    return total if total - certification <= MAX_SELECTION else certification + MAX_SELECTION


def power_warning(lb, claimed: float, detectable: float) -> str | None:
    """The WARN text when ``detectable`` > POWER_WARNING_RATIO × ``claimed`` (None otherwise)."""
    if not (math.isfinite(claimed) and claimed > 0) or detectable <= POWER_WARNING_RATIO * claimed:
        return None
    target = POWER_TARGET_RATIO * claimed
    rate = max(lb.k_denominator, 1) / lb.n_denominator
    needed = samples_to_detect(target, claimed, significance=lb.per_bound_significance,
                               delta=lb.delta, rate=rate, start=lb.n_denominator)
    reach = (f"about {total_samples(needed):,} samples per side would bring it to "
             f"{fmt(target)} (= {POWER_TARGET_RATIO:g} × claim) on the same event"
             if needed else f"no sample size within reach brings it to {fmt(target)}")
    return (f"low power: this test could only detect ε ≥ {fmt(detectable)} "
            f"(> {POWER_WARNING_RATIO:g} × the claimed {fmt(claimed)}), so a leak up to that "
            f"size passes at least half the time; {reach}")


def certify_pairs(mech, pairs, *, delta: float, samples: int, seed: int, confidence: float
                  ) -> list[tuple]:
    """(pair, EpsilonLowerBound) for every pair, Bonferroni over them at ``confidence``; pair j
    draws from ``SeedSequence([seed, 4, j])``."""
    from dpaudit.distinguish.lower_bound import estimate_epsilon_lower_bound

    per_pair = 1.0 - (1.0 - confidence) / len(pairs)
    sampler = mech.sampler()
    out = []
    for j, p in enumerate(pairs):
        state = int(np.random.SeedSequence([int(seed), 4, j]).generate_state(1)[0])
        out.append((p, estimate_epsilon_lower_bound(sampler, p.d0, p.d1, delta=delta,
                                                    samples=samples, confidence=per_pair,
                                                    seed=state)))
    return out


def step_black_box(mech, claim, samples: int, seed: int, confidence: float,
                   search: dict | None = None) -> StepResult:
    """Step 4 (see the module docstring)."""
    if claim is None:
        return StepResult("black-box", SKIPPED, "no usable claim (step 1 failed)")
    pairs = list(mech.worst_case_pairs())
    if not pairs:
        return StepResult("black-box", SKIPPED, "worst_case_pairs() is empty")
    for p in pairs:
        ok, why = mech.check_pair(p.d0, p.d1)
        if not ok:
            return StepResult("black-box", ERROR, f"worst-case pair {p.name!r} is not "
                              f"neighbouring: {why}")
    delta = audit_delta(claim)
    claimed = float(claim.epsilon(delta))
    search, search_line = None, ""
    try:
        search = search_pairs(mech, pairs, samples=samples, seed=seed)
    except Exception as exc:  # noqa: BLE001 - a mechanism rejecting a searched dataset
        search_line = f"pair search skipped: {type(exc).__name__}: {exc}"
    if search is not None:
        pairs = pairs + [s.pair for s in search.kept]
        kept = ", ".join(f"{s.pair.name} ({s.source}, score {fmt(s.score)})"
                         for s in search.kept) or "none scored above the worst-case pairs"
        search_line = (f"pair search: {len(search.screened)} candidate pair(s) from the "
                       f"dataset space ({', '.join(sorted({s.source for s in search.screened}))}"
                       f") screened on {search.screen_samples} samples per side (plug-in "
                       f"score; worst-case pairs {fmt(search.worst_case_score)}); certified "
                       f"on fresh samples: {kept}") if search.screened else \
            "pair search: no dataset space (SearchableDatasets) to draw candidate pairs from"
    per_pair = 1.0 - (1.0 - confidence) / len(pairs)
    certified = certify_pairs(mech, pairs, delta=delta, samples=samples, seed=seed,
                              confidence=confidence)
    rows = []
    for p, lb in certified:
        detect = certificate_detectable_epsilon(lb.to_dict(), claimed)
        rows.append({"pair": p.name, "d0": p.d0, "d1": p.d1, "epsilon_lower_bound": lb.epsilon,
                     "detectable_epsilon": detect, "event": lb.event, "numerator": lb.numerator,
                     "counts": [lb.k_numerator, lb.n_numerator, lb.k_denominator,
                                lb.n_denominator]})
    p, lb = max(certified, key=lambda pl: pl[1].epsilon)
    j_power = min(range(len(rows)), key=lambda i: rows[i]["detectable_epsilon"])
    detectable = rows[j_power]["detectable_epsilon"]
    violated = lb.epsilon > claimed
    head = (f"certified ε_LB = {fmt(lb.epsilon)} {'>' if violated else '≤'} claimed "
            f"ε({delta:g}) = {fmt(claimed)} (pair {p.name!r}; {len(pairs)} certified pair(s), "
            f"{samples} samples per side, confidence {confidence:g} over the pairs)")
    lines = [f"{r['pair']}: ε_LB = {fmt(r['epsilon_lower_bound'])} via {r['event']} "
             f"({r['numerator']} counts {r['counts'][0]}/{r['counts'][1]} vs "
             f"{r['counts'][2]}/{r['counts'][3]}); could detect ε ≥ "
             f"{fmt(r['detectable_epsilon'])}" for r in rows]
    lines.append(search_line)
    data = {"search": None if search is None else search.to_dict(), "delta": delta, "claimed_epsilon": claimed, "epsilon_lower_bound": lb.epsilon,
            "detectable_epsilon": detectable, "pair": p.name, "confidence": confidence,
            "per_pair_confidence": per_pair, "samples": samples, "pairs": rows}
    warnings = []
    if not violated:
        head += f"; could detect ε ≥ {fmt(detectable)}"
        text = power_warning(certified[j_power][1], claimed, detectable)
        if text:
            warnings.append(text)
    if violated:
        return StepResult("black-box", VIOLATION, head + ": the mechanism leaks more than claimed",
                          lines, data)
    return StepResult("black-box", CONSISTENT, head, lines, data, warnings=warnings)


__all__ = ["POWER_TARGET_RATIO", "POWER_WARNING_RATIO", "audit_delta", "certify_pairs",
           "power_warning", "step_black_box", "total_samples"]
