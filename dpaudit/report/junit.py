"""``junit.xml`` — the run as JUnit XML, for the test reports of CI systems (GitLab, GitHub
Actions reporters, Jenkins).

Layout (what GitLab's and the common GitHub Actions JUnit reporters read)::

    <testsuites name="dpaudit" tests= failures= errors= time= timestamp=>
      <testsuite name=SUITE tests= failures= errors= skipped="0" time= timestamp= file=FILE>
        <properties>  file, confidence, tests (the suite's tests: its Bonferroni family's
                      curve certificates), family_size (N, the error budget's shares),
                      per_test_confidence (1 − (1 − confidence)/N), seed, and what ran of
                      it: audit_points, pairs (= its testcases), certificates
        <testcase classname=SUITE name="AUDIT [param=value] / PAIR" time= file=FILE>
          <properties>  per δ (``delta=…:``) or α (``alpha=…:``): epsilon_lower_bound,
                        white_box_epsilon_lower_bound, claimed_epsilon, exact_epsilon,
                        detectable_epsilon, verdict (absent values are left out)
          <failure message="expected X, got Y: …" type="unmet-expectation">  when the audit
                        point's expectation is unmet; the message gives this pair's numbers,
                        the text its two datasets and its evidence
          <error message="…" type="error">  when one of this pair's certificates errored

One testcase per **pair** (audit point × neighbouring pair: :attr:`AuditPoint.tests
<dpaudit.results.hierarchy.AuditPoint.tests>`, walked suite by suite; the words are
:mod:`dpaudit.report.glossary`'s, so a JUnit "test" of a CI system is a dpaudit pair, with
one or two dpaudit tests and one certificate per δ and α); its ``time`` is the pair's
seconds (the task that certified every δ and α of it), a testsuite's the sum over its
testcases.  A malformed suite file is a testsuite named after the
file with one errored testcase.  An error takes precedence over a failure.  The testsuite and
testsuites counts are those of their testcases.  Escaping is :mod:`xml.etree.ElementTree`'s.

Per-testcase ``<properties>`` and the ``file`` attributes are the extensions GitLab, the
GitHub Actions reporters and Jenkins read (pytest's ``record_property`` writes the same); a
validator of the strict Ant schema, which has properties only per testsuite, rejects them.
"""

from __future__ import annotations

import datetime as _dt
import xml.etree.ElementTree as ET
from pathlib import Path

from dpaudit.util.atomic import write_text_atomic
from dpaudit.spec.coverage import FLOAT_FIXES
from dpaudit.util.numbers import PLAIN_INFINITY, format_number
from dpaudit.report.explain import evidence_line, pair_text
from dpaudit.report.json_report import RunReport

_PROPERTIES = ("epsilon_lower_bound", "white_box_epsilon_lower_bound", "claimed_epsilon",
               "exact_epsilon", "detectable_epsilon", "verdict")


def _value(value) -> str:
    """A property value: full precision, ``inf``/``-inf`` (what a float parser reads back)."""
    return format_number(value, None, infinity=PLAIN_INFINITY)


def _at(c) -> str:
    return f"delta={_value(c.delta)}" if c.notion == "dp" else f"alpha={_value(c.alpha)}"


def _numbers(c) -> str:
    """One certificate's numbers (``c``: a :class:`~dpaudit.results.hierarchy.Certificate`)."""
    head = "δ" if c.notion == "dp" else "α"
    at = format_number(c.delta if c.notion == "dp" else c.alpha)
    text = (f"{head}={at}: ε_LB {format_number(c.epsilon_lower_bound)}"
            + (f" (white-box {format_number(c.white_box_epsilon_lower_bound)})"
               if c.white_box_epsilon_lower_bound is not None else "")
            + f" vs claimed {format_number(c.claimed_epsilon)}")
    if c.exact_epsilon is not None:
        text += f", exact {format_number(c.exact_epsilon)}"
    if c.floating_point:
        return (text + f" → floating-point violation (value-level ε_LB "
                f"{format_number(c.value_epsilon_lower_bound)}: {c.floating_point_finding})")
    if c.rejection_reason:
        return text + f" → {c.verdict}: {c.rejection_reason}"
    if c.underpowered:
        return (text + f" → consistent, underpowered (could detect ε ≥ "
                f"{format_number(c.detectable_epsilon)})")
    return text + f" → {c.verdict}"


def _evidence(c) -> str:
    """:func:`_numbers`, then each piece of its evidence in the words every report uses
    (:func:`~dpaudit.report.explain.evidence_line`)."""
    return "\n  ".join([_numbers(c)] + [evidence_line(e) for e in c.evidence])


def _timestamp(created: str) -> str:
    """xs:dateTime without a zone (what the JUnit schema's ``timestamp`` pattern allows)."""
    try:
        when = _dt.datetime.fromisoformat(created)
    except ValueError:
        return ""
    if when.tzinfo is not None:
        when = when.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    return when.isoformat(timespec="seconds")


