"""What the HTML report shows, as plain values for its Jinja2 template.

Every value is read from the typed :class:`~dpaudit.report.json_report.RunReport` — its run's
audit points, their tests and certificates (walked as the tree they are), suites, summary,
provenance — and only formatted here (numbers by :func:`dpaudit.util.numbers.format_number`): no
verdict, count or bound is recomputed (the one derived series, the power curve, is drawn in
:mod:`dpaudit.report.power_figure`).  Vocabulary, the same in every report:
:data:`dpaudit.report.glossary.GLOSSARY` (audit point, pair, test, certificate), shown on the
page.

* :func:`overview` — the headline (:mod:`dpaudit.report.headline`) and the counts shown first;
* :func:`suite_tables` — per suite file, one row per certificate, ✓/✗ first; a violation row
  is marked ``expected-violation`` (a known bug detected, not red) or
  ``unexpected-violation`` (red);
* :func:`audit_sections` — per audit, its claim, parameters (those left at their defaults
  marked so) and, per pair, its certificates (the pair's power figure is attached by
  :mod:`dpaudit.report.html`);
* :func:`error_lines` — one line per error (malformed suite, erroring certificate, series);
* :func:`glossary` — the glossary's terms.
"""

from __future__ import annotations

import json
import math
import re

from dpaudit.distinguish.result import EpsilonLowerBound
from dpaudit.spec.coverage import FLOAT_FIXES
from dpaudit.util.jsonable import to_jsonable
from dpaudit.util.numbers import format_number
from dpaudit.results.defaults import audit_defaults
from dpaudit.report.glossary import GLOSSARY, ReportCounts
from dpaudit.report.headline import headline, verdict_counts, violation_kind
from dpaudit.report.json_report import RunReport
from dpaudit.report.mathml import claim_math
from dpaudit.report.power_figure import undetectable


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


def _audit_anchor(point) -> str:
    """The id of an audit's section (``point``: an audit point, or a record of one)."""
    return anchor(point.suite, point.audit_index, point.audit)


def _at(c) -> str:
    """Where a certificate (or a record) is read."""
    return (f"δ = {format_number(c.delta)}" if c.notion == "dp"
            else f"α = {format_number(c.alpha)} (RDP)")


def _verdict_text(point, c) -> str:
    """A certificate's verdict in words (a violation says whether it was expected)."""
    if c.verdict != "violation" and c.exact_verdict == "violation":
        return f"{c.verdict} (exact ε > claim, not certified)"
    expected = ", detected as expected" if violation_kind(point, c) == "expected" else ""
    if c.floating_point:
        return (f"floating-point violation{expected} (value-level ε_LB "
                f"{format_number(c.value_epsilon_lower_bound)}): {c.floating_point_finding}. "
                f"{FLOAT_FIXES}")
    if c.rejection_reason:  # a violation whose ε_LB is not above the claim: say why
        return f"{c.verdict}{expected}: {c.rejection_reason}"
    return c.verdict + expected


def badge(point, c) -> tuple[str, str]:
    """(CSS class, text) of a certificate's verdict badge: a known bug detected is
    ``expected`` "detected as expected", an unexpected violation ``violation``, a consistent
    certificate below its power target ``underpowered``."""
    kind = violation_kind(point, c)
    if kind == "expected":
        return "expected", "detected as expected"
    if kind == "unexpected":
        return "violation", "unexpected violation"
    if c.underpowered:
        return "underpowered", "consistent, underpowered"
    return c.verdict, c.verdict


def _audit_label(point) -> str:
    """The audit's name, with the swept value of a point of a swept audit (``point``: an audit
    point, or a record of one)."""
    if point.sweep is None:
        return point.audit
    return f"{point.audit} [{point.sweep.parameter} = {format_number(point.sweep.value)}]"


def family_text(suite) -> str:
    """How a suite's confidence is split: over its tests, or over a fixed family of N
    (``[suite] family_size``) of which these tests are part."""
    tests, size = suite.tests_run, suite.family_size
    if tests == size:
        return f"over {tests} tests"
    return f"over a family of {size} tests fixed by the suite file, {tests} run here"


