"""``dpaudit check``'s exact-curve step: the claim against each worst-case pair's exact curve.

Where the mechanism knows its pairs' output laws — a closed form
(:meth:`~dpaudit.mechanisms.base.Mechanism.exact_epsilon`) or a numerical bracket
(:class:`~dpaudit.mechanisms.capabilities.BracketedEpsilon`) — the claim is checked against
them at the δ the black-box step audits (:func:`dpaudit.check.blackbox.audit_delta`), with no
sampling: the audit ``dpaudit run`` runs for a suite row of ``kind = "exact-curve"``
(:mod:`dpaudit.audit.procedures.exact_curve`), through the same seam.  A violation is the
claim below the curve beyond the method's stated numerical error; a mechanism that knows no
curve for its pairs skips the step, saying so.
"""

from __future__ import annotations

from dpaudit.check.blackbox import audit_delta
from dpaudit.check.result import CONSISTENT, ERROR, SKIPPED, VIOLATION, StepResult
from dpaudit.util.numbers import format_number as fmt

#: the error text of a pair the exact-curve check has no curve for
NO_CURVE = "no exact or bracketed curve"


def step_exact_curve(mech, claim) -> StepResult:
    """The step's result (see the module docstring)."""
    from dpaudit.audit.single import run_single, single_audit_suite
    from dpaudit.backends.local import LocalBackend
    from dpaudit.suite.targets import MECHANISM, Target

    if claim is None:
        return StepResult("exact", SKIPPED, "no usable claim (step 1 failed)")
    if not list(mech.worst_case_pairs()):
        return StepResult("exact", SKIPPED, "worst_case_pairs() is empty")
    delta = audit_delta(claim)
    target = Target(str(mech.name), MECHANISM, "", None, mech)
    suite = single_audit_suite(target, delta=delta, samples=1000, confidence=0.95, seed=0,
                               kind="exact-curve", search=False, caller="dpaudit check")
    (point,), _ = run_single(suite, LocalBackend(1))
    errors = [t for t in point.tests if t.error is not None]
    if errors and all(NO_CURVE in t.error for t in errors) and len(errors) == len(point.tests):
        return StepResult("exact", SKIPPED, "the mechanism knows no exact curve of its "
                          "worst-case pairs (exact_epsilon or BracketedEpsilon)")
    if errors:
        return StepResult("exact", ERROR, "; ".join(f"{t.pair_name}: {t.error}"
                                                     for t in errors))
    rows = [(t.pair_name, c) for t in point.tests for c in t.certificates]
    lines = [f"{name}: {c.evidence[0].describe()}" for name, c in rows]
    worst_name, worst = max(rows, key=lambda row: row[1].bound)
    data = {"delta": delta, "claimed_epsilon": worst.claimed_epsilon,
            "pairs": [{"pair": name, "lower": c.evidence[0].interval()[0],
                       "upper": c.evidence[0].interval()[1], "method":
                       c.evidence[0].bracket.method} for name, c in rows]}
    relation = ">" if point.verdict == VIOLATION else "≤"
    head = (f"exact ε({delta:g}) of pair {worst_name!r} = "
            f"{fmt(worst.evidence[0].bracket.lower)} {relation} claimed "
            f"{fmt(worst.claimed_epsilon)} (no sampling)")
    if point.verdict == VIOLATION:
        return StepResult("exact", VIOLATION, head + ": the claim is false", lines, data)
    return StepResult("exact", CONSISTENT, head, lines, data)


__all__ = ["NO_CURVE", "step_exact_curve"]
