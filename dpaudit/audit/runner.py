"""The audit runner: suite files → plan → execution → judged records, in one call.

The stages live in their own modules and can be used alone:

* :mod:`dpaudit.audit.spec` — parse and validate suite files;
* :mod:`dpaudit.audit.plan` — tasks (one per curve certificate), their seeds and the suite's
  Bonferroni family; the non-certifying jobs (dense exact ε over a sweep, series);
* :mod:`dpaudit.audit.execute` — run tasks and jobs in-process or in a process pool;
* :mod:`dpaudit.audit.records` — the typed records, their verdicts, per-audit judgement and
  the exit status (and the results.json schema);
* :mod:`dpaudit.audit.sweeps` — ε-over-sweep curves and closed-form series;
* :mod:`dpaudit.audit.progress` — what a run reports while it goes (planning, k/N, phases);
* :mod:`dpaudit.audit.select` — ``--only`` patterns.

:func:`run_suites` loads every suite (a malformed one is recorded, the others still run),
plans every suite with a selected audit in full, drops the tasks of the audits not selected,
executes the rest (and the jobs) across ``workers`` processes, collects the ε-over-sweep
curves and series, and judges every audit point.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from dpaudit.audit.execute import Progress
from dpaudit.audit.memory import parse_memory_size
from dpaudit.audit.plan import Task, plan_jobs, plan_suite
from dpaudit.audit.progress import RunCounts, RunProgress, as_run_progress
from dpaudit.audit.records import AuditOutcome, CertificateRecord, SuiteSummary, judge
from dpaudit.audit.select import AuditFilter
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
    only: tuple[str, ...] = ()  # the --only patterns (empty: every audit)


def run_suites(paths: Iterable[str], *, samples: int | None = None, profile: str = "default",
               seed: int | None = None, workers: int = 1,
               progress: RunProgress | Progress | None = None,
               on_suite_error: Callable[[SuiteError], None] | None = None,
               on_suite_skipped: Callable[[SuiteSkipped], None] | None = None,
               backend=None, only: Sequence[str] = (),
               memory_limit: int | str | None = None) -> AuditRun:
    """Load every suite, run every task across ``workers`` processes, judge the audits.

    A malformed suite is recorded (``suites[i]["error"]``) and reported through
    ``on_suite_error``; the other suites still run.  A suite whose ``requires`` library is
    missing is recorded as skipped (``suites[i].skipped``) and reported through
    ``on_suite_skipped``.  ``backend`` (a :class:`dpaudit.backends.Backend`, a
    ``distributed.Client``, ``"tcp://HOST:PORT"`` or ``"local:N"``, see
    :func:`dpaudit.backends.resolve_backend`) runs the tasks elsewhere, e.g. on a Dask cluster;
    it replaces ``workers``, and no number depends on it.  A backend given as an object is not
    closed; one created here from a string is.

    ``progress`` is a :class:`~dpaudit.audit.progress.RunProgress` or a per-record callable
    (None, the default, is silent).  ``only`` holds ``--only`` glob patterns
    (:mod:`dpaudit.audit.select`): every suite with a selected audit is planned in full (same
    family, same seeds) and only the selected audits' tasks run.  ``memory_limit`` (bytes or
    a size such as ``"16GB"``, :func:`dpaudit.audit.memory.parse_memory_size`) replaces every
    suite's ``memory_limit``: a task whose estimated peak memory exceeds it is an ``error``.

    Raises:
      ValueError: an unknown profile, a bad ``memory_limit``.
      dpaudit.audit.select.SelectionError: an ``only`` pattern that matches nothing.
      dpaudit.backends.BackendError: the backend cannot be set up (e.g. an unreachable
        scheduler)."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    if memory_limit is not None:
        try:
            memory_limit = parse_memory_size(memory_limit)
        except ValueError as exc:
            raise ValueError(f"memory_limit: {exc}") from None
    from dpaudit.backends import resolve_backend

    start = time.perf_counter()
    backend, owned = resolve_backend(backend, workers)
    try:
        return _run(backend, paths, samples, profile, seed, as_run_progress(progress),
                    on_suite_error, on_suite_skipped, start, AuditFilter(tuple(only)),
                    memory_limit)
    finally:
        if owned:
            backend.close()


