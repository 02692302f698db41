"""What ``import dpaudit``, ``dpaudit --help`` and ``dpaudit list`` cost (issue item 5: the
first two under 0.5 s).

Median wall time over ``--runs`` fresh interpreters of

* ``python -c "import dpaudit"``,
* ``python -m dpaudit.cli --help``,
* ``python -m dpaudit.cli list``,
* ``python -c pass`` (the interpreter alone, for reference),

each run with the checkout first on ``PYTHONPATH``; then the top cumulative entries of
``python -X importtime`` for the first two.  With ``--compare OLD`` (another checkout, e.g.
``git archive BASE | tar -x -C /tmp/base``) both are measured, runs interleaved so that the
load of a shared machine hits both alike, and the section of RESULTS.md is a before/after
table.

    python benchmarks/import_time.py [--runs 7] [--compare /tmp/base] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import markdown_table, record  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "import dpaudit": ["-c", "import dpaudit"],
    "dpaudit --help": ["-m", "dpaudit.cli", "--help"],
    "dpaudit list": ["-m", "dpaudit.cli", "list"],
    "python -c pass": ["-c", "pass"],
}


def _env(root: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(root)}


def wall_time(root: Path, args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=root, env=_env(root), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def importtime_top(root: Path, args: list[str], top: int) -> list[tuple[float, float, str]]:
    """(cumulative ms, self ms, module) of the ``top`` largest cumulative entries."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=root,
                          env=_env(root), capture_output=True, text=True, check=True)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, cumulative, name = line[len("import time:"):].split("|")
        rows.append((int(cumulative) / 1000, int(own) / 1000, name.rstrip()))
    return sorted(rows, reverse=True)[:top]


def heavy_modules(root: Path, args: list[str]) -> list[str]:
    heavy = ("numpy", "scipy", "statsmodels", "pandas", "sympy", "sklearn", "matplotlib",
             "jinja2", "dask", "distributed")
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=root,
                          env=_env(root), capture_output=True, text=True, check=True)
    found = {line.split("|")[-1].strip() for line in proc.stderr.splitlines()
             if line.startswith("import time:")}
    return [m for m in heavy if m in found]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command (default 7)")
    parser.add_argument("--compare", metavar="OLD", type=Path,
                        help="another checkout to measure as 'before' (interleaved runs)")
    parser.add_argument("--top", type=int, default=12, help="importtime entries shown")
    parser.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    args = parser.parse_args()

    roots = {"after": ROOT} if args.compare is None else {"before": args.compare.resolve(),
                                                          "after": ROOT}
    times = {(label, name): [] for label in roots for name in COMMANDS}
    load = os.getloadavg()[0]
    for _ in range(args.runs):
        for name, command in COMMANDS.items():
            for label, root in roots.items():
                times[label, name].append(wall_time(root, command))
    header = ["command", *[f"{label} median s" for label in roots],
              *[f"{label} min–max s" for label in roots],
              *[f"{label}: heavy modules imported" for label in roots]]
    rows = []
    for name, command in COMMANDS.items():
        medians = [statistics.median(times[label, name]) for label in roots]
        spreads = [f"{min(times[label, name]):.2f}–{max(times[label, name]):.2f}"
                   for label in roots]
        heavy = [", ".join(heavy_modules(root, command)) or "none" for root in roots.values()]
        rows.append([name, *[round(m, 3) for m in medians], *spreads, *heavy])
    body = [f"`python benchmarks/import_time.py --runs {args.runs}"
            + (f" --compare OLD`" if args.compare else "`")
            + f": median wall time of {args.runs} fresh interpreters per command "
            f"(each checkout first on PYTHONPATH; load average {load:.1f} at the start, "
            f"on a machine shared with other sessions).", "",
            markdown_table(header, rows)]
    for name in ("import dpaudit", "dpaudit --help"):
        for label, root in roots.items():
            top = importtime_top(root, COMMANDS[name], args.top)
            body += ["", f"`python -X importtime` of `{name}` ({label}), top {args.top} by "
                         f"cumulative time:", "",
                     markdown_table(["cumulative ms", "self ms", "module"],
                                    [[round(c, 1), round(s, 1), f"`{m.strip()}`"]
                                     for c, s, m in top])]
    record("Import time: import dpaudit, dpaudit --help, dpaudit list "
           "(benchmarks/import_time.py)", "\n".join(body), write=not args.no_write)


if __name__ == "__main__":
    main()
