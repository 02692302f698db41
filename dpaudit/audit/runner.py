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
* :mod:`dpaudit.audit.select` — ``--only`` patterns;
* :mod:`dpaudit.audit.journal` — the journal of finished tests that ``--resume`` continues.

:func:`run_suites` loads every suite (a malformed one is recorded, the others still run),
plans every suite with a selected audit in full, drops the tasks of the audits not selected,
executes the rest (and the jobs) across ``workers`` processes, collects the ε-over-sweep
curves and series, and judges every audit point.

With a ``journal`` every finished test is journalled as it finishes; a run stopped by Ctrl-C or
SIGTERM (:mod:`dpaudit.stopping`) raises :class:`RunInterrupted` carrying the partial run —
the finished tests' records, every other test as a "not run" error record, and
:attr:`AuditRun.incomplete` saying so — and ``resume=True`` runs only the tests the journal
does not hold, with the numbers an uninterrupted run gives.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from dpaudit.audit.defaults import audit_defaults
from dpaudit.audit.execute import Progress
from dpaudit.audit.journal import FinishedTest, RunFingerprint, RunJournal, test_key
from dpaudit.audit.memory import parse_memory_size
from dpaudit.audit.plan import Task, plan_jobs, plan_suite
from dpaudit.audit.progress import RunCounts, RunProgress, as_run_progress
from dpaudit.audit.records import AuditOutcome, CertificateRecord, SuiteSummary, judge
from dpaudit.audit.select import AuditFilter
from dpaudit.audit.requires import SuiteSkipped
from dpaudit.audit.spec import Suite, SuiteError, load_suite
from dpaudit.audit.sweeps import sweep_curves
from dpaudit.stopping import stop_signal

PROFILES = {"quick": 0.1, "default": 1.0, "deep": 10.0}


@dataclass(frozen=True)
class Incomplete:
    """Why a run's results are partial: ``reason`` ("in progress" while it runs, "interrupted
    by SIGINT" / "interrupted by SIGTERM" after a stop) and how many of its tests finished."""

    reason: str
    tests_finished: int
    tests_planned: int

    def to_json(self) -> dict:
        return {"reason": self.reason, "tests_finished": self.tests_finished,
                "tests_planned": self.tests_planned}

    @classmethod
    def from_json(cls, data: dict | None) -> "Incomplete | None":
        return None if data is None else cls(str(data["reason"]), int(data["tests_finished"]),
                                             int(data["tests_planned"]))


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
    incomplete: Incomplete | None = None  # None: every planned test ran


class RunInterrupted(KeyboardInterrupt):
    """A run stopped (Ctrl-C, SIGTERM) while its tests ran; ``run`` holds what finished, marked
    :attr:`AuditRun.incomplete`, and ``signal`` names the signal ("SIGINT" or "SIGTERM")."""

    def __init__(self, run: AuditRun, signal: str):
        super().__init__(f"run interrupted by {signal}")
        self.run = run
        self.signal = signal


