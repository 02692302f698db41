"""``dpaudit run``: run audit suites and write every report of the run.

``dpaudit run SUITE_OR_DIR... --out DIR [--baseline OLD]`` writes ``DIR/results.json`` (the
source of truth, written first), ``DIR/summary.md`` (figure links relative to the current
directory, see :mod:`dpaudit.report.markdown`), ``DIR/junit.xml``
(:mod:`dpaudit.report.junit`), ``DIR/report.html`` (:mod:`dpaudit.report.html`) and the
figures under ``DIR/figures``; every file is written atomically, and a rendering that fails
costs only its own file (exit status 2, the message printed).  The run
executes on local processes (``--workers W``), an existing Dask cluster (``--scheduler
tcp://HOST:PORT``) or a Dask LocalCluster started for it (``--cluster local:N``;
:mod:`dpaudit.backends`), with the same numbers; an unreachable scheduler is exit status 2
with a one-line error.

While it runs, every finished test is journalled in ``DIR/.dpaudit-journal.jsonl``
(:mod:`dpaudit.audit.journal`), and the reports are written at the start with every test
marked not run, so that reports left by a run killed outright say so instead of showing the
previous run's.  Ctrl-C (exit status 130) or SIGTERM (143) stops the workers and writes the
reports of what finished, marked incomplete (results.json ``incomplete``, summary.md, junit.xml
and report.html say so; no figures); ``--resume`` runs the rest, and the complete run deletes
the journal.  Once the audits are done, a signal no longer cuts the reports short
(:func:`cmd_run`): they are finished, then the exit status is the signal's (130 / 143), with
one line saying that the run completed but was interrupted while writing.

Exit status: 0 every audit met its expectation; 1 one did not; 2 an error (bad usage, a
malformed suite, an audit that raised, an unreadable ``--baseline``, unwritable output).  With
``--baseline OLD`` (a results.json or its directory, read before anything runs) the run is
also compared with OLD (:mod:`dpaudit.report.diff`), ``DIR/diff.md`` is written, and a
regression turns an exit status of 0 into 1; 2 stays 2.  results.json's own
``summary.exit_status`` is the run's status without the baseline.  ``--update-baseline``
creates a missing baseline (diff.md then says there was none) and writes the run's
results.json to the baseline path when the final exit status is 0
(:mod:`dpaudit.cli.baseline`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shlex
import sys
from pathlib import Path

from dpaudit.util.stopping import StopRequests, stop_signal, stop_status
from dpaudit.results.recorded_warnings import warning_lines


def expand_suite_paths(items: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Files as given, directories expanded to their ``*.toml`` (sorted); plus (path, problem)
    for directories without suites."""
    paths, problems = [], []
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(str(f) for f in p.glob("*.toml") if f.is_file())
            if not found:
                problems.append((item, f"{item}: directory contains no *.toml suite files"))
            paths.extend(found)
        else:
            paths.append(item)  # a missing file is reported by load_suite as a SuiteError
    return paths, problems


