"""The Python API: the face of dpaudit for scripts, notebooks and tests.

* :func:`run_suites` — suite files, as ``dpaudit run`` runs them: it builds one
  :class:`~dpaudit.results.options.RunOptions` and the backend from its arguments and calls
  :func:`dpaudit.audit.run.run_audits`.
* :func:`audit_mechanism` and :func:`audit_sampler` — code that is not in the registry: a
  mechanism (class, instance, registry name or ``module:Class`` reference) or a plain sampler
  function with a stated claim.  They build an in-memory :class:`Suite` of one audit and send
  it through the same stages as a suite file — :func:`plan_suite` (one Bonferroni family per
  call, seeds from the task's name), a backend (in-process, ``workers`` processes, or any
  :mod:`dpaudit.backends` backend such as a Dask cluster; callables travel with cloudpickle,
  so closures and lambdas work and the numbers do not depend on where they run) and the
  points' judgement — and return an :class:`AuditResult`.

Where user code runs.  By default (``workers=1``) every test runs in the calling process, as
the calling code expects of a function call: a debugger's breakpoints work, nothing is
pickled, and a small audit takes no process start-up.  The price: ``sys.exit`` in user code
is an ``error`` of its audit (:mod:`dpaudit.util.user_code`), but ``os._exit`` or a fatal
signal (SIGKILL, a segfault in a C extension) ends the calling process — a script, a
notebook's kernel, pytest — with whatever status it gives.  ``isolate=True`` runs the tests
in worker processes instead (one, or ``workers``; even a single test): such an end is then an
``error`` of that test ("worker process died …", after one retry alone) and the caller goes
on, at the cost of a fork-server worker's start-up per call — 3.16 s → 11.87 s for a small
audit (``benchmarks/out_of_process.py``, a loaded machine).  ``workers`` ≥ 2 runs the tests
in worker processes too, except an audit of a single test.  Either way the audit is
*planned* in the calling process: the mechanism's constructor, its claim and its
``worst_case_pairs()`` (and a ``"file.py:fn"`` reference's import) run there.

Bad arguments raise ``ValueError`` with a one-line message.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from dpaudit.audit.run import run_audits
from dpaudit.audit.single import PYTHON_SUITE, run_single, single_audit_suite
from dpaudit.backends.choose import resolve_backend
from dpaudit.report.explain import explain_point
from dpaudit.results.hierarchy import AuditPoint
from dpaudit.results.options import RunOptions
from dpaudit.stats.sequential import DEFAULT_POWER
from dpaudit.results.records import AuditOutcome, CertificateRecord, SuiteSummary
from dpaudit.results.run import AuditRun
from dpaudit.util.stopping import stop_status
from dpaudit.spec.audit import DEFAULT_CONFIDENCE, DEFAULT_SAMPLES, DEFAULT_SEED, AuditSpec
from dpaudit.spec.kinds import DEFAULT_KIND
from dpaudit.suite.targets import MECHANISM, SAMPLER, Target, check_sampler, claim_template


@dataclass(frozen=True)
class AuditResult:
    """The judged records of one audit call.

    Attributes:
      records: one :class:`CertificateRecord` per (pair, δ or α), judged.
      outcomes: one :class:`AuditOutcome` per audit point (one without a sweep).
      suite: the family: its size and per-certificate confidence.
      points: the judged audit points (tests and certificates) the records flatten.
    """

    records: tuple[CertificateRecord, ...]
    outcomes: tuple[AuditOutcome, ...]
    suite: SuiteSummary
    points: tuple[AuditPoint, ...] = ()

    @property
    def verdict(self) -> str:
        """``"error"``, ``"violation"`` or ``"consistent"`` (worst over the points)."""
        verdicts = {o.verdict for o in self.outcomes}
        for verdict in ("error", "violation"):
            if verdict in verdicts:
                return verdict
        return "consistent"

    @property
    def met_expectation(self) -> bool:
        return all(o.met_expectation for o in self.outcomes)

    @property
    def epsilon_lower_bound(self) -> float:
        """The largest certified ε_LB of the dp records (0 when none)."""
        values = [r.epsilon_lower_bound for r in self.records
                  if r.notion == "dp" and r.epsilon_lower_bound is not None]
        return max(values, default=0.0)

    @property
    def defaulted_parameters(self) -> dict:
        """The parameters ``params`` left at the mechanism's defaults, name → value ({} when
        every parameter was given, and for an instance or a sampler, which take no params)."""
        return dict(self.records[0].defaulted_parameters or {}) if self.records else {}

    @property
    def warnings(self) -> tuple[str, ...]:
        """The distinct warning texts the audit's tests recorded, in first-seen order (each
        test's own list is ``points[i].tests[j].warnings``)."""
        from dpaudit.results.recorded_warnings import distinct_warnings

        return tuple(dict.fromkeys(w.text for w in distinct_warnings(self.points)))

    def explain(self) -> str:
        """Every audit point and its certificates as text (see :mod:`dpaudit.report.explain`)."""
        return "\n".join(explain_point(point) for point in self.points)