def _run(backend, paths, samples, profile, seed, reporter: RunProgress, on_suite_error,
         on_suite_skipped, start, selection: AuditFilter, memory_limit=None) -> AuditRun:
    paths = [str(p) for p in paths]
    run = AuditRun(workers=max(1, backend.workers), profile=profile, samples_override=samples,
                   seed_override=seed, backend=backend.describe(), only=selection.patterns)
    reporter.planning(paths)
    entries: list[SuiteSummary | Suite] = []
    names: dict[str, str] = {}  # suite name -> the file that uses it
    for path in _distinct_files(paths):
        try:
            suite = load_suite(path)
            if suite.name in names:
                raise SuiteError(f"{path}: suite name {suite.name!r} is already used by "
                                 f"{names[suite.name]}; suite names must differ within a run "
                                 f"(figures, junit.xml and dpaudit diff are keyed by them): "
                                 f"set [suite] name")
            names[suite.name] = path
            entries.append(suite)
        except SuiteSkipped as exc:  # a library the suite requires is missing
            entries.append(SuiteSummary.skipped_file(path, exc.reason))
            if on_suite_skipped:
                on_suite_skipped(exc)
        except SuiteError as exc:
            entries.append(SuiteSummary.failed(path, str(exc)))
            if on_suite_error:
                on_suite_error(exc)
    suites = [e for e in entries if isinstance(e, Suite)]
    selection.check([(s.name, a.name) for s in suites for a in s.audits]
                    + [(s.name, x.name) for s in suites for x in s.series])
    tasks: list[Task] = []
    loaded: list[Suite] = []
    all_points = 0
    for index, entry in enumerate(entries):
        if not isinstance(entry, Suite):
            run.suites.append(entry)
            continue
        selected = _selected(entry, selection)
        if selection.patterns and not (selected.audits or selected.series):
            continue  # --only selects nothing here: not planned, not in the results
        began = time.perf_counter()
        try:
            suite_tasks, info = plan_suite(entry, index, samples=samples,
                                           scale=PROFILES[profile], seed=seed,
                                           memory_limit=memory_limit)
        except SuiteError as exc:  # e.g. a [suite] family_size smaller than its tests
            run.suites.append(SuiteSummary.failed(entry.path, str(exc)))
            if on_suite_error:
                on_suite_error(exc)
            continue
        reporter.suite_planned(info, time.perf_counter() - began)
        all_points += info.points or 0
        chosen = {a.name for a in selected.audits}
        run.suites.append(info)
        loaded.append(selected)
        tasks.extend(t for t in suite_tasks if t.audit in chosen)
    jobs, keys = plan_jobs(loaded, tasks)
    reporter.started(RunCounts(
        suites=len(loaded), audit_points=len({(t.suite_file, t.audit_index, t.sweep_index)
                                              for t in tasks}),
        tests=sum(2 if t.white_box else 1 for t in tasks),
        certificates=sum(len(t.grid()) for t in tasks), workers=run.workers,
        only=selection.patterns, all_audit_points=all_points,
        where="" if backend.kind == "local" else run.backend))
    records, run.curves, job_results = backend.run(tasks, jobs, progress=reporter.record)
    run.curves.extend(sweep_curves(records, _dense_rows(keys, job_results)))
    run.series = [r for key, r in zip(keys, job_results) if key[0] == "series"]
    run.records, run.outcomes = judge(records)
    run.seconds = time.perf_counter() - start
    return run


def _distinct_files(paths: list[str]) -> list[str]:
    """``paths`` without repeats of one file (the same file named twice, or through another
    path or a symbolic link, runs once, under its first name)."""
    seen, out = set(), []
    for path in paths:
        try:
            key = os.path.realpath(path)
        except (OSError, ValueError):
            key = path
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out


def _selected(suite: Suite, selection: AuditFilter) -> Suite:
    """``suite`` with only the audits and series that ``selection`` selects (audits keep
    their index and name, so their seeds are unchanged)."""
    if not selection.patterns:
        return suite
    return dataclasses.replace(
        suite, audits=tuple(a for a in suite.audits if selection.matches(suite.name, a.name)),
        series=tuple(x for x in suite.series if selection.matches(suite.name, x.name)))


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
