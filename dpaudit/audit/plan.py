"""Planning: a parsed suite → the tasks of its curve certificates, their seeds and confidence.

Contract and invariants:

* **One family per suite file.**  Every (audit point, pair) of a suite is one *curve
  certificate* (:func:`dpaudit.distinguish.lower_bound.estimate_privacy_curve_lower_bound`),
  which bounds ε(δ) at every δ of the audit and D_α at every α of the audit simultaneously; a
  mechanism with a log-density adds a second, white-box curve certificate for the same pair.
  With m curve certificates in the file, each runs at ``1 − (1 − confidence)/m``
  (:func:`dpaudit.stats.multiple_testing.split_significance`, Bonferroni), so everything the
  file certifies holds jointly with probability ≥ the suite's confidence.  An audit whose
  pairs could not be built still counts one member (conservative).
* **Seeds depend on the task, not on the execution.**  Task (audit i, pair j) of a suite with
  seed s draws from ``SeedSequence([s, i, j, 0]).generate_state(1)[0]`` (the white-box
  certificate from that seed + 1); point p of a swept audit from ``SeedSequence([s, i, j, 0,
  p])``.  The number of workers and the completion order cannot change a number.
* **Nothing unpicklable crosses a process boundary.**  A :class:`Task` holds a
  :class:`~dpaudit.audit.targets.Target` (a registry name, or a reference to user code and the
  suite's directory, or an object given through the Python API), the parameters and plain
  datasets; the worker re-imports the code and re-creates the mechanism.  Tasks are
  serialised with cloudpickle, so Python-API closures and lambdas cross too.
* **Jobs.**  :func:`plan_jobs` lists the non-certifying work of a run — dense exact ε over a
  swept parameter (``exact_points``) and ``[[series]]`` entries — as (function, args) pairs of
  module-level functions of :mod:`dpaudit.audit.sweeps`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.audit import sweeps
from dpaudit.audit.records import SuiteSummary, SweepPoint, describe_exception
from dpaudit.audit.spec import MIN_SAMPLES, AuditSpec, Suite
from dpaudit.audit.targets import Target, as_target, for_workers
from dpaudit.mechanisms.capabilities import LogDensity
from dpaudit.stats.multiple_testing import split_significance

#: extra values of a swept parameter per dense-exact job (the jobs run in parallel)
DENSE_CHUNK = 6


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
    target: Target | None = None  # None: the registered mechanism named ``mechanism``

    def build_mechanism(self):
        """The mechanism under audit, built in this process (raises ValueError)."""
        return as_target(self.target or self.mechanism).build(self.params)

    def sweep(self) -> SweepPoint | None:
        if self.sweep_index is None:
            return None
        return SweepPoint(self.sweep_parameter, self.sweep_value, self.sweep_index)

    def record_fields(self) -> dict:
        """The fields every record of this task shares (keyword arguments of
        :meth:`dpaudit.audit.records.CertificateRecord.create`)."""
        return dict(suite=self.suite, suite_file=self.suite_file, audit=self.audit,
                    audit_index=self.audit_index, mechanism=self.mechanism,
                    parameters=dict(self.params), pair=pair_dict(self.pair),
                    pair_index=self.pair_index, expect=self.expect, samples=self.samples,
                    seed=self.seed, confidence=self.confidence,
                    per_certificate_confidence=self.per_certificate_confidence,
                    distinguisher=self.distinguisher, note=self.note, sweep=self.sweep())

    def grid(self) -> list[dict]:
        """One (notion, delta, alpha) per record: every δ, then every α."""
        return ([{"notion": "dp", "delta": d, "alpha": None} for d in self.deltas]
                + [{"notion": "rdp", "delta": None, "alpha": a} for a in self.alphas])


def pair_dict(pair) -> dict | None:
    """``pair.to_dict()`` (the record's ``pair``), or a best-effort description."""
    if pair is None:
        return None
    try:
        return pair.to_dict()
    except Exception:
        return {"name": getattr(pair, "name", "?"), "d0": repr(getattr(pair, "d0", None)),
                "d1": repr(getattr(pair, "d1", None)), "description": ""}


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
    """Per-side samples of an audit after the CLI override and the profile scale.

    ``base`` is ``samples`` (``--samples``) or the audit's own; the result is
    ``max(MIN_SAMPLES, round(base × scale))``, and under a scale below 1 (``quick``) at least
    the audit's ``min_samples`` — but never more than ``base``.  ``min_samples`` never changes
    the default (×1) or the deep (×10) profile."""
    base = audit.samples if samples is None else int(samples)
    n = max(MIN_SAMPLES, int(round(base * scale)))
    if scale < 1 and audit.min_samples is not None:
        n = max(n, min(audit.min_samples, base))
    return n


def audit_pairs(audit: AuditSpec, params: dict | None = None):
    """(pairs, has_log_density, error message): the explicit pairs or the mechanism's
    worst-case pairs (for the mechanism built with ``params``, default the audit's), and
    whether the mechanism offers a white-box log-density."""
    from dpaudit.mechanisms.base import NeighbourPair

    try:
        mechanism = as_target(audit.target or audit.mechanism).build(
            audit.params if params is None else params)
        white = isinstance(mechanism, LogDensity)
        if audit.pairs != "worst-case":
            return ([NeighbourPair(p.name, p.d0, p.d1, p.description) for p in audit.pairs],
                    white, None)
        pairs = list(mechanism.worst_case_pairs())
        if not pairs:
            raise ValueError("worst_case_pairs() returned no pairs")
        return pairs, white, None
    except Exception as exc:  # recorded as an error of this audit; others still run
        return [], False, f"building worst-case pairs failed: {describe_exception(exc)}"


def plan_suite(suite: Suite, suite_index: int = 0, *, samples: int | None = None,
               scale: float = 1.0, seed: int | None = None) -> tuple[list[Task], SuiteSummary]:
    """Tasks of one suite (in a fixed order) and the suite's entry for the report."""
    suite_seed = suite.seed if seed is None else int(seed)
    planned = []
    for audit in suite.audits:
        for point, params, expect in audit.points():
            pairs, white, error = audit_pairs(audit, params)
            # an audit whose pairs could not be built still counts one member (conservative)
            planned.append((audit, point, params, expect, pairs or [None],
                            white and audit.white_box, error))
    family_size = sum(len(pairs) * (2 if white else 1)
                      for *_, pairs, white, _ in planned)
    per_cert = 1.0 - split_significance(suite.confidence, family_size)

    tasks = []
    for audit, point, params, expect, pairs, white, error in planned:
        n = resolve_samples(audit, samples=samples, scale=scale)
        target = for_workers(audit.target or Target(audit.mechanism))
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
                sweep_index=point, target=target))
    info = SuiteSummary(file=suite.path, name=suite.name, confidence=suite.confidence,
                        family_size=family_size, per_certificate_confidence=per_cert,
                        seed=suite_seed, audits=len(suite.audits), error=None,
                        points=len(planned), series=len(suite.series))
    return tasks, info


def plan_jobs(suites: list[Suite], tasks: list[Task]) -> tuple[list[tuple], list[tuple]]:
    """(jobs, keys): the dense exact-ε jobs of swept audits with ``exact_points`` and the
    series jobs of every suite; ``keys[k]`` says what job k is for."""
    from dpaudit.mechanisms.base import NeighbourPair

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
                    p = audit.pairs[j]
                    explicit = NeighbourPair(p.name, p.d0, p.d1, p.description)
                for c in range(0, len(values), DENSE_CHUNK):
                    jobs.append((sweeps.dense_exact_job,
                                 (for_workers(audit.target or Target(audit.mechanism)),
                                  dict(audit.params),
                                  audit.sweep.parameter,
                                  values[c:c + DENSE_CHUNK], j, explicit, audit.deltas)))
                    keys.append(("dense", suite.path, audit.index, j, audit.deltas))
        for spec in suite.series:
            jobs.append((sweeps.series_job, (suite.name, suite.path, spec)))
            keys.append(("series", suite.path, spec.index, None, None))
    return jobs, keys


__all__ = ["DENSE_CHUNK", "Task", "audit_pairs", "pair_dict", "plan_jobs", "plan_suite",
           "resolve_samples", "task_seed"]
