"""What the grey-box replay adds to a test: its evidence on every certificate and its warnings.

The measuring half of the ``replay`` procedure (:mod:`dpaudit.audit.procedures.replay`), shared
by the pair audit's first named test (:func:`dpaudit.audit.procedures.pair_measure.measure_pair`)
and the ``replay`` kind's own test: :func:`add_replay` runs
:func:`dpaudit.replay.run.audit_replay` — the replay ``dpaudit check``'s step 2 runs too — and
turns its report into :class:`~dpaudit.evidence.replay.ReplayEvidence` under the audit's
``replay`` gate.
"""

from __future__ import annotations

import warnings

#: the label of the replay (its procedure's kind, and the name of the pair it shows)
REPLAY = "replay"


class ReplayFinding(UserWarning):
    """A warning of the grey-box replay (or a violation gated by ``replay = "warn"``)."""


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


__all__ = ["REPLAY", "ReplayFinding", "add_replay", "replay_evidence", "replay_warnings"]
