"""The canary audit: m canaries in one training (or a few), scored, certified.

``kind = "canary"``.  The mechanism must have the
:class:`~dpaudit.mechanisms.canaries.source.CanaryRuns` capability — the ``dpsgd`` family's
one-run mode, a user's Opacus training
(:class:`~dpaudit.mechanisms.canaries.torch_mechanism.OpacusTrainingMechanism`) — and the
row's ``options`` hold the plan (:mod:`dpaudit.audit.procedures.canary_settings`).  For each
audit point:

* **check** (while the suite is planned): the options, the audit's grid (one δ, no Rényi
  orders: a one-run test certifies ε at one δ), no explicit pairs (the canaries are the
  audit's own), and — when the point's mechanism builds — that it has canary runs, that it
  takes the source options given, and that a ``gdp-threshold`` statistic has independent
  scores: a ValueError naming the key, which refuses the file before anything runs;
* **setup** builds the mechanism (an error makes the point's test an error);
* **family**: **one** member of the suite's Bonferroni family per point — the test holds at
  the point's ``per_certificate_confidence`` 1 − α, and its plan splits that α itself,
  equally over its (statistic, look) members and within each over its fixed grid of guess
  counts (:class:`~dpaudit.mechanisms.canaries.design.CanaryPlan`), so everything it reports
  holds jointly at the share the suite handed it;
* **task**: one :class:`CanaryTask`, which builds the mechanism's source of scores, runs,
  certifies at the planned looks and stops at the first that certifies a violation
  (:func:`~dpaudit.mechanisms.canaries.certify.run_canary_audit`), and records one
  certificate whose evidence is the
  :class:`~dpaudit.mechanisms.canaries.evidence.CanaryEvidence`.

**The claim** compared with: a claim the row states for the mechanism (its ``claim = { … }``,
the API's ``claim=``: :mod:`dpaudit.mechanisms.stated_claim`), else the one the training
reports (a user's accountant, read after the first run), else the mechanism's own.

**Seeds**: the test of audit ``a`` draws from :func:`~dpaudit.audit.seeds.task_seed` of
``"a/canaries"`` (with the swept value for a swept point): the inclusion bits and every run's
randomness come from it alone (:mod:`dpaudit.mechanisms.canaries.design`), so the numbers do
not depend on workers or backend.  ``samples`` is m × R, the canaries the test may observe;
``--samples`` and ``--profile`` do not change it (the canary count sets what one run can
certify, so it is the row's to choose).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dpaudit.audit.procedures.base import AuditProcedure, PointContext, PointSetup, Task
from dpaudit.audit.procedures.canary_settings import CanarySettings, canary_settings
from dpaudit.results.defaults import defaulted_values
from dpaudit.results.hierarchy import AuditPoint, TestResult
from dpaudit.results.records import describe_exception
from dpaudit.util.sizes import DEFAULT_MEMORY_LIMIT

#: the procedure's kind
CANARY = "canary"
#: the test's name within its point (its seed's key)
LABEL = "canaries"


def _read_claim(source_claim, mechanism):
    """The claim of module docstring, as a function called after the first run."""
    from dpaudit.claims.base import Claim

    if source_claim is None or getattr(type(mechanism), "claim_is_stated", False):
        return mechanism.claim  # the mechanism's own, or the one the audit states for it
    if isinstance(source_claim, Claim):
        return lambda: source_claim
    return source_claim


@dataclass(frozen=True)
class CanaryTask(Task):
    """The canary test of one audit point.

    Attributes:
      point: the planned point.
      deltas: the one δ certified; alphas: none.
      seed, samples: the test's seed and m × R.
      target: what builds the mechanism in any process.
      settings: the plan's settings (:class:`~.canary_settings.CanarySettings`).
      setup_error: why the point could not be set up, or None.
    """

    procedure: ClassVar[str] = CANARY

    point: AuditPoint
    deltas: tuple
    seed: int
    samples: int
    target: Any
    settings: CanarySettings
    setup_error: str | None = None
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    alphas: tuple = ()
    pair_index: int = 0
    pair: Any = None  # a canary test has no neighbouring pair

    @property
    def label(self) -> str:
        return LABEL

    def build_mechanism(self):
        from dpaudit.suite.targets import as_target

        return as_target(self.target).build(self.point.parameters)

    def run(self, counter=None) -> TestResult:
        from dpaudit.audit.execute import run_guarded

        return run_guarded(self, self._measure)

    def _measure(self, measured) -> None:
        from dpaudit.audit.execute import number
        from dpaudit.mechanisms.canaries.certify import run_canary_audit
        from dpaudit.mechanisms.canaries.source import check_canary_options

        mechanism = self.build_mechanism()
        measured.true_epsilon = number(mechanism.true_epsilon())
        if self.setup_error is not None:
            raise RuntimeError(self.setup_error)
        check_canary_options(type(mechanism), dict(self.settings.source_options))
        plan = self.settings.plan(self.deltas[0],
                                  confidence=self.point.per_certificate_confidence,
                                  seed=self.seed,
                                  independent_scores=mechanism.independent_canary_scores)
        source = mechanism.canary_source(plan, dict(self.settings.source_options))
        claim_of = _read_claim(source.claim, mechanism)
        (entry,) = measured.readings
        read: list = []

        def claim():  # recorded as soon as it is known (a failure later keeps it)
            read.append(claim_of())
            measured.claim = read[0].to_dict()
            return read[0]

        evidence = run_canary_audit(plan, claim, source.run)
        measured.claim = read[0].to_dict()  # again: with the values it was asked for
        entry.claimed_epsilon = evidence.claimed
        entry.evidence = [evidence]


@dataclass(frozen=True)
class CanarySetup(PointSetup):
    """The canary audit's setup (no pairs)."""


