"""Compare two runs: what a pull request changed in the audit results.

:func:`diff_reports` matches certificates of an OLD and a NEW :class:`RunReport` by
(suite name, audit, sweep value, pair name, notion, δ or α) — never by position, so adding or
reordering audits changes nothing else — and reports:

* **new violations**: certificates that certify a violation in NEW and did not in OLD (or did
  not exist there); **resolved violations**: violations in OLD that NEW no longer certifies;
* **newly unmet** expectations (audit points unmet in NEW, and met or absent in OLD) and
  **newly met** ones;
* audit points, pairs and certificates **added** and **removed** (a pair is listed only when
  its audit point is in both runs, a certificate only when its pair is);
* **new errors**: erroring certificates (one per distinct suite, audit, sweep value, pair and
  message) and malformed suite files that were not errors in OLD;
* **significant ε changes**: a certificate present in both runs, with the same samples per
  side in both, whose two-sided intervals
  (:func:`dpaudit.report.tightness.epsilon_interval`: from the certified ε_LB up to the upper
  confidence bound from the same counts) do not overlap.  When every interval holds — with
  probability ≥ 1 − 2(1 − c_OLD) − 2(1 − c_NEW) per suite file, c being the suite's
  family-wise confidence — a flagged change is a real change of the certifying events'
  privacy loss, not sampling noise.  Overlapping intervals are never reported, whatever the
  raw difference of the two ε_LB; the events are re-selected in each run, so a change of the
  selected event can also move the number (see that module).  Tightness (ε_LB / claimed ε)
  before and after is shown with each change.

Only what both runs selected is compared (:mod:`dpaudit.report.comparable`): an audit point
one run's ``--only`` did not select is neither added nor removed but counted as not compared
(the points of a suite file only one run ran are added or removed, and the header names the
file); the settings the runs differ in (profile, samples, seeds,
selection, dpaudit version) are in :attr:`RunDiff.comparison` and the header of the comment,
which says what that means for the comparison.

**Regressions** (:attr:`RunDiff.regressions`, exit status 1): newly unmet expectations, new
errors, and new violations of audits that expect ``consistent``.  Removed audits are listed
but are not a regression (removing an audit is a reviewed edit of a suite file); nor are
significant ε changes or resolved violations of audits that expect one (those already make
their audit unmet, which is).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from dpaudit.util.jsonable import to_jsonable
from dpaudit.util.numbers import format_number
from dpaudit.results.records import CertificateRecord
from dpaudit.report.comparable import (Comparison, ran_suite, same_samples, selects,
                                       setting_differences)
from dpaudit.report.json_report import RunReport
from dpaudit.report.tightness import EpsilonInterval, epsilon_interval


def _num(value, digits: int = 4) -> str:
    return format_number(value, digits)


def _sweep_text(sweep) -> str:
    return "" if sweep is None else f" [{sweep.parameter}={_num(sweep.value)}]"


def _point_key(suite: str, audit: str, sweep) -> tuple:
    return (suite, audit, None if sweep is None else json.dumps(sweep.value, sort_keys=True))


def _record_key(r: CertificateRecord) -> tuple:
    at = r.delta if r.notion == "dp" else r.alpha
    return _point_key(r.suite, r.audit, r.sweep) + (r.pair_name, r.notion, at)


def _at(r: CertificateRecord) -> str:
    return f"δ={_num(r.delta)}" if r.notion == "dp" else f"α={_num(r.alpha)} (RDP)"


def _bound(r: CertificateRecord | None) -> float | None:
    """A record's certified bound (:attr:`CertificateRecord.bound`); None for an error."""
    return None if r is None or r.verdict == "error" else r.bound


@dataclass(frozen=True)
class CertificateChange:
    """One certificate matched across the two runs (``old`` None when it is new)."""

    where: str  # "suite / audit [sweep] / pair @ δ=…"
    point: str  # "suite / audit [sweep]": its audit point, as in PointChange.where
    expect: str
    old: CertificateRecord | None
    new: CertificateRecord
    old_interval: EpsilonInterval | None = None
    new_interval: EpsilonInterval | None = None

    def to_json(self) -> dict:
        def side(r, interval):
            if r is None:
                return None
            return {"verdict": r.verdict, "claimed_epsilon": r.claimed_epsilon,
                    "epsilon_lower_bound": _bound(r), "tightness": r.tightness,
                    "interval": None if interval is None else
                    [interval.lower, interval.upper, interval.source]}
        return to_jsonable({"where": self.where, "expect": self.expect,
                            "old": side(self.old, self.old_interval),
                            "new": side(self.new, self.new_interval)})