def run_suites(paths: Iterable[str], *, samples: int | None = None, profile: str = "default",
               seed: int | None = None, workers: int = 1,
               progress: RunProgress | Progress | None = None,
               on_suite_error: Callable[[SuiteError], None] | None = None,
               on_suite_skipped: Callable[[SuiteSkipped], None] | None = None,
               backend=None, only: Sequence[str] = (), journal: str | Path | None = None,
               resume: bool = False,
               on_started: Callable[[AuditRun], None] | None = None,
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

    ``journal`` (a file path; None: no journal) journals every finished test
    (:mod:`dpaudit.audit.journal`); with ``resume`` the journal of an interrupted run of the
    same suites and options is continued (when there is none, every test runs).
    ``on_started`` receives the planned run before any test runs, every test marked not run
    (:attr:`AuditRun.incomplete` = "in progress"); the CLI writes its reports from it, so that
    a run killed outright leaves reports that say so rather than the previous run's.

    Raises:
      ValueError: an unknown profile, a bad ``memory_limit``.
      dpaudit.audit.select.SelectionError: an ``only`` pattern that matches nothing.
      dpaudit.backends.BackendError: the backend cannot be set up (e.g. an unreachable
        scheduler).
      RunInterrupted: Ctrl-C or SIGTERM while the tests ran (it carries the partial run).
      dpaudit.audit.journal.ResumeError: a journal made by a different run.
      OSError: the journal cannot be written."""
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
                    journal, resume, on_started, memory_limit)
    finally:
        if owned:
            backend.close()


def _run(backend, paths, samples, profile, seed, reporter: RunProgress, on_suite_error,
         on_suite_skipped, start, selection: AuditFilter, journal, resume,
         on_started, memory_limit) -> AuditRun:
    paths = _distinct_files([str(p) for p in paths])
    journalled = _JournalSlot()
    if journal is not None:
        fingerprint = RunFingerprint.of(paths, samples=samples, profile=profile, seed=seed,
                                        only=selection.patterns)
        if resume and Path(journal).exists():  # checked before planning: fail fast
            journalled.book = RunJournal.resume(journal, fingerprint)
        else:
            if resume:
                reporter.note(f"dpaudit: --resume: no interrupted run to continue ({journal} "
                              f"does not exist): running every test")
            # created once planning succeeded: a run refused before it starts writes nothing
            journalled.start = lambda: RunJournal.start(journal, fingerprint)
    try:
        return _run_journalled(backend, paths, samples, profile, seed, reporter,
                               on_suite_error, on_suite_skipped, start, selection, journalled,
                               on_started, memory_limit)
    finally:
        if journalled.book is not None:
            journalled.book.close()


class _JournalSlot:
    """The run's journal: open (``book``), to be started (``start``), or none."""

    book: RunJournal | None = None
    start: Callable[[], RunJournal] | None = None


def _run_journalled(backend, paths, samples, profile, seed, reporter: RunProgress,
                    on_suite_error, on_suite_skipped, start, selection: AuditFilter,
                    journalled: _JournalSlot, on_started, memory_limit) -> AuditRun:
    run = AuditRun(workers=max(1, backend.workers), profile=profile, samples_override=samples,
                   seed_override=seed, backend=backend.describe(), only=selection.patterns)
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
        reporter.defaults_planned(audit_defaults(t for t in suite_tasks if t.audit in chosen))
        tasks.extend(t for t in suite_tasks if t.audit in chosen)
    jobs, keys = plan_jobs(loaded, tasks)
    if journalled.start is not None:
        journalled.book = journalled.start()
    book = journalled.book
    done = {} if book is None else {test_key(t): book.finished[test_key(t)] for t in tasks
                                    if test_key(t) in book.finished}
    remaining = [t for t in tasks if test_key(t) not in done]
    reporter.started(RunCounts(
        suites=len(loaded), audit_points=len({(t.suite_file, t.audit_index, t.sweep_index)
                                              for t in tasks}),
        tests=sum(_tests(t) for t in tasks),
        certificates=sum(len(t.grid()) for t in tasks), workers=run.workers,
        only=selection.patterns, all_audit_points=all_points,
        where="" if backend.kind == "local" else run.backend,
        resumed=sum(len(test.records) for test in done.values())))
    if on_started is not None:
        on_started(_partial(run, tasks, done, "in progress", start))

    def finished(i, records, curve):
        done[test_key(remaining[i])] = FinishedTest(tuple(records), curve)
        if book is not None and not any(r.error for r in records):
            book.add(remaining[i], records, curve)  # a test that errored runs again on resume

    try:
        _, _, job_results = backend.run(remaining, jobs, progress=reporter.record,
                                        on_task=finished)
    except KeyboardInterrupt as exc:
        signal = stop_signal(exc)
        raise RunInterrupted(_partial(run, tasks, done, f"interrupted by {signal}", start),
                             signal) from exc
    records = [r for t in tasks for r in done[test_key(t)].records]
    run.curves = [done[test_key(t)].curve for t in tasks if done[test_key(t)].curve is not None]
    run.curves.extend(sweep_curves(records, _dense_rows(keys, job_results)))
    run.series = [r for key, r in zip(keys, job_results) if key[0] == "series"]
    run.records, run.outcomes = judge(records)
    run.seconds = time.perf_counter() - start
    return run


def _partial(run: AuditRun, tasks: list[Task], done: dict, reason: str, start) -> AuditRun:
    """``run`` with the finished tests' records and every other test's records marked not run
    (``error``), :attr:`AuditRun.incomplete` saying why."""
    records = []
    for task in tasks:
        test = done.get(test_key(task))
        records.extend(test.records if test is not None else _not_run(task, reason))
    judged, outcomes = judge(records)
    finished = sum(_tests(t) for t in tasks if test_key(t) in done)
    return dataclasses.replace(
        run, records=judged, outcomes=outcomes, series=[],
        curves=[done[test_key(t)].curve for t in tasks
                if test_key(t) in done and done[test_key(t)].curve is not None],
        seconds=time.perf_counter() - start,
        incomplete=Incomplete(reason, finished, sum(_tests(t) for t in tasks)))


def _tests(task: Task) -> int:
    """The tests of a task: its black-box curve certificate, and its white-box one."""
    return 2 if task.white_box else 1


def _not_run(task: Task, reason: str) -> list[CertificateRecord]:
    """The records of a test that did not run (the run is ``reason``)."""
    why = ("not run yet: the run is in progress (or was killed before it could say so); "
           "`dpaudit run --resume` continues it" if reason == "in progress" else
           f"not run: the run was {reason} before this test finished; "
           f"`dpaudit run --resume` continues it")
    shared = task.record_fields()
    return [CertificateRecord.create(**shared, **entry, error=why) for entry in task.grid()]


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


__all__ = ["PROFILES", "AuditRun", "Incomplete", "RunInterrupted", "run_suites"]
