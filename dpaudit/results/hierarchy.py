"""The results of a run as a tree: audit point → test → certificate.

A run's shape is fixed by its plan (:mod:`dpaudit.audit.plan`):

* an **audit point** (:class:`AuditPoint`) is one ``[[audit]]`` of a suite, or one swept
  value of a swept audit: one mechanism with one set of parameters, one expectation;
* a **test** (:class:`TestResult`) is one neighbouring pair of a point: one curve certificate
  (:func:`dpaudit.distinguish.lower_bound.estimate_privacy_curve_lower_bound`) that bounds
  ε(δ) at every δ of the audit and D_α at every α at once — black-box, plus a white-box one
  for a mechanism with a log-density — with the claim, the seed, the samples, the time, the
  warnings, or the error that stopped it, and the figure's curve data;
* a **certificate** (:class:`Certificate`) is one δ (``notion = "dp"``) or one Rényi order α
  (``notion = "rdp"``) of a test: the claimed ε there, the certified black- and white-box
  lower bounds read off the test's curves, the exact ε where the pair's law is known, and the
  verdict computed from those numbers (:func:`~dpaudit.results.records.judge_certificate`).

Contract:

* Every type is frozen; a value never changes after it is built.  A certificate's judgement
  (verdict, tightness, exact verdict, black-box share, detectable ε) is computed from its
  numbers once, by :meth:`Certificate.measured` or :meth:`Certificate.failed`; a point's
  verdict is computed from its certificates by :meth:`AuditPoint.judged`, which is also where
  a *vacuous* point (a claim of ε = ∞ at every audited δ and α) becomes an error.
* The flat :class:`~dpaudit.results.records.CertificateRecord` (schema 2's row, the unit of
  ``dpaudit diff``) is a *view*: :meth:`AuditPoint.records` flattens a point into one record
  per certificate, and :func:`points_from_records` rebuilds the tree from records, exactly
  (``points_from_records(p.records() for p in points)`` gives ``points`` back).
* Adding a field to a certificate is a field here (and in the flat record), in the JSON
  Schema, and in the renderers that show it: nothing that plans, executes or stores a run
  names the fields of a certificate.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Iterable, Iterator

from dpaudit.util.jsonable import to_jsonable
from dpaudit.stats.sequential import StoppingRule
from dpaudit.results.records import (NUMBER_FIELDS, AuditOutcome, CertificateRecord,
                                     SweepPoint, certified_bound, floating_point_finding,
                                     is_floating_point, judge_certificate,
                                     record_detectable_epsilon, value_level_bound)


@dataclass(frozen=True)
class Certificate:
    """One δ or one α of a test, judged.

    Attributes:
      notion: ``"dp"`` (ε at ``delta``) or ``"rdp"`` (Rényi ε at ``alpha``).
      delta, alpha: where the certificate is read (the other is None).
      claimed_epsilon: the claim's ε(δ), or its Rényi ε(α); None when the mechanism could not
        be built.
      epsilon_lower_bound: the certified black-box lower bound (None on an error).
      white_box_epsilon_lower_bound: the certified white-box lower bound, None without one.
      exact_epsilon: the pair's exact ε(δ) (or D_α), None where no closed form is known.
      certificate, white_box_certificate: the estimator's evidence (events, counts, bounds)
        as plain dicts.
      verdict: ``"violation"`` iff :attr:`bound` > ``claimed_epsilon``, else
        ``"consistent"``; ``"error"`` when the test failed (or the point is vacuous).
      exact_verdict, black_box_share, tightness, detectable_epsilon: derived as
        :func:`~dpaudit.results.records.judge_certificate` and
        :func:`~dpaudit.results.records.record_detectable_epsilon` say (None on an error).
      underpowered: a consistent ε(δ) certificate whose detectable ε exceeds the point's
        power target × its claim (:meth:`dpaudit.stats.sequential.StoppingRule.is_underpowered`):
        True or False once its point is judged, None where it does not apply (no target, a
        Rényi certificate, a violation, an error) or in a file written before it existed.
    """

    notion: str
    delta: float | None
    alpha: float | None
    claimed_epsilon: float | None
    epsilon_lower_bound: float | None
    exact_epsilon: float | None
    white_box_epsilon_lower_bound: float | None
    verdict: str
    exact_verdict: str | None
    black_box_share: float | None
    tightness: float | None
    detectable_epsilon: float | None
    certificate: dict | None
    white_box_certificate: dict | None
    underpowered: bool | None = None

    @classmethod
    def measured(cls, *, notion: str, delta: float | None, alpha: float | None,
                 claimed_epsilon: float, epsilon_lower_bound: float,
                 white_box_epsilon_lower_bound: float | None = None,
                 exact_epsilon: float | None = None, certificate: dict | None = None,
                 white_box_certificate: dict | None = None) -> "Certificate":
        """The certificate of measured numbers, judged.

        Raises:
          ValueError: ``notion`` is neither ``"dp"`` nor ``"rdp"``.
        """
        _check_notion(notion)
        judged = judge_certificate(epsilon_lower_bound, white_box_epsilon_lower_bound,
                                   exact_epsilon, claimed_epsilon)
        detectable = (record_detectable_epsilon(certificate, white_box_certificate,
                                                claimed_epsilon) if notion == "dp" else None)
        return cls(notion=notion, delta=delta, alpha=alpha,
                   claimed_epsilon=claimed_epsilon,
                   epsilon_lower_bound=epsilon_lower_bound,
                   exact_epsilon=exact_epsilon,
                   white_box_epsilon_lower_bound=white_box_epsilon_lower_bound,
                   verdict=judged.verdict, exact_verdict=judged.exact_verdict,
                   black_box_share=judged.black_box_share, tightness=judged.tightness,
                   detectable_epsilon=detectable, certificate=certificate,
                   white_box_certificate=white_box_certificate)

    @classmethod
    def failed(cls, *, notion: str, delta: float | None, alpha: float | None,
               claimed_epsilon: float | None = None, epsilon_lower_bound: float | None = None,
               white_box_epsilon_lower_bound: float | None = None,
               exact_epsilon: float | None = None, certificate: dict | None = None,
               white_box_certificate: dict | None = None) -> "Certificate":
        """The certificate of a test that raised: verdict ``"error"`` and no derived values;
        the numbers measured before the failure (at least the claimed ε when the claim could
        be read) are kept as evidence, never judged."""
        _check_notion(notion)
        return cls(notion=notion, delta=delta, alpha=alpha,
                   claimed_epsilon=claimed_epsilon,
                   epsilon_lower_bound=epsilon_lower_bound,
                   exact_epsilon=exact_epsilon,
                   white_box_epsilon_lower_bound=white_box_epsilon_lower_bound,
                   verdict="error", exact_verdict=None, black_box_share=None, tightness=None,
                   detectable_epsilon=None, certificate=certificate,
                   white_box_certificate=white_box_certificate)

    @property
    def bound(self) -> float | None:
        """The certified lower bound the verdict compares with the claim: the larger of the
        black- and white-box bounds (:func:`~dpaudit.results.records.certified_bound`; None
        when neither is known, as on most errors)."""
        return certified_bound(self.epsilon_lower_bound, self.white_box_epsilon_lower_bound)

    @property
    def value_epsilon_lower_bound(self) -> float | None:
        """The bound of the events that read only the output values
        (:func:`~dpaudit.results.records.value_level_bound`); None on an error."""
        return value_level_bound(self.certificate, self.epsilon_lower_bound,
                                 self.white_box_epsilon_lower_bound)

    @property
    def floating_point(self) -> bool:
        """Whether this is a floating-point violation
        (:func:`~dpaudit.results.records.is_floating_point`)."""
        return is_floating_point(self)

    @property
    def floating_point_finding(self) -> str | None:
        """The certifying representation event in words, for a floating-point violation."""
        return floating_point_finding(self)


VACUOUS = ("vacuous audit: the claim gives ε = ∞ at every audited δ and α, so no bound can "
           "contradict it and the audit tests nothing; audit a δ > 0 (e.g. delta = 1e-5) or "
           "an α the claim bounds")


def _check_notion(notion: str) -> None:
    if notion not in ("dp", "rdp"):
        raise ValueError(f"notion must be 'dp' or 'rdp', got {notion!r}")


@dataclass(frozen=True)
class TestResult:
    """One test: one neighbouring pair of an audit point, certified at every δ and α at once.

    Attributes:
      pair: the pair as a plain dict (``NeighbourPair.to_dict()``: name, d0, d1,
        description), None when the point's pairs could not be built.
      pair_index: its position among the point's pairs.
      claim: the mechanism's claim as a plain dict (``Claim.to_dict()``), None when the
        mechanism could not be built.
      true_epsilon: the literature's ε of a known-bad mechanism, else None.
      samples: outputs drawn per side; seed: the test's seed (the white-box test draws from
        seed + 1).
      seconds: wall time of the test; warnings: the warnings raised while it ran, as text.
      error: why the test failed (``"ExceptionType: message"``), None when it did not.
      certificates: one per δ of the audit, then one per α.
      curve: the figure's data (dense claimed and exact ε(δ) and ε(α) around the certified
        grid), None when the test has no figure.
      search: for a pair found by the point's pair search
        (:meth:`dpaudit.audit.pair_search.PairSearch.summary`): its rank, source and
        screening score beside the named pairs' score; None for a named pair.
      sequential: how the test spent its budget (:class:`dpaudit.audit.rounds.Rounds`):
        ``{"stopped": "violation" | "power" | "budget" | "fixed", "rounds", "looks",
        "samples" (outputs per side of the reported look), "drawn" (per side, every round
        run), "budget"}``; None when the test failed before certifying, or in a file written
        before dpaudit recorded it.  ``samples`` above is the budget.
    """

    __test__ = False  # not a pytest test class

    pair: dict | None
    pair_index: int
    claim: dict | None
    true_epsilon: float | None
    samples: int
    seed: int
    seconds: float
    warnings: tuple[str, ...]
    error: str | None
    certificates: tuple[Certificate, ...]
    curve: dict | None = None
    search: dict | None = None
    sequential: dict | None = None

    @property
    def pair_name(self) -> str | None:
        return (self.pair or {}).get("name")

    def to_json(self) -> dict:
        """The test as plain JSON (∞ as ``"inf"``); :meth:`from_json` inverts it exactly."""
        out = {name: getattr(self, name) for name in TEST_FIELDS}
        out["warnings"] = list(self.warnings)
        out["certificates"] = [{name: getattr(c, name) for name in CERTIFICATE_FIELDS}
                               for c in self.certificates]
        out["curve"] = self.curve
        return to_jsonable(out)

    @classmethod
    def from_json(cls, data: dict) -> "TestResult":
        """The inverse of :meth:`to_json`.

        Raises:
          KeyError: a missing field.
          ValueError, TypeError: a malformed one.
        """
        values = {name: _read_number(name, data[name]) for name in TEST_FIELDS
                  if name not in ("search", "sequential")}
        values["warnings"] = tuple(values["warnings"])
        for name in ("search", "sequential"):  # absent in journals of earlier versions
            values[name] = data.get(name)
        certificates = tuple(Certificate(**{name: _read_number(name, c[name])
                                            for name in CERTIFICATE_FIELDS
                                            if name != "underpowered"},
                                         underpowered=c.get("underpowered"))
                             for c in data["certificates"])
        return cls(**values, certificates=certificates, curve=data["curve"])


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
        defaults, name → value ({} when none; None in a results.json written before the field
        existed).
      expect: ``"consistent"`` or ``"violation"``.
      confidence: the suite's family-wise confidence; per_certificate_confidence: each test's
        (Bonferroni: 1 − (1 − confidence)/family size).
      distinguisher: the black-box distinguisher's name; note: the audit's note.
      sweep: where the point sits in its audit's sweep, None for an audit without one.
      coverage: what the point audits beyond its named pairs: ``{"search": the pair
        search's budget or None, "representation": whether the float64 representation is
        read, "note": why only the named pairs were audited, or None}``
        (:mod:`dpaudit.spec.coverage`); None in a results.json written before the field existed.
      power: the point's stopping rule (:class:`dpaudit.stats.sequential.StoppingRule`:
        ``{"sequential", "power", "require_power"}``); None in a file written before it
        existed.
      tests: one :class:`TestResult` per pair (named pairs first, then searched ones).
      verdict: ``"error"`` if any certificate errored, else ``"violation"`` if any certified
        one, else ``"consistent"``; None until judged.
      met_expectation: ``verdict == expect`` once judged, and no certificate underpowered
        when the point's rule says ``require_power``.
    """

    suite: str
    suite_file: str
    audit: str
    audit_index: int
    mechanism: str
    parameters: dict
    defaulted_parameters: dict | None
    expect: str
    confidence: float
    per_certificate_confidence: float
    distinguisher: str
    note: str
    sweep: SweepPoint | None
    coverage: dict | None = None
    power: dict | None = None
    tests: tuple[TestResult, ...] = ()
    verdict: str | None = None
    met_expectation: bool = False

    @property
    def key(self) -> tuple:
        """(suite file, audit index, sweep index or None): the point's identity in a run."""
        return (self.suite_file, self.audit_index,
                None if self.sweep is None else self.sweep.index)

    def certificates(self) -> Iterator[tuple[TestResult, Certificate]]:
        """Every (test, certificate) of the point, tests in pair order, then δ, then α."""
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
        if pairs and all(c.verdict != "error" and c.claimed_epsilon is not None
                         and math.isinf(c.claimed_epsilon) for _, c in pairs):
            point = dataclasses.replace(self, tests=tuple(
                dataclasses.replace(t, error=VACUOUS, certificates=tuple(
                    dataclasses.replace(c, verdict="error", tightness=None, exact_verdict=None,
                                        black_box_share=None, detectable_epsilon=None)
                    for c in t.certificates)) for t in self.tests))
        rule = StoppingRule.from_json(self.power)
        if rule is not None:
            point = dataclasses.replace(point, tests=tuple(dataclasses.replace(t, certificates=tuple(
                dataclasses.replace(c, underpowered=rule.is_underpowered(
                    c.verdict, c.notion, c.claimed_epsilon, c.detectable_epsilon))
                for c in t.certificates)) for t in point.tests))
        verdicts = {c.verdict for _, c in point.certificates()}
        verdict = ("error" if "error" in verdicts
                   else "violation" if "violation" in verdicts else "consistent")
        met = verdict == self.expect
        if met and rule is not None and rule.require_power:
            met = not any(c.underpowered for _, c in point.certificates())
        return dataclasses.replace(point, verdict=verdict, met_expectation=met)

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
        """The flat record of one certificate of this point: its point's, its test's and its
        own fields (:data:`POINT_FIELDS`, :data:`TEST_FIELDS`, :data:`CERTIFICATE_FIELDS`),
        the point's verdict as ``audit_verdict``."""
        return CertificateRecord(
            **{name: getattr(self, name) for name in POINT_FIELDS},
            **{name: getattr(test, name) for name in TEST_FIELDS},
            **{name: getattr(certificate, name) for name in CERTIFICATE_FIELDS},
            audit_verdict=self.verdict)

    def records(self) -> list[CertificateRecord]:
        """The point flattened: one record per certificate, in :meth:`certificates` order."""
        return [self.record(test, certificate) for test, certificate in self.certificates()]