def _testcase(parent: ET.Element, point, test) -> str | None:
    """Append the testcase of one test of an audit point; return "failure", "error" or
    None."""
    name = point.audit
    if point.sweep is not None:
        name += f" [{point.sweep.parameter}={_value(point.sweep.value)}]"
    case = ET.SubElement(parent, "testcase", {
        # a test without a pair (a canary test; a point whose pairs could not be built) is
        # named by its procedure
        "classname": point.suite, "name": f"{name} / {test.pair_name or test.procedure}",
        "time": f"{test.seconds:.3f}", "file": point.suite_file})
    props = ET.SubElement(case, "properties")
    for c in test.certificates:
        for key in _PROPERTIES:
            value = getattr(c, key)
            if value is not None:
                ET.SubElement(props, "property", {"name": f"{_at(c)}:{key}",
                                                  "value": _value(value)})
    errors = [c for c in test.certificates if c.verdict == "error"]
    if errors:
        element = ET.SubElement(case, "error", {"message": test.error or "error",
                                                "type": "error"})
        element.text = "\n".join(f"{_at(c)}: {test.error}" for c in errors)
        return "error"
    if not point.met_expectation:
        detail = "; ".join(_numbers(c) for c in test.certificates)
        got = (f"{point.verdict}, underpowered (require_power)"
               if point.verdict == point.expect else point.verdict)
        message = f"expected {point.expect}, got {got} for the audit: {detail}"
        element = ET.SubElement(case, "failure", {"message": message,
                                                  "type": "unmet-expectation"})
        element.text = "\n".join([pair_text(test.pair, test.pair_name)]
                                 + [_evidence(c) for c in test.certificates])
        if any(c.floating_point for c in test.certificates):
            element.text += f"\n{FLOAT_FIXES}"
        return "failure"
    return None


def _count(element: ET.Element, tests: int, failures: int, errors: int, seconds: float,
           skipped: int = 0) -> None:
    """Set the counts, keeping name first and the counts before the other attributes."""
    rest = dict(element.attrib)
    element.attrib.clear()
    element.attrib.update({"name": rest.pop("name"), "tests": str(tests),
                           "failures": str(failures), "errors": str(errors),
                           **({"skipped": str(skipped)} if element.tag == "testsuite"
                              else {}),
                           "time": f"{seconds:.3f}", **rest})


def render_junit(report: RunReport) -> str:
    """The junit.xml text of a run report (layout in the module docstring)."""
    stamp = _timestamp(report.provenance.created)
    root = ET.Element("testsuites", {"name": "dpaudit"})
    totals = [0, 0, 0, 0.0]
    for suite in report.run.suites:
        element = ET.SubElement(root, "testsuite", {"name": suite.name or suite.file})
        if stamp:
            element.set("timestamp", stamp)
        element.set("file", suite.file)
        if suite.error:
            case = ET.SubElement(element, "testcase", {"classname": suite.file,
                                                      "name": "load suite file", "time": "0"})
            ET.SubElement(case, "error", {"message": suite.error, "type": "SuiteError"}
                          ).text = suite.error
            counts = [1, 0, 1, 0.0]
        elif suite.skipped:  # a library it requires is missing: one skipped testcase
            case = ET.SubElement(element, "testcase", {"classname": suite.file,
                                                      "name": "load suite file", "time": "0"})
            ET.SubElement(case, "skipped", {"message": suite.skipped})
            counts = [1, 0, 0, 0.0]
        else:
            props = ET.SubElement(element, "properties")
            points = report.run.points_of(suite)
            tests = [(point, test) for point in points
                     for test in point.tests if test.certificates]
            for key, value in (("file", suite.file), ("confidence", suite.confidence),
                               ("tests", suite.tests_run),
                               ("family_size", suite.family_size),
                               ("per_test_confidence", suite.per_certificate_confidence),
                               ("seed", suite.seed), ("audit_points", len(points)),
                               ("pairs", len(tests)),
                               ("certificates", sum(len(t.certificates) for _, t in tests))):
                ET.SubElement(props, "property", {"name": key, "value": _value(value)})
            outcomes = [_testcase(element, point, test) for point, test in tests]
            counts = [len(outcomes), outcomes.count("failure"), outcomes.count("error"),
                      sum(test.seconds for _, test in tests)]
        _count(element, *counts, skipped=1 if suite.skipped and not suite.error else 0)
        totals = [a + b for a, b in zip(totals, counts)]
    incomplete = report.run.incomplete
    if incomplete is not None:  # a stopped run is a failing CI job, whatever finished
        element = ET.SubElement(root, "testsuite", {"name": "dpaudit run"})
        case = ET.SubElement(element, "testcase", {"classname": "dpaudit", "name": "run complete",
                                                  "time": "0"})
        message = (f"incomplete run: {incomplete.tests_finished} of "
                   f"{incomplete.tests_planned} tests finished ({incomplete.reason}); "
                   f"dpaudit run --resume continues it")
        ET.SubElement(case, "error", {"message": message, "type": "Incomplete"}).text = message
        _count(element, 1, 0, 1, 0.0)
        totals = [totals[0] + 1, totals[1], totals[2] + 1, totals[3]]
    if stamp:
        root.set("timestamp", stamp)
    _count(root, *totals)
    ET.indent(root)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            + ET.tostring(root, encoding="unicode") + "\n")


def write_junit(report: RunReport, path: str | Path) -> Path:
    """Write :func:`render_junit` to ``path`` atomically (temp file, then ``os.replace``)."""
    return write_text_atomic(path, render_junit(report))


__all__ = ["render_junit", "write_junit"]
