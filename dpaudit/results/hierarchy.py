"""The results of a run as a tree: audit point → test → certificate → evidence.

A run's shape is fixed by its plan (:mod:`dpaudit.audit.plan`):

* an **audit point** (:class:`AuditPoint`) is one ``[[audit]]`` of a suite, or one swept
  value of a swept audit: one mechanism with one set of parameters, one expectation;
* a **test** (:class:`TestResult`) is one task of the point's audit procedure
  (:mod:`dpaudit.audit.procedures`): for the pair audit one neighbouring pair certified at every
  δ and α at once (black-box, plus white-box for a mechanism with a log-density), for the
  exact-curve check one pair's curve against the claim — with the claim, the seed, the samples,
  the time, the warnings, or the error that stopped it, and the figure's curve data;
* a **certificate** (:class:`~dpaudit.results.certificate.Certificate`) is one δ or one Rényi
  order α of a test, judged against typed **evidence**
  (:class:`~dpaudit.evidence.base.Evidence`).

Contract:

* Every type is frozen; a value never changes after it is built.  A certificate's judgement is
  computed once from its numbers; a point's verdict from its certificates by
  :meth:`AuditPoint.judged`, which is also where a *vacuous* point (a claim of ε = ∞ at every
  audited δ and α) becomes an error.
* The tree is results.json (schema 4) and the run journal: :meth:`AuditPoint.to_json` and
  :meth:`TestResult.to_json` write it, bulky values (datasets, shared certificate parts,
  claims) once through a :class:`~dpaudit.util.shared_json.SharedValues` table when one is
  given; ``from_json`` inverts them.
* The flat :class:`~dpaudit.results.records.CertificateRecord` (one row per certificate, the
  unit of ``dpaudit diff`` and the API's ``records``) is a *view*: :meth:`AuditPoint.records`
  flattens a point, :func:`points_from_records` rebuilds the tree from records (how results.json
  files of schema 2 and 3 are read).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Iterable, Iterator

from dpaudit.evidence.vocabulary import Expectation, Verdict
from dpaudit.results.certificate import Certificate
from dpaudit.results.privacy_curve import PrivacyCurveFigure
from dpaudit.results.provenance import BudgetUse, Coverage, RecordedPair, SearchProvenance
from dpaudit.results.records import AuditOutcome, CertificateRecord, SweepPoint
from dpaudit.spec.coverage import FAIL, WARN, floating_point_warning
from dpaudit.stats.sequential import StoppingRule
from dpaudit.util.jsonable import to_jsonable
from dpaudit.util.shared_json import SharedValues, resolve, share

VACUOUS = ("vacuous audit: the claim gives ε = ∞ at every audited δ and α, so no bound can "
           "contradict it and the audit tests nothing; audit a δ > 0 (e.g. delta = 1e-5) or "
           "an α the claim bounds")

#: the procedure of a test written before tests named theirs
PAIR = "pair"


def _number(value):
    return None if value is None else float(value)


@dataclass(frozen=True)
class TestResult:
    """One test of an audit point (see the module docstring).

    Attributes:
      pair: the pair the test is about (a searched test's, once its search ran), None when the
        point's pairs could not be built.
      pair_index: its position among the point's tests.
      claim: the claim as a plain dict (``Claim.to_dict()``), None when the mechanism could
        not be built.
      true_epsilon: the literature's ε of a known-bad mechanism, else None.
      samples: the test's sample budget per side (0 for a test that samples nothing); seed:
        its seed (the white-box test draws from seed + 1).
      seconds: wall time; warnings: the warnings raised while it ran, as text.
      error: why the test failed (``"ExceptionType: message"``), None when it did not.
      certificates: one per δ of the audit, then one per α.
      curve: the figure's data (:class:`~dpaudit.results.privacy_curve.PrivacyCurveFigure`:
        the certified points, dense claimed and exact ε(δ) and ε(α) around them), None when
        the test has no figure.
      search: how a searched test's pair was found, None for a named pair.
      sequential: how the test spent its budget, None when it failed before certifying or
        samples nothing.
      procedure: the audit procedure that ran it (``pair``, ``exact-curve``, …).
      family_members: the members of the suite's Bonferroni family it used (the pair audit:
        1, or 2 with a white-box test; 0 for a test that estimates nothing).
    """

    __test__ = False  # not a pytest test class

    pair: RecordedPair | None
    pair_index: int
    claim: dict | None
    true_epsilon: float | None
    samples: int
    seed: int
    seconds: float
    warnings: tuple[str, ...]
    error: str | None
    certificates: tuple[Certificate, ...]
    curve: PrivacyCurveFigure | None = None
    search: SearchProvenance | None = None
    sequential: BudgetUse | None = None
    procedure: str = PAIR
    family_members: int = 1

    @property
    def pair_name(self) -> str | None:
        return None if self.pair is None else self.pair.name

    def to_json(self, shared: SharedValues | None = None, curve: bool = True) -> dict:
        """The test as plain JSON; :meth:`from_json` inverts it.  ``curve=False`` leaves out
        the figure data (results.json holds it once, in its ``curves``)."""
        out = {"procedure": self.procedure, "family_members": self.family_members,
                "pair": None if self.pair is None else self.pair.to_json(shared),
                "pair_index": self.pair_index,
                "claim": None if self.claim is None else share(shared, to_jsonable(self.claim)),
                "true_epsilon": to_jsonable(self.true_epsilon), "samples": self.samples,
                "seed": self.seed, "seconds": self.seconds, "warnings": list(self.warnings),
                "error": self.error,
                "search": None if self.search is None else self.search.to_json(),
                "sequential": None if self.sequential is None else self.sequential.to_json(),
                "certificates": [c.to_json(shared) for c in self.certificates]}
        if curve:
            out["curve"] = None if self.curve is None else self.curve.to_json()
        return out

    @classmethod
    def from_json(cls, data: dict, shared: SharedValues | None = None) -> "TestResult":
        """The inverse of :meth:`to_json`.

        Raises:
          KeyError, TypeError, ValueError: a malformed document.
        """
        claim = data.get("claim")
        return cls(procedure=data.get("procedure", PAIR),
                   family_members=int(data.get("family_members", 1)),
                   pair=RecordedPair.from_json(data.get("pair"), shared),
                   pair_index=int(data["pair_index"]),
                   claim=None if claim is None else resolve(shared, claim),
                   true_epsilon=_number(data.get("true_epsilon")),
                   samples=int(data["samples"]), seed=int(data["seed"]),
                   seconds=float(data["seconds"]), warnings=tuple(data.get("warnings") or ()),
                   error=data.get("error"),
                   certificates=tuple(Certificate.from_json(c, shared)
                                      for c in data["certificates"]),
                   curve=PrivacyCurveFigure.from_json(data.get("curve")),
                   search=SearchProvenance.from_json(data.get("search")),
                   sequential=BudgetUse.from_json(data.get("sequential")))


@dataclass(frozen=True)
class AuditPoint:
    """One audit point of a suite and its tests.

    A *planned* point (:mod:`dpaudit.audit.plan`) has no tests and no verdict; a *judged* one
    (:meth:`judged`) has both.

    Attributes:
      suite, suite_file: the suite's name and file.
      audit, audit_index: the audit's name and its position in the file.
      mechanism: the audited mechanism's name (registry name or code reference).
      parameters: what the suite gave; defaulted_parameters: the parameters it left at their
        defaults, name → value ({} when none; None in a results file written before the field
        existed).
      expect: what the suite expects of it.
      confidence: the suite's family-wise confidence; per_certificate_confidence: each
        test's (Bonferroni: 1 − (1 − confidence)/family size).
      distinguisher: the black-box distinguisher's name; note: the audit's note.
      sweep: where the point sits in its audit's sweep, None for an audit without one.
      coverage: what the point audits beyond its named pairs (None in an older file).
      power: the point's stopping rule (None in an older file).
      tests: its tests, in plan order.
      verdict: ``error`` if any certificate errored, else ``violation`` if any certified one,
        else ``consistent``; None until judged.
      met_expectation: ``verdict == expect`` once judged, and no certificate underpowered
        when the point's rule says ``require_power``.
      procedure: the point's audit procedure (``pair``, ``exact-curve``, …).
    """

    suite: str
    suite_file: str
    audit: str
    audit_index: int
    mechanism: str
    parameters: dict
    defaulted_parameters: dict | None
    expect: Expectation
    confidence: float
    per_certificate_confidence: float
    distinguisher: str
    note: str
    sweep: SweepPoint | None
    coverage: Coverage | None = None
    power: StoppingRule | None = None
    tests: tuple[TestResult, ...] = ()
    verdict: Verdict | None = None
    met_expectation: bool = False
    procedure: str = PAIR

    @property
    def key(self) -> tuple:
        """(suite file, audit index, sweep index or None): the point's identity in a run."""
        return (self.suite_file, self.audit_index,
                None if self.sweep is None else self.sweep.index)

    def certificates(self) -> Iterator[tuple[TestResult, Certificate]]:
        """Every (test, certificate) of the point, tests in plan order, then δ, then α."""
        for test in self.tests:
            for certificate in test.certificates:
                yield test, certificate

    def with_tests(self, tests: Iterable[TestResult]) -> "AuditPoint":
        return dataclasses.replace(self, tests=tuple(tests), verdict=None,
                                   met_expectation=False)

    def judged(self) -> "AuditPoint":
        """The point with its verdict.  A vacuous point — every certificate compares with a
        claimed ε = ∞ and none errored — can never fail: its certificates become errors
        saying so (:data:`VACUOUS`), never a silent pass."""
        point = self
        pairs = list(self.certificates())
        if pairs and all(c.verdict != Verdict.ERROR and c.claimed_epsilon is not None
                         and math.isinf(c.claimed_epsilon) for _, c in pairs):
            point = dataclasses.replace(self, tests=tuple(
                dataclasses.replace(t, error=VACUOUS, certificates=tuple(
                    c.as_error() for c in t.certificates)) for t in self.tests))
        rule = self.power
        if rule is not None:
            point = dataclasses.replace(point, tests=tuple(dataclasses.replace(t, certificates=tuple(
                dataclasses.replace(c, underpowered=rule.is_underpowered(
                    c.verdict, c.notion, c.claimed_epsilon, c.detectable_epsilon)
                    if c.power_applies else None)
                for c in t.certificates)) for t in point.tests))
        if self.floating_point_gate == WARN:  # a float finding is a warning on its test
            point = dataclasses.replace(point, tests=tuple(dataclasses.replace(t, warnings=(
                t.warnings + tuple(floating_point_warning(
                    c.floating_point_finding, c.value_epsilon_lower_bound, c.claimed_epsilon)
                    for c in t.certificates if c.floating_point))) for t in point.tests))
        verdict = Verdict.worst(c.verdict for _, c in point.certificates())
        met = point.gating_verdict(verdict) == self.expect
        if met and rule is not None and rule.require_power:
            met = not any(c.underpowered for _, c in point.certificates())
        return dataclasses.replace(point, verdict=verdict, met_expectation=met)

    @property
    def floating_point_gate(self) -> str:
        """``fail`` or ``warn``: how a floating-point violation gates this point (its
        coverage's, :data:`dpaudit.spec.coverage.FLOATING_POINT_GATES`)."""
        return FAIL if self.coverage is None else self.coverage.floating_point

    @property
    def value_verdict(self) -> Verdict:
        """The verdict of what reads the output *values* only: a floating-point violation
        (certified by a float64-representation event alone) counts as consistent here.
        One verdict per kind of leak: this, and :attr:`floating_point_finding`."""
        return Verdict.worst(Verdict.CONSISTENT if c.floating_point else c.verdict
                             for _, c in self.certificates())

    @property
    def floating_point_finding(self) -> bool:
        """Whether some certificate is a floating-point violation (the float64 outputs leak,
        the value-level bound within the claim)."""
        return any(c.floating_point for _, c in self.certificates())

    def gating_verdict(self, verdict: Verdict | None = None) -> Verdict:
        """The verdict the expectation is compared with: the point's verdict, or its
        :attr:`value_verdict` when floating-point findings only warn."""
        verdict = self.verdict if verdict is None else verdict
        return self.value_verdict if self.floating_point_gate == WARN else verdict

    @property
    def underpowered(self) -> bool:
        """Whether some certificate of the (judged) point is underpowered."""
        return any(c.underpowered for _, c in self.certificates())

    def outcome(self) -> AuditOutcome:
        """The point's ``unmet_expectations`` entry (a judged point)."""
        return AuditOutcome(suite=self.suite, file=self.suite_file, audit=self.audit,
                            mechanism=self.mechanism, expect=self.expect,
                            verdict=self.verdict, met_expectation=self.met_expectation,
                            certificates=sum(len(t.certificates) for t in self.tests),
                            sweep=self.sweep)

    def record(self, test: TestResult, certificate: Certificate) -> CertificateRecord:
        """The flat record of one certificate of this point (its point's, its test's and its
        own fields, the point's verdict as ``audit_verdict``)."""
        return CertificateRecord(
            **{name: getattr(self, name) for name in POINT_FIELDS},
            **{name: getattr(test, name) for name in TEST_FIELDS},
            **{name: getattr(certificate, name) for name in CERTIFICATE_FIELDS},
            audit_verdict=self.verdict)

    def records(self) -> list[CertificateRecord]:
        """The point flattened: one record per certificate, in :meth:`certificates` order."""
        return [self.record(test, certificate) for test, certificate in self.certificates()]

    # -- JSON ---------------------------------------------------------------------------------

    def to_json(self, shared: SharedValues | None = None, curves: bool = True) -> dict:
        """The point and its tests as plain JSON (results.json schema 4's ``points``, which
        leaves out the tests' figure data: ``curves=False``)."""
        out = {name: getattr(self, name) for name in _POINT_JSON}
        out["sweep"] = None if self.sweep is None else self.sweep.to_json()
        out["coverage"] = None if self.coverage is None else self.coverage.to_json()
        out["power"] = None if self.power is None else self.power.to_json()
        out = to_jsonable({k: (str(v) if isinstance(v, (Verdict, Expectation)) else v)
                           for k, v in out.items()})
        out["tests"] = [t.to_json(shared, curve=curves) for t in self.tests]
        return out

    @classmethod
    def from_json(cls, data: dict, shared: SharedValues | None = None) -> "AuditPoint":
        """The inverse of :meth:`to_json`.

        Raises:
          KeyError, TypeError, ValueError: a malformed document.
        """
        values = {name: data[name] for name in _POINT_JSON if name in data}
        values["expect"] = Expectation(data["expect"])
        values["verdict"] = None if data.get("verdict") is None else Verdict(data["verdict"])
        for name in ("confidence", "per_certificate_confidence"):
            values[name] = float(values[name])
        return cls(**values, sweep=SweepPoint.from_json(data.get("sweep")),
                   coverage=Coverage.from_json(data.get("coverage")),
                   power=StoppingRule.from_json(data.get("power")),
                   tests=tuple(TestResult.from_json(t, shared) for t in data["tests"]))


