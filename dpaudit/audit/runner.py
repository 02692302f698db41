"""The audit runner: suite → tasks (audit × pair × δ) → certified bounds → verdicts.

Contract and invariants:

* **One family per suite file.**  Every (audit, pair, δ) of a suite is one certificate; with m
  certificates, each estimator call runs at ``1 − (1 − confidence)/m``
  (:func:`dpaudit.stats.multiple_testing.split_significance`, Bonferroni), so all certificates
  of the file hold jointly with probability ≥ the suite's confidence.  Both numbers are
  recorded on every result.
* **Seeds depend on the task, not on the execution.**  Task (audit i, pair j, δ k) of a suite
  with seed s draws from ``SeedSequence([s, i, j, k]).generate_state(1)[0]``; the number of
  workers and the completion order cannot change a number.
* **Nothing unpicklable crosses a process boundary.**  A :class:`Task` holds the mechanism's
  registry name and parameters and plain datasets; the worker re-creates the mechanism.
* **Verdicts.**  ``violation`` if ε_LB > claim.epsilon(δ), ``consistent`` otherwise, ``error``
  if anything raised (the message is recorded; other tasks still run).  An audit's verdict is
  ``error`` if any of its tasks errored, else ``violation`` if any certified a violation, else
  ``consistent``; its expectation is met when that verdict equals ``expect`` (so a known bug
  counts as detected when any of its pairs/δs certifies it).

Execution: in-process with one worker, otherwise a
:class:`concurrent.futures.ProcessPoolExecutor` across local cores.
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from dpaudit.audit.spec import MIN_SAMPLES, AuditSpec, Suite, SuiteError, load_suite
from dpaudit.stats.multiple_testing import split_significance

PROFILES = {"quick": 0.1, "default": 1.0, "deep": 10.0}
VERDICTS = ("consistent", "violation", "error")


@dataclass(frozen=True)
class Task:
    """One certificate to compute: a mechanism (by name), a pair, a δ, samples and a seed."""

    suite_index: int
    suite: str
    suite_file: str
    audit_index: int
    audit: str
    mechanism: str
    params: dict
    pair_index: int
    pair: Any  # a NeighbourPair, or None when the pairs could not be built
    delta_index: int
    delta: float
    samples: int
    seed: int
    confidence: float
    per_certificate_confidence: float
    expect: str
    note: str = ""
    setup_error: str | None = None


@dataclass
class AuditRun:
    """Everything one ``dpaudit run`` produced; :mod:`dpaudit.report` renders it."""

    suites: list[dict] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    outcomes: list[dict] = field(default_factory=list)  # per audit, from judge()
    seconds: float = 0.0
    workers: int = 1
    profile: str = "default"
    samples_override: int | None = None
    seed_override: int | None = None


# -- planning ---------------------------------------------------------------------------------

def task_seed(suite_seed: int, audit_index: int, pair_index: int, delta_index: int) -> int:
    """The seed of one task; a function of the suite seed and the task's position only."""
    state = np.random.SeedSequence([suite_seed, audit_index, pair_index, delta_index])
    return int(state.generate_state(1)[0])


def resolve_samples(audit: AuditSpec, *, samples: int | None = None, scale: float = 1.0) -> int:
    """Per-side samples of an audit after the CLI override and the profile scale."""
    base = audit.samples if samples is None else int(samples)
    return max(MIN_SAMPLES, int(round(base * scale)))


def _audit_pairs(audit: AuditSpec):
    """(pairs, error message): the explicit pairs or the mechanism's worst-case pairs."""
    from dpaudit.mechanisms.base import NeighbourPair
    from dpaudit.mechanisms.registry import create_mechanism

    if audit.pairs != "worst-case":
        return [NeighbourPair(p.name, p.d0, p.d1, p.description) for p in audit.pairs], None
    try:
        pairs = list(create_mechanism(audit.mechanism, **audit.params).worst_case_pairs())
        if not pairs:
            raise ValueError("worst_case_pairs() returned no pairs")
        return pairs, None
    except Exception as exc:  # recorded as an error of this audit; others still run
        return [], f"building worst-case pairs failed: {_describe_exception(exc)}"


