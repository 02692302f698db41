"""A results.json (schema 2) read back into the typed RunReport, for the HTML report's tests and
for rendering the committed example (``reports/example/report.html``).

Stand-in until ``dpaudit.report.results_file.read_report`` lands: it reads, never judges —
records keep their verdicts, ``audit_verdict`` and ``met_expectation``; an audit point's
outcome is read off its records.  Usage::

    python -c "import sys; sys.path.insert(0, 'tests'); from schema2_report import main; main()" \\
        reports/example/results.json reports/example/report.html
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from pathlib import Path

from dpaudit.audit.records import AuditOutcome, CertificateRecord, SuiteSummary, SweepPoint
from dpaudit.audit.runner import AuditRun
from dpaudit.report.json_report import Provenance, RunReport, RunSummary

_NUMBERS = ("claimed_epsilon", "epsilon_lower_bound", "exact_epsilon",
            "white_box_epsilon_lower_bound", "true_epsilon", "black_box_share", "tightness",
            "detectable_epsilon", "delta", "alpha")


def _number(value):
    return {"inf": math.inf, "-inf": -math.inf}.get(value, value)


def _record(entry: dict) -> CertificateRecord:
    fields = {f.name for f in dataclasses.fields(CertificateRecord)}
    data = {k: v for k, v in entry.items() if k in fields}
    for key in _NUMBERS:
        data[key] = _number(data.get(key))
    data["sweep"] = SweepPoint(**entry["sweep"]) if entry.get("sweep") else None
    data["warnings"] = tuple(entry.get("warnings") or ())
    return CertificateRecord(**data)


def _outcomes(records: list[CertificateRecord]) -> list[AuditOutcome]:
    groups: dict[tuple, list[CertificateRecord]] = {}
    for record in records:
        groups.setdefault(record.point_key, []).append(record)
    return [AuditOutcome(suite=rows[0].suite, file=rows[0].suite_file, audit=rows[0].audit,
                         mechanism=rows[0].mechanism, expect=rows[0].expect,
                         verdict=rows[0].audit_verdict, met_expectation=rows[0].met_expectation,
                         certificates=len(rows), sweep=rows[0].sweep)
            for rows in groups.values()]


def read_schema2(path: str | Path) -> RunReport:
    """The RunReport of a schema-2 results.json."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if doc.get("schema") != 2:
        raise ValueError(f"{path}: expected schema 2, got {doc.get('schema')!r}")
    records = [_record(r) for r in doc["audits"]]
    options = doc.get("options") or {}
    run = AuditRun(suites=[SuiteSummary(**s) for s in doc["suites"]], records=records,
                   curves=doc.get("curves") or [], outcomes=_outcomes(records),
                   series=doc.get("series") or [], seconds=doc.get("seconds") or 0.0,
                   workers=options.get("workers") or 1,
                   profile=options.get("profile") or "default",
                   samples_override=options.get("samples"), seed_override=options.get("seed"))
    provenance = Provenance(**{f.name: doc.get(f.name, "")
                               for f in dataclasses.fields(Provenance)})
    return RunReport(run=run, provenance=provenance,
                     summary=RunSummary.of(run, doc["summary"]["exit_status"]))


def main(argv: list[str] | None = None) -> None:
    from dpaudit.report.html import write_html

    source, target = (argv if argv is not None else sys.argv[1:])
    print(write_html(read_schema2(source), target))


__all__ = ["main", "read_schema2"]
