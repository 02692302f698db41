"""Flat records and the verdict rules: what one certificate found, what one audit concluded.

* :class:`CertificateRecord` — the flat *view* of one certificate: one per (audit point, pair,
  δ) (``notion = "dp"``) and one per (audit point, pair, α) (``notion = "rdp"``), its point's
  and its test's fields repeated (schema 2's row, the unit of ``dpaudit diff``).  Records are
  made by flattening the result tree (:meth:`dpaudit.results.hierarchy.AuditPoint.records`),
  which is where certificates and points are judged; never mutated afterwards.
* :func:`judge_certificate` — the verdict of one certificate.  With black-box lower bound b,
  white-box lower bound w (when the mechanism has a log-density) and claimed ε c:
  ``verdict = "violation"`` iff max(b, w) > c, else ``"consistent"``; ``tightness`` =
  max(b, w)/c when 0 < c < ∞; ``exact_verdict`` = ``"violation"`` iff the pair's exact ε e
  satisfies e > c(1 + :data:`EXACT_SLACK`) + 10⁻¹², ``None`` without an exact value (reported,
  never a CI gate: only certified verdicts decide an audit); ``black_box_share`` = b/w when
  0 < w < ∞.  A record whose task raised has ``verdict = "error"``, its message in ``error``
  and no verdict-derived values (tightness, exact_verdict, black_box_share are null).
* :class:`AuditOutcome` — an audit point's verdict
  (:meth:`dpaudit.results.hierarchy.AuditPoint.judged`): ``error`` if any of its certificates
  errored, else ``violation`` if any certified one, else ``consistent``; its expectation is
  met when that verdict equals ``expect`` (a known bug counts as detected when any of its
  pairs/δs/αs certifies it).  Every record of the point carries the point's
  ``audit_verdict`` and ``met_expectation``.
* :func:`exit_status` — 0 every audit met its expectation, 1 some did not, 2 any error.
* :class:`SuiteSummary` — one per suite file: its Bonferroni family, seed, or its error.

``results.json`` (schema version :data:`SCHEMA_VERSION`) is validated by the JSON Schema
(draft 2020-12) shipped next to this module, :data:`SCHEMA_FILE` (schema 2, still read by
``dpaudit report`` and ``dpaudit diff``: :data:`SCHEMA_2_FILE`).  A record is exactly
:meth:`CertificateRecord.to_json`; schema 3 writes it compactly
(:mod:`dpaudit.report.compact`): the fields its audit point shares go once into ``points``,
the rest into ``certificates``, and pairs (their datasets), claims, event definitions and
tests (the δ-independent part of a certificate) go once into top-level tables that the records
refer to by 0-based index; :func:`dpaudit.report.results_file.read_report` expands them back to
these records exactly.  An ``unmet_expectations`` entry is exactly :meth:`AuditOutcome.to_json`,
a ``suites`` entry exactly :meth:`SuiteSummary.to_json`.

The file's layout, field by field, is documented in :mod:`dpaudit.report.results_file`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpaudit.util.jsonable import to_jsonable
from dpaudit.stats.power import certificate_detectable_epsilon

SCHEMA_VERSION = 3
#: the JSON Schema (draft 2020-12) of results.json, shipped as package data
SCHEMA_FILE = Path(__file__).with_name("results.schema.json")
#: the JSON Schema of the previous version (schema 2), which ``report`` and ``diff`` still read
SCHEMA_2_FILE = Path(__file__).with_name("results-2.schema.json")
VERDICTS = ("consistent", "violation", "error")
#: relative slack before an exact ε counts as above the claim (the exact profiles' stated
#: numerical tolerances are far below it)
EXACT_SLACK = 1e-6


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
class CertificateJudgement:
    """The verdict of one certificate and the numbers derived with it (see the module
    docstring for the rules)."""

    verdict: str
    tightness: float | None
    exact_verdict: str | None
    black_box_share: float | None


def certified_bound(epsilon_lower_bound: float | None,
                    white_box_epsilon_lower_bound: float | None) -> float | None:
    """The certified lower bound a verdict compares with the claim: the larger of the black-
    and white-box lower bounds (either may be missing), None when neither is known.
    :attr:`CertificateRecord.bound` and :attr:`~dpaudit.results.hierarchy.Certificate.bound`
    are this of their two bounds."""
    values = [v for v in (epsilon_lower_bound, white_box_epsilon_lower_bound) if v is not None]
    return max(values) if values else None


def judge_certificate(epsilon_lower_bound: float, white_box_epsilon_lower_bound: float | None,
                      exact_epsilon: float | None, claimed_epsilon: float
                      ) -> CertificateJudgement:
    """Judge one certificate: the larger of the black- and white-box lower bounds against the
    claim (certified), and the exact ε against the claim (reported only).

    ``exact_verdict`` is ``"violation"`` when the exact value is above the claim (the claim is
    false for this pair even where no sample size in reach can certify it, e.g. at ε = 300).
    ``black_box_share`` = black-box ε_LB / white-box ε_LB: what a user without the density
    keeps of the most powerful (Neyman–Pearson) test's certificate."""
    black, white = epsilon_lower_bound, white_box_epsilon_lower_bound
    bound = certified_bound(black, white)
    claimed = claimed_epsilon
    tightness = bound / claimed if math.isfinite(claimed) and claimed > 0 else None
    exact_verdict = (None if exact_epsilon is None else
                     "violation" if exact_epsilon > claimed * (1 + EXACT_SLACK) + 1e-12
                     else "consistent")
    share = (black / white if black is not None and white and math.isfinite(white)
             and white > 0 else None)
    return CertificateJudgement(verdict="violation" if bound > claimed else "consistent",
                                tightness=tightness, exact_verdict=exact_verdict,
                                black_box_share=share)


