"""pytest plugin (installed with dpaudit, entry point ``pytest11``): audits as tests.

Two things:

* **The** ``dpaudit_audit`` **fixture** audits a mechanism or a sampler inside a test and fails
  the test, with the certificate in the message (event, counts, ε_LB against the claim,
  confidence), when the audit does not meet its ``expect``::

      def test_my_mechanism(dpaudit_audit):
          dpaudit_audit.mechanism(ClippedMean, params={"epsilon": 1.0}, samples=50_000)
          dpaudit_audit.sampler(noisy_count, epsilon=1.0, pairs=[([0, 1], [1, 1])])

  The methods take the keywords of :func:`dpaudit.api.audit_mechanism` and
  :func:`~dpaudit.api.audit_sampler` and return the
  :class:`~dpaudit.api.AuditResult`.  An audit error fails the test as well.

* **Suite files as tests**, opt-in with ``--dpaudit-suites`` (or ``dpaudit_suites = true`` in
  the pytest ini options): every ``*.toml`` file under the given paths that has an
  ``[[audit]]`` table is collected, one test item per audit point (per swept value of a swept
  audit), named after the audit (``audit[param=value]`` for sweep points), so ``-k``, ``-x``
  and ``--junitxml`` work.  An item passes when its point meets its ``expect``, fails with the
  certificate summary otherwise, and errors (in setup) when the point's audit is an
  ``error``; a malformed suite is one erroring item.

  One suite file is one Bonferroni family regardless of ``-k``: the whole file runs once per
  session, lazily, when its first selected item runs, and each item reports its own point —
  deselecting items never changes the numbers of the selected ones.  Each item records its
  verdict and its certified ε lower bounds as ``user_properties`` (``<property>`` entries of
  the JUnit XML).  ``--dpaudit-workers N``
  sets the worker processes (default 1; the numbers do not depend on it) and
  ``--dpaudit-profile quick|default|deep`` scales the samples as ``dpaudit run --profile``.

  The suite files run in a worker process of their own, one per session, reused from file to
  file (:class:`dpaudit.util.worker_process.WorkerProcess`; its start costs a few seconds
  once): user code that ends its process — ``os._exit(0)`` or a fatal signal at the import of
  a suite's file, in a sampler, in a mechanism's method — ended pytest itself with exit status
  0, no report and no junit.xml (issue 39, item 2).  Now it ends that worker: every item of
  the file errors with one message saying so, the next file gets a fresh worker, and pytest
  reports as usual.  ``sys.exit`` there is already an error of its audit
  (:mod:`dpaudit.util.user_code`).  With ``--dpaudit-workers 2`` or more, a file's tests run
  in worker processes of their own (even a file of one test; a test whose worker dies is
  retried once alone), so such an end costs only its own audit.  ``--dpaudit-in-process`` runs the files in pytest's process instead (a
  debugger's breakpoints work there; user code that ends the process then ends pytest).

  **The fixture stays in the test's process**, as the Python API does by default: a test
  whose audited code calls ``os._exit`` ends pytest.  ``isolate=True``
  (``dpaudit_audit.mechanism(..., isolate=True)``, :func:`dpaudit.api.audit_mechanism`)
  runs its tests in worker processes, where such an end is an ``error`` of the audit.

Both routes issue every distinct warning the audit recorded (e.g. a sampler that ignores its
``rng``) as a :class:`dpaudit.DpauditWarning` naming the audit and the pair, from inside the
test's call, so pytest's "warnings summary" lists it under that test.
"""

from __future__ import annotations

import re

import pytest

_AUDIT_TABLE = re.compile(r"^\s*\[\[\s*audit\s*\]\]", re.MULTILINE)


def pytest_addoption(parser):
    group = parser.getgroup("dpaudit", "dpaudit audit suites")
    group.addoption("--dpaudit-suites", action="store_true", default=False,
                    help="collect *.toml files with [[audit]] tables as tests")
    group.addoption("--dpaudit-workers", type=int, default=1, metavar="N",
                    help="worker processes for dpaudit suites and the dpaudit_audit fixture")
    group.addoption("--dpaudit-profile", default="default", choices=("quick", "default", "deep"),
                    help="samples scale of collected suites, as `dpaudit run --profile`")
    group.addoption("--dpaudit-fixed-n", action="store_true", default=False,
                    help="every test draws its whole sample budget in one look, as "
                         "`dpaudit run --fixed-n` (suites and the dpaudit_audit fixture)")
    group.addoption("--dpaudit-power", type=float, default=None, metavar="X",
                    help="power target (> 1) replacing the suites' `power` and the fixture's "
                         "default, as `dpaudit run --power`")
    group.addoption("--dpaudit-require-power", action="store_true", default=False,
                    help="fail an audit whose certificate is underpowered, as "
                         "`dpaudit run --require-power`")
    group.addoption("--dpaudit-in-process", action="store_true", default=False,
                    help="run collected suite files in pytest's own process, not in the "
                         "session's worker process (user code that ends the process then "
                         "ends pytest)")
    parser.addini("dpaudit_suites", type="bool", default=False,
                  help="collect *.toml files with [[audit]] tables as tests")