def audit_mechanism(mechanism, *, params: dict | None = None, pairs=None,
                    delta: float | Iterable[float] | None = None, alphas: Iterable[float] = (),
                    samples: int = DEFAULT_SAMPLES, confidence: float = DEFAULT_CONFIDENCE,
                    seed: int = DEFAULT_SEED, workers: int = 1, expect="consistent",
                    distinguisher: str = "auto", white_box: bool = True,
                    name: str | None = None, backend=None,
                    memory_limit: int | str | None = None, search=True,
                    representation: bool | None = None, floating_point: str = "fail",
                    replay: str = "fail", sequential: bool = True,
                    power: float | None = DEFAULT_POWER,
                    require_power: bool = False, kind: str = DEFAULT_KIND,
                    options: dict | None = None, claim=None, sweep: dict | None = None,
                    note: str = "", isolate: bool = False) -> AuditResult:
    """Audit a mechanism against its own claim (or ``claim``): its named pairs, a pair search
    of its dataset space, and — for code that is the implementation — its outputs' float64
    representation (:mod:`dpaudit.spec.coverage`), exactly as ``dpaudit run`` audits a suite.
    The same as :func:`run_audit` of :func:`audit_spec` of these arguments.

    Args:
      mechanism: a :class:`~dpaudit.mechanisms.base.Mechanism` subclass or instance, a
        registered name, or a ``"module:Class"`` / ``"path/file.py:Class"`` reference
        (relative to the current directory).
      params: keyword arguments of the class (not with an instance).
      pairs: ``None`` for the mechanism's worst-case pairs, or neighbouring pairs: each a
        ``NeighbourPair``, a ``(d0, d1)`` tuple or a dict with ``d0``, ``d1`` (and ``name``).
      delta: the δ (or list of δs) at which ε is certified; None (the default, as in every
        route): the claim's δ — 0 for a claim finite there (pure DP), else the smallest δ
        its approximate-DP part states, else 1e-6
        (:func:`dpaudit.claims.audit_delta.claim_audit_delta`).
      alphas: Rényi orders to audit as well (claims with an RDP curve).
      samples, confidence, seed: per side; family-wise over the pairs; the run's seed.
      workers: processes (1: in this process); the numbers do not depend on it.
      isolate: run the tests in worker processes even with ``workers=1`` (and for a single
        test), so that user code ending its process (``os._exit``, a fatal signal) is an
        ``error`` of its test instead of the end of the caller; slower (a worker's start-up
        per call; see the module docstring).  Not with ``backend``.
      expect: ``"consistent"`` or ``"violation"`` (with a ``sweep``, a list of them, one
        per value).
      backend: where to run instead of ``workers`` local processes: a
        :class:`dpaudit.backends.Backend`, a ``distributed.Client``, a Dask scheduler address
        ``"tcp://HOST:PORT"``, or ``"local:N"`` (a Dask LocalCluster of N worker processes,
        started and closed by this call); the numbers do not depend on it.
      memory_limit: refuse (as an ``error`` record) a test whose estimated peak memory exceeds
        this: bytes or a size such as ``"16GB"`` (default 4 GiB, :mod:`dpaudit.audit.memory`).
      search: the pair search of the mechanism's dataset space (when it has one): ``True``
        (the default budget), ``False``, a :class:`dpaudit.spec.coverage.SearchBudget` or a dict
        such as ``{"candidates": 32, "keep": 2}``; its ``keep`` tests join the family.
      representation: read the outputs' float64 representation (floating-point leaks);
        None (default): on for a class defined outside dpaudit and for library adapters, off
        for dpaudit's own paper families.
      floating_point: how a floating-point violation (certified only by an event on the
        outputs' float64 representation, the value-level bound within the claim) gates the
        audit: ``"fail"`` (the default: it fails like any violation) or ``"warn"`` (a warning;
        the audit is judged on its value-level verdict — for code that is not the production
        sampler).  A value-level violation fails either way.
      replay: how a grey-box replay finding (:mod:`dpaudit.audit.procedures.replay`) gates
        the audit: ``"fail"`` (the default), ``"warn"`` (a warning) or ``"off"`` (no replay).
      sequential, power, require_power: the stopping rule, as a suite's keys
        (:class:`dpaudit.stats.sequential.StoppingRule`): draw in looks and stop once the
        verdict is decided (False: fixed n, all ``samples`` in one look); the power target
        (a consistent ε(δ) certificate whose detectable ε exceeds ``power`` × its claim is
        *underpowered*; None: no target); whether an underpowered certificate fails.
      kind, options: the kind of audit and its own options, as a suite's ``kind`` and
        ``options`` keys (:mod:`dpaudit.audit.procedures`: ``"pair"``, the default, the
        two-sample audit; ``"exact-curve"``, the claim against each pair's exact or bracketed
        curve, no sampling; or a plug-in's).
      claim: a claim to judge the mechanism against instead of its own — a
        :class:`~dpaudit.claims.base.Claim` or a claim table
        (:mod:`dpaudit.claims.tables`: ``{"notion": "pure-dp", "epsilon": 1.0}``,
        ``{"accountant": "opacus:rdp", …}``; numbers it leaves out come from ``params``), as
        a suite's ``claim`` key.
      sweep: one audit point per value of one parameter, as a suite's ``sweep``:
        ``{"epsilon": [0.5, 1, 2]}`` or ``{"steps": {"start": 0, "stop": 100, "num": 11}}``
        (one family over every point).
      note: free text, carried into the records.

    Returns:
      An :class:`AuditResult`.

    Raises:
      ValueError: a bad argument (naming it, as a suite file's message names its key), a
        mechanism that cannot be loaded or built.
      dpaudit.backends.BackendError: the backend cannot be set up (an unreachable scheduler).
    """
    spec = audit_spec(mechanism, claim=claim, params=params, pairs=pairs, delta=delta,
                      alphas=alphas, samples=samples, expect=expect,
                      distinguisher=distinguisher, white_box=white_box, name=name,
                      search=search, representation=representation,
                      floating_point=floating_point, replay=replay, sequential=sequential,
                      power=power, require_power=require_power, kind=kind, options=options,
                      sweep=sweep, note=note)
    return run_audit(spec, confidence=confidence, seed=seed, workers=workers,
                     backend=backend, memory_limit=memory_limit, isolate=isolate)


