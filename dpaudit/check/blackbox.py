"""Step 4 of ``dpaudit check``: the black-box audit, and what it could have detected.

:func:`step_black_box` runs the audit every route runs (:mod:`dpaudit.audit.single`, as
``dpaudit run`` runs a suite of one ``[[audit]]``): the mechanism's ``worst_case_pairs()``,
the ``keep`` best pairs of a search of its dataset space (:mod:`dpaudit.audit.pair_search`,
screened on separate samples), the white-box test where the mechanism has a log-density, and
— for code that is the implementation — the float64 representation of its outputs
(:mod:`dpaudit.spec.coverage`), at δ = :func:`audit_delta`, Bonferroni over every test at
``confidence``.  A violation if some certified bound exceeds the claimed ε(δ); a violation
certified only by an event on the representation is reported as a floating-point one.

**Power.**  Each test's certificate gets :func:`dpaudit.stats.power.detectable_epsilon`: the
smallest true ε its test certifies with probability ≥ 1/2.  The step reports the smallest over
the tests (the step detects a leak when any test does) and WARNs when it exceeds
:data:`POWER_WARNING_RATIO` × the claim: a leak 50 % above the claim would then pass at least
half the time, so ``consistent`` says little.  The warning gives the samples per side that
would bring the detectable ε down to :data:`POWER_TARGET_RATIO` × the claim on the same event
(:func:`dpaudit.stats.power.samples_to_detect`, plus the 20 % selection split).
"""

from __future__ import annotations

import math

from dpaudit.spec.coverage import FLOAT_FIXES
from dpaudit.check.greybox import format_pair
from dpaudit.check.result import CONSISTENT, ERROR, SKIPPED, VIOLATION, StepResult
from dpaudit.util.numbers import format_number as fmt
from dpaudit.results.power_text import stop_text, underpowered_text
from dpaudit.distinguish.result import EpsilonLowerBound
from dpaudit.stats.power import samples_to_detect

#: WARN when the detectable ε exceeds this multiple of the claim
POWER_WARNING_RATIO = 1.5
#: the warning says how many samples would reach this multiple of the claim
POWER_TARGET_RATIO = 1.1
#: the estimator's default selection share (the rest certifies), and its cap per side
SELECTION_FRACTION, MAX_SELECTION = 0.2, 1_000_000


def audit_delta(claim) -> float:
    """The δ every route audits a claim at when ``delta`` is left out
    (:func:`dpaudit.claims.audit_delta.claim_audit_delta`): 0 when the claim is finite there,
    else its own smallest stated δ, else 1e-6."""
    from dpaudit.claims.audit_delta import claim_audit_delta

    return claim_audit_delta(claim)


def total_samples(certification: int) -> int:
    """Samples per side whose certification split is ``certification`` (the estimator keeps
    20 % for selection, at most 10⁶)."""
    total = math.ceil(certification / (1.0 - SELECTION_FRACTION))
    return total if total - certification <= MAX_SELECTION else certification + MAX_SELECTION


def power_warning(evidence, claimed: float, detectable: float) -> str | None:
    """The WARN text when ``detectable`` > POWER_WARNING_RATIO × ``claimed`` (None otherwise);
    ``evidence`` is the test's strongest evidence: for a two-sample certificate
    (:class:`~dpaudit.distinguish.result.EpsilonLowerBound`) the text says how many samples
    would reach the power target on the same event."""
    if not (math.isfinite(claimed) and claimed > 0) or detectable <= POWER_WARNING_RATIO * claimed:
        return None
    target = POWER_TARGET_RATIO * claimed
    reach = ""
    if isinstance(evidence, EpsilonLowerBound):
        n_den = int(evidence.n_denominator)
        rate = max(int(evidence.k_denominator), 1) / max(n_den, 1)
        needed = samples_to_detect(target, claimed, significance=evidence.per_bound_significance,
                                   delta=evidence.delta, rate=rate, start=n_den)
        reach = ("; " + (f"about {total_samples(needed):,} samples per side would bring it to "
                         f"{fmt(target)} (= {POWER_TARGET_RATIO:g} × claim) on the same event"
                         if needed else
                         f"no sample size within reach brings it to {fmt(target)}"))
    return (f"low power: this test could only detect ε ≥ {fmt(detectable)} "
            f"(> {POWER_WARNING_RATIO:g} × the claimed {fmt(claimed)}), so a leak up to that "
            f"size passes at least half the time{reach}")


