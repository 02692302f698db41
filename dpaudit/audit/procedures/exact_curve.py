"""The exact-curve check: a claim against the pair's exact or numerically bracketed curve.

``kind = "exact-curve"``.  No sampling: for each named pair (the suite's explicit pairs or the
mechanism's worst-case pairs) and each δ of the audit, the pair's ε(δ) is computed — bracketed
``[lower, upper]`` by a mechanism with the
:class:`~dpaudit.mechanisms.capabilities.BracketedEpsilon` capability (e.g. a privacy-loss
distribution discretised optimistically and pessimistically), else its closed form
:meth:`~dpaudit.mechanisms.base.Mechanism.exact_epsilon` — and at each α its Rényi divergence
(:class:`~dpaudit.mechanisms.capabilities.ExactRenyi`).  The evidence is
:class:`~dpaudit.evidence.exact_curve.ExactCurveEvidence`: the claim is a **violation** when the
pair's curve is above it beyond every numerical error the method states (the bracket's lower
end, less its floating-point tolerance, exceeds the claimed ε).

This is how a *claimed side* is audited — an accountant's ε, a noise calibration, a paper's
closed form — against the truth of the pair that dominates the mechanism: in seconds, for any
ε, with no statistical error.  It spends nothing of the suite's Bonferroni family (0 members:
nothing is estimated), and a pair with no exact curve at some δ makes the test an error naming
what is missing, never a silent pass.  Its power (the smallest true ε it flags) is the claim
plus the bracket's width (:meth:`~dpaudit.evidence.exact_curve.ExactCurveEvidence.detectable_epsilon`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dpaudit.audit.procedures.base import AuditProcedure, PointContext, Task
from dpaudit.audit.procedures.pair import PairAudit, PairSetup
from dpaudit.results.hierarchy import AuditPoint, TestResult
from dpaudit.results.provenance import Coverage, RecordedPair
from dpaudit.util.sizes import DEFAULT_MEMORY_LIMIT
from dpaudit.util.time_limit import DEFAULT_TIME_LIMIT

#: the procedure's kind
EXACT_CURVE = "exact-curve"


def pair_bracket(mechanism, d0, d1, delta: float):
    """The pair's ε(δ) as an :class:`~dpaudit.evidence.exact_curve.EpsilonBracket`: the
    mechanism's own bracket when it has one, else its closed form; None when neither is
    known."""
    from dpaudit.evidence.exact_curve import EpsilonBracket
    from dpaudit.mechanisms.capabilities import BracketedEpsilon

    if isinstance(mechanism, BracketedEpsilon):
        bracket = mechanism.epsilon_bracket(d0, d1, delta)
        if bracket is not None:
            return bracket
    value = mechanism.exact_epsilon(d0, d1, delta)
    if value is None:
        return None
    return EpsilonBracket.closed_form(float(value), "closed form (exact_epsilon)")


@dataclass(frozen=True)
class ExactCurveTask(Task):
    """One named pair of an exact-curve point: its curve at every δ and α of the audit.

    Attributes are those of :class:`~dpaudit.audit.procedures.pair.PairTask` that apply; the
    task draws nothing (``samples`` is 0) and its ``seed`` is recorded only."""

    procedure: ClassVar[str] = EXACT_CURVE

    point: AuditPoint
    pair_index: int
    pair: Any
    deltas: tuple
    alphas: tuple
    seed: int
    target: Any
    samples: int = 0
    setup_error: str | None = None
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    time_limit: float = DEFAULT_TIME_LIMIT

    @property
    def label(self) -> str:
        return getattr(self.pair, "name", None) or f"#{self.pair_index}"

    @property
    def tests(self) -> int:
        """Nothing is estimated: no member of the suite's family."""
        return 0

    @property
    def cost(self) -> float:
        return 1.0

    def recorded_pair(self) -> RecordedPair | None:
        return RecordedPair.of(self.pair)

    def matches(self, result: TestResult) -> bool:
        return super().matches(result) and result.pair_name == getattr(self.pair, "name", None)

    def build_mechanism(self):
        from dpaudit.suite.targets import as_target

        return as_target(self.target).build(self.point.parameters)

    def run(self, counter=None) -> TestResult:
        from dpaudit.audit.execute import run_guarded

        return run_guarded(self, self._measure)

    def _measure(self, measured) -> None:
        from dpaudit.audit.memory import check_output_space
        from dpaudit.audit.procedures.pair_measure import checked_pair, curve_data, read_claim
        from dpaudit.evidence.exact_curve import EpsilonBracket, ExactCurveEvidence
        from dpaudit.mechanisms.capabilities import ExactRenyi

        mechanism = self.build_mechanism()
        claim = read_claim(self, mechanism, measured)
        if self.setup_error is not None:
            raise RuntimeError(self.setup_error)
        d0, d1 = checked_pair(self, mechanism, self.pair)
        check_output_space(mechanism, d0, d1, self.memory_limit)
        for entry in measured.readings:
            if entry.notion == "dp":
                bracket = pair_bracket(mechanism, d0, d1, entry.delta)
                where = f"δ = {entry.delta:g}"
            else:
                value = (mechanism.exact_renyi(d0, d1, entry.alpha)
                         if isinstance(mechanism, ExactRenyi) else None)
                bracket = (None if value is None else
                           EpsilonBracket.closed_form(float(value), "closed form (exact_renyi)"))
                where = f"α = {entry.alpha:g}"
            if bracket is None:
                raise ValueError(
                    f"{self.mechanism} has no exact or bracketed curve for pair "
                    f"{self.pair.name!r} at {where}: the exact-curve check needs "
                    f"exact_epsilon(d0, d1, delta) (a closed form), the BracketedEpsilon "
                    f"capability (a numerical bracket) or, for Rényi orders, ExactRenyi")
            entry.evidence = [ExactCurveEvidence(delta=entry.delta, alpha=entry.alpha,
                                                 bracket=bracket)]
        measured.curve = curve_data(self, self.pair.name, mechanism, claim, d0, d1, measured)


class ExactCurveCheck(AuditProcedure):
    """The exact-curve check (see the module docstring)."""

    kind = EXACT_CURVE
    summary = ("the claim against each named pair's exact or numerically bracketed privacy "
               "curve, no sampling (accountants, calibrations, closed forms)")

    def setup(self, audit, params: dict, memory_limit: int) -> PairSetup:
        """The named pairs, as the pair audit finds them."""
        return PairAudit().setup(audit, params, memory_limit)

    def family_members(self, audit, setup: PairSetup) -> int:
        return 0

    def coverage(self, audit, setup: PairSetup) -> Coverage:
        return Coverage(search=None, representation=False, note=None)

    def tasks(self, point: AuditPoint, audit, setup: PairSetup,
              context: PointContext) -> list[ExactCurveTask]:
        from dpaudit.audit.seeds import task_key, task_seed

        out = []
        for j, pair in enumerate(setup.pairs or [None]):
            key = task_key(audit.name, f"#{j}" if pair is None else pair.name, context.swept)
            out.append(ExactCurveTask(point=point, pair_index=j, pair=pair,
                                      deltas=audit.deltas, alphas=audit.alphas,
                                      seed=task_seed(context.suite_seed, key),
                                      target=context.target, setup_error=setup.error,
                                      memory_limit=context.memory_limit,
                                      time_limit=context.time_limit))
        return out


__all__ = ["EXACT_CURVE", "ExactCurveCheck", "ExactCurveTask", "pair_bracket"]
