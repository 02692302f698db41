"""What the HTML report shows, as plain values for its Jinja2 template.

Every value is read from the typed :class:`~dpaudit.report.json_report.RunReport` — records,
outcomes, suites, summary, provenance — and only formatted here: no verdict, count or bound is
recomputed (the one derived series, the power curve, is drawn in
:mod:`dpaudit.report.power_figure`).  Vocabulary, the same in every report: a **certificate**
is one record (audit point × pair × δ or α; ``summary.certificates`` counts them); a **test**
is one curve certificate, one member of a suite's Bonferroni family (``family_size`` counts
them).

* :func:`overview` — the counts shown first;
* :func:`suite_tables` — per suite file, one row per certificate;
* :func:`audit_sections` — per audit, its claim, parameters (those left at their defaults
  marked so) and certificates;
* :func:`error_lines` — one line per error (malformed suite, erroring certificate, series).
"""

from __future__ import annotations

import json
import math
import re

from dpaudit.results.defaults import audit_defaults
from dpaudit.results.records import CertificateRecord
from dpaudit.report.json_report import RunReport
from dpaudit.report.mathml import claim_math


def number(value, digits: int = 4) -> str:
    """A number as the reports print it: 4 significant digits, ∞, — for unknown."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return {"inf": "∞", "-inf": "−∞"}.get(value, value)
    if isinstance(value, bool) or isinstance(value, int):
        return str(value)
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.{digits}g}"


def sort_key(value) -> str:
    """The ``data-sort`` value of a numeric cell (what the page's script sorts by)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "1e308" if value == math.inf else repr(float(value))
    if value == "inf":
        return "1e308"
    return ""


def anchor(*parts) -> str:
    """An HTML id from ``parts`` (letters, digits, ``-``, ``_`` and ``.`` only)."""
    return "a-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", "--".join(str(p) for p in parts)).strip("-")


def _audit_key(record: CertificateRecord) -> tuple:
    return (record.suite_file, record.audit_index)


def _audit_anchor(record: CertificateRecord) -> str:
    return anchor(record.suite, record.audit_index, record.audit)


def _at(record: CertificateRecord) -> str:
    return (f"δ = {number(record.delta)}" if record.notion == "dp"
            else f"α = {number(record.alpha)} (RDP)")


def _verdict_text(record: CertificateRecord) -> str:
    if record.verdict != "violation" and record.exact_verdict == "violation":
        return f"{record.verdict} (exact ε > claim, not certified)"
    return record.verdict


def _audit_label(record: CertificateRecord) -> str:
    if record.sweep is None:
        return record.audit
    return f"{record.audit} [{record.sweep.parameter} = {number(record.sweep.value)}]"


def family_text(suite) -> str:
    """How a suite's confidence is split: over its tests, or over a fixed family of N
    (``[suite] family_size``) of which these tests are part."""
    tests, size = suite.tests_run, suite.family_size
    if tests == size:
        return f"over {tests} tests"
    return f"over a family of {size} tests fixed by the suite file, {tests} run here"


def overview(report: RunReport) -> dict:
    """Verdict counts (of certificates), audits met/total, unmet expectations, errors and the
    exact-only violations, from ``report.summary``."""
    s = report.summary
    suites = [x for x in report.run.suites if not (x.error or x.skipped)]
    return {
        "certificates": s.certificates,
        "verdicts": dict(s.verdicts),
        "audits": s.audits, "audits_met": s.audits_met,
        "tests": sum(x.tests_run for x in suites),
        "unmet": [{"suite": o.suite, "audit": o.audit, "mechanism": o.mechanism,
                   "point": "" if o.sweep is None else
                   f"{o.sweep.parameter} = {number(o.sweep.value)}",
                   "expect": o.expect, "verdict": o.verdict, "certificates": o.certificates}
                  for o in s.unmet_expectations],
        "errors": s.errors, "suite_errors": s.suite_errors,
        "exact_violations": len(s.exact_violations),
        "exact_only": [{"suite": r.suite, "audit": _audit_label(r), "pair": r.pair_name,
                        "at": _at(r), "claimed": number(r.claimed_epsilon),
                        "exact": number(r.exact_epsilon),
                        "lower": number(r.epsilon_lower_bound), "href": _audit_anchor(r)}
                       for r in s.exact_only_violations],
        "exit_status": s.exit_status,
        "incomplete": (None if report.run.incomplete is None
                       else report.run.incomplete.to_json()),
    }


