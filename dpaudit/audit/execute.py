"""Executing one test, whatever its procedure: the guard every :meth:`Task.run` goes through.

:func:`run_guarded` gives a procedure's measurement one :class:`Measured` to fill — the claim,
one :class:`Reading` per certificate of the task's grid, the pair, its provenance — and turns
it into the test's :class:`~dpaudit.results.hierarchy.TestResult`, with one BLAS/OpenMP thread
(:mod:`dpaudit.util.threads`) so that no number depends on where the task runs.  It never
raises: a failure is the result's ``error``, with what was measured before it kept as evidence
(never judged); warnings raised while auditing go into the result, not onto stderr.  A test
still running after its ``time_limit`` (the task's; :mod:`dpaudit.util.time_limit`) ends
as an error of that test.  Where a
task runs — this process, a pool worker, a Dask worker — is the backend's business
(:mod:`dpaudit.backends`).
"""

from __future__ import annotations

import dataclasses
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

from dpaudit.results.certificate import Certificate
from dpaudit.results.hierarchy import TestResult
from dpaudit.results.privacy_curve import PrivacyCurveFigure
from dpaudit.results.provenance import BudgetUse, RecordedPair, SearchProvenance
from dpaudit.results.records import describe_exception
from dpaudit.util.threads import one_numerical_thread
from dpaudit.util.time_limit import DEFAULT_TIME_LIMIT, time_limit


@dataclass
class Reading:
    """What one certificate of a task has measured so far (filled as the measurement goes,
    so that a failure keeps what was measured before it)."""

    notion: str
    delta: float | None
    alpha: float | None
    claimed_epsilon: float | None = None
    evidence: list = field(default_factory=list)
    exact_epsilon: float | None = None

    def certificate_of(self, error: str | None) -> Certificate:
        values = dict(notion=self.notion, delta=self.delta, alpha=self.alpha,
                      claimed_epsilon=self.claimed_epsilon, evidence=tuple(self.evidence),
                      exact_epsilon=self.exact_epsilon)
        return Certificate.failed(**values) if error is not None else Certificate.measured(**values)


@dataclass
class Measured:
    """The task-level readings: the claim, the literature's ε, one :class:`Reading` per
    certificate, and what the test learnt on the way."""

    readings: list[Reading]
    claim: dict | None = None
    true_epsilon: float | None = None
    pair: RecordedPair | None = None  # the pair certified (a searched test's once found)
    search: SearchProvenance | None = None  # a searched test's provenance
    sequential: BudgetUse | None = None  # the test's looks, once certified
    curve: PrivacyCurveFigure | None = None  # the figure's data


def run_guarded(task, measure: Callable[[Measured], None]) -> TestResult:
    """Run ``measure`` on a fresh :class:`Measured` of ``task`` and make its result.  Never
    raises (see the module docstring); every certificate gets its ``underpowered`` flag under
    ``task.point.power`` (the point sets the same when judged; progress lines need it
    before)."""
    measured = Measured([Reading(n, d, a) for n, d, a in task.grid()],
                        pair=task.recorded_pair())
    start = time.perf_counter()
    error = None
    limit = getattr(task, "time_limit", DEFAULT_TIME_LIMIT)
    with warnings.catch_warnings(record=True) as caught, one_numerical_thread():
        warnings.simplefilter("always")
        try:
            with time_limit(limit, f"test {task.audit}/{getattr(task, 'label', '?')}"):
                measure(measured)
        except Exception as exc:  # TimeLimitExceeded too: the test is an error
            error = describe_exception(exc)
    caught_text = sorted({warning_text(w) for w in caught})
    rule = task.point.power
    return TestResult(pair=measured.pair, pair_index=task.pair_index, claim=measured.claim,
                      true_epsilon=measured.true_epsilon, samples=task.samples, seed=task.seed,
                      seconds=time.perf_counter() - start, warnings=tuple(caught_text),
                      error=error,
                      certificates=tuple(_powered(r.certificate_of(error), rule)
                                         for r in measured.readings),
                      curve=measured.curve, search=measured.search,
                      sequential=measured.sequential, procedure=task.procedure,
                      family_members=task.tests)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def warning_text(w) -> str:
    """``"Category: message"``, with ``(file.py:line)`` when the warning comes from outside
    dpaudit (the user's code, a library): a location inside dpaudit tells the user nothing."""
    text = f"{w.category.__name__}: {w.message}"
    if os.path.abspath(w.filename).startswith(_PACKAGE + os.sep):
        return text
    return f"{text} ({os.path.basename(w.filename)}:{w.lineno})"


def _powered(certificate: Certificate, rule) -> Certificate:
    """The certificate with its ``underpowered`` flag under the point's stopping rule."""
    if rule is None or not certificate.power_applies:
        return certificate
    return dataclasses.replace(certificate, underpowered=rule.is_underpowered(
        certificate.verdict, certificate.notion, certificate.claimed_epsilon,
        certificate.detectable_epsilon))


def number(x):
    """``float(x)``, None for None."""
    return None if x is None else float(x)


__all__ = ["Measured", "Reading", "number", "run_guarded", "warning_text"]