def overview(report: RunReport) -> dict:
    """The headline, verdict counts (of certificates), audits met/total, known bugs detected,
    unexpected violations, unmet expectations, errors and the exact-only violations, from
    ``report.summary``."""
    s = report.summary
    line = headline(report)
    counts = ReportCounts.of(report.run)
    kinds = [violation_kind(p, c) for p in report.run.points for _, c in p.certificates()]
    return {
        "headline": {"status": line.status, "text": " — ".join(line.parts()),
                     "class": line.status.lower()},
        "counts": counts, "counts_text": counts.text(),
        "verdicts_text": verdict_counts(report),
        "known_bugs": line.known_bugs, "unexpected": len(line.unexpected),
        "expected_certificates": kinds.count("expected"),
        "unexpected_certificates": kinds.count("unexpected"),
        "certificates": s.certificates,
        "verdicts": dict(s.verdicts),
        "audits": s.audits, "audits_met": s.audits_met,
        "tests": counts.tests,
        "unmet": [{"suite": o.suite, "audit": o.audit, "mechanism": o.mechanism,
                   "point": "" if o.sweep is None else
                   f"{o.sweep.parameter} = {format_number(o.sweep.value)}",
                   "expect": o.expect, "verdict": o.verdict, "certificates": o.certificates}
                  for o in s.unmet_expectations],
        "errors": s.errors, "suite_errors": s.suite_errors,
        "exact_violations": len(s.exact_violations),
        "exact_only": [{"suite": r.suite, "audit": _audit_label(r), "pair": r.pair_name,
                        "at": _at(r), "claimed": format_number(r.claimed_epsilon),
                        "exact": format_number(r.exact_epsilon),
                        "lower": format_number(r.epsilon_lower_bound),
                        "href": _audit_anchor(r)}
                       for r in s.exact_only_violations],
        "exit_status": s.exit_status,
        "incomplete": (None if report.run.incomplete is None
                       else report.run.incomplete.to_json()),
    }


def glossary() -> list[dict]:
    """The glossary's terms as ``{"word", "meaning"}``."""
    return [{"word": t.word, "meaning": t.meaning} for t in GLOSSARY]


def _row(point, test, c) -> dict:
    """The suite table's row of one certificate ``c`` of ``test`` of ``point``."""
    cells = [c.claimed_epsilon, c.epsilon_lower_bound, c.white_box_epsilon_lower_bound,
             c.exact_epsilon, c.detectable_epsilon]
    classes = [f"verdict-{c.verdict}"]
    kind = violation_kind(point, c)
    if kind is not None:
        classes.append(f"{kind}-violation")
    if c.verdict != "violation" and c.exact_verdict == "violation":
        classes.append("exact-only")
    if not point.met_expectation:
        classes.append("unmet")
    badge_class, badge_text = badge(point, c)
    return {
        "audit": _audit_label(point), "href": _audit_anchor(point),
        "mechanism": point.mechanism, "pair": test.pair_name or "—", "at": _at(c),
        "at_sort": sort_key(c.delta if c.notion == "dp" else c.alpha),
        "numbers": [(format_number(v), sort_key(v)) for v in cells],
        "undetectable": undetectable(c),
        "verdict": c.verdict, "verdict_text": _verdict_text(point, c),
        "badge_class": badge_class, "badge_text": badge_text,
        "expect": point.expect, "met": point.met_expectation, "classes": " ".join(classes),
    }


