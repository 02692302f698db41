"""``dpaudit diff`` and ``dpaudit report``: reports of finished runs, without re-running.

``dpaudit diff OLD NEW [--format md|json] [--out FILE]`` compares two results.json files
(:func:`dpaudit.report.diff.diff_reports`): only the audit points both runs selected, saying
first what the runs differ in (profile, samples, seeds, ``--only``, version;
:mod:`dpaudit.report.comparable`).  Exit status: 0 no regression, 1 a regression,
2 an unreadable input or output (one-line message on stderr).

``dpaudit report RESULTS [--format md junit html ...] [--out DIR]`` re-renders summary.md,
junit.xml and/or report.html from a results.json into DIR (default: the results' directory).
Figure links in summary.md point at the figures next to RESULTS, as the path was given (so
they resolve from the current directory; an absolute path inside it is made relative).
Exit status: 0 written, 2 unreadable input or unwritable output.

Wherever a results.json is expected, a directory holding one is accepted too.  The run
command's ``--baseline`` uses :func:`baseline_diff` from here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from dpaudit.report.comment import GITHUB_COMMENT_LIMIT

#: the built-in formats (:mod:`dpaudit.report.formats`; plug-ins add theirs), for --help
BUILT_IN_FORMATS = "md (summary.md), junit (junit.xml), html (report.html), comment (comment.md)"


def add_report_parsers(sub) -> None:
    """Add the ``diff`` and ``report`` subcommands to an argparse subparsers object."""
    diff = sub.add_parser(
        "diff", help="compare two results.json: new violations, regressions, ε changes",
        description="Compare two runs: new and resolved violations, newly unmet or met "
                    "expectations, audits added or removed, new errors, and ε changes larger "
                    "than the two certificates' own confidence intervals explain. Only the "
                    "audit points both runs selected are compared; the header says what the "
                    "runs differ in (profile, samples, seeds, --only, version). Exit 0: no "
                    "regression; 1: a regression (a newly unmet expectation, a new error, a "
                    "new violation of an audit expected consistent); 2: unreadable input.")
    diff.add_argument("old", metavar="OLD", help="the baseline results.json (or its directory)")
    diff.add_argument("new", metavar="NEW", help="the new results.json (or its directory)")
    diff.add_argument("--format", choices=("md", "json"), default="md",
                      help="Markdown for a pull-request comment (default) or JSON")
    diff.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")

    report = sub.add_parser(
        "report", help="re-render summary.md / junit.xml / report.html from a results.json",
        description="Re-render reports from a results.json without re-running the audits. "
                    "Exit 0: written; 2: unreadable results or unwritable output.")
    report.add_argument("results", metavar="RESULTS",
                        help="a results.json written by `dpaudit run` (or its directory)")
    report.add_argument("--format", nargs="+", dest="formats", metavar="FORMAT",
                        help=f"one or more of {BUILT_IN_FORMATS}: diff.md and summary.md cut "
                             f"to fit a pull-request comment) or an installed plug-in's "
                             f"(dpaudit.report_formats entry points); default: what a run "
                             f"writes (md junit html)")
    report.add_argument("--out", metavar="DIR",
                        help="output directory (default: the directory of RESULTS)")
    report.add_argument("--link", metavar="URL",
                        help="comment: where the full report is (e.g. the CI run's page)")
    report.add_argument("--comment-limit", metavar="CHARS", type=_positive_int,
                        default=GITHUB_COMMENT_LIMIT,
                        help=f"comment: the most characters (default {GITHUB_COMMENT_LIMIT}, "
                             f"GitHub's limit)")


def _positive_int(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1000:
        raise argparse.ArgumentTypeError(f"expected a number of characters ≥ 1000, got {text!r}")
    return value


def results_path(text: str) -> Path:
    """``text`` as a results.json path: a directory stands for its ``results.json``."""
    path = Path(text)
    return path / "results.json" if path.is_dir() else path


def baseline_diff(baseline, report, out: Path) -> tuple[int, list[str], Path]:
    """Diff a finished run against its baseline (a RunReport), write ``out/diff.md``.

    Returns (the diff's exit status, lines to print, the path written)."""
    from dpaudit.util.atomic import write_text_atomic
    from dpaudit.report.diff import diff_reports

    diff = diff_reports(baseline, report)
    path = write_text_atomic(out / "diff.md", diff.to_markdown())
    lines = [f"baseline: {len(diff.regressions)} regression(s), {len(diff.new_violations)} "
             f"new violation(s), {len(diff.resolved_violations)} resolved, "
             f"{len(diff.significant_changes)} significant ε change(s), "
             f"{len(diff.added_points)} audit point(s) added, {len(diff.removed_points)} "
             f"removed"]
    lines += [f"  {note}" for note in diff.comparison.notes(diff.compared)
              if not diff.comparison.same_settings]
    lines += [f"  regression: {line}" for line in diff.regressions]
    return diff.exit_status, lines, path


def cmd_diff(args) -> int:
    from dpaudit.util.atomic import write_text_atomic
    from dpaudit.report.diff import diff_reports
    from dpaudit.report.results_file import ResultsFileError, read_report

    try:
        old = read_report(results_path(args.old))
        new = read_report(results_path(args.new))
    except ResultsFileError as exc:
        print(f"dpaudit diff: error: {exc}", file=sys.stderr)
        return 2
    diff = diff_reports(old, new)
    text = (diff.to_markdown() if args.format == "md"
            else json.dumps(diff.to_json(), indent=2, ensure_ascii=False) + "\n")
    if args.out:
        try:
            write_text_atomic(args.out, text)
        except OSError as exc:
            print(f"dpaudit diff: error: cannot write {args.out}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        print(f"wrote {args.out}; {len(diff.regressions)} regression(s); exit status "
              f"{diff.exit_status}")
    else:
        sys.stdout.write(text)
    return diff.exit_status


def cmd_report(args) -> int:
    from dpaudit.report.results_file import ResultsFileError, read_report

    source = results_path(args.results)
    try:
        report = read_report(source)
    except ResultsFileError as exc:
        print(f"dpaudit report: error: {exc}", file=sys.stderr)
        return 2
    from dpaudit.report.formats import RenderContext, default_report_formats, report_formats

    out = Path(args.out) if args.out else source.parent
    try:
        known = report_formats()
    except Exception as exc:  # noqa: BLE001 - a broken plug-in is named, not a traceback
        print(f"dpaudit report: error: a report-format plug-in fails to load: "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    names = list(dict.fromkeys(args.formats or default_report_formats()))
    unknown = [n for n in names if n not in known]
    if unknown:
        from dpaudit.util.hints import did_you_mean

        print(f"dpaudit report: error: unknown format {unknown[0]!r}"
              f"{did_you_mean(unknown[0], list(known))} (known: {', '.join(known)})",
              file=sys.stderr)
        return 2
    for name in names:  # checked before anything is written
        why = known[name].unavailable()
        if why:
            print(f"dpaudit report: error: {why}", file=sys.stderr)
            return 2
    # figures are the ones results.json names, drawn by the run next to it
    context = RenderContext(out=out, link_dir=source.parent, figure_dir=source.parent,
                            results=source, link=args.link,
                            comment_limit=args.comment_limit)
    from dpaudit.cli.out_lock import OutputBusy, OutputLock

    written = []
    try:
        # the run's lock (issue 39, item 14): no report is written into a directory a run is
        # writing to, nor a run started while these are written
        with OutputLock.acquire(out):
            for name in names:
                fmt = known[name]
                written.append(str(fmt.write(report, out / fmt.filename, context)))
    except OutputBusy as exc:
        print(f"dpaudit report: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"dpaudit report: error: cannot write to {out}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    print(f"wrote {', '.join(written)} from {source}")
    return 0


__all__ = ["BUILT_IN_FORMATS", "add_report_parsers",
           "baseline_diff", "cmd_diff", "cmd_report", "results_path"]
