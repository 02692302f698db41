"""A run: suite files → plan → tests on a backend → judged audit points, in one call.

The stages live in their own modules and can be used alone:

* :mod:`dpaudit.suite` — parse and validate suite files;
* :mod:`dpaudit.audit.plan` — tasks (one per test), their seeds and the suite's Bonferroni
  family; the non-certifying jobs (dense exact ε over a sweep, series);
* :mod:`dpaudit.audit.execute` — one task → its :class:`~dpaudit.results.hierarchy.TestResult`;
* :mod:`dpaudit.audit.sweeps` — ε-over-sweep curves and closed-form series;
* :mod:`dpaudit.audit.progress` — what a run reports while it goes (planning, k/N, phases);
* :mod:`dpaudit.audit.select` — ``--only`` patterns;
* :mod:`dpaudit.audit.journal` — the journal of finished tests that ``--resume`` continues.

:func:`run_audits` loads every suite (a malformed one is recorded, the others still run),
plans every suite with a selected audit in full, drops the tasks of the audits not selected,
has its ``backend`` execute the rest (and the jobs), collects the ε-over-sweep curves and
series, and judges every audit point.  It is given its options
(:class:`~dpaudit.results.options.RunOptions`) and its backend by a face — the CLI, the Python
API (:func:`dpaudit.api.run_suites`), the pytest plugin — and never chooses either.

With a ``journal`` every finished test is journalled as it finishes; a run stopped by Ctrl-C or
SIGTERM (:mod:`dpaudit.util.stopping`) returns the partial run — the finished tests, every other
test as a "not run" error, and :attr:`~dpaudit.results.run.AuditRun.incomplete` naming the
signal — and ``resume=True`` runs only the tests the journal does not hold, with the numbers an
uninterrupted run gives.
"""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path
from typing import Callable, Iterable

from dpaudit.audit.journal import RunFingerprint, RunJournal, code_digests, test_key
from dpaudit.audit.plan import plan_jobs, plan_suite
from dpaudit.audit.procedures.base import Task
from dpaudit.audit.progress import RunCounts, RunProgress, as_run_progress
from dpaudit.audit.select import AuditFilter
from dpaudit.audit.sweeps import DenseExactJob, SeriesJob, sweep_curves
from dpaudit.results.defaults import audit_defaults
from dpaudit.results.hierarchy import AuditPoint, TestResult
from dpaudit.results.options import RunOptions
from dpaudit.results.records import SuiteSummary
from dpaudit.results.run import AuditRun, Incomplete
from dpaudit.results.series import SeriesResult
from dpaudit.util.stopping import stop_signal
from dpaudit.suite.requires import SuiteSkipped
from dpaudit.suite.spec import Suite, SuiteError, load_suite