def suite_tables(report: RunReport) -> list[dict]:
    """One table per suite file (in run order): the suite's entry and one row per certificate
    of its audit points."""
    tables = []
    for index, suite in enumerate(report.run.suites):
        rows = [_row(point, test, c) for point in report.run.points_of(suite)
                for test, c in point.certificates()]
        tables.append({"id": f"suite-{index}", "file": suite.file, "name": suite.name,
                       "error": suite.error or (None if suite.skipped is None
                                                else f"skipped: {suite.skipped}"),
                       "confidence": suite.confidence,
                       "family": None if suite.error or suite.skipped else family_text(suite),
                       "per_test_confidence": suite.per_certificate_confidence,
                       "seed": suite.seed, "audits": suite.audits, "points": suite.points,
                       "certificates": len(rows), "rows": rows})
    return tables


def certificate_view(evidence) -> dict:
    """The displayed fields of one piece of evidence: a two-sample certificate's event, counts,
    bounds and method as a row of the counts table (``table``); any other kind its bound and
    its own description (:meth:`~dpaudit.evidence.base.Evidence.describe`)."""
    view = {"kind": evidence.role, "epsilon": format_number(evidence.bound),
            "text": evidence.describe(), "table": False, "method": None}
    if not isinstance(evidence, EpsilonLowerBound):
        return view
    best = evidence.chosen
    return {**view, "table": True,
            "event": best.event, "numerator": best.numerator,
            "denominator": "d1" if best.numerator == "d0" else "d0",
            "k_num": best.k_numerator, "n_num": best.n_numerator,
            "k_den": best.k_denominator, "n_den": best.n_denominator,
            "p_num_lower": format_number(best.p_numerator_lower, 6),
            "p_den_upper": format_number(best.p_denominator_upper, 6),
            "significance": format_number(evidence.per_bound_significance, 4),
            "confidence": format_number(evidence.confidence, 6),
            "family": evidence.family_size, "method": evidence.method,
            "samples": evidence.samples, "selection": evidence.selection_samples,
            "certification": evidence.certification_samples,
            "events": len(evidence.candidates) or 1}


def _search_text(search) -> str | None:
    """Where a searched pair came from, in words (None for a named pair)."""
    if search is None:
        return None
    return (f"rank {search.rank} of the pair search: a {search.source} candidate of the "
            f"dataset space, screening score {format_number(search.score)} (named pairs "
            f"{format_number(search.named_pairs_score)}; {search.candidates} candidates "
            f"screened on {search.screen_samples:,} samples per side)")


def _certificate_entry(point, test, c) -> dict:
    """The section's entry of one certificate ``c`` of ``test`` of ``point``."""
    badge_class, badge_text = badge(point, c)
    if c.verdict != "violation" and c.exact_verdict == "violation":
        badge_class = "exact"
    return {
        "id": anchor(point.suite, point.audit_index, test.pair_index,
                     c.notion, c.delta if c.notion == "dp" else c.alpha,
                     "" if point.sweep is None else point.sweep.index),
        "label": _audit_label(point), "pair": test.pair_name or "—",
        "at": _at(c), "verdict": c.verdict, "verdict_text": _verdict_text(point, c),
        "badge_class": badge_class,
        "exact_only": c.verdict != "violation" and c.exact_verdict == "violation",
        "claimed": format_number(c.claimed_epsilon),
        "lower": format_number(c.epsilon_lower_bound),
        "white": format_number(c.white_box_epsilon_lower_bound),
        "exact": format_number(c.exact_epsilon), "true": format_number(test.true_epsilon),
        "detectable": format_number(c.detectable_epsilon),
        "undetectable": undetectable(c),
        "tightness": format_number(c.tightness, 3),
        "share": format_number(c.black_box_share, 3),
        "samples": f"{test.samples:,}", "seed": test.seed,
        "seconds": format_number(test.seconds, 3),
        "confidence": format_number(point.confidence), "distinguisher": point.distinguisher,
        "per_certificate_confidence": format_number(point.per_certificate_confidence, 6),
        "certificates": [certificate_view(e) for e in c.evidence],
        "error": test.error, "warnings": list(test.warnings), "note": point.note,
        "coverage": (None if point.coverage is None else point.coverage.note),
        "search": _search_text(test.search),
    }