def plan_suite(suite: Suite, suite_index: int = 0, *, samples: int | None = None,
               scale: float = 1.0, seed: int | None = None) -> tuple[list[Task], dict]:
    """Tasks of one suite (in a fixed order) and the suite's record for the report."""
    suite_seed = suite.seed if seed is None else int(seed)
    planned = []
    for audit in suite.audits:
        pairs, error = _audit_pairs(audit)
        # an audit whose pairs could not be built still counts one member per δ (conservative)
        planned.append((audit, pairs or [None], error))
    family_size = sum(len(pairs) * len(audit.deltas) for audit, pairs, _ in planned)
    per_cert = 1.0 - split_significance(suite.confidence, family_size)

    tasks = []
    for audit, pairs, error in planned:
        n = resolve_samples(audit, samples=samples, scale=scale)
        for j, pair in enumerate(pairs):
            for k, delta in enumerate(audit.deltas):
                tasks.append(Task(
                    suite_index=suite_index, suite=suite.name, suite_file=suite.path,
                    audit_index=audit.index, audit=audit.name, mechanism=audit.mechanism,
                    params=dict(audit.params), pair_index=j, pair=pair, delta_index=k,
                    delta=delta, samples=n, seed=task_seed(suite_seed, audit.index, j, k),
                    confidence=suite.confidence, per_certificate_confidence=per_cert,
                    expect=audit.expect, note=audit.note, setup_error=error))
    info = {"file": suite.path, "name": suite.name, "confidence": suite.confidence,
            "family_size": family_size, "per_certificate_confidence": per_cert,
            "seed": suite_seed, "audits": len(suite.audits), "error": None}
    return tasks, info


# -- running one task -------------------------------------------------------------------------

