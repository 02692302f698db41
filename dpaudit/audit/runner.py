"""The audit runner: suite files → plan → execution → judged records, in one call.

The stages live in their own modules and can be used alone:

* :mod:`dpaudit.audit.spec` — parse and validate suite files;
* :mod:`dpaudit.audit.plan` — tasks (one per curve certificate), their seeds and the suite's
  Bonferroni family; the non-certifying jobs (dense exact ε over a sweep, series);
* :mod:`dpaudit.audit.execute` — run tasks and jobs in-process or in a process pool;
* :mod:`dpaudit.audit.records` — the typed records, their verdicts, per-audit judgement and
  the exit status (and the results.json schema);
* :mod:`dpaudit.audit.sweeps` — ε-over-sweep curves and closed-form series;
* :mod:`dpaudit.audit.progress` — one progress line per finished record.

:func:`run_suites` loads every suite (a malformed one is recorded, the others still run),
plans and executes every task and job across ``workers`` processes, collects the
ε-over-sweep curves and series, and judges every audit point.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from dpaudit.audit.execute import Progress
from dpaudit.audit.plan import Task, plan_jobs, plan_suite
from dpaudit.audit.records import AuditOutcome, CertificateRecord, SuiteSummary, judge
from dpaudit.audit.requires import SuiteSkipped
from dpaudit.audit.spec import Suite, SuiteError, load_suite
from dpaudit.audit.sweeps import sweep_curves

PROFILES = {"quick": 0.1, "default": 1.0, "deep": 10.0}


@dataclass
class AuditRun:
    """Everything one ``dpaudit run`` produced; :mod:`dpaudit.report` renders it."""

    suites: list[SuiteSummary] = field(default_factory=list)
    records: list[CertificateRecord] = field(default_factory=list)  # judged, in task order
    curves: list[dict] = field(default_factory=list)  # per (audit, pair), for the figures
    outcomes: list[AuditOutcome] = field(default_factory=list)  # per audit point
    series: list[dict] = field(default_factory=list)  # closed-form [[series]] results
    seconds: float = 0.0
    workers: int = 1
    profile: str = "default"
    samples_override: int | None = None
    seed_override: int | None = None
    backend: str = "local"  # Backend.describe() of where the run executed


def run_suites(paths: Iterable[str], *, samples: int | None = None, profile: str = "default",
               seed: int | None = None, workers: int = 1, progress: Progress | None = None,
               on_suite_error: Callable[[SuiteError], None] | None = None,
               on_suite_skipped: Callable[[SuiteSkipped], None] | None = None,
               backend=None) -> AuditRun:
    """Load every suite, run every task across ``workers`` processes, judge the audits.

    A malformed suite is recorded (``suites[i]["error"]``) and reported through
    ``on_suite_error``; the other suites still run.  A suite whose ``requires`` library is
    missing is recorded as skipped (``suites[i].skipped``) and reported through
    ``on_suite_skipped``.  ``backend`` (a :class:`dpaudit.backends.Backend`, a
    ``distributed.Client``, ``"tcp://HOST:PORT"`` or ``"local:N"``, see
    :func:`dpaudit.backends.resolve_backend`) runs the tasks elsewhere, e.g. on a Dask cluster;
    it replaces ``workers``, and no number depends on it.  A backend given as an object is not
    closed; one created here from a string is.

    Raises:
      dpaudit.backends.BackendError: the backend cannot be set up (e.g. an unreachable
        scheduler)."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    from dpaudit.backends import resolve_backend

    start = time.perf_counter()
    backend, owned = resolve_backend(backend, workers)
    try:
        return _run(backend, paths, samples, profile, seed, progress, on_suite_error,
                    on_suite_skipped, start)
    finally:
        if owned:
            backend.close()


def _run(backend, paths, samples, profile, seed, progress, on_suite_error, on_suite_skipped,
         start) -> AuditRun:
    run = AuditRun(workers=max(1, backend.workers), profile=profile, samples_override=samples,
                   seed_override=seed, backend=backend.describe())
    tasks: list[Task] = []
    loaded: list[Suite] = []
    for index, path in enumerate(paths):
        try:
            suite = load_suite(path)
            suite_tasks, info = plan_suite(suite, index, samples=samples,
                                           scale=PROFILES[profile], seed=seed)
        except SuiteSkipped as exc:
            run.suites.append(SuiteSummary.skipped_file(path, exc.reason))
            if on_suite_skipped:
                on_suite_skipped(exc)
            continue
        except SuiteError as exc:
            run.suites.append(SuiteSummary.failed(path, str(exc)))
            if on_suite_error:
                on_suite_error(exc)
            continue
        run.suites.append(info)
        loaded.append(suite)
        tasks.extend(suite_tasks)
    jobs, keys = plan_jobs(loaded, tasks)
    records, run.curves, job_results = backend.run(tasks, jobs, progress=progress)
    run.curves.extend(sweep_curves(records, _dense_rows(keys, job_results)))
    run.series = [r for key, r in zip(keys, job_results) if key[0] == "series"]
    run.records, run.outcomes = judge(records)
    run.seconds = time.perf_counter() - start
    return run


def _dense_rows(keys, job_results) -> dict[tuple, dict]:
    """The dense exact-ε job results merged per (suite file, audit index, pair index)."""
    dense: dict[tuple, dict] = {}
    for key, result in zip(keys, job_results):
        if key[0] != "dense":
            continue
        entry = dense.setdefault(key[1:4], {"deltas": list(key[4]), "rows": [], "errors": []})
        entry["rows"].extend(result.get("rows", []))
        entry["errors"].extend(result.get("errors", []))
        if result.get("error"):
            entry["errors"].append(result["error"])
    return dense


__all__ = ["PROFILES", "AuditRun", "run_suites"]
