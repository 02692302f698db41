"""``results.json``: its layout (schema 4), writing it atomically, and reading it back.

Every report (summary.md, report.html, junit.xml, ``dpaudit diff``) renders from the typed
:class:`~dpaudit.report.json_report.RunReport`; :func:`read_report` rebuilds exactly that from
a results.json file — of this schema, or of schema 3 or 2 — so ``dpaudit report`` and
``dpaudit diff`` never re-run anything.  :func:`write_results` writes the document atomically
(:func:`dpaudit.util.atomic.write_text_atomic`), one top-level key and one array element per
line, so that a diff of two runs reads line by line.

Layout (schema 4).  The file *is* the result tree of the run — the same serialisation the run
journal uses (:meth:`dpaudit.results.hierarchy.AuditPoint.to_json`) — with its bulky values
(datasets longer than a line, the δ-independent part of a curve certificate, a fitted
statistic's parameters, claims) written once in ``shared`` and referred to as
``{"$shared": index}`` (:mod:`dpaudit.util.shared_json`).  Numbers that can be infinite are
written as the string ``"inf"`` (JSON has no infinity); ``null`` means "not known / not
applicable".  The JSON Schema is :data:`dpaudit.results.records.SCHEMA_FILE`::

    {
      "schema": 4,
      "dpaudit_version": "0.1.0", "created": "2026-11-27T10:00:00+00:00",   # UTC, ISO 8601
      "command": "dpaudit run audits/ --out reports/latest",
      "python": "3.11.7", "numpy": "...", "scipy": "...", "platform": "Linux-...",
      "executable": "...",
      "options": {"profile": "default", "samples": null, "seed": null, "workers": 2,
                  "backend": "local", "only": null},
      "seconds": 123.4,                            # wall time of the whole run
      "incomplete": {"reason", "tests_finished", "tests_planned"},   # only in a partial run
      "suites": [{"file", "name", "confidence", "family_size", "tests",
                  "per_certificate_confidence", "seed", "audits", "points", "series",
                  "error"}],                       # one per suite file (SuiteSummary)
      "summary": {"certificates", "verdicts": {"consistent", "violation", "error"},
                  "exact_violations", "exact_only_violations": [...], "audits",
                  "audits_met", "unmet_expectations": [...], "errors", "suite_errors",
                  "exit_status"},                  # 0 all met, 1 some unmet, 2 any error
      "points": [                                  # one per audit point (AuditPoint)
        {"procedure": "pair",                      # the audit's kind (pair, exact-curve, …)
         "suite", "suite_file", "audit", "audit_index", "mechanism",
         "parameters": {...}, "defaulted_parameters": {...},
         "expect": "consistent", "confidence": 0.95, "per_certificate_confidence": 0.9979,
         "distinguisher": "auto", "note": "", "verdict": "consistent",
         "met_expectation": true,
         "sweep": null | {"parameter", "value", "index"},
         "coverage": {"search": {"candidates", "keep", "screen_samples"} | null,
                      "representation": false, "note": null},
         "power": {"sequential": true, "power": 1.1, "require_power": false},
         "tests": [                                # one per task of the procedure
           {"procedure": "pair", "family_members": 2,   # members of the suite's family
            "pair": {"name", "d0", "d1", "description"},   # datasets inline or shared
            "pair_index": 0, "claim": {"$shared": 3},      # Claim.to_dict()
            "true_epsilon": null, "samples": 200000, "seed": 123456789, "seconds": 3.2,
            "warnings": [], "error": null,
            "search": null | {"rank", "source", "score", "named_pairs_score", …},
            "sequential": {"stopped", "rounds", "looks", "samples", "drawn", "budget"},
            "certificates": [                      # one per δ, then one per α
              {"notion": "dp", "delta": 0.0, "alpha": null, "claimed_epsilon": 1.0,
               "verdict": "consistent", "exact_epsilon": 1.0,
               "exact_verdict": "consistent", "tightness": 0.97, "black_box_share": 0.96,
               "detectable_epsilon": 1.08, "underpowered": false,
               "evidence": [                       # typed: {"kind": …, …}
                 {"kind": "two-sample", "delta", "epsilon", "chosen", "epsilons",
                  "floating_point", "value_epsilon", "floating_point_finding",
                  "certification": {"$shared": 7}},    # method, counts, events
                 {"kind": "exact-curve", "delta", "alpha", "lower", "upper", "method",
                  "tolerance"},
                 {"kind": "canary", "delta", "claimed", "bound", "results", "plan",
                  "stopped_after", "claim", "histogram", "notes", "text"}]}],
            "curve": null | {...}}]}],             # the pair's figure data
      "curves": [...],                             # figure data (+ "figure": its PNG path)
      "series": [...],                             # closed-form [[series]] entries
      "shared": [...]                              # the values referred to as {"$shared": i}
    }

Each evidence kind documents its own fields (:mod:`dpaudit.distinguish.result`,
:mod:`dpaudit.evidence.exact_curve`, :mod:`dpaudit.mechanisms.canaries.evidence`, …); the flat records of the API and ``dpaudit diff`` are a
view of this tree (:class:`~dpaudit.results.records.CertificateRecord`).  Schema 3 (flat records
stored compactly: :mod:`dpaudit.report.compact`) and schema 2 (flat records) are read through
:mod:`dpaudit.results.legacy`.
"""

