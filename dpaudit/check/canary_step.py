"""``dpaudit check``'s canary step: the claim against one run of m canaries.

Where the mechanism has canary runs (:class:`~dpaudit.mechanisms.canaries.source.CanaryRuns`:
the ``dpsgd`` family's one-run mode), m = :data:`CHECK_CANARIES` canaries go into one run, each
included by a fair coin, and the one-run f-DP and (ε, δ) tests certify a lower bound on ε at the
δ the black-box step audits (:func:`dpaudit.check.blackbox.audit_delta`; valid for any
mechanism) and test the claim's whole trade-off curve (the verdict: a violation whose bound is
not above the claim says why) — the audit ``dpaudit run`` runs for a suite row of
``kind = "canary"``
(:mod:`dpaudit.audit.procedures.canary`), through the same seam, at confidence 0.95.  A
mechanism without canary runs skips the step, saying so.  One run is cheap and has a ceiling
(about ε = 2 at m = 1000): a consistent step says little beside the black-box step, and its
line gives the detectable ε.
"""

from __future__ import annotations

import math

from dpaudit.check.blackbox import audit_delta
from dpaudit.check.result import CONSISTENT, ERROR, SKIPPED, VIOLATION, StepResult
from dpaudit.util.numbers import format_number as fmt

#: canaries in the step's one run
CHECK_CANARIES = 1000


def step_canary(mech, claim, seed: int) -> StepResult:
    """The step's result (see the module docstring)."""
    from dpaudit.audit.single import run_single, single_audit_suite
    from dpaudit.backends.local import LocalBackend
    from dpaudit.mechanisms.canaries.source import CanaryRuns
    from dpaudit.suite.targets import MECHANISM, Target

    if claim is None:
        return StepResult("canary", SKIPPED, "no usable claim (step 1 failed)")
    if not isinstance(mech, CanaryRuns):
        return StepResult("canary", SKIPPED, "the mechanism has no canary runs "
                          "(dpaudit.mechanisms.canaries.source.CanaryRuns)")
    delta = audit_delta(claim)
    target = Target(str(mech.name), MECHANISM, "", None, mech)
    suite = single_audit_suite(target, delta=delta, samples=1000, confidence=0.95, seed=seed,
                               kind="canary", options={"canaries": CHECK_CANARIES},
                               search=False, caller="dpaudit check")
    (point,), _ = run_single(suite, LocalBackend(1))
    (test,) = point.tests
    (certificate,) = test.certificates
    if test.error is not None:
        return StepResult("canary", ERROR, test.error, data={"error": test.error})
    (evidence,) = certificate.evidence
    lines = [r.describe() for r in evidence.results]
    data = {"delta": delta, "claimed_epsilon": certificate.claimed_epsilon,
            "evidence": evidence.to_json()}
    above = certificate.bound > certificate.claimed_epsilon
    head = (f"certified ε_LB = {fmt(certificate.bound)} {'>' if above else '≤'} claimed "
            f"ε({delta:g}) = {fmt(certificate.claimed_epsilon)} from one run of "
            f"{CHECK_CANARIES} canaries")
    if point.verdict == VIOLATION:
        why = ("the mechanism leaks more than claimed" if above else
               f"the claim is rejected: {certificate.rejection_reason}")
        return StepResult("canary", VIOLATION, f"{head}: {why}", lines, data)
    detectable = certificate.detectable_epsilon
    reach = ("; no true ε this run could certify above the claim" if detectable is None
             or math.isinf(detectable) else f"; could detect ε ≥ {fmt(detectable)}")
    return StepResult("canary", CONSISTENT, head + reach, lines, data)


__all__ = ["CHECK_CANARIES", "step_canary"]
