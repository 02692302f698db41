"""Read a ``results.json`` back into the typed :class:`~dpaudit.report.json_report.RunReport`.

Every report (summary.md, junit.xml, the diff against a baseline) renders from a
:class:`RunReport`; :func:`read_report` rebuilds one from the file a previous ``dpaudit run``
wrote, so ``dpaudit report`` and ``dpaudit diff`` re-render without re-running anything.

This version reads schema 2 (:data:`dpaudit.audit.records.SCHEMA_VERSION`): each ``audits``
entry becomes a :class:`~dpaudit.audit.records.CertificateRecord` (``"inf"`` strings back to
floats, ``sweep`` to a :class:`~dpaudit.audit.records.SweepPoint`), the per-audit outcomes are
re-derived with :func:`dpaudit.audit.records.judge` (the same rule that wrote the file), the
``summary`` is recomputed from the records with the file's exit status, and each curve's and
series' ``figure`` path goes back into :class:`~dpaudit.report.figures.Figures`.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from dpaudit.audit.records import CertificateRecord, SuiteSummary, SweepPoint, judge
from dpaudit.audit.runner import AuditRun
from dpaudit.report.figures import Figures
from dpaudit.report.json_report import Provenance, RunReport, RunSummary

#: schema versions this reader understands
READABLE_SCHEMAS = (2,)

_NUMBERS = ("delta", "alpha", "claimed_epsilon", "epsilon_lower_bound", "exact_epsilon",
            "white_box_epsilon_lower_bound", "true_epsilon", "black_box_share", "tightness",
            "detectable_epsilon")
_REQUIRED = ("suite", "suite_file", "audit", "audit_index", "mechanism", "pair_index",
             "notion", "verdict", "expect")


class ResultsFileError(ValueError):
    """A results.json that cannot be read: missing, not JSON, another schema, or malformed.
    The message is one line and names the file."""


def _float(value):
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in ("inf", "-inf", "nan"):
            return float(value)
        raise ValueError(f"expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    raise ValueError(f"expected a number, got {value!r}")


def _record(entry: dict) -> CertificateRecord:
    missing = [k for k in _REQUIRED if k not in entry]
    if missing:
        raise ValueError(f"missing {', '.join(repr(k) for k in missing)}")
    values = {}
    for f in dataclasses.fields(CertificateRecord):
        if f.name in entry:
            values[f.name] = entry[f.name]
        elif f.default is not dataclasses.MISSING:
            values[f.name] = f.default
        else:
            values[f.name] = None
    for name in _NUMBERS:
        values[name] = _float(values[name])
    sweep = entry.get("sweep")
    values["sweep"] = (None if sweep is None else
                       SweepPoint(parameter=sweep["parameter"], value=sweep["value"],
                                  index=int(sweep["index"])))
    values["warnings"] = tuple(values["warnings"] or ())
    values["parameters"] = dict(values["parameters"] or {})
    for name, default in (("samples", 0), ("seed", 0), ("seconds", 0.0), ("confidence", 0.0),
                          ("per_certificate_confidence", 0.0), ("distinguisher", ""),
                          ("note", ""), ("met_expectation", False)):
        if values[name] is None:
            values[name] = default
    return CertificateRecord(**values)


def _suite(entry: dict) -> SuiteSummary:
    names = {f.name for f in dataclasses.fields(SuiteSummary)}
    values = {k: v for k, v in entry.items() if k in names}
    if "file" not in values:
        raise ValueError("a suite entry has no 'file'")
    values.setdefault("name", None)
    for key in ("confidence", "family_size", "per_certificate_confidence", "seed", "audits"):
        values.setdefault(key, 0 if key in ("family_size", "audits") else None)
    return SuiteSummary(**values)


def _split_figures(items: list) -> tuple[list[dict], tuple[str | None, ...]]:
    plain, paths = [], []
    for item in items:
        if not isinstance(item, dict):
            raise ValueError("a curve or series entry is not an object")
        item = dict(item)
        paths.append(item.pop("figure", None))
        plain.append(item)
    return plain, tuple(paths)


def report_from_json(document: dict) -> RunReport:
    """The :class:`RunReport` of a parsed results.json document (schema 2).

    Raises:
      ValueError: another schema, or a malformed document (the message says what).
    """
    if not isinstance(document, dict):
        raise ValueError("not a JSON object")
    schema = document.get("schema")
    if schema not in READABLE_SCHEMAS:
        raise ValueError(f"schema {schema!r} is not supported (this dpaudit reads schema "
                         f"{', '.join(map(str, READABLE_SCHEMAS))})")
    for key in ("suites", "audits", "summary"):
        if key not in document:
            raise ValueError(f"not a dpaudit results file: no {key!r}")
    records = []
    for index, entry in enumerate(document["audits"]):
        try:
            records.append(_record(entry))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"audits[{index}]: {exc}") from None
    records, outcomes = judge(records)
    curves, curve_paths = _split_figures(document.get("curves") or [])
    series, series_paths = _split_figures(document.get("series") or [])
    options = document.get("options") or {}
    run = AuditRun(suites=[_suite(s) for s in document["suites"]], records=records,
                   curves=curves, outcomes=outcomes, series=series,
                   seconds=float(document.get("seconds") or 0.0),
                   workers=int(options.get("workers") or 1),
                   profile=options.get("profile") or "default",
                   samples_override=options.get("samples"),
                   seed_override=options.get("seed"))
    provenance = Provenance(**{f.name: str(document.get(f.name) or "")
                               for f in dataclasses.fields(Provenance)})
    status = document["summary"].get("exit_status")
    if not isinstance(status, int):
        raise ValueError("summary.exit_status is not an integer")
    figures = Figures(curves=curve_paths, series=series_paths)
    return RunReport(run=run, provenance=provenance, summary=RunSummary.of(run, status),
                     figures=figures)


def read_report(path: str | Path) -> RunReport:
    """Read a results.json written by ``dpaudit run`` into a :class:`RunReport`.

    Raises:
      ResultsFileError: the file is missing or unreadable, not JSON, of an unsupported schema,
        or malformed; the message is one line naming the file and the problem.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ResultsFileError(f"{path}: is a directory, expected a results.json") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultsFileError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}"
                               ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsFileError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, "
                               f"column {exc.colno})") from None
    try:
        return report_from_json(document)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ResultsFileError(f"{path}: {exc}".replace("\n", " ")) from None


__all__ = ["READABLE_SCHEMAS", "ResultsFileError", "read_report", "report_from_json"]
