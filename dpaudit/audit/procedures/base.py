"""The audit-procedure seam: every kind of audit plans, runs and reports through these two ABCs.

An :class:`AuditProcedure` is a *kind* of audit — the two-sample pair audit, the exact-curve
check, the canary audit, … — named by the ``kind`` of a suite's ``[[audit]]`` (default
``"pair"``).  For each audit point it

1. **sets up** the point (:meth:`AuditProcedure.setup`: builds the mechanism once, finds what
   it will test — its pairs, its canaries — or the error that makes the point an error);
2. says how many members of the suite's **Bonferroni family** the point uses
   (:meth:`AuditProcedure.family_members`; 0 for a procedure that certifies nothing by
   sampling, such as the exact-curve check), before anything is drawn, so that the family is
   fixed by the plan;
3. makes the point's **tasks** (:meth:`AuditProcedure.tasks`), one per test, each with its seed
   (a function of the suite seed and the task's names only,
   :func:`dpaudit.audit.plan.task_seed`) and the point's per-test confidence.

A :class:`Task` is one test: a frozen, picklable value (it crosses process and cluster
boundaries with cloudpickle) whose :meth:`Task.run` computes its
:class:`~dpaudit.results.hierarchy.TestResult` — certificates holding typed
:class:`~dpaudit.evidence.base.Evidence` — and never raises.  Backends run tasks without knowing
their kind (``task.run(counter)``, :func:`run_test`); the run journals them by
:attr:`Task.label` and accepts a journalled result only when :meth:`Task.matches` it; the
reports render the evidence.  A new kind of audit is therefore a new procedure and task class
(and, if it finds something new, an evidence class) registered in
:mod:`dpaudit.audit.procedures.table`: nothing that plans, runs or renders branches on kinds.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from dpaudit.results.certificate import Certificate
from dpaudit.results.hierarchy import AuditPoint, TestResult
from dpaudit.results.provenance import Coverage, RecordedPair
from dpaudit.stats.sequential import StoppingRule
from dpaudit.util.sizes import DEFAULT_MEMORY_LIMIT
from dpaudit.util.time_limit import DEFAULT_TIME_LIMIT

if TYPE_CHECKING:
    from dpaudit.distinguish.counting import EventCounter
    from dpaudit.spec.audit import AuditSpec
    from dpaudit.suite.targets import Target


@dataclass(frozen=True)
class PointSetup:
    """What a procedure learns from building an audit point's mechanism (a procedure may
    subclass it to keep more).

    Attributes:
      pairs: the named pairs (explicit, or the mechanism's worst-case pairs; [] on an error).
      error: why the point could not be set up, or None.
      defaulted: the parameters the point leaves at their defaults, name → value.
      claim_delta: the δ the point's claim is audited at when its audit leaves ``delta`` out
        (:func:`dpaudit.claims.audit_delta.claim_audit_delta`; None: not known, the
        placeholder δ = 0 stays).
    """

    pairs: list
    error: str | None
    defaulted: dict = field(default_factory=dict)
    claim_delta: float | None = None


@dataclass(frozen=True)
class PointContext:
    """What planning fixed for one audit point before its tasks are made.

    Attributes:
      suite_seed: the suite's seed (after ``--seed``).
      swept: (parameter, value) of a swept audit's point, else None.
      samples: the per-side sample budget of each test (after ``--samples``/``--profile``).
      target: what builds the mechanism in any process.
      memory_limit: bytes; a task over it is refused (never changes a number).
      time_limit: seconds a task may run before it ends as an error (never changes a number).
      stopping: how tests spend their budget and the power target.
    """

    suite_seed: int
    swept: tuple[str, Any] | None
    samples: int
    target: "Target"
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    time_limit: float = DEFAULT_TIME_LIMIT
    stopping: StoppingRule = StoppingRule()


class Task(abc.ABC):
    """One test of an audit point (see the module docstring).  Subclasses are frozen
    dataclasses with at least the attributes below."""

    point: AuditPoint
    pair_index: int
    seed: int
    samples: int
    deltas: tuple
    alphas: tuple

    #: the procedure that made the task (its :attr:`AuditProcedure.kind`)
    procedure: ClassVar[str] = ""

    # -- identity --------------------------------------------------------------------------

    @property
    @abc.abstractmethod
    def label(self) -> str:
        """The test's name within its point (its pair's name, ``search#k``, …): the journal
        key's last part and the name its seed is derived from."""

    @property
    def tests(self) -> int:
        """Members of the suite's family this task computes (1 by default)."""
        return 1

    @property
    def cost(self) -> float:
        """A relative size for scheduling (larger tasks start first); never a number."""
        return float(self.samples)

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

    def grid(self) -> list[tuple[str, float | None, float | None]]:
        """(notion, δ, α) of each certificate: every δ, then every α."""
        return ([("dp", d, None) for d in self.deltas]
                + [("rdp", None, a) for a in self.alphas])

    # -- running ---------------------------------------------------------------------------

    @abc.abstractmethod
    def run(self, counter: "EventCounter | None" = None) -> TestResult:
        """Compute the test.  Never raises: a failure is the result's ``error``.  ``counter``
        says where a certification split is counted (a Dask cluster cuts it into chunks); a
        task that counts nothing ignores it, and it never changes a number."""

    def recorded_pair(self) -> RecordedPair | None:
        """The pair as results record it before the task ran (None when it has none yet)."""
        return None

    def matches(self, result: TestResult) -> bool:
        """Whether ``result`` can be this task's: the same procedure, index, seed and
        samples, and one certificate per (notion, δ, α) of :meth:`grid`, in order (a
        journalled result that does not is run again)."""
        return (result.procedure == self.procedure and result.pair_index == self.pair_index
                and result.seed == self.seed and result.samples == self.samples
                and [(c.notion, c.delta, c.alpha) for c in result.certificates] == self.grid())

    def result(self, *, error: str, seconds: float = 0.0, warnings=()) -> TestResult:
        """The result of this test when it could not run (a worker died, the run stopped
        before it): every certificate an ``error`` with ``error`` as the reason."""
        return TestResult(pair=self.recorded_pair(), pair_index=self.pair_index, claim=None,
                          true_epsilon=None, samples=self.samples, seed=self.seed,
                          seconds=seconds, warnings=tuple(warnings), error=error,
                          certificates=tuple(Certificate.failed(notion=n, delta=d, alpha=a)
                                             for n, d, a in self.grid()),
                          procedure=self.procedure, family_members=self.tests)


@dataclass(frozen=True)
class UnplannedTask(Task):
    """The test of an audit point its procedure made no task for (its setup failed, or it
    found nothing to test): it runs to an ``error`` result saying why, so that a point never
    passes by having no tests (:func:`dpaudit.audit.plan.plan_suite` adds it)."""

    point: AuditPoint
    seed: int
    deltas: tuple
    alphas: tuple
    why: str
    pair_index: int = 0
    samples: int = 0

    @property
    def procedure(self) -> str:  # the point's own kind, so its result reads as that kind's
        return self.point.procedure

    @property
    def label(self) -> str:
        return "#0"

    @property
    def tests(self) -> int:
        return 0

    def matches(self, result: TestResult) -> bool:
        return False  # never taken from a journal: it costs nothing to run again

    def run(self, counter=None) -> TestResult:
        return self.result(error=self.why)


def run_test(task: Task, counter: "EventCounter | None" = None) -> TestResult:
    """``task.run(counter)``: the module-level function a worker process calls."""
    return task.run(counter)


class AuditProcedure(abc.ABC):
    """A kind of audit (see the module docstring)."""

    #: the name a suite's ``kind`` key gives it
    kind: ClassVar[str] = ""
    #: one line for ``dpaudit list`` and the docs
    summary: ClassVar[str] = ""

    @abc.abstractmethod
    def setup(self, audit: "AuditSpec", params: dict, memory_limit: int) -> PointSetup:
        """Build the point's mechanism with ``params`` and find what it tests; never raises
        (an error is the setup's ``error``, which makes every test of the point an error)."""

    @abc.abstractmethod
    def family_members(self, audit: "AuditSpec", setup: PointSetup) -> int:
        """How many members of the suite's Bonferroni family the point uses (≥ 1 for a point
        that certifies by sampling, even when its setup failed: conservative)."""

    def coverage(self, audit: "AuditSpec", setup: PointSetup) -> Coverage | None:
        """What the point looks at beyond its named pairs (None: not applicable)."""
        return None

    @abc.abstractmethod
    def tasks(self, point: AuditPoint, audit: "AuditSpec", setup: PointSetup,
              context: PointContext) -> list[Task]:
        """The point's tests, in a fixed order."""

    def check(self, audit: "AuditSpec") -> None:
        """Raise ``ValueError`` naming the key when ``audit`` asks for something this kind
        cannot do — by default, any ``options`` (a kind that takes options overrides this) —
        called while a suite is planned, so a misconfigured audit refuses its file before
        anything runs."""
        if audit.options:
            raise ValueError(f"options: the {self.kind!r} audit takes no options, got "
                             f"{sorted(audit.options)}")


__all__ = ["AuditProcedure", "PointContext", "PointSetup", "Task", "UnplannedTask",
           "run_test"]