def _pair_entry(point, test) -> dict:
    """A section's entry of one pair (``test``) of ``point``: its datasets and its
    certificates; ``point`` and ``test`` are kept for the power figure
    (:mod:`dpaudit.report.html`)."""
    pair = test.pair
    lost = [c for c in test.certificates if undetectable(c)]
    note = ("" if not lost else
            "No event of this test could certify a violation at these samples "
            f"({', '.join(_at(c) for c in lost)}: detectable ε = ∞), so it has no power "
            "curve there: more samples, or a pair whose outputs differ more, would be needed "
            "to catch a leak.")
    return {
        "id": anchor(point.suite, point.audit_index, test.pair_index,
                     "" if point.sweep is None else point.sweep.index, "pair"),
        "label": _audit_label(point), "name": test.pair_name or "—",
        "description": "" if pair is None else pair.description,
        # as results.json holds them (NaN as "nan"): the page is the same read back or not
        "d0": json.dumps(to_jsonable(None if pair is None else pair.d0), ensure_ascii=False),
        "d1": json.dumps(to_jsonable(None if pair is None else pair.d1), ensure_ascii=False),
        "certificates": [_certificate_entry(point, test, c) for c in test.certificates],
        "point": point, "test": test,
        "power_svg": None, "power_error": None, "power_caption": "", "power_note": note,
    }


def audit_sections(report: RunReport) -> list[dict]:
    """One section per audit (suite file × audit, all its swept points and pairs:
    :meth:`~dpaudit.results.run.AuditRun.audits`) with a certificate, in run order, with its
    pairs and their certificates, the distinct verdicts of its points and whether every point
    met its expectation; figures are attached by :mod:`dpaudit.report.html`."""
    sections = []
    defaults = {(e.suite, e.audit): e for e in audit_defaults(report.run.points)}
    for points in report.run.audits():
        points = [p for p in points if next(p.certificates(), None) is not None]
        if not points:
            continue
        first = points[0]
        claim = next(first.certificates())[0].claim or {}
        defaulted = defaults.get((first.suite, first.audit))
        given = ", ".join(f"{k} = {format_number(v) if not isinstance(v, str) else v}"
                          for k, v in first.parameters.items())
        verdicts = []
        for p in points:
            for _, c in p.certificates():
                entry = badge(p, c)
                if entry not in verdicts:
                    verdicts.append(entry)
        pairs = [_pair_entry(point, test) for point in points for test in point.tests
                 if test.certificates]
        sections.append({
            "id": _audit_anchor(first), "suite": first.suite,
            "suite_file": first.suite_file, "audit": first.audit,
            "mechanism": first.mechanism,
            "parameters": given or ("" if defaulted else "—"),
            # name = value of each parameter left at its default, shown marked "default"
            "defaulted": [] if defaulted is None else
            [f"{name} = {text}" for name, text in defaulted.texts().items()],
            "claim_text": claim.get("text") or "—", "notion": claim.get("notion"),
            "math": claim_math(claim),
            "substitutions": ", ".join(f"{k} = {format_number(v)}" for k, v in
                                       (claim.get("substitutions") or {}).items()),
            "expect": first.expect, "verdicts": verdicts,
            "met": all(p.met_expectation for p in points),
            "pairs": pairs,
            "certificate_count": sum(len(p["certificates"]) for p in pairs),
            "figures": [],
        })
    return sections


def error_lines(report: RunReport) -> list[str]:
    """One line per error: malformed suites, erroring certificates, failed series."""
    lines = [s.error for s in report.run.suites if s.error]
    lines += [f"{point.suite} / {_audit_label(point)} / pair {test.pair_name} ({_at(c)}): "
              f"{test.error}" for point in report.run.points
              for test, c in point.certificates() if test.error]
    lines += [f"{s.suite} / series {s.name}: {s.error}" for s in report.run.series if s.error]
    return [" ".join(str(line).split()) for line in lines]


__all__ = ["anchor", "audit_sections", "badge", "certificate_view", "error_lines",
           "family_text", "glossary", "overview", "sort_key", "suite_tables"]