def _row(record: CertificateRecord) -> dict:
    cells = [("claimed", record.claimed_epsilon), ("lower", record.epsilon_lower_bound),
             ("white", record.white_box_epsilon_lower_bound), ("exact", record.exact_epsilon),
             ("detectable", record.detectable_epsilon)]
    classes = [f"verdict-{record.verdict}"]
    if record.verdict != "violation" and record.exact_verdict == "violation":
        classes.append("exact-only")
    if not record.met_expectation:
        classes.append("unmet")
    return {
        "audit": _audit_label(record), "href": _audit_anchor(record),
        "mechanism": record.mechanism, "pair": record.pair_name or "—", "at": _at(record),
        "at_sort": sort_key(record.delta if record.notion == "dp" else record.alpha),
        "numbers": [(number(v), sort_key(v)) for _, v in cells],
        "verdict": record.verdict, "verdict_text": _verdict_text(record),
        "expect": record.expect, "met": record.met_expectation, "classes": " ".join(classes),
    }


def suite_tables(report: RunReport) -> list[dict]:
    """One table per suite file (in run order): the suite's entry and one row per certificate."""
    tables = []
    for index, suite in enumerate(report.run.suites):
        rows = [_row(r) for r in report.run.records if r.suite_file == suite.file]
        tables.append({"id": f"suite-{index}", "file": suite.file, "name": suite.name,
                       "error": suite.error or (None if suite.skipped is None
                                                else f"skipped: {suite.skipped}"),
                       "confidence": suite.confidence,
                       "family": None if suite.error or suite.skipped else family_text(suite),
                       "per_test_confidence": suite.per_certificate_confidence,
                       "seed": suite.seed, "audits": suite.audits, "points": suite.points,
                       "certificates": len(rows), "rows": rows})
    return tables


def _matching_candidate(certificate: dict) -> dict:
    """The certificate's best event among its ``candidates`` (which carry the
    Clopper–Pearson bounds), or {}."""
    for c in certificate.get("candidates") or []:
        if c.get("event") == certificate.get("event") and \
                c.get("numerator") == certificate.get("numerator"):
            return c
    return {}


def certificate_view(certificate: dict | None, kind: str) -> dict | None:
    """The displayed fields of an estimator certificate (``EpsilonLowerBound.to_dict()``)."""
    if not certificate:
        return None
    best = {**_matching_candidate(certificate), **certificate}
    numerator = best.get("numerator")
    denominator = {"d0": "d1", "d1": "d0"}.get(numerator, "the other side")
    return {
        "kind": kind, "epsilon": number(best.get("epsilon")), "event": best.get("event"),
        "numerator": numerator, "denominator": denominator,
        "k_num": best.get("k_numerator"), "n_num": best.get("n_numerator"),
        "k_den": best.get("k_denominator"), "n_den": best.get("n_denominator"),
        "p_num_lower": number(best.get("p_numerator_lower"), 6),
        "p_den_upper": number(best.get("p_denominator_upper"), 6),
        "significance": number(best.get("per_bound_significance"), 4),
        "confidence": number(best.get("confidence"), 6),
        "family": best.get("family_size"), "method": best.get("method"),
        "samples": best.get("samples"), "selection": best.get("selection_samples"),
        "certification": best.get("certification_samples"),
        "events": len(certificate.get("candidates") or []) or 1,
    }