@dataclass(frozen=True)
class PointChange:
    """An audit point whose expectation changed (``old_verdict`` None: the point is new)."""

    where: str  # "suite / audit [sweep]"
    expect: str
    old_verdict: str | None
    new_verdict: str

    def to_json(self) -> dict:
        return {"where": self.where, "expect": self.expect, "old_verdict": self.old_verdict,
                "new_verdict": self.new_verdict}


@dataclass(frozen=True)
class RunDiff:
    """What changed from ``old`` to ``new`` (see the module docstring for every rule)."""

    old_source: str
    new_source: str
    compared: int  # certificates present in both runs
    new_violations: tuple[CertificateChange, ...] = ()
    resolved_violations: tuple[CertificateChange, ...] = ()
    newly_unmet: tuple[PointChange, ...] = ()
    newly_met: tuple[PointChange, ...] = ()
    added_points: tuple[str, ...] = ()
    removed_points: tuple[str, ...] = ()
    added_pairs: tuple[str, ...] = ()
    removed_pairs: tuple[str, ...] = ()
    added_certificates: tuple[str, ...] = ()
    removed_certificates: tuple[str, ...] = ()
    new_errors: tuple[str, ...] = ()  # one line each: where: message
    significant_changes: tuple[CertificateChange, ...] = field(default=())
    comparison: Comparison = field(default_factory=Comparison)

    @property
    def regressions(self) -> tuple[str, ...]:
        """One line per regression: newly unmet expectations, new errors, new violations of
        audits expected consistent.  Each problem counts once: an audit point newly unmet
        because it errored is listed by its new errors, a new violation of an audit point
        already newly unmet by that point."""
        out = [f"expectation newly unmet: {p.where}: expected {p.expect}, got {p.new_verdict}"
               + ("" if p.old_verdict is None else f" (was {p.old_verdict})")
               for p in self.newly_unmet if p.new_verdict != "error"]
        out += [f"new error: {e}" for e in self.new_errors]
        unmet = {p.where for p in self.newly_unmet}  # already counted once, per audit point
        out += [f"new violation of an audit expected consistent: {c.where}: ε_LB "
                f"{_num(_bound(c.new))} "
                + (f"vs claimed {_num(c.new.claimed_epsilon)}: {c.new.rejection_reason}"
                   if c.new.rejection_reason else f"> claimed {_num(c.new.claimed_epsilon)}")
                for c in self.new_violations if c.expect == "consistent"
                and c.point not in unmet]
        return tuple(out)

    @property
    def exit_status(self) -> int:
        """1 when there is a regression, else 0."""
        return 1 if self.regressions else 0

    def to_json(self) -> dict:
        return to_jsonable({
            "old": self.old_source, "new": self.new_source, "compared": self.compared,
            "regressions": list(self.regressions), "exit_status": self.exit_status,
            "new_violations": [c.to_json() for c in self.new_violations],
            "resolved_violations": [c.to_json() for c in self.resolved_violations],
            "newly_unmet": [p.to_json() for p in self.newly_unmet],
            "newly_met": [p.to_json() for p in self.newly_met],
            "added": {"points": self.added_points, "pairs": self.added_pairs,
                      "certificates": self.added_certificates},
            "removed": {"points": self.removed_points, "pairs": self.removed_pairs,
                        "certificates": self.removed_certificates},
            "new_errors": self.new_errors,
            "significant_changes": [c.to_json() for c in self.significant_changes],
            "comparison": self.comparison.to_json()})

    def to_markdown(self) -> str:
        """A pull-request comment: a short header with the counts, then one section per
        non-empty kind of change (tables for certificates, lists for the rest)."""
        from dpaudit.report.diff_markdown import render_diff_markdown

        return render_diff_markdown(self)


def _source(report: RunReport) -> str:
    p = report.provenance
    return f"{p.command or 'dpaudit run'} ({p.created or 'unknown date'})"


def _point(r: CertificateRecord) -> str:
    return f"{r.suite} / {r.audit}{_sweep_text(r.sweep)}"


def _where(r: CertificateRecord) -> str:
    return f"{_point(r)} / {r.pair_name} @ {_at(r)}"


def _new_errors(old: RunReport, new: RunReport, old_records: dict,
                new_points: dict) -> tuple[str, ...]:
    def base(name: str) -> str:
        return name.replace("\\", "/").rsplit("/", 1)[-1]

    old_suite_errors = {base(s.file) for s in old.run.suites if s.error}
    lines = [f"{s.file}: {s.error}" for s in new.run.suites
             if s.error and base(s.file) not in old_suite_errors]
    seen = set()
    for key, r in ((_record_key(r), r) for r in new.records if r.verdict == "error"):
        if key[:3] not in new_points:
            continue  # a point the old run did not select: not compared
        before = old_records.get(key)
        if before is not None and before.verdict == "error":
            continue
        line = f"{r.suite} / {r.audit}{_sweep_text(r.sweep)} / {r.pair_name}: {r.error}"
        if line not in seen:
            seen.add(line)
            lines.append(line)
    return tuple(lines)