def write_run_reports(run, out: Path, *, command: str, status: int, link_dir: str,
                      progress=None, stops: StopRequests | None = None):
    """Write every report of a finished run under ``out``: results.json first (before any
    figure is drawn, so that nothing computed is lost if drawing fails), then the figures,
    then results.json again with the figure paths, summary.md, junit.xml and report.html.
    Each file is written atomically; a rendering that fails loses only its own file.

    ``progress`` (a :class:`dpaudit.audit.progress.RunProgress`) reports the figures and then
    the other reports as two phases, and is closed at the end.

    An incomplete run (:attr:`dpaudit.results.run.AuditRun.incomplete`) gets no figures, and
    report.html draws none (not even its power figures) when the figures were not drawn.

    ``stops`` (a deferring :class:`dpaudit.util.stopping.StopRequests`): only the figures may be
    cut short by a signal (or skipped, if one came already); results.json, summary.md,
    junit.xml and report.html are then written without figures.  Those are fast to render,
    so a signal never leaves them as the "not run yet" reports of the start of the run while
    results.json is complete, and the time to exit stays bounded; the figures are the one
    slow step (seconds), and optional (a run without matplotlib has none either).

    Returns (report, written paths, failure messages); report is None when results.json itself
    could not be written (then the messages say why)."""
    from dpaudit.audit.progress import RunProgress
    from dpaudit.cli.report_workers import PowerFiguresElsewhere
    from dpaudit.report.figures import write_figures
    from dpaudit.report.formats import RenderContext, report_formats
    from dpaudit.report.json_report import build_report
    from dpaudit.report.results_file import write_results

    report = build_report(run, command=command, exit_status=status)
    results = out / "results.json"
    try:
        write_results(report, results)
    except OSError as exc:
        return None, [], [f"cannot write {results}: {exc.strerror or exc}"]
    power = PowerFiguresElsewhere(report, run)  # report.html's, drawn while the figures are
    written, failures = [results], []
    progress = progress or RunProgress()
    drawn = False  # whether the figures were drawn: report.html draws none otherwise either
    try:
        if run.incomplete is None:  # a stopped run writes its reports fast, without figures
            with stops.interruptible() if stops else contextlib.nullcontext():
                progress.phase(f"writing figures to {out}", len(run.curves) + len(run.series))
                figures = write_figures(run, out, on_figure=progress.advance)
            drawn = True
            report = build_report(run, command=command, exit_status=status, figures=figures)
            write_results(report, results)
    except KeyboardInterrupt:
        if stops is None or stops.signal is None:
            power.close()
            raise  # not a signal noted by ``stops``: ours to pass on
    except Exception as exc:  # noqa: BLE001 - results.json is safe; report the rest
        failures.append(f"cannot draw the figures under {out / 'figures'}: "
                        f"{type(exc).__name__}: {exc}")
    context = RenderContext(out=out, link_dir=link_dir, figure_dir=out, figures_drawn=drawn,
                            results=results, power=power.result() if drawn else None)
    power.close()  # done, or not needed (figures not drawn: the page draws none)
    formats = [f for f in report_formats().values() if f.by_default]
    progress.phase(f"writing {', '.join(f.filename for f in formats)}", len(formats))
    for fmt in formats:
        path = out / fmt.filename
        try:
            written.append(fmt.write(report, path, context))
        except Exception as exc:  # noqa: BLE001 - one rendering never costs another
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            failures.append(f"cannot write {path}: {type(exc).__name__}: {reason}")
        progress.advance()
    progress.close()
    return report, written, failures


