"""Flat records and audit outcomes: what one certificate found, what one audit concluded.

* :class:`CertificateRecord` — the flat *view* of one certificate: one per (audit point, test,
  δ) (``notion = "dp"``) and one per (audit point, test, α) (``notion = "rdp"``), its point's
  and its test's fields repeated (the unit of ``dpaudit diff`` and of the API's ``records``).
  Records are made by flattening the result tree
  (:meth:`dpaudit.results.hierarchy.AuditPoint.records`), which is where certificates and
  points are judged (:mod:`dpaudit.results.certificate`); never mutated afterwards.
  results.json files of schema 2 and 3 stored records; :mod:`dpaudit.results.legacy` reads
  them back into this view.
* :class:`AuditOutcome` — an audit point's verdict
  (:meth:`dpaudit.results.hierarchy.AuditPoint.judged`): ``error`` if any of its certificates
  errored, else ``violation`` if any certified one, else ``consistent``; its expectation is
  met when that verdict equals ``expect`` (a known bug counts as detected when any of its
  pairs/δs/αs certifies it).
* :func:`exit_status` — 0 every audit met its expectation, 1 some did not, 2 any error.
* :class:`SuiteSummary` — one per suite file: its Bonferroni family, seed, or its error.

``results.json`` (schema version :data:`SCHEMA_VERSION`) is the result tree
(:mod:`dpaudit.report.results_file` documents it field by field), validated by the JSON Schema
(draft 2020-12) shipped next to this module, :data:`SCHEMA_FILE`; the schemas of the versions
``dpaudit report``, ``dpaudit diff`` and ``--baseline`` still read are :data:`SCHEMA_3_FILE`
and :data:`SCHEMA_2_FILE`.  An ``unmet_expectations`` entry is exactly
:meth:`AuditOutcome.to_json`, a ``suites`` entry exactly :meth:`SuiteSummary.to_json`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpaudit.evidence.base import Evidence
from dpaudit.evidence.vocabulary import CertificateNotion, Expectation, Verdict
from dpaudit.results.certificate import EvidenceReadings
from dpaudit.util.jsonable import to_jsonable

SCHEMA_VERSION = 4
#: the JSON Schema (draft 2020-12) of results.json, shipped as package data
SCHEMA_FILE = Path(__file__).with_name("results.schema.json")
#: the JSON Schema of schema 3, which ``report``, ``diff`` and ``--baseline`` still read
SCHEMA_3_FILE = Path(__file__).with_name("results-3.schema.json")
#: the JSON Schema of schema 2, still read too
SCHEMA_2_FILE = Path(__file__).with_name("results-2.schema.json")
VERDICTS = tuple(Verdict)


def describe_exception(exc: BaseException) -> str:
    """``"ExceptionType: message"`` (just the type when the message is empty): the text of a
    record's ``error``."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass(frozen=True)
class SweepPoint:
    """Where an audit point sits in its audit's sweep: ``parameter = values[index]``."""

    parameter: str
    value: Any
    index: int

    def to_json(self) -> dict:
        return {"parameter": self.parameter, "value": self.value, "index": self.index}

    @classmethod
    def from_json(cls, data: dict | None) -> "SweepPoint | None":
        return None if data is None else cls(data["parameter"], data["value"], data["index"])


@dataclass(frozen=True)
class SuiteSummary:
    """A ``suites`` entry of results.json: one suite file, its Bonferroni family (m curve
    certificates, each at ``per_certificate_confidence`` = 1 − (1 − confidence)/m) and seed;
    or, for a file that could not be run, its ``error`` (and no ``points``/``series``)."""

    file: str
    name: str | None
    confidence: float | None
    family_size: int
    per_certificate_confidence: float | None
    seed: int | None
    audits: int
    error: str | None = None
    tests: int | None = None  # tests planned (≤ family_size; equal unless the file fixes it)
    points: int | None = None  # audit points (one per swept value)
    series: int | None = None  # [[series]] entries
    skipped: str | None = None  # why a suite was not run (a missing `requires` library)

    @classmethod
    def skipped_file(cls, file: str, reason: str) -> "SuiteSummary":
        """The entry of a suite file skipped because a library it ``requires`` is missing."""
        return cls(file=str(file), name=None, confidence=None, family_size=0,
                   per_certificate_confidence=None, seed=None, audits=0, skipped=reason)

    @classmethod
    def failed(cls, file: str, message: str) -> "SuiteSummary":
        """The entry of a suite file that could not be run (malformed, or no suites found)."""
        return cls(file=str(file), name=None, confidence=None, family_size=0,
                   per_certificate_confidence=None, seed=None, audits=0, error=message)

    def to_json(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if self.error is not None or self.skipped is not None:
            del out["points"], out["series"], out["tests"]
        if self.skipped is None:
            del out["skipped"]
        return to_jsonable(out)

    @property
    def tests_run(self) -> int:
        """The tests the suite planned (one per audit point × pair, two with a white-box one):
        ``tests``, or, in results.json files that predate that key, ``family_size``."""
        return self.family_size if self.tests is None else self.tests

    @classmethod
    def from_json(cls, data: dict) -> "SuiteSummary":
        """The inverse of :meth:`to_json` (a schema-2 entry has no ``tests``)."""
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})