from __future__ import annotations

import json
from pathlib import Path

from dpaudit.report.compact import expand_records
from dpaudit.report.figures import Figures
from dpaudit.report.json_report import Provenance, RunReport, RunSummary
from dpaudit.results.figure_data import curve_from_json, series_from_json
from dpaudit.results.hierarchy import AuditPoint
from dpaudit.results.legacy import record_from_json
from dpaudit.results.options import RunOptions
from dpaudit.results.records import SuiteSummary
from dpaudit.results.run import AuditRun, Incomplete
from dpaudit.util.atomic import write_text_atomic
from dpaudit.util.jsonable import JsonNestingError, loads_json
from dpaudit.util.shared_json import SharedValues

#: the schema versions :func:`read_report` reads
READABLE_SCHEMAS = (2, 3, 4)
_PROVENANCE_KEYS = ("created", "command", "dpaudit_version", "python", "numpy", "scipy",
                    "platform", "executable")
#: the fields of a schema-2 record (what schema 3 expands to)
_RECORD_FIELDS = ("suite", "suite_file", "audit", "audit_index", "mechanism", "parameters",
                  "defaulted_parameters", "claim", "pair", "pair_index", "notion", "delta",
                  "alpha", "claimed_epsilon", "epsilon_lower_bound", "exact_epsilon",
                  "white_box_epsilon_lower_bound", "true_epsilon", "verdict", "exact_verdict",
                  "black_box_share", "expect", "met_expectation", "tightness",
                  "detectable_epsilon", "samples", "seed", "seconds", "confidence",
                  "per_certificate_confidence", "distinguisher", "certificate",
                  "white_box_certificate", "error", "warnings", "note", "sweep",
                  "audit_verdict", "coverage", "search", "power", "sequential",
                  "underpowered")


class ResultsFileError(ValueError):
    """A results.json that cannot be read: missing, not JSON, of an unknown schema, or
    inconsistent.  The message names the file and the problem in one line."""


def results_document(report: RunReport) -> dict:
    """The schema-4 document of a run report (plain JSON values)."""
    return report.to_json()


