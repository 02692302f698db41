"""The grey-box replay as an audit procedure: every audit point's code run on D and on D′ with
its randomness held fixed (:mod:`dpaudit.replay`), in every route.

``kind = "replay"`` runs the replay alone, as a test of its own; the pair audit
(``kind = "pair"``, the default) runs the same replay
(:func:`~dpaudit.audit.procedures.replay_measure.add_replay`) in the first named test of each
of its points, its evidence beside that test's certificates, unless the audit's ``replay`` key
is ``"off"`` (:meth:`dpaudit.audit.procedures.pair.PairAudit.tasks`), so that ``dpaudit run``,
the pytest plugin (fixture and ``--dpaudit-suites``), the Python API and ``dpaudit check`` —
whose step 2 calls the same :func:`dpaudit.replay.run.audit_replay` — audit the same thing.

What it replays: the point's named pairs (its explicit pairs or the mechanism's worst-case
pairs), then — for code with a dataset space — the space's adversarial proposals and a few
random pairs (:data:`dpaudit.replay.run.AUDIT_RANDOM_PAIRS`), within
:data:`dpaudit.replay.run.AUDIT_BUDGET_SECONDS`.  Its evidence is
:class:`~dpaudit.evidence.replay.ReplayEvidence`, one per certificate of the audit's grid:

* a **violation** finding (the release moves by more than the declared Δ with the noise held
  fixed; NaN/±∞ on one dataset only) rejects the claim when ``replay = "fail"`` (the default)
  and is a warning on the test when ``replay = "warn"``;
* the replay's warnings (data-dependent control flow or noise scale, code that raises on one
  side, randomness it cannot hold fixed) are the test's warnings
  (:func:`~dpaudit.audit.procedures.replay_measure.replay_warnings`);
* a replay that cannot run is said (status ``not-run``, and a warning), never an error.

It estimates nothing: 0 members of the suite's Bonferroni family, a random stream of its own,
so adding it changes no certified number (its evidence bounds no ε: it can only add a
violation, with its reason).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dpaudit.audit.procedures.base import AuditProcedure, PointContext, Task
from dpaudit.audit.procedures.replay_measure import REPLAY
from dpaudit.results.hierarchy import AuditPoint
from dpaudit.results.provenance import Coverage
from dpaudit.spec.coverage import OFF
from dpaudit.util.time_limit import DEFAULT_TIME_LIMIT



@dataclass(frozen=True)
class ReplayTask(Task):
    """The replay of one audit point: its named pairs, its space's proposals and random
    pairs, one run per side per pair (see the module docstring)."""

    procedure: ClassVar[str] = REPLAY

    point: AuditPoint
    pair_index: int
    pairs: tuple
    deltas: tuple
    alphas: tuple
    seed: int
    target: Any
    gate: str
    samples: int = 0
    setup_error: str | None = None
    time_limit: float = DEFAULT_TIME_LIMIT

    @property
    def label(self) -> str:
        return REPLAY

    @property
    def tests(self) -> int:
        """Nothing is estimated: no member of the suite's family."""
        return 0

    @property
    def cost(self) -> float:
        return 1.0

    def run(self, counter=None):
        from dpaudit.audit.execute import run_guarded

        return run_guarded(self, self._measure)

    def _measure(self, measured) -> None:
        from dpaudit.audit.procedures.pair_measure import read_claim
        from dpaudit.suite.targets import as_target

        mechanism = as_target(self.target).build(self.point.parameters)
        read_claim(self, mechanism, measured)
        if self.setup_error is not None:
            raise RuntimeError(self.setup_error)
        from dpaudit.audit.procedures.replay_measure import add_replay

        pair = add_replay(mechanism, measured, list(self.pairs), self.seed, self.gate)
        if pair is not None:
            from dpaudit.results.provenance import RecordedPair

            measured.pair = RecordedPair.of(pair)


class ReplayCheck(AuditProcedure):
    """The grey-box replay alone (see the module docstring)."""

    kind = REPLAY
    summary = ("the code run on D and on D′ with its randomness held fixed: a release that "
               "moves by more than the declared sensitivity, or is NaN/∞ on one side only")

    def setup(self, audit, params: dict, memory_limit: int):
        """The named pairs, as the pair audit finds them."""
        from dpaudit.audit.procedures.pair import PairAudit

        return PairAudit().setup(audit, params, memory_limit)

    def family_members(self, audit, setup) -> int:
        return 0

    def coverage(self, audit, setup) -> Coverage:
        return Coverage(search=None, representation=False, note=None)

    def tasks(self, point: AuditPoint, audit, setup, context: PointContext,
              pair_index: int = 0) -> list[ReplayTask]:
        """The point's replay (none when the audit's ``replay`` is ``"off"``);
        ``pair_index`` places it after a pair audit's own tests."""
        from dpaudit.audit.seeds import task_key, task_seed

        if audit.replay == OFF:
            return []
        return [ReplayTask(point=point, pair_index=pair_index, pairs=tuple(setup.pairs),
                           deltas=audit.deltas, alphas=audit.alphas,
                           seed=task_seed(context.suite_seed,
                                          task_key(audit.name, REPLAY, context.swept)),
                           target=context.target, gate=audit.replay,
                           setup_error=setup.error, time_limit=context.time_limit)]


__all__ = ["REPLAY", "ReplayCheck", "ReplayTask"]