def _stopping_options(config) -> dict:
    """The run's stopping overrides (``--dpaudit-fixed-n``, ``--dpaudit-power``,
    ``--dpaudit-require-power``) as :func:`dpaudit.api.run_suites` takes them."""
    return {"fixed_n": bool(config.getoption("dpaudit_fixed_n")),
            "power": config.getoption("dpaudit_power"),
            "require_power": bool(config.getoption("dpaudit_require_power"))}


def _collect_suites(config) -> bool:
    return bool(config.getoption("dpaudit_suites") or config.getini("dpaudit_suites"))


def pytest_collect_file(file_path, parent):
    if file_path.suffix != ".toml" or not _collect_suites(parent.config):
        return None
    try:
        text = file_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not _AUDIT_TABLE.search(text):
        return None
    return SuiteFile.from_parent(parent, path=file_path)


class SuiteFile(pytest.File):
    """One suite file: one item per audit point; the file runs once, when first needed."""

    _run = None

    def collect(self):
        from dpaudit.suite.requires import SuiteSkipped
        from dpaudit.suite.spec import SuiteError, load_suite

        try:
            suite = load_suite(self.path, load_code=False)  # collecting runs no user code
        except SuiteSkipped as exc:
            pytest.skip(str(exc), allow_module_level=True)
        except SuiteError as exc:
            yield SuiteErrorItem.from_parent(self, name="suite", message=str(exc))
            return
        for audit in suite.audits:
            for point, _, _ in audit.points():
                name = audit.name if point is None else \
                    f"{audit.name}[{audit.sweep.label(point)}]"
                yield AuditItem.from_parent(self, name=name, audit=audit.name, point=point)

    def run(self):
        """The judged run of the whole file (computed once per session, in the session's
        worker process unless ``--dpaudit-in-process``).

        Raises:
          SuiteRunEnded: user code ended the worker process before the file's run finished
            (raised again for every item of the file).
        """
        if self._run is None:
            import functools

            from dpaudit.api import run_suites
            from dpaudit.util.processes import describe_exit
            from dpaudit.util.worker_process import WorkerEnded

            workers = self.config.getoption("dpaudit_workers")
            run = functools.partial(run_suites, [str(self.path)], workers=workers,
                                    isolate=workers >= 2,  # even a file of a single test
                                    profile=self.config.getoption("dpaudit_profile"),
                                    **_stopping_options(self.config))
            if self.config.getoption("dpaudit_in_process"):
                self._run = run()
            else:
                try:
                    self._run = _session_worker(self.config).call(run)
                except WorkerEnded as exc:
                    where = ("the suite's code at import, a sampler or a mechanism's method; "
                             "with --dpaudit-workers 2 each test runs in a process of its "
                             "own, where this is an error of its audit and the file's other "
                             "audits run") if workers < 2 else (
                             "the suite's code at import or a mechanism's constructor, claim "
                             "or worst_case_pairs() while the file was planned (its tests "
                             "run in processes of their own)")
                    self._run = SuiteRunEnded(
                        f"{self.path.name}: user code ended the worker process that ran this "
                        f"suite file ({describe_exit(exc.exit_code)}) before its run "
                        f"finished: {where}")
        if isinstance(self._run, SuiteRunEnded):
            raise self._run
        return self._run


class SuiteRunEnded(Exception):
    """User code ended the process that ran a suite file: the message says so."""


_WORKER = pytest.StashKey["object"]()


def _session_worker(config):
    """The session's :class:`~dpaudit.util.worker_process.WorkerProcess` (made on first use,
    closed by :func:`pytest_unconfigure`)."""
    if _WORKER not in config.stash:
        from dpaudit.util.worker_process import WorkerProcess

        config.stash[_WORKER] = WorkerProcess()
    return config.stash[_WORKER]


def pytest_unconfigure(config):
    worker = config.stash.get(_WORKER, None)
    if worker is not None:
        worker.close()