def audit_sampler(sampler, claim=None, pairs=None, *, epsilon: float | None = None,
                  params: dict | None = None,
                  delta: float | Iterable[float] | None = None, samples: int = DEFAULT_SAMPLES,
                  confidence: float = DEFAULT_CONFIDENCE, seed: int = DEFAULT_SEED,
                  workers: int = 1, expect="consistent", distinguisher: str = "auto",
                  name: str | None = None, backend=None,
                  memory_limit: int | str | None = None, search=True,
                  representation: bool | None = None, floating_point: str = "fail",
                  replay: str = "fail", sequential: bool = True,
                  power: float | None = DEFAULT_POWER,
                  require_power: bool = False, kind: str = DEFAULT_KIND,
                  options: dict | None = None, sweep: dict | None = None,
                  note: str = "", isolate: bool = False) -> AuditResult:
    """Audit a plain sampler ``sampler(dataset, n, rng, **params) -> n outputs`` against a
    claim, on its pairs and — by default — on its outputs' float64 representation: the
    sampler is the code you ship.  A sampler given a dataset space
    (:func:`dpaudit.with_dataset_space`) is searched there as a mechanism is; without one,
    only the given pairs are audited (the result says so).  The same as :func:`run_audit` of
    :func:`audit_spec` of these arguments.

    Args:
      sampler: a callable (closures and lambdas included) or a ``"file.py:fn"`` reference
        (relative to the current directory; imported with the project root on the path,
        :mod:`dpaudit.mechanisms.references`).
      claim: a :class:`~dpaudit.claims.notions.Claim` or a table such as
        ``{"notion": "zcdp", "rho": 0.5}`` — a key it leaves out is read from ``params``
        (``{"notion": "pure-dp"}`` with ``params={"epsilon": 0.5}``); or leave it out and
        give ``epsilon``.
      pairs: neighbouring pairs (required): ``NeighbourPair``\\ s, ``(d0, d1)`` tuples or
        dicts with ``d0``, ``d1`` (and ``name``).
      epsilon: shorthand claim: ε-DP, or (ε, δ)-DP when ``delta`` is a positive number.
      params: keyword arguments of the sampler (:mod:`dpaudit.mechanisms.sampler`); those
        left out take the function's defaults (``result.defaulted_parameters``).
      delta, samples, confidence, seed, workers, expect, backend, memory_limit, search,
        floating_point, replay, isolate: as in :func:`audit_mechanism`.
      representation: read the outputs' float64 representation (default True for a
        sampler; False audits the real-valued mechanism the sampler stands for).
      sequential, power, require_power, kind, options, sweep, note: as for
        :func:`audit_mechanism`.

    Returns:
      An :class:`AuditResult`.

    Raises:
      ValueError: a bad argument (no claim, no pairs, a sampler of the wrong signature).
      dpaudit.backends.BackendError: the backend cannot be set up.
    """
    if (claim is None) == (epsilon is None):
        raise ValueError("give exactly one of claim (a Claim or a table) and epsilon")
    if claim is None:
        positive = isinstance(delta, (int, float)) and delta > 0
        claim = ({"notion": "approx-dp", "epsilon": epsilon, "delta": delta} if positive
                 else {"notion": "pure-dp", "epsilon": epsilon})
    spec = audit_spec(sampler=sampler, claim=claim, params=params, pairs=pairs, delta=delta,
                      samples=samples, expect=expect, distinguisher=distinguisher, name=name,
                      search=search, representation=representation,
                      floating_point=floating_point, replay=replay, sequential=sequential,
                      power=power, require_power=require_power, kind=kind, options=options,
                      sweep=sweep, note=note)
    return run_audit(spec, confidence=confidence, seed=seed, workers=workers,
                     backend=backend, memory_limit=memory_limit, isolate=isolate)