def cmd_run(args, argv: list[str]) -> int:
    """Run the ``dpaudit run`` command for parsed ``args``; returns the exit status.  The run
    holds the lock of its ``--out`` directory from before its first write until after its
    last (:mod:`dpaudit.cli.out_lock`).

    Signals (:class:`dpaudit.util.stopping.StopRequests`): until the audits are done, Ctrl-C and
    SIGTERM stop the run (what finished is written, marked incomplete).  After that, a signal
    is noted and the reports are finished first -- behaviour (a) rather than leaving them
    unwritten, because they are fast: the text reports take milliseconds, and the figures,
    the one slow step, are the only thing a signal still cuts short (the text reports are
    then written without them).  So the time to exit stays bounded, and every report is the
    finished run's.  A second signal meanwhile is noted too; each file is written atomically
    anyway.  The exit status is then the first signal's (130 / 143), with one line saying
    that the run completed but was interrupted while writing; no traceback."""
    from dpaudit.cli.out_lock import OutputBusy, OutputLock

    if args.update_baseline and not args.baseline:
        print("dpaudit: error: --update-baseline needs --baseline PATH (where the baseline is "
              "kept, e.g. --baseline reports/baseline/results.json)", file=sys.stderr)
        return 2
    if args.update_baseline and args.only:
        print("dpaudit: error: --update-baseline cannot be used with --only: the baseline "
              "would keep only the selected audits", file=sys.stderr)
        return 2
    created = not os.path.lexists(args.out)
    try:
        lock = OutputLock.acquire(args.out)
    except OutputBusy as exc:
        print(f"dpaudit: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"dpaudit: error: cannot write to {args.out}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    try:
        with lock, StopRequests() as stops:
            return _run_locked(args, argv, stops)
    except KeyboardInterrupt as exc:  # before the audits started: nothing was written
        print(f"dpaudit: interrupted by {stop_signal(exc)}", file=sys.stderr)
        return stop_status(exc)
    finally:
        if created:  # a run refused before it wrote anything leaves no directory behind
            lock.remove_if_alone()


def _run_locked(args, argv: list[str], stops: StopRequests) -> int:
    """:func:`cmd_run` once the output directory is locked."""
    from dpaudit.audit.journal import JOURNAL_NAME, ResumeError
    from dpaudit.audit.progress import make_progress
    from dpaudit.audit.run import run_audits
    from dpaudit.audit.select import SelectionError
    from dpaudit.backends import BackendError, default_workers, make_backend, parse_cluster
    from dpaudit.cli.baseline import BaselineError, read_baseline
    from dpaudit.results.options import RunOptions
    from dpaudit.results.records import exit_status

    baseline = None
    if args.baseline:
        try:
            baseline = read_baseline(args.baseline, update=args.update_baseline,
                                     suites=args.suites)
        except BaselineError as exc:
            print(f"dpaudit: error: --baseline: {exc}", file=sys.stderr)
            return 2
    command = "dpaudit " + " ".join(shlex.quote(a) for a in argv)
    paths, problems = expand_suite_paths(args.suites)
    for _, problem in problems:
        print(f"dpaudit: error: {problem}", file=sys.stderr)
    cores = default_workers()
    workers = args.workers or cores
    if workers > cores and not args.oversubscribe:
        print(f"dpaudit: --workers {workers} is more than the {cores} core(s) available: using "
              f"{cores} (--oversubscribe to insist)", file=sys.stderr)
        workers = cores
    cluster = args.cluster
    if cluster is not None and parse_cluster(cluster) > cores and not args.oversubscribe:
        print(f"dpaudit: --cluster {cluster} starts more workers than the {cores} core(s) "
              f"available: using local:{cores} (--oversubscribe to insist)", file=sys.stderr)
        cluster = f"local:{cores}"

    progress = make_progress(sys.stderr, quiet=args.quiet)
    out = Path(args.out)

    def on_suite_error(exc):
        progress.note(f"dpaudit: error: {exc}")

    def on_suite_skipped(exc):
        progress.note(f"dpaudit: {exc}")

    def on_started(planned):  # replace the previous run's reports with "not run yet" ones
        for failure in write_run_reports(_with_problems(planned, problems), out,
                                         command=command, status=exit_status(planned),
                                         link_dir=args.out)[2]:
            progress.note(f"dpaudit: error: {failure}")

    options = RunOptions(samples=args.samples, profile=args.profile, seed=args.seed,
                         only=tuple(args.only), memory_limit=args.memory_limit,
                         time_limit=args.time_limit,
                         fixed_n=args.fixed_n, power=args.power,
                         require_power=args.require_power)
    try:
        with make_backend(scheduler=args.scheduler, cluster=cluster,
                          workers=workers) as backend:
            run = run_audits(paths, options, backend=backend, progress=progress,
                             on_suite_error=on_suite_error, on_suite_skipped=on_suite_skipped,
                             journal=out / JOURNAL_NAME, resume=args.resume,
                             on_started=on_started)
            stops.defer()  # the audits are done: from here on a signal waits for the reports
    except (BackendError, SelectionError, ResumeError) as exc:  # e.g. an unreachable scheduler
        progress.close()
        print(f"dpaudit: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the journal (or the reports at the start) cannot be written
        progress.close()
        print(f"dpaudit: error: cannot write to {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # before any test ran: nothing to write
        progress.close()
        print(f"dpaudit: interrupted by {stop_signal(exc)}", file=sys.stderr)
        return stop_status(exc)
    if run.incomplete is not None:  # stopped: what finished is written, marked incomplete
        progress.close()
        return _write_stopped(run, out, command, args.out, problems, stops)
    run = _with_problems(run, problems)
    status = exit_status(run)
    if not args.quiet:  # --quiet: stderr stays empty, the headline is stdout's last line
        progress.note(_early_line(run, command, status, out))
    report, written, failures = write_run_reports(run, out, command=command, status=status,
                                                  link_dir=args.out, progress=progress,
                                                  stops=stops)
    if report is None:  # not even results.json could be written
        print(f"dpaudit: error: {failures[0]}", file=sys.stderr)
        return 2
    (out / JOURNAL_NAME).unlink(missing_ok=True)  # complete: nothing left to resume
    for failure in failures:
        print(f"dpaudit: error: {failure}", file=sys.stderr)
    if failures:
        status = 2
    diff_lines = []
    if baseline is not None:
        status, diff_lines = _compare_with_baseline(baseline, report, out, status, written,
                                                    interrupted=stops.signal is not None)
    print(_counts_line(report))
    for point in run.points:
        if not point.met_expectation:
            at = "" if point.sweep is None else f"[{point.sweep.parameter}={point.sweep.value}]"
            got = (f"{point.verdict}, underpowered (require_power)"
                   if point.verdict == point.expect else point.verdict)
            why = next((c.rejection_reason for _, c in point.certificates()
                        if c.rejection_reason), None)  # e.g. the grey-box replay's finding
            print(f"  unmet: {point.suite}/{point.audit}{at}: expected {point.expect}, "
                  f"got {got}" + (f" — {why}" if why else ""))
    for series in run.series:  # a series is not a certificate: say here that it failed
        if series.error:
            print(f"dpaudit: error: {series.suite}/series {series.name}: {series.error}",
                  file=sys.stderr)
    from dpaudit.report.glossary import plural

    exact_only = len(report.summary.exact_only_violations)
    if exact_only:
        print(f"  {plural(exact_only, 'certificate')} whose exact ε exceeds the claim but "
              "could not be certified at this sample size (see summary.md)")
    for line in warning_lines(run.points):
        print(line)
    for line in diff_lines:
        print(line)
    if stops.signal is not None:
        status = stop_status(stops.signal)
    print(f"wrote {', '.join(str(p) for p in written)}; exit status {status}")
    print(_headline_line(report, status))
    if stops.signal is not None:
        figures = "" if report.figures.written or not (run.curves or run.series) else (
            ", without figures (drawing them was cut short; the next run draws them)")
        print(f"dpaudit: interrupted by {stops.signal} while writing the reports: the run "
              f"completed and its reports are written{figures}; exit status {status}",
              file=sys.stderr)
    return status


def _compare_with_baseline(baseline, report, out: Path, status: int, written: list,
                           *, interrupted: bool) -> tuple[int, list[str]]:
    """Compare a finished run with its ``--baseline`` (:mod:`dpaudit.cli.baseline`): write
    ``out/diff.md`` (appended to ``written``), and with ``--update-baseline`` write the run's
    results.json to the baseline path when the final status is 0 and no signal came.

    Returns (the exit status with the comparison, lines to print)."""
    from dpaudit.util.atomic import write_text_atomic
    from dpaudit.cli.baseline import missing_note, not_written_reason, update_baseline
    from dpaudit.cli.reports import baseline_diff

    lines = []
    try:
        if baseline.report is not None:
            diff_status, lines, diff_path = baseline_diff(baseline.report, report, out)
            written.append(diff_path)
            if status != 2:
                status = max(status, diff_status)
    except OSError as exc:
        print(f"dpaudit: error: cannot write {out / 'diff.md'}: {exc.strerror or exc}",
              file=sys.stderr)
        status = 2
    if not baseline.update:
        return status, lines
    why_not = None
    if interrupted:
        why_not = "the run was interrupted while writing its reports"
        lines.append(f"baseline: {baseline.path.as_posix()} left as it was: {why_not}")
    else:
        try:
            updated, line = update_baseline(baseline, out / "results.json", status)
            lines.append(line)
            why_not = None if updated else not_written_reason(status)
        except OSError as exc:
            why_not = f"it could not be written ({exc.strerror or exc})"
            print(f"dpaudit: error: cannot write the baseline {baseline.path}: "
                  f"{exc.strerror or exc}", file=sys.stderr)
            status = 2
    if baseline.report is None:
        try:
            written.append(write_text_atomic(out / "diff.md",
                                             missing_note(baseline.path, why_not)))
        except OSError as exc:
            print(f"dpaudit: error: cannot write {out / 'diff.md'}: {exc.strerror or exc}",
                  file=sys.stderr)
            status = 2
    return status, lines


def _counts_line(report) -> str:
    """The run in numbers (:mod:`dpaudit.report.glossary`'s four counts, the certificates by
    verdict with the violations split into expected and unexpected, the wall time)."""
    from dpaudit.report.glossary import ReportCounts, plural
    from dpaudit.report.headline import verdict_counts

    run, summary = report.run, report.summary
    skipped = sum(1 for suite in run.suites if suite.skipped)
    suites = (f"; {plural(summary.suite_errors, 'malformed suite file')}"
              if summary.suite_errors else "") + (f", {skipped} skipped" if skipped else "")
    return (f"{ReportCounts.of(run).text(', ')}: {verdict_counts(report)}{suites} — "
            f"{run.seconds:.1f} s")


def _early_line(run, command: str, status: int, out: Path) -> str:
    """What the run found, said as soon as the audits are done, before the figures and the
    reports (seconds) are written: its headline and the run's exit status so far."""
    from dpaudit.report.json_report import build_report

    report = build_report(run, command=command, exit_status=status)
    return (f"audits done in {run.seconds:.1f} s: {_headline_line(report, status)}; "
            f"writing the reports to {out}")


def _headline_line(report, status: int) -> str:
    """The run's last line: its headline (:func:`dpaudit.report.headline.headline`), and,
    when the exit status says otherwise (a regression against ``--baseline``, a report that
    could not be written, a signal), why."""
    from dpaudit.report.headline import headline

    line = headline(report)
    text = line.text()
    if line.passed and status != 0:
        text += f" — but exit status {status} (see above)"
    return text


def _with_problems(run, problems):
    """``run`` with a failed suite entry for each directory that held no suite."""
    from dpaudit.results.records import SuiteSummary

    if not problems:
        return run
    return dataclasses.replace(run, suites=[*run.suites, *(SuiteSummary.failed(path, problem)
                                                          for path, problem in problems)])


def _write_stopped(run, out: Path, command: str, link_dir: str, problems,
                   stops: StopRequests) -> int:
    """Write the reports of a run stopped by a signal (``run.incomplete``) and say how to
    resume it; returns the exit status of the signal (130 SIGINT, 143 SIGTERM).  A further
    signal meanwhile (``stops``, deferring) is noted and the reports are finished: without
    figures, they are fast."""
    from dpaudit.results.records import exit_status

    run = _with_problems(run, problems)
    incomplete = run.incomplete
    resume = command if " --resume" in command else command + " --resume"
    print(f"dpaudit: interrupted by {incomplete.signal}: {incomplete.tests_finished} of "
          f"{incomplete.tests_planned} tests finished; writing what finished (marked "
          f"incomplete) to {out}", file=sys.stderr)
    report, written, failures = write_run_reports(run, out, command=command,
                                                  status=exit_status(run), link_dir=link_dir,
                                                  stops=stops)
    if stops.signal is not None:
        print(f"dpaudit: interrupted again by {stops.signal} while writing the reports: "
              "they were finished first", file=sys.stderr)
    for failure in failures:
        print(f"dpaudit: error: {failure}", file=sys.stderr)
    if report is not None:
        print(f"wrote {', '.join(str(p) for p in written)} (incomplete); continue with: "
              f"{resume}", file=sys.stderr)
    return stop_status(incomplete.signal)


__all__ = ["cmd_run", "expand_suite_paths"]
