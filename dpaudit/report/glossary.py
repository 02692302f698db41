"""One vocabulary for every face of a run: the four counts, their glossary, plurals.

A run is described by four counts, the same words in the CLI, summary.md, report.html and
junit.xml (:data:`GLOSSARY` defines them; the reports show it):

* an **audit point** — one ``[[audit]]`` of a suite file, or one swept value of a swept
  audit: the unit an expectation is judged on (✓/✗);
* a **pair** — one neighbouring pair of datasets (d0, d1) of an audit point, named in the
  suite or found by the pair search: one JUnit testcase, one power figure;
* a **test** — one statistical test of a pair, a member of its suite's Bonferroni family: the
  pair's black-box curve certificate, plus a white-box one where the mechanism has a
  log-density (so a pair has one or two tests);
* a **certificate** — one pair at one δ (or one Rényi order α): a certified lower bound ε_LB
  against the claimed ε; one row of the tables and of results.json.

:class:`ReportCounts` counts them for what ran: in an ``--only`` run, the selected audit
points, not the suites' whole families.
"""

from __future__ import annotations

from dataclasses import dataclass


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 certificate"``, ``"2 certificates"`` (``many``: an irregular plural)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


@dataclass(frozen=True)
class Term:
    """One glossary entry: the word as the reports use it, and what it means."""

    word: str
    meaning: str


#: the words every report uses, in the order a reader meets them
GLOSSARY: tuple[Term, ...] = (
    Term("audit point", "one [[audit]] of a suite file, or one swept value of a swept audit: "
                        "one mechanism with one set of parameters and one expectation "
                        "(consistent, or violation for a known bug). ✓/✗ says whether the "
                        "expectation was met; a run passes when every audit point's is ✓."),
    Term("pair", "one neighbouring pair of datasets (d0, d1) of an audit point, named in the "
                 "suite or found by the pair search; one JUnit testcase and one power figure."),
    Term("test", "one statistical test of a pair: its black-box certificate of the privacy "
                 "curve, plus a white-box one where the mechanism has a log-density. A "
                 "suite's tests form its Bonferroni family: ε_LB holds for all of them "
                 "jointly at the suite's confidence."),
    Term("certificate", "one pair at one δ (or one Rényi order α): the certified lower bound "
                        "ε_LB against the claimed ε; a violation when ε_LB exceeds the claim. "
                        "One row of the tables."),
    Term("known bug detected", "a certified violation of an audit point that expects one (a "
                               "mechanism known to leak, kept to show the leak is still "
                               "caught): detected as expected, not a failure."),
    Term("unexpected violation", "a certified violation of an audit point that expects "
                                 "consistent: the claim is false; the run fails."),
    Term("detectable ε", "the smallest true ε the same test would certify with probability "
                         "≥ 1/2 at these samples; ∞ when no event of the test could certify "
                         "a violation at these samples."),
    Term("underpowered", "a consistent certificate whose detectable ε is above its power "
                         "target (1.1 × the claim by default): its test spent its sample "
                         "budget without being able to catch a leak that size, so "
                         "'consistent' says little. It fails its audit point only with "
                         "require_power = true."),
    Term("budget", "a suite's samples per side: the size of a test's largest (and last) look. "
                   "Tests draw in looks of growing size, each from fresh samples, and stop at "
                   "a certified violation or at their power target (sequential "
                   "certification); a test that reaches its budget has drawn about 1.14× it "
                   "in all and always less than 2× it. --fixed-n draws exactly the budget, "
                   "in one look."),
)


def glossary_lines() -> list[str]:
    """The glossary as plain ``word: meaning`` lines."""
    return [f"{t.word}: {t.meaning}" for t in GLOSSARY]


def _tests_of(test) -> int:
    """The statistical tests of one test result: the members of the suite's family it used
    (1, or 2 with a white-box certificate; 0 for a check that estimates nothing)."""
    return test.family_members


@dataclass(frozen=True)
class ReportCounts:
    """The four counts of a run (:data:`GLOSSARY`), of the audit points that ran.

    Attributes:
      audit_points, pairs, tests, certificates: as the module docstring defines them.
      suite_files: suite files given (malformed and skipped ones included).
    """

    audit_points: int
    pairs: int
    tests: int
    certificates: int
    suite_files: int

    @classmethod
    def of(cls, run) -> "ReportCounts":
        """The counts of ``run`` (an :class:`~dpaudit.results.run.AuditRun`).  Tests: the
        suites' planned tests (what their families say) when every audit ran; in an
        ``--only`` run, those of the pairs that ran (a pair with a white-box certificate has
        two; an erroring pair, whose white-box test is not known, counts one)."""
        tests = [t for p in run.points for t in p.tests if t.certificates]
        if getattr(run, "only", ()):
            count = sum(_tests_of(t) for t in tests)
        else:
            count = sum(s.tests_run for s in run.suites if not (s.error or s.skipped))
        return cls(audit_points=len(run.points), pairs=len(tests), tests=count,
                   certificates=sum(len(t.certificates) for t in tests),
                   suite_files=len(run.suites))

    def text(self, separator: str = " · ") -> str:
        """``"71 audit points · 212 pairs · 292 tests · 292 certificates"``."""
        return separator.join((plural(self.audit_points, "audit point"),
                               plural(self.pairs, "pair"), plural(self.tests, "test"),
                               plural(self.certificates, "certificate")))


__all__ = ["GLOSSARY", "ReportCounts", "Term", "glossary_lines", "plural"]