def step_black_box(mech, claim, samples: int, seed: int, confidence: float,
                   representation: bool | None = None, search=True,
                   stopping=None, floating_point: str = "fail",
                   replay: str = "fail") -> StepResult:
    """Step 6 (see the module docstring).  Its suite is the audit every route plans, replay
    included (``replay``); the replay's task is run by step 2 (the same
    :func:`dpaudit.replay.run.audit_replay`, the same gate), so this step runs the rest."""
    import dataclasses

    from dpaudit.audit.single import run_single
    from dpaudit.backends.local import LocalBackend

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
    delta = audit_delta(claim)  # what the plan resolves the left-out delta to
    claimed = float(claim.epsilon(delta))
    suite = black_box_suite(mech, samples, seed, confidence, representation=representation,
                            search=search, stopping=stopping, floating_point=floating_point,
                            replay=replay)
    suite = dataclasses.replace(suite, audits=tuple(dataclasses.replace(a, replay="off")
                                                    for a in suite.audits))  # step 2 replayed
    points, info = run_single(suite, LocalBackend(1))
    return judge_black_box(points[0], info, claimed, delta, confidence)


def black_box_suite(mech, samples: int, seed: int, confidence: float,
                    representation: bool | None = None, search=True, stopping=None,
                    floating_point: str = "fail", replay: str = "fail"):
    """The suite of one audit the black-box step runs: the audit a suite row, the API and
    the fixture state with the same keys — ``delta`` left out (the claim's δ, in every
    route), the same search, representation, stopping rule, float gate and replay gate."""
    from dpaudit.audit.single import single_audit_suite
    from dpaudit.suite.targets import MECHANISM, Target

    target = Target(str(mech.name), MECHANISM, "", None, mech)
    rule = {} if stopping is None else dict(sequential=stopping.sequential,
                                            power=stopping.power,
                                            require_power=stopping.require_power)
    return single_audit_suite(target, samples=samples, confidence=confidence, seed=seed,
                              search=search, representation=representation,
                              floating_point=floating_point, replay=replay,
                              caller="dpaudit check", **rule)


