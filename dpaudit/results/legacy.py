"""Results written before the tree: the flat records of results.json schema 2 and 3.

Schemas 2 and 3 stored one flat record per certificate (schema 3 compactly, which
:mod:`dpaudit.report.results_file` expands back to the schema-2 layout), each with the
estimator's certificates as untyped dicts.  :func:`record_from_json` reads one such record into
today's :class:`~dpaudit.results.records.CertificateRecord` view — the dicts become typed
evidence (:func:`dpaudit.results.evidence_kinds.legacy_evidence`), the point's coverage, power,
search and budget their types — so that ``dpaudit report``, ``dpaudit diff`` and ``--baseline``
read a file of any of these schemas into the same tree
(:func:`dpaudit.results.hierarchy.points_from_records`).

Fields added during schema 2's life are filled in as "not known" (:data:`SCHEMA_2_DEFAULTS`).
"""

from __future__ import annotations

from dpaudit.evidence.vocabulary import CertificateNotion, Expectation, Verdict
from dpaudit.results.evidence_kinds import evidence_from_json, legacy_evidence
from dpaudit.results.provenance import BudgetUse, Coverage, RecordedPair, SearchProvenance
from dpaudit.results.records import CertificateRecord, SweepPoint
from dpaudit.stats.sequential import StoppingRule

#: the record fields that hold a number which may be written as "inf"
NUMBER_FIELDS = frozenset(("delta", "alpha", "claimed_epsilon", "epsilon_lower_bound",
                           "exact_epsilon", "white_box_epsilon_lower_bound", "true_epsilon",
                           "black_box_share", "tightness", "detectable_epsilon", "seconds",
                           "confidence", "per_certificate_confidence"))

#: record fields that schema-2 files written before they existed lack, and their meaning then
SCHEMA_2_DEFAULTS = {"exact_verdict": None, "black_box_share": None, "detectable_epsilon": None,
                     "true_epsilon": None, "white_box_epsilon_lower_bound": None,
                     "white_box_certificate": None, "exact_epsilon": None, "warnings": [],
                     "note": "", "sweep": None, "audit_verdict": None, "tightness": None,
                     "distinguisher": "auto", "alpha": None, "notion": "dp"}

#: the fields of a stored record that the view takes as they are
_PLAIN = ("suite", "suite_file", "audit", "audit_index", "mechanism", "parameters",
          "distinguisher", "note", "met_expectation", "pair_index", "claim", "samples", "seed",
          "error")


def _number(data: dict, name: str):
    value = data.get(name)
    return None if value is None else float(value)


def record_from_json(data: dict) -> CertificateRecord:
    """One stored record (schema 2's layout) as a :class:`CertificateRecord`.

    Raises:
      KeyError: a missing field; TypeError, ValueError: a malformed one.
    """
    data = {**SCHEMA_2_DEFAULTS, **data}
    defaulted = data.get("defaulted_parameters")
    if not isinstance(defaulted, (dict, type(None))):
        raise ValueError(f"defaulted_parameters must be an object of parameter values, "
                         f"got {defaulted!r}")
    notion = CertificateNotion(data["notion"])
    white_bound = _number(data, "white_box_epsilon_lower_bound")
    if data.get("evidence") is not None:  # a row of this version (CertificateRecord.to_json)
        evidence = tuple(evidence_from_json(e) for e in data["evidence"])
    else:
        evidence = legacy_evidence(notion, data["certificate"],
                                   data.get("white_box_certificate"),
                                   white_bound if notion is CertificateNotion.RDP else None)
    exact_verdict, audit_verdict = data.get("exact_verdict"), data.get("audit_verdict")
    return CertificateRecord(
        **{name: data[name] for name in _PLAIN},
        defaulted_parameters=defaulted, expect=Expectation(data["expect"]),
        confidence=float(data["confidence"]),
        per_certificate_confidence=float(data["per_certificate_confidence"]),
        sweep=SweepPoint.from_json(data["sweep"]),
        coverage=Coverage.from_json(data.get("coverage")),
        power=StoppingRule.from_json(data.get("power")),
        pair=RecordedPair.from_json(data["pair"]), true_epsilon=_number(data, "true_epsilon"),
        seconds=float(data["seconds"]), warnings=tuple(data["warnings"] or ()),
        search=SearchProvenance.from_json(data.get("search")),
        sequential=BudgetUse.from_json(data.get("sequential")),
        procedure=data.get("procedure", "pair"),
        family_members=data.get("family_members", 2 if data.get("white_box_certificate")
                                is not None or data.get("white_box_epsilon_lower_bound")
                                is not None else 1),
        notion=notion, delta=_number(data, "delta"), alpha=_number(data, "alpha"),
        claimed_epsilon=_number(data, "claimed_epsilon"), evidence=evidence,
        exact_epsilon=_number(data, "exact_epsilon"), verdict=Verdict(data["verdict"]),
        exact_verdict=None if exact_verdict is None else Verdict(exact_verdict),
        black_box_share=_number(data, "black_box_share"), tightness=_number(data, "tightness"),
        detectable_epsilon=_number(data, "detectable_epsilon"),
        underpowered=data.get("underpowered"),
        audit_verdict=None if audit_verdict is None else Verdict(audit_verdict))


__all__ = ["NUMBER_FIELDS", "SCHEMA_2_DEFAULTS", "record_from_json"]
