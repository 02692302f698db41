"""Execution: tasks (:mod:`dpaudit.audit.plan`) → certified curves → records, in-process or in
a process pool.

* :func:`run_task` computes one curve certificate — the black-box one and, when the task asks
  for it, the white-box likelihood-ratio one — and returns one
  :class:`~dpaudit.audit.records.CertificateRecord` per δ and per α of the task, plus the curve
  data of its figure.  It never raises: a failure becomes ``error`` records carrying the
  message; warnings raised while auditing go into the records, not onto stderr.
* :func:`execute` / :func:`execute_with_jobs` run many tasks (and the non-certifying jobs of
  :func:`dpaudit.audit.plan.plan_jobs`) in-process with one worker, otherwise in a
  :func:`dpaudit.processes.process_pool` across local cores; results come back in task order
  whatever the completion order, so the number of workers cannot change a number.  A worker
  process that dies loses only its own task or job (:mod:`dpaudit.audit.pool_retry`: the
  others are re-run; it is retried once alone and becomes ``error`` records if that worker
  dies too).
"""

from __future__ import annotations

import math
import os
import time
import warnings
from typing import Callable

import numpy as np

from dpaudit.audit.memory import check_task_memory, estimate_task_memory
from dpaudit.audit.plan import Task
from dpaudit.audit.pool_retry import WorkerDied, describe_exit, run_calls
from dpaudit.audit.records import CertificateRecord, describe_exception
from dpaudit.claims import claimed_renyi
from dpaudit.distinguish.counting import EventCounter
from dpaudit.mechanisms.capabilities import ExactRenyi

Progress = Callable[[CertificateRecord], None]


def run_task(task: Task, counter: EventCounter | None = None
             ) -> tuple[list[CertificateRecord], dict | None]:
    """Compute one curve certificate: its records (one per δ, one per α) and the curve data
    for the figure.  Never raises: failures become ``error`` records.  ``counter`` says where
    the certification split is counted (default: in this process); it cannot change a
    number (:mod:`dpaudit.distinguish.counting`)."""
    found = task.grid()  # what each record measured so far, filled in by _measure
    start = time.perf_counter()
    curve, error = None, None
    # warnings raised while auditing go into the records, not onto stderr between progress lines
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            curve = _measure(task, found, counter)
        except Exception as exc:
            error = describe_exception(exc)
    caught_text = sorted({f"{w.category.__name__}: {w.message} "
                          f"({os.path.basename(w.filename)}:{w.lineno})" for w in caught})
    seconds = time.perf_counter() - start
    shared = task.record_fields()
    records = [CertificateRecord.create(**shared, **entry, seconds=seconds,
                                        warnings=caught_text, error=error) for entry in found]
    return records, curve


def failed_records(task: Task, exc: BaseException) -> list[CertificateRecord]:
    """The records of a task whose worker failed (e.g. died twice, killed by the OS)."""
    shared = task.record_fields()
    return [CertificateRecord.create(**shared, **entry, error=worker_error(exc, "test"))
            for entry in task.grid()]


def worker_error(exc: BaseException, what: str = "job") -> str:
    """The ``error`` of a task (``what="test"``) or job whose worker failed with ``exc``."""
    if isinstance(exc, WorkerDied):
        return (f"worker process died while running this {what}, and again when retried "
                f"alone ({describe_exit(exc.exit_code)}); the other {what}s were re-run")
    return f"worker failed: {describe_exception(exc)}"


def _number(x):
    return None if x is None else float(x)


def _measure(task: Task, found: list[dict], counter: EventCounter | None = None
             ) -> dict | None:
    """Fill ``found`` (one dict per record: claim, claimed and true ε, certificates, bounds,
    exact values) and return the figure's curve data; raises on any failure."""
    from dpaudit.distinguish.lower_bound import estimate_privacy_curve_lower_bound

    mechanism = task.build_mechanism()
    claim = mechanism.claim()
    true_eps = mechanism.true_epsilon()
    for entry in found:
        entry["claim"] = claim.to_dict()
        entry["true_epsilon"] = _number(true_eps)
        if entry["notion"] == "dp":
            entry["claimed_epsilon"] = float(claim.epsilon(entry["delta"]))
        else:
            entry["claimed_epsilon"] = claimed_renyi(claim, entry["alpha"])
    if task.setup_error is not None:
        raise RuntimeError(task.setup_error)
    d0 = mechanism.validate_dataset(task.pair.d0)
    d1 = mechanism.validate_dataset(task.pair.d1)
    is_pair, reason = mechanism.check_pair(d0, d1)
    if not is_pair:
        raise ValueError(f"pair {task.pair.name!r} is not neighbouring for "
                         f"{task.mechanism} ({mechanism.neighbouring}): {reason}")
    # before any large allocation (sampling, exact ε): refuse a task too large for memory
    check_task_memory(estimate_task_memory(mechanism, d0, d1, samples=task.samples,
                                           seed=task.seed, name=task.mechanism),
                      task.memory_limit)
    common = dict(deltas=task.deltas, alphas=task.alphas, samples=task.samples,
                  confidence=task.per_certificate_confidence, counter=counter)
    # mechanisms whose sampler *is* the implementation (library adapters, the floating-point
    # zoo) are audited on their float64 representation too (Mechanism.audit_representation)
    black = estimate_privacy_curve_lower_bound(
        mechanism.sampler(), d0, d1, seed=task.seed, distinguisher=task.distinguisher,
        representation=bool(mechanism.audit_representation), **common)
    white = None
    if task.white_box:
        white = estimate_privacy_curve_lower_bound(
            mechanism.sampler(), d0, d1, seed=task.seed + 1, distinguisher="white-box",
            log_density=mechanism.log_density, **common)
    dp = [e for e in found if e["notion"] == "dp"]
    for entry, point in zip(dp, black.points):
        entry["certificate"] = point.to_dict()
        entry["epsilon_lower_bound"] = float(point.epsilon)
        entry["exact_epsilon"] = _number(mechanism.exact_epsilon(d0, d1, entry["delta"]))
    if white is not None:
        for entry, point in zip(dp, white.points):
            entry["white_box_certificate"] = point.to_dict()
            entry["white_box_epsilon_lower_bound"] = float(point.epsilon)
    rdp = [e for e in found if e["notion"] == "rdp"]
    for i, entry in enumerate(rdp):
        entry["epsilon_lower_bound"] = float(black.renyi[i].divergence)
        entry["certificate"] = {"alpha": entry["alpha"],
                                "divergence": black.renyi[i].divergence,
                                "event": black.renyi[i].event,
                                "curve_certificate": black.points[0].to_dict()}
        if white is not None:
            entry["white_box_epsilon_lower_bound"] = float(white.renyi[i].divergence)
        if isinstance(mechanism, ExactRenyi):
            entry["exact_epsilon"] = _number(mechanism.exact_renyi(d0, d1, entry["alpha"]))
    if any(entry.get("epsilon_lower_bound") is None for entry in found):
        raise RuntimeError("the estimator returned fewer certificates than the task's δs and αs")
    return _curve_data(task, mechanism, claim, d0, d1, dp, rdp)