@dataclass(frozen=True)
class CertificateRecord(EvidenceReadings):
    """One certified comparison of a claim with the evidence, flat: its point's, its test's and
    its certificate's fields in one row (the unit of ``dpaudit diff`` and of the API's
    ``records``).  A view of the result tree (:meth:`dpaudit.results.hierarchy.AuditPoint.records`);
    the attributes are those of :class:`~dpaudit.results.hierarchy.AuditPoint`,
    :class:`~dpaudit.results.hierarchy.TestResult` and
    :class:`~dpaudit.results.certificate.Certificate` of the same name, and ``audit_verdict``
    is the point's verdict.  The numbers renderers read (``epsilon_lower_bound``, ``bound``,
    ``floating_point`` …) are the certificate's
    (:class:`~dpaudit.results.certificate.EvidenceReadings`)."""

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
    coverage: Any
    power: Any
    met_expectation: bool
    pair: Any
    pair_index: int
    claim: dict | None
    true_epsilon: float | None
    samples: int
    seed: int
    seconds: float
    warnings: tuple[str, ...]
    error: str | None
    search: Any
    sequential: Any
    procedure: str
    family_members: int
    notion: CertificateNotion
    delta: float | None
    alpha: float | None
    claimed_epsilon: float | None
    evidence: tuple[Evidence, ...]
    exact_epsilon: float | None
    verdict: Verdict
    exact_verdict: Verdict | None
    black_box_share: float | None
    tightness: float | None
    detectable_epsilon: float | None
    underpowered: bool | None
    audit_verdict: Verdict | None = None

    @property
    def pair_name(self) -> str | None:
        return None if self.pair is None else self.pair.name

    @property
    def point_key(self) -> tuple:
        """(suite file, audit index, sweep index or None): the audit point of this record."""
        return (self.suite_file, self.audit_index,
                None if self.sweep is None else self.sweep.index)

    def to_json(self) -> dict:
        """The record as one plain-JSON row in the layout of results.json schema 2 (what
        scripts that read flat rows expect): the point's, test's and certificate's fields,
        ``epsilon_lower_bound`` and ``white_box_epsilon_lower_bound`` read off the evidence,
        and the black- and white-box evidence as ``certificate`` and
        ``white_box_certificate`` (each evidence's own plain form).  A view: results.json
        holds the tree, never these rows."""
        out = {name: getattr(self, name) for name in _ROW_FIELDS}
        out["pair"] = None if self.pair is None else self.pair.to_dict()
        out["sweep"] = None if self.sweep is None else self.sweep.to_json()
        for name in ("coverage", "search", "power"):
            value = out[name]
            out[name] = None if value is None else value.to_json()
        out["sequential"] = None if self.sequential is None else self.sequential.to_dict()
        out["warnings"] = list(self.warnings)
        out["epsilon_lower_bound"] = self.epsilon_lower_bound
        out["white_box_epsilon_lower_bound"] = self.white_box_epsilon_lower_bound
        out["certificate"] = _plain(self.black_box)
        out["white_box_certificate"] = _plain(self.white_box)
        out["evidence"] = [e.to_json() for e in self.evidence]
        for name in ("defaulted_parameters", "coverage", "search", "power", "sequential",
                     "underpowered"):  # as schema 2 wrote them: only when known
            if out[name] is None:
                del out[name]
        return to_jsonable({k: (str(v) if isinstance(v, (Verdict, Expectation,
                                                         CertificateNotion)) else v)
                            for k, v in out.items()})


#: the record fields :meth:`CertificateRecord.to_json` writes as they are
_ROW_FIELDS = ("suite", "suite_file", "audit", "audit_index", "mechanism", "parameters",
               "defaulted_parameters", "claim", "pair", "pair_index", "procedure", "notion",
               "delta", "alpha", "claimed_epsilon", "exact_epsilon", "true_epsilon", "verdict",
               "exact_verdict", "black_box_share", "expect", "met_expectation", "tightness",
               "detectable_epsilon", "samples", "seed", "seconds", "confidence",
               "per_certificate_confidence", "distinguisher", "error", "warnings", "note",
               "sweep", "audit_verdict", "coverage", "search", "power", "sequential",
               "underpowered", "family_members")


def _plain(evidence) -> dict | None:
    """An evidence's self-contained plain form (``to_dict()`` where it has one)."""
    if evidence is None:
        return None
    return evidence.to_dict() if hasattr(evidence, "to_dict") else evidence.to_json()


@dataclass(frozen=True)
class AuditOutcome:
    """The verdict of one audit point (one per audit, one per swept value of a swept one)."""

    suite: str
    file: str
    audit: str
    mechanism: str
    expect: str
    verdict: str
    met_expectation: bool
    certificates: int
    sweep: SweepPoint | None

    def to_json(self) -> dict:
        """An ``unmet_expectations`` entry of results.json."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["sweep"] = None if self.sweep is None else self.sweep.to_json()
        return to_jsonable(out)


def exit_status(run) -> int:
    """0: every audit met its expectation; 1: some did not; 2: a malformed suite, an erroring
    certificate or an erroring ``[[series]]`` entry (``run``: an
    :class:`dpaudit.results.run.AuditRun`)."""
    if (any(s.error for s in run.suites) or any(r.verdict == "error" for r in run.records)
            or any(s.error for s in run.series)):
        return 2
    if any(not o.met_expectation for o in run.outcomes):
        return 1
    return 0


__all__ = ["SCHEMA_2_FILE", "SCHEMA_3_FILE", "SCHEMA_FILE", "SCHEMA_VERSION",
           "VERDICTS", "AuditOutcome", "CertificateRecord", "SuiteSummary", "SweepPoint",
           "describe_exception", "exit_status"]
