"""What the reliability guarantees cost and what they buy (issue 17), recorded in RESULTS.md.

1. **Interrupt and resume.** ``dpaudit run audits/classic.toml`` uninterrupted; the same run
   sent SIGTERM once the journal holds ``--stop-after`` entries (one per pair: its black-box
   and white-box tests), then ``--resume``d.  Reports the
   wall times, the exit statuses and whether the resumed records equal the uninterrupted ones
   (timings aside).
2. **The journal and the start-of-run reports.** Bytes and the median time of one journal
   entry (flush + fsync) over the classic run's tests; the time to write the "not run yet"
   reports of every shipped suite at the start of a run.
3. **The checks of a run** (issue 27): the fingerprint of the code the suites name, a journal
   entry's digest, the output directory's lock.
4. **The memory guard.** For k-ary randomised response at 20 000 samples: the estimate
   (:mod:`dpaudit.audit.memory`) against the peak resident memory (VmHWM) of a fresh process
   that runs the audit, and the time to refuse k = 10⁸.

Usage: ``python benchmarks/reliability.py [--stop-after 10] [--no-write]``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import markdown_table, record

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "import sys; from dpaudit.cli.commands import main; sys.exit(main())"]

PEAK = """
import json, sys
from dpaudit.api import audit_mechanism
k = int(sys.argv[1])
result = audit_mechanism("randomized-response", params={"epsilon": 1.0, "k": k},
                         samples=20000, memory_limit="64GB")
peak = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status")
            if line.startswith("VmHWM:"))
