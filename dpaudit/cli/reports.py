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

REPORT_FORMATS = ("md", "junit", "html", "comment")
#: what ``dpaudit report`` writes without --format
DEFAULT_REPORT_FORMATS = ("md", "junit", "html")
REPORT_FILES = {"md": "summary.md", "junit": "junit.xml", "html": "report.html",
                "comment": "comment.md"}


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
    report.add_argument("--format", nargs="+", choices=REPORT_FORMATS, dest="formats",
                        metavar="FORMAT", default=list(DEFAULT_REPORT_FORMATS),
                        help="one or more of md (summary.md), junit (junit.xml), html "
                             "(report.html), comment (comment.md: diff.md and summary.md cut "
                             "to fit a pull-request comment); default: "
                             f"{' '.join(DEFAULT_REPORT_FORMATS)}")
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


def _comment_writer(source: Path, args):
    """comment.md: diff.md beside results.json (when there is one) and summary.md, fitted to
    ``--comment-limit`` characters with ``--link`` (:mod:`dpaudit.report.comment`)."""
    from dpaudit.report.comment import write_comment
    from dpaudit.report.markdown import link_base, render_markdown

    def write(report, path):
        diff = source.parent / "diff.md"
        sections = [diff.read_text(encoding="utf-8") if diff.is_file() else "",
                    render_markdown(report, out_dir=link_base(source.parent))]
        return write_comment(sections, path, limit=args.comment_limit, link=args.link)
    return write


def cmd_report(args) -> int:
    from dpaudit.report.results_file import ResultsFileError, read_report

    source = results_path(args.results)
    try:
        report = read_report(source)
    except ResultsFileError as exc:
        print(f"dpaudit report: error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else source.parent
    writers = {}
    for fmt in dict.fromkeys(args.formats):
        if fmt == "md":
            from dpaudit.report.markdown import link_base, write_markdown

            base = link_base(source.parent)
            writers[fmt] = lambda r, p: write_markdown(r, p, out_dir=base)
        elif fmt == "junit":
            from dpaudit.report.junit import write_junit

            writers[fmt] = write_junit
        elif fmt == "comment":
            writers[fmt] = _comment_writer(source, args)
        else:
            try:  # written by another module; checked before anything is written
                from dpaudit.report.html import write_html
            except ImportError as exc:
                print(f"dpaudit report: error: the HTML report is not available in this "
                      f"installation ({exc})", file=sys.stderr)
                return 2
            figure_dir = source.parent  # the figures results.json names, drawn by the run
            writers[fmt] = lambda r, p: write_html(r, p, figure_dir=figure_dir)
    from dpaudit.cli.out_lock import OutputBusy, OutputLock

    written = []
    try:
        # the run's lock (issue 39, item 14): no report is written into a directory a run is
        # writing to, nor a run started while these are written
        with OutputLock.acquire(out):
            for fmt, write in writers.items():
                path = out / REPORT_FILES[fmt]
                write(report, path)
                written.append(str(path))
    except OutputBusy as exc:
        print(f"dpaudit report: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"dpaudit report: error: cannot write to {out}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    print(f"wrote {', '.join(written)} from {source}")
    return 0


__all__ = ["DEFAULT_REPORT_FORMATS", "REPORT_FILES", "REPORT_FORMATS", "add_report_parsers",
           "baseline_diff", "cmd_diff", "cmd_report", "results_path"]