def record_detectable_epsilon(certificate: dict | None, white_box_certificate: dict | None,
                              claimed_epsilon: float) -> float | None:
    """The power of a (dp) record: the smaller of its black- and white-box certificates'
    :func:`dpaudit.stats.power.certificate_detectable_epsilon`.  The record's verdict is a
    violation when *either* certifies one, so it detects that ε with probability ≥ 1/2 when
    either test does.  None without a certificate."""
    values = [v for v in (certificate_detectable_epsilon(c, claimed_epsilon)
                          for c in (certificate, white_box_certificate)) if v is not None]
    return min(values) if values else None


#: the record fields (and the tree's, :mod:`dpaudit.results.hierarchy`) that hold a number
#: which may be written as "inf"
NUMBER_FIELDS = frozenset(("delta", "alpha", "claimed_epsilon", "epsilon_lower_bound",
                            "exact_epsilon", "white_box_epsilon_lower_bound", "true_epsilon",
                            "black_box_share", "tightness", "detectable_epsilon", "seconds",
                            "confidence", "per_certificate_confidence"))


#: the record fields a results.json may lack (None then)
_OPTIONAL_FIELDS = frozenset(("audit_verdict", "defaulted_parameters", "coverage", "search",
                              "power", "sequential", "underpowered"))


def value_level_bound(certificate: dict | None, epsilon_lower_bound: float | None,
                      white_box_epsilon_lower_bound: float | None) -> float | None:
    """The certified bound of the events that read only the output *values*: the best
    black-box event whose statistic is not one of the float64 representation (the estimator's
    ``value_epsilon``; every event when no representation statistic was fitted) or the
    white-box bound, whichever is larger.  Valid at the certificate's confidence: those events
    are members of the same simultaneous family.  None without a black-box bound."""
    if epsilon_lower_bound is None:
        return None
    value = (certificate or {}).get("value_epsilon", epsilon_lower_bound)
    if isinstance(value, str):
        value = float(value)
    return certified_bound(value, white_box_epsilon_lower_bound)


def is_floating_point(c) -> bool:
    """Whether certificate (or record) ``c`` is a *floating-point* violation: a violation
    that only an event on the outputs' float64 representation certifies — the value-level
    bound (:func:`value_level_bound`) is within the claim.  The doubles leak, not the
    real-valued mechanism; it fails a run like any violation."""
    value = value_level_bound(c.certificate, c.epsilon_lower_bound,
                              c.white_box_epsilon_lower_bound)
    return (c.verdict == "violation" and c.notion == "dp"
            and bool((c.certificate or {}).get("floating_point"))
            and value is not None and c.claimed_epsilon is not None
            and value <= c.claimed_epsilon)


def floating_point_finding(c) -> str | None:
    """The certifying representation event of a floating-point violation ``c`` in words (the
    estimator's ``floating_point_finding``, else its event); None for any other verdict."""
    if not is_floating_point(c):
        return None
    cert = c.certificate or {}
    return cert.get("floating_point_finding") or cert.get("event")