def _compared(old: RunReport, new: RunReport):
    """Split each run's audit points (by :func:`_point_key`) into those the other run
    selected (compared: present there, or added / removed) and those its ``--only`` did not
    select (not compared); and count, per suite, the compared points of suites the other run
    did not run at all (a suite file added or deleted, or not given: still added / removed,
    but named in the header)."""
    def split(mine: RunReport, other: RunReport):
        compared, not_selected, suites = {}, [], {}
        for p in mine.run.points:
            key = _point_key(p.suite, p.audit, p.sweep)
            if not selects(other, p.suite, p.audit):
                not_selected.append(f"{p.suite} / {p.audit}{_sweep_text(p.sweep)}")
                continue
            compared[key] = p
            if not ran_suite(other, p.suite):
                suites[p.suite] = suites.get(p.suite, 0) + 1
        return compared, tuple(not_selected), tuple(suites.items())

    return split(old, new), split(new, old)


def diff_reports(old: RunReport, new: RunReport) -> RunDiff:
    """Compare two runs (see the module docstring); neither is modified."""
    (old_points, not_selected_new, suites_only_old), \
        (new_points, not_selected_old, suites_only_new) = _compared(old, new)
    olds = {k: r for k, r in ((_record_key(r), r) for r in old.records)
            if k[:3] in old_points}
    news = {k: r for k, r in ((_record_key(r), r) for r in new.records)
            if k[:3] in new_points}
    label = {k: f"{p.suite} / {p.audit}{_sweep_text(p.sweep)}"
             for k, p in {**old_points, **new_points}.items()}
    pairs_old = {k[:4] for k in olds}
    pairs_new = {k[:4] for k in news}

    new_violations, resolved, significant, samples_differ = [], [], [], 0
    for key, r in news.items():
        before = olds.get(key)
        if r.verdict == "violation" and (before is None or before.verdict != "violation"):
            new_violations.append(CertificateChange(_where(r), _point(r), r.expect, before, r))
        if before is None:
            continue
        if before.verdict == "violation" and r.verdict != "violation":
            resolved.append(CertificateChange(_where(r), _point(r), r.expect, before, r))
        if not same_samples(before, r):  # other samples: ε not comparable (comparable.py)
            samples_differ += 1
            continue
        a, b = epsilon_interval(before), epsilon_interval(r)
        if a is not None and b is not None and not a.overlaps(b):
            significant.append(CertificateChange(_where(r), _point(r), r.expect, before, r,
                                                 a, b))

    newly_unmet, newly_met = [], []
    for key, o in new_points.items():
        before = old_points.get(key)
        if not o.met_expectation and (before is None or before.met_expectation):
            newly_unmet.append(PointChange(label[key], o.expect,
                                           None if before is None else before.verdict,
                                           o.verdict))
        elif o.met_expectation and before is not None and not before.met_expectation:
            newly_met.append(PointChange(label[key], o.expect, before.verdict, o.verdict))

    def pair_label(k):
        return f"{label[k[:3]]} / {k[3]}"

    def cert_label(k):
        return _where(news.get(k) or olds[k])

    comparison = Comparison(
        differences=setting_differences(old, new),
        compared_points=len(old_points.keys() & new_points.keys()),
        not_selected_new=not_selected_new, not_selected_old=not_selected_old,
        suites_only_old=suites_only_old, suites_only_new=suites_only_new,
        samples_differ=samples_differ)
    return RunDiff(
        old_source=_source(old), new_source=_source(new),
        compared=len(olds.keys() & news.keys()),
        new_violations=tuple(new_violations), resolved_violations=tuple(resolved),
        newly_unmet=tuple(newly_unmet), newly_met=tuple(newly_met),
        added_points=tuple(label[k] for k in new_points if k not in old_points),
        removed_points=tuple(label[k] for k in old_points if k not in new_points),
        added_pairs=tuple(pair_label(k) for k in dict.fromkeys(k[:4] for k in news)
                          if k not in pairs_old and k[:3] in old_points),
        removed_pairs=tuple(pair_label(k) for k in dict.fromkeys(k[:4] for k in olds)
                            if k not in pairs_new and k[:3] in new_points),
        added_certificates=tuple(cert_label(k) for k in news
                                 if k not in olds and k[:4] in pairs_old),
        removed_certificates=tuple(cert_label(k) for k in olds
                                   if k not in news and k[:4] in pairs_new),
        new_errors=_new_errors(old, new, olds, new_points),
        significant_changes=tuple(significant), comparison=comparison)


__all__ = ["CertificateChange", "PointChange", "RunDiff", "diff_reports"]
