"""The warnings an audit recorded, brought to the user: deduplicated, located, capped.

Each test of a run keeps the warnings raised while it ran as text (``TestResult.warnings``,
e.g. ``"UserWarning: … (file.py:123)"``).  This module turns the judged audit points of a run
into what the faces show:

* :func:`distinct_warnings` — one :class:`LocatedWarning` per distinct text of each audit
  (texts repeated across its pairs, δs or swept points collapse into one, naming every pair),
  including a point's coverage note (``"only the named pairs were audited: …"``,
  :mod:`dpaudit.spec.coverage`);
* :func:`warning_lines` — those as ``dpaudit run`` prints them, one line per distinct text
  (a text several audits raised names the first few), at most ``limit`` lines, then
  ``… and N more in results.json``;
* :func:`issue_warnings` — each one as a :class:`DpauditWarning` through :func:`warnings.warn`
  (the pytest plugin calls it inside a test item's call, so pytest's warnings summary lists
  them under that test).

It reads points by attribute only (``suite``, ``audit``, ``tests``; a test's ``pair_name``
and ``warnings``) and imports nothing from dpaudit: any layer may use it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Iterable


class DpauditWarning(UserWarning):
    """A warning a dpaudit audit recorded (its text names the audit and the pair)."""


@dataclass(frozen=True)
class LocatedWarning:
    """One distinct warning text of one audit and the pairs whose tests raised it."""

    suite: str
    audit: str
    pairs: tuple[str, ...]
    text: str

    def __str__(self) -> str:
        where = f"{self.suite}/{self.audit}" if self.suite else self.audit
        pairs = ", ".join(self.pairs)
        return f"{where} (pair {pairs}): {self.text}" if pairs else f"{where}: {self.text}"


def distinct_warnings(points: Iterable) -> list[LocatedWarning]:
    """The distinct (suite, audit, text) of the points' tests, in first-seen order, each with
    the names of the pairs that raised it (in first-seen order, each once)."""
    found: dict[tuple[str, str, str], list[str]] = {}
    for point in points:
        # a point that could not search says so (dpaudit.spec.coverage): "only the named pairs …"
        coverage = getattr(point, "coverage", None)
        note = None if coverage is None else coverage.note
        if note:
            found.setdefault((point.suite or "", point.audit, note), [])
        for test in getattr(point, "tests", ()) or ():
            for text in getattr(test, "warnings", ()) or ():
                pairs = found.setdefault((point.suite or "", point.audit, text), [])
                pair = getattr(test, "pair_name", None)
                if pair and pair not in pairs:
                    pairs.append(pair)
    return [LocatedWarning(suite, audit, tuple(pairs), text)
            for (suite, audit, text), pairs in found.items()]


#: audits named on one ``dpaudit run`` warning line before "and N more"
MAX_AUDITS_PER_LINE = 4


def _grouped_line(group: list[LocatedWarning]) -> str:
    """One warning text raised by several audits, on one line naming the first few."""
    if len(group) == 1:
        return str(group[0])
    names = [f"{w.suite}/{w.audit}" if w.suite else w.audit for w in group]
    shown = ", ".join(names[:MAX_AUDITS_PER_LINE])
    more = (f" and {len(names) - MAX_AUDITS_PER_LINE} more audits"
            if len(names) > MAX_AUDITS_PER_LINE else "")
    return f"{shown}{more}: {group[0].text}"


def warning_lines(points: Iterable, limit: int = 20) -> list[str]:
    """``dpaudit run``'s lines: a heading, one ``  warning: …`` line per distinct warning text
    (an audit's text names its pairs; a text several audits raised — e.g. "only the named
    pairs were audited" — is one line naming the first :data:`MAX_AUDITS_PER_LINE` audits),
    at most ``limit`` lines, and ``  … and N more in results.json`` beyond; [] when there is
    none."""
    groups: dict[str, list[LocatedWarning]] = {}
    for w in distinct_warnings(points):
        groups.setdefault(w.text, []).append(w)
    if not groups:
        return []
    found = [_grouped_line(group) for group in groups.values()]
    lines = [f"{len(found)} distinct warning(s) recorded (summary.md lists every audit; "
             f"results.json has each test's and each point's coverage):"]
    lines += [f"  warning: {line}" for line in found[:limit]]
    if len(found) > limit:
        lines.append(f"  … and {len(found) - limit} more in results.json")
    return lines


def issue_warnings(points: Iterable, stacklevel: int = 2) -> list[LocatedWarning]:
    """:func:`warnings.warn` a :class:`DpauditWarning` for every distinct warning of the
    points (text: ``dpaudit: SUITE/AUDIT (pair P): TEXT``); returns what was issued."""
    found = distinct_warnings(points)
    for w in found:
        warnings.warn(DpauditWarning(f"dpaudit: {w}"), stacklevel=stacklevel)
    return found


__all__ = ["MAX_AUDITS_PER_LINE", "DpauditWarning", "LocatedWarning", "distinct_warnings",
           "issue_warnings", "warning_lines"]
