"""``results.json``: its layout (schema 3), writing it atomically, and reading it back.

Every report (summary.md, report.html, junit.xml, ``dpaudit diff``) renders from the typed
:class:`~dpaudit.report.json_report.RunReport`; :func:`read_report` rebuilds exactly that from
a results.json file — of this schema or of schema 2 — so ``dpaudit report`` and ``dpaudit
diff`` never re-run anything.  :func:`write_results` writes the document atomically
(:func:`dpaudit.util.atomic.write_text_atomic`), one table row per line so that a diff of two runs
reads line by line.

Layout (schema 3).  The records (:class:`dpaudit.results.records.CertificateRecord`) are written
compactly (:mod:`dpaudit.report.compact`): ``points`` holds the fields an audit point's records
share, ``certificates`` the rest; ``datasets``, ``pairs``, ``claims``, ``events`` and ``tests``
hold each distinct item once, referred to by 0-based index.  The JSON Schema is
:data:`dpaudit.results.records.SCHEMA_FILE`.

Numbers that can be infinite are written as the string ``"inf"`` (JSON has no infinity);
``null`` means "not known / not applicable".  The fields, as the expanded document (schema 2
layout; schema 3 splits ``audits`` into ``points`` + ``certificates`` and adds the tables
``datasets``, ``pairs``, ``claims``, ``events``, ``tests``)::

    {
      "schema": 3,
      "dpaudit_version": "0.1.0",
      "created": "2026-11-22T10:00:00+00:00",      # UTC, ISO 8601
      "command": "dpaudit run audits/ --out reports/latest",
      "python": "3.11.7", "numpy": "...", "scipy": "...",
      "platform": "Linux-...",
      "options": {"profile": "default", "samples": null, "seed": null, "workers": 2,
                  "backend": "local",               # or e.g. "dask: local cluster, 2 workers"
                  "only": null},                   # --only patterns (list), null: all audits;
                                                   #   dpaudit diff compares profile, samples,
                                                   #   seed, only and dpaudit_version of two
                                                   #   runs (dpaudit.report.comparable); a file
                                                   #   without "options": profile default, all
      "seconds": 123.4,                            # wall time of the whole run
      "incomplete": {"reason": "interrupted by SIGTERM",  # only in a partial run: its
                     "tests_finished": 57,                 #   unfinished tests are "not run"
                     "tests_planned": 208},                #   error records; --resume
      "suites": [                                  # one per suite file, in command-line order
        {"file": "audits/classic.toml", "name": "classic",
         "confidence": 0.95,                       # family-wise, over the whole file
         "family_size": 24,                        # N: shares of the error budget, one per test
                                                   #   ([suite] family_size, else = tests)
         "tests": 24,                              # tests planned: one per (audit point, pair),
                                                   #   two with a white-box one
         "per_certificate_confidence": 0.99792,    # 1 − (1 − confidence)/N
         "seed": 20261122, "audits": 20,
         "points": 20, "series": 0,                # audit points (one per swept value), series
         "error": null}                            # SuiteError message if the file is malformed
                                                   #   (then no "points"/"series")
      ],
      "audits": [                                  # one record per (audit, pair, δ) and per
                                                   #   (audit, pair, α) of an RDP audit
        {"suite": "classic", "suite_file": "audits/classic.toml",
         "audit": "laplace-eps1", "audit_index": 0,
         "mechanism": "laplace", "parameters": {"epsilon": 1.0},
         "defaulted_parameters": {"sensitivity": 1.0},  # what params left at the
                                                   #   mechanism's defaults ({}: none); absent
                                                   #   in files written before it existed
         "claim": {...},                           # Claim.to_dict(): notion, parameters, text,
                                                   #   sympy expression, latex, substitutions
         "pair": {"name": ..., "d0": ..., "d1": ..., "description": ...},  # NeighbourPair.to_dict()
         "pair_index": 0,
         "notion": "dp",                           # "dp": ε at delta; "rdp": Rényi ε at alpha
         "delta": 0.0, "alpha": null,
         "claimed_epsilon": 1.0,                   # claim.epsilon(delta) (dp) or the claim's
                                                   #   RDP ε(alpha) (rdp); "inf" if none implied
         "epsilon_lower_bound": 0.93,              # certified black-box lower bound on ε(δ)
                                                   #   (dp) or on max(D_α(P0‖P1), D_α(P1‖P0))
         "white_box_epsilon_lower_bound": 0.97,    # the same from the white-box likelihood-
                                                   #   ratio distinguisher; null without one
         "exact_epsilon": 1.0,                     # exact ε(δ) / D_α of this pair, null if unknown
         "true_epsilon": null,                     # literature's real ε of a known-bad mechanism
         "verdict": "consistent",                  # this certificate: consistent|violation|error
                                                   #   (certified: max(black, white) vs claim)
         "exact_verdict": "consistent",            # exact ε vs the claim (violation when the
                                                   #   exact ε exceeds it); null without an exact
                                                   #   value; reported, never a CI gate
         "black_box_share": 0.96,                  # black-box ε_LB / white-box ε_LB (null
                                                   #   without a positive white-box one)
         "audit_verdict": "consistent",            # the audit's: error > violation > consistent
         "expect": "consistent",
         "met_expectation": true,                  # audit_verdict == expect
         "tightness": 0.97,                        # max(black, white ε_LB) / claimed ε; null if
                                                   #   claimed is inf or 0
         "detectable_epsilon": 1.08,               # power: the smallest true ε(δ) the same
                                                   #   test certifies with probability ≥ 1/2
                                                   #   (dpaudit.stats.power; min over black/
                                                   #   white box); "inf" if none; null for
                                                   #   errors and rdp records
         "samples": 200000,                        # per side, after --samples/--profile
         "seed": 123456789,                        # dpaudit.audit.plan.task_seed: suite seed
                                                   #   and the names of audit, pair, swept value
         "seconds": 3.2,
         "confidence": 0.95,                       # family (suite) confidence
         "per_certificate_confidence": 0.99792,    # what the estimator was called with
         "distinguisher": "auto",
         "certificate": {...},                     # EpsilonLowerBound.to_dict(): event, counts,
                                                   #   numerator side, method, … (null on error)
         "white_box_certificate": {...},           # the white-box one (or null)
         "error": null,                            # "ExceptionType: message" when verdict=error
         "warnings": [],                           # distinct warnings raised during the task
         "note": "",
         "sweep": null}                            # swept audits: {"parameter", "value",
                                                   #   "index"} of this audit point
      ],
      "curves": [                                  # per (audit, pair) with a δ grid or αs
        {"suite", "suite_file", "audit", "pair", "mechanism",
         "certified": [[δ, black ε_LB, white ε_LB], ...],
         "dense_delta": [...], "claimed": [...], "exact": [...],   # claimed/exact ε(δ)
         "renyi_certified": [[α, black, white], ...],
         "dense_alpha": [...], "claimed_renyi": [...], "exact_renyi": [...],
         "figure": "figures/classic__gaussian__add-max-record.png"},  # relative to results.json
        {"kind": "sweep",                          # one per (swept audit, pair, δ)
         "suite", "suite_file", "audit", "audit_index", "pair", "pair_index", "mechanism",
         "parameter": "steps", "delta": 0.01, "confidence", "per_certificate_confidence",
         "samples",
         "points": [{"value", "claimed", "certified", "white_box", "exact", "verdict",
                     "expect"}, ...],              # one per swept value
         "dense": [{"value", "claimed", "exact"}, ...],   # exact_points extra values
         "dense_errors": [...], "figure": "figures/…__sweep.png"}
      ],
      "series": [                                  # closed-form [[series]] entries
        {"suite", "suite_file", "name", "mechanism", "params", "quantity", "parameter",
         "values": [...], "y": [...], "label", "ylabel", "markers": [{"x", "label"}],
         "facts": {...}, "pair", "claim": {...}, "delta", "claimed_epsilon", "note",
         "seconds", "error", "figure": "figures/…__series.png"}
      ],
      "summary": {
        "certificates": 24,
        "verdicts": {"consistent": 15, "violation": 9, "error": 0},
        "exact_violations": 1,                     # certificates whose exact ε exceeds the
                                                   #   claim (whatever their certified verdict)
        "exact_only_violations": [{"suite", "audit", "pair", "delta", "alpha",
                                   "claimed_epsilon", "exact_epsilon", "epsilon_lower_bound"}],
                                                   # of those, the ones not certified
        "audits": 20, "audits_met": 20,               # audit points (one per swept value)
        "unmet_expectations": [{"suite", "file", "audit", "mechanism", "expect", "verdict",
                                "met_expectation", "certificates", "sweep"}, ...],
        "errors": 0,                               # erroring certificates, malformed suites, series
        "suite_errors": 0,
        "exit_status": 0                           # 0 all met, 1 some unmet, 2 any error
      }
    }
"""

