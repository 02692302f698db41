"""Planning: a parsed suite → the tasks of its curve certificates, their seeds and confidence.

Contract and invariants:

* **One family per suite file.**  Every audit point is planned by its audit's procedure
  (:mod:`dpaudit.audit.procedures`, the ``kind`` of its ``[[audit]]``: the two-sample pair
  audit by default), which says how many *tests* — members of the family — the point uses
  (:meth:`~dpaudit.audit.procedures.base.AuditProcedure.family_members`: for the pair audit
  one per named pair, two with a white-box test, plus ``keep`` for a pair search; none for the
  exact-curve check, which estimates nothing) and makes its tasks.  A test yields one
  *certificate* per δ and per α.  The suite's error budget 1 − confidence is split into N
  equal shares (Bonferroni, :func:`dpaudit.stats.multiple_testing.split_significance`), one
  per test, so each test runs at ``1 − (1 − confidence)/N`` and everything the file certifies
  holds jointly with probability ≥ the suite's confidence.  N is the suite's ``family_size``
  key when the file fixes it (then the file may plan at most N tests; unused shares are simply
  not spent), else the number m of tests the file plans.  An audit whose setup failed still
  counts what its procedure says (the pair audit: one test, conservative).
* **Stable numbers.**  With ``family_size`` fixed, a test's confidence does not depend on the
  other audits of the file; and a task's seed depends on the suite seed and the task's *names*
  (audit, pair, swept value), not on positions.  So adding, removing or reordering an audit
  leaves every other audit's numbers bit-identical, and running a subset of a suite
  (``--only``) gives the numbers of the full run.
* **Seeds depend on the task, not on the execution.**  Task (audit a, pair p, swept value v)
  of a suite with seed s draws from ``SeedSequence([s, w_1, …, w_8]).generate_state(1)[0]``
  where w are the eight 32-bit words of SHA-256 of ``"a/p"`` (``"a/p@parameter=repr(v)"`` for
  a swept audit); the white-box test draws from that seed + 1.  The searched test of rank k
  is named ``"search#k"``; the point's search itself draws from the seed of ``"search"``.  The number of workers and the
  completion order cannot change a number.
* **Nothing unpicklable crosses a process boundary.**  A task holds a
  :class:`~dpaudit.suite.targets.Target` (a registry name, or a reference to user code and the
  suite's directory, or an object given through the Python API), the parameters and plain
  datasets; the worker re-imports the code and re-creates the mechanism.  Tasks are
  serialised with cloudpickle, so Python-API closures and lambdas cross too.
* **Jobs.**  :func:`plan_jobs` lists the non-certifying work of a run — dense exact ε over a
  swept parameter (``exact_points``) and ``[[series]]`` entries — as typed jobs
  (:class:`~dpaudit.audit.sweeps.DenseExactJob`, :class:`~dpaudit.audit.sweeps.SeriesJob`)
  whose ``run()`` never raises and which say what they are for.
"""

from __future__ import annotations

import dataclasses

from dpaudit.audit import sweeps
from dpaudit.audit.procedures.base import PointContext, Task, UnplannedTask
from dpaudit.audit.procedures.table import procedure
from dpaudit.audit.seeds import task_key, task_seed
from dpaudit.audit.sweeps import DenseExactJob, SeriesJob
from dpaudit.evidence.vocabulary import Expectation
from dpaudit.results.hierarchy import AuditPoint
from dpaudit.results.options import RunOptions
from dpaudit.results.records import SuiteSummary, SweepPoint
from dpaudit.stats.multiple_testing import split_significance
from dpaudit.spec.audit import AuditSpec
from dpaudit.spec.fields import MIN_SAMPLES
from dpaudit.suite.spec import Suite, SuiteError
from dpaudit.suite.targets import Target, for_workers
from dpaudit.util.sizes import DEFAULT_MEMORY_LIMIT
from dpaudit.util.time_limit import DEFAULT_TIME_LIMIT

#: extra values of a swept parameter per dense-exact job (the jobs run in parallel)
DENSE_CHUNK = 6


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