def dumps_results(document: dict) -> str:
    """results.json text: one top-level key per line, one array element per line, compact
    separators (no NaN: infinities are already the string "inf")."""
    def dump(value) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    parts = []
    for key, value in document.items():
        if isinstance(value, list) and value:
            rows = ",\n".join(f"  {dump(item)}" for item in value)
            parts.append(f" {dump(key)}: [\n{rows}\n ]")
        else:
            parts.append(f" {dump(key)}: {dump(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_results(report: RunReport | dict, path: str | Path) -> Path:
    """Write results.json atomically (``report``: a :class:`RunReport` or its
    :func:`results_document`)."""
    document = results_document(report) if isinstance(report, RunReport) else report
    return write_text_atomic(path, dumps_results(document))


def read_document(path: str | Path) -> dict:
    """The document of a results.json of any readable schema, as stored, with its flat
    records as the schema-2 ``audits`` array (one
    :meth:`~dpaudit.results.records.CertificateRecord.to_json` row per certificate: derived
    from a schema-4 tree, expanded from schema 3's compact records, as written in schema 2).

    Raises:
      ResultsFileError: unreadable file, not JSON, nested deeper than
        :data:`~dpaudit.util.jsonable.MAX_JSON_DEPTH`, unknown schema, or a broken reference.
    """
    document = _parse(path)
    if document["schema"] == 4:
        try:
            points, _ = _points(document)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ResultsFileError(f"{path}: schema-4 results file is inconsistent "
                                   f"({type(exc).__name__}: {exc})") from None
        document["audits"] = [record.to_json() for point in points
                              for record in point.records()]
    return document


def _parse(path: str | Path) -> dict:
    """The document as stored (schema 3's records expanded); raises as :func:`read_document`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultsFileError(f"{path}: cannot read the results file: "
                               f"{getattr(exc, 'strerror', None) or exc}") from None
    try:
        document = loads_json(text)
    except json.JSONDecodeError as exc:
        raise ResultsFileError(f"{path}: not JSON ({exc.msg} at line {exc.lineno}, column "
                               f"{exc.colno}); is it a results.json of dpaudit run?") from None
    except JsonNestingError as exc:
        raise ResultsFileError(f"{path}: {exc}; is it a results.json of dpaudit run?") from None
    if not isinstance(document, dict) or "schema" not in document:
        raise ResultsFileError(f"{path}: not a dpaudit results.json (no \"schema\" key)")
    schema = document["schema"]
    if schema not in READABLE_SCHEMAS:
        raise ResultsFileError(f"{path}: results schema {schema!r} is not one this dpaudit "
                               f"reads ({', '.join(map(str, READABLE_SCHEMAS))})")
    try:
        if schema == 3:
            tables = {k: document[k] for k in ("datasets", "pairs", "claims", "events",
                                                "tests")}
            document["audits"] = expand_records(tables, document["points"],
                                                document["certificates"], _RECORD_FIELDS)
        for key in ("suites", "points" if schema == 4 else "audits", "summary"):
            document[key]  # noqa: B018 - presence check
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ResultsFileError(f"{path}: schema-{schema} results file is inconsistent "
                               f"({type(exc).__name__}: {exc})") from None
    return document


def _points(document: dict) -> tuple[list[AuditPoint], bool]:
    """(the judged points of a document, whether they were stored as a tree)."""
    if document["schema"] == 4 and "points" in document:
        points = SharedValues(document.get("shared") or []).expand(document["points"])
        return [AuditPoint.from_json(p) for p in points], True
    from dpaudit.results.hierarchy import points_from_records

    records = [record_from_json(r) for r in document["audits"]]
    return [p.judged() for p in points_from_records(records)], False


def read_report(path: str | Path) -> RunReport:
    """The typed run report of a results.json (schema 2, 3 or 4): audit points with their
    tests, certificates and evidence, suites, curves and series with their figure paths,
    provenance and summary — what every renderer takes.  A schema-4 tree is read as stored; the
    flat records of schema 2 and 3 are grouped into points and tests, whose verdicts are
    re-derived from the records' stored ones (a pure function of them).

    Raises:
      ResultsFileError: as :func:`read_document`, or a point, test, certificate or record
        that does not have the fields it should.
    """
    document = _parse(path)
    try:
        points, _ = _points(document)
        suites = [SuiteSummary.from_json(s) for s in document["suites"]]
        options = document.get("options") or {}
        curves = [(curve_from_json(c), c.get("figure")) for c in document.get("curves") or []]
        series = [(series_from_json(s), s.get("figure")) for s in document.get("series") or []]
        figures = Figures(curves=tuple(path for _, path in curves),
                          series=tuple(path for _, path in series))
        run = AuditRun(
            points=points, suites=suites, curves=[curve for curve, _ in curves],
            series=[result for result, _ in series],
            seconds=float(document.get("seconds") or 0.0),
            options=RunOptions(samples=options.get("samples"),
                               profile=options.get("profile") or "default",
                               seed=options.get("seed"), only=tuple(options.get("only") or ())),
            workers=int(options.get("workers") or 1),
            backend=options.get("backend") or "local",
            incomplete=Incomplete.from_json(document.get("incomplete")))
        provenance = Provenance(**{k: str(document.get(k, "")) for k in _PROVENANCE_KEYS})
        status = int(document["summary"]["exit_status"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ResultsFileError(f"{path}: a record of this results file is malformed "
                               f"({type(exc).__name__}: {exc})") from None
    return RunReport(run=run, provenance=provenance, summary=RunSummary.of(run, status),
                     figures=figures)


__all__ = ["READABLE_SCHEMAS", "ResultsFileError", "dumps_results",
           "read_document", "read_report", "results_document", "write_results"]
