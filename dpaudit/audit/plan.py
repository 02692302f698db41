"""Planning: a parsed suite → the tasks of its curve certificates, their seeds and confidence.

Contract and invariants:

* **One family per suite file.**  Every (audit point, pair) of a suite is one *test*: a curve
  certificate (:func:`dpaudit.distinguish.lower_bound.estimate_privacy_curve_lower_bound`)
  that bounds ε(δ) at every δ of the audit and D_α at every α of the audit simultaneously; a
  mechanism with a log-density adds a second, white-box test for the same pair.  A point whose
  mechanism has a dataset space and whose audit searches (:mod:`dpaudit.spec.coverage`) adds
  ``keep`` black-box tests, one per rank of its pair search
  (:mod:`dpaudit.audit.pair_search`), whatever the search finds.  A test
  yields one *certificate* (one record) per δ and per α.  The suite's error budget
  1 − confidence is split into N equal shares (Bonferroni,
  :func:`dpaudit.stats.multiple_testing.split_significance`), one per test, so each test runs
  at ``1 − (1 − confidence)/N`` and everything the file certifies holds jointly with
  probability ≥ the suite's confidence.  N is the suite's ``family_size`` key when the file
  fixes it (then the file may plan at most N tests; unused shares are simply not spent), else
  the number m of tests the file plans.  An audit whose pairs could not be built still counts
  one test (conservative).
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
* **Nothing unpicklable crosses a process boundary.**  A :class:`Task` holds a
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

import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit.audit import sweeps
from dpaudit.spec.coverage import SearchBudget, no_search_reason, representation_default
from dpaudit.audit.sweeps import DenseExactJob, SeriesJob
from dpaudit.results.datasets import dataset_entry
from dpaudit.results.defaults import defaulted_values
from dpaudit.util.sizes import DEFAULT_MEMORY_LIMIT
from dpaudit.results.options import RunOptions
from dpaudit.results.hierarchy import AuditPoint, Certificate, TestResult
from dpaudit.results.records import SuiteSummary, SweepPoint, describe_exception
from dpaudit.suite.spec import MIN_SAMPLES, AuditSpec, Suite, SuiteError
from dpaudit.suite.targets import Target, as_target, for_workers
from dpaudit.mechanisms.capabilities import LogDensity, SearchableDatasets
from dpaudit.stats.multiple_testing import split_significance
from dpaudit.stats.sequential import StoppingRule

#: extra values of a swept parameter per dense-exact job (the jobs run in parallel)
DENSE_CHUNK = 6


@dataclass(frozen=True)
class Task:
    """One test to compute: a pair of a planned audit point, its δ and α grids, samples, a
    seed, and whether to add the white-box likelihood-ratio curve.

    Attributes:
      point: the planned :class:`~dpaudit.results.hierarchy.AuditPoint` (no tests yet) whose
        fields every certificate of the test shares.
      pair_index, pair: the pair's position among the point's pairs and the
        :class:`~dpaudit.mechanisms.base.NeighbourPair` (None when the pairs could not be
        built: ``setup_error`` says why).
      deltas, alphas: where the curve is certified.
      samples, seed: per-side outputs and the test's seed (white-box: seed + 1).
      white_box: also certify with the mechanism's log-density.
      setup_error: why the point could not be set up, or None.
      target: what builds the mechanism in any process
        (:class:`~dpaudit.suite.targets.Target`).
      memory_limit: bytes; the task is refused when its estimated peak memory exceeds it
        (:mod:`dpaudit.audit.memory`); never changes a number of a task that runs.
      representation: also fit statistics of the outputs' float64 representation.
      search: for a searched test, its :class:`SearchedTest` (``pair`` is then None until the
        search runs in the worker); None for a named pair.
      stopping: how the test spends ``samples`` (now its budget) and its power target
        (:mod:`dpaudit.stats.sequential`, :mod:`dpaudit.audit.rounds`).
    """

    point: AuditPoint
    pair_index: int
    pair: Any  # a NeighbourPair, or None when the pairs could not be built
    deltas: tuple
    alphas: tuple
    samples: int
    seed: int
    target: Target
    white_box: bool = False
    setup_error: str | None = None
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    representation: bool = False
    search: "SearchedTest | None" = None
    stopping: StoppingRule = StoppingRule()

    @property
    def suite_file(self) -> str:
        return self.point.suite_file

    @property
    def audit(self) -> str:
        return self.point.audit

    @property
    def audit_index(self) -> int:
        return self.point.audit_index

    @property
    def mechanism(self) -> str:
        return self.point.mechanism

    @property
    def sweep_index(self) -> int | None:
        return None if self.point.sweep is None else self.point.sweep.index

    @property
    def tests(self) -> int:
        """Members of the suite's family this task computes: its black-box curve, and its
        white-box one."""
        return 2 if self.white_box else 1

    def build_mechanism(self):
        """The mechanism under audit, built in this process (raises ValueError)."""
        return as_target(self.target).build(self.point.parameters)

    def grid(self) -> list[tuple[str, float | None, float | None]]:
        """(notion, δ, α) of each certificate: every δ, then every α."""
        return ([("dp", d, None) for d in self.deltas]
                + [("rdp", None, a) for a in self.alphas])

    def matches(self, result: TestResult) -> bool:
        """Whether ``result`` can be this task's: the same pair (index and name; for a searched
        test, its rank), seed and samples, and one certificate per (notion, δ, α) of
        :meth:`grid`, in order (a journal entry that does not is run again)."""
        same_pair = (result.pair_name == getattr(self.pair, "name", None)
                     if self.search is None else
                     (result.search or {}).get("rank") == self.search.slot + 1)
        return (result.pair_index == self.pair_index and result.seed == self.seed
                and result.samples == self.samples and same_pair
                and [(c.notion, c.delta, c.alpha) for c in result.certificates] == self.grid())

    def result(self, *, error: str, seconds: float = 0.0, warnings=()) -> TestResult:
        """The result of this test when it could not run (a worker died, the run stopped
        before it): every certificate an ``error`` with ``error`` as the reason."""
        return TestResult(pair=pair_dict(self.pair), pair_index=self.pair_index, claim=None,
                          true_epsilon=None, samples=self.samples, seed=self.seed,
                          seconds=seconds, warnings=tuple(warnings), error=error,
                          certificates=tuple(Certificate.failed(notion=n, delta=d, alpha=a)
                                             for n, d, a in self.grid()))


def pair_dict(pair) -> dict | None:
    """``pair.to_dict()`` (the record's ``pair``), a dataset above
    :data:`dpaudit.results.datasets.MAX_INLINE_DATASET_VALUES` scalars summarised
    (:func:`~dpaudit.results.datasets.dataset_entry`), or a best-effort description."""
    if pair is None:
        return None
    try:
        out = pair.to_dict()
        return {**out, "d0": dataset_entry(out["d0"]), "d1": dataset_entry(out["d1"])}
    except Exception:
        return {"name": getattr(pair, "name", "?"), "d0": repr(getattr(pair, "d0", None)),
                "d1": repr(getattr(pair, "d1", None)), "description": ""}


def task_key(audit: str, pair: str, sweep: tuple[str, Any] | None = None) -> str:
    """The name of a task the seed is derived from: ``"audit/pair"``, with
    ``"@parameter=repr(value)"`` appended for a point of a swept audit."""
    key = f"{audit}/{pair}"
    if sweep is not None:
        key += f"@{sweep[0]}={sweep[1]!r}"
    return key


def task_seed(suite_seed: int, key: str) -> int:
    """The seed of one task: a function of the suite seed and the task's name
    (:func:`task_key`) only, so that neither the workers, nor the order of the audits, nor the
    other audits of the file can change it."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 32, 4)]
    state = np.random.SeedSequence([int(suite_seed), *words])
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


@dataclass(frozen=True)
class SearchedTest:
    """A test whose pair is the ``slot``-th (0-based) best of its point's pair search.

    Attributes:
      slot: the rank of the searched pair this test certifies (0: the best).
      budget: the search's :class:`~dpaudit.spec.coverage.SearchBudget`.
      seed: the point's search seed (every searched test of the point screens alike).
      named: the point's named pairs, screened beside the candidates for comparison.
    """

    slot: int
    budget: SearchBudget
    seed: int
    named: tuple = ()


@dataclass(frozen=True)
class PointSetup:
    """What planning learns from building an audit point's mechanism.

    Attributes:
      pairs: the explicit pairs or the mechanism's worst-case pairs ([] on an error).
      white_box: whether the mechanism offers a white-box log-density.
      error: why the pairs could not be built, or None.
      defaulted: the parameters the point's ``params`` leaves at their defaults, name →
        value (:mod:`dpaudit.results.defaults`; {} when the mechanism could not be built).
      searchable: whether the mechanism has a dataset space to search.
      representation: the audit's ``representation`` or its default for this mechanism.
    """

    pairs: list
    white_box: bool
    error: str | None
    defaulted: dict
    searchable: bool = False
    representation: bool = False


def audit_pairs(audit: AuditSpec, params: dict | None = None,
                memory_limit: int = DEFAULT_MEMORY_LIMIT) -> PointSetup:
    """The :class:`PointSetup` of the mechanism built with ``params`` (default the audit's).

    Worst-case pairs whose stated size (:meth:`~dpaudit.mechanisms.base.Mechanism.pairs_size`)
    would exceed ``memory_limit`` are refused before they are built
    (:func:`dpaudit.audit.memory.check_pairs_memory`): the point's error."""
    from dpaudit.audit.memory import check_explicit_pairs_memory, check_pairs_memory
    from dpaudit.mechanisms.base import NeighbourPair

    params = audit.params if params is None else params
    defaulted: dict = {}
    try:
        target = as_target(audit.target or audit.mechanism)
        mechanism = target.build(params)
        defaulted = defaulted_values(target, mechanism, params)
        white = isinstance(mechanism, LogDensity)
        reach = dict(searchable=isinstance(mechanism, SearchableDatasets),
                     representation=(representation_default(mechanism)
                                     if audit.representation is None
                                     else audit.representation))
        if audit.pairs != "worst-case":
            check_explicit_pairs_memory(audit.pairs, memory_limit)
            return PointSetup([NeighbourPair(p.name, p.d0, p.d1, p.description)
                               for p in audit.pairs], white, None, defaulted, **reach)
        check_pairs_memory(mechanism, memory_limit)
        pairs = list(mechanism.worst_case_pairs())
        if not pairs:
            raise ValueError("worst_case_pairs() returned no pairs")
        return PointSetup(pairs, white, None, defaulted, **reach)
    except Exception as exc:  # recorded as an error of this audit; others still run
        return PointSetup([], False, f"building worst-case pairs failed: "
                                     f"{describe_exception(exc)}", defaulted)


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
    limit = next(v for v in (options.memory_limit, suite.memory_limit, DEFAULT_MEMORY_LIMIT)
                 if v is not None)
    planned = []
    for audit in suite.audits:
        for point, params, expect in audit.points():
            setup = audit_pairs(audit, params, int(limit))
            # an audit whose pairs could not be built still counts one member (conservative)
            planned.append((audit, point, params, expect, setup))
    tests = sum(_point_tests(audit, setup) for audit, _, _, _, setup in planned)
    family_size = tests if suite.family_size is None else suite.family_size
    if tests > family_size:
        raise SuiteError(f"{suite.path}: [suite] family_size = {family_size}, but the file plans "
                         f"{tests} tests (one per audit point and pair, two with a white-box "
                         f"test, and search.keep per point with a pair search); raise family_size to at least {tests} (every test's "
                         f"confidence then changes) or remove audits")
    per_cert = 1.0 - split_significance(suite.confidence, family_size)

    tasks = []
    for audit, index, params, expect, setup in planned:
        pairs, error = setup.pairs or [None], setup.error
        white = setup.white_box and audit.white_box
        searched = _searched(audit, setup)
        n = resolve_samples(audit, samples=options.samples, scale=options.scale)
        target = for_workers(audit.target or Target(audit.mechanism))
        sweep = audit.sweep
        stopping = options.stopping(audit.stopping or suite.stopping)
        point = AuditPoint(
            suite=suite.name, suite_file=suite.path, audit=audit.name,
            audit_index=audit.index, mechanism=audit.mechanism, parameters=dict(params),
            defaulted_parameters=dict(setup.defaulted), expect=expect,
            confidence=suite.confidence,
            per_certificate_confidence=per_cert, distinguisher=audit.distinguisher,
            note=audit.note,
            sweep=None if sweep is None else SweepPoint(sweep.parameter, sweep.values[index],
                                                        index),
            coverage=_coverage(audit, setup, searched), power=stopping.to_json())
        swept = None if sweep is None else (sweep.parameter, sweep.values[index])
        common = dict(point=point, deltas=audit.deltas, alphas=audit.alphas, samples=n,
                      target=target, setup_error=error, memory_limit=int(limit),
                      representation=setup.representation, stopping=stopping)
        for j, pair in enumerate(pairs):
            key = task_key(audit.name, f"#{j}" if pair is None else pair.name, swept)
            tasks.append(Task(pair_index=j, pair=pair, seed=task_seed(suite_seed, key),
                              white_box=white, **common))
        if searched:
            search_seed = task_seed(suite_seed, task_key(audit.name, "search", swept))
            for k in range(audit.search.keep):
                tasks.append(Task(
                    pair_index=len(pairs) + k, pair=None,
                    seed=task_seed(suite_seed, task_key(audit.name, f"search#{k}", swept)),
                    search=SearchedTest(k, audit.search, search_seed, tuple(setup.pairs)),
                    **common))
    info = SuiteSummary(file=suite.path, name=suite.name, confidence=suite.confidence,
                        family_size=family_size, tests=tests,
                        per_certificate_confidence=per_cert,
                        seed=suite_seed, audits=len(suite.audits), error=None,
                        points=len(planned), series=len(suite.series))
    return tasks, info


def _searched(audit: AuditSpec, setup: PointSetup) -> bool:
    """Whether the point adds searched tests: its audit searches, its mechanism has a dataset
    space and its pairs could be built."""
    return audit.search is not None and setup.searchable and setup.error is None


def _point_tests(audit: AuditSpec, setup: PointSetup) -> int:
    """Members of the family a point plans: one per named pair (two with a white-box test;
    one when the pairs could not be built) and ``keep`` for a pair search."""
    white = setup.white_box and audit.white_box
    named = max(len(setup.pairs), 1) * (2 if white else 1)
    return named + (audit.search.keep if _searched(audit, setup) else 0)


def _coverage(audit: AuditSpec, setup: PointSetup, searched: bool) -> dict:
    """What the point audits beyond its named pairs (an :class:`AuditPoint`'s ``coverage``)."""
    return {"search": audit.search.to_dict() if searched else None,
            "representation": bool(setup.representation),
            "note": None if searched or setup.error is not None
            else no_search_reason(setup.searchable, audit.search)}


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


__all__ = ["DENSE_CHUNK", "PointSetup", "SearchedTest", "Task", "audit_pairs", "pair_dict", "plan_jobs",
           "plan_suite", "resolve_samples", "task_key", "task_seed"]