def audit_spec(mechanism=None, *, sampler=None, claim=None, samples: int = DEFAULT_SAMPLES,
               **keys) -> AuditSpec:
    """The :class:`~dpaudit.spec.audit.AuditSpec` of one audit — what a suite's ``[[audit]]``
    row states — read and checked by the reader every route shares
    (:func:`dpaudit.spec.audit.read_audit`; the same defaults, checks and messages as a suite
    file, naming the argument instead of the file).  Give it to :func:`run_audit`, keep it,
    or change it with :func:`dataclasses.replace` (:func:`run_audit` checks it again).

    Args:
      mechanism: what :func:`audit_mechanism` audits, or None with ``sampler``.
      sampler: what :func:`audit_sampler` audits (needs ``claim`` and ``pairs``; no
        white-box test, and a pair search only when it was given a dataset space with
        :func:`dpaudit.with_dataset_space`).
      claim: the claim it is judged against (required with a sampler).
      samples: per side.
      keys: the other keys of :data:`dpaudit.spec.audit.AUDIT_KEYS` as
        :func:`audit_mechanism` spells them (``params``, ``pairs``, ``delta``, ``alphas``,
        ``expect``, ``sweep``, ``search``, ``power`` …).

    Raises:
      ValueError: a bad argument, code that cannot be loaded or built.
    """
    if (mechanism is None) == (sampler is None):
        raise ValueError("give exactly one of mechanism and sampler")
    params = keys.get("params")
    if params is not None and not isinstance(params, dict):
        raise ValueError(f"params: expected a dict of keyword arguments, got {params!r}")
    params = dict(params or {})
    keys["params"] = params
    if sampler is not None:
        if claim is None:
            raise ValueError("a sampler needs a claim (a Claim or a table such as "
                             "{'notion': 'pure-dp', 'epsilon': 1.0})")
        if keys.get("pairs") is None:
            raise ValueError("a sampler needs explicit pairs=[(d0, d1), ...] (it has no "
                             "worst-case pairs)")
        claim = claim_template(claim)
        if isinstance(sampler, str):
            target = Target(sampler, SAMPLER, str(Path.cwd()), claim)
        else:
            label = getattr(sampler, "__qualname__", None) or type(sampler).__name__
            check_sampler(sampler, label)
            target = Target(label, SAMPLER, "", claim, sampler)
        # no white-box test (a sampler has no log-density); a pair search only where the
        # sampler was given a dataset space (dpaudit.with_dataset_space)
        keys["white_box"] = False
        from dpaudit.mechanisms.sampler import sampler_space

        if not isinstance(sampler, str) and sampler_space(sampler) is None:
            keys["search"] = False
        caller = "audit_sampler()"
    else:
        stated = None if claim is None else claim_template(claim)
        if isinstance(mechanism, str):
            target = Target(mechanism, MECHANISM,
                            str(Path.cwd()) if ":" in mechanism else "", stated)
        else:
            cls = mechanism if isinstance(mechanism, type) else type(mechanism)
            target = Target(getattr(cls, "name", None) or cls.__qualname__, MECHANISM, "",
                            stated, mechanism)
        caller = "audit_mechanism()"
    sweep = keys.get("sweep")
    if sweep is None:  # fail here, with the code's own message, rather than per task
        built = target.build(params)
        if target.kind == MECHANISM:
            built.claim()
    suite = single_audit_suite(target, samples=samples, confidence=DEFAULT_CONFIDENCE,
                               seed=DEFAULT_SEED, caller=caller, **keys)
    return suite.audits[0]


