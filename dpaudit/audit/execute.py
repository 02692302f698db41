"""Executing one test: a planned :class:`~dpaudit.audit.plan.Task` → its
:class:`~dpaudit.results.hierarchy.TestResult`.

:func:`run_task` builds the mechanism, reads its claim at every δ and α of the task, checks the
pair and the task's memory, certifies the black-box curve
(:func:`dpaudit.distinguish.lower_bound.estimate_privacy_curve_lower_bound`) and, when the task
asks for it, the white-box likelihood-ratio curve on the seed + 1 stream, reads one
certificate per δ and per α off them with the pair's exact ε where it is known, and adds the
figure's curve data, with one BLAS/OpenMP thread (:mod:`dpaudit.util.threads`).  It never raises:
a failure is the result's ``error``, with the numbers measured before it kept as evidence
(never judged); warnings raised while auditing go into the result, not onto stderr.  Where a task runs — this process, a pool worker, a Dask worker — is
the backend's business (:mod:`dpaudit.backends`); no number depends on it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import time
import warnings
from dataclasses import dataclass, fields

import numpy as np

from dpaudit.audit.memory import check_task_memory, estimate_task_memory
from dpaudit.audit.plan import Task, pair_dict
from dpaudit.audit.rounds import certify_in_rounds
from dpaudit.claims import claimed_renyi
from dpaudit.distinguish.counting import EventCounter
from dpaudit.mechanisms.capabilities import ExactRenyi
from dpaudit.results.hierarchy import Certificate, TestResult
from dpaudit.results.records import describe_exception
from dpaudit.util.threads import one_numerical_thread


@dataclass
class _Reading:
    """What one certificate of a task has measured so far (filled as :func:`_measure` goes, so
    that a failure keeps what was measured before it)."""

    notion: str
    delta: float | None
    alpha: float | None
    claimed_epsilon: float | None = None
    epsilon_lower_bound: float | None = None
    white_box_epsilon_lower_bound: float | None = None
    exact_epsilon: float | None = None
    certificate: dict | None = None
    white_box_certificate: dict | None = None

    def certificate_of(self, error: str | None) -> Certificate:
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return Certificate.failed(**values) if error is not None else Certificate.measured(**values)


@dataclass
class _Measured:
    """The task-level readings: the claim, the literature's ε, one :class:`_Reading` per
    certificate."""

    readings: list
    claim: dict | None = None
    true_epsilon: float | None = None
    pair: object = None  # the pair certified (a searched test's, once its search ran)
    search: dict | None = None  # a searched test's provenance
    rounds: object = None  # the test's looks (dpaudit.audit.rounds.Rounds), once certified


def run_task(task: Task, counter: EventCounter | None = None) -> TestResult:
    """Compute one test.  Never raises: a failure is the result's ``error``.  ``counter`` says
    where the certification split is counted (default: in this process); it cannot change a
    number (:mod:`dpaudit.distinguish.counting`)."""
    measured = _Measured([_Reading(n, d, a) for n, d, a in task.grid()], pair=task.pair)
    start = time.perf_counter()
    curve, error = None, None
    # warnings raised while auditing go into the result, not onto stderr between progress lines
    # one BLAS/OpenMP thread, so that no number depends on where the task runs
    with warnings.catch_warnings(record=True) as caught, one_numerical_thread():
        warnings.simplefilter("always")
        try:
            curve = _measure(task, measured, counter)
        except Exception as exc:
            error = describe_exception(exc)
    caught_text = sorted({_warning_text(w) for w in caught})
    return TestResult(pair=pair_dict(measured.pair), pair_index=task.pair_index,
                      claim=measured.claim, true_epsilon=measured.true_epsilon,
                      samples=task.samples, seed=task.seed,
                      seconds=time.perf_counter() - start, warnings=tuple(caught_text),
                      error=error,
                      certificates=tuple(_powered(r.certificate_of(error), task.stopping)
                                         for r in measured.readings),
                      curve=curve, search=measured.search,
                      sequential=None if measured.rounds is None else measured.rounds.to_json())


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _warning_text(w) -> str:
    """``"Category: message"``, with ``(file.py:line)`` when the warning comes from outside
    dpaudit (the user's code, a library): a location inside dpaudit tells the user nothing."""
    text = f"{w.category.__name__}: {w.message}"
    if os.path.abspath(w.filename).startswith(_PACKAGE + os.sep):
        return text
    return f"{text} ({os.path.basename(w.filename)}:{w.lineno})"


def _powered(certificate: Certificate, rule) -> Certificate:
    """The certificate with its ``underpowered`` flag under the test's stopping rule (its
    audit point sets the same when judged; progress lines need it before)."""
    return dataclasses.replace(certificate, underpowered=rule.is_underpowered(
        certificate.verdict, certificate.notion, certificate.claimed_epsilon,
        certificate.detectable_epsilon))


def _number(x):
    return None if x is None else float(x)


def _measure(task: Task, measured: _Measured, counter: EventCounter | None = None
             ) -> dict | None:
    """Fill ``measured`` (claim, claimed and true ε, certificates, bounds, exact values) and
    return the figure's curve data; raises on any failure."""
    from dpaudit.distinguish.lower_bound import estimate_privacy_curve_lower_bound

    mechanism = task.build_mechanism()
    claim = mechanism.claim()
    true_eps = mechanism.true_epsilon()
    measured.claim = claim.to_dict()
    measured.true_epsilon = _number(true_eps)
    for entry in measured.readings:
        if entry.notion == "dp":
            entry.claimed_epsilon = float(claim.epsilon(entry.delta))
        else:
            entry.claimed_epsilon = claimed_renyi(claim, entry.alpha)
    if task.setup_error is not None:
        raise RuntimeError(task.setup_error)
    if task.search is not None:
        measured.pair, measured.search = _searched_pair(task, mechanism)
    pair = measured.pair
    d0 = mechanism.validate_dataset(pair.d0)
    d1 = mechanism.validate_dataset(pair.d1)
    is_pair, reason = mechanism.check_pair(d0, d1)
    if not is_pair:
        raise ValueError(f"pair {pair.name!r} is not neighbouring for "
                         f"{task.mechanism} ({mechanism.neighbouring}): {reason}")
    # before any large allocation (sampling, exact ε): refuse a task too large for memory
    check_task_memory(estimate_task_memory(mechanism, d0, d1, samples=task.samples,
                                           seed=task.seed, name=task.mechanism),
                      task.memory_limit)
    # code that *is* the implementation (user code, library adapters, the floating-point zoo)
    # is audited on its float64 representation too (dpaudit.spec.coverage)
    def estimate(*, samples, seed, confidence, white):
        options = (dict(distinguisher="white-box", log_density=mechanism.log_density) if white
                   else dict(distinguisher=task.point.distinguisher,
                             representation=task.representation))
        return estimate_privacy_curve_lower_bound(
            mechanism.sampler(), d0, d1, deltas=task.deltas, alphas=task.alphas,
            samples=samples, seed=seed, confidence=confidence, counter=counter, **options)

    # the test's looks (dpaudit.audit.rounds): it stops once its verdict is decided
    rounds = certify_in_rounds(
        estimate, samples=task.samples, seed=task.seed,
        confidence=task.point.per_certificate_confidence, white_box=task.white_box,
        claims=[e.claimed_epsilon for e in measured.readings if e.notion == "dp"],
        renyi_claims=[e.claimed_epsilon for e in measured.readings if e.notion == "rdp"],
        rule=task.stopping, stop_on_power=task.point.expect != "violation")
    measured.rounds = rounds
    black, white = rounds.black, rounds.white
    dp = [e for e in measured.readings if e.notion == "dp"]
    for entry, point in zip(dp, black.points):
        entry.certificate = point.to_dict()
        entry.epsilon_lower_bound = float(point.epsilon)
        entry.exact_epsilon = _number(mechanism.exact_epsilon(d0, d1, entry.delta))
    if white is not None:
        for entry, point in zip(dp, white.points):
            entry.white_box_certificate = point.to_dict()
            entry.white_box_epsilon_lower_bound = float(point.epsilon)
    rdp = [e for e in measured.readings if e.notion == "rdp"]
    for i, entry in enumerate(rdp):
        entry.epsilon_lower_bound = float(black.renyi[i].divergence)
        entry.certificate = {"alpha": entry.alpha,
                             "divergence": black.renyi[i].divergence,
                             "event": black.renyi[i].event,
                             "curve_certificate": black.points[0].to_dict()}
        if white is not None:
            entry.white_box_epsilon_lower_bound = float(white.renyi[i].divergence)
        if isinstance(mechanism, ExactRenyi):
            entry.exact_epsilon = _number(mechanism.exact_renyi(d0, d1, entry.alpha))
    if any(entry.epsilon_lower_bound is None for entry in measured.readings):
        raise RuntimeError("the estimator returned fewer certificates than the task's δs and αs")
    return _curve_data(task, pair, mechanism, claim, d0, d1, dp, rdp)


def _searched_pair(task: Task, mechanism):
    """(pair, provenance) of a searched test: rank ``slot`` of the point's pair search, which
    depends on the point's search seed only (:mod:`dpaudit.audit.pair_search`)."""
    import cloudpickle

    from dpaudit.audit.pair_search import searched_pair

    search = task.search
    # the cache key is the mechanism itself (its pickled state, so two instances of one class
    # with different state never share a search), the named pairs and the search's settings
    state = hashlib.sha256(cloudpickle.dumps(mechanism)).hexdigest()
    key = (state, repr([(p.d0, p.d1) for p in search.named]), search.seed, task.samples,
           search.budget)
    return searched_pair(mechanism, list(search.named), search.slot, samples=task.samples,
                         seed=search.seed, budget=search.budget, key=key)


def _curve_data(task, pair, mechanism, claim, d0, d1, dp, rdp) -> dict | None:
    """Dense claimed and exact ε(δ) (and ε(α)) around the certified grid, for the figure (the
    named pairs only: a searched pair's test is evidence, not a figure)."""
    if (len(dp) < 2 and not rdp) or task.search is not None:
        return None
    point = task.point
    out = {"suite": point.suite, "suite_file": point.suite_file, "audit": point.audit,
           "pair": pair.name, "mechanism": point.mechanism,
           "sweep": None if point.sweep is None else point.sweep.to_json(),
           "certified": [[e.delta, e.epsilon_lower_bound,
                          e.white_box_epsilon_lower_bound] for e in dp],
           "renyi_certified": [[e.alpha, e.epsilon_lower_bound,
                                e.white_box_epsilon_lower_bound] for e in rdp]}
    positive = [e.delta for e in dp if e.delta > 0]
    if positive:
        grid = np.logspace(np.log10(min(positive)) - 1, np.log10(max(max(positive), 1e-2)), 40)
        out["dense_delta"] = grid.tolist()
        out["claimed"] = [_finite_or_none(claim.epsilon(float(d))) for d in grid]
        out["exact"] = [_finite_or_none(mechanism.exact_epsilon(d0, d1, float(d)))
                        for d in grid]
    if rdp:
        alphas = np.linspace(min(e.alpha for e in rdp), max(e.alpha for e in rdp), 40)
        out["dense_alpha"] = alphas.tolist()
        out["claimed_renyi"] = [_finite_or_none(claimed_renyi(claim, float(a))) for a in alphas]
        if isinstance(mechanism, ExactRenyi):
            out["exact_renyi"] = [_finite_or_none(mechanism.exact_renyi(d0, d1, float(a)))
                                  for a in alphas]
    return out


def _finite_or_none(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


__all__ = ["run_task"]
