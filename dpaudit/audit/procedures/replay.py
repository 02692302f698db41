"""The grey-box replay as an audit procedure: every audit point's code run on D and on D′ with
its randomness held fixed (:mod:`dpaudit.replay`), in every route.

``kind = "replay"`` runs the replay alone, as a test of its own; the pair audit
(``kind = "pair"``, the default) runs the same replay (:func:`add_replay`) in the first named
test of each of its points, its evidence beside that test's certificates, unless the audit's
``replay`` key is ``"off"`` (:meth:`dpaudit.audit.procedures.pair.PairAudit.tasks`), so that ``dpaudit run``, the pytest
plugin (fixture and ``--dpaudit-suites``), the Python API and ``dpaudit check`` — whose step 2
calls the same :func:`dpaudit.replay.run.audit_replay` — audit the same thing.

What it replays: the point's named pairs (its explicit pairs or the mechanism's worst-case
pairs), then — for code with a dataset space — the space's adversarial proposals and a few
random pairs (:data:`dpaudit.replay.run.AUDIT_RANDOM_PAIRS`), within
:data:`dpaudit.replay.run.AUDIT_BUDGET_SECONDS`.  Its evidence is
:class:`~dpaudit.evidence.replay.ReplayEvidence`, one per certificate of the audit's grid:

* a **violation** finding (the release moves by more than the declared Δ with the noise held
  fixed; NaN/±∞ on one dataset only) rejects the claim when ``replay = "fail"`` (the default)
  and is a warning on the test when ``replay = "warn"``;
* the replay's warnings (data-dependent control flow or noise scale, code that raises on one
  side, randomness it cannot hold fixed) are the test's warnings;
* a replay that cannot run is said (status ``not-run``, and a warning), never an error.

It estimates nothing: 0 members of the suite's Bonferroni family, a random stream of its own,
so adding it changes no certified number (its evidence bounds no ε: it can only add a
violation, with its reason).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

from dpaudit.audit.procedures.base import AuditProcedure, PointContext, Task
from dpaudit.results.hierarchy import AuditPoint
from dpaudit.results.provenance import Coverage
from dpaudit.spec.coverage import OFF
from dpaudit.util.time_limit import DEFAULT_TIME_LIMIT

#: the procedure's kind, and the label of its task within a point
REPLAY = "replay"


class ReplayFinding(UserWarning):
    """A warning of the grey-box replay (or a violation gated by ``replay = "warn"``)."""


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
        pair = add_replay(mechanism, measured, list(self.pairs), self.seed, self.gate)
        if pair is not None:
            from dpaudit.results.provenance import RecordedPair

            measured.pair = RecordedPair.of(pair)


def add_replay(mechanism, measured, pairs, seed: int, gate: str):
    """Replay ``mechanism`` on ``pairs`` (its worst-case pairs when empty), its space's
    proposals and random pairs, from a stream of its own (``SeedSequence([seed, 0x5E9])``:
    no stream of the test that calls it is touched); append the
    :class:`~dpaudit.evidence.replay.ReplayEvidence` to every reading of ``measured`` and
    raise the replay's warnings (:func:`replay_warnings`) as :class:`ReplayFinding`
    warnings, which become the test's.  Returns the pair that shows the first violation (or
    the first pair replayed; None when none was)."""
    import numpy as np

    stream = int(np.random.SeedSequence([int(seed), 0x5E9]).generate_state(1)[0])
    evidence, pair = replay_evidence(mechanism, list(pairs) or None, stream, gate)
    for text in replay_warnings(evidence):
        warnings.warn(text, ReplayFinding, stacklevel=1)
    for reading in measured.readings:
        reading.evidence = list(reading.evidence or ()) + [evidence]
    return pair


def replay_evidence(mechanism, pairs, seed: int, gate: str):
    """(the :class:`~dpaudit.evidence.replay.ReplayEvidence` of replaying ``mechanism`` on
    ``pairs`` — None: its worst-case pairs — under ``gate``, the pair that shows its first
    violation or else the first pair replayed, named ``replay``; None without one)."""
    from dpaudit.evidence.replay import CONSISTENT, NOT_RUN, VIOLATION, ReplayEvidence
    from dpaudit.neighbours.pairs import NeighbourPair
    from dpaudit.replay import Severity
    from dpaudit.replay.run import audit_replay

    report, why = audit_replay(mechanism, pairs, seed=seed)
    if report is None or not report.replays:
        note = why or ("no pair to replay (no pair the mechanism's relation takes"
                       + (f"; e.g. {report.skipped[0]}" if report and report.skipped else "")
                       + ")")
        return ReplayEvidence(NOT_RUN, gate, 0, len(report.skipped) if report else 0,
                              note=note), None
    violations = report.of(Severity.VIOLATION)
    shown = violations[0].example.pair if violations else report.replays[0].pair
    return ReplayEvidence(
        VIOLATION if violations else CONSISTENT, gate, len(report.replays),
        len(report.skipped), tuple(f.describe() for f in violations),
        tuple(f.describe() for f in report.of(Severity.WARNING)),
        report.out_of_time), NeighbourPair(REPLAY, shown.d0, shown.d1, shown.name)


def replay_warnings(evidence) -> list[str]:
    """The warnings a replay leaves on its test: each warning finding, a violation gated by
    ``replay = "warn"``, a replay that did not run, and a spent time budget."""
    from dpaudit.evidence.replay import NOT_RUN, WARN

    out = [f"replay: {w}" for w in evidence.warnings]
    if evidence.gate == WARN:
        out += [f'replay finding (replay = "warn": not a failure): {v}'
                for v in evidence.violations]
    if evidence.status == NOT_RUN:
        out.append(f"replay: {evidence.note}")
    elif evidence.note:
        out.append(f"replay: {evidence.note}")
    return out


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


__all__ = ["REPLAY", "ReplayCheck", "ReplayFinding", "ReplayTask", "add_replay",
           "replay_evidence",
           "replay_warnings"]
