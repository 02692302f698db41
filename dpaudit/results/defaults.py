"""Parameters an audit leaves at their defaults: which ones, their values, how to say it.

An audit's ``params`` may leave out parameters of its mechanism; the mechanism then runs with
the defaults its class declares (:class:`~dpaudit.mechanisms.parameters.Parameter`, or its
constructor's).  A misspelt or forgotten ``epsilon`` would then audit ε = 1 and pass, so this
is never silent: every record carries ``defaulted_parameters`` (name → value, ``{}`` when the
suite set everything; a swept parameter is set by the sweep), the CLI names them when it plans
(:func:`planning_notes`), and summary.md, report.html and ``dpaudit check`` show them.

Contract:

* :func:`defaulted_values` — the defaulted parameters of one built mechanism as plain JSON
  values (what results.json stores, so a record read back renders the same);
* :class:`AuditDefaults` / :func:`audit_defaults` — per audit (all its points), the distinct
  values each defaulted parameter takes (more than one only when a placeholder default, e.g.
  "2Δ", depends on a swept parameter);
* :func:`format_values` — ``"epsilon = 1, k = 2"``, the one spelling every report uses.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from dpaudit.util.jsonable import to_jsonable

#: a suite with more audits leaving parameters at their defaults gets one planning line, not
#: one per audit (the details are in summary.md and report.html)
MAX_AUDIT_LINES = 5
#: a value longer than this is shortened in the one-line texts (results.json keeps it whole)
MAX_VALUE_CHARS = 40


def defaulted_values(target, mechanism, params: Mapping[str, Any]) -> dict[str, Any]:
    """Name → plain JSON value of every parameter ``mechanism`` runs with that ``params``
    (what ``target`` built it from) leaves out (:meth:`dpaudit.suite.targets.Target.defaulted`)."""
    return to_jsonable(target.defaulted(mechanism, dict(params)))


@dataclass(frozen=True)
class AuditDefaults:
    """The parameters one audit leaves at their defaults.

    Attributes:
      suite, audit: where (suite name, audit name).
      values: name → the distinct values it takes over the audit's points, in order (one
        value unless a placeholder default depends on a swept parameter).
    """

    suite: str
    audit: str
    values: Mapping[str, tuple]

    def texts(self) -> dict[str, str]:
        """Name → its value as printed (several values over a sweep: ``"1 | 2"``)."""
        return {name: " | ".join(format_value(v) for v in values)
                for name, values in self.values.items()}

    def text(self) -> str:
        """``"epsilon = 1, k = 2"`` (several values over a sweep: ``c = 1 | 2``)."""
        return ", ".join(f"{name} = {text}" for name, text in self.texts().items())


def audit_defaults(rows: Iterable) -> list[AuditDefaults]:
    """One :class:`AuditDefaults` per audit of ``rows`` that leaves a parameter at its
    default, in order of first appearance.  ``rows`` are planned
    :class:`~dpaudit.audit.procedures.base.Task`\\ s, audit points
    (:class:`~dpaudit.results.hierarchy.AuditPoint`) or
    :class:`~dpaudit.results.records.CertificateRecord`\\ s: anything with ``suite``,
    ``suite_file``, ``audit``, ``audit_index`` and ``defaulted_parameters`` (None, in a record
    of an older results.json, counts as none)."""
    found: dict[tuple, tuple[str, str, dict[str, list]]] = {}
    for row in rows:
        defaulted = row.defaulted_parameters or {}
        key = (row.suite_file, row.audit_index)
        if key not in found:
            found[key] = (row.suite, row.audit, {})
        values = found[key][2]
        for name, value in defaulted.items():
            seen = values.setdefault(name, [])
            if value not in seen:
                seen.append(value)
    return [AuditDefaults(suite, audit, {k: tuple(v) for k, v in values.items()})
            for suite, audit, values in found.values() if values]


def planning_notes(defaults: Iterable[AuditDefaults],
                   max_lines: int = MAX_AUDIT_LINES) -> list[str]:
    """What the CLI prints when it plans: per suite, one line per audit that leaves parameters
    at their defaults (``suite/audit: parameters left at their defaults: epsilon = 1``), or,
    when more than ``max_lines`` audits of the suite do, one line with their count and the
    parameter names (the values are in summary.md)."""
    by_suite: dict[str, list[AuditDefaults]] = {}
    for entry in defaults:
        by_suite.setdefault(entry.suite, []).append(entry)
    lines = []
    for suite, entries in by_suite.items():
        if len(entries) <= max_lines:
            lines += [f"{suite}/{e.audit}: parameters left at their defaults: {e.text()}"
                      for e in entries]
            continue
        names = list(dict.fromkeys(name for e in entries for name in e.values))
        lines.append(f"{suite}: {len(entries)} audits leave parameters at their defaults "
                     f"({', '.join(names)}); their values are in summary.md")
    return lines


def format_value(value) -> str:
    """A parameter value as the reports print it: numbers with up to 6 significant digits,
    ∞, strings quoted, ``true``/``false``/``none``, long lists shortened."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return ("∞" if value > 0 else "−∞") if math.isinf(value) else f"{value:g}"
    if value in ("inf", "-inf"):
        return "∞" if value == "inf" else "−∞"
    text = json.dumps(value, ensure_ascii=False)
    if len(text) > MAX_VALUE_CHARS and isinstance(value, list):
        text = f"{text[:MAX_VALUE_CHARS - 8].rstrip(', ')}, …] ({len(value)} values)"
    elif len(text) > MAX_VALUE_CHARS:
        text = text[:MAX_VALUE_CHARS - 1] + "…"
    return text


def format_values(values: Mapping[str, Any] | None) -> str:
    """``"epsilon = 1, k = 2"`` for a record's ``defaulted_parameters`` (``""`` when none)."""
    return ", ".join(f"{name} = {format_value(v)}" for name, v in (values or {}).items())


__all__ = ["MAX_AUDIT_LINES", "AuditDefaults", "audit_defaults", "defaulted_values",
           "format_value", "format_values", "planning_notes"]