from __future__ import annotations

import json
from pathlib import Path

from dpaudit.util.atomic import write_text_atomic
from dpaudit.util.jsonable import JsonNestingError, loads_json
from dpaudit.results.options import RunOptions
from dpaudit.results.records import SCHEMA_VERSION, CertificateRecord, SuiteSummary
from dpaudit.results.run import AuditRun, Incomplete
from dpaudit.report.compact import compact_records, expand_records
from dpaudit.report.figures import Figures
from dpaudit.report.json_report import Provenance, RunReport, RunSummary

#: the schema versions :func:`read_report` reads
READABLE_SCHEMAS = (2, 3)
_RECORD_FIELDS = tuple(f for f in CertificateRecord.__dataclass_fields__)
_PROVENANCE_KEYS = ("created", "command", "dpaudit_version", "python", "numpy", "scipy",
                    "platform", "executable")


class ResultsFileError(ValueError):
    """A results.json that cannot be read: missing, not JSON, of an unknown schema, or
    inconsistent.  The message names the file and the problem in one line."""


def results_document(report: RunReport) -> dict:
    """The schema-3 document of a run report (plain JSON values)."""
    document = report.to_json()
    tables, points, certificates = compact_records(document.pop("audits"))
    out = {}
    for key, value in document.items():
        if key == "curves":  # the tables go before the figure data
            out["points"] = points
            out["certificates"] = certificates
            out.update(tables)
        if key != "summary":
            out[key] = value
        if key == "suites":
            out["summary"] = document["summary"]
    out["schema"] = SCHEMA_VERSION
    return out


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
    """The document of a results.json of any readable schema, its records expanded to the
    schema-2 ``audits`` array (one :meth:`CertificateRecord.to_json` dict each).

    Raises:
      ResultsFileError: unreadable file, not JSON, nested deeper than
        :data:`~dpaudit.util.jsonable.MAX_JSON_DEPTH`, unknown schema, or a broken reference.
    """
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
        for key in ("suites", "audits", "summary"):
            document[key]  # noqa: B018 - presence check
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ResultsFileError(f"{path}: schema-{schema} results file is inconsistent "
                               f"({type(exc).__name__}: {exc})") from None
    return document