class CanaryAudit(AuditProcedure):
    """The canary audit (see the module docstring)."""

    kind = CANARY
    summary = ("m canaries in one training (or a few): a certified lower bound on ε(δ) from "
               "how many of them can be told in or out (one-run f-DP and (ε, δ) tests)")

    def check(self, audit) -> None:
        from dpaudit.mechanisms.canaries.source import CanaryRuns, check_canary_options
        from dpaudit.suite.targets import as_target

        settings = canary_settings(audit.options)
        if len(audit.deltas) != 1:
            raise ValueError(f"delta: a canary audit certifies ε at one δ, got "
                             f"{len(audit.deltas)} (one [[audit]] per δ)")
        if audit.alphas:
            raise ValueError("alphas: a canary audit certifies ε(δ), not Rényi divergences")
        if audit.pairs != "worst-case":
            raise ValueError("pairs: a canary audit inserts its own canaries; it takes no "
                             "pairs")
        _, params, _ = audit.points()[0]
        try:
            mechanism = as_target(audit.target or audit.mechanism).build(params)
        except Exception:  # noqa: BLE001 - the setup records why; the options are checked
            return
        if not isinstance(mechanism, CanaryRuns):
            raise ValueError(f"kind: {audit.mechanism} has no canary runs (the CanaryRuns "
                             f"capability: the dpsgd family, an OpacusTrainingMechanism); "
                             f"audit it with kind = \"pair\"")
        check_canary_options(type(mechanism), dict(settings.source_options))
        if "gdp-threshold" in settings.statistics and not mechanism.independent_canary_scores:
            raise ValueError(f"options: statistics: gdp-threshold needs canary scores that "
                             f"are independent given their bits, which {audit.mechanism}'s "
                             f"canaries (sharing one model) are not")

    def setup(self, audit, params: dict, memory_limit: int) -> CanarySetup:
        from dpaudit.suite.targets import as_target

        defaulted: dict = {}
        try:
            target = as_target(audit.target or audit.mechanism)
            mechanism = target.build(params)
            defaulted = defaulted_values(target, mechanism, params)
            return CanarySetup([], None, defaulted)
        except Exception as exc:  # recorded as this audit's error; the others still run
            return CanarySetup([], f"building the mechanism failed: "
                                   f"{describe_exception(exc)}", defaulted)

    def family_members(self, audit, setup: CanarySetup) -> int:
        """One: the plan splits the test's α over its own members (module docstring)."""
        return 1

    def tasks(self, point: AuditPoint, audit, setup: CanarySetup,
              context: PointContext) -> list[CanaryTask]:
        from dpaudit.audit.seeds import task_key, task_seed

        settings = canary_settings(audit.options)
        return [CanaryTask(point=point, deltas=audit.deltas,
                           seed=task_seed(context.suite_seed,
                                          task_key(audit.name, LABEL, context.swept)),
                           samples=settings.canaries * settings.runs, target=context.target,
                           settings=settings, setup_error=setup.error,
                           memory_limit=context.memory_limit)]


__all__ = ["CANARY", "CanaryAudit", "CanarySetup", "CanaryTask"]