def run_audit(spec: AuditSpec, *, confidence: float = DEFAULT_CONFIDENCE,
              seed: int = DEFAULT_SEED, workers: int = 1, backend=None,
              memory_limit: int | str | None = None, isolate: bool = False) -> AuditResult:
    """Run one audit (:func:`audit_spec`; a suite's ``[[audit]]`` row) as a suite of one:
    checked again as a suite row is, planned as one Bonferroni family at ``confidence``,
    run on the backend chosen by ``workers``, ``backend`` and ``isolate`` (as for
    :func:`audit_mechanism`), and judged.

    Raises:
      ValueError: a bad argument, or a spec that does not read back (changed into
        something malformed).
      dpaudit.backends.BackendError: the backend cannot be set up.
    """
    if not isinstance(spec, AuditSpec):
        raise ValueError(f"run_audit: expected an AuditSpec (dpaudit.audit_spec(...)), got "
                         f"{type(spec).__name__}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers: expected a positive integer, got {workers!r}")
    options = RunOptions(memory_limit=memory_limit)
    keys = spec.keys()
    suite = single_audit_suite(spec.target, samples=keys.pop("samples"),
                               confidence=confidence, seed=seed,
                               memory_limit=options.memory_limit, caller="run_audit()",
                               **keys)
    runner, owned = resolve_backend(backend, workers, isolate=_flag("isolate", isolate))
    try:
        points, info = run_single(suite, runner, options)
    finally:
        if owned:
            runner.close()
    return AuditResult(tuple(r for p in points for r in p.records()),
                       tuple(p.outcome() for p in points), info, tuple(points))


def _flag(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name}: expected True or False, got {value!r}")
    return value