#: the flat record's fields that belong to its point, its test and its certificate
POINT_FIELDS = ("suite", "suite_file", "audit", "audit_index", "mechanism", "parameters",
                "defaulted_parameters", "expect", "confidence", "per_certificate_confidence",
                "distinguisher", "note", "sweep", "coverage", "power", "met_expectation")
TEST_FIELDS = ("pair", "pair_index", "claim", "true_epsilon", "samples", "seed", "seconds",
               "warnings", "error", "search", "sequential", "procedure", "family_members")
CERTIFICATE_FIELDS = ("notion", "delta", "alpha", "claimed_epsilon", "evidence",
                      "exact_epsilon", "verdict", "exact_verdict", "black_box_share",
                      "tightness", "detectable_epsilon", "underpowered")
#: the point's own JSON fields (sweep, coverage, power and tests are typed and written apart)
_POINT_JSON = ("procedure", "suite", "suite_file", "audit", "audit_index", "mechanism",
               "parameters", "defaulted_parameters", "expect", "confidence",
               "per_certificate_confidence", "distinguisher", "note", "verdict",
               "met_expectation")


def points_from_records(records: Iterable[CertificateRecord]) -> list[AuditPoint]:
    """The tree of flat records (judged ones): records grouped by point (in order of first
    appearance), then by test (pair index and seed), keeping every stored value.  The inverse
    of flattening with :meth:`AuditPoint.records`."""
    points: dict[tuple, tuple[CertificateRecord, dict[tuple, list]]] = {}
    for record in records:
        first, tests = points.setdefault(record.point_key, (record, {}))
        tests.setdefault((record.pair_index, record.seed), []).append(record)
    out = []
    for first, tests in points.values():
        out.append(AuditPoint(
            **{name: getattr(first, name) for name in POINT_FIELDS},
            verdict=first.audit_verdict, procedure=first.procedure,
            tests=tuple(TestResult(
                **{name: getattr(rows[0], name) for name in TEST_FIELDS},
                certificates=tuple(Certificate(**{name: getattr(r, name)
                                                  for name in CERTIFICATE_FIELDS})
                                   for r in rows)) for rows in tests.values())))
    return out


__all__ = ["CERTIFICATE_FIELDS", "PAIR", "POINT_FIELDS", "TEST_FIELDS", "VACUOUS",
           "AuditPoint", "Certificate", "TestResult", "points_from_records"]
