"""The verdict of a run in one line, and how each violation reads: expected or not.

Every face leads with :func:`headline` — the CLI's last line, summary.md's first, the banner
of report.html::

    PASS — 71/71 expectations met — 22 known bugs detected, 0 unexpected violations
    FAIL — 69/71 expectations met — 22 known bugs detected, 1 unexpected violation
      (classic/laplace-eps1), 1 known bug not detected (classic/svt-lyu3)

The words are :mod:`dpaudit.report.glossary`'s.  The run **passes** when its exit status
(``summary.exit_status``) is 0: every audit point met its expectation and nothing errored.
An audit point that expects a violation and certified one is a **known bug detected**; one
that expects ``consistent`` and certified a violation is an **unexpected violation**; one
that expects a violation and certified none is a **known bug not detected**; an audit point
in error, a malformed suite file and a failed ``[[series]]`` entry are **errors**.  A run
stopped by a signal (or still in progress, in the reports written at its start) is
``INCOMPLETE`` whatever finished.

:func:`violation_kind` is the same split per certificate, for styling: a violation of an
audit point that expects one is ``"expected"`` (shown "detected as expected", not red), any
other violation ``"unexpected"`` (red).
"""

from __future__ import annotations

from dataclasses import dataclass

from dpaudit.util.numbers import format_number
from dpaudit.report.glossary import plural

#: names listed per kind of failure in the headline; more are counted ("… and 3 more")
MAX_NAMES = 3

PASS, FAIL, INCOMPLETE = "PASS", "FAIL", "INCOMPLETE"
#: the mark each status gets where an emoji fits (summary.md, the diff)
MARKS = {PASS: "✅", FAIL: "❌", INCOMPLETE: "⚠️"}


def violation_kind(point, certificate) -> str | None:
    """``"expected"`` for a violation of an audit point that expects one, ``"unexpected"``
    for any other violation, None for a certificate that is not a violation (``point``: an
    audit point or a record, anything with ``expect``)."""
    if certificate.verdict != "violation":
        return None
    return "expected" if point.expect == "violation" else "unexpected"


def verdict_counts(report) -> str:
    """``"68 violations (68 expected, 0 unexpected), 224 consistent, 0 errors"``: the
    certificates by verdict, the violations split by :func:`violation_kind`."""
    kinds = [violation_kind(point, c) for point in report.run.points
             for _, c in point.certificates()]
    verdicts = report.summary.verdicts
    violations = verdicts.get("violation", 0)
    split = (f" ({kinds.count('expected')} expected, {kinds.count('unexpected')} unexpected)"
             if violations else "")
    weak = sum(1 for point in report.run.points for _, c in point.certificates()
               if c.underpowered)
    return (f"{plural(violations, 'violation')}{split}, "
            f"{verdicts.get('consistent', 0):,} consistent"
            + (f" ({weak} underpowered)" if weak else "")
            + f", {plural(verdicts.get('error', 0), 'error')}")


def point_label(point) -> str:
    """``suite/audit`` with ``[parameter=value]`` for a swept point."""
    label = f"{point.suite}/{point.audit}"
    if point.sweep is not None:
        label += f"[{point.sweep.parameter}={format_number(point.sweep.value)}]"
    return label


def _named(n: int, what: str, names: tuple[str, ...], many: str | None = None) -> str:
    text = plural(n, what, many)
    if names:
        shown = ", ".join(names[:MAX_NAMES])
        more = f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
        text += f" ({shown}{more})"
    return text


@dataclass(frozen=True)
class Headline:
    """The verdict of a run (see the module docstring).

    Attributes:
      status: ``"PASS"``, ``"FAIL"`` or ``"INCOMPLETE"``.
      met, points: audit points that met their expectation, of all that ran.
      known_bugs: audit points expecting a violation that certified one.
      unexpected: labels of the audit points expecting consistent that certified a violation.
      missed: labels of the audit points expecting a violation that certified none.
      underpowered: labels of the audit points that failed only because a certificate did not
        reach its power target (``require_power``).
      errors: labels of what errored: audit points, malformed suite files, series.
      finished, planned, reason: the tests of an incomplete run that finished, of all
        planned, and why it is incomplete ("in progress", "interrupted by SIGTERM").
    """

    status: str
    met: int
    points: int
    known_bugs: int
    unexpected: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    underpowered: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    finished: int | None = None
    planned: int | None = None
    reason: str | None = None

    @property
    def passed(self) -> bool:
        return self.status == PASS

    @property
    def mark(self) -> str:
        """✅, ❌ or ⚠️."""
        return MARKS[self.status]

    def parts(self) -> list[str]:
        """The headline's parts after the status: what was met, then what was found."""
        found = [plural(self.known_bugs, "known bug") + " detected",
                 _named(len(self.unexpected), "unexpected violation", self.unexpected)]
        if self.status == INCOMPLETE:  # the tests not run are errors "not run": not listed
            return [f"{self.finished} of {plural(self.planned, 'test')} finished ({self.reason}; "
                    f"dpaudit run … --resume continues)", ", ".join(found) + " so far"]
        if self.missed:
            found.append(_named(len(self.missed), "known bug not detected", self.missed,
                                "known bugs not detected"))
        if self.underpowered:
            found.append(_named(len(self.underpowered), "underpowered audit point",
                                self.underpowered) + " (require_power)")
        if self.errors:
            found.append(_named(len(self.errors), "error", self.errors))
        met = ("no audit point ran" if self.points == 0
               else f"{self.met}/{self.points} expectations met")
        return [met, ", ".join(found)]

    def text(self) -> str:
        """``"PASS — 71/71 expectations met — 22 known bugs detected, 0 unexpected
        violations"``."""
        return " — ".join([self.status, *self.parts()])


def headline(report) -> Headline:
    """The :class:`Headline` of a run report
    (:class:`~dpaudit.report.json_report.RunReport`)."""
    run, summary = report.run, report.summary
    points = run.points
    errors = [f"suite file {s.file}" for s in run.suites if s.error]
    errors += [point_label(p) for p in points if p.verdict == "error"]
    errors += [f"{s.suite}/series {s.name}" for s in run.series if s.error]
    incomplete = run.incomplete
    status = (INCOMPLETE if incomplete is not None
              else PASS if summary.exit_status == 0 and not errors else FAIL)
    return Headline(
        status=status, met=sum(1 for p in points if p.met_expectation), points=len(points),
        known_bugs=sum(1 for p in points if p.expect == "violation"
                       and p.verdict == "violation"),
        unexpected=tuple(point_label(p) for p in points
                         if p.expect == "consistent" and p.verdict == "violation"),
        missed=tuple(point_label(p) for p in points
                     if p.expect == "violation" and p.verdict == "consistent"),
        underpowered=tuple(point_label(p) for p in points
                           if p.expect == p.verdict == "consistent" and not p.met_expectation),
        errors=tuple(errors),
        finished=None if incomplete is None else incomplete.tests_finished,
        planned=None if incomplete is None else incomplete.tests_planned,
        reason=None if incomplete is None else incomplete.reason)


__all__ = ["FAIL", "Headline", "INCOMPLETE", "MARKS", "MAX_NAMES", "PASS", "headline",
           "point_label", "verdict_counts", "violation_kind"]
