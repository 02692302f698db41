"""Scale-out on Dask: the default run on a local pool vs a Dask LocalCluster, 1 vs 2 workers,
one very large certificate, and a 100-worker estimate.

Everything runs on this machine: Dask ``LocalCluster``\\ s of worker processes
(``DaskBackend.local_cluster``) and the local process pool.

0. **Local pool vs Dask, end to end** (issue 24): ``dpaudit run SUITES --workers 2`` against
   ``dpaudit run SUITES --cluster local:2``, each a fresh process (imports, planning, the
   cluster's start and close, the reports: what a user waits for), in ``--pairs`` interleaved
   pairs (the order alternates), with each pair's ratio, and a check that the two runs' results
   are identical (all fields but the timings and the backend's name).
1. **Suite**: ``run_suites(SUITES)`` on 1 and on 2 Dask workers (cluster start not timed);
   wall time and speed-up, and a check that the two runs' records are identical.
2. **One certificate** of ``--certificate`` samples per side (Laplace ε = 1, black-box only,
   fixed n: one look at the budget, as the per-sample figures below need): in-process (the
   local backend, the reference), then on 1 and on 2 Dask workers; its certification split is
   cut into chunk-range tasks across the workers.
3. **Large certificate** of ``--large`` samples per side (fixed n) on 2 workers, with every
   worker's peak resident memory during the run (VmHWM after a reset through
   ``/proc/self/clear_refs``, Linux), next to the same at ``--certificate`` samples: flat,
   because chunks stream.
4. **On paper**: from the large run's per-sample cost (worker-seconds per sample drawn and
   counted, both sides), what ``--workers-on-paper`` workers would take for ``--paper``
   samples per side (the selection pass, capped at 10⁶ per side, runs once on one worker).

    python benchmarks/dask_scaling.py            # full sizes: ~8-10 min on a quiet 2-core box
    python benchmarks/dask_scaling.py --quick    # small sizes: ~2-4 min, checks it all works

The section "Scale-out on Dask" of RESULTS.md is replaced unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import markdown_table, record

from dpaudit.api import audit_mechanism
from dpaudit.api import run_suites
from dpaudit.backends.dask_backend import DaskBackend

ROOT = Path(__file__).resolve().parent.parent
LOADED = (" — **a shared, loaded machine** (other engineers' test runs and benchmarks): the "
          "timings are noisy, the speed-ups understated and the per-sample cost inflated; "
          "read the identical-records column and the memory, and re-run on a quiet machine "
          "for the timings")
TIMING = {"seconds", "selection_seconds"}
#: fields of results.json that differ between two runs of the same suites and seeds
VOLATILE = ("created", "command", "seconds", "options")


def without_timing(value):
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def _reset_peak() -> int:
    with open("/proc/self/clear_refs", "w") as fh:  # VmHWM := VmRSS
        fh.write("5")
    return 0


def _memory_kb() -> dict:
    out = {}
    for line in open("/proc/self/status"):
        key = line.split(":")[0]
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(line.split()[1])
    return out


def certificate(samples: int, backend, seed: int = 1):
    start = time.perf_counter()
    result = audit_mechanism("laplace", params={"epsilon": 1.0}, samples=samples, seed=seed,
                             white_box=False, backend=backend, sequential=False)
    seconds = time.perf_counter() - start
    record_ = result.records[0]
    if record_.error:
        raise SystemExit(f"the certificate failed: {record_.error}")
    return seconds, record_


def cli_run(suites, profile: str, where: list[str], out: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of its whole process tree) of ``dpaudit run SUITES --profile
    PROFILE --out OUT WHERE`` in a fresh process (exit status 0 or 1: a run whose expectations
    fail is still a run).  The CPU is each process's user + system time, read with psutil
    every 0.2 s (the pool's and the cluster's workers are not all waited for by the run, so
    the OS's children accounting misses them; a process's last 0.2 s may be missed)."""
    import threading

    import psutil

    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "dpaudit.cli", "run", *suites, "--profile",
                             profile, "--out", out, "-q", *where], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cpu, stop = {}, threading.Event()

    def poll(root=psutil.Process(proc.pid)):
        while not stop.is_set():
            try:
                tree = [root] + root.children(recursive=True)
            except psutil.Error:
                tree = [root]
            for member in tree:
                try:
                    times = member.cpu_times()
                    cpu[member.pid] = times.user + times.system
                except psutil.Error:
                    pass
            stop.wait(0.2)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    _, err = proc.communicate()
    seconds = time.perf_counter() - start
    stop.set()
    poller.join()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"dpaudit run {' '.join(where)} failed:\n{err[-3000:]}")
    return seconds, sum(cpu.values())