def _describe_exception(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _pair_dict(pair) -> dict | None:
    if pair is None:
        return None
    try:
        return pair.to_dict()
    except Exception:
        return {"name": getattr(pair, "name", "?"), "d0": repr(getattr(pair, "d0", None)),
                "d1": repr(getattr(pair, "d1", None)), "description": ""}


def _blank_record(task: Task) -> dict:
    """The record of a task before anything ran (verdict ``error`` until proven otherwise)."""
    return {
        "suite": task.suite, "suite_file": task.suite_file, "audit": task.audit,
        "audit_index": task.audit_index, "mechanism": task.mechanism,
        "parameters": dict(task.params), "claim": None, "pair": _pair_dict(task.pair),
        "pair_index": task.pair_index, "delta": task.delta, "delta_index": task.delta_index,
        "claimed_epsilon": None, "epsilon_lower_bound": None, "exact_epsilon": None,
        "true_epsilon": None, "verdict": "error", "expect": task.expect,
        "met_expectation": False, "tightness": None, "samples": task.samples,
        "seed": task.seed, "seconds": 0.0, "confidence": task.confidence,
        "per_certificate_confidence": task.per_certificate_confidence, "certificate": None,
        "error": None, "warnings": [], "note": task.note,
    }


def run_task(task: Task) -> dict:
    """Compute one certificate and its verdict.  Never raises: failures become ``error``."""
    from dpaudit.distinguish.lower_bound import estimate_epsilon_lower_bound
    from dpaudit.mechanisms.registry import create_mechanism

    record = _blank_record(task)
    start = time.perf_counter()
    # warnings raised while auditing go into the record, not onto stderr between progress lines
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run_task(task, record, estimate_epsilon_lower_bound, create_mechanism)
    record["warnings"] = sorted({f"{w.category.__name__}: {w.message} "
                                 f"({os.path.basename(w.filename)}:{w.lineno})" for w in caught})
    record["seconds"] = time.perf_counter() - start
    return record


def _run_task(task: Task, record: dict, estimate_epsilon_lower_bound, create_mechanism) -> None:
    try:
        mechanism = create_mechanism(task.mechanism, **task.params)
        claim = mechanism.claim()
        record["claim"] = claim.to_dict()
        claimed = float(claim.epsilon(task.delta))
        record["claimed_epsilon"] = claimed
        true_eps = mechanism.true_epsilon()
        record["true_epsilon"] = None if true_eps is None else float(true_eps)
        if task.setup_error is not None:
            raise RuntimeError(task.setup_error)
        d0 = mechanism.validate_dataset(task.pair.d0)
        d1 = mechanism.validate_dataset(task.pair.d1)
        is_pair, reason = mechanism.check_pair(d0, d1)
        if not is_pair:
            raise ValueError(f"pair {task.pair.name!r} is not neighbouring for "
                             f"{task.mechanism} ({mechanism.neighbouring}): {reason}")
        certificate = estimate_epsilon_lower_bound(
            mechanism.sampler(), d0, d1, delta=task.delta, samples=task.samples,
            confidence=task.per_certificate_confidence, seed=task.seed)
        record["certificate"] = certificate.to_dict()
        bound = float(certificate.epsilon)
        if math.isnan(bound):
            raise ValueError("the estimator returned ε_LB = nan")
        record["epsilon_lower_bound"] = bound
        if math.isfinite(claimed) and claimed > 0:
            record["tightness"] = bound / claimed
        exact = mechanism.exact_epsilon(d0, d1, task.delta)
        record["exact_epsilon"] = None if exact is None else float(exact)
        record["verdict"] = "violation" if bound > claimed else "consistent"
    except Exception as exc:
        record["verdict"] = "error"
        record["error"] = _describe_exception(exc)


# -- running many -----------------------------------------------------------------------------

def _failed_record(task: Task, exc: BaseException) -> dict:
    record = _blank_record(task)
    record["error"] = f"worker failed: {_describe_exception(exc)}"
    return record


def execute(tasks: list[Task], *, workers: int = 1,
            progress: Callable[[dict], None] | None = None) -> list[dict]:
    """Run tasks in-process (``workers == 1``) or in a process pool; results in task order."""
    results: list[dict | None] = [None] * len(tasks)
    if workers <= 1 or len(tasks) <= 1:
        for i, task in enumerate(tasks):
            results[i] = run_task(task)
            if progress:
                progress(results[i])
        return results  # type: ignore[return-value]

    # larger tasks first, so that a long one does not start last
    order = sorted(range(len(tasks)), key=lambda i: -tasks[i].samples)
    with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
        futures = {pool.submit(run_task, tasks[i]): i for i in order}
        try:
            for future in as_completed(futures):
                i = futures[future]
                try:
                    results[i] = future.result()
                except Exception as exc:  # e.g. a worker killed by the OS
                    results[i] = _failed_record(tasks[i], exc)
                if progress:
                    progress(results[i])
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return results  # type: ignore[return-value]


def judge(records: list[dict]) -> list[dict]:
    """Per-audit verdicts; sets ``audit_verdict`` and ``met_expectation`` on every record."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        groups.setdefault((record["suite_file"], record["audit_index"]), []).append(record)
    outcomes = []
    for rows in groups.values():
        verdicts = {r["verdict"] for r in rows}
        verdict = ("error" if "error" in verdicts
                   else "violation" if "violation" in verdicts else "consistent")
        met = verdict == rows[0]["expect"]
        for r in rows:
            r["audit_verdict"] = verdict
            r["met_expectation"] = met
        outcomes.append({"suite": rows[0]["suite"], "file": rows[0]["suite_file"],
                         "audit": rows[0]["audit"], "mechanism": rows[0]["mechanism"],
                         "expect": rows[0]["expect"], "verdict": verdict,
                         "met_expectation": met, "certificates": len(rows)})
    return outcomes


def exit_status(run: AuditRun) -> int:
    """0: every audit met its expectation; 1: some did not; 2: a malformed suite or an error."""
    if any(s.get("error") for s in run.suites) or any(r["verdict"] == "error"
                                                      for r in run.records):
        return 2
    if any(not o["met_expectation"] for o in run.outcomes):
        return 1
    return 0


def format_progress(record: dict) -> str:
    """One line per finished task, for stderr."""
    pair = (record.get("pair") or {}).get("name", "-")

    def num(x):
        if x is None:
            return "-"
        return "inf" if math.isinf(x) else f"{x:.4g}"

    line = (f"[{record['suite']}] {record['audit']} pair={pair} δ={record['delta']:g} "
            f"ε_LB={num(record['epsilon_lower_bound'])} claim={num(record['claimed_epsilon'])} "
            f"{record['verdict']} ({record['seconds']:.1f}s)")
    if record.get("warnings"):
        line += f" [{len(record['warnings'])} warning(s) in results.json]"
    if record.get("error"):
        line += f" — {record['error']}"
    return line


def run_suites(paths: Iterable[str], *, samples: int | None = None, profile: str = "default",
               seed: int | None = None, workers: int = 1,
               progress: Callable[[dict], None] | None = None,
               on_suite_error: Callable[[SuiteError], None] | None = None) -> AuditRun:
    """Load every suite, run every task across ``workers`` processes, judge the audits.

    A malformed suite is recorded (``suites[i]["error"]``) and reported through
    ``on_suite_error``; the other suites still run."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    start = time.perf_counter()
    run = AuditRun(workers=workers, profile=profile, samples_override=samples,
                   seed_override=seed)
    tasks: list[Task] = []
    for index, path in enumerate(paths):
        try:
            suite = load_suite(path)
        except SuiteError as exc:
            run.suites.append({"file": str(path), "name": None, "confidence": None,
                               "family_size": 0, "per_certificate_confidence": None,
                               "seed": None, "audits": 0, "error": str(exc)})
            if on_suite_error:
                on_suite_error(exc)
            continue
        suite_tasks, info = plan_suite(suite, index, samples=samples, scale=PROFILES[profile],
                                       seed=seed)
        run.suites.append(info)
        tasks.extend(suite_tasks)
    run.records = execute(tasks, workers=workers, progress=progress)
    run.outcomes = judge(run.records)
    run.seconds = time.perf_counter() - start
    return run


def default_workers() -> int:
    """Local cores available to this process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def print_progress(record: dict) -> None:
    print(format_progress(record), file=sys.stderr, flush=True)
