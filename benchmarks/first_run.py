"""README command 1, the first thing a newcomer waits for: where its time goes after the
audits, and what drawing report.html's power figures in another process saves (issue 37,
item 5).

Given the results.json of a finished default run (``dpaudit run audits/ --out DIR``), it
times the run's report phase as ``dpaudit run`` performs it — the figures (one matplotlib
PNG per curve and series), then summary.md, junit.xml and report.html, whose slow part is one
matplotlib power figure per pair — two ways, in interleaved pairs so that the machine's drift
falls on both alike:

* ``sequential`` — everything in one process (dpaudit run with one worker, and every run
  before issue 37);
* ``parallel`` — report.html's power figures drawn in one more process while the figures are
  drawn (:class:`dpaudit.cli.report_workers.PowerFiguresElsewhere`, what ``dpaudit run``
  does with two or more local workers).

It prints, per mode, the median wall seconds and the CPU seconds of this process, the median
ratio parallel / sequential over the pairs, and the parts (figures, power figures, the rest
of the page) timed alone once; wall times on a shared machine must be re-measured on a quiet
one (the load average is recorded beside them).

    python benchmarks/first_run.py reports/latest/results.json [--pairs 3] [--no-write]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import markdown_table, record  # noqa: E402


def report_phase(report, mode: str) -> tuple[float, float]:
    """(wall, CPU of this process) seconds of one report phase of ``report`` in ``mode``."""
    from dpaudit.cli.report_workers import PowerFiguresElsewhere
    from dpaudit.report.figures import write_figures
    from dpaudit.report.html import write_html
    from dpaudit.report.junit import write_junit
    from dpaudit.report.markdown import write_markdown

    run = dataclasses.replace(report.run, workers=2, backend="local: 2 processes")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        wall, cpu = time.perf_counter(), time.process_time()
        power = PowerFiguresElsewhere(report, run) if mode == "parallel" else None
        write_figures(report.run, out)
        write_markdown(report, out / "summary.md")
        write_junit(report, out / "junit.xml")
        write_html(report, out / "report.html", figure_dir=out,
                   power=power.result() if power else None)
        if power:
            power.close()
        return time.perf_counter() - wall, time.process_time() - cpu


def parts(report) -> list[list]:
    """Each part of the sequential phase timed alone (wall, CPU of this process)."""
    from dpaudit.report.figures import write_figures
    from dpaudit.report.html import power_figures, render_html

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, call in [("figures (PNG)", lambda: write_figures(report.run, Path(tmp))),
                           ("power figures (SVG)", lambda: power_figures(report)),
                           ("report.html with them", lambda: render_html(
                               report, figure_dir=tmp, power=power_figures(report)))]:
            wall, cpu = time.perf_counter(), time.process_time()
            call()
            rows.append([name, time.perf_counter() - wall, time.process_time() - cpu])
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="results.json of a finished default run")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)

    from dpaudit.report.results_file import read_report

    report = read_report(args.results)
    report_phase(report, "sequential")  # warm-up: imports, matplotlib's font cache
    times: dict[str, list[tuple[float, float]]] = {"sequential": [], "parallel": []}
    ratios = []
    for _ in range(args.pairs):
        for mode in ("parallel", "sequential"):
            times[mode].append(report_phase(report, mode))
        ratios.append(times["parallel"][-1][0] / times["sequential"][-1][0])
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    rows = [[mode, statistics.median(w for w, _ in t), statistics.median(c for _, c in t)]
            for mode, t in times.items()]
    curves, series = len(report.run.curves), len(report.run.series)
    pairs = sum(len(p.tests) for p in report.run.points)
    body = (f"The report phase of `dpaudit run` on {args.results} ({curves} curves and "
            f"{series} series drawn as PNG figures, report.html with a power figure per "
            f"pair of {pairs} tests): {args.pairs} interleaved pairs, median wall and CPU "
            f"seconds of the run's own process (load average {load}; wall times on this "
            f"shared machine must be re-measured on a quiet one).\n\n"
            + markdown_table(["mode", "wall s", "CPU s (own process)"], rows)
            + f"\n\nMedian ratio parallel / sequential: "
              f"{statistics.median(ratios):.3f} (pairs: "
              f"{', '.join(f'{r:.3f}' for r in ratios)}).\n\nThe parts, each alone once:\n\n"
            + markdown_table(["part", "wall s", "CPU s"], parts(report)))
    record("first run: the report phase", body, write=not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