def results_numbers(out: str) -> dict:
    """results.json of a run without what differs between identical runs."""
    document = json.loads((Path(out) / "results.json").read_text(encoding="utf-8"))
    return {k: without_timing(v) for k, v in document.items() if k not in VOLATILE}


def pool_vs_dask(suites, profile: str, pairs: int, workers: int = 2):
    """[{"pool": (wall, cpu), "dask": (wall, cpu)}] of ``pairs`` interleaved pairs of
    end-to-end runs (:func:`cli_run`), and whether every run's results equal the first's."""
    times, reference, same = [], None, True
    where = {"pool": ["--workers", str(workers)], "dask": ["--cluster", f"local:{workers}"]}
    with tempfile.TemporaryDirectory(prefix="dask-scaling-") as tmp:
        for k in range(pairs):
            pair = {}
            for name in (("pool", "dask") if k % 2 == 0 else ("dask", "pool")):
                out = os.path.join(tmp, f"{name}-{k}")
                pair[name] = cli_run(suites, profile, where[name], out)
                numbers = results_numbers(out)
                reference = numbers if reference is None else reference
                same = same and numbers == reference
                print(f"pair {k + 1}: {name} {pair[name][0]:.1f} s wall, "
                      f"{pair[name][1]:.1f} s CPU", flush=True)
            times.append(pair)
    return times, same


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="small sizes (classic suite at the quick profile, 10⁷ and 10⁸ samples)")
    p.add_argument("--suite", nargs="+",
                   help="suite files or directories (default: audits/; --quick: "
                        "audits/classic.toml)")
    p.add_argument("--profile", help="suite profile (default: default; --quick: quick)")
    p.add_argument("--certificate", type=float, help="samples per side of the one-certificate "
                                                     "comparison (default 1e8; --quick 1e7)")
    p.add_argument("--large", type=float, help="samples per side of the large certificate "
                                               "(default 1e9; --quick 1e8)")
    p.add_argument("--pairs", type=int, help="interleaved pairs of local pool vs Dask runs "
                                             "(default 3; --quick 1)")
    p.add_argument("--paper", type=float, default=1e11, help="samples per side on paper")
    p.add_argument("--workers-on-paper", type=int, default=100)
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    args.suite = args.suite or ([str(ROOT / "audits" / "classic.toml")] if args.quick
                                else [str(ROOT / "audits")])
    args.profile = args.profile or ("quick" if args.quick else "default")
    args.certificate = int(args.certificate or (1e7 if args.quick else 1e8))
    args.large = int(args.large or (1e8 if args.quick else 1e9))
    args.pairs = args.pairs or (1 if args.quick else 3)
    return args


