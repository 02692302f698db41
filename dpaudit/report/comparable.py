"""What two runs have in common, before ``dpaudit diff`` compares them.

Two runs can differ in how they were asked to run — the profile, ``--samples``, ``--seed``,
``--only``, the dpaudit version, the suites' seeds and confidences — and in what they ran.
:func:`compare_runs` finds those differences (all read from results.json: its ``options``, its
``dpaudit_version``, its ``suites``, and each certificate's ``samples``) and decides what is
comparable:

* **Audit points** are compared only when both runs selected them: a point one run's
  ``--only`` did not select is *not selected* there, never "removed" or "added".  A suite file
  only one run ran (added or deleted in the change, or not given to one run) is named in the
  header; its points are added or removed, so a new suite's unmet expectations are still
  regressions.
* **Verdicts and expectations** of the points both selected are always compared; with fewer
  samples per side a run has less power, so the header says when the samples differ (a
  violation one run certifies may be missed by the other without any change of the code).
* **ε values** are compared (the interval test of :mod:`dpaudit.report.diff`) only between
  certificates with the same samples per side: at other sample sizes the certifying events
  are selected and bounded differently, so their intervals are not a measure of one quantity
  and a "significant change" would be the sample size speaking.  Different seeds are fine:
  the interval test is made for sampling noise.

:class:`Comparison` holds the result; :meth:`Comparison.notes` says it in sentences, which
the diff's header prints.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpaudit.util.numbers import format_number
from dpaudit.report.glossary import plural


@dataclass(frozen=True)
class Difference:
    """One setting the two runs differ in, as text (``old`` / ``new``)."""

    what: str
    old: str
    new: str

    def text(self) -> str:
        return f"{self.what} ({self.old} → {self.new})"

    def to_json(self) -> dict:
        return {"what": self.what, "old": self.old, "new": self.new}


def _only_text(only) -> str:
    return "all audits" if not only else "--only " + " ".join(repr(p) for p in only)


def _suites(report) -> dict:
    """suite name → (seed, confidence) of the suites that ran."""
    return {s.name: (s.seed, s.confidence) for s in report.run.suites
            if s.name is not None and not (s.error or s.skipped)}


def setting_differences(old, new) -> tuple[Difference, ...]:
    """The settings ``old`` and ``new`` (run reports) differ in: profile, ``--samples``,
    ``--seed``, the seeds and confidences of suites both ran, ``--only`` and the dpaudit
    version.  (Samples per side are compared per certificate: :func:`same_samples`.)"""
    out = []

    def differ(what, a, b):
        if a != b:
            out.append(Difference(what, str(a), str(b)))

    o, n = old.run, new.run
    differ("profile", o.profile, n.profile)
    differ("--samples", o.samples_override or "as the suites say",
           n.samples_override or "as the suites say")
    differ("--seed", o.seed_override or "as the suites say",
           n.seed_override or "as the suites say")
    both = _suites(old).keys() & _suites(new).keys()
    seeds = [name for name in sorted(both) if _suites(old)[name][0] != _suites(new)[name][0]]
    if seeds and o.seed_override == n.seed_override:
        differ("suite seeds", ", ".join(f"{s} {_suites(old)[s][0]}" for s in seeds),
               ", ".join(f"{s} {_suites(new)[s][0]}" for s in seeds))
    confidences = [name for name in sorted(both)
                   if _suites(old)[name][1] != _suites(new)[name][1]]
    if confidences:
        differ("suite confidence",
               ", ".join(f"{s} {format_number(_suites(old)[s][1])}" for s in confidences),
               ", ".join(f"{s} {format_number(_suites(new)[s][1])}" for s in confidences))
    differ("selection", _only_text(o.only), _only_text(n.only))
    differ("dpaudit", old.provenance.dpaudit_version or "unknown",
           new.provenance.dpaudit_version or "unknown")
    return tuple(out)


def selects(report, suite: str, audit: str) -> bool:
    """Whether ``report``'s run selected audit ``audit`` of suite ``suite`` (its ``--only``
    patterns, :class:`dpaudit.audit.select.AuditFilter`'s rule: a glob on ``SUITE/AUDIT`` or
    ``AUDIT``; every audit without ``--only``)."""
    from fnmatch import fnmatchcase

    patterns = report.run.only
    return not patterns or any(fnmatchcase(f"{suite}/{audit}", p) or fnmatchcase(audit, p)
                               for p in patterns)


def ran_suite(report, suite: str) -> bool:
    """Whether ``report``'s run ran (or tried to run) the suite named ``suite``."""
    return any(s.name == suite for s in report.run.suites)


