"""The audit runner: suite → tasks (audit × pair) → certified curves → verdicts.

Contract and invariants:

* **One family per suite file.**  Every (audit, pair) of a suite is one *curve certificate*
  (:func:`dpaudit.distinguish.lower_bound.estimate_privacy_curve_lower_bound`), which bounds
  ε(δ) at every δ of the audit and D_α at every α of the audit simultaneously; a mechanism with
  a log-density adds a second, white-box curve certificate for the same pair.  With m curve
  certificates in the file, each runs at ``1 − (1 − confidence)/m``
  (:func:`dpaudit.stats.multiple_testing.split_significance`, Bonferroni), so everything the
  file certifies holds jointly with probability ≥ the suite's confidence.  Both numbers are
  recorded on every result.
* **Seeds depend on the task, not on the execution.**  Task (audit i, pair j) of a suite with
  seed s draws from ``SeedSequence([s, i, j, 0]).generate_state(1)[0]`` (the white-box
  certificate from that seed + 1); the number of workers and the completion order cannot
  change a number.
* **Nothing unpicklable crosses a process boundary.**  A :class:`Task` holds the mechanism's
  registry name and parameters and plain datasets; the worker re-creates the mechanism.
* **Sweeps.**  An audit with a ``sweep`` (:mod:`dpaudit.audit.spec`) is one *point* per swept
  value, each with its own pairs, tasks and expectation; every (point, pair) certificate is a
  member of the suite's family.  Point p of audit i draws from
  ``SeedSequence([s, i, j, 0, p])`` (audits without a sweep keep ``[s, i, j, 0]``).  Records
  carry ``sweep = {"parameter", "value", "index"}``; :func:`sweep_curves` collects claimed ε,
  certified bounds and exact ε over the swept values for the ε-over-sweep figure, with the
  exact ε (and the claim) at ``exact_points`` extra values computed in the worker pool.
* **Series.**  ``[[series]]`` entries are closed-form quantities over a swept parameter
  (``mechanism.series(quantity, d0, d1, values)``), computed in the pool, certified nothing.
* **Records.**  One per (audit, pair, δ) (``notion = "dp"``) and one per (audit, pair, α)
  (``notion = "rdp"``: the claimed ε(α) of the claim's RDP curve against the certified lower
  bound on max(D_α(P₀‖P₁), D_α(P₁‖P₀))).
* **Verdicts.**  ``violation`` if the larger of the black-box and white-box lower bounds
  exceeds the claim, ``consistent`` otherwise, ``error`` if anything raised (the message is
  recorded; other tasks still run).  An audit's verdict is ``error`` if any of its records
  errored, else ``violation`` if any certified a violation, else ``consistent``; its
  expectation is met when that verdict equals ``expect`` (so a known bug counts as detected
  when any of its pairs/δs/αs certifies it).

Execution: in-process with one worker, otherwise a
:func:`dpaudit.processes.process_pool` across local cores.
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from dpaudit.processes import process_pool
from dpaudit.audit.renyi_claims import claimed_renyi, has_renyi_claim  # noqa: F401
from dpaudit.audit.spec import MIN_SAMPLES, AuditSpec, Suite, SuiteError, load_suite
from dpaudit.stats.multiple_testing import split_significance

PROFILES = {"quick": 0.1, "default": 1.0, "deep": 10.0}
VERDICTS = ("consistent", "violation", "error")


@dataclass(frozen=True)
class Task:
    """One curve certificate to compute: a mechanism (by name), a pair, its δ and α grids,
    samples, a seed, and whether to add the white-box likelihood-ratio certificate."""

    suite_index: int
    suite: str
    suite_file: str
    audit_index: int
    audit: str
    mechanism: str
    params: dict
    pair_index: int
    pair: Any  # a NeighbourPair, or None when the pairs could not be built
    deltas: tuple
    alphas: tuple
    samples: int
    seed: int
    confidence: float
    per_certificate_confidence: float
    expect: str
    distinguisher: str = "auto"
    white_box: bool = False
    note: str = ""
    setup_error: str | None = None
    sweep_parameter: str | None = None
    sweep_value: Any = None
    sweep_index: int | None = None

    def sweep(self) -> dict | None:
        if self.sweep_index is None:
            return None
        return {"parameter": self.sweep_parameter, "value": self.sweep_value,
                "index": self.sweep_index}


@dataclass
class AuditRun:
    """Everything one ``dpaudit run`` produced; :mod:`dpaudit.report` renders it."""

    suites: list[dict] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    curves: list[dict] = field(default_factory=list)  # per (audit, pair), for the figures
    outcomes: list[dict] = field(default_factory=list)  # per audit point, from judge()
    series: list[dict] = field(default_factory=list)  # closed-form [[series]] results
    seconds: float = 0.0
    workers: int = 1
    profile: str = "default"
    samples_override: int | None = None
    seed_override: int | None = None


# -- planning ---------------------------------------------------------------------------------

def task_seed(suite_seed: int, audit_index: int, pair_index: int, delta_index: int,
              point: int | None = None) -> int:
    """The seed of one task; a function of the suite seed and the task's position only
    (``point``: the index of a swept value, None for audits without a sweep)."""
    entropy = [suite_seed, audit_index, pair_index, delta_index]
    if point is not None:
        entropy.append(point)
    state = np.random.SeedSequence(entropy)
    return int(state.generate_state(1)[0])


def resolve_samples(audit: AuditSpec, *, samples: int | None = None, scale: float = 1.0) -> int:
    """Per-side samples of an audit after the CLI override and the profile scale."""
    base = audit.samples if samples is None else int(samples)
    return max(MIN_SAMPLES, int(round(base * scale)))


def _audit_pairs(audit: AuditSpec, params: dict | None = None):
    """(pairs, has_log_density, error message): the explicit pairs or the mechanism's
    worst-case pairs (for the mechanism built with ``params``, default the audit's), and
    whether the mechanism offers a white-box log-density."""
    from dpaudit.mechanisms.base import NeighbourPair
    from dpaudit.mechanisms.registry import create_mechanism

    try:
        mechanism = create_mechanism(audit.mechanism, **(audit.params if params is None
                                                         else params))
        white = callable(getattr(mechanism, "log_density", None))
        if audit.pairs != "worst-case":
            return ([NeighbourPair(p.name, p.d0, p.d1, p.description) for p in audit.pairs],
                    white, None)
        pairs = list(mechanism.worst_case_pairs())
        if not pairs:
            raise ValueError("worst_case_pairs() returned no pairs")
        return pairs, white, None
    except Exception as exc:  # recorded as an error of this audit; others still run
        return [], False, f"building worst-case pairs failed: {_describe_exception(exc)}"


def plan_suite(suite: Suite, suite_index: int = 0, *, samples: int | None = None,
               scale: float = 1.0, seed: int | None = None) -> tuple[list[Task], dict]:
    """Tasks of one suite (in a fixed order) and the suite's record for the report."""
    suite_seed = suite.seed if seed is None else int(seed)
    planned = []
    for audit in suite.audits:
        for point, params, expect in audit.points():
            pairs, white, error = _audit_pairs(audit, params)
            # an audit whose pairs could not be built still counts one member (conservative)
            planned.append((audit, point, params, expect, pairs or [None],
                            white and audit.white_box, error))
    family_size = sum(len(pairs) * (2 if white else 1)
                      for *_, pairs, white, _ in planned)
    per_cert = 1.0 - split_significance(suite.confidence, family_size)

    tasks = []
    for audit, point, params, expect, pairs, white, error in planned:
        n = resolve_samples(audit, samples=samples, scale=scale)
        sweep = audit.sweep
        for j, pair in enumerate(pairs):
            tasks.append(Task(
                suite_index=suite_index, suite=suite.name, suite_file=suite.path,
                audit_index=audit.index, audit=audit.name, mechanism=audit.mechanism,
                params=dict(params), pair_index=j, pair=pair, deltas=audit.deltas,
                alphas=audit.alphas, samples=n,
                seed=task_seed(suite_seed, audit.index, j, 0, point),
                confidence=suite.confidence, per_certificate_confidence=per_cert,
                expect=expect, distinguisher=audit.distinguisher, white_box=white,
                note=audit.note, setup_error=error,
                sweep_parameter=None if sweep is None else sweep.parameter,
                sweep_value=None if sweep is None else sweep.values[point],
                sweep_index=point))
    info = {"file": suite.path, "name": suite.name, "confidence": suite.confidence,
            "family_size": family_size, "per_certificate_confidence": per_cert,
            "seed": suite_seed, "audits": len(suite.audits), "error": None,
            "points": len(planned), "series": len(suite.series)}
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


def _blank_record(task: Task, *, delta=None, alpha=None) -> dict:
    """The record of one (task, δ) or (task, α) before anything ran (verdict ``error``)."""
    return {
        "suite": task.suite, "suite_file": task.suite_file, "audit": task.audit,
        "audit_index": task.audit_index, "mechanism": task.mechanism,
        "parameters": dict(task.params), "claim": None, "pair": _pair_dict(task.pair),
        "pair_index": task.pair_index, "notion": "dp" if alpha is None else "rdp",
        "delta": delta, "alpha": alpha,
        "claimed_epsilon": None, "epsilon_lower_bound": None, "exact_epsilon": None,
        "white_box_epsilon_lower_bound": None, "true_epsilon": None, "verdict": "error",
        "exact_verdict": None, "black_box_share": None,
        "expect": task.expect, "met_expectation": False, "tightness": None,
        "samples": task.samples, "seed": task.seed, "seconds": 0.0,
        "confidence": task.confidence,
        "per_certificate_confidence": task.per_certificate_confidence,
        "distinguisher": task.distinguisher, "certificate": None,
        "white_box_certificate": None, "error": None, "warnings": [], "note": task.note,
        "sweep": task.sweep(),
    }


def _task_records(task: Task) -> list[dict]:
    return ([_blank_record(task, delta=d) for d in task.deltas]
            + [_blank_record(task, alpha=a) for a in task.alphas])


def run_task(task: Task) -> tuple[list[dict], dict | None]:
    """Compute one curve certificate: its records (one per δ, one per α) and the curve data
    for the figure.  Never raises: failures become ``error`` records."""
    records = _task_records(task)
    start = time.perf_counter()
    curve = None
    # warnings raised while auditing go into the records, not onto stderr between progress lines
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            curve = _run_task(task, records)
        except Exception as exc:
            for record in records:
                record["verdict"] = "error"
                record["error"] = _describe_exception(exc)
    caught_text = sorted({f"{w.category.__name__}: {w.message} "
                          f"({os.path.basename(w.filename)}:{w.lineno})" for w in caught})
    seconds = time.perf_counter() - start
    for record in records:
        record["warnings"] = caught_text
        record["seconds"] = seconds
    return records, curve


def _number(x):
    return None if x is None else float(x)


def _run_task(task: Task, records: list[dict]) -> dict:
    from dpaudit.distinguish.lower_bound import estimate_privacy_curve_lower_bound
    from dpaudit.mechanisms.registry import create_mechanism

    mechanism = create_mechanism(task.mechanism, **task.params)
    claim = mechanism.claim()
    true_eps = mechanism.true_epsilon()
    for record in records:
        record["claim"] = claim.to_dict()
        record["true_epsilon"] = _number(true_eps)
        if record["notion"] == "dp":
            record["claimed_epsilon"] = float(claim.epsilon(record["delta"]))
        else:
            record["claimed_epsilon"] = claimed_renyi(claim, record["alpha"])
    if task.setup_error is not None:
        raise RuntimeError(task.setup_error)
    d0 = mechanism.validate_dataset(task.pair.d0)
    d1 = mechanism.validate_dataset(task.pair.d1)
    is_pair, reason = mechanism.check_pair(d0, d1)
    if not is_pair:
        raise ValueError(f"pair {task.pair.name!r} is not neighbouring for "
                         f"{task.mechanism} ({mechanism.neighbouring}): {reason}")
    common = dict(deltas=task.deltas, alphas=task.alphas, samples=task.samples,
                  confidence=task.per_certificate_confidence)
    black = estimate_privacy_curve_lower_bound(mechanism.sampler(), d0, d1, seed=task.seed,
                                               distinguisher=task.distinguisher, **common)
    white = None
    if task.white_box:
        white = estimate_privacy_curve_lower_bound(
            mechanism.sampler(), d0, d1, seed=task.seed + 1, distinguisher="white-box",
            log_density=mechanism.log_density, **common)
    dp_records = [r for r in records if r["notion"] == "dp"]
    for record, point in zip(dp_records, black.points):
        record["certificate"] = point.to_dict()
        record["epsilon_lower_bound"] = float(point.epsilon)
        record["exact_epsilon"] = _number(mechanism.exact_epsilon(d0, d1, record["delta"]))
    if white is not None:
        for record, point in zip(dp_records, white.points):
            record["white_box_certificate"] = point.to_dict()
            record["white_box_epsilon_lower_bound"] = float(point.epsilon)
    exact_renyi = getattr(mechanism, "exact_renyi", None)
    rdp_records = [r for r in records if r["notion"] == "rdp"]
    for i, record in enumerate(rdp_records):
        record["epsilon_lower_bound"] = float(black.renyi[i].divergence)
        record["certificate"] = {"alpha": record["alpha"],
                                 "divergence": black.renyi[i].divergence,
                                 "event": black.renyi[i].event,
                                 "curve_certificate": black.points[0].to_dict()}
        if white is not None:
            record["white_box_epsilon_lower_bound"] = float(white.renyi[i].divergence)
        if callable(exact_renyi):
            record["exact_epsilon"] = _number(exact_renyi(d0, d1, record["alpha"]))
    for record in records:
        judge_certificate(record)
    return _curve_data(task, mechanism, claim, d0, d1, records)


#: relative slack before an exact ε counts as above the claim (the exact profiles' stated
#: numerical tolerances are far below it)
EXACT_SLACK = 1e-6


def judge_certificate(record: dict) -> None:
    """Set a finished record's ``verdict`` (certified: the larger of the black- and white-box
    lower bounds against the claim), ``tightness``, ``exact_verdict`` and
    ``black_box_share``.

    ``exact_verdict`` compares the pair's exact ε with the claim: ``"violation"`` when the
    exact value is above it (the claim is false for this pair even where no sample size in
    reach can certify it, e.g. at ε = 300), ``"consistent"`` when not, ``None`` when the pair
    has no exact value.  It is reported, never a CI gate: only certified verdicts decide an
    audit.  ``black_box_share`` = black-box ε_LB / white-box ε_LB: what a user without the
    density keeps of the most powerful (Neyman–Pearson) test's certificate."""
    black, white = record["epsilon_lower_bound"], record["white_box_epsilon_lower_bound"]
    bound = max(v for v in (black, white) if v is not None)
    claimed = record["claimed_epsilon"]
    if math.isfinite(claimed) and claimed > 0:
        record["tightness"] = bound / claimed
    record["verdict"] = "violation" if bound > claimed else "consistent"
    exact = record.get("exact_epsilon")
    record["exact_verdict"] = (None if exact is None else
                               "violation" if exact > claimed * (1 + EXACT_SLACK) + 1e-12
                               else "consistent")
    record["black_box_share"] = (black / white if black is not None and white
                                 and math.isfinite(white) and white > 0 else None)


def _curve_data(task, mechanism, claim, d0, d1, records) -> dict | None:
    """Dense claimed and exact ε(δ) (and ε(α)) around the certified grid, for the figure."""
    dp = [r for r in records if r["notion"] == "dp"]
    rdp = [r for r in records if r["notion"] == "rdp"]
    if len(dp) < 2 and not rdp:
        return None
    out = {"suite": task.suite, "suite_file": task.suite_file, "audit": task.audit,
           "pair": task.pair.name, "mechanism": task.mechanism, "sweep": task.sweep(),
           "certified": [[r["delta"], r["epsilon_lower_bound"],
                          r["white_box_epsilon_lower_bound"]] for r in dp],
           "renyi_certified": [[r["alpha"], r["epsilon_lower_bound"],
                                r["white_box_epsilon_lower_bound"]] for r in rdp]}
    positive = [r["delta"] for r in dp if r["delta"] > 0]
    if positive:
        grid = np.logspace(np.log10(min(positive)) - 1, np.log10(max(max(positive), 1e-2)), 40)
        out["dense_delta"] = grid.tolist()
        out["claimed"] = [_finite_or_none(claim.epsilon(float(d))) for d in grid]
        out["exact"] = [_finite_or_none(mechanism.exact_epsilon(d0, d1, float(d)))
                        for d in grid]
    if rdp:
        alphas = np.linspace(min(r["alpha"] for r in rdp), max(r["alpha"] for r in rdp), 40)
        out["dense_alpha"] = alphas.tolist()
        out["claimed_renyi"] = [_finite_or_none(claimed_renyi(claim, float(a))) for a in alphas]
        exact_renyi = getattr(mechanism, "exact_renyi", None)
        if callable(exact_renyi):
            out["exact_renyi"] = [_finite_or_none(exact_renyi(d0, d1, float(a)))
                                  for a in alphas]
    return out


def _finite_or_none(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


# -- running many -----------------------------------------------------------------------------

def _failed_records(task: Task, exc: BaseException) -> list[dict]:
    records = _task_records(task)
    for record in records:
        record["error"] = f"worker failed: {_describe_exception(exc)}"
    return records


def execute(tasks: list[Task], *, workers: int = 1,
            progress: Callable[[dict], None] | None = None) -> tuple[list[dict], list[dict]]:
    """Run tasks in-process (``workers == 1``) or in a process pool.  Returns the records (in
    task order, then δ, then α) and the curve data of the tasks that have a figure."""
    records, curves, _ = execute_with_jobs(tasks, [], workers=workers, progress=progress)
    return records, curves


def execute_with_jobs(tasks: list[Task], jobs: list[tuple], *, workers: int = 1,
                      progress: Callable[[dict], None] | None = None):
    """As :func:`execute`, plus ``jobs`` — (function, args) pairs of module-level functions
    that never raise (sweep exact curves, series) — run in the same pool.  Returns (records,
    curves, job results in order)."""
    results: list[tuple | None] = [None] * len(tasks)
    job_results: list = [None] * len(jobs)

    def finished(i, result):
        results[i] = result
        if progress:
            for record in result[0]:
                progress(record)

    if workers <= 1 or len(tasks) + len(jobs) <= 1:
        for i, task in enumerate(tasks):
            finished(i, run_task(task))
        for k, (fn, args) in enumerate(jobs):
            job_results[k] = fn(*args)
    else:
        # larger tasks first, so that a long one does not start last
        order = sorted(range(len(tasks)), key=lambda i: -tasks[i].samples)
        with process_pool(min(workers, len(tasks) + len(jobs))) as pool:
            futures = {pool.submit(fn, *args): ("job", k) for k, (fn, args) in enumerate(jobs)}
            futures.update({pool.submit(run_task, tasks[i]): ("task", i) for i in order})
            try:
                for future in as_completed(futures):
                    kind, i = futures[future]
                    if kind == "job":
                        try:
                            job_results[i] = future.result()
                        except Exception as exc:  # e.g. a worker killed by the OS
                            job_results[i] = {"error": f"worker failed: "
                                                       f"{_describe_exception(exc)}"}
                        continue
                    try:
                        result = future.result()
                    except Exception as exc:  # e.g. a worker killed by the OS
                        result = (_failed_records(tasks[i], exc), None)
                    finished(i, result)
            except KeyboardInterrupt:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    records = [r for result in results for r in result[0]]
    curves = [result[1] for result in results if result[1] is not None]
    return records, curves, job_results


#: extra values of a swept parameter per dense-exact job (the jobs run in parallel)
DENSE_CHUNK = 6


def plan_jobs(suites: list[Suite], tasks: list[Task]) -> tuple[list[tuple], list[tuple]]:
    """(jobs, keys): the dense exact-ε jobs of swept audits with ``exact_points`` and the
    series jobs of every suite; ``keys[k]`` says what job k is for."""
    from dpaudit.audit import sweeps

    jobs, keys = [], []
    for suite in suites:
        for audit in suite.audits:
            if audit.sweep is None or not audit.exact_points:
                continue
            values = sweeps.dense_values(list(audit.sweep.values), audit.exact_points)
            pair_indices = sorted({t.pair_index for t in tasks
                                   if t.suite_file == suite.path
                                   and t.audit_index == audit.index and t.pair is not None})
            for j in pair_indices:
                explicit = None
                if audit.pairs != "worst-case":
                    from dpaudit.mechanisms.base import NeighbourPair
                    p = audit.pairs[j]
                    explicit = NeighbourPair(p.name, p.d0, p.d1, p.description)
                for c in range(0, len(values), DENSE_CHUNK):
                    jobs.append((sweeps.dense_exact_job,
                                 (audit.mechanism, dict(audit.params), audit.sweep.parameter,
                                  values[c:c + DENSE_CHUNK], j, explicit, audit.deltas)))
                    keys.append(("dense", suite.path, audit.index, j, audit.deltas))
        for spec in suite.series:
            jobs.append((sweeps.series_job, (suite.name, suite.path, spec)))
            keys.append(("series", suite.path, spec.index, None, None))
    return jobs, keys


def judge(records: list[dict]) -> list[dict]:
    """Per-audit verdicts; sets ``audit_verdict`` and ``met_expectation`` on every record."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        point = (record.get("sweep") or {}).get("index")
        groups.setdefault((record["suite_file"], record["audit_index"], point),
                          []).append(record)
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
                         "met_expectation": met, "certificates": len(rows),
                         "sweep": rows[0].get("sweep")})
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

    where = (f"δ={record['delta']:g}" if record.get("notion", "dp") == "dp"
             else f"α={record['alpha']:g}")
    if record.get("sweep"):
        value = record["sweep"]["value"]
        where = (f"{record['sweep']['parameter']}="
                 f"{value:g} " if isinstance(value, float) else
                 f"{record['sweep']['parameter']}={value} ") + where
    white = record.get("white_box_epsilon_lower_bound")
    white_text = "" if white is None else f" white-box={num(white)}"
    line = (f"[{record['suite']}] {record['audit']} pair={pair} {where} "
            f"ε_LB={num(record['epsilon_lower_bound'])}{white_text} "
            f"claim={num(record['claimed_epsilon'])} {record['verdict']} "
            f"({record['seconds']:.1f}s)")
    if record.get("exact_verdict") == "violation" and record["verdict"] != "violation":
        line += f" [exact ε={num(record['exact_epsilon'])} > claim: not certifiable here]"
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
    loaded: list[Suite] = []
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
        loaded.append(suite)
        tasks.extend(suite_tasks)
    jobs, keys = plan_jobs(loaded, tasks)
    run.records, run.curves, job_results = execute_with_jobs(tasks, jobs, workers=workers,
                                                             progress=progress)
    run.curves.extend(_sweep_curves(run.records, keys, job_results))
    run.series = [r for key, r in zip(keys, job_results) if key[0] == "series"]
    run.outcomes = judge(run.records)
    run.seconds = time.perf_counter() - start
    return run


def _sweep_curves(records, keys, job_results) -> list[dict]:
    from dpaudit.audit.sweeps import sweep_curves

    dense: dict[tuple, dict] = {}
    for key, result in zip(keys, job_results):
        if key[0] != "dense":
            continue
        entry = dense.setdefault(key[1:4], {"deltas": list(key[4]), "rows": [], "errors": []})
        entry["rows"].extend(result.get("rows", []))
        entry["errors"].extend(result.get("errors", []))
        if result.get("error"):
            entry["errors"].append(result["error"])
    return sweep_curves(records, dense)


def default_workers() -> int:
    """Local cores available to this process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def print_progress(record: dict) -> None:
    print(format_progress(record), file=sys.stderr, flush=True)