def expand(paths):
    out = []
    for item in paths:
        p = Path(item)
        out.extend(sorted(str(f) for f in p.glob("*.toml")) if p.is_dir() else [item])
    return out


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    suites = expand(args.suite)
    load_before = os.getloadavg()[0]
    print(f"sizes: suite {args.suite} at profile {args.profile}; one certificate "
          f"{args.certificate:.0e}; large {args.large:.0e} per side", flush=True)

    pairs, same_end_to_end = pool_vs_dask(suites, args.profile, args.pairs)
    certificate(200_000, None)  # warm-up: imports and first calls, as the workers had
    local_seconds, local_record = certificate(args.certificate, None)
    print(f"one certificate in-process: {local_seconds:.1f} s", flush=True)
    timings, runs, cert = {}, {}, {}
    memory = {}
    for n in (1, 2):
        with DaskBackend.local_cluster(n) as backend:
            start = time.perf_counter()
            runs[n] = run_suites(suites, profile=args.profile, backend=backend)
            timings[n] = time.perf_counter() - start
            print(f"suite on {n} worker(s): {timings[n]:.1f} s", flush=True)
            backend.client.run(_reset_peak)
            cert[n] = certificate(args.certificate, backend)
            print(f"one certificate on {n} worker(s): {cert[n][0]:.1f} s", flush=True)
            if n == 2:
                memory["small"] = backend.client.run(_memory_kb)
                backend.client.run(_reset_peak)
                large_seconds, large_record = certificate(args.large, backend)
                memory["large"] = backend.client.run(_memory_kb)
                print(f"large certificate on 2 workers: {large_seconds:.1f} s", flush=True)
    same_suite = ([without_timing(r.to_json()) for r in runs[1].records]
                  == [without_timing(r.to_json()) for r in runs[2].records])
    same_cert = (without_timing(cert[1][1].to_json()) == without_timing(cert[2][1].to_json())
                 == without_timing(local_record.to_json()))

    rows = [["suite: " + ", ".join(Path(s).name for s in args.suite) + f" ({args.profile}, "
             f"{len(runs[2].records)} records)", "—", timings[1], timings[2],
             timings[1] / timings[2], same_suite],
            [f"one Laplace certificate, {args.certificate:.0e} per side", local_seconds,
             cert[1][0], cert[2][0], cert[1][0] / cert[2][0], same_cert]]
    table = markdown_table(["work", "in-process s", "1 worker s", "2 workers s", "speed-up",
                            "identical records"], rows)
    pair_rows = [[k + 1, p["pool"][0], p["dask"][0], p["dask"][0] / p["pool"][0],
                  p["pool"][1], p["dask"][1], p["dask"][1] / p["pool"][1]]
                 for k, p in enumerate(pairs)]
    if len(pairs) > 1:
        pair_rows.append(["median"] + [statistics.median(row[i] for row in pair_rows)
                                       for i in range(1, 7)])
    pair_table = markdown_table(["pair", "pool wall s", "Dask wall s", "Dask / pool",
                                 "pool CPU s", "Dask CPU s", "Dask / pool (CPU)"], pair_rows)

    cert_info = large_record.black_box
    n_cert = cert_info.certification_samples
    selection = cert_info.selection_seconds
    per_sample = (large_seconds - selection) * 2 / (2 * n_cert)  # worker-seconds per sample
    mem_rows = [[addr.rsplit(":", 1)[-1], memory["small"][addr]["VmHWM"] / 1024,
                 memory["large"][addr]["VmHWM"] / 1024] for addr in sorted(memory["large"])
                if addr in memory["small"]]
    mem_table = markdown_table([f"worker (port)", f"peak MiB at {args.certificate:.0e}",
                                f"peak MiB at {args.large:.0e}"], mem_rows)
    paper_cert = max(0, args.paper - 1e6)
    paper_seconds = selection + 2 * paper_cert * per_sample / args.workers_on_paper
    paper_tasks = 2 * min(512, -(-int(paper_cert) // (16 * 65536)))
    load = (load_before, os.getloadavg()[0])
    shown = ", ".join(os.path.relpath(s, ROOT) for s in args.suite)
    body = f"""
Sizes: {'QUICK mode (`--quick`)' if args.quick else 'full sizes'} — suite {shown} at
profile {args.profile}; one certificate {args.certificate:.0e} samples per side; large
certificate {args.large:.0e} per side.  Dask LocalClusters of 1 and 2 worker processes (one
thread each) on this machine; cluster start not timed; wall times of one run each.  Load
average (1 min) at the start and the end: {load[0]:.1f} and {load[1]:.1f} on
{os.cpu_count()} cores{LOADED if max(load) > 1.5 * (os.cpu_count() or 1) else ""}.
Full sizes: `python benchmarks/dask_scaling.py` (about 8–10 min on a quiet 2-core machine).

**The run as a user waits for it**: `dpaudit run {shown} --profile {args.profile}` with
`--workers 2` (the local process pool) against `--cluster local:2` (a Dask LocalCluster of 2
worker processes, started while the run plans and closed after it), each a fresh process
timed from start to exit, in {args.pairs} interleaved pair(s) (the order alternates); CPU:
user + system seconds of the run's whole process tree (the workers included); identical
results (results.json but the timings): {same_end_to_end}.

{pair_table}

**Scale-out** (cluster start not timed; one run each):

{table}

Large certificate: Laplace ε = 1, {args.large:.0e} samples per side (fixed n) on 2 workers:
{large_seconds:.1f} s (selection pass {selection:.1f} s on one worker), certified
ε_LB = {large_record.epsilon_lower_bound:.5f}.  Peak resident memory of each worker during
the run (VmHWM, reset before each certificate):

{mem_table}

Per-sample cost (drawing + counting, both sides): {per_sample * 1e9:.1f} worker-ns per sample.
On paper, {args.paper:.0e} samples per side on {args.workers_on_paper} workers:
selection {selection:.1f} s on one worker + 2 × {paper_cert:.2e} × {per_sample * 1e9:.1f} ns /
{args.workers_on_paper} = **{paper_seconds / 60:.1f} min** ({paper_tasks} chunk-range tasks of
~{paper_cert / (paper_tasks / 2) / 1e6:.0f}·10⁶ rows each; assumes workers as fast as these
and the scheduler's ~1 ms per task negligible next to ~{paper_cert / (paper_tasks / 2) *
per_sample:.0f} s per task).
"""
    record("Scale-out on Dask (benchmarks/dask_scaling.py)", body, write=not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