def judge_black_box(point, info, claimed: float, delta: float, confidence: float
                    ) -> StepResult:
    """The black-box step's result from the judged audit point of :func:`step_black_box`."""
    rows, failed = [], []
    for test in point.tests:
        c = test.certificates[0]
        if test.error is not None:
            failed.append(f"{test.pair_name or 'pair'}: {test.error}")
            continue
        strongest = max(c.evidence, key=lambda e: e.bound)
        rows.append({"pair": test.pair_name, "d0": None if test.pair is None else test.pair.d0,
                     "d1": None if test.pair is None else test.pair.d1,
                     "epsilon_lower_bound": c.bound,
                     "black_box_epsilon_lower_bound": c.epsilon_lower_bound,
                     "white_box_epsilon_lower_bound": c.white_box_epsilon_lower_bound,
                     "detectable_epsilon": c.detectable_epsilon,
                     "evidence": _evidence_text(c.black_box),
                     "floating_point": c.floating_point,
                     "value_epsilon_lower_bound": c.value_epsilon_lower_bound,
                     "floating_point_finding": c.floating_point_finding,
                     "search": None if test.search is None else test.search.to_json(),
                     "certificates": [e.to_json() for e in c.evidence],
                     "sequential": (None if test.sequential is None
                                    else test.sequential.to_dict()),
                     "underpowered": c.underpowered, "_strongest": strongest,
                     "_sequential": test.sequential})
    warnings = sorted({w for t in point.tests for w in t.warnings})
    if failed or not rows:
        return StepResult("black-box", ERROR, "; ".join(failed) or "no test ran",
                          data={"error": "; ".join(failed)}, warnings=warnings)
    # one verdict per kind of leak: a value-level violation is the headline whenever there is
    # one (never hidden behind a larger float64 finding); a float finding the audit only warns
    # about leaves the value-level bound as the headline
    value_violated = point.value_verdict == "violation"
    float_found = point.floating_point_finding
    violated = point.gating_verdict() == "violation"
    best = max(rows, key=lambda r: r["epsilon_lower_bound"])
    if value_violated or (float_found and not violated):
        best = max(rows, key=lambda r: (r["value_epsilon_lower_bound"]
                                        if r["value_epsilon_lower_bound"] is not None
                                        else r["epsilon_lower_bound"]))
    by_value = float_found and (value_violated or not violated)  # the value-level headline
    shown = best["value_epsilon_lower_bound"] if by_value else best["epsilon_lower_bound"]
    powered = [r for r in rows if r["detectable_epsilon"] is not None]
    detectable = min((r["detectable_epsilon"] for r in powered), default=math.inf)
    tests = len(point.tests)
    what = "value-level ε_LB" if by_value else "certified ε_LB"
    head = (f"{what} = {fmt(shown)} {'>' if violated else '≤'} "
            f"claimed ε({delta:g}) = {fmt(claimed)} (pair {best['pair']!r}; {tests} test(s), "
            f"budget {point.tests[0].samples} samples per side, confidence {confidence:g} over "
            f"them)")
    lines = [_row_line(r) for r in rows]
    lines.append(search_line(point))
    data = {"search": _search_data(point), "delta": delta, "claimed_epsilon": claimed,
            "epsilon_lower_bound": best["epsilon_lower_bound"],
            "detectable_epsilon": detectable, "pair": best["pair"], "confidence": confidence,
            "per_pair_confidence": point.per_certificate_confidence,
            "samples": point.tests[0].samples,
            "pairs": [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows],
            "coverage": None if point.coverage is None else point.coverage.to_json(),
            "family_size": info.family_size,
            "floating_point": violated and best["floating_point"],
            "value_verdict": str(point.value_verdict), "floating_point_finding": float_found,
            "floating_point_gate": point.floating_point_gate}
    if by_value:
        fp = next(r for r in rows if r["floating_point"])
        lines.append(f"floating-point finding{' (a warning)' if not violated else ''}: pair "
                     f"{fp['pair']!r}, ε_LB {fmt(fp['epsilon_lower_bound'])} on the float64 "
                     f"outputs, value-level {fmt(fp['value_epsilon_lower_bound'])}; "
                     f"{fp['floating_point_finding']}")
        lines.append(f"fix: {FLOAT_FIXES}")
    if violated:
        if best["floating_point"] and not value_violated:
            head += (f": the float64 outputs leak (value-level ε_LB "
                     f"{fmt(best['value_epsilon_lower_bound'])}); "
                     f"{best['floating_point_finding']}")
            lines.append(f"fix: {FLOAT_FIXES}")
        else:
            head += ": the mechanism leaks more than claimed"
        return StepResult("black-box", VIOLATION, head, lines, data, warnings=warnings)
    # "could detect" is one number per certificate: the headline names whose it is
    strongest_test = min(powered, key=lambda r: r["detectable_epsilon"]) if powered else None
    head += (f"; could detect ε ≥ {fmt(detectable)}"
             + ("" if strongest_test is None or len(rows) < 2
                else f" (pair {strongest_test['pair']!r}, its most powerful test)"))
    weak = [r for r in rows if r["underpowered"]]
    if weak:
        power = None if point.power is None else point.power.power
        weakest = max(weak, key=lambda r: (r["detectable_epsilon"]
                                           if r["detectable_epsilon"] is not None else math.inf))
        head += (f" — pair {weakest['pair']!r}: "
                 f"{underpowered_text(claimed, weakest['detectable_epsilon'], power)}")
        data["underpowered"] = True
        if point.power is not None and point.power.require_power:
            return StepResult("black-box", VIOLATION, head, lines, data, warnings=warnings)
    if powered:
        weakest = min(powered, key=lambda r: r["detectable_epsilon"])
        text = power_warning(weakest["_strongest"], claimed, detectable)
        if text:
            warnings.append(text)
    return StepResult("black-box", CONSISTENT, head, lines, data, warnings=warnings)