class AuditFailed(Exception):
    """An audit point that did not meet its expectation; the message is the certificate."""


class SuiteErrorItem(pytest.Item):
    """The single item of a malformed suite file: errors with the parse message."""

    def __init__(self, *, message: str, **kwargs):
        super().__init__(**kwargs)
        self.message = message

    def setup(self):
        # an exception in setup is reported as an error; pytrace=False: the message only
        pytest.fail(self.message, pytrace=False)

    def runtest(self):  # pragma: no cover - setup always raises
        pass

    def reportinfo(self):
        return self.path, None, f"dpaudit suite {self.path.name}"


class AuditItem(pytest.Item):
    """One audit point of a suite file."""

    def __init__(self, *, audit: str, point: int | None, **kwargs):
        super().__init__(**kwargs)
        self.audit, self.point = audit, point
        self.judged = None  # the run's AuditPoint of this item, once the file has run

    def setup(self):
        from dpaudit.report.explain import explain_point

        try:
            run, ended = self.parent.run(), None
        except SuiteRunEnded as exc:
            run, ended = None, str(exc)
        if ended:  # in setup: reported as an error, not a failure (outside the except: no
            pytest.fail(ended, pytrace=False)  # "during handling of …" context)
        found = [p for p in run.points if p.audit == self.audit
                 and (None if p.sweep is None else p.sweep.index) == self.point]
        if not found:  # e.g. its code failed to load when the file ran
            errors = "; ".join(s.error for s in run.suites if s.error)
            pytest.fail(errors or f"{self.path.name}::{self.name}: the run has no outcome for "
                                  f"this audit point", pytrace=False)
        self.judged = point = found[0]
        for test, c in point.certificates():  # junitxml <property> entries, one per certificate
            at = f"delta={c.delta:g}" if c.notion == "dp" else f"alpha={c.alpha:g}"
            self.user_properties.append(
                (f"epsilon_lower_bound[{test.pair_name} {at}]", c.epsilon_lower_bound))
        self.user_properties.append(("verdict", point.verdict))
        if point.verdict == "error":  # in setup: reported as an error, not a failure
            pytest.fail(explain_point(point), pytrace=False)

    def runtest(self):
        from dpaudit.report.explain import explain_point
        from dpaudit.results.recorded_warnings import issue_warnings

        issue_warnings([self.judged])  # in the call: pytest's summary lists them under this item
        if not self.judged.met_expectation:
            raise AuditFailed(explain_point(self.judged))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, AuditFailed):
            return f"{self.path.name}::{self.name}\n{excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"dpaudit audit {self.name}"


class Auditor:
    """The ``dpaudit_audit`` fixture: audit, and fail the test unless the audit met its
    expectation."""

    def __init__(self, workers: int = 1, stopping: dict | None = None):
        self.workers = workers
        self.stopping = stopping or {}

    def _defaults(self, kwargs: dict) -> dict:
        """The fixture's defaults under the test's own arguments: the workers, and the
        command line's stopping overrides (fixed n, power target, required power)."""
        kwargs.setdefault("workers", self.workers)
        if self.stopping.get("fixed_n"):
            kwargs.setdefault("sequential", False)
        if self.stopping.get("power") is not None:
            kwargs.setdefault("power", self.stopping["power"])
        if self.stopping.get("require_power"):
            kwargs.setdefault("require_power", True)
        return kwargs

    def mechanism(self, mechanism, **kwargs):
        """:func:`dpaudit.api.audit_mechanism`, then fail the test on an unmet
        expectation (the message is the certificate)."""
        from dpaudit.api import audit_mechanism

        return self._judge(audit_mechanism(mechanism, **self._defaults(kwargs)))

    def sampler(self, sampler, claim=None, pairs=None, **kwargs):
        """:func:`dpaudit.api.audit_sampler`, then fail the test on an unmet
        expectation."""
        from dpaudit.api import audit_sampler

        return self._judge(audit_sampler(sampler, claim, pairs, **self._defaults(kwargs)))

    @staticmethod
    def _judge(result):
        from dpaudit.results.recorded_warnings import issue_warnings

        issue_warnings(result.points, stacklevel=4)  # attributed to the calling test
        if not result.met_expectation:
            pytest.fail(f"dpaudit: {result.verdict}\n{result.explain()}", pytrace=False)
        return result


@pytest.fixture
def dpaudit_audit(request) -> Auditor:
    """Audit a mechanism (``.mechanism(...)``) or a sampler (``.sampler(...)``) in a test."""
    return Auditor(request.config.getoption("dpaudit_workers"),
                   _stopping_options(request.config))