#: record fields that schema-2 files written before they existed lack, and their meaning then
_SCHEMA_2_DEFAULTS = {"exact_verdict": None, "black_box_share": None, "detectable_epsilon": None,
                      "true_epsilon": None, "white_box_epsilon_lower_bound": None,
                      "white_box_certificate": None, "exact_epsilon": None, "warnings": [],
                      "note": "", "sweep": None, "audit_verdict": None, "tightness": None,
                      "distinguisher": "auto", "alpha": None, "notion": "dp"}


def _with_schema_2_defaults(record: dict) -> dict:
    """A schema-2 record with the fields added during schema 2's life filled in (null: not
    known), so that every schema-2 file dpaudit wrote stays readable."""
    return {**_SCHEMA_2_DEFAULTS, **record}


def read_report(path: str | Path) -> RunReport:
    """The typed run report of a results.json (schema 2 or 3): records, audit outcomes, suites,
    curves and series with their figure paths, provenance and summary — what every renderer
    takes.  The records are grouped into audit points and tests
    (:meth:`~dpaudit.results.run.AuditRun.from_records`), whose verdicts are re-derived from
    the records' stored ones (a pure function of them).

    Raises:
      ResultsFileError: as :func:`read_document`, or a record that does not have the fields
        of a certificate record.
    """
    document = read_document(path)
    try:
        rows = document["audits"]
        if document["schema"] == 2:  # early schema-2 files lack fields added later
            rows = [_with_schema_2_defaults(r) for r in rows]
        records = [CertificateRecord.from_json(r) for r in rows]
        suites = [SuiteSummary.from_json(s) for s in document["suites"]]
        options = document.get("options") or {}
        curves = list(document.get("curves") or [])
        series = list(document.get("series") or [])
        figures = Figures(curves=tuple(c.get("figure") for c in curves),
                          series=tuple(s.get("figure") for s in series))
        run = AuditRun.from_records(
            records, suites=suites,
            curves=[{k: v for k, v in c.items() if k != "figure"} for c in curves],
            series=[{k: v for k, v in s.items() if k != "figure"} for s in series],
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