class RunInterrupted(KeyboardInterrupt):
    """:func:`run_suites` was stopped (Ctrl-C, SIGTERM) while its tests ran: ``run`` is what
    finished, marked :attr:`~dpaudit.results.run.AuditRun.incomplete`, and ``signal`` names
    the signal ("SIGINT" or "SIGTERM").  A KeyboardInterrupt, so that a script stops."""

    def __init__(self, run: AuditRun):
        self.signal = run.incomplete.signal
        super().__init__(f"run interrupted by {self.signal}")
        self.run = run

    @property
    def exit_status(self) -> int:
        """The shell's status for the signal: 130 (SIGINT), 143 (SIGTERM)."""
        return stop_status(self.signal)


def run_suites(paths: Iterable[str], *, samples: int | None = None, profile: str = "default",
               seed: int | None = None, workers: int = 1, progress=None,
               on_suite_error=None, on_suite_skipped=None, backend=None,
               only: Iterable[str] = (), journal: str | Path | None = None,
               resume: bool = False, on_started=None,
               memory_limit: int | str | None = None, fixed_n: bool = False,
               power: float | None = None, require_power: bool = False,
               time_limit: float | None = None, isolate: bool = False) -> AuditRun:
    """Run suite files, as ``dpaudit run`` does, and return the judged run.

    Args:
      paths: suite files.
      samples, profile, seed, only, memory_limit: the run's options
        (:class:`~dpaudit.results.options.RunOptions`: per-side samples replacing every
        audit's, a profile scaling them, a seed replacing every suite's, ``--only`` glob
        patterns, a memory limit per task such as ``"16GB"``).
      time_limit: seconds a test may run before it ends as an error, replacing every
        suite's ``time_limit`` (default 1800, :mod:`dpaudit.util.time_limit`).
      fixed_n, power, require_power: override every suite's stopping rule
        (:class:`~dpaudit.results.options.RunOptions`, ``--fixed-n``, ``--power``,
        ``--require-power``).
      workers, backend: where the tests run: ``workers`` local processes, or ``backend``
        (a :class:`dpaudit.backends.Backend`, a ``distributed.Client``, ``"tcp://HOST:PORT"``
        or ``"local:N"``, :func:`dpaudit.backends.resolve_backend`), which replaces
        ``workers``; no number depends on either.  A backend given as an object is not
        closed; one created here from a string is.
      isolate: every test in a worker process, even with ``workers=1`` (as for
        :func:`audit_mechanism`); the suites' code is still imported and planned here.
      progress: a :class:`~dpaudit.audit.progress.RunProgress` or a per-record callable
        (None, the default, is silent).
      on_suite_error, on_suite_skipped, journal, resume, on_started: as
        :func:`dpaudit.audit.run.run_audits`.

    Raises:
      ValueError: a bad option (an unknown profile, a bad ``memory_limit`` …).
      dpaudit.audit.select.SelectionError: an ``only`` pattern that matches nothing.
      dpaudit.backends.BackendError: the backend cannot be set up.
      dpaudit.audit.journal.ResumeError: a journal made by a different run.
      RunInterrupted: Ctrl-C or SIGTERM while the tests ran (it carries the partial run).
    """
    options = RunOptions(samples=samples, profile=profile, seed=seed, only=tuple(only),
                         memory_limit=memory_limit, fixed_n=fixed_n, power=power,
                         require_power=require_power, time_limit=time_limit)
    runner, owned = resolve_backend(backend, workers, isolate=_flag("isolate", isolate))
    try:
        run = run_audits(paths, options, backend=runner, progress=progress,
                         on_suite_error=on_suite_error, on_suite_skipped=on_suite_skipped,
                         journal=journal, resume=resume, on_started=on_started)
    finally:
        if owned:
            runner.close()
    if run.incomplete is not None and run.incomplete.signal is not None:
        raise RunInterrupted(run)
    return run


__all__ = ["PYTHON_SUITE", "AuditResult", "AuditSpec", "RunInterrupted", "audit_mechanism",
           "audit_sampler", "audit_spec", "run_audit", "run_suites"]