def plan_suite(suite: Suite, options: RunOptions = RunOptions()
               ) -> tuple[list[Task], SuiteSummary]:
    """Tasks of one suite (in a fixed order) and the suite's entry for the report.

    ``options`` (:class:`~dpaudit.results.options.RunOptions`) may replace every audit's
    samples (``samples``, scaled by ``profile``), the suite's seed (``seed``) and its memory
    limit (``memory_limit``, which otherwise is the suite's, else
    :data:`~dpaudit.util.sizes.DEFAULT_MEMORY_LIMIT`).

    Raises:
      SuiteError: the suite fixes a ``family_size`` smaller than the tests it plans.
    """
    suite_seed = suite.seed if options.seed is None else options.seed
    limit = int(next(v for v in (options.memory_limit, suite.memory_limit, DEFAULT_MEMORY_LIMIT)
                     if v is not None))
    seconds = next(v for v in (options.time_limit, getattr(suite, "time_limit", None),
                               DEFAULT_TIME_LIMIT) if v is not None)
    planned = []
    for audit in suite.audits:
        kind = procedure(audit.kind)
        try:
            kind.check(audit)
        except ValueError as exc:
            raise SuiteError(f"{suite.path}: audit {audit.name!r}: {exc}") from None
        for point, params, expect in audit.points():
            setup = kind.setup(audit, params, limit)
            planned.append((audit, kind, point, params, expect, setup))
    tests = sum(kind.family_members(audit, setup) for audit, kind, _, _, _, setup in planned)
    family_size = tests if suite.family_size is None else suite.family_size
    if tests > family_size:
        raise SuiteError(f"{suite.path}: [suite] family_size = {family_size}, but the file plans "
                         f"{tests} tests (one per audit point and pair, two with a white-box "
                         f"test, and search.keep per point with a pair search); raise "
                         f"family_size to at least {tests} (every test's confidence then "
                         f"changes) or remove audits")
    per_cert = (1.0 - split_significance(suite.confidence, family_size) if family_size
                else suite.confidence)

    tasks = []
    for audit, kind, index, params, expect, setup in planned:
        if audit.uses_claim_delta and setup.claim_delta is not None:  # the claim's δ
            audit = dataclasses.replace(audit, deltas=(setup.claim_delta,))
        sweep = audit.sweep
        stopping = options.stopping(audit.stopping or suite.stopping)
        point = AuditPoint(
            suite=suite.name, suite_file=suite.path, audit=audit.name,
            audit_index=audit.index, mechanism=audit.mechanism, parameters=dict(params),
            defaulted_parameters=dict(setup.defaulted), expect=Expectation(expect),
            confidence=suite.confidence,
            per_certificate_confidence=per_cert, distinguisher=audit.distinguisher,
            note=audit.note,
            sweep=None if sweep is None else SweepPoint(sweep.parameter, sweep.values[index],
                                                        index),
            coverage=kind.coverage(audit, setup), power=stopping, procedure=kind.kind)
        context = PointContext(
            suite_seed=suite_seed,
            swept=None if sweep is None else (sweep.parameter, sweep.values[index]),
            samples=resolve_samples(audit, samples=options.samples, scale=options.scale),
            target=for_workers(audit.target or Target(audit.mechanism)),
            memory_limit=limit, time_limit=seconds, stopping=stopping)
        made = kind.tasks(point, audit, setup, context)
        if not made:  # a point is never judged on no tests at all
            made = [UnplannedTask(point=point, seed=task_seed(suite_seed, task_key(
                audit.name, "#0", context.swept)), deltas=audit.deltas, alphas=audit.alphas,
                why=setup.error or f"the {kind.kind!r} audit made no tests for this point")]
        tasks.extend(made)
    info = SuiteSummary(file=suite.path, name=suite.name, confidence=suite.confidence,
                        family_size=family_size, tests=tests,
                        per_certificate_confidence=per_cert,
                        seed=suite_seed, audits=len(suite.audits), error=None,
                        points=len(planned), series=len(suite.series))
    return tasks, info


def plan_jobs(suites: list[Suite], tasks: list[Task]) -> list[DenseExactJob | SeriesJob]:
    """The non-certifying work of a run: the dense exact-ε jobs of swept audits with
    ``exact_points`` (one per chunk of :data:`DENSE_CHUNK` values and pair) and one job per
    ``[[series]]`` entry.  Each job says what it is for."""
    from dpaudit.mechanisms.base import NeighbourPair

    jobs: list[DenseExactJob | SeriesJob] = []
    for suite in suites:
        for audit in suite.audits:
            if audit.sweep is None or not audit.exact_points:
                continue
            values = sweeps.dense_values(list(audit.sweep.values), audit.exact_points)
            mine = [t for t in tasks
                    if t.suite_file == suite.path and t.audit_index == audit.index]
            pair_indices = sorted({t.pair_index for t in mine if t.pair is not None})
            limit = mine[0].memory_limit if mine else DEFAULT_MEMORY_LIMIT
            for j in pair_indices:
                explicit = None
                if audit.pairs != "worst-case":
                    p = audit.pairs[j]
                    explicit = NeighbourPair(p.name, p.d0, p.d1, p.description)
                for c in range(0, len(values), DENSE_CHUNK):
                    jobs.append(DenseExactJob(
                        suite_file=suite.path, audit_index=audit.index, pair_index=j,
                        target=for_workers(audit.target or Target(audit.mechanism)),
                        params=dict(audit.params), parameter=audit.sweep.parameter,
                        values=tuple(values[c:c + DENSE_CHUNK]), explicit_pair=explicit,
                        deltas=audit.deltas, memory_limit=limit))
        for spec in suite.series:
            jobs.append(SeriesJob(suite.name, suite.path, spec))
    return jobs


__all__ = ["DENSE_CHUNK", "Task", "plan_jobs", "plan_suite", "resolve_samples", "task_key", "task_seed"]