@dataclass(frozen=True)
class CertificateRecord:
    """One certified comparison of a claim with the evidence: an ``audits`` entry of
    results.json (fields in the order of the JSON keys; see the module docstring).

    ``parameters``, ``claim``, ``pair``, ``certificate`` and ``white_box_certificate`` are the
    plain dicts the mechanism, its claim, the pair and the estimator report (``to_dict()``).
    ``parameters`` is what the suite gave; ``defaulted_parameters`` the parameters it left at
    the mechanism's defaults, name → value ({} when none; None in a results.json written
    before the field existed, and then not written back: :mod:`dpaudit.results.defaults`)."""

    suite: str
    suite_file: str
    audit: str
    audit_index: int
    mechanism: str
    parameters: dict
    defaulted_parameters: dict | None
    claim: dict | None
    pair: dict | None
    pair_index: int
    notion: str  # "dp": ε at delta; "rdp": Rényi ε at alpha
    delta: float | None
    alpha: float | None
    claimed_epsilon: float | None
    epsilon_lower_bound: float | None
    exact_epsilon: float | None
    white_box_epsilon_lower_bound: float | None
    true_epsilon: float | None
    verdict: str
    exact_verdict: str | None
    black_box_share: float | None
    expect: str
    met_expectation: bool
    tightness: float | None
    detectable_epsilon: float | None
    samples: int
    seed: int
    seconds: float
    confidence: float
    per_certificate_confidence: float
    distinguisher: str
    certificate: dict | None
    white_box_certificate: dict | None
    error: str | None
    warnings: tuple[str, ...]
    note: str
    sweep: SweepPoint | None
    audit_verdict: str | None = None  # the point's verdict
    coverage: dict | None = None  # the point's pair search and representation (None: older)
    search: dict | None = None  # a searched pair's provenance (None: a named pair)
    power: dict | None = None  # the point's stopping rule (None: an older file)
    sequential: dict | None = None  # how the test spent its budget (None: older, or failed)
    underpowered: bool | None = None  # below the power target (None: not applicable)

    @property
    def pair_name(self) -> str | None:
        return (self.pair or {}).get("name")

    @property
    def bound(self) -> float | None:
        """The certified lower bound the verdict compares with the claim: the larger of the
        black- and white-box bounds (:func:`certified_bound`), None when neither is known."""
        return certified_bound(self.epsilon_lower_bound, self.white_box_epsilon_lower_bound)

    @property
    def value_epsilon_lower_bound(self) -> float | None:
        """The bound of the events that read only values (:func:`value_level_bound`)."""
        return value_level_bound(self.certificate, self.epsilon_lower_bound,
                                 self.white_box_epsilon_lower_bound)

    @property
    def floating_point(self) -> bool:
        """Whether this is a floating-point violation (:func:`is_floating_point`)."""
        return is_floating_point(self)

    @property
    def floating_point_finding(self) -> str | None:
        return floating_point_finding(self)

    @property
    def point_key(self) -> tuple:
        """(suite file, audit index, sweep index or None): the audit point of this record."""
        return (self.suite_file, self.audit_index,
                None if self.sweep is None else self.sweep.index)

    def to_json(self) -> dict:
        """The record as a plain-JSON dict (∞ as ``"inf"``; see the module docstring);
        without ``defaulted_parameters`` when it is None (a record of an older file)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if self.defaulted_parameters is None:
            del out["defaulted_parameters"]
        for name in ("coverage", "search", "power", "sequential", "underpowered"):  # when known
            if out[name] is None:
                del out[name]
        out["sweep"] = None if self.sweep is None else self.sweep.to_json()
        out["warnings"] = list(self.warnings)
        return to_jsonable(out)

    @classmethod
    def from_json(cls, data: dict) -> "CertificateRecord":
        """The inverse of :meth:`to_json`: ``cls.from_json(r.to_json()).to_json() ==
        r.to_json()``.  Top-level numbers written as ``"inf"`` become floats again; nested
        dicts (claim, pair, certificates) stay as written; a record without
        ``defaulted_parameters`` (written before it existed) has None.  Raises KeyError on a
        missing field, ValueError on a malformed one."""
        values = {}
        for f in dataclasses.fields(cls):
            value = (data[f.name] if f.name not in _OPTIONAL_FIELDS else data.get(f.name))
            if isinstance(value, str) and f.name in NUMBER_FIELDS:
                value = float(value)  # "inf", "-inf", "nan"
            values[f.name] = value
        if not isinstance(values["defaulted_parameters"], (dict, type(None))):
            raise ValueError(f"defaulted_parameters must be an object of parameter values, "
                             f"got {values['defaulted_parameters']!r}")
        values["sweep"] = SweepPoint.from_json(values["sweep"])
        values["warnings"] = tuple(values["warnings"] or ())
        return cls(**values)


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
            or any(isinstance(s, dict) and s.get("error") for s in run.series)):
        return 2
    if any(not o.met_expectation for o in run.outcomes):
        return 1
    return 0


__all__ = ["EXACT_SLACK", "SCHEMA_2_FILE", "SCHEMA_FILE", "SCHEMA_VERSION", "VERDICTS",
           "NUMBER_FIELDS", "AuditOutcome", "CertificateJudgement", "CertificateRecord",
           "SuiteSummary",
           "SweepPoint", "certified_bound", "describe_exception", "exit_status",
           "judge_certificate", "record_detectable_epsilon"]
