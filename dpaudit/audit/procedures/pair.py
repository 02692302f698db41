"""The two-sample pair audit: a certified lower bound on ε(δ) for each neighbouring pair.

The procedure (``kind = "pair"``, the default):

* **setup** builds the point's mechanism once and takes its named pairs — the suite's explicit
  pairs or the mechanism's ``worst_case_pairs()`` (refused before they are built when their
  stated size exceeds the memory limit, :func:`dpaudit.audit.memory.check_pairs_memory`) — and
  learns whether it has a white-box log-density, a dataset space to search and whether its
  float64 representation is read (:mod:`dpaudit.spec.coverage`);
* **family**: one member per named pair, two with a white-box test, and ``search.keep`` more
  when the point searches its dataset space (one per rank of the pair search,
  :mod:`dpaudit.audit.pair_search`), whatever the search finds; one when the pairs could not
  be built (conservative);
* **tasks**: a :class:`PairTask` per named pair, then one per searched rank.  Each certifies
  the pair's curve — every δ and α of the audit at once — black-box
  (:func:`dpaudit.distinguish.lower_bound.estimate_privacy_curve_lower_bound`) and, with a
  log-density, white-box on the seed + 1 stream, in looks until its verdict is decided
  (:mod:`dpaudit.audit.rounds`); its evidence is the estimator's
  :class:`~dpaudit.distinguish.result.EpsilonLowerBound` per δ and
  :class:`~dpaudit.distinguish.result.RenyiLowerBound` per α
  (:mod:`dpaudit.audit.procedures.pair_measure`).

Seeds: the test of pair ``p`` draws from :func:`~dpaudit.audit.plan.task_seed` of
``"audit/p"`` (``"audit/#j"`` for a point whose pairs could not be built); the searched test of
rank k from ``"audit/search#k"``, and the point's search itself from ``"audit/search"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dpaudit.audit.procedures.base import AuditProcedure, PointContext, PointSetup, Task
from dpaudit.results.defaults import defaulted_values
from dpaudit.results.hierarchy import AuditPoint, TestResult
from dpaudit.results.provenance import Coverage, RecordedPair
from dpaudit.results.records import describe_exception
from dpaudit.spec.coverage import OFF, SearchBudget, no_search_reason, representation_default
from dpaudit.util.sizes import DEFAULT_MEMORY_LIMIT
from dpaudit.util.time_limit import DEFAULT_TIME_LIMIT

#: the procedure's kind
PAIR = "pair"


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
class PairTask(Task):
    """One pair of a planned audit point, its δ and α grids, samples, a seed, and whether to
    add the white-box likelihood-ratio curve.

    Attributes:
      point: the planned point (no tests yet) whose fields every certificate shares.
      pair_index, pair: the pair's position among the point's tests and the
        :class:`~dpaudit.mechanisms.base.NeighbourPair` (None for a searched test until its
        search runs in the worker, and when the pairs could not be built).
      deltas, alphas: where the curve is certified.
      samples, seed: the per-side budget and the test's seed (white-box: seed + 1).
      target: what builds the mechanism in any process.
      white_box: also certify with the mechanism's log-density.
      setup_error: why the point could not be set up, or None.
      memory_limit: bytes; the task is refused when its estimated peak memory exceeds it.
      representation: also fit statistics of the outputs' float64 representation.
      search: for a searched test, its :class:`SearchedTest`; None for a named pair.
      replay, replay_pairs: the gate of the grey-box replay this test also runs (``fail``,
        ``warn``; ``off``: none — the point's first named test runs it, on the point's
        named pairs, :func:`dpaudit.audit.procedures.replay.add_replay`).
    """

    procedure: ClassVar[str] = PAIR

    point: AuditPoint
    pair_index: int
    pair: Any
    deltas: tuple
    alphas: tuple
    samples: int
    seed: int
    target: Any
    white_box: bool = False
    setup_error: str | None = None
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    time_limit: float = DEFAULT_TIME_LIMIT
    representation: bool = False
    search: SearchedTest | None = None
    replay: str = OFF
    replay_pairs: tuple = ()

    @property
    def label(self) -> str:
        if self.search is not None:
            return f"search#{self.search.slot}"
        return getattr(self.pair, "name", None) or f"#{self.pair_index}"

    @property
    def tests(self) -> int:
        """Its black-box curve, and its white-box one."""
        return 2 if self.white_box else 1

    @property
    def stopping(self):
        return self.point.power

    def build_mechanism(self):
        """The mechanism under audit, built in this process (raises ValueError)."""
        from dpaudit.suite.targets import as_target

        return as_target(self.target).build(self.point.parameters)

    def recorded_pair(self) -> RecordedPair | None:
        return RecordedPair.of(self.pair)

    def matches(self, result: TestResult) -> bool:
        """As :meth:`Task.matches`, and the same pair (its name; a searched test's rank)."""
        same_pair = (result.pair_name == getattr(self.pair, "name", None)
                     if self.search is None else
                     result.search is not None and result.search.rank == self.search.slot + 1)
        return super().matches(result) and same_pair

    def run(self, counter=None) -> TestResult:
        from dpaudit.audit.execute import run_guarded
        from dpaudit.audit.procedures.pair_measure import measure_pair

        return run_guarded(self, lambda measured: measure_pair(self, measured, counter))


@dataclass(frozen=True)
class PairSetup(PointSetup):
    """The pair audit's setup.

    Attributes:
      white_box: the mechanism offers a white-box log-density.
      searchable: it has a dataset space to search.
      representation: the audit's ``representation``, or its default for this mechanism.
    """

    white_box: bool = False
    searchable: bool = False
    representation: bool = False


def _claim_delta(mechanism) -> float | None:
    """The δ the mechanism's claim is audited at by default, None when the claim cannot be
    built here (its tests report why)."""
    from dpaudit.claims.audit_delta import claim_audit_delta

    try:
        return claim_audit_delta(mechanism.claim())
    except Exception:  # noqa: BLE001 - reported by the point's tests
        return None


class PairAudit(AuditProcedure):
    """The two-sample pair audit (see the module docstring)."""

    kind = PAIR
    summary = ("a certified lower bound on ε(δ) (and D_α) from samples of each neighbouring "
               "pair, black-box and white-box, named pairs and a search of the dataset space")

    def setup(self, audit, params: dict, memory_limit: int) -> PairSetup:
        from dpaudit.audit.memory import check_explicit_pairs_memory, check_pairs_memory
        from dpaudit.mechanisms.base import NeighbourPair
        from dpaudit.mechanisms.capabilities import LogDensity, SearchableDatasets
        from dpaudit.suite.targets import as_target

        defaulted: dict = {}
        try:
            target = as_target(audit.target or audit.mechanism)
            mechanism = target.build(params)
            defaulted = defaulted_values(target, mechanism, params)
            reach = dict(claim_delta=_claim_delta(mechanism),
                         white_box=isinstance(mechanism, LogDensity),
                         searchable=isinstance(mechanism, SearchableDatasets),
                         representation=(representation_default(mechanism)
                                         if audit.representation is None
                                         else audit.representation))
            if audit.pairs != "worst-case":
                check_explicit_pairs_memory(audit.pairs, memory_limit)
                return PairSetup([NeighbourPair(p.name, p.d0, p.d1, p.description)
                                  for p in audit.pairs], None, defaulted, **reach)
            check_pairs_memory(mechanism, memory_limit)
            pairs = list(mechanism.worst_case_pairs())
            if not pairs:
                raise ValueError("worst_case_pairs() returned no pairs")
            return PairSetup(pairs, None, defaulted, **reach)
        except Exception as exc:  # recorded as an error of this audit; others still run
            return PairSetup([], f"building worst-case pairs failed: "
                                 f"{describe_exception(exc)}", defaulted)

    @staticmethod
    def searched(audit, setup: PairSetup) -> bool:
        """Whether the point adds searched tests: its audit searches, its mechanism has a
        dataset space and its pairs could be built."""
        return audit.search is not None and setup.searchable and setup.error is None

    def family_members(self, audit, setup: PairSetup) -> int:
        white = setup.white_box and audit.white_box
        named = max(len(setup.pairs), 1) * (2 if white else 1)
        return named + (audit.search.keep if self.searched(audit, setup) else 0)

    def coverage(self, audit, setup: PairSetup) -> Coverage:
        searched = self.searched(audit, setup)
        return Coverage(search=audit.search if searched else None,
                        representation=bool(setup.representation),
                        floating_point=audit.floating_point,
                        note=None if searched or setup.error is not None
                        else no_search_reason(setup.searchable, audit.search))

    def tasks(self, point: AuditPoint, audit, setup: PairSetup,
              context: PointContext) -> list[PairTask]:
        from dpaudit.audit.seeds import task_key, task_seed

        common = dict(point=point, deltas=audit.deltas, alphas=audit.alphas,
                      samples=context.samples, target=context.target, setup_error=setup.error,
                      memory_limit=context.memory_limit, time_limit=context.time_limit,
                      representation=setup.representation)
        white = setup.white_box and audit.white_box
        pairs = setup.pairs or [None]
        out = []
        for j, pair in enumerate(pairs):
            key = task_key(audit.name, f"#{j}" if pair is None else pair.name, context.swept)
            # the first named test also replays the point's code (audit.replay, every route)
            replay = audit.replay if j == 0 and setup.error is None else OFF
            out.append(PairTask(pair_index=j, pair=pair, white_box=white,
                                seed=task_seed(context.suite_seed, key), replay=replay,
                                replay_pairs=tuple(setup.pairs) if replay != OFF else (),
                                **common))
        if self.searched(audit, setup):
            search_seed = task_seed(context.suite_seed,
                                    task_key(audit.name, "search", context.swept))
            for k in range(audit.search.keep):
                key = task_key(audit.name, f"search#{k}", context.swept)
                out.append(PairTask(
                    pair_index=len(pairs) + k, pair=None,
                    seed=task_seed(context.suite_seed, key),
                    search=SearchedTest(k, audit.search, search_seed, tuple(setup.pairs)),
                    **common))
        return out


__all__ = ["PAIR", "PairAudit", "PairSetup", "PairTask", "SearchedTest"]