print(json.dumps({"peak": peak, "error": result.records[0].error}))
"""


def deep(value):
    if isinstance(value, dict):
        return {k: deep(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [deep(v) for v in value]
    return value


def interrupt_and_resume(stop_after: int) -> tuple[str, dict]:
    from dpaudit.report.results_file import read_document

    suite = str(ROOT / "audits" / "classic.toml")
    with tempfile.TemporaryDirectory() as tmp:
        whole, parts = Path(tmp) / "whole", Path(tmp) / "parts"
        start = time.perf_counter()
        subprocess.run([*CLI, "run", suite, "--out", str(whole), "-q"], check=True,
                       capture_output=True)
        uninterrupted = time.perf_counter() - start

        start = time.perf_counter()
        run = subprocess.Popen([*CLI, "run", suite, "--out", str(parts), "-q"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        journal = parts / ".dpaudit-journal.jsonl"
        while not (journal.exists() and journal.read_text().count("\n") > stop_after):
            time.sleep(0.05)
        run.send_signal(signal.SIGTERM)
        run.communicate()
        stopped = time.perf_counter() - start
        incomplete = json.loads((parts / "results.json").read_text())["incomplete"]
        start = time.perf_counter()
        resumed = subprocess.run([*CLI, "run", suite, "--out", str(parts), "-q", "--resume"],
                                 capture_output=True, text=True)
        resuming = time.perf_counter() - start
        equal = (deep(read_document(whole / "results.json")["audits"])
                 == deep(read_document(parts / "results.json")["audits"]))
        planned = sum(s.get("tests") or 0
                      for s in json.loads((whole / "results.json").read_text())["suites"])
    everything = f"{planned} of {planned}"
    rows = [["uninterrupted", f"{uninterrupted:.1f}", 0, everything, "—"],
            [f"SIGTERM after {stop_after} journal entries", f"{stopped:.1f}", run.returncode,
             f"{incomplete['tests_finished']} of {incomplete['tests_planned']}", "—"],
            ["--resume", f"{resuming:.1f}", resumed.returncode, everything,
             "identical" if equal else "DIFFERENT"]]
    table = markdown_table(["run of audits/classic.toml (2 workers)", "wall s", "exit",
                            "tests finished", "records vs uninterrupted"], rows)
    return table, {"equal": equal}


def check_costs() -> str:
    """The cost of issue 27's checks of a run: the code fingerprint of every shipped suite, a
    journal entry's digest, and the output directory's lock (acquire + release)."""
    from dpaudit.audit.journal import code_digests, entry_digest, test_key
    from dpaudit.audit.plan import plan_suite
    from dpaudit.api import run_suites
    from dpaudit.cli.out_lock import OutputLock
    from dpaudit.suite.spec import load_suite

    paths = sorted(str(p) for p in (ROOT / "audits").rglob("*.toml"))
    suites = []
    for path in paths:
        try:
            suites.append(load_suite(path))
        except Exception:  # noqa: BLE001 - a suite whose library is missing: not fingerprinted
            pass
    runs = []
    for _ in range(20):
        start = time.perf_counter()
        code = code_digests(suites)
        runs.append(time.perf_counter() - start)
    suite = str(ROOT / "audits" / "classic.toml")
    run = run_suites([suite], workers=2)
    tasks, _ = plan_suite(load_suite(suite))
    results = [test for point in run.points for test in point.tests]
    digests = []
    for task, result in zip(tasks, results):
        payload = result.to_json()
        start = time.perf_counter()
        entry_digest(test_key(task), payload)
        digests.append(time.perf_counter() - start)
    locks = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(50):
            start = time.perf_counter()
            OutputLock.acquire(tmp).release()
            locks.append(time.perf_counter() - start)
    return (f"Checks of issue 27: the code fingerprint of the {len(suites)} shipped suites "
            f"({len(code)} code files named) takes a median {1000 * statistics.median(runs):.2f} "
            f"ms (20 runs); a journal entry's SHA-256 digest a median "
            f"{1000 * statistics.median(digests):.3f} ms over the classic run's {len(digests)} "
            f"tests; the output directory's lock, acquired and released, a median "
            f"{1000 * statistics.median(locks):.3f} ms (50 runs).")


def journal_costs() -> str:
    from dpaudit.audit.journal import RunFingerprint, RunJournal
    from dpaudit.audit.plan import plan_suite
    from dpaudit.api import run_suites
    from dpaudit.suite.spec import load_suite
    from dpaudit.cli.run import write_run_reports
    from dpaudit.results.options import RunOptions
    from dpaudit.results.records import exit_status

    suite = str(ROOT / "audits" / "classic.toml")
    run = run_suites([suite], workers=2)
    tasks, _ = plan_suite(load_suite(suite))
    by_task = {(point.audit_index, None if point.sweep is None else point.sweep.index,
                test.pair_index): test for point in run.points for test in point.tests}
    seconds = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "journal.jsonl"
        book = RunJournal.start(path, RunFingerprint.of([suite], RunOptions()))
        for task in tasks:
            result = by_task[(task.audit_index, task.sweep_index, task.pair_index)]
            start = time.perf_counter()
            book.add(task, result)
            seconds.append(time.perf_counter() - start)
        book.close()
        size = path.stat().st_size

        started = {}

        def on_started(planned):
            begin = time.perf_counter()
            write_run_reports(planned, Path(tmp) / "out", command="bench",
                              status=exit_status(planned), link_dir=str(Path(tmp) / "out"))
            started["seconds"] = time.perf_counter() - begin
            started["records"] = len(planned.records)
            raise KeyboardInterrupt  # stop before any test runs

        try:
            run_suites(sorted(str(p) for p in (ROOT / "audits").glob("*.toml")),
                       on_started=on_started)
        except KeyboardInterrupt:
            pass
    return (f"Journal of the classic run: {len(tasks)} entries, {size / 1024:.0f} KiB, median "
            f"{1000 * statistics.median(seconds):.2f} ms per entry (max "
            f"{1000 * max(seconds):.2f} ms, flush and fsync included). The \"not run yet\" "
            f"reports of every shipped suite ({started['records']} certificates: results.json, "
            f"summary.md, junit.xml, report.html) took {started['seconds']:.2f} s to write at "
            f"the start of the run.")


def memory_guard() -> str:
    from dpaudit.audit.memory import estimate_task_memory
    from dpaudit.util.sizes import format_bytes
    from dpaudit.api import audit_mechanism
    from dpaudit.mechanisms.registry import create_mechanism

    rows = []
    for k in (10**5, 10**6, 10**7):
        mech = create_mechanism("randomized-response", epsilon=1.0, k=k)
        estimate = estimate_task_memory(mech, 0, 1, samples=20000).total
        out = subprocess.run([sys.executable, "-c", PEAK, str(k)], capture_output=True,
                             text=True, check=True)
        peak = json.loads(out.stdout.strip().splitlines()[-1])["peak"]
        rows.append([f"{k:.0e}", format_bytes(estimate), format_bytes(peak),
                     f"{estimate / peak:.2f}"])
    start = time.perf_counter()
    refused = audit_mechanism("randomized-response", params={"epsilon": 1.0, "k": 10**8},
                              samples=20000)
    seconds = time.perf_counter() - start
    table = markdown_table(["k", "estimate", "measured peak (VmHWM)", "estimate / peak"], rows)
    return (table + f"\n\nk = 10⁸ at the default 4 GiB limit: refused in {1000 * seconds:.1f} ms "
            f"(the whole audit_mechanism call) — {refused.records[0].error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stop-after", type=int, default=10)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    os.chdir(ROOT)
    table, _ = interrupt_and_resume(args.stop_after)
    body = "\n\n".join([
        "`python benchmarks/reliability.py`: what the guarantees of docs/guarantees.md "
        "(\"What dpaudit guarantees\") cost.",
        "### Interrupt and resume (default samples)", table,
        "### Journal and start-of-run reports", journal_costs(),
        "### Fingerprint of the suites' code, journal digests, the output lock", check_costs(),
        "### Memory guard: randomised response, 20 000 samples, white-box test included",
        memory_guard()])
    record("Reliability: interrupt, resume, journal, memory guard (benchmarks/reliability.py)",
           body, write=not args.no_write)


if __name__ == "__main__":
    main()