def run_audits(paths: Iterable[str], options: RunOptions, *, backend,
               progress: RunProgress | None = None,
               on_suite_error: Callable[[SuiteError], None] | None = None,
               on_suite_skipped: Callable[[SuiteSkipped], None] | None = None,
               journal: str | Path | None = None, resume: bool = False,
               on_started: Callable[[AuditRun], None] | None = None) -> AuditRun:
    """Load every suite, run every test on ``backend``, judge the audit points.

    Args:
      paths: suite files (a file named twice, or through a link, runs once).
      options: what the run is asked (:class:`~dpaudit.results.options.RunOptions`).
      backend: where tasks run (a :class:`dpaudit.backends.Backend`); not closed here.
      progress: what the run reports while it goes (default: silent).
      on_suite_error: called with each malformed suite's error (the others still run).
      on_suite_skipped: called for each suite whose ``requires`` library is missing.
      journal: a file to journal every finished test to (:mod:`dpaudit.audit.journal`);
        None: no journal.
      resume: continue the journal of an interrupted run of the same suites and options
        (when there is none, every test runs).
      on_started: receives the planned run before any test runs, every test marked not run
        (:attr:`~dpaudit.results.run.AuditRun.incomplete` = "in progress"); the CLI writes
        its reports from it, so that a run killed outright leaves reports that say so.

    Returns:
      The run; when Ctrl-C or SIGTERM stopped it while its tests ran, the partial run, its
      ``incomplete`` naming the signal.

    Raises:
      dpaudit.audit.select.SelectionError: an ``only`` pattern that matches nothing.
      dpaudit.audit.journal.ResumeError: a journal made by a different run.
      KeyboardInterrupt: Ctrl-C or SIGTERM before any test ran.
      OSError: the journal cannot be written.
    """
    start = time.perf_counter()
    reporter = as_run_progress(progress)
    paths = _distinct_files([str(p) for p in paths])
    selection = AuditFilter(options.only)
    book, fingerprint = None, None
    if journal is not None:
        fingerprint = RunFingerprint.of(paths, options)
        if resume and Path(journal).exists():  # checked before planning: fail fast
            book = RunJournal.resume(journal, fingerprint)
        elif resume:
            reporter.note(f"dpaudit: --resume: no interrupted run to continue ({journal} "
                          f"does not exist): running every test")
    try:
        suites, loaded, tasks, all_points = _plan(paths, options, selection, reporter,
                                                  on_suite_error, on_suite_skipped)
        jobs = plan_jobs(loaded, tasks)
        # before the journal: a backend still starting (a local Dask cluster) may fail here
        workers, where = max(1, backend.workers), backend.describe()
        if journal is not None:
            fingerprint = dataclasses.replace(fingerprint, code=code_digests(loaded))
            if book is not None:  # the code the suites name, now that they are loaded
                book.check_code(fingerprint.code)
            else:
                # created once planning succeeded: a run refused before it starts writes nothing
                book = RunJournal.start(journal, fingerprint)
        run = AuditRun(suites=suites, options=options, workers=workers, backend=where)
        return _execute(run, tasks, jobs, backend, reporter, book, on_started, start,
                        all_points, len(loaded))
    finally:
        if book is not None:
            book.close()


def _plan(paths, options: RunOptions, selection: AuditFilter, reporter: RunProgress,
          on_suite_error, on_suite_skipped):
    """(suite entries, selected suites, their selected tasks, audit points of every planned
    suite): load and plan every suite file."""
    reporter.planning(paths)
    entries: list[SuiteSummary | Suite] = []
    names: dict[str, str] = {}  # suite name -> the file that uses it
    for path in paths:
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
    summaries: list[SuiteSummary] = []
    loaded: list[Suite] = []
    tasks: list[Task] = []
    all_points = 0
    for entry in entries:
        if not isinstance(entry, Suite):
            summaries.append(entry)
            continue
        selected = _selected(entry, selection)
        if selection.patterns and not (selected.audits or selected.series):
            continue  # --only selects nothing here: not planned, not in the results
        began = time.perf_counter()
        try:
            suite_tasks, info = plan_suite(entry, options)
        except SuiteError as exc:  # e.g. a [suite] family_size smaller than its tests
            summaries.append(SuiteSummary.failed(entry.path, str(exc)))
            if on_suite_error:
                on_suite_error(exc)
            continue
        reporter.suite_planned(info, time.perf_counter() - began)
        all_points += info.points or 0
        chosen = {a.name for a in selected.audits}
        summaries.append(info)
        loaded.append(selected)
        mine = [t for t in suite_tasks if t.audit in chosen]
        reporter.defaults_planned(audit_defaults(t.point for t in mine))
        tasks.extend(mine)
    return summaries, loaded, tasks, all_points


