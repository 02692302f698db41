"""``--only``: which audits of the planned suites run.

A pattern is an :func:`fnmatch.fnmatchcase` glob matched against ``SUITE/AUDIT`` (the suite's
name, default its file stem) and against the bare audit name, so ``'classic/laplace-*'`` picks
audits of one suite and ``'sgld*'`` audits of any suite.  An audit runs when any pattern
matches it; ``[[series]]`` entries are matched by their name the same way.

Selection happens **after planning**: :func:`dpaudit.api.run_suites` plans every
suite with a selected audit in full (its Bonferroni family and every seed are those of the
full run) and then drops the tasks of the audits not selected, so a selected audit's numbers
are bit-identical to the full run's.  Suites without a selected audit or series are not
planned at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Iterable

from dpaudit.util.hints import did_you_mean

#: how many audit names a "matches nothing" error lists
SHOWN_NAMES = 8


class SelectionError(ValueError):
    """An ``--only`` pattern that matches no audit or series; the message names it."""


@dataclass(frozen=True)
class AuditFilter:
    """The ``--only`` patterns; empty selects everything."""

    patterns: tuple[str, ...] = ()

    def matches(self, suite: str, name: str) -> bool:
        """Whether the audit (or series) ``name`` of suite ``suite`` is selected."""
        if not self.patterns:
            return True
        return any(fnmatchcase(f"{suite}/{name}", p) or fnmatchcase(name, p)
                   for p in self.patterns)

    def check(self, names: Iterable[tuple[str, str]]) -> None:
        """Every pattern must select one of ``names`` ((suite, audit or series name) pairs).

        Raises:
          SelectionError: naming the first pattern that matches nothing and a few names.
        """
        names = list(names)
        for pattern in self.patterns:
            if any(AuditFilter((pattern,)).matches(s, n) for s, n in names):
                continue
            shown = ", ".join(f"{s}/{n}" for s, n in names[:SHOWN_NAMES])
            more = f", … ({len(names)} in all)" if len(names) > SHOWN_NAMES else ""
            hint = did_you_mean(pattern, dict.fromkeys(
                [f"{s}/{n}" for s, n in names] + [n for _, n in names]), n=2)
            raise SelectionError(
                f"--only {pattern!r} matches no audit{hint} (patterns are globs on "
                f"SUITE/AUDIT or AUDIT; audits: {shown or 'none'}{more})")


__all__ = ["SHOWN_NAMES", "AuditFilter", "SelectionError"]