#: the longest event text a line of the step shows (--json has it whole)
EVENT_WIDTH = 100


def _evidence_text(evidence) -> str | None:
    """``output ≤ 0.06 (d0 counts 26393/51200 vs 16062/51200)`` for the pair audit's
    two-sample certificate (this step's evidence), the evidence's own description for any
    other."""
    if evidence is None:
        return None
    if not isinstance(evidence, EpsilonLowerBound):
        return evidence.describe()
    event = evidence.event
    if len(event) > EVENT_WIDTH:  # a union of many float64 cells: --json has it whole
        event = event.split("  (i.e.", 1)[0][:EVENT_WIDTH - 1].rstrip() + " …"
    return (f"{event} ({evidence.numerator} counts {evidence.k_numerator}/"
            f"{evidence.n_numerator} vs {evidence.k_denominator}/{evidence.n_denominator})")


def _row_line(r: dict) -> str:
    source = (f" [search rank {r['search']['rank']}, {r['search']['source']}: "
              f"{format_pair(r['d0'], r['d1'])}]" if r["search"] else "")
    white = (f", white-box {fmt(r['white_box_epsilon_lower_bound'])}"
             if r["white_box_epsilon_lower_bound"] is not None else "")
    evidence = r["evidence"] or "?"
    return (f"{r['pair']}{source}: ε_LB = {fmt(r['epsilon_lower_bound'])} via {evidence}"
            f"{white}; could detect ε ≥ {fmt(r['detectable_epsilon'])}"
            + ("" if r["_sequential"] is None else f"; {stop_text(r['_sequential'])}")
            + (" — UNDERPOWERED" if r["underpowered"] else ""))


def search_line(point) -> str:
    """One line on the point's pair search: what was screened and which pairs it kept, or
    why only the named pairs were audited."""
    if point.coverage is not None and point.coverage.note:
        return point.coverage.note
    searched = [t for t in point.tests if t.search is not None]
    if not searched:
        return "pair search: none"
    first = searched[0].search
    kept = ", ".join(f"{t.pair_name} ({t.search.source}, score {fmt(t.search.score)})"
                     for t in searched)
    return (f"pair search: {first.candidates} candidate pair(s) from the dataset space "
            f"({', '.join(first.sources)}) screened on {first.screen_samples} samples "
            f"per side (plug-in score; named pairs {fmt(first.named_pairs_score)}); "
            f"certified on fresh samples: {kept}")


def _search_data(point) -> dict | None:
    searched = [t for t in point.tests if t.search is not None]
    if not searched:
        return None
    first = searched[0].search
    return {"screen_samples": first.screen_samples, "candidates": first.candidates,
            "rejected": first.rejected, "worst_case_score": first.named_pairs_score,
            "sources": list(first.sources),
            "kept": [{"pair": t.pair_name, "source": t.search.source,
                      "score": t.search.score, "d0": None if t.pair is None else t.pair.d0,
                      "d1": None if t.pair is None else t.pair.d1} for t in searched]}


__all__ = ["POWER_TARGET_RATIO", "POWER_WARNING_RATIO", "audit_delta",
           "judge_black_box", "power_warning", "search_line", "step_black_box",
           "total_samples"]