def same_samples(old_record, new_record) -> bool:
    """Whether two matched certificates drew the same samples per side: only then are their
    ε intervals compared (module docstring)."""
    return old_record.samples == new_record.samples


@dataclass(frozen=True)
class Comparison:
    """What :func:`dpaudit.report.diff.diff_reports` compared (module docstring).

    Attributes:
      differences: the settings the runs differ in.
      compared_points: audit points both runs selected and ran.
      not_selected_new: points of OLD that NEW's ``--only`` did not select.
      not_selected_old: points of NEW that OLD's ``--only`` did not select.
      suites_only_old, suites_only_new: ``(suite, audit points)`` of the suites one run ran
        and the other did not (a file added or deleted, or given to one run only): their
        points are removed / added.
      samples_differ: certificates in both runs whose samples per side differ (their ε is
        not compared).
    """

    differences: tuple[Difference, ...] = ()
    compared_points: int = 0
    not_selected_new: tuple[str, ...] = ()
    not_selected_old: tuple[str, ...] = ()
    suites_only_old: tuple[tuple[str, int], ...] = ()
    suites_only_new: tuple[tuple[str, int], ...] = ()
    samples_differ: int = 0

    @property
    def same_settings(self) -> bool:
        return not self.differences

    def differs_in(self, what: str) -> bool:
        return any(d.what == what for d in self.differences)

    def notes(self, compared: int) -> list[str]:
        """The header's sentences: what differs and what was compared (``compared``: the
        certificates in both runs)."""
        if self.same_settings:
            lines = ["Same settings (profile, samples, seeds, selection, dpaudit version): "
                     "every certificate in both runs is compared."]
        else:
            lines = ["⚠️ The runs differ in "
                     + "; ".join(d.text() for d in self.differences) + "."]
        power = (self.samples_differ or self.differs_in("profile")
                 or self.differs_in("--samples"))
        if self.samples_differ:
            lines.append(f"Samples per side differ for {self.samples_differ} of the {compared} "
                         f"certificates in both runs: their ε_LB differ by design and are not "
                         f"compared (ε is compared for the other "
                         f"{compared - self.samples_differ}).")
        if power:
            lines.append("Verdicts are compared everywhere, but a run with fewer samples has "
                         "less power: a violation one run certifies can be missed by the "
                         "other without any change in the code, and a pair search at other "
                         "samples can find other pairs.")
        if self.differs_in("suite seeds") or self.differs_in("--seed"):
            lines.append("Seeds differ: the numbers differ by sampling noise, which the ε "
                         "interval test does not report.")
        for label, suites, verb in (("only the old run ran", self.suites_only_old, "removed"),
                                    ("only the new run ran", self.suites_only_new, "added")):
            if suites:
                lines.append(f"Suites {label}: " + ", ".join(
                    f"{name} ({plural(n, 'audit point')})" for name, n in suites)
                    + f", listed as {verb}.")
        skipped = []
        if self.not_selected_new:
            skipped.append(f"{plural(len(self.not_selected_new), 'audit point')} of the old "
                           "run that the new run's --only did not select")
        if self.not_selected_old:
            skipped.append(f"{plural(len(self.not_selected_old), 'audit point')} of the new "
                           "run that the old run's --only did not select")
        if skipped:
            lines.append(f"Compared: the {plural(self.compared_points, 'audit point')} both "
                         f"runs selected. Not compared (neither added nor removed): "
                         + "; ".join(skipped) + ".")
        return lines

    def to_json(self) -> dict:
        return {"differences": [d.to_json() for d in self.differences],
                "compared_points": self.compared_points,
                "not_selected_new": list(self.not_selected_new),
                "not_selected_old": list(self.not_selected_old),
                "suites_only_old": [list(s) for s in self.suites_only_old],
                "suites_only_new": [list(s) for s in self.suites_only_new],
                "samples_differ": self.samples_differ}


__all__ = ["Comparison", "Difference", "ran_suite", "same_samples", "selects",
           "setting_differences"]