def _execute(run: AuditRun, tasks: list[Task], jobs: list, backend, reporter: RunProgress,
             book: RunJournal | None, on_started, start: float, all_points: int,
             suites: int) -> AuditRun:
    """Run the tests the journal does not hold and the jobs; the judged run."""
    # a journalled result counts only if it fits its planned task; anything else runs again
    done: dict[str, TestResult] = ({} if book is None else
                                   {test_key(t): book.finished[test_key(t)] for t in tasks
                                    if test_key(t) in book.finished
                                    and t.matches(book.finished[test_key(t)])})
    remaining = [t for t in tasks if test_key(t) not in done]
    reporter.started(RunCounts(
        suites=suites, audit_points=len({t.point.key for t in tasks}),
        tests=sum(t.tests for t in tasks),
        certificates=sum(len(t.grid()) for t in tasks), workers=run.workers,
        only=run.options.only, all_audit_points=all_points,
        where="" if backend.kind == "local" else run.backend,
        resumed=sum(len(result.certificates) for result in done.values())))
    if on_started is not None:
        on_started(_partial(run, tasks, done, "in progress", start))

    def finished(i: int, result: TestResult) -> None:
        task = remaining[i]
        done[test_key(task)] = result
        if book is not None and result.error is None:
            book.add(task, result)  # a test that errored runs again on resume
        point = task.point
        for certificate in result.certificates:
            reporter.record(point.record(result, certificate))

    try:
        _, job_results = backend.run(remaining, jobs, on_task=finished)
    except KeyboardInterrupt as exc:
        return _partial(run, tasks, done, f"interrupted by {stop_signal(exc)}", start)
    points = [p.judged() for p in _points(tasks, done)]
    dense = _dense_rows(jobs, job_results)
    curves = [done[test_key(t)].curve for t in tasks if done[test_key(t)].curve is not None]
    return dataclasses.replace(
        run, points=points, curves=curves + sweep_curves(points, dense),
        series=_series(jobs, job_results), seconds=time.perf_counter() - start)


def judged_points(tasks: list[Task], results: list[TestResult]) -> list[AuditPoint]:
    """The judged audit points of ``tasks`` (in plan order), ``results[i]`` being the result
    of ``tasks[i]``."""
    return [point.judged() for point in _points(tasks, dict(zip(map(test_key, tasks),
                                                                 results)))]


def _points(tasks: list[Task], results: dict[str, TestResult]) -> list[AuditPoint]:
    """The planned points of ``tasks`` (in plan order) with their tests' results."""
    tests: dict[tuple, tuple[AuditPoint, list]] = {}
    for task in tasks:
        point, found = tests.setdefault(task.point.key, (task.point, []))
        found.append(results[test_key(task)])
    return [point.with_tests(found) for point, found in tests.values()]


def _partial(run: AuditRun, tasks: list[Task], done: dict, reason: str, start) -> AuditRun:
    """``run`` with the finished tests and every other test marked not run (``error``),
    :attr:`~dpaudit.results.run.AuditRun.incomplete` saying why."""
    why = ("not run yet: the run is in progress (or was killed before it could say so); "
           "`dpaudit run --resume` continues it" if reason == "in progress" else
           f"not run: the run was {reason} before this test finished; "
           f"`dpaudit run --resume` continues it")
    results = {test_key(t): done.get(test_key(t)) or t.result(error=why) for t in tasks}
    finished = sum(t.tests for t in tasks if test_key(t) in done)
    return dataclasses.replace(
        run, points=[p.judged() for p in _points(tasks, results)], series=[],
        curves=[done[test_key(t)].curve for t in tasks
                if test_key(t) in done and done[test_key(t)].curve is not None],
        seconds=time.perf_counter() - start,
        incomplete=Incomplete(reason, finished, sum(t.tests for t in tasks)))


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


def _series(jobs: list, job_results: list) -> list[SeriesResult]:
    """The ``[[series]]`` results, in plan order: a job whose worker failed (the backend's
    ``{"error": message}``) is the entry's result with that error."""
    return [result if isinstance(result, SeriesResult) else job.failed(
                str(result.get("error") if isinstance(result, dict) else result))
            for job, result in zip(jobs, job_results) if isinstance(job, SeriesJob)]


def _dense_rows(jobs: list, job_results: list) -> dict[tuple, dict]:
    """The dense exact-ε job results merged per sweep curve (suite file, audit, pair)."""
    dense: dict[tuple, dict] = {}
    for job, result in zip(jobs, job_results):
        if not isinstance(job, DenseExactJob):
            continue
        entry = dense.setdefault(job.curve_key, {"deltas": list(job.deltas), "rows": [],
                                                 "errors": []})
        entry["rows"].extend(result.get("rows", []))
        entry["errors"].extend(result.get("errors", []))
        if result.get("error"):
            entry["errors"].append(result["error"])
    return dense


__all__ = ["judged_points", "run_audits"]
