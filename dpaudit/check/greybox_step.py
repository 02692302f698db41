"""Step 2 of ``dpaudit check``: grey-box — the query's sensitivity search and the replay.

Two looks inside the code, each where it applies:

* **the sensitivity search** (:mod:`dpaudit.check.greybox`) — for a mechanism with a
  deterministic ``query()`` and a declared ``sensitivity()``: the largest ‖q(D) − q(D′)‖/Δ
  over its worst-case pairs, random pairs, hypothesis and an optimiser (violation above 1);
* **the replay** (:mod:`dpaudit.replay`) — for every mechanism and sampler, no ``query()``
  needed: the code runs on D and on D′ with its numpy randomness recorded and replayed, on the
  named pairs, the dataset space's adversarial proposals and random pairs; a violation when
  the release moves by more than the declared Δ with the noise held fixed, or is NaN/∞ on one
  side only; warnings for data-dependent control flow, noise scales that depend on the data,
  code that raises on one side, randomness the replay cannot hold fixed.

The replay is the one every route's audit runs (:func:`dpaudit.replay.run.audit_replay`, the
``replay`` audit procedure's), gated by the same ``replay`` key (``--replay``): ``fail``,
``warn`` (its violations become warnings) or ``off``.  The step is a violation when either
part finds one, an error when the search cannot run; the
replay's warnings are the step's warnings and its notes are detail lines.  The replay draws
from ``SeedSequence([seed, 2])``, the search from its own stream (as before the replay).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from dpaudit.check.greybox import (NORM_SYMBOLS, SensitivityError, applicable, format_pair,
                                   search_sensitivity)
from dpaudit.check.result import CONSISTENT, ERROR, SKIPPED, VIOLATION, StepResult
from dpaudit.replay import Finding, ReplayReport, Severity
from dpaudit.replay.run import audit_replay
from dpaudit.spec.coverage import FAIL, OFF, WARN
from dpaudit.util.numbers import format_number as fmt

STEP = "sensitivity"


def _search(mech, seed: int, budget: dict) -> StepResult | None:
    """The sensitivity search as its own result (None when it does not apply)."""
    if applicable(mech):
        return None
    try:
        res = search_sensitivity(mech, seed=seed, **budget)
    except SensitivityError as exc:
        return StepResult(STEP, ERROR, str(exc), data={"error": str(exc)})
    sym = NORM_SYMBOLS[res.norm]
    head = (f"max ‖q(D) − q(D′)‖{sym} / Δ = {fmt(res.ratio)} (Δ = {res.sensitivity:g}, "
            f"{res.pairs} pairs)")
    counts = "; ".join(
        f"{s.source}: {s.pairs}" + (f", max {fmt(s.best_ratio)}" if s.pairs else "")
        + (f" ({s.note})" if s.note and not s.pairs else "") for s in res.sources)
    lines = [f"{'violating ' if res.violated else 'largest '}pair ({res.source}): "
             f"{format_pair(res.d0, res.d1)}, ‖Δq‖{sym} = {res.distance:.6g}",
             f"searched {counts}"]
    if res.space:
        lines.append(f"dataset space: {res.space}")
    if res.rejected_example:
        lines.append(f"pairs rejected by the neighbouring relation: {res.rejected_example}")
    if res.violated:
        return StepResult(STEP, VIOLATION, f"{head} > 1: the query moves by more than the "
                          f"claimed sensitivity", lines, res.to_dict())
    return StepResult(STEP, CONSISTENT, f"{head} ≤ 1", lines, res.to_dict())


def replay_summary(report: ReplayReport) -> str:
    """The replay's one line: how many pairs, and the violations or that none was found."""
    violations = report.of(Severity.VIOLATION)
    warnings = report.of(Severity.WARNING)
    head = f"replay of {len(report.replays)} pair(s) with the randomness held fixed: "
    if violations:
        return head + "; ".join(f.text for f in violations)
    return head + ("no violation" + (f", {len(warnings)} warning(s)" if warnings else ""))


def _replay(mech, seed: int) -> tuple[ReplayReport | None, str]:
    """(the replay's report, "") or (None, why it could not run): the replay every route's
    audit runs (:func:`dpaudit.replay.run.audit_replay`)."""
    stream = int(np.random.SeedSequence([int(seed), 2]).generate_state(1)[0])
    return audit_replay(mech, seed=stream)


def step_greybox(mech, seed: int, budget: dict, replay: str = FAIL) -> StepResult:
    """Step 2 (see the module docstring); ``replay`` is the audit's gate (``fail``,
    ``warn`` or ``off``, :data:`dpaudit.spec.coverage.REPLAY_GATES`)."""
    search = _search(mech, seed, budget)
    if replay == OFF:
        if search is None:
            return StepResult(STEP, SKIPPED, f"{applicable(mech)}, and replay = \"off\"")
        return dataclasses.replace(search, lines=list(search.lines) + ["no replay: replay = "
                                                                       "\"off\""])
    report, why = _replay(mech, seed)
    if report is not None and replay == WARN and report.verdict == "violation":
        gated = tuple(Finding(f.kind, Severity.WARNING,
                              f'{f.text} (replay = "warn": not a failure)', f.example, f.pairs)
                      if f.severity is Severity.VIOLATION else f for f in report.findings)
        report = dataclasses.replace(report, findings=gated)
    if search is None and report is not None and not report.replays:
        return StepResult(STEP, SKIPPED, f"{applicable(mech)}, and no pair to replay (no "
                          f"worst-case pair the relation takes, no dataset space)",
                          data={"replay": report.to_dict()})
    lines = list(search.lines) if search is not None else []
    data = dict(search.data) if search is not None else {}
    warnings = []
    if search is None:
        lines.append(f"no sensitivity search: {applicable(mech)}")
    if report is None:
        warnings.append(why)
        data["replay"] = {"error": why}
    else:
        data["replay"] = report.to_dict()
        if search is not None:
            lines.append(replay_summary(report))
        lines += [f"replay {f.severity.value}: {f.describe()}"
                  for f in report.findings if f.severity is not Severity.WARNING]
        warnings += [f"replay: {f.describe()}" for f in report.of(Severity.WARNING)]
        if report.skipped:
            lines.append(f"replay skipped {len(report.skipped)} pair(s) the mechanism refuses "
                         f"(e.g. {report.skipped[0]})")
        if report.out_of_time:
            warnings.append(f"replay: {report.out_of_time}")
    violated = (search is not None and search.verdict == VIOLATION) or \
        (report is not None and report.verdict == "violation")
    if search is not None and search.verdict == ERROR:
        return StepResult(STEP, ERROR, search.summary, lines, data, warnings=warnings)
    if search is not None:
        summary = search.summary
        if report is not None and report.verdict == "violation":
            summary += f"; {replay_summary(report)}"
    elif report is not None:
        summary = replay_summary(report)
    else:
        return StepResult(STEP, ERROR, why, lines, data)
    return StepResult(STEP, VIOLATION if violated else CONSISTENT, summary, lines, data,
                      warnings=warnings)


__all__ = ["STEP", "replay_summary", "step_greybox"]