def _curve_data(task, mechanism, claim, d0, d1, dp, rdp) -> dict | None:
    """Dense claimed and exact ε(δ) (and ε(α)) around the certified grid, for the figure."""
    if len(dp) < 2 and not rdp:
        return None
    sweep = task.sweep()
    out = {"suite": task.suite, "suite_file": task.suite_file, "audit": task.audit,
           "pair": task.pair.name, "mechanism": task.mechanism,
           "sweep": None if sweep is None else sweep.to_json(),
           "certified": [[e["delta"], e["epsilon_lower_bound"],
                          e.get("white_box_epsilon_lower_bound")] for e in dp],
           "renyi_certified": [[e["alpha"], e["epsilon_lower_bound"],
                                e.get("white_box_epsilon_lower_bound")] for e in rdp]}
    positive = [e["delta"] for e in dp if e["delta"] > 0]
    if positive:
        grid = np.logspace(np.log10(min(positive)) - 1, np.log10(max(max(positive), 1e-2)), 40)
        out["dense_delta"] = grid.tolist()
        out["claimed"] = [_finite_or_none(claim.epsilon(float(d))) for d in grid]
        out["exact"] = [_finite_or_none(mechanism.exact_epsilon(d0, d1, float(d)))
                        for d in grid]
    if rdp:
        alphas = np.linspace(min(e["alpha"] for e in rdp), max(e["alpha"] for e in rdp), 40)
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


def execute(tasks: list[Task], *, workers: int = 1, progress: Progress | None = None
            ) -> tuple[list[CertificateRecord], list[dict]]:
    """Run tasks in-process (``workers == 1``) or in a process pool.  Returns the records (in
    task order, then δ, then α) and the curve data of the tasks that have a figure."""
    records, curves, _ = execute_with_jobs(tasks, [], workers=workers, progress=progress)
    return records, curves


def execute_with_jobs(tasks: list[Task], jobs: list[tuple], *, workers: int = 1,
                      progress: Progress | None = None, on_task=None):
    """As :func:`execute`, plus ``jobs`` — (function, args) pairs of module-level functions
    that never raise (sweep exact curves, series) — run in the same pool.  Returns (records,
    curves, job results in order).  ``on_task(i, records, curve)`` is called as each task
    finishes (see :meth:`dpaudit.backends.Backend.run`)."""
    results: list[tuple | None] = [None] * len(tasks)
    job_results: list = [None] * len(jobs)

    def finished(i, result):
        results[i] = result
        if on_task:
            on_task(i, *result)
        if progress:
            for record in result[0]:
                progress(record)

    if workers <= 1 or len(tasks) + len(jobs) <= 1:
        for i, task in enumerate(tasks):
            finished(i, run_task(task))
        for k, (fn, args) in enumerate(jobs):
            job_results[k] = fn(*args)
    else:
        # larger tasks first, so that a long one does not start last
        order = sorted(range(len(tasks)), key=lambda i: -tasks[i].samples)
        units = [("job", k) for k in range(len(jobs))] + [("task", i) for i in order]
        calls = [jobs[k] if kind == "job" else (run_task, (tasks[k],)) for kind, k in units]

        def done(u, result, error):
            kind, i = units[u]
            if kind == "job":
                job_results[i] = result if error is None else {"error": worker_error(error)}
            else:
                finished(i, result if error is None else (failed_records(tasks[i], error), None))

        run_calls(calls, workers=min(workers, len(units)), done=done)
    records = [r for result in results for r in result[0]]
    curves = [result[1] for result in results if result[1] is not None]
    return records, curves, job_results


def default_workers() -> int:
    """Local cores available to this process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


__all__ = ["Progress", "default_workers", "execute", "execute_with_jobs", "failed_records",
           "run_task", "worker_error"]