#: the flat record's fields that belong to its point, its test and its certificate
POINT_FIELDS = tuple(f.name for f in dataclasses.fields(AuditPoint)
                     if f.name not in ("tests", "verdict"))
TEST_FIELDS = tuple(f.name for f in dataclasses.fields(TestResult)
                    if f.name not in ("certificates", "curve"))
CERTIFICATE_FIELDS = tuple(f.name for f in dataclasses.fields(Certificate))


def _read_number(name: str, value):
    """A number field written as ``"inf"``/``"-inf"``/``"nan"`` back to a float."""
    if isinstance(value, str) and name in NUMBER_FIELDS:
        return float(value)
    return value


def points_from_records(records: Iterable[CertificateRecord]) -> list[AuditPoint]:
    """The tree of flat records (judged ones, as a results.json holds them): records grouped
    by point (in order of first appearance), then by test (pair index and seed), keeping
    every stored value.  The inverse of flattening with :meth:`AuditPoint.records`."""
    points: dict[tuple, tuple[CertificateRecord, dict[tuple, list]]] = {}
    for record in records:
        first, tests = points.setdefault(record.point_key, (record, {}))
        tests.setdefault((record.pair_index, record.seed), []).append(record)
    out = []
    for first, tests in points.values():
        out.append(AuditPoint(
            **{name: getattr(first, name) for name in POINT_FIELDS},
            verdict=first.audit_verdict,
            tests=tuple(TestResult(
                **{name: getattr(rows[0], name) for name in TEST_FIELDS},
                certificates=tuple(Certificate(**{name: getattr(r, name)
                                                  for name in CERTIFICATE_FIELDS})
                                   for r in rows)) for rows in tests.values())))
    return out


__all__ = ["CERTIFICATE_FIELDS", "POINT_FIELDS", "TEST_FIELDS", "VACUOUS",
           "AuditPoint", "Certificate", "TestResult", "points_from_records"]
