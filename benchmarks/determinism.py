"""The determinism matrix (issue 39, "Measure"): one suite run every way a run can be made,
its records compared leaf by leaf (timings aside) with the first run's.

Ways: ``--workers 1``, ``--workers 2``, ``--cluster local:2`` (when dask is installed), a run
sent SIGTERM once its journal holds ``--stop-after`` entries and then ``--resume``d, and a
repeat of the first.  Reports, per way, the exit status, the wall time, the number of leaves
(scalar values in the records, timings aside) and how many differ from the first run.

    python benchmarks/determinism.py [--suite audits/classic.toml] [--stop-after 10]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import markdown_table, record

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "import sys; from dpaudit.cli.commands import main; sys.exit(main())"]


def leaves(value, prefix=""):
    """{path: scalar} of every value of the records, keys with "seconds" dropped."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if "seconds" not in k:
                out.update(leaves(v, f"{prefix}/{k}"))
        return out
    if isinstance(value, list):
        out = {}
        for i, v in enumerate(value):
            out.update(leaves(v, f"{prefix}[{i}]"))
        return out
    return {prefix: value}


def records(out: Path) -> dict:
    from dpaudit.report.results_file import read_document

    return leaves(read_document(out / "results.json")["audits"])


def run(args, out: Path) -> tuple[int, float]:
    start = time.perf_counter()
    done = subprocess.run([*CLI, "run", *args, "--out", str(out), "-q"], capture_output=True,
                          text=True)
    return done.returncode, time.perf_counter() - start


def interrupted(suite: str, out: Path, stop_after: int) -> tuple[int, float]:
    start = time.perf_counter()
    proc = subprocess.Popen([*CLI, "run", suite, "--out", str(out), "-q", "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = out / ".dpaudit-journal.jsonl"
    while proc.poll() is None and not (journal.exists()
                                       and journal.read_text().count("\n") > stop_after):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    proc.communicate()
    status, _ = run([suite, "--resume", "--workers", "2"], out)
    return status, time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--suite", default=str(ROOT / "audits" / "classic.toml"))
    ap.add_argument("--stop-after", type=int, default=10)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    ways = [("--workers 1", ["--workers", "1"]), ("--workers 2", ["--workers", "2"])]
    if importlib.util.find_spec("distributed") is not None:
        ways.append(("--cluster local:2", ["--cluster", "local:2"]))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        first = None
        for label, flags in ways + [("SIGTERM + --resume", None), ("--workers 1, again",
                                                                    ["--workers", "1"])]:
            out = Path(tmp) / label.replace(" ", "_").replace("/", "_")
            status, seconds = (interrupted(args.suite, out, args.stop_after) if flags is None
                               else run([args.suite, *flags], out))
            got = records(out)
            first = first or got
            differ = sum(1 for k in set(first) | set(got) if first.get(k) != got.get(k))
            rows.append([label, status, f"{seconds:.0f}", f"{len(got):,}", differ])
            print(rows[-1], flush=True)
    body = (f"`{Path(args.suite).relative_to(ROOT)}`, each way from a fresh output directory; "
            f"'leaves' are the scalar values of results.json's records (timings aside), "
            f"'differ' how many differ from the first run's.  Load average "
            f"{os.getloadavg()[0]:.1f} (wall times are a loaded machine's: re-measure on a "
            f"quiet one).\n\n"
            + markdown_table(["run", "exit", "wall s", "leaves", "differ"], rows))
    record("Determinism matrix (benchmarks/determinism.py)", body, write=not args.no_write)


if __name__ == "__main__":
    main()