def _certificate_entry(record: CertificateRecord) -> dict:
    pair = record.pair or {}
    return {
        "id": anchor(record.suite, record.audit_index, record.pair_index,
                     record.notion, record.delta if record.notion == "dp" else record.alpha,
                     "" if record.sweep is None else record.sweep.index),
        "label": _audit_label(record), "pair": pair.get("name") or "—",
        "pair_description": pair.get("description") or "",
        "d0": json.dumps(pair.get("d0")), "d1": json.dumps(pair.get("d1")),
        "at": _at(record), "verdict": record.verdict, "verdict_text": _verdict_text(record),
        "exact_only": record.verdict != "violation" and record.exact_verdict == "violation",
        "claimed": number(record.claimed_epsilon), "lower": number(record.epsilon_lower_bound),
        "white": number(record.white_box_epsilon_lower_bound),
        "exact": number(record.exact_epsilon), "true": number(record.true_epsilon),
        "detectable": number(record.detectable_epsilon),
        "tightness": number(record.tightness, 3), "share": number(record.black_box_share, 3),
        "samples": f"{record.samples:,}", "seed": record.seed,
        "seconds": number(record.seconds, 3),
        "confidence": number(record.confidence), "distinguisher": record.distinguisher,
        "per_certificate_confidence": number(record.per_certificate_confidence, 6),
        "certificates": [c for c in (certificate_view(record.certificate, "black-box"),
                                     certificate_view(record.white_box_certificate,
                                                      "white-box")) if c],
        "error": record.error, "warnings": list(record.warnings), "note": record.note,
        "record": record, "power_svg": None, "power_error": None,
    }


def audit_sections(report: RunReport) -> list[dict]:
    """One section per audit (suite file × audit, all its swept points and pairs), in run
    order, with its certificates, the distinct ``audit_verdict`` values of its points and
    whether every point met its expectation; figures are attached by
    :mod:`dpaudit.report.html`."""
    sections: dict[tuple, dict] = {}
    defaults = {(e.suite, e.audit): e for e in audit_defaults(report.run.records)}
    for record in report.run.records:
        key = _audit_key(record)
        if key not in sections:
            claim = record.claim or {}
            defaulted = defaults.get((record.suite, record.audit))
            given = ", ".join(f"{k} = {number(v) if not isinstance(v, str) else v}"
                              for k, v in record.parameters.items())
            sections[key] = {
                "id": _audit_anchor(record), "suite": record.suite,
                "suite_file": record.suite_file, "audit": record.audit,
                "mechanism": record.mechanism,
                "parameters": given or ("" if defaulted else "—"),
                # name = value of each parameter left at its default, shown marked "default"
                "defaulted": [] if defaulted is None else
                [f"{name} = {text}" for name, text in defaulted.texts().items()],
                "claim_text": claim.get("text") or "—", "notion": claim.get("notion"),
                "math": claim_math(claim),
                "substitutions": ", ".join(f"{k} = {number(v)}" for k, v in
                                           (claim.get("substitutions") or {}).items()),
                "expect": record.expect, "verdicts": [], "met": True, "certificates": [],
                "figures": [],
            }
        section = sections[key]
        section["certificates"].append(_certificate_entry(record))
        if record.audit_verdict and record.audit_verdict not in section["verdicts"]:
            section["verdicts"].append(record.audit_verdict)
        section["met"] = section["met"] and record.met_expectation
    return list(sections.values())


def error_lines(report: RunReport) -> list[str]:
    """One line per error: malformed suites, erroring certificates, failed series."""
    lines = [s.error for s in report.run.suites if s.error]
    lines += [f"{r.suite} / {_audit_label(r)} / pair {r.pair_name} ({_at(r)}): {r.error}"
              for r in report.run.records if r.error]
    lines += [f"{s.get('suite')} / series {s.get('name')}: {s['error']}"
              for s in report.run.series if s.get("error")]
    return [" ".join(str(line).split()) for line in lines]


__all__ = ["anchor", "audit_sections", "certificate_view", "error_lines", "family_text",
           "number", "overview", "sort_key", "suite_tables"]
